"""examples/python/ runs, and its results agree with numpy."""

import pathlib
import runpy

import pytest


from conftest import precisions

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def test_user_kernel_example(ctx):
    example = runpy.run_path(str(EXAMPLES / "user_kernel.py"))
    for precision in precisions(ctx):
        # 100 steps of the same arithmetic: float differs from numpy only where the device
        # fuses a multiply-add (a few ulps of x <= 1).
        assert example["main"](precision) < (1e-5 if precision == "float" else 1e-12)


def test_user_kernel_example_spread(ctx):
    # CTest's python.pytest_two_devices runs this on two PoCL devices.
    example = runpy.run_path(str(EXAMPLES / "user_kernel.py"))
    for precision in precisions(ctx):
        assert example["spread"](precision)


def test_galaxies_example(tmp_path):
    pytest.importorskip("matplotlib")
    example = runpy.run_path(str(EXAMPLES / "galaxies.py"))
    energy, bodies = example["main"](steps=10, out=str(tmp_path), progress=False)
    assert list(energy["step"]) == [0, 10]
    assert bodies["position"].shape == (16384, 3)
    assert (tmp_path / "galaxies.png").stat().st_size > 10_000
    assert (tmp_path / "energy.csv").exists()
