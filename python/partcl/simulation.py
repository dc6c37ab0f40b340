"""partcl.Simulation: a scenario run from Python, what ``partcl run`` does, a step at a time
or to a time, with the state as numpy arrays and the diagnostics as a table."""

import csv
import io
import sys

import numpy as np

from ._partcl import _Simulation


class Simulation(_Simulation):
    """A scenario's run on a context, writing what ``partcl run`` writes into ``out``.

    ``scenario`` is a built-in name (``"galaxies"``, ``"plummer"``, ``"dambreak"``,
    ``"langmuir"``, ...), the path of a TOML scenario, or a dict of its tables
    (``{"bodies": {"n": 1000}, "run": {"steps": 50}}``); keys left out keep their defaults.
    Errors in it are ``partcl.UsageError`` naming the key.
    """

    def __init__(self, context, scenario, out="out"):
        super().__init__(context, scenario, out)

    @classmethod
    def resume(cls, context, checkpoint, out="out", steps=None, end_time=None):
        """The run a checkpoint (checkpoint.bin) holds, continued into ``out`` (the directory
        it was written in, or a new one): it goes on bit for bit as the uninterrupted run
        would have on the same device. ``steps`` or ``end_time`` moves its end."""
        return cls._resume(cls, context, checkpoint, out, steps, end_time)

    def step(self):
        """Takes one step (writing what falls on it); False once the run is finished."""
        return self._advance(1, None, None)

    def run(self, until=None, steps=None, progress=True):
        """Runs to the end, to simulated time ``until``, or ``steps`` more steps; returns
        summary(). ``progress``: True shows a bar (in a terminal or a Jupyter notebook),
        False nothing, a callable gets each report as a dict."""
        report = _Progress() if progress is True else progress or None
        try:
            self._advance(steps, until, report)
        finally:
            if isinstance(report, _Progress):
                report.close()
        return self.summary()

    def diagnostics(self):
        """The model's CSV so far (energy.csv, front.csv, ...) as {column: numpy array}."""
        rows = list(csv.reader(io.StringIO(self.csv_text)))
        if not rows:
            return {}
        header, rows = rows[0], rows[1:]
        columns = {}
        for i, name in enumerate(header):
            values = np.array([float(r[i]) for r in rows], dtype=np.float64)
            integral = name == "step" and np.all(values == np.round(values))
            columns[name] = values.astype(np.int64) if integral else values
        return columns

    def __repr__(self):
        return f"<partcl.Simulation {self.title}, step {self.step_count}, t = {self.time:g}>"


class _Progress:
    """The run's reports as a bar: redrawn in place in a terminal or in a notebook's output,
    a line per tenth of the run elsewhere (a log file)."""

    def __init__(self):
        self.handle = None
        self.shown = -1
        self.notebook = _in_notebook()
        self.terminal = not self.notebook and sys.stderr.isatty()

    def __call__(self, p):
        bar = "#" * int(30 * p["fraction"])
        line = f"[{bar:<30}] {p['text']}"
        if self.notebook:
            from IPython.display import display
            if self.handle is None:
                self.handle = display(line, display_id=True)
            else:
                self.handle.update(line)
        elif self.terminal:
            sys.stderr.write("\r" + line)
            sys.stderr.flush()
        elif int(10 * p["fraction"]) > self.shown or p["done"]:
            self.shown = int(10 * p["fraction"])
            print(line, file=sys.stderr)

    def close(self):
        if self.terminal:
            sys.stderr.write("\n")


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"
