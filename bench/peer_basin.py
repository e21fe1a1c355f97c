#!/usr/bin/env python3
"""peer_basin.py: SciPy peer for bench/bench_basin (`make bench`).

bench_basin leaves its truth sets in the directory given as the
argument: Bk.json (setup, truth, bounds, the ten starts, the true
minimum cost and hetui's default-fit costs and CPU seconds) and Bk.y
(the data).  This script fits the same data from the same starts with
scipy.optimize.least_squares(method='trf', x_scale='jac', the same
bounds, the linear loss, default tolerances 1e-8, jac='2-point'), one
thread, and prints per truth set how many starts reach the true minimum
(cost within 1e-3 of bench_basin's fit from the truth, the same rule as
bench_basin) and the CPU seconds, next to hetui's.  The model is
tests/nlsq_scipy.py's NumPy transcription (checked against the noise
cost of the truth to 1e-9, else the comparison is void and the script
fails).  Exits 0 without fitting when SciPy is missing.
"""
import os
import sys
import time

try:
    import numpy as np
    from scipy.optimize import least_squares
except ImportError:
    print("peer scipy basin: NumPy/SciPy not available; skipped")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peer_fit import load, make_resid, truth_cost  # noqa: E402

TOL = 1e-3


def main():
    if len(sys.argv) < 2:
        print("usage: peer_basin.py DIR (the directory bench_basin wrote)")
        return 2
    d = sys.argv[1]
    only = os.environ.get("BENCH_BASIN_ONLY")
    rows = []
    for k in range(1, 10):
        name = "B%d" % k
        if not os.path.exists(os.path.join(d, name + ".json")):
            continue
        if only is not None and str(k) not in only:
            continue
        P, y = load(d, name)
        clock = [0.0, 0]
        resid = make_resid(P, y, clock)
        if truth_cost(P, resid, name, "bench_basin") is None:
            return 1
        cmin = P["cost_min"]
        lo, hi = np.asarray(P["lo"]), np.asarray(P["hi"])
        nok, cpu = 0, []
        for i, x0 in enumerate(P["starts"]):
            c0 = time.process_time()
            res = least_squares(resid, np.asarray(x0), bounds=(lo, hi),
                                method="trf", x_scale="jac",
                                jac="2-point", loss="linear", ftol=1e-8,
                                xtol=1e-8, gtol=1e-8)
            cpu.append(time.process_time() - c0)
            ok = res.cost <= cmin * (1 + TOL)
            nok += ok
            print("peer scipy %s start %d: cost/min %.4f cpu %.2f s, %d "
                  "jacobians, status %d; hetui default %.4f cpu %.2f s"
                  % (name, i, res.cost / cmin, cpu[-1], res.njev,
                     res.status, P["hetui_cost"][i] / cmin,
                     P["hetui_cpu"][i]))
            sys.stdout.flush()
        hok = sum(c <= cmin * (1 + TOL) for c in P["hetui_cost"])
        rows.append((name, P, len(P["starts"]), nok, np.median(cpu), hok,
                     np.median(P["hetui_cpu"])))
    if not rows:
        return 0
    print()
    print("| set | frames x angles | parameters | SciPy TRF: success | "
          "cpu median (s) | hetui default: success | cpu median (s) |")
    print("|---|---|---|---|---|---|---|")
    for name, P, n, nok, c, hok, hc in rows:
        print("| %s | %dx%d | %d | %d/%d | %.2f | %d/%d | %.2f |"
              % (name, P["n_frames"], P["n_angles"], len(P["truth"]), nok,
                 n, c, hok, n, hc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
