#!/usr/bin/env python3
"""peer_model.py: a NumPy peer for bench/bench_model (`make bench`).

The same problem as bench_model.c (1000 frames x 23 angles, two_component,
the golden "typical" parameters, 11,488,500 upper-triangle pairs) with a
straightforward vectorised NumPy transcription of heterodyne-spec.md §1:
the angle-independent N x N matrices (transport factors, fractions,
normaliser) are built once per parameter vector, then each angle adds its
phase and the upper triangle is gathered.  That is the meshgrid strategy
of the reference package, written without JAX (not available here).

Timed, single-threaded (NumPy's element-wise kernels do not thread):
  - model: one evaluation of g on all pairs;
  - model+jacobian: g plus 14 columns by forward differences (15
    evaluations), the cheapest Jacobian a NumPy user would write.
Each Jacobian column is reduced to a checksum as soon as it is made, so
memory stays at a few copies of g.  Prints "key value unit" lines like bench_model; exits 0 when NumPy
is missing (printing why), so `make bench` still runs.
"""
import sys
import time

try:
    import numpy as np
except ImportError:
    print("peer numpy: not available (install python3-numpy); skipped")
    sys.exit(0)

N_FRAMES = 1000
N_ANGLES = 23
THETA = [1000, 0, 10, 3000, -0.2, 5, 50, 0, 5, 0.3, 0.05, 15, 0.2, 5]
Q, DT, START = 0.01, 0.1, 1


def power(t, a):
    ts = np.where(t > 1e-10, t, 1e-10)
    return np.where(t > 0, ts ** a, 0.0)


def cumtrapz(f, dt):
    return np.concatenate([[0.0], np.cumsum((f[:-1] + f[1:]) / 2.0) * dt])


def g_pairs(p, t, phis, iu, ju):
    """g on the upper triangle (iu < ju) of every angle, shape (na, npairs)."""
    jr = np.maximum(p[0] * power(t, p[1]) + p[2], 0.0)
    js = np.maximum(p[3] * power(t, p[4]) + p[5], 0.0)
    v = p[6] * power(t, p[7]) + p[8]
    sr, ss, sv = cumtrapz(jr, DT), cumtrapz(js, DT), cumtrapz(v, DT)
    hr = np.exp(np.clip(-0.5 * Q * Q * np.sqrt((sr[ju] - sr[iu]) ** 2
                                                + 1e-12), -700.0, 0.0))
    hs = np.exp(np.clip(-0.5 * Q * Q * np.sqrt((ss[ju] - ss[iu]) ** 2
                                                + 1e-12), -700.0, 0.0))
    vv = sv[ju] - sv[iu]
    xs = np.clip(p[9] * np.exp(np.clip(p[10] * (t - p[11]), -100, 100))
                 + p[12], 0.0, 1.0)
    xr = 1.0 - xs
    n = xs * xs + xr * xr
    nn = n[iu] * n[ju]
    inv = 1.0 / np.where(nn > 1e-10, nn, 1e-10)
    fr = xr[iu] * xr[ju]
    fs = xs[iu] * xs[ju]
    a = (fr * fr * (hr * hr) + fs * fs * (hs * hs)) * inv
    b = 2.0 * (xr[iu] * xs[iu]) * (xr[ju] * xs[ju]) * hr * hs * inv
    out = np.empty((len(phis), len(iu)))
    for k, phi in enumerate(phis):
        qc = Q * np.cos(np.deg2rad(phi + p[13]))
        out[k] = a + b * np.cos(qc * vv)
    return out


def main():
    t = (START + np.arange(N_FRAMES)) * DT
    phis = [-180.0 + 360.0 * a / N_ANGLES for a in range(N_ANGLES)]
    iu, ju = np.triu_indices(N_FRAMES, k=1)
    npairs = len(iu) * N_ANGLES
    p = np.array(THETA, dtype=float)

    best = 1e30
    for _ in range(2):
        t0 = time.perf_counter()
        g = g_pairs(p, t, phis, iu, ju)
        best = min(best, time.perf_counter() - t0)
    print("peer numpy model threads 1: %.3f s, %.1f Mpairs/s, %.1f ns/pair "
          "(checksum %.6e)" % (best, npairs / best / 1e6,
                               1e9 * best / npairs, g.sum()))

    t0 = time.perf_counter()
    g0 = g_pairs(p, t, phis, iu, ju)
    csum = g0.sum()
    for k in range(len(p)):
        h = 1e-7 * max(abs(p[k]), 1.0)
        pk = p.copy()
        pk[k] += h
        csum += ((g_pairs(pk, t, phis, iu, ju) - g0) / h).sum()
    el = time.perf_counter() - t0
    print("peer numpy model+jacobian threads 1: %.3f s, %.1f Mpairs/s, "
          "%.1f ns/pair (forward differences; checksum %.6e)"
          % (el, npairs / el / 1e6, 1e9 * el / npairs, csum))


if __name__ == "__main__":
    main()
