"""nlsq_scipy.py: fit the problem printed by tests/nlsq_problem with
scipy.optimize.least_squares (method 'trf', x_scale 'jac', the same
bounds, loss and f_scale) and compare with hetui's result.

The residual is re-implemented here in NumPy from the model equations
(heterodyne-spec.md section 1 for static_ref, homodyne-spec.md for the
homodyne static mode), independently of hetui's C kernels:
    r_k = offset_a + contrast_a g(a, i, j) - y_k.

Usage: python3 nlsq_scipy.py PROBLEM.json
Prints one line: hetui_cost scipy_cost numpy_cost_at_hetui_x
max_rel_x scipy_status.
"""
import json
import sys

import numpy as np
from scipy.optimize import least_squares


def cumtrapz0(f, h):
    """S_0 = 0, S_k = h sum_{m<k} (f_m + f_{m+1}) / 2."""
    s = np.zeros_like(f)
    s[1:] = np.cumsum(h * 0.5 * (f[:-1] + f[1:]))
    return s


def g_heterodyne(th, P):
    """The two-component shape g for all pairs (heterodyne-spec 1.1-1.6)."""
    dt, q = P["dt"], P["q"]
    t = (P["start_frame"] + np.arange(P["n_frames"])) * dt

    def power(a):
        return np.where(t > 0, np.maximum(t, 1e-10) ** a, 0.0)

    (d0r, ar, dor, d0s, as_, dos, v0, beta, vo,
     f0, f1, f2, f3, phi0) = th
    jr = np.maximum(d0r * power(ar) + dor, 0.0)
    js = np.maximum(d0s * power(as_) + dos, 0.0)
    v = v0 * power(beta) + vo
    sr, ss, sv = cumtrapz0(jr, dt), cumtrapz0(js, dt), cumtrapz0(v, dt)
    xs = np.clip(f0 * np.exp(np.clip(f1 * (t - f2), -100, 100)) + f3, 0, 1)
    xr = 1 - xs
    nn = xs ** 2 + xr ** 2
    i, j, a = P["pi"], P["pj"], P["pa"]

    def half(s):
        d = s[j] - s[i]
        return np.exp(np.clip(-0.5 * q * q * np.sqrt(d * d + 1e-12),
                              -700, 0))

    hr, hs = half(sr), half(ss)
    phi = np.asarray(P["phi"])[a]
    ph = q * np.cos(np.deg2rad(phi + phi0)) * (sv[j] - sv[i])
    u = xr[i] * xr[j] * hr
    w = xs[i] * xs[j] * hs
    den = nn[i] * nn[j]
    den = np.where(den > 1e-10, den, 1e-10)
    return (u * u + w * w + 2 * u * w * np.cos(ph)) / den


def g_homodyne_static(th, P):
    """The homodyne static shape g = g1^2 (homodyne-spec sections 2-5)."""
    dt, q = P["dt"], P["q"]
    t = np.arange(P["n_frames"]) * dt
    eps = max(abs(t[1] - t[0]) / 2, 1e-8)
    ts = np.where(t > eps, t, eps)
    d0, alpha, doff = th[:3]
    d = d0 * ts ** alpha + doff
    d = np.where(d > 1e-10, d, 1e-10)
    s = cumtrapz0(d, 1.0)
    i, j = P["pi"], P["pj"]
    dd = s[j] - s[i]
    g1 = np.exp(np.clip(-0.5 * q * q * dt * np.sqrt(dd * dd + 1e-12),
                        -700, 0))
    g1 = np.where(g1 > 1e-10, g1, 1e-10)
    return g1 * g1


def main():
    with open(sys.argv[1]) as fh:
        P = json.load(fh)
    for key in ("pi", "pj", "pa"):
        P[key] = np.asarray(P[key], dtype=int)
    y = np.asarray(P["y"])
    theta = np.asarray(P["theta"], dtype=float)
    free = np.asarray(P["free"]) != 0
    na = len(P["phi"])
    nfree = int(free.sum())
    shape = g_heterodyne if P["mode"] == "static_ref" else g_homodyne_static

    def resid(x):
        th = theta.copy()
        th[free] = x[:nfree]
        contrast = x[nfree:nfree + na]
        offset = x[nfree + na:nfree + 2 * na]
        a = P["pa"]
        return offset[a] + contrast[a] * shape(th, P) - y

    x0 = np.asarray(P["x0"])
    lo, hi = np.asarray(P["lo"]), np.asarray(P["hi"])
    res = least_squares(resid, x0, jac="3-point", bounds=(lo, hi),
                        method="trf", x_scale="jac", loss=P["loss"],
                        f_scale=P["f_scale"], ftol=1e-12, xtol=1e-12,
                        gtol=1e-12, max_nfev=2000)
    xh = np.asarray(P["x"])
    rel = np.max(np.abs(res.x - xh) / np.maximum(np.abs(xh), 1e-300))
    print("%.17g %.17g %.17g %.3g %d" % (P["cost"], res.cost,
                                          _cost_at(resid, xh, P),
                                          rel, res.status))


def _cost_at(resid, x, P):
    """0.5 sum rho(r) with SciPy's loss definitions."""
    from scipy.optimize._lsq.least_squares import construct_loss_function
    r = resid(x)
    lf = construct_loss_function(r.size, P["loss"], P["f_scale"])
    if lf is None:
        return 0.5 * np.dot(r, r)
    return lf(r, cost_only=True)


if __name__ == "__main__":
    main()
