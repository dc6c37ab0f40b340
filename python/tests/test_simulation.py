"""partcl.Simulation: scenario runs from Python, against partcl run's own files."""

import os
import subprocess

import numpy as np
import pytest

import partcl
from partcl import _toml

SMALL = {
    "scenario": {"name": "small"},
    "bodies": {"initial": "plummer", "n": 300, "seed": 7},
    "gravity": {"softening": 0.05},
    "integrator": {"name": "leapfrog", "dt": 0.02},
    "run": {"steps": 30, "diagnostics_every": 5, "frame_every": 10, "snapshot_every": 0,
            "checkpoint_every": 0},
}


def test_steps_then_the_rest_write_partcl_runs_files(ctx, tmp_path):
    sim = partcl.Simulation(ctx, SMALL, out=tmp_path / "py")
    assert not sim.finished and sim.step_count == 0
    for _ in range(7):
        assert sim.step()
    assert sim.step_count == 7 and sim.time == pytest.approx(0.14)
    state = sim.state()
    assert state["position"].shape == (300, 3) and state["velocity"].shape == (300, 3)
    np.testing.assert_allclose(state["mass"].sum(), 1.0)
    summary = sim.run(steps=3, progress=False)
    assert summary["last_step"] == 10
    reports = []
    summary = sim.run(progress=reports.append)
    assert sim.finished and not sim.step() and summary["last_step"] == 30
    assert [r["step"] for r in reports] == list(range(11, 31))
    assert reports[-1]["done"] and reports[-1]["fraction"] == 1.0
    assert any("energy drift" in line for line in summary["lines"])

    diagnostics = sim.diagnostics()
    assert list(diagnostics["step"]) == list(range(0, 31, 5))
    assert np.all(np.abs(diagnostics["relative_drift"]) < 1e-3)
    cli = os.environ.get("PARTCL_CLI")
    if not cli:
        pytest.skip("PARTCL_CLI (the partcl tool) is not set; ctest sets it")
    scenario = tmp_path / "small.toml"
    scenario.write_text(_toml.dumps(SMALL))
    subprocess.run([cli, "run", str(scenario), "--out", str(tmp_path / "cli"), "--quiet"],
                   check=True, capture_output=True)
    # The same device and the same steps: the same bits, whether stepped from Python or not.
    for name in ("energy.csv", "frame_000010.png", "frame_000030.png"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_to_a_time_and_other_models(ctx, tmp_path):
    sim = partcl.Simulation(ctx, "langmuir", out=tmp_path / "pic")
    sim.run(until=0.5, progress=False)
    assert 0.5 <= sim.time < 0.5 + 0.2
    state = sim.state()
    n = state["species"].shape[0]
    assert n > 0 and state["position"].shape[0] == n == state["velocity"].shape[0]
    assert "field" in " ".join(sim.diagnostics())

    fluid = partcl.Simulation(ctx, "hydrostatic", out=tmp_path / "mps")
    for _ in range(2):
        fluid.step()
    state = fluid.state()
    assert set(state) == {"position", "velocity", "type", "pressure"}
    assert state["position"].shape[1] == 2 and np.isfinite(state["pressure"]).all()


def test_scenario_errors_name_the_key(ctx, tmp_path):
    with pytest.raises(partcl.UsageError, match="unknown key 'initial' in \\[scenario\\]"):
        partcl.Simulation(ctx, {"scenario": {"initial": "plummer"}}, out=tmp_path)
    with pytest.raises(partcl.UsageError, match="galaxies"):
        partcl.Simulation(ctx, "no-such-scenario", out=tmp_path)
    with pytest.raises(partcl.UsageError):
        partcl.Simulation(ctx, 42, out=tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("[run]\nsteps = 10\n[bodies\nn = 3\n")
    for scenario in (bad, str(bad)):
        with pytest.raises(partcl.UsageError, match="bad.toml:3:8: malformed TOML"):
            partcl.Simulation(ctx, scenario, out=tmp_path)
    with pytest.raises(partcl.UsageError, match="steps or until"):
        partcl.Simulation(ctx, SMALL, out=tmp_path).run(steps=1, until=1.0)


def test_scenario_dicts_become_toml():
    text = _toml.dumps({"scenario": {"name": 'a "b"'}, "run": {"steps": 3, "dt": 0.5,
                        "on": True}, "plasma": {"species": [{"charge": -1.0}, {"charge": 1.0}]}})
    assert '[scenario]\nname = "a \\"b\\""' in text
    assert "steps = 3\ndt = 0.5\non = true" in text
    assert text.count("[[plasma.species]]") == 2
    with pytest.raises(TypeError):
        _toml.dumps({"run": {"steps": object()}})


def test_a_resumed_run_ends_as_the_uninterrupted_one(ctx, tmp_path):
    scenario = dict(SMALL, run=dict(SMALL["run"], checkpoint_every=10))
    whole = partcl.Simulation(ctx, scenario, out=tmp_path / "whole")
    whole.run(progress=False)
    cut = partcl.Simulation(ctx, scenario, out=tmp_path / "cut")
    cut.run(steps=14, progress=False)  # killed after step 14: the checkpoint is step 10's
    del cut
    resumed = partcl.Simulation.resume(ctx, tmp_path / "cut" / "checkpoint.bin",
                                       out=tmp_path / "cut")
    assert isinstance(resumed, partcl.Simulation) and resumed.step_count == 10
    assert "resumed from" in resumed.title
    resumed.run(progress=False)
    for name in ("energy.csv", "frame_000030.png"):
        assert (tmp_path / "cut" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    longer = partcl.Simulation.resume(ctx, tmp_path / "whole" / "checkpoint.bin",
                                      out=tmp_path / "longer", steps=40)
    longer.run(progress=False)
    assert longer.step_count == 40
    with pytest.raises(partcl.UsageError, match="no such file"):
        partcl.Simulation.resume(ctx, tmp_path / "none.bin", out=tmp_path / "none")
