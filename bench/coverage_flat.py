#!/usr/bin/env python3
"""coverage_flat.py ROOT N: the coverage study's check of its priors
(bench/coverage.sh; docs/PERFORMANCE.md, "Coverage of the default
posterior").  Needs NumPy and h5py (Debian: python3-numpy, python3-h5py).

Every data set ROOT/dNN (NN < N) was sampled under hetui's default
priors: a truncated normal per parameter, centred on the NLSQ value,
nlsq_prior_width_factor (2) NLSQ standard errors wide (at least 1 % of
the bounds' range).  This reweights its kept draws
(out/hetui_results.h5, cmc/consensus/draws) by 1 / prior, which gives
the posterior under flat priors inside the same bounds (the truncation
constants are the same for every draw), and counts how often the
weighted central 90 % intervals cover the truth.  The draws come from a
narrower distribution than the one they are reweighted to, so the
weights are uneven: their effective sample size (Kish) is printed, and
the rates are an estimate of what a run with
use_nlsq_informed_priors: false and uniform priors would give
(COVER_PRIORS=flat runs it).
"""
import json
import os
import sys

import h5py
import numpy as np


def wquant(x, w, q):
    o = np.argsort(x)
    c = np.cumsum(w[o])
    c /= c[-1]
    return np.interp(q, c - 0.5 * w[o] / w.sum(), x[o])


def main(root, n):
    cov = {}
    order = []
    ess = []
    for i in range(n):
        d = os.path.join(root, "d%02d" % i)
        try:
            t = json.load(open(os.path.join(d, "truth.json")))
            g = h5py.File(os.path.join(d, "out", "hetui_results.h5"), "r")
        except (OSError, ValueError):
            continue
        names = [x.decode() if isinstance(x, bytes) else str(x)
                 for x in g["cmc/parameter_names"][()]]
        draws = g["cmc/consensus/draws"][()]
        kind = [x.decode() if isinstance(x, bytes) else str(x)
                for x in g["cmc/priors/kind"][()]]
        a = g["cmc/priors/a"][()]
        b = g["cmc/priors/b"][()]
        lw = np.zeros(draws.shape[0])
        for k in range(len(names)):
            if kind[k] == "truncated_normal":
                lw += 0.5 * ((draws[:, k] - a[k]) / b[k]) ** 2
        w = np.exp(lw - lw.max())
        e = w.sum() ** 2 / (w ** 2).sum()
        ess.append(e / len(w))
        line = []
        for k, name in enumerate(names):
            cls = name.split("[")[0]
            if cls not in cov:
                cov[cls] = [0, 0, 0.0]
                order.append(cls)
            lo, hi = wquant(draws[:, k], w, np.array([0.05, 0.95]))
            inside = lo <= t[name] <= hi
            cov[cls][0] += inside
            cov[cls][1] += 1
            sd0 = draws[:, k].std()
            mu = np.average(draws[:, k], weights=w)
            sd1 = np.sqrt(np.average((draws[:, k] - mu) ** 2, weights=w))
            cov[cls][2] += sd1 / sd0
            line.append("%s%s" % (name, "" if inside else "(out)"))
        print("%3d  weights' ESS %5.0f of %d   %s" % (i, e, len(w),
                                                  " ".join(line)))
    if not order:
        print("no data set found")
        return 1
    print("flat priors (reweighted): parameter, covered, rate, "
          "sd / sd under the default priors")
    c = m = 0
    for cls in order:
        print("  %-13s %3d/%-4d %.3f  %.3f" % (cls, cov[cls][0], cov[cls][1],
                                             cov[cls][0] / cov[cls][1],
                                             cov[cls][2] / cov[cls][1]))
        c += cov[cls][0]
        m += cov[cls][1]
    print("  %-13s %3d/%-4d %.3f" % ("pooled", c, m, c / m))
    print("weights' ESS fraction: median %.3f, min %.3f"
          % (float(np.median(ess)), min(ess)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
