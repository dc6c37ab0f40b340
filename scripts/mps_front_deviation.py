# Deviation of partcl dam-break fronts from Martin & Moyce (1952) at the experiment's T <= 2.5:
# each front.csv (columns t,T,x,Z, as `partcl run` writes it) interpolated linearly at the T of
# docs/data/martin_moyce_1952.csv, printed as one Markdown table row per file, (z - Z) / Z in %.
# Run from the repository root:  python3 scripts/mps_front_deviation.py LABEL=out/front.csv ...
# (a bare FILE is labelled by its path). No third-party modules.
import csv, sys

def experiment(path='docs/data/martin_moyce_1952.csv', t_max=2.5):
    rows = [l.strip().split(',') for l in open(path)
            if l.strip() and not l.startswith('#') and not l.startswith('T')]
    return [(float(t), float(z)) for t, z in rows if float(t) <= t_max]

def interpolate(samples, T):
    for (t0, z0), (t1, z1) in zip(samples, samples[1:]):
        if t0 <= T <= t1:
            return z0 + (z1 - z0) * (T - t0) / (t1 - t0) if t1 > t0 else z0
    return float('nan')

def main(args):
    exp = experiment()
    print('| run | ' + ' | '.join(f'{t:.2f}' for t, _ in exp) + ' | max |')
    print('|---|' + '---|' * (len(exp) + 1))
    for arg in args:
        label, path = arg.rsplit('=', 1) if '=' in arg else (arg, arg)
        samples = [(float(r['T']), float(r['Z'])) for r in csv.DictReader(open(path))]
        dev = [100 * (interpolate(samples, t) - z) / z for t, z in exp]
        cells = ' | '.join('n/a' if d != d else '0%' if round(d) == 0 else
                           f'{d:+.0f}%'.replace('-', '−') for d in dev)
        worst = max(abs(d) for d in dev) if all(d == d for d in dev) else float('nan')
        print(f'| {label} | {cells} | {worst:.0f}% |')

if __name__ == '__main__':
    main(sys.argv[1:])
