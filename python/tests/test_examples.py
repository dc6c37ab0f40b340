"""examples/python/ runs, and its results agree with numpy."""

import pathlib
import runpy


from conftest import precisions

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def test_user_kernel_example(ctx):
    example = runpy.run_path(str(EXAMPLES / "user_kernel.py"))
    for precision in precisions(ctx):
        # 100 steps of the same arithmetic: float differs from numpy only where the device
        # fuses a multiply-add (a few ulps of x <= 1).
        assert example["main"](precision) < (1e-5 if precision == "float" else 1e-12)
