# Field energy against time from the diagnostics.csv of `partcl run langmuir` or
# `partcl run two-stream`, with the theory line (omega_p = 1, the built-ins' units):
#   langmuir:   W(t) = W(0) cos^2(omega t)  (the field of a cold oscillation from rest; --omega,
#               default omega_p = 1; for a species set-up its cold-plasma frequency, e.g.
#               sqrt 2 for the built-in pair-plasma)
#   two-stream: W(t) ~ exp(2 gamma t), gamma of cold-beam theory at k v0 (--gamma, default the
#               built-in's 1 / (2 sqrt 2)), through the first row e^3 above W(0): the linear phase
#               the run's summary fits (|E_k| e^1.5 above its seed)
# python3 scripts/plot_pic_field_energy.py OUT/diagnostics.csv --setup two-stream [--gamma G] [--out PNG]
# python3 scripts/plot_pic_field_energy.py OUT/diagnostics.csv --setup langmuir --omega 1.4142135623730951
import argparse, csv, math, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

parser = argparse.ArgumentParser()
parser.add_argument("csv")
parser.add_argument("--setup", choices=["langmuir", "two-stream"], required=True)
parser.add_argument("--gamma", type=float, default=1 / (2 * math.sqrt(2)))
parser.add_argument("--omega", type=float, default=1.0)
parser.add_argument("--out", default="field_energy.png")
args = parser.parse_args()

rows = list(csv.DictReader(open(args.csv)))
t = [float(r["t"]) for r in rows]
w = [float(r["field_energy"]) for r in rows]
fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
ax.plot(t, w, "k-", lw=1, label="partcl run " + args.setup)
if args.setup == "langmuir":
    ax.plot(t, [w[0] * math.cos(args.omega * x) ** 2 for x in t], "r--", lw=0.8,
            label=r"$W_0\cos^2\omega t$, $\omega$ = %.5g" % args.omega)
else:
    ax.set_yscale("log")
    start = next((i for i, x in enumerate(w) if x > w[0] * math.e ** 3), None)
    if start is not None:
        end = max(range(len(w)), key=lambda i: w[i])
        line = [w[start] * math.exp(2 * args.gamma * (x - t[start])) for x in t[: end + 1]]
        ax.plot(t[: end + 1], line, "r--", lw=0.8, label=r"linear theory $e^{2\gamma t}$, $\gamma$ = %.4f" % args.gamma)
ax.set_xlabel(r"$t\ [1/\omega_p]$")
ax.set_ylabel("field energy")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(args.out)
print("wrote", args.out)
