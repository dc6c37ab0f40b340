"""The JSON lines a partcl benchmark printed (benchmarks/common.hpp), for the plotting scripts:
records(paths, "tree") gives every line of those files whose "bench" is "tree", in order;
pyplot() gives matplotlib's pyplot drawing to files (no display needed); theta_axis() labels a
panel drawn against the opening angle; save() titles a figure and writes it."""
import json


def records(paths, bench):
    out = []
    for path in paths:
        with open(path) as f:
            out.extend(r for r in (json.loads(line) for line in f if line.strip()) if r.get("bench") == bench)
    return out


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def theta_axis(ax, ylabel, legend_size=7, log=True):
    ax.set_xlabel("opening angle θ")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both" if log else "major", alpha=0.3)
    ax.legend(fontsize=legend_size)


def save(fig, title, path):
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
