import pytest

import partcl


def test_devices_are_listed_with_their_properties():
    devices = partcl.devices()
    assert devices, "partcl found no device (the tests need PoCL at least)"
    for d in devices:
        assert d.name and d.platform
        assert d.type in ("cpu", "gpu", "accelerator", "other")
        assert d.backend in ("opencl", "cuda")
        assert d.compute_units > 0 and d.global_memory > 0 and d.max_allocation > 0
        assert isinstance(d.fp64, bool)
        assert f"[{d.index}]" in repr(d)
    assert [d.index for d in devices] == list(range(len(devices)))


def test_filters_select_as_the_command_line_does():
    cpus = partcl.devices("cpu")
    assert all(d.type == "cpu" for d in cpus)
    assert partcl.devices("no-device-is-called-this") == []
    first = partcl.devices()[0]
    assert [d.index for d in partcl.devices(str(first.index))] == [first.index]
    with pytest.raises(partcl.UsageError, match="backend"):
        partcl.devices(backend="metal")


def test_context_over_the_filtered_devices(ctx):
    assert len(ctx) == len(ctx.devices) >= 1
    assert ctx.backend in ("opencl", "cuda")
    assert ctx.memory in ("shared", "separate")
    assert "partcl.Context" in repr(ctx)
    ctx.finish()
    one = partcl.Context(str(ctx.devices[0].index))
    assert [d.name for d in one.devices] == [ctx.devices[0].name]


def test_a_filter_that_matches_nothing_names_the_devices_there_are():
    with pytest.raises(partcl.Unsupported) as error:
        partcl.Context("no-device-is-called-this")
    assert "no-device-is-called-this" in str(error.value)
    assert partcl.devices()[0].name in str(error.value)
    with pytest.raises(partcl.UsageError, match="memory"):
        partcl.Context(memory="somewhere")


def test_errors_are_one_family():
    for error in (partcl.UsageError, partcl.Unsupported, partcl.BuildError, partcl.BackendError,
                  partcl.SourceError):
        assert issubclass(error, partcl.Error)
    assert issubclass(partcl.Error, RuntimeError)
    assert partcl.__version__.count(".") == 2
    assert "embedded" in partcl.kernel_tree() or "PARTCL_KERNEL_PATH" in partcl.kernel_tree()
