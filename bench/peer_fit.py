#!/usr/bin/env python3
"""peer_fit.py: SciPy peer for bench/bench_fit (`make bench`).

bench_fit leaves the S and M problems in the directory given as the
argument: NAME.json (setup, truth, start, bounds and hetui's numbers) and
NAME.y (the data, float64, pairs angle-major then row-major i < j).  This
script fits the same data from the same start with
scipy.optimize.least_squares(method='trf', x_scale='jac', the same
bounds, the linear loss, SciPy's default tolerances 1e-8 and max_nfev),
with the Jacobian by forward differences (jac='2-point', what a SciPy
user writes when no analytic Jacobian is at hand), one thread.

The model is tests/nlsq_scipy.py's NumPy transcription of the
two-component model (heterodyne-spec.md section 1), written
independently of hetui's C kernel; before fitting, the cost of the true
parameters is computed with it and compared with bench_fit's (they must
agree to 1e-9 relative, else the comparison is void and the script
fails).

Prints one line per problem and a table: wall time, iterations
(SciPy's njev, the number of Jacobians = accepted steps + 1), cost
evaluations, cost / truth cost for hetui and SciPy, and the ratio of the
wall times.  SciPy's time is also split into the model evaluations
(the residual function, including the finite-difference Jacobians) and
the rest, SciPy's own work (mostly the SVD of the dense Jacobian): the
second ratio compares hetui with that rest alone, a lower bound for any
SciPy TRF fit of this size whatever its Jacobian costs.  Exits 0
without fitting when SciPy is missing.
"""
import json
import os
import sys
import time

try:
    import numpy as np
    from scipy.optimize import least_squares
except ImportError:
    print("peer scipy: NumPy/SciPy not available (install python3-scipy); "
          "skipped")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from nlsq_scipy import g_heterodyne  # noqa: E402


def load(d, name):
    with open(os.path.join(d, name + ".json")) as fh:
        P = json.load(fh)
    nf, na = P["n_frames"], P["n_angles"]
    iu, ju = np.triu_indices(nf, k=1)
    P["pi"] = np.tile(iu, na)
    P["pj"] = np.tile(ju, na)
    P["pa"] = np.repeat(np.arange(na), len(iu))
    y = np.fromfile(os.path.join(d, name + ".y"), dtype=np.float64)
    if y.size != len(P["pi"]):
        raise SystemExit("peer_fit: %s.y holds %d values, expected %d"
                         % (name, y.size, len(P["pi"])))
    return P, y


def make_resid(P, y, clock):
    na = P["n_angles"]
    a = P["pa"]

    def resid(x):
        t0 = time.perf_counter()
        th = x[:14]
        contrast = x[14:14 + na]
        offset = x[14 + na:14 + 2 * na]
        r = offset[a] + contrast[a] * g_heterodyne(th, P) - y
        clock[0] += time.perf_counter() - t0
        clock[1] += 1
        return r
    return resid


def truth_cost(P, resid, name, bench):
    """The NumPy cost of the truth, or None (after saying so) when it
    differs from the bench's by more than 1e-9 relative."""
    r = resid(np.asarray(P["truth"]))
    ct = 0.5 * np.dot(r, r)
    rel = abs(ct - P["cost_truth"]) / P["cost_truth"]
    if rel > 1e-9:
        print("peer scipy %s: the NumPy truth cost %.12g differs from "
              "%s's %.12g (rel %.2g): models disagree"
              % (name, ct, bench, P["cost_truth"], rel))
        return None
    return ct


def main():
    if len(sys.argv) < 2:
        print("usage: peer_fit.py DIR (the directory bench_fit wrote)")
        return 2
    d = sys.argv[1]
    rows = []
    for name in ("S", "M"):
        if not os.path.exists(os.path.join(d, name + ".json")):
            print("peer scipy %s: no problem file in %s; skipped"
                  % (name, d))
            continue
        P, y = load(d, name)
        clock = [0.0, 0]
        resid = make_resid(P, y, clock)
        ct = truth_cost(P, resid, name, "bench_fit")
        if ct is None:
            return 1
        rel = abs(ct - P["cost_truth"]) / P["cost_truth"]
        x0 = np.asarray(P["x0"])
        lo, hi = np.asarray(P["lo"]), np.asarray(P["hi"])
        clock[0], clock[1] = 0.0, 0
        t0 = time.perf_counter()
        res = least_squares(resid, x0, bounds=(lo, hi), method="trf",
                            x_scale="jac", jac="2-point", loss="linear",
                            ftol=1e-8, xtol=1e-8, gtol=1e-8)
        el = time.perf_counter() - t0
        h = P["hetui"]
        print("peer scipy %s: %.3f s (%.3f s in %d model evaluations, "
              "%.3f s in SciPy), %d jacobians, %d cost evaluations, "
              "cost/truth %.6f, status %d (%s); truth cost agrees with "
              "bench_fit to %.1e"
              % (name, el, clock[0], clock[1], el - clock[0], res.njev,
                 res.nfev, res.cost / ct, res.status, res.message, rel))
        rows.append((name, P, h, el, el - clock[0], res, ct))
    if not rows:
        return 0
    print()
    print("| problem | pairs | hetui (s) | iter | cost/truth | "
          "SciPy TRF (s) | of it SciPy's own (s) | jacobians | cost/truth "
          "| SciPy / hetui | SciPy's own / hetui |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, P, h, el, own, res, ct in rows:
        print("| %s %dx%d | %d | %.3f | %d | %.4f | %.2f | %.2f | %d | "
              "%.4f | %.0fx | %.0fx |"
              % (name, P["n_frames"], P["n_angles"], len(P["pi"]),
                 h["time"], h["iter"], h["cost"] / ct, el, own, res.njev,
                 res.cost / ct, el / h["time"], own / h["time"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
