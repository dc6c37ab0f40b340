# NumPy/SciPy reference prototype of Koshizuka & Oka's (1996) semi-implicit MPS, and of partcl's
# explicit MPS step (cl/mps/mps.cl), on the 2-D dam break of Martin & Moyce's column a x 2a. It
# was written to test whether an incompressible (Poisson) pressure with K&O's free-surface test
# removes the dam-break front's early lead over the experiment (docs/mps.md, "Fourth pass"). It is
# NOT part of the library: plain float64 host code, one set-up, slow (a/80: 5 min).
#
# Run from the repository root (needs python3-numpy and python3-scipy, e.g. Debian's packages):
#   /usr/bin/python3 scripts/mps_semi_implicit.py --mode explicit --l0 0.01 --out ex_a20
#   /usr/bin/python3 scripts/mps_semi_implicit.py --mode si --l0 0.01 --beta 0.97 --re-poisson 2.1 --out si_a20
#   /usr/bin/python3 scripts/mps_semi_implicit.py --mode si --l0 0.005 --beta 0.97 --re-poisson 3.1 --alpha 1e-7 --out si_a40
#   /usr/bin/python3 scripts/mps_semi_implicit.py --hydrostatic --re-poisson 3.1 --out hydro
#   /usr/bin/python3 scripts/mps_semi_implicit.py --mode explicit --l0 0.01 --gate-speed 1.4 --out gate_ex_a20
# Each run writes OUT/front.csv (t,T,x,Z like `partcl run`'s, for scripts/mps_front_deviation.py
# and scripts/plot_mps_front.py) and OUT/summary.txt (steps, dt, CG iterations, the command).
# A run that blows up stops, says DIVERGED, and its front.csv ends there.
#
# Options: --mode explicit|si; --l0 spacing (0.01 = a/20, 0.005 = a/40, 0.0025 = a/80);
# --beta free-surface threshold; --re-poisson the PPE Laplacian's radius / l0 (2.1 or 3.1);
# --alpha Ikeda's compressibility [1/Pa] (0: K&O's plain equation); --c sound speed (explicit);
# --courant C; --dt-max (semi-implicit); --collision distance / l0 and --restitution, or
# --no-collision; --no-clamp keeps negative Poisson pressures; --solver cg|direct; --tol CG's
# relative residual; --margin neighbour-list margin / l0 (semi-implicit default 0.5); --end
# (0.26 s) and --sample (0.0025 s); --tank-width [m]; --hydrostatic: tank as wide as the water, to 0.3 s, and
# print the fluid's row pressures averaged over 0.1-0.3 s against rho g (H - y); --gate-speed V
# [m/s] (default: no gate): a gate at the column's right face withdrawn upward at V (below).
#
# Set-up (docs/data/mps_column_2a.toml): water 0.2 m x 0.4 m in the corner of a tank 0.8 m x
# 0.5 m, one wall layer and 3 dummy layers, particle centres at (i + 1/2) l0 as in
# lib/models/mps/mps_tank.cpp; front as mps_front (the largest fluid x before a gap of 2 l0, plus
# l0/2), sampled every 0.0025 s. w(r) = re/r - 1; n0 and lambda0 of the square lattice.
#
# Gate (--gate-speed V; a sensitivity study of the experiment's release, docs/mps.md, "A gate
# withdrawn upward"): at t = 0 a vertical gate closes the column's right face, built as the
# left wall is: one wall-particle column at x = a + l0/2 and the dummy layers behind it (x = a +
# 1.5 l0, ...), particle centres at (j + 1/2) l0 from the first row above the floor's wall row to
# the tank's top (0.5 m). From t = 0 it moves straight up at V: velocity (0, V), positions
# advanced by V dt each step. Its particles are wall and dummy particles in every respect (number
# density, pressure as the mode gives walls and dummies, the gradient, the viscous term with their
# velocity, collisions with their velocity), only moving; particles that rise above the tank
# stay in the sums (they meet no fluid there). The semi-implicit time step also keeps C l0 / V
# (the explicit one, C l0/(c + max|u|), moves the gate by at most C V/c l0 per step already).
# Without --gate-speed nothing of the above exists and the runs are unchanged. In the
# semi-implicit mode the sliding gate changes n* near it by O(V dt/l0) per step, which the Poisson
# source (rho/dt^2)(n* - n0)/n0 turns into pressure swings of order rho l0 V/dt: the interior
# pressure of the held column collapses to 0 in many steps, so its semi-implicit gate runs show
# that artefact, not the gate (docs/mps.md). In the explicit mode the same n* change gives
# c^2 rho (n* - n0)/n0, a few hundred Pa.
#
# Explicit step (mps.cl): u* = u + dt (nu lap u + g) (Laplacian at r over all j, re 3.1 l0),
# r* = r + dt u*; collisions (fluid i against any j closer than 0.5 l0, approaching, restitution
# 0.2); n* at r* (all j, re 2.1 l0); P = max(0, c^2 rho/n0 (n* - n0)) for fluid and wall, 0 for
# dummies; gradient G0: d/n0 sum (P_j - P^_i) r_ij/|r_ij|^2 w over fluid + wall j within 2.1 l0,
# P^_i the least of P_i and those P_j; u = u* - dt gradP/rho, r = r* - dt^2 gradP/rho;
# dt = C l0/(c + max|u|), C = 0.2, the last step before each sample shortened (advance_to).
#
# Semi-implicit step (Koshizuka & Oka 1996): the same prediction and collisions; n* at r* (all
# j including dummies, re 2.1 l0); fluid AND wall particles with n* < beta n0 are free surface,
# P = 0 (Dirichlet); the other fluid and wall particles are the unknowns; dummies are not in
# the equation. The pressure Poisson equation
#   (2d/(lambda0 n0)) sum_j w(r_ij) (P_j - P_i) - alpha rho/dt^2 P_i = -(rho/dt^2) (n*_i - n0)/n0
# sums fluid + wall j within re_pl (2.1 or 3.1 l0; lambda0, n0 of the Laplacian at re_pl, the
# source's n0 at 2.1 l0); alpha > 0 is Ikeda et al.'s compressibility. With the sign changed
# the matrix is SPD: Jacobi-preconditioned CG from 0 to relative residual 1e-8 (spsolve if CG
# fails). Negative P -> 0; gradient and correction as explicit (G0). dt = min(C l0/max|u|,
# dt_max = 1e-3 s, 0.2 l0^2/nu), each sampling interval split into equal steps.
import argparse, inspect, math, os, sys, time
import numpy as np
from scipy.spatial import cKDTree
import scipy.sparse as sp
import scipy.sparse.linalg as spla

FLUID, WALL, DUMMY = 0, 1, 2
# SciPy 1.12 renamed cg's tol to rtol (1.14 removed tol); same meaning
CG_RTOL = 'rtol' if 'rtol' in inspect.signature(spla.cg).parameters else 'tol'


def weight(r, re):
    out = np.zeros_like(r)
    m = (r > 0) & (r < re)
    out[m] = re / r[m] - 1.0
    return out


def lattice(re_ratio):
    """n0 and lambda0 / l0^2 of the square lattice of spacing 1 (mps_lattice)."""
    reach = int(math.ceil(re_ratio))
    s = mom = 0.0
    for x in range(-reach, reach + 1):
        for y in range(-reach, reach + 1):
            r = math.sqrt(x * x + y * y)
            w = re_ratio / r - 1 if 0 < r < re_ratio else 0.0
            s += w
            mom += r * r * w
    return s, mom / s


def tank(l0, a=0.2, H=0.4, W=0.8, Ht=0.5, dummy_layers=3):
    """mps_tank's particles, fluid first (front and speeds look at pos[:nf])."""
    nt = [int(round(W / l0)), int(round(Ht / l0))]
    nw = [int(round(a / l0)), int(round(H / l0))]
    layers = 1 + dummy_layers
    pos, typ = [], []
    for iy in range(-layers, nt[1]):
        for ix in range(-layers, nt[0] + layers):
            outside = -1  # layers into the wall, -1 inside the tank
            inw = True
            for k, i in enumerate((ix, iy)):
                if i < 0: outside = max(outside, -i - 1)
                if i >= nt[k]: outside = max(outside, i - nt[k])
                inw = inw and 0 <= i < nw[k]
            if outside == 0: kind = WALL
            elif outside > 0: kind = DUMMY
            elif inw: kind = FLUID
            else: continue
            pos.append(((ix + 0.5) * l0, (iy + 0.5) * l0))
            typ.append(kind)
    pos = np.array(pos); typ = np.array(typ)
    order = np.argsort(typ != FLUID, kind='stable')
    return pos[order], typ[order]


def gate(l0, a=0.2, Ht=0.5, dummy_layers=3):
    """The gate's particles at t = 0: the tank's left wall mirrored to the water's right face
    (wall column at x = a + l0/2, dummy layers behind it), rows from l0/2 to the tank's top."""
    nx, ny = int(round(a / l0)), int(round(Ht / l0))
    pos, typ = [], []
    for iy in range(ny):
        for k in range(1 + dummy_layers):
            pos.append(((nx + k + 0.5) * l0, (iy + 0.5) * l0))
            typ.append(WALL if k == 0 else DUMMY)
    return np.array(pos), np.array(typ)


def mps_front(xf, l0):
    xs = np.sort(xf)
    gaps = np.diff(xs) >= 2 * l0
    k = int(np.argmax(gaps)) if gaps.any() else len(xs) - 1
    return xs[k] + l0 / 2


class Sim:
    def __init__(s, args):
        s.a = args
        l0 = s.l0 = args.l0
        s.pos, s.typ = tank(l0, W=args.tank_width)
        s.ns = len(s.typ)  # fluid [0, nf), fixed walls and dummies [nf, ns), the gate [ns, N)
        s.V = args.gate_speed
        if s.V is not None:
            gp_, gt_ = gate(l0)
            s.pos = np.concatenate([s.pos, gp_]); s.typ = np.concatenate([s.typ, gt_])
        s.N = len(s.typ)
        s.ng = s.N - s.ns
        s.nf = int((s.typ == FLUID).sum())
        s.vel = np.zeros_like(s.pos)
        if s.ng:
            s.vel[s.ns:, 1] = s.V
        s.fluid = s.typ == FLUID
        s.notdummy = s.typ != DUMMY
        s.re = 2.1 * l0
        s.re_lap = 3.1 * l0
        s.n0, _ = lattice(2.1)
        s.n0_lap, lam = lattice(3.1)
        s.lam_lap = lam * l0 * l0
        s.re_pl = args.re_poisson * l0
        s.n0_pl, lam = lattice(args.re_poisson)
        s.lam_pl = lam * l0 * l0
        s.rho, s.nu, s.g = 1000.0, 1e-6, 9.81
        s.visc = s.nu * 2 * 2 / (s.lam_lap * s.n0_lap)
        # one neighbour list per position set, for every radius (and the collision shift)
        s.R = max(s.re_lap, s.re + l0, s.re_pl) + args.margin * l0
        # the tank's walls and dummies never move: their pairs are found once; so are the gate's
        # among themselves (it moves rigidly)
        s.stree = cKDTree(s.pos[s.nf:s.ns])
        s.ss = s.stree.query_pairs(s.R, output_type='ndarray') + s.nf
        if s.ng:
            s.gg = cKDTree(s.pos[s.ns:]).query_pairs(s.R, output_type='ndarray') + s.ns
        s.P = np.zeros(s.N)
        s.t = 0.0
        s.steps = 0
        s.cg_iters, s.unknowns, s.dts, s.nsurf = [], [], [], []
        s.isolated = 0

    def pairs(s, p):
        """Directed pairs (I, J), both orders, sorted by I, within R at positions p."""
        ft = cKDTree(p[:s.nf])
        ff = ft.query_pairs(s.R, output_type='ndarray')
        fs = ft.sparse_distance_matrix(s.stree, s.R, output_type='ndarray')
        fsI = fs['i'].astype(np.int64); fsJ = fs['j'].astype(np.int64) + s.nf
        a = [ff[:, 0], fsI, s.ss[:, 0]]
        b = [ff[:, 1], fsJ, s.ss[:, 1]]
        if s.ng:  # the gate against the fluid, the tank's walls and itself, at p
            gt = cKDTree(p[s.ns:])
            fg = ft.sparse_distance_matrix(gt, s.R, output_type='ndarray')
            sg = s.stree.sparse_distance_matrix(gt, s.R, output_type='ndarray')
            a += [fg['i'].astype(np.int64), sg['i'].astype(np.int64) + s.nf, s.gg[:, 0]]
            b += [fg['j'].astype(np.int64) + s.ns, sg['j'].astype(np.int64) + s.ns, s.gg[:, 1]]
        a = np.concatenate(a); b = np.concatenate(b)
        I = np.concatenate([a, b]); J = np.concatenate([b, a])
        o = np.argsort(I, kind='stable')
        return I[o], J[o]

    def geom(s, p, I, J):
        d = p[J] - p[I]
        r = np.sqrt((d * d).sum(1))
        return d, r

    def predict(s, dt, I, J):
        """Viscosity (no-slip against walls and dummies, at rest or the gate's velocity) and
        gravity, at r; walls and dummies keep their velocity (the gate moves, r* = r + dt u)."""
        d, r = s.geom(s.pos, I, J)
        w = weight(r, s.re_lap)
        acc = np.zeros_like(s.vel)
        for k in range(2):
            acc[:, k] = np.bincount(I, w * (s.vel[J, k] - s.vel[I, k]), minlength=s.N)
        acc *= s.visc
        acc[:, 1] -= s.g
        acc[~s.fluid] = 0
        us = s.vel + dt * acc
        us[~s.fluid] = s.vel[~s.fluid]
        return s.pos + dt * us, us

    def collide(s, dt, ps, us, I, J):
        """Fluid i against any j closer than the collision distance and approaching: i takes
        its share (1 + e)/2 of the relative normal speed (mps_collide)."""
        if s.a.no_collision:
            return ps, us
        d, r = s.geom(ps, I, J)
        cd = s.a.collision * s.l0
        m = (r < cd) & (r > 0) & s.fluid[I]
        if not m.any():
            return ps, us
        Ii, Jj, dd, rr = I[m], J[m], d[m], r[m]
        e = dd / rr[:, None]
        appr = ((us[Ii] - us[Jj]) * e).sum(1)
        k = appr > 0
        share = (1 + s.a.restitution) * 0.5
        du = np.zeros_like(us)
        for c in range(2):
            du[:, c] = -np.bincount(Ii[k], share * appr[k] * e[k, c], minlength=s.N)
        return ps + dt * du, us + du

    def gradient(s, p, P, I, J):
        """G0: d/n0 sum (P_j - P^_i) r_ij/|r_ij|^2 w, fluid i, fluid + wall j within re."""
        d, r = s.geom(p, I, J)
        m = s.notdummy[J] & (r < s.re) & (r > 0) & s.fluid[I]
        Ii, Jj, dd, rr = I[m], J[m], d[m], r[m]
        phat = P.copy()  # P^_i = min(P_i, P_j over those j); pairs are sorted by i
        if len(Ii):
            starts = np.flatnonzero(np.r_[True, Ii[1:] != Ii[:-1]])
            mins = np.minimum.reduceat(P[Jj], starts)
            idx = Ii[starts]
            phat[idx] = np.minimum(phat[idx], mins)
        f = (P[Jj] - phat[Ii]) / (rr * rr) * weight(rr, s.re)
        gp = np.zeros_like(p)
        for c in range(2):
            gp[:, c] = np.bincount(Ii, f * dd[:, c], minlength=s.N)
        return gp * (2 / s.n0)

    def number_density(s, p, I, J):
        d, r = s.geom(p, I, J)
        return np.bincount(I, weight(r, s.re), minlength=s.N)

    def step_explicit(s, dt):
        # one list at r serves r* too (R = re + l0, like MpsFluid's cells)
        I, J = s.pairs(s.pos)
        ps, us = s.predict(dt, I, J)
        ps, us = s.collide(dt, ps, us, I, J)
        n = s.number_density(ps, I, J)
        P = np.maximum(0.0, s.a.c ** 2 * s.rho / s.n0 * (n - s.n0))
        P[~s.notdummy] = 0
        gp = s.gradient(ps, P, I, J)
        gp[~s.fluid] = 0
        s.vel = us - dt / s.rho * gp
        s.pos = ps - dt * dt / s.rho * gp
        s.P = P

    def step_si(s, dt):
        I, J = s.pairs(s.pos)
        ps, us = s.predict(dt, I, J)
        # neighbours at r*, where the rest of the step is evaluated (the margin covers the
        # collision shift)
        I, J = s.pairs(ps)
        ps, us = s.collide(dt, ps, us, I, J)
        n = s.number_density(ps, I, J)
        surface = s.notdummy & (n < s.a.beta * s.n0)
        d, r = s.geom(ps, I, J)
        w = weight(r, s.re_pl)
        # a particle with no fluid/wall partner in the Laplacian (one pushed into the dummy
        # layers; only after a blow-up) would make the matrix singular: it gets P = 0
        linked = np.bincount(I, s.notdummy[J] & (w > 0), minlength=s.N) > 0
        s.isolated += int((s.fluid & ~surface & ~linked).sum())
        unknown = s.notdummy & ~surface & linked
        ui = np.flatnonzero(unknown)
        nu_ = len(ui)
        P = np.zeros(s.N)
        if nu_:
            m = np.full(s.N, -1)
            m[ui] = np.arange(nu_)
            sel = unknown[I] & s.notdummy[J] & (w > 0)
            Ii, Jj, ww = I[sel], J[sel], w[sel]
            # A = -(PPE operator): positive diagonal, surface neighbours (P = 0) drop out
            k = 2 * 2 / (s.lam_pl * s.n0_pl)
            diag = k * np.bincount(m[Ii], ww, minlength=nu_) + s.a.alpha * s.rho / dt ** 2
            off = unknown[Jj]
            rows = np.concatenate([m[Ii[off]], np.arange(nu_)])
            cols = np.concatenate([m[Jj[off]], np.arange(nu_)])
            vals = np.concatenate([-k * ww[off], diag])
            A = sp.csr_matrix((vals, (rows, cols)), shape=(nu_, nu_))
            b = s.rho / dt ** 2 * (n[ui] - s.n0) / s.n0
            if s.a.solver == 'cg':
                it = [0]
                def count(xk): it[0] += 1
                x, info = spla.cg(A, b, atol=0.0, M=sp.diags(1.0 / diag), maxiter=10 * nu_,
                                  callback=count, **{CG_RTOL: s.a.tol})
                if info != 0:
                    print(f'  CG did not converge (info {info}) at t={s.t:.4f}; spsolve', file=sys.stderr)
                    x = spla.spsolve(A.tocsc(), b)
                s.cg_iters.append(it[0])
            else:
                x = spla.spsolve(A.tocsc(), b)
                s.cg_iters.append(0)
            P[ui] = x
        s.unknowns.append(nu_)
        s.nsurf.append(int((surface & s.fluid).sum()))
        if not s.a.no_clamp:
            P = np.maximum(P, 0.0)
        gp = s.gradient(ps, P, I, J)
        gp[~s.fluid] = 0
        s.vel = us - dt / s.rho * gp
        s.pos = ps - dt * dt / s.rho * gp
        s.P = P

    def run(s):
        a = s.a
        os.makedirs(a.out, exist_ok=True)
        per = math.sqrt(2 * s.g / 0.2)  # T = t sqrt(2g/a)
        rows = []
        s.maxout = 0
        s.diverged = ''
        hydro_y = (0.005, 0.105, 0.205, 0.305)  # rows of particle centres, H = 0.4 m
        hydro = []
        def sample():
            pf = s.pos[:s.nf]
            out = int(((pf[:, 0] < 0) | (pf[:, 0] > a.tank_width) | (pf[:, 1] < 0)).sum())
            s.maxout = max(s.maxout, out)
            x = mps_front(s.pos[:s.nf, 0], s.l0)
            rows.append((s.t, s.t * per, x, x / 0.2))
        sample()
        t0 = time.time()
        nsamp = int(round(a.end / a.sample))
        maxu = 0.0
        for k in range(1, nsamp + 1):
            tn = k * a.sample
            while s.t < tn - 1e-12:
                if a.mode == 'explicit':
                    dt = min(a.courant * s.l0 / (a.c + maxu), tn - s.t)
                    s.step_explicit(dt)
                else:
                    umax = maxu if s.V is None else max(maxu, abs(s.V))
                    dtn = min(a.courant * s.l0 / max(umax, 1e-12), a.dt_max, 0.2 * s.l0 ** 2 / s.nu)
                    dt = (tn - s.t) / math.ceil((tn - s.t) / dtn - 1e-9)
                    s.step_si(dt)
                s.t += dt; s.steps += 1; s.dts.append(dt)
                maxu = np.sqrt((s.vel[:s.nf] ** 2).sum(1)).max()
                if not np.isfinite(maxu):
                    break
                if a.hydrostatic and s.t > 0.1 + 1e-9:
                    y = s.pos[:, 1]
                    hydro.append([s.P[s.fluid & (abs(y - yy) < 0.005)].mean() for yy in hydro_y])
            s.t = tn
            if not (np.isfinite(s.pos).all() and np.isfinite(maxu)):
                s.diverged = f' DIVERGED before t={s.t:.4f} (front.csv stops there)'
                print(s.diverged.strip()); break
            sample()
            if k % 20 == 0:
                it = s.cg_iters[-10:] if s.cg_iters else [0]
                print(f't={s.t:.4f} T={rows[-1][1]:.3f} Z={rows[-1][3]:.3f} steps={s.steps} '
                      f'dt={s.dts[-1]:.2e} maxu={maxu:.2f} cg={np.median(it):.0f} '
                      f'surf={s.nsurf[-1] if s.nsurf else 0} out={s.maxout} '
                      f'wall={time.time() - t0:.1f}s', flush=True)
        wall = time.time() - t0
        with open(os.path.join(a.out, 'front.csv'), 'w') as f:
            f.write('t,T,x,Z\n')
            for r in rows:
                f.write('%.6g,%.6g,%.6g,%.6g\n' % r)
        dts = np.array(s.dts)
        gate = '' if s.V is None else (f' gate V={s.V} m/s (V/sqrt(g a) {s.V / math.sqrt(s.g * 0.2):.2f}, '
                                       'clears 2a at T=' + (f'{0.4 / s.V * per:.2f})' if s.V > 0 else 'never)'))
        summ = (f'{a.out}: mode={a.mode} l0={s.l0} nf={s.nf} N={s.N}{gate} steps={s.steps} '
                f'dt median {np.median(dts):.2e} min {dts.min():.2e} max {dts.max():.2e} wall {wall:.1f}s '
                f'max fluid particles outside the tank {s.maxout}{s.diverged}')
        if s.cg_iters:
            ci = np.array(s.cg_iters); un = np.array(s.unknowns)
            summ += (f' CG iters median {np.median(ci):.0f} p10 {np.percentile(ci, 10):.0f} '
                     f'p90 {np.percentile(ci, 90):.0f} max {ci.max()} unknowns median {np.median(un):.0f}'
                     f' isolated (P = 0) {s.isolated}')
        if hydro:
            summ += ('\nrow pressure, mean over 0.1-0.3 s / rho g (H - y) [Pa]: ' +
                     ' '.join(f'{p:.0f}/{s.rho * s.g * (0.4 - yy):.0f}'
                              for p, yy in zip(np.mean(hydro, 0), hydro_y)))
        print(summ)
        with open(os.path.join(a.out, 'summary.txt'), 'w') as f:
            f.write(summ + '\n' + ' '.join(sys.argv) + '\n')


def main():
    p = argparse.ArgumentParser(description='2-D MPS dam break: explicit (partcl) or semi-implicit '
                                '(Koshizuka & Oka 1996) reference prototype; see the header.')
    p.add_argument('--mode', choices=['explicit', 'si'], default='si')
    p.add_argument('--l0', type=float, default=0.01, help='spacing [m] (0.01 = a/20)')
    p.add_argument('--beta', type=float, default=0.97, help='free surface where n* < beta n0')
    p.add_argument('--re-poisson', type=float, default=2.1, help='PPE Laplacian radius / l0')
    p.add_argument('--alpha', type=float, default=0.0, help='Ikeda compressibility [1/Pa]')
    p.add_argument('--c', type=float, default=20.0, help='sound speed [m/s] (explicit)')
    p.add_argument('--courant', type=float, default=0.2)
    p.add_argument('--dt-max', type=float, default=1e-3, help='[s] (semi-implicit)')
    p.add_argument('--collision', type=float, default=0.5, help='collision distance / l0')
    p.add_argument('--restitution', type=float, default=0.2)
    p.add_argument('--no-collision', action='store_true')
    p.add_argument('--no-clamp', action='store_true', help='keep negative Poisson pressures')
    p.add_argument('--solver', choices=['cg', 'direct'], default='cg')
    p.add_argument('--tol', type=float, default=1e-8, help="CG's relative residual")
    p.add_argument('--margin', type=float, default=None,
                   help='neighbour-list margin / l0 (default 0.5 semi-implicit, 0 explicit)')
    p.add_argument('--end', type=float, default=0.26, help='[s]')
    p.add_argument('--sample', type=float, default=0.0025, help='[s]')
    p.add_argument('--tank-width', type=float, default=0.8, help='[m]')
    p.add_argument('--hydrostatic', action='store_true',
                   help='tank 0.2 m wide, to 0.3 s, row pressures against rho g (H - y)')
    p.add_argument('--gate-speed', type=float, default=None,
                   help='[m/s] a gate at the column\'s right face withdrawn upward at this speed '
                   '(default: no gate)')
    p.add_argument('--out', required=True)
    a = p.parse_args()
    if a.margin is None:
        a.margin = 0.5 if a.mode == 'si' else 0.0
    if a.hydrostatic:
        a.tank_width, a.end = 0.2, 0.3
        if a.gate_speed is not None:
            p.error('--gate-speed and --hydrostatic exclude each other')
    if a.gate_speed is not None and a.tank_width < 0.2 + 5 * a.l0:
        p.error('--gate-speed: the tank is too narrow for the gate and its dummy layers')
    Sim(a).run()


if __name__ == '__main__':
    main()
