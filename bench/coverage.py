#!/usr/bin/env python3
"""coverage.py: the helper of bench/coverage.sh (the coverage study of
issue 18; docs/PERFORMANCE.md, "Coverage of the default posterior").

  coverage.py truth SEED DIR [PRIORS]
      Draws data set SEED's truth and writes DIR/truth.yaml (the model
      `hetui simulate` draws from), DIR/run.yaml (the configuration
      `hetui sample` fits and samples: a fixed generic start, the
      default sampler settings; PRIORS "flat" turns the NLSQ-informed
      priors off and gives the physics parameters uniform priors in their
      bounds, the study's control; contrast and offset keep the
      registry's truncated normals, TN(0.5, 0.25) and TN(1, 0.25), flat
      at their scale) and DIR/truth.json; prints the
      noise level for `hetui simulate --noise`.
  coverage.py report ROOT N
      Reads ROOT/dNN/{truth.json,sample.json,time} for NN < N and prints
      per-parameter and pooled coverage of the central 90 % intervals,
      binomial ranges, the gates, CPU seconds and the Laplace k-hat.

The problem: heterodyne static_ref (the physics of tests/t_sample_ref.sh:
D0_ref, alpha_ref and D_offset_ref free along a curved ridge, with one
contrast and offset per angle), 60-100 frames of 0.1 s, 2-3 angles,
noise 0.003-0.01 (log-uniform).  Truths: D0_ref log-uniform in
[2000, 8000], alpha_ref in [0.2, 0.6] (near 0 D0_ref and D_offset_ref act
only as their sum), D_offset_ref in [500, 3000] (inside its bounds
[0, 20000]), contrast in [0.2, 0.4], offset in [0.98, 1.02].
Only the Python standard library is used.
"""
import json
import math
import os
import random
import sys

Z90 = 1.6448536269514722       # the 95 % point of N(0, 1)


def draw_truth(seed):
    r = random.Random(1000003 * seed + 17)
    nang = r.choice((2, 3))
    a0 = r.uniform(-90.0, 0.0)
    t = {
        "seed": seed,
        "frames": r.randint(60, 100),
        "angles": [round(a0 + 180.0 * k / nang, 2) for k in range(nang)],
        "noise": round(math.exp(r.uniform(math.log(0.003), math.log(0.01))), 5),
        "D0_ref": round(math.exp(r.uniform(math.log(2000.0),
                                           math.log(8000.0))), 3),
        "alpha_ref": round(r.uniform(0.2, 0.6), 4),
        "D_offset_ref": round(r.uniform(500.0, 3000.0), 3),
    }
    for k in range(nang):
        t["contrast[%d]" % k] = round(r.uniform(0.2, 0.4), 4)
        t["offset[%d]" % k] = round(r.uniform(0.98, 1.02), 4)
    return t


def yaml_text(t, run, priors):
    n = len(t["angles"])
    ang = ", ".join("%g" % a for a in t["angles"])
    if run:         # the fit's start: the same for every data set
        u = ", prior: uniform" if priors == "flat" else ""
        ref = ("    D0_ref: {value: 4000.0, min: 100.0, max: 100000.0%s}\n"
               "    alpha_ref: {value: 0.4, min: -1.0, max: 1.0%s}\n"
               "    D_offset_ref: {value: 1500.0, min: 0.0, max: 20000.0%s}\n"
               % (u, u, u))
        con = ", ".join(["0.3"] * n)
        off = ", ".join(["1.0"] * n)
    else:
        ref = ("    D0_ref: {value: %r}\n    alpha_ref: {value: %r}\n"
               "    D_offset_ref: {value: %r}\n"
               % (t["D0_ref"], t["alpha_ref"], t["D_offset_ref"]))
        con = ", ".join("%r" % t["contrast[%d]" % k] for k in range(n))
        off = ", ".join("%r" % t["offset[%d]" % k] for k in range(n))
    s = ("# coverage study data set %d (bench/coverage.py)\n"
         "analysis_mode: static_ref\n" % t["seed"])
    if run:
        s += "experimental_data:\n  file_path: data.h5\n"
    s += ("analyzer_parameters:\n  dt: 0.1\n  start_frame: 1\n"
          "  end_frame: %d\n  scattering:\n    wavevector_q: 0.01\n"
          "    phi_angles: [%s]\n" % (t["frames"], ang))
    s += "parameters:\n  reference:\n" + ref
    s += ("initial_parameters:\n  per_angle_scaling:\n"
          "    contrast: [%s]\n    offset: [%s]\n" % (con, off))
    if run:
        # NLSQ as in tests/configs/sample_run.yaml; nothing of the
        # sampler is set: its defaults are what the study measures.
        s += ("optimization:\n  nlsq:\n    loss: linear\n"
              "    per_angle_mode: individual\n")
        if priors == "flat":
            s += "  cmc:\n    nlsq:\n      use_nlsq_informed_priors: false\n"
        s += ("output:\n  output_dir: out\n  create_subdirs: false\n"
              "  timestamp_dirs: false\n")
    return s


def cmd_truth(seed, d, priors):
    t = draw_truth(seed)
    with open(os.path.join(d, "truth.yaml"), "w") as f:
        f.write(yaml_text(t, False, priors))
    with open(os.path.join(d, "run.yaml"), "w") as f:
        f.write(yaml_text(t, True, priors))
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(t, f, indent=1)
    print(t["noise"])


def binom_pmf(n, k, p):
    return math.comb(n, k) * p ** k * (1.0 - p) ** (n - k)


def binom_range(n, p, level):
    """The central range [lo, hi] of Binomial(n, p) holding >= level."""
    a = (1.0 - level) / 2.0
    c, lo = 0.0, 0
    while c + binom_pmf(n, lo, p) <= a:
        c += binom_pmf(n, lo, p)
        lo += 1
    c, hi = 0.0, n
    while c + binom_pmf(n, hi, p) <= a:
        c += binom_pmf(n, hi, p)
        hi -= 1
    return lo, hi


def binom_cdf(n, k, p):
    return sum(binom_pmf(n, i, p) for i in range(0, k + 1))


def clopper_pearson(n, k, level=0.95):
    """Exact interval of a binomial rate from k of n (bisection)."""
    a = (1.0 - level) / 2.0

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            m = 0.5 * (lo + hi)
            if f(m):
                lo = m
            else:
                hi = m
        return 0.5 * (lo + hi)
    low = 0.0 if k == 0 else solve(lambda p: 1.0 - binom_cdf(n, k - 1, p) < a)
    high = 1.0 if k == n else solve(lambda p: binom_cdf(n, k, p) >= a)
    return low, high


def phi2(x):
    """P(|Z| < x) for Z ~ N(0, 1)."""
    return math.erf(x / math.sqrt(2.0))


def cmd_report(root, n):
    rows = []
    for i in range(n):
        d = os.path.join(root, "d%02d" % i)
        try:
            t = json.load(open(os.path.join(d, "truth.json")))
            s = json.load(open(os.path.join(d, "sample.json")))
        except (OSError, ValueError):
            print("data set %d: no result (skipped)" % i)
            continue
        cpu = float("nan")
        try:
            for line in open(os.path.join(d, "time")):
                w = line.split()
                if w[:2] == ["cpu", "user"]:
                    cpu = float(w[2]) + float(w[5])
        except (OSError, ValueError, IndexError):
            pass
        rows.append((i, t, s, cpu))
    per_set = []        # (covered, trials) per data set
    if not rows:
        print("no data set finished")
        return 1
    # Per data set: gates, cost, and each parameter's standardised error.
    print("set frames angles noise   gates rhat  minESS div khat  steps "
          "CPU-s  covered")
    stats = {}          # class -> [covered, trials, predicted, z^2, nlsq]
    order = []
    for i, t, s, cpu in rows:
        cov = 0
        names = list(s["parameters"])
        for name in names:
            p = s["parameters"][name]
            cls = name.split("[")[0]
            if cls not in stats:
                stats[cls] = [0, 0, 0.0, 0.0, 0, 0.0]
                order.append(cls)
            tv = t[name]
            inside = p["q5"] <= tv <= p["q95"]
            cov += inside
            st = stats[cls]
            st[0] += inside
            st[1] += 1
            # The coverage a Gaussian posterior centred on the NLSQ value
            # would give if nlsq_sd is the estimator's true sd.
            st[2] += phi2(Z90 * p["sd"] / p["nlsq_sd"])
            st[3] += ((p["mean"] - tv) / p["sd"]) ** 2
            st[4] += abs(p["nlsq"] - tv) <= Z90 * p["nlsq_sd"]
            st[5] += p["sd"] / p["nlsq_sd"]
        per_set.append((cov, len(names)))
        print("%3d %6d %6d %.4f %5s %.3f %6.0f %3d %5.2f %6.1f %6.1f  "
              "%d/%d" % (i, t["frames"], len(t["angles"]), t["noise"],
                         "pass" if s["gates_passed"] else "FAIL",
                         s["max_r_hat"], s["min_ess_bulk"], s["divergences"],
                         s.get("laplace_max_khat", float("nan")),
                         s.get("leapfrog_per_transition", float("nan")),
                         cpu, cov, len(names)))
    print()
    # covered: truth inside [q5, q95]; 99 % range: of the count if the
    # rate were 0.9 (OUT: outside it); CI: Clopper-Pearson 95 % of the
    # rate; gauss: the coverage a Gaussian posterior centred on the NLSQ
    # value with the measured sd would have if nlsq_sd were the fit's
    # true scatter, 2 Phi(1.645 sd / nlsq_sd) - 1, averaged; sd/nlsq:
    # mean posterior sd over NLSQ sd; z^2: mean ((mean - truth) / sd)^2
    # (1 if calibrated); nlsq: how often NLSQ +- 1.645 nlsq_sd covers.
    print("parameter     covered   rate  99%-range(0.9)  CI95 of rate    "
          "gauss  sd/nlsq   z^2  nlsq")
    tot = [0, 0, 0.0, 0.0, 0, 0.0]

    def line(cls, st):
        c, m, pr, z2, nl, sr = st
        lo, hi = binom_range(m, 0.9, 0.99)
        a, b = clopper_pearson(m, c)
        print("%-13s %3d/%-4d %.3f  [%3d, %3d]%-4s  [%.3f, %.3f]  %.3f  "
              "%6.3f %6.2f  %d/%d" % (cls, c, m, c / m, lo, hi,
                                      "" if lo <= c <= hi else " OUT",
                                      a, b, pr / m, sr / m, z2 / m, nl, m))
        return lo, hi
    for cls in order:
        line(cls, stats[cls])
        for k in range(6):
            tot[k] += stats[cls][k]
    c, m = tot[0], tot[1]
    lo, hi = line("pooled", tot)
    ok = lo <= c <= hi
    # The parameters of one data set are not independent trials: the
    # ratio estimator's variance from the data sets as clusters, and the
    # design effect (that variance over the binomial one).
    ns = len(per_set)
    r = c / m
    if ns > 1:
        vc = ns / (ns - 1.0) * sum((ci - r * mi) ** 2 for ci, mi in
                                   per_set) / m ** 2
        vb = 0.9 * 0.1 / m
        print("pooled rate %.3f, sd over data sets %.3f (binomial at 0.9: "
              "%.3f, design effect %.2f): %+.1f of the larger sd from 0.9"
              % (r, math.sqrt(vc), math.sqrt(vb), vc / vb,
                 (r - 0.9) / math.sqrt(max(vc, vb))))
    print()
    sdr = [s["parameters"][nm]["sd"] / s["parameters"][nm]["nlsq_sd"]
           for _, _, s, _ in rows for nm in s["parameters"]
           if nm.split("[")[0] in ("D0_ref", "alpha_ref", "D_offset_ref")]
    sdr.sort()
    print("posterior sd / NLSQ sd, physics parameters: median %.3f, "
          "range %.3f-%.3f" % (sdr[len(sdr) // 2], sdr[0], sdr[-1]))
    g = sum(1 for r in rows if r[2]["gates_passed"])
    cpus = sorted(r[3] for r in rows)
    kh = sorted(r[2].get("laplace_max_khat", float("nan")) for r in rows)
    print("gates passed %d/%d; CPU-s per posterior (fit + sample) median "
          "%.1f, range %.1f-%.1f; Laplace k-hat median %.2f, range "
          "%.2f-%.2f" % (g, len(rows), cpus[len(cpus) // 2], cpus[0],
                         cpus[-1], kh[len(kh) // 2], kh[0], kh[-1]))
    print("pooled coverage %d/%d = %.3f: %s 90 %% (binomial 99 %% range "
          "[%d, %d]; the parameters of one data set are correlated, so "
          "the pooled range is optimistic)" % (c, m, c / m, "consistent "
          "with" if ok else "NOT consistent with", lo, hi))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "truth":
        cmd_truth(int(argv[1]), argv[2], argv[3] if len(argv) > 3 else "nlsq")
        return 0
    if len(argv) == 3 and argv[0] == "report":
        return cmd_report(argv[1], int(argv[2]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
