# A probe, not part of partcl (docs/mps.md, "Tenth pass"): semi-implicit MPS still water on the
# host in float64 (NumPy/SciPy), to see whether a Poisson pressure keeps still water stiller than
# the explicit equation of state before building one on the device. A 2-D tank as wide as the
# water (one wall layer, three dummy layers, as mps_tank), started on the uncompressed lattice;
# each step: u* = u + dt (nu lap u + g), r* = r + dt u*, collisions (0.5 l0, restitution 0.2),
# n* at r*, free surface where n* < beta n0 (P = 0), the Poisson equation over the other fluid and
# wall particles solved by Jacobi-preconditioned CG, P clamped at 0, the gradient (Koshizuka's
# P_j - P_min, optionally corrected by the moment matrix), u and r corrected. The source is
# Koshizuka & Oka's (--source ko: rho/dt^2 (n* - n0)/n0) or Tanaka & Masunaga's mixed one
# (--source tm: rho/dt div u* and gamma rho/dt^2 (n - n0)/n0 at r). Prints the largest speed after
# the first second over sqrt(g h) (each second's too), the bottom row's pressure against
# rho g h, the height change. Needs python3-numpy and python3-scipy:
#   /usr/bin/python3 docs/data/mps_validation/semi_implicit_still_probe.py --end 3
#   /usr/bin/python3 docs/data/mps_validation/semi_implicit_still_probe.py --end 3 --source tm \
#       --weight q --re-g 3.1 --re-l 3.1 --corrected [--gamma 0.05 | --beta 0.9 | --dt 2e-4 ...]
import argparse, math, sys, time
import numpy as np
from scipy.spatial import cKDTree
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import inspect

FLUID, WALL, DUMMY = 0, 1, 2
CG_RTOL = 'rtol' if 'rtol' in inspect.signature(spla.cg).parameters else 'tol'


def wfun(r, re, kind):
    out = np.zeros_like(r)
    m = (r > 0) & (r < re)
    if kind == 'k':
        out[m] = re / r[m] - 1.0
    else:
        out[m] = (1 - r[m] / re) ** 2
    return out


def lattice(re, kind, dims=2):
    reach = int(math.ceil(re)); s = mom = 0.0
    rng = range(-reach, reach + 1)
    for x in rng:
        for y in rng:
            for z in (rng if dims == 3 else [0]):
                r = math.sqrt(x * x + y * y + z * z)
                w = float(wfun(np.array([r]), re, kind)[0])
                s += w; mom += r * r * w
    return s, mom / s


def tank(l0, W, h, Ht, layers=4):
    nx, nh, nt = int(round(W / l0)), int(round(h / l0)), int(round(Ht / l0))
    pos, typ = [], []
    for iy in range(-layers, nt):
        for ix in range(-layers, nx + layers):
            out = -1
            if ix < 0: out = max(out, -ix - 1)
            if ix >= nx: out = max(out, ix - nx)
            if iy < 0: out = max(out, -iy - 1)
            if out == 0: k = WALL
            elif out > 0: k = DUMMY
            elif iy < nh: k = FLUID
            else: continue
            pos.append(((ix + .5) * l0, (iy + .5) * l0)); typ.append(k)
    pos = np.array(pos); typ = np.array(typ)
    o = np.argsort(typ != FLUID, kind='stable')
    return pos[o], typ[o]


class Sim:
    def __init__(s, a):
        s.a = a; l0 = s.l0 = a.l0
        s.pos, s.typ = tank(l0, a.width, a.depth, a.depth * 1.5)
        s.N = len(s.typ); s.nf = int((s.typ == FLUID).sum())
        s.fluid = s.typ == FLUID; s.nd = s.typ != DUMMY
        s.vel = np.zeros_like(s.pos)
        K = a.weight
        s.re_n = a.re_n * l0; s.n0, _ = lattice(a.re_n, K)
        s.re_g = a.re_g * l0; s.n0g, _ = lattice(a.re_g, K)
        s.re_l = a.re_l * l0; s.n0l, lam = lattice(a.re_l, K); s.laml = lam * l0 * l0
        s.rho, s.g, s.nu = 1000.0, 9.81, 1e-6
        s.R = max(s.re_n, s.re_g, s.re_l) + 0.5 * l0
        s.t = 0.0; s.P = np.zeros(s.N)
        s.n_prev = None
        s.iters = []

    def pairs(s, p):
        t = cKDTree(p)
        pr = t.query_pairs(s.R, output_type='ndarray')
        a, b = pr[:, 0], pr[:, 1]
        keep = s.nd[a] | s.nd[b]
        a, b = a[keep], b[keep]
        I = np.concatenate([a, b]); J = np.concatenate([b, a])
        o = np.argsort(I, kind='stable')
        I, J = I[o], J[o]
        d = p[J] - p[I]; r = np.sqrt((d * d).sum(1))
        return I, J, d, r

    def lap_vel(s, I, J, r):
        w = wfun(r, s.re_l, s.a.weight)
        acc = np.zeros_like(s.vel)
        for k in range(2):
            acc[:, k] = np.bincount(I, w * (s.vel[J, k] - s.vel[I, k]), minlength=s.N)
        return acc * (s.nu * 4 / (s.laml * s.n0l))

    def step(s, dt):
        a = s.a
        I, J, d, r = s.pairs(s.pos)
        n_k = np.bincount(I, wfun(r, s.re_n, a.weight), minlength=s.N)
        acc = s.lap_vel(I, J, r); acc[:, 1] -= s.g; acc[~s.fluid] = 0
        us = s.vel + dt * acc; us[~s.fluid] = 0
        ps = s.pos + dt * us
        I, J, d, r = s.pairs(ps)
        if a.collision > 0:
            cd = a.collision * s.l0
            m = (r < cd) & (r > 0) & s.fluid[I]
            if m.any():
                Ii, Jj, dd, rr = I[m], J[m], d[m], r[m]
                e = dd / rr[:, None]
                ap = ((us[Ii] - us[Jj]) * e).sum(1); k = ap > 0
                du = np.zeros_like(us)
                for c in range(2):
                    du[:, c] = -np.bincount(Ii[k], 0.6 * ap[k] * e[k, c], minlength=s.N)
                us = us + du; ps = ps + dt * du
                d = ps[J] - ps[I]; r = np.sqrt((d * d).sum(1))
        n = np.bincount(I, wfun(r, s.re_n, a.weight), minlength=s.N)
        surface = s.nd & (n < a.beta * s.n0)
        if a.count_beta > 0:
            cnt = np.bincount(I, (r < s.re_n) & s.nd[J], minlength=s.N)
            cnt0 = 12 if a.re_n < 2.5 else 28  # square lattice within 2.1 / 3.1 (approx)
            surface = s.nd & ((n < a.beta * s.n0) & (cnt < a.count_beta * cnt0))
        wl = wfun(r, s.re_l, a.weight)
        unknown = s.nd & ~surface
        ui = np.flatnonzero(unknown); nu_ = len(ui)
        mp = np.full(s.N, -1); mp[ui] = np.arange(nu_)
        sel = unknown[I] & s.nd[J] & (wl > 0)
        Ii, Jj, ww = I[sel], J[sel], wl[sel]
        kk = 4 / (s.laml * s.n0l)
        diag = kk * np.bincount(mp[Ii], ww, minlength=nu_) + a.alpha * s.rho / dt ** 2
        off = unknown[Jj]
        A = sp.csr_matrix((np.concatenate([-kk * ww[off], diag]),
                           (np.concatenate([mp[Ii[off]], np.arange(nu_)]),
                            np.concatenate([mp[Jj[off]], np.arange(nu_)]))), shape=(nu_, nu_))
        if a.source == 'ko':
            b = s.rho / dt ** 2 * (n[ui] - s.n0) / s.n0
        else:  # Tanaka & Masunaga: lap P = rho/dt div u* - gamma rho/dt^2 (n_k - n0)/n0
            wg = wfun(r, s.re_g, a.weight)
            m2 = s.nd[J] & (r > 0)
            du_ = ((us[J] - us[I]) * d).sum(1) / np.where(r > 0, r * r, 1) * wg * m2
            div = 2 / s.n0g * np.bincount(I, du_, minlength=s.N)
            nref = n_k if a.source == 'tm' else n
            b = (-s.rho / dt * div[ui] + a.gamma * s.rho / dt ** 2 * (nref[ui] - s.n0) / s.n0)
        it = [0]
        def cb(x): it[0] += 1
        x, info = spla.cg(A, b, x0=s.P[ui] if a.warm else None, atol=0.0, **{CG_RTOL: a.tol},
                          M=sp.diags(1 / diag), maxiter=20 * nu_, callback=cb)
        s.iters.append(it[0])
        P = np.zeros(s.N); P[ui] = x
        if a.clamp:
            P = np.maximum(P, 0)
        # gradient over fluid + wall j within re_g
        wg = wfun(r, s.re_g, a.weight)
        m = s.nd[J] & (r > 0) & (r < s.re_g) & s.fluid[I]
        Ii, Jj, dd, rr, wv = I[m], J[m], d[m], r[m], wg[m]
        if a.grad == 'g0':
            ph = P.copy()
            st = np.flatnonzero(np.r_[True, Ii[1:] != Ii[:-1]])
            mins = np.minimum.reduceat(P[Jj], st); idx = Ii[st]
            ph[idx] = np.minimum(ph[idx], mins)
            B = P[Jj] - ph[Ii]
        elif a.grad == 'diff':
            B = P[Jj] - P[Ii]
        else:
            B = P[Jj] + P[Ii]
        f = B / (rr * rr) * wv
        gp = np.zeros_like(ps)
        for c in range(2):
            gp[:, c] = np.bincount(Ii, f * dd[:, c], minlength=s.N)
        if a.corrected:
            C = np.zeros((s.N, 2, 2))
            for p_ in range(2):
                for q in range(2):
                    C[:, p_, q] = np.bincount(Ii, wv * dd[:, p_] * dd[:, q] / (rr * rr), minlength=s.N)
            det = C[:, 0, 0] * C[:, 1, 1] - C[:, 0, 1] ** 2
            tr = (C[:, 0, 0] + C[:, 1, 1]) / 2
            ok = det > 0.1 * tr ** 2
            inv = np.zeros_like(C)
            inv[ok, 0, 0] = C[ok, 1, 1] / det[ok]; inv[ok, 1, 1] = C[ok, 0, 0] / det[ok]
            inv[ok, 0, 1] = inv[ok, 1, 0] = -C[ok, 0, 1] / det[ok]
            g2 = np.einsum('nij,nj->ni', inv, gp)
            gp = np.where(ok[:, None], g2, gp * 2 / s.n0g)
        else:
            gp *= 2 / s.n0g
        gp[~s.fluid] = 0
        s.vel = us - dt / s.rho * gp
        s.pos = ps - dt * dt / s.rho * gp
        s.P = P
        s.nsurf = int((surface & s.fluid).sum())


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--l0', type=float, default=0.01)
    p.add_argument('--depth', type=float, default=0.1)
    p.add_argument('--width', type=float, default=0.1)
    p.add_argument('--weight', choices=['k', 'q'], default='k')
    p.add_argument('--re-n', type=float, default=2.1)
    p.add_argument('--re-g', type=float, default=2.1)
    p.add_argument('--re-l', type=float, default=2.1)
    p.add_argument('--beta', type=float, default=0.97)
    p.add_argument('--count-beta', type=float, default=0)
    p.add_argument('--alpha', type=float, default=0.0)
    p.add_argument('--source', choices=['ko', 'tm', 'tm*'], default='ko')
    p.add_argument('--gamma', type=float, default=0.01)
    p.add_argument('--grad', choices=['g0', 'diff', 'sum'], default='g0')
    p.add_argument('--corrected', action='store_true')
    p.add_argument('--clamp', type=int, default=1)
    p.add_argument('--collision', type=float, default=0.5)
    p.add_argument('--dt', type=float, default=1e-3)
    p.add_argument('--courant', type=float, default=0.2)
    p.add_argument('--tol', type=float, default=1e-8)
    p.add_argument('--warm', action='store_true')
    p.add_argument('--end', type=float, default=20.0)
    a = p.parse_args()
    s = Sim(a)
    g, h = s.g, a.depth
    ref = math.sqrt(g * h); rgh = s.rho * g * h
    nsamp = int(round(a.end / 0.005))
    umax_after = 0; bottoms = []; persec = {}
    t0 = time.time(); h0 = 2 * s.pos[:s.nf, 1].mean(); maxu = 0
    for k in range(1, nsamp + 1):
        tn = k * 0.005
        while s.t < tn - 1e-12:
            dtn = min(a.dt, a.courant * s.l0 / max(maxu, 1e-9))
            dt = (tn - s.t) / math.ceil((tn - s.t) / dtn - 1e-9)
            s.step(dt); s.t += dt
            maxu = np.sqrt((s.vel[:s.nf] ** 2).sum(1)).max()
            if not np.isfinite(maxu) or maxu > 10 * ref:
                print('DIVERGED t=%.3f' % s.t); sys.exit(1)
        s.t = tn
        sec = int(math.ceil(tn - 1e-9))
        persec[sec] = max(persec.get(sec, 0), maxu / ref)
        if tn > 1 + 1e-9:
            umax_after = max(umax_after, maxu / ref)
            pf = s.pos[:s.nf]
            bottoms.append(s.P[:s.nf][pf[:, 1] < s.l0].mean())
        if k % 200 == 0:
            print('t=%.1f maxu/ref=%.3f%% sec=%.3f%% surf=%d cg=%.0f wall=%.0fs' % (
                tn, 100 * maxu / ref, 100 * persec[sec], s.nsurf, np.median(s.iters[-50:]),
                time.time() - t0), flush=True)
    b = np.array(bottoms)
    h1 = 2 * s.pos[:s.nf, 1].mean()
    print('RESULT', ' '.join(sys.argv[1:]))
    print('  max speed after 1 s: %.3f%%; per second: %s' % (
        100 * umax_after, ' '.join('%.2f' % (100 * persec[k]) for k in sorted(persec))))
    print('  bottom mean/rgh %.4f sd/rgh %.2f%%; height %+.3f%%; median cg %.0f' % (
        b.mean() / rgh if len(b) else 0, 100 * b.std() / rgh if len(b) else 0,
        100 * (h1 / h0 - 1), np.median(s.iters)))


main()
