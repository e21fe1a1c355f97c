#!/bin/sh
# t_sample_stats.sh: the statistics of `hetui sample` on simulated
# heterodyne data (tests/configs/sample_truth.yaml: static_ref, one angle,
# 50 frames, 1225 pairs, noise 0.003; truth D0_ref 5000, alpha_ref 0.3,
# contrast 0.3, offset 1.0), sampled with the real hetui-worker, 2 chains
# of 300 warm-up + 1000 draws per shard with a dense mass matrix (D0_ref
# and alpha_ref are correlated; the bulk ESS of the one-shard run is then
# about 500, so the Monte Carlo error of a mean is below 0.05 sd, well
# inside the 0.2 sd tolerance), priors 50 NLSQ errors wide.
# Checks (issue 5, "Must show"):
#   - one shard: the posterior sd of every parameter agrees with the
#     Laplace approximation at the NLSQ optimum (the NLSQ standard error,
#     sigma^2 (J^T J)^-1 with the same noise sigma) within 15 %;
#   - four shards (prior^(1/4) each, robust consensus): every mean within
#     0.2 posterior sd of the one-shard mean, every sd within 20 %;
#   - the truth lies inside the 95 % interval of both posteriors;
#   - the consensus checked against all the data (het_sample_rw.c,
#     16000 importance draws on the Laplace approximation of the
#     posterior of all the data): k-hat <= 0.7 and the reweighted mean
#     and sd of every parameter as close to the one-shard run's as the
#     consensus must be; on the 12 skewed shards below, whose consensus
#     sd of D0_ref is 30 % short, the reweighted sd within 20 % and mean
#     within 0.3 sd of the one-shard run's.  Over 8 sampler seeds: k-hat
#     0.29-0.51 (threshold 0.7, about 4 seed-to-seed sd above the mean
#     0.41), sd ratio 1.02-1.03, mean 0.04-0.08 sd.
# The runs are seeded, so the numbers are the same on every run.
. "$top_srcdir/tests/tap.sh"

if [ -z "$PYTHON3" ] || ! "$PYTHON3" -c 'import json' 2>/dev/null; then
	skip_all "python3 not found"
fi
plan_lazy

dir="$TAP_TMP"
cp "$top_srcdir/tests/configs/sample_truth.yaml" "$dir/"
cd "$dir" || exit 1
grep -q '^      num_warmup: 300$' "$top_srcdir/tests/configs/sample_run.yaml" &&
    grep -q '^      dense_mass: true$' "$top_srcdir/tests/configs/sample_run.yaml"
ok $? "sample_run.yaml has 300 warm-up iterations and a dense metric"
sed -e 's/num_samples: 100$/num_samples: 1000/' \
    -e 's/num_shards: 2$/num_shards: 1/' \
    -e 's/^  cmc:$/  cmc:\n    reweight_draws: 16000/' \
    -e 's/output_dir: res$/output_dir: k1/' \
    "$top_srcdir/tests/configs/sample_run.yaml" >k1.yaml
sed -e 's/num_shards: 1$/num_shards: 4/' -e 's/output_dir: k1$/output_dir: k4/' \
    k1.yaml >k4.yaml

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"
run_capture "$HETUI" sample -c k1.yaml --json --workers 2
is "$RUN_RC" 0 "one shard: exit 0"
printf '%s\n' "$RUN_OUT" >k1.json
run_capture "$HETUI" sample -c k4.yaml --json --workers 2 --nlsq-result k1
is "$RUN_RC" 0 "four shards (same NLSQ result): exit 0"
printf '%s\n' "$RUN_OUT" >k4.json

out=$("$PYTHON3" - <<'PY'
import json
k1 = json.load(open("k1.json"))
k4 = json.load(open("k4.json"))
nl = json.load(open("k1/nlsq_parameters.json"))
unc = dict(zip(nl["parameter_names"], nl["uncertainties"]))
truth = {"D0_ref": 5000.0, "alpha_ref": 0.3, "contrast[0]": 0.3,
         "offset[0]": 1.0}
print("shards", k1["num_shards"], k4["num_shards"], k4["num_shards_used"])
print("rw1", k1["reweight_draws"], k1["reweight_khat"])
print("rw4", k4["reweight_draws"], "khat-ok" if k4["reweight_khat"] <= 0.7
      else "BAD", "ess-ok" if k4["reweight_ess"] > 4000 else "BAD",
      k4["reweight_max_shift_parameter"] in k4["parameters"])
for name, a in k1["parameters"].items():
    b = k4["parameters"][name]
    lap = a["sd"] / unc[name]
    dm = (b["mean"] - a["mean"]) / a["sd"]
    rs = b["sd"] / a["sd"]
    print("laplace %s %s ratio %.3f" % (name,
          "ok" if abs(lap - 1) <= 0.15 else "BAD", lap))
    print("mean %s %s dz %.3f" % (name, "ok" if abs(dm) <= 0.2 else "BAD",
          dm))
    print("sd %s %s ratio %.3f" % (name, "ok" if abs(rs - 1) <= 0.2 else
          "BAD", rs))
    rm = (b["reweighted_mean"] - a["mean"]) / a["sd"]
    rr = b["reweighted_sd"] / a["sd"]
    print("rwmean %s %s dz %.3f" % (name, "ok" if abs(rm) <= 0.2 else
          "BAD", rm))
    print("rwsd %s %s ratio %.3f" % (name, "ok" if abs(rr - 1) <= 0.2 else
          "BAD", rr))
    for tag, r in (("k1", a), ("k4", b)):
        t = truth[name]
        print("truth %s %s %s [%.6g, %.6g] %.6g" % (tag, name,
              "ok" if r["q2.5"] <= t <= r["q97.5"] else "BAD",
              r["q2.5"], r["q97.5"], t))
PY
)
diag "$out"
like "$out" "^shards 1 4 4$" "K = 1 and K = 4, all four shards combined"
like "$out" "^rw1 0 None$" "one shard: no reweighting"
like "$out" "^rw4 16000 khat-ok ess-ok True$" "four shards: 16000 importance draws against all the data, k-hat <= 0.7, ESS > 4000, the largest shift named"
for p in D0_ref alpha_ref 'contrast\[0\]' 'offset\[0\]'; do
	like "$out" "^laplace $p ok" "one shard: sd of $p within 15 % of the Laplace sd"
	like "$out" "^mean $p ok" "four shards: mean of $p within 0.2 sd of one shard's"
	like "$out" "^sd $p ok" "four shards: sd of $p within 20 % of one shard's"
	like "$out" "^rwmean $p ok" "four shards reweighted: mean of $p within 0.2 sd of one shard's"
	like "$out" "^rwsd $p ok" "four shards reweighted: sd of $p within 20 % of one shard's"
	like "$out" "^truth k1 $p ok" "one shard: the truth of $p inside the 95 % interval"
	like "$out" "^truth k4 $p ok" "four shards: the truth of $p inside the 95 % interval"
done

# Skewed shard posteriors: noise 0.05 makes each of 12 shards of about
# 100 pairs skew D0_ref (skewness about 1.4); the consensus then says so
# and names the remedy (K 0.5 / (|skewness| sqrt(K) / 2) = 2 shards).
# That it is right to: its sd of D0_ref is 31 % below the one-shard
# posterior's on these data.
#
# Margins (these must hold on any x86-64 CPU: libm and OpenBLAS choose
# code paths at run time, so the draws differ between machines):
#   - D0_ref's mean shard skewness sits near 1.44, its bias estimate
#     |skew| sqrt(12) / 2 near 2.5 sd, five times the 0.5 sd threshold;
#     the Monte Carlo sd of a mean of 12 shard skewnesses (each from about
#     1000 effective draws, sd sqrt(6 / 1000) = 0.08) is about 0.02.  It is
#     asserted to be named, with a skewness of 1.x.
#   - The remedy floor(12 0.5 / bias) is 2 for any skewness in (1.16, 1.73):
#     the measured 1.44 is 0.28 (14 Monte Carlo sd) from either end.
#   - Other parameters sit near the threshold (offset[0]: skewness -0.33,
#     bias 0.57 against 0.5, 1.7 Monte Carlo sd away): whether they are
#     named differs between CPUs, so the test asserts no name but D0_ref's;
#     it asserts instead that the note names exactly the parameters whose
#     recorded consensus_skew_bias exceeds 0.5 (the same numbers, on any
#     CPU), and that alpha_ref, whose bias sits near 0.03, is not named.
run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.05 --seed 11
is "$RUN_RC" 0 "simulate noisy data"
sed -e 's/num_shards: 1$/num_shards: 12/' -e 's/output_dir: k1$/output_dir: s12/' \
    k1.yaml >s12.yaml
sed -e 's/output_dir: k1$/output_dir: s1/' k1.yaml >s1.yaml
run_capture "$HETUI" sample -c s12.yaml --workers 2
is "$RUN_RC" 0 "12 shards: exit 0 (the gates pass)"
like "$RUN_OUT" "^consensus: The shard posteriors of D0_ref \\(mean skewness 1\\.[0-9]+: about [0-9.]+ sd off if all shards are skewed alike\\)" \
    "12 shards: the consensus line names the skewed parameter"
like "$RUN_OUT" "may be off\\. Use at most 2 shards \\(optimization\\.cmc\\.num_shards: 2\\), or fix (that parameter|those parameters)\\.$" \
    "... and the remedy"
unlike "$RUN_OUT" "alpha_ref \\(mean skewness" \
    "... and not alpha_ref"
like "$RUN_OUT" "^consensus against all the data: 16000 importance draws, PSIS k-hat 0\\.[0-6][0-9], ESS [0-9]+; the consensus means lie within [0-9.]+ sd of the reweighted ones \\(largest: [][a-z0-9_]+\\)$" \
    "... the summary line of the check against all the data"
run_capture "$HETUI" sample -c s12.yaml --workers 2 --json --nlsq-result s12
printf '%s\n' "$RUN_OUT" >s12.json
run_capture "$HETUI" sample -c s1.yaml --workers 2 --json --nlsq-result s12
is "$RUN_RC" 0 "one shard on the noisy data: exit 0"
printf '%s\n' "$RUN_OUT" >s1.json
out=$("$PYTHON3" - <<'PY'
import json
a = json.load(open("s1.json"))
b = json.load(open("s12.json"))
print("note12", "skewed" in b["consensus_note"] and "D0_ref" in b["consensus_note"])
print("note1", "skewed" in a["consensus_note"])
print("sdratio %.3f" % (b["parameters"]["D0_ref"]["sd"] /
                        a["parameters"]["D0_ref"]["sd"]))
f = json.load(open("s12/cmc_summary.json"))
named = sorted(n for n in f["parameters"] if n + " (mean skewness" in b["consensus_note"])
over = sorted(n for n, v in f["parameters"].items() if v["consensus_skew_bias"] > 0.5)
print("named", named == over, "D0_ref" in named, "alpha_ref" not in named)
print("alphabias %.3f" % f["parameters"]["alpha_ref"]["consensus_skew_bias"])
r = f["parameters"]["D0_ref"]
if r["reweighted_sd"] is None:
    r = {"reweighted_sd": float("nan"), "reweighted_mean": float("nan")}
print("rwsdratio %.3f" % (r["reweighted_sd"] / a["parameters"]["D0_ref"]["sd"]))
print("rwdz %.3f" % ((r["reweighted_mean"] - a["parameters"]["D0_ref"]["mean"]) /
                     a["parameters"]["D0_ref"]["sd"]))
print("rwkhat %.3f" % b["reweight_khat"])
q = f["parameters"]["D0_ref"]
print("file", f["consensus_note"] == b["consensus_note"],
      abs(q["consensus_skew_bias"] - abs(q["shard_skewness"]) * 12 ** 0.5 / 2)
      < 1e-12, q["consensus_skew_bias"] > 0.5,
      f["parameters"]["alpha_ref"]["consensus_skew_bias"] <= 0.5)
PY
)
diag "$out"
like "$out" "^note12 True$" "--json: the note holds the warning"
like "$out" "^named True True True$" "the note names exactly the parameters whose consensus_skew_bias exceeds 0.5 (D0_ref among them, alpha_ref not)"
like "$out" "^note1 False$" "one shard: no warning"
like "$out" "^file True True True True$" "cmc_summary.json: the note, and per parameter shard_skewness and consensus_skew_bias = |skewness| sqrt(12) / 2"
like "$out" "^sdratio 0\\.[0-7]" "the warning is due: 12 shards give a sd of D0_ref below 0.8 of one shard's"
like "$out" "^rwkhat 0\\.[0-6]" "12 shards checked against all the data: PSIS k-hat below 0.7"
like "$out" "^rwsdratio (0\\.(8|9)|1\\.[01])" "... the reweighted sd of D0_ref within 20 % of one shard's, where the consensus sd is 30 % short"
like "$out" "^rwdz -?0\\.[0-2]" "... the reweighted mean within 0.3 sd of one shard's"

done_testing
