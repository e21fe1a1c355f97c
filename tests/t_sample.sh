#!/bin/sh
# t_sample.sh: `hetui sample` end to end with the real hetui-worker on a
# file written by `hetui simulate` from tests/configs/sample_truth.yaml
# (static_ref, one angle, 50 frames), sampled with
# tests/configs/sample_run.yaml (2 shards, 2 chains of 300 + 100).
# Checks: exit 0 when the gates pass, progress per shard on stderr and
# its status lines off a terminal (--progress), the summary table and
# --json; the five output files exist, parse and carry the reference's
# keys in its order, the /cmc group of the HDF5 file;
# --nlsq-result reuses a fit (from the JSON files or from the HDF5 file
# alone) and gives the identical posterior (same seed); exit 4 when a gate
# fails (results written); exit 5 when every worker dies (the report lists
# every attempt, nothing is written); exit 1 with a specific message for
# a missing data file, a missing worker program and bad --nlsq-result
# directories; exit 2 for usage errors; `hetui help sample`; the
# heterodyne modes' automatic shard count; chain_method parallel runs a
# shard's chains at once (when cores are free) with the draws of
# sequential, bit for bit; bound to one core (taskset) one worker runs
# and its chains one after another; the warning for a shard on course to
# pass per_shard_timeout; SIGINT during sampling exits
# 130 and leaves no process behind, SIGTERM and SIGHUP write what finished
# and exit 143 and 129.
#
# Margins: the draws differ between CPUs (libm and OpenBLAS choose code
# paths at run time), so nothing here asserts a sampled digit; the runs
# that must pass the gates keep 6 sd (R-hat), 5.8 log-sd (ESS) and 4.7 sd
# (BFMI) of their seed-to-seed spread, as tests/configs/sample_run.yaml
# notes; parallel and sequential chains, and a reused fit, are compared
# bit for bit within one run on one machine.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

sample_setup t_sample

py=
if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null; then
	py=$PYTHON3
fi


run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"

# --- a run that passes the gates ------------------------------------------------
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c sample_run.yaml \
    --workers 2
is "$RUN_RC" 0 "gates pass: exit 0"
like "$RUN_OUT" "^hetui sample: 2 of 2 shards done, 2 combined \\(robust_consensus_mc\\), 200 draws" \
    "summary header: shards, method, draws"
for p in D0_ref alpha_ref 'contrast\[0\]' 'offset\[0\]'; do
	like "$RUN_OUT" "^$p +[-0-9.e+]+ +[0-9.e+-]+ " "summary row for $p"
done
like "$RUN_OUT" "^gates \\(max R-hat [0-9.]+, min ESS [0-9]+, min BFMI [0-9.]+, [0-9]+ divergences\\): passed" \
    "gates line says passed"
# k-hat of 200 draws on this 4-parameter posterior: about 0.1-0.3; any
# finite value passes, the verdict words come from the thresholds
like "$RUN_OUT" "^laplace start: 2 of 2 shards, PSIS k-hat -?[0-9.]+ \\((close to Gaussian|moderately non-Gaussian|far from Gaussian: .*)\\)$" \
    "the Laplace start and its k-hat are reported"
like "$RUN_OUT" "^NUTS: [0-9]+\\.[0-9] leapfrog steps per transition after warmup \\(mean over the chains\\)$" \
    "the mean tree size is reported"
like "$RUN_OUT" "^consensus against all the data: 4000 importance draws, PSIS k-hat -?[0-9]\\.[0-9]+, ESS [0-9]+; the consensus means lie within [0-9.]+ sd of the reweighted ones \\(largest: [][a-z0-9_]+\\)$" \
    "two shards: the consensus checked against all the data"
like "$RUN_OUT" "results written to res/ \\(hetui_results.h5, nlsq_parameters.json, nlsq_metadata.json, cmc_summary.json, cmc_diagnostics.json\\)" \
    "the files written are listed"
like "$RUN_ERR" "^static_ref, 1 angle, 1225 pairs; NLSQ fit$" "stderr: the problem"
like "$RUN_ERR" "^NLSQ iter 0  cost" "stderr: NLSQ progress"
like "$RUN_ERR" "^sampling 2 shards$" "stderr: sampling starts"
like "$RUN_ERR" "^shard 0 +613 pairs  running" "stderr: shard 0 starts (one line per event)"
like "$RUN_ERR" "^shard 1 +612 pairs  done +[0-9.]+ s$" "stderr: shard 1 done with its time"
like "$RUN_ERR" "^status at 0 s: 2 shards: [0-9]+ done, [12] running, [01] queued, 0 retrying, 0 failed$" \
    "stderr off a terminal: a status line at the first shard event"
like "$RUN_ERR" "^  shard [01] +61[23] pairs  running" \
    "... and a line per running shard"
is "$(printf '%s\n' "$RUN_ERR" | grep -c '^status at')" 1 \
    "... then none for --progress 60 s in a run of seconds"
for f in hetui_results.h5 nlsq_parameters.json nlsq_metadata.json \
    cmc_summary.json cmc_diagnostics.json; do
	ok "$([ -s "res/$f" ]; echo $?)" "res/$f written"
done
unlike "$(ls -a res)" "tmp" "no temporary file left"
is "$(leftover)" 0 "no worker left behind"

if [ -z "$py" ]; then
	skip 5 "python3 not found"
else
	out=$("$py" - <<'PY'
import json
s = json.load(open("res/cmc_summary.json"))
d = json.load(open("res/cmc_diagnostics.json"))
ref_s = ["parameter_names", "posterior_mean", "posterior_std",
         "credible_intervals", "map_estimate", "timestamp", "num_samples",
         "num_chains"]
ref_d = ["convergence_passed", "parameter_diagnostics", "max_r_hat",
         "r_hat_threshold", "all_r_hat_passed", "min_ess_bulk", "bfmi",
         "bfmi_passed", "sampling_info"]
print("skeys", list(s)[:len(ref_s)] == ref_s)
print("dkeys", list(d)[:len(ref_d)] == ref_d)
names = s["parameter_names"]
ci = s["credible_intervals"]["D0_ref"]
print("ci", names == ["D0_ref", "alpha_ref", "contrast[0]", "offset[0]"]
      and ci["2.5%"] < s["posterior_mean"][0] < ci["97.5%"]
      and s["map_estimate"] == s["posterior_mean"]
      and s["num_samples"] == 100 and s["num_chains"] == 2)
pd = d["parameter_diagnostics"]["alpha_ref"]
print("diag", sorted(pd) == ["ess_bulk", "ess_tail", "r_hat", "r_hat_passed"]
      and d["convergence_passed"] is True and len(d["bfmi"]) == 4
      and d["sampling_info"] == {"num_warmup": 300, "num_samples": 100,
                                 "num_chains": 2,
                                 "wall_time_seconds":
                                     d["sampling_info"]["wall_time_seconds"]}
      and len(d["shard_diagnostics"]) == 2
      and d["shard_diagnostics"][0]["state"] == "done")
# two shards combined: checked against all the data (4000 draws); the
# posterior is close to Gaussian (k-hat about -0.1: bounded weights)
print("rw", s["reweight_draws"] == 4000
      and isinstance(s["reweight_khat"], float) and s["reweight_khat"] < 0.5
      and d["reweight_khat"] == s["reweight_khat"]
      and 0 < d["reweight_ess"] <= 4000
      and all(("reweighted_mean" in v and "reweighted_sd" in v)
              for v in s["parameters"].values()))
PY
)
	like "$out" "skeys True" "cmc_summary.json: the reference's keys in its order"
	like "$out" "dkeys True" "cmc_diagnostics.json: the reference's keys in its order"
	like "$out" "ci True" "cmc_summary.json: names, intervals around the mean, map = mean, counts"
	like "$out" "diag True" "cmc_diagnostics.json: per-parameter keys, BFMI per chain, sampling_info, shards"
	like "$out" "rw True" "cmc_summary.json and cmc_diagnostics.json: the check of the 2-shard consensus against all the data (draws, k-hat, ESS, reweighted moments per parameter)"
fi

if command -v h5ls >/dev/null 2>&1; then
	tree=$(h5ls -r res/hetui_results.h5)
	for g in /fit/parameters/value /cmc/parameter_names /cmc/summary/mean \
	    /cmc/consensus/draws /cmc/shards/state /cmc/shard_0000/draws \
	    /cmc/shard_0001/r_hat /cmc/priors/kind; do
		like "$tree" "^$g " "hetui_results.h5 has $g"
	done
	like "$tree" "^/cmc/consensus/draws +Dataset \\{200, 4\\}" \
	    "consensus draws: 200 x 4"
	like "$tree" "^/cmc/shard_0000/draws +Dataset \\{8, 100\\}" \
	    "shard draws: chains*params x draws"
	like "$(h5dump -a /cmc/shard_0001/laplace_used res/hetui_results.h5)" \
	    "\\(0\\): 1" "hetui_results.h5: the shard's laplace_used attribute"
	like "$(h5dump -a /cmc/shard_0001/marginal_scaling res/hetui_results.h5)" \
	    '"off"' "hetui_results.h5: contrast and offset sampled (marginalise_scaling false, the default)"
else
	skip 12 "h5ls not found"
fi

# --- --json ---------------------------------------------------------------------
run_capture "$HETUI" sample -c sample_run.yaml --json -o json1 --workers 2
is "$RUN_RC" 0 "--json: exit 0"
if [ -z "$py" ]; then
	skip 1 "python3 not found"
else
	printf '%s\n' "$RUN_OUT" >json1.txt
	out=$("$py" - json1.txt <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(j["status"], j["num_shards"], j["num_shards_done"], j["num_draws"],
      j["gates_passed"], sorted(j["parameters"]["D0_ref"])[:4],
      j["files"][-1], j["nlsq_source"], j["laplace_shards"],
      isinstance(j["laplace_max_khat"], float))
d = json.load(open("json1/cmc_diagnostics.json"))
print(all(s["laplace"]["used"] and s["laplace"]["khat"] < 2 and
          s["marginal_scaling"] == "off" and
          all(1 <= n <= 1023 for n in s["leapfrog_per_transition"])
          for s in d["shard_diagnostics"]) and
      1 <= j["leapfrog_per_transition"] <= 1023)
PY
)
	is "$out" "passed 2 2 200 True ['contraction', 'ess_bulk', 'ess_tail', 'mean'] cmc_diagnostics.json fit 2 True
True" \
	    "--json: status, counts, parameter keys, files, NLSQ source, Laplace start; cmc_diagnostics.json: laplace and marginal_scaling per shard"
fi

# --- --nlsq-result --------------------------------------------------------------
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result res -o reuse \
    --workers 2 --progress 0
is "$RUN_RC" 0 "--nlsq-result res: exit 0"
unlike "$RUN_ERR" "^status at" "--progress 0: no status lines"
like "$RUN_ERR" "1225 pairs; NLSQ result from res$" "stderr: the result is reused"
unlike "$RUN_ERR" "NLSQ iter" "... and no fit runs"
unlike "$RUN_ERR" "was cancelled before" "... a finished fit: no word of a cancel"
ok "$([ ! -e reuse/nlsq_parameters.json ] && [ -s reuse/cmc_summary.json ]; echo $?)" \
    "no nlsq_*.json written for a loaded result, CMC files written"
mean() { sed -n '/"posterior_mean"/,/]/p' "$1/cmc_summary.json" | tr -d ' \n'; }
is "$(mean reuse)" "$(mean res)" "same seed, reused fit: the identical posterior mean"
mkdir h5only && cp res/hetui_results.h5 h5only/
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result h5only -o reuse2 \
    --workers 2 --progress 0.000001
is "$RUN_RC" 0 "--nlsq-result with hetui_results.h5 only: exit 0"
ok "$([ "$(printf '%s\n' "$RUN_ERR" | grep -Ec '^status at [0-9]+ s: 2 shards')" -ge 4 ]; echo $?)" \
    "--progress 0.000001: a status line at (nearly) every shard event"
like "$RUN_ERR" "^  shard [01] +61[23] pairs  running +(warmup|sampling) +chain [12]  it [0-9]+/400  eps [0-9.e-]+  acc [0-9.]+  div [0-9]+$" \
    "... a running shard's line names phase, chain, iteration, step size, acceptance, divergences"
is "$(mean reuse2)" "$(mean res)" "... reads the fit from /fit: the identical posterior"

# the brief report of a cancelled fit (issue 19): no uncertainties, so
# the NLSQ-informed priors are wide, and the run says so
if [ -n "$PYTHON3" ]; then
	mkdir brief && cp res/nlsq_parameters.json res/nlsq_metadata.json brief/
	"$PYTHON3" - <<'PY'
import json
for f, key, val in (("brief/nlsq_metadata.json", "uncertainties_computed",
                     False), ("brief/nlsq_parameters.json", None, None)):
    d = json.load(open(f))
    if key:
        d[key] = val
    else:
        d["uncertainties"] = [None] * len(d["uncertainties"])
    json.dump(d, open(f, "w"))
PY
	run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result brief \
	    -o briefrun --workers 2 --progress 0
	like "$RUN_ERR" "nlsq-result: the NLSQ fit in brief/nlsq_parameters.json was cancelled before its uncertainties were computed, so each NLSQ-informed prior is 10 % of its parameter's range wide" \
	    "--nlsq-result of a cancelled fit: a warning says its priors are wide"
else
	skip 1 "python3 not found"
fi

mkdir empty
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result empty -o x
is "$RUN_RC" 1 "--nlsq-result on an empty directory: exit 1"
like "$RUN_ERR" "no NLSQ result in empty: neither nlsq_parameters.json nor hetui_results.h5 exists" \
    "... says what is missing"
mkdir perangle && echo '{}' >perangle/nlsq_phi30_parameters.json
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result perangle -o x
is "$RUN_RC" 1 "--nlsq-result on a per-angle fit: exit 1"
like "$RUN_ERR" "per-angle NLSQ result .*run 'hetui fit' without --per-angle" \
    "... says how to fix it"
mkdir badjson && echo '{"parameter_names": ["D0_ref"], "parameters": [1, 2]}' \
    >badjson/nlsq_parameters.json
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result badjson -o x
is "$RUN_RC" 1 "--nlsq-result with inconsistent arrays: exit 1"
like "$RUN_ERR" "badjson/nlsq_parameters.json: parameter_names has 1 entries, parameters 2" \
    "... names the file and the keys"
mkdir notjson && echo '{"parameter_names": [' >notjson/nlsq_parameters.json
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result notjson -o x
is "$RUN_RC" 1 "--nlsq-result with broken JSON: exit 1"
like "$RUN_ERR" "notjson/nlsq_parameters.json:[0-9]+: not valid JSON" \
    "... names the file and the line"
mkdir noth5 && echo 'not hdf5' >noth5/hetui_results.h5
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result noth5 -o x
is "$RUN_RC" 1 "--nlsq-result with a results file that is not HDF5: exit 1"
like "$RUN_ERR" "noth5/hetui_results.h5 is not an HDF5 file that can be opened" \
    "... says so"
mkdir nofit && cp sim.h5 nofit/hetui_results.h5
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result nofit -o x
is "$RUN_RC" 1 "--nlsq-result with an HDF5 file without /fit: exit 1"
like "$RUN_ERR" "nofit/hetui_results.h5 has no /fit group .*run 'hetui fit' without --per-angle" \
    "... says what is missing and how to fix it"
sed 's/alpha_ref: {value: 0.1, min: -1.0, max: 1.0}/alpha_ref: {value: 0.3, vary: false}/' \
    sample_run.yaml >fixed_alpha.yaml
run_capture "$HETUI" fit -c fixed_alpha.yaml -o fitfixed
is "$RUN_RC" 0 "a fit with alpha_ref fixed"
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result fitfixed -o x
is "$RUN_RC" 1 "--nlsq-result of another parameter set: exit 1"
like "$RUN_ERR" "has no value for the free parameter alpha_ref" \
    "... names the missing parameter"
mkdir otherphi && cp res/nlsq_parameters.json otherphi/ &&
    sed '/"phi_angle"/{n;s/30\.0*/45.0/;}' res/nlsq_metadata.json \
    >otherphi/nlsq_metadata.json
like "$(tr -d ' \n' <otherphi/nlsq_metadata.json)" '"phi_angle":\[45\.0\]' \
    "(a copy of the fit that says it was fitted at phi 45)"
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result otherphi -o x
is "$RUN_RC" 1 "--nlsq-result fitted on other angles, per-angle scaling: exit 1"
like "$RUN_ERR" "otherphi/nlsq_parameters.json was fitted on the angles 45 but this run selects 30, and per-angle contrast and offset are matched by position; run 'hetui fit' with this config again" \
    "... says which angles differ and how to fix it"
mkdir otherframes && cp res/nlsq_parameters.json otherframes/ &&
    sed 's/"end_frame": 50/"end_frame": 40/' res/nlsq_metadata.json \
    >otherframes/nlsq_metadata.json
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result otherframes \
    -o x --worker-command /nonexistent/hetui-worker
like "$RUN_ERR" "warning: .*otherframes/nlsq_parameters.json was fitted on frames 1-40, this run uses 1-50; its values are only the start and the prior centres" \
    "--nlsq-result fitted on other frames: a warning"
sed 's/end_frame: 50/end_frame: 40/' sample_run.yaml >f40.yaml
run_capture "$HETUI" fit -c f40.yaml -o f40
mkdir f40nometa && cp f40/nlsq_parameters.json f40/hetui_results.h5 f40nometa/
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result f40nometa \
    -o x --worker-command /nonexistent/hetui-worker
like "$RUN_ERR" "warning: .*f40nometa/nlsq_parameters.json was fitted on frames 1-40, this run uses 1-50" \
    "without nlsq_metadata.json the frames come from hetui_results.h5"
ok "$([ ! -e x ]; echo $?)" "(nothing written by the refused runs)"
run_capture "$HETUI" sample -c sample_run.yaml -o ''
is "$RUN_RC" 2 "-o '': exit 2"
like "$RUN_ERR" "--output is empty; name a folder" "... says so"
run_capture "$HETUI" sample -c sample_run.yaml --resume ''
like "$RUN_RC:$RUN_ERR" "^2:.*--resume is empty" "--resume '': exit 2, says so"

# --- exit 4: a gate fails -------------------------------------------------------
sed 's/min_ess: 4$/min_ess: 100000/' sample_run.yaml >gate.yaml
run_capture "$HETUI" sample -c gate.yaml --nlsq-result res -o gate --workers 2
is "$RUN_RC" 4 "min_ess 100000: exit 4"
like "$RUN_OUT" "^gates .*: FAILED" "the table says FAILED"
like "$RUN_OUT" "^Shard [01]: bulk ESS of .* not above min_ess 100000" \
    "the failed gate is named with its shard and parameter"
like "$RUN_ERR" "convergence gates failed; results were written to gate/" \
    "stderr: results written anyway"
like "$(cat gate/cmc_diagnostics.json)" '"convergence_passed": false' \
    "cmc_diagnostics.json: convergence_passed false"

# --- exit 5: every worker dies --------------------------------------------------
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c sample_run.yaml \
    --nlsq-result res -o dead --worker-command /bin/false
is "$RUN_RC" 5 "every worker exits at once: exit 5"
like "$RUN_ERR" "0 of 2 shards succeeded \\(rate 0, min_success_rate 0.9\\); early abort: 2 of the first 2 shards failed" \
    "the rule that stopped the run is stated"
like "$RUN_ERR" "Shard 0 attempt 1: .+\\. Shard 0 attempt 2: .+\\. Shard 1 attempt 1: .+\\. Shard 1 attempt 2: .+\\." \
    "every attempt is listed with its reason"
like "$RUN_ERR" "attempt [12]: worker [0-9]+ \\(pid [0-9]+\\): exited with status 1 before sending a result" \
    "... the reason says how the worker ended"
like "$RUN_ERR" "no shard finished; nothing was written" "nothing written"
ok "$([ ! -e dead ]; echo $?)" "no output directory"
is "$(leftover)" 0 "no process left"

# --- exit 1 ---------------------------------------------------------------------
run_capture "$HETUI" sample -c sample_run.yaml nosuch.h5
is "$RUN_RC" 1 "missing data file: exit 1"
like "$RUN_ERR" "nosuch.h5" "... names the file"
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result res -o x \
    --worker-command /nonexistent/hetui-worker
is "$RUN_RC" 1 "a worker program that does not exist: exit 1"
like "$RUN_ERR" "cannot start worker 0 with the command '/nonexistent/hetui-worker'" \
    "... names the command"
run_capture "$HETUI" sample -c nosuch.yaml
is "$RUN_RC" 1 "missing config: exit 1"

# --- exit 2 ---------------------------------------------------------------------
run_capture "$HETUI" sample
is "$RUN_RC" 2 "no config: exit 2"
like "$RUN_ERR" "a config is required \\(-c CONFIG\\)" "... says so"
like "$RUN_ERR" "usage: hetui sample -c CONFIG" "... with the usage line"
run_capture "$HETUI" sample -c sample_run.yaml --workers 0
is "$RUN_RC" 2 "--workers 0: exit 2"
like "$RUN_ERR" "--workers" "... names the option"
run_capture "$HETUI" sample -c sample_run.yaml --seed x
is "$RUN_RC" 2 "--seed x: exit 2"
run_capture "$HETUI" sample -c sample_run.yaml --worker-command ' '
is "$RUN_RC" 2 "empty --worker-command: exit 2"
like "$RUN_ERR" "--worker-command is empty" "... says so"
run_capture "$HETUI" sample -c sample_run.yaml --bogus
is "$RUN_RC" 2 "unknown option: exit 2"
run_capture "$HETUI" sample -c sample_run.yaml a.h5 b.h5
is "$RUN_RC" 2 "two files: exit 2"
run_capture "$HETUI" sample -c sample_run.yaml --nlsq-result
is "$RUN_RC" 2 "--nlsq-result without a value: exit 2"
run_capture "$HETUI" sample -c sample_run.yaml --progress -1
is "$RUN_RC" 2 "--progress -1: exit 2"
like "$RUN_ERR" "--progress -1: give the seconds between status lines, 0 to 86400" \
    "... says what it takes"
run_capture "$HETUI" sample -c sample_run.yaml --progress 1x
is "$RUN_RC" 2 "--progress 1x: exit 2"
like "$RUN_ERR" "--progress" "... names the option"

# --- help -----------------------------------------------------------------------
run_capture "$HETUI" help sample
is "$RUN_RC" 0 "hetui help sample: exit 0"
for o in --config --output --json --workers --nlsq-result --seed \
    --worker-command --progress; do
	like "$RUN_OUT" "^ +(-., )?$o" "help lists $o"
done
like "$RUN_OUT" "4 gates failed" "help documents exit 4"
like "$RUN_OUT" "^5 shards failed \\(early abort" "help documents exit 5"

# --- SIGINT during sampling -----------------------------------------------------
sed 's/num_warmup: 300$/num_warmup: 100000/' sample_run.yaml >long.yaml
env HETUI_TEST_MARK=$mark "$HETUI" sample -c long.yaml --nlsq-result res \
    -o long --workers 2 >long.out 2>long.err &
pid=$!
wait_line '^shard . .*running' long.err
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
is "$rc" 130 "SIGINT during sampling: exit 130"
like "$(cat long.err)" "interrupted; nothing was written" \
    "stderr: interrupted, no shard had finished"
like "$(cat long.err)" "shard 0 .*cancelled +cancelled: interrupted" \
    "the shards are reported cancelled"
sleep 0.2
is "$(leftover)" 0 "no worker left after SIGINT"

# --- laplace_init: false: a unit metric from the NLSQ optimum -----------------
sed 's/dense_mass: true$/dense_mass: true\n      laplace_init: false/' \
    sample_run.yaml >nolap.yaml
run_capture "$HETUI" sample -c nolap.yaml --nlsq-result res -o nolap \
    --workers 2
is "$RUN_RC" 0 "laplace_init false: exit 0"
like "$RUN_OUT" "^laplace start: not used \\(optimization\\.cmc\\.per_shard_mcmc\\.laplace_init false, or its Hessian could not be taken\\)$" \
    "... and the summary says the chains did not start from it"

# --- a fit that leaves a prefactor on its bound (issue 19) --------------------
# D0_ref's truth is 5000; with max 4000 the NLSQ optimum sits on the bound.
# The chains must still start (the start is moved 1/1000 of the range
# inside, the Laplace approximation is taken there): before, every chain
# failed with "cannot be evaluated at the initial point" and the run
# exited 5 with nothing written.
sed 's/D0_ref: {value: 3000.0, min: 100.0, max: 100000.0}/D0_ref: {value: 3000.0, min: 100.0, max: 4000.0}/' \
    sample_run.yaml >bound_d0.yaml
run_capture "$HETUI" sample -c bound_d0.yaml -o bound_d0 --workers 2
ok "$([ "$RUN_RC" = 0 ] || [ "$RUN_RC" = 4 ]; echo $?)" \
    "NLSQ optimum on D0_ref's bound: sampled (exit $RUN_RC: 0, or 4 if a gate fails against the bound)"
unlike "$RUN_ERR" "initial point" "... no chain failed at its start"
like "$(cat bound_d0/nlsq_parameters.json 2>/dev/null)" '"D0_ref"' \
    "... and the results are written"
"$PYTHON3" -c 'import json,sys; j=json.load(open("bound_d0/cmc_summary.json")); m=j["parameters"]["D0_ref"]; sys.exit(0 if 100 < m["5%"] and m["95%"] <= 4000 else 1)' 2>/dev/null
ok $? "... with D0_ref's posterior inside [100, 4000]"

# --- marginalise_scaling: true: contrast and offset integrated out ----------
sed 's/dense_mass: true$/dense_mass: true\n      marginalise_scaling: true/' \
    sample_run.yaml >marg.yaml
run_capture "$HETUI" sample -c marg.yaml --nlsq-result res -o marg \
    --workers 2
is "$RUN_RC" 0 "marginalise_scaling true: exit 0"
like "$RUN_OUT" "^contrast\\[0\\] +0\\.[0-9]+ " "... contrast[0] still summarised"
like "$(h5dump -a /cmc/shard_0000/marginal_scaling marg/hetui_results.h5 2>/dev/null)" \
    '"on"' "... and recorded as integrated out"

# --- the automatic shard count -----------------------------------------------
# Workers on this machine (no worker command): one shard of all the data.
# With a worker command (workers on other nodes), the heterodyne rule:
# 1225 pairs over one angle give max(1 angle, 2) = 2 shards when
# 14 x min_points_per_param = 420 pairs allow two; its default floor
# (21000 pairs) and the homodyne size rule would give 1.
awk '/num_shards: 2$/ { print "      num_shards: auto"
	print "      min_points_per_shard: 100"
	print "      min_points_per_param: 30"; next }
	/num_warmup:/ { print "      num_warmup: 60"; next }
	/num_samples:/ { print "      num_samples: 20"; next } { print }' \
    sample_run.yaml >auto.yaml
run_capture "$HETUI" sample -c auto.yaml --nlsq-result res -o auto_local \
    --workers 2
like "$RUN_ERR" "^sampling 1 shard$" \
    "num_shards auto, local workers: one shard of all the data"
like "$RUN_OUT" "^hetui sample: 1 of 1 shards done" "... sampled"
printf '%s\n' "      max_points_per_shard: 500" >cap.txt
sed '/min_points_per_shard: 100$/r cap.txt' auto.yaml >auto_cap.yaml
run_capture "$HETUI" sample -c auto_cap.yaml --nlsq-result res -o auto_cap \
    --workers 2
like "$RUN_ERR" "^sampling 3 shards$" \
    "... unless max_points_per_shard 500 caps it: ceil(1225 / 500) = 3"
run_capture "$HETUI" sample -c auto.yaml --nlsq-result res -o auto \
    --workers 2 --worker-command "$HETUI_WORKER"
like "$RUN_ERR" "^sampling 2 shards$" \
    "num_shards auto, a worker command: the heterodyne rule's 2 shards"
like "$RUN_OUT" "^hetui sample: 2 of 2 shards done" "both are sampled"
sed 's/min_points_per_param: 30$/min_points_per_param: 50/' auto.yaml \
    >auto1.yaml
run_capture "$HETUI" sample -c auto1.yaml --nlsq-result res -o auto1 \
    --workers 2 --worker-command "$HETUI_WORKER"
like "$RUN_ERR" "^sampling 1 shard$" \
    "min_points_per_param 50 (700 pairs a shard): 1 shard"

# --- chain_method: a shard's chains at once, the same draws --------------------
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
sed 's/num_shards: 2$/num_shards: 1/' sample_run.yaml >one.yaml
sed 's/dense_mass: true$/dense_mass: true\n      chain_method: sequential/' \
    one.yaml >one_seq.yaml
run_capture "$HETUI" sample -c one.yaml --nlsq-result res -o one_par \
    --workers 1
is "$RUN_RC" 0 "one shard, chain_method parallel (the default): exit 0"
if [ "$ncpu" -ge 2 ]; then
	like "$RUN_ERR" "^the chains of a shard run 2 at a time \\(chain_method parallel\\)$" \
	    "$ncpu cores, one worker: the 2 chains at once, and stderr says so"
else
	skip 1 "one core: the chains run one after another"
fi
run_capture "$HETUI" sample -c one_seq.yaml --nlsq-result res -o one_seq \
    --workers 1
is "$RUN_RC" 0 "chain_method sequential: exit 0"
printf '%s\n' "$RUN_ERR" | grep -q 'at a time'
is "$?" 1 "... and no chains at once"
a=$(h5dump -d /cmc/consensus/draws one_par/hetui_results.h5 2>/dev/null |
    sed -n '/DATA {/,$p')
b=$(h5dump -d /cmc/consensus/draws one_seq/hetui_results.h5 2>/dev/null |
    sed -n '/DATA {/,$p')
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "parallel and sequential chains: the same draws bit for bit"

# --- "one per core" is the cores hetui may run on (taskset, Slurm) ------------
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
	# 5000 draws per chain and a status line every 0.05 s: the run (about
	# 2 s, one worker) gives dozens of status lines; the test needs two,
	# so it holds on a machine 20 times faster
	sed 's/num_samples: 100$/num_samples: 5000/' sample_run.yaml >bound.yaml
	run_capture taskset -c 0 "$HETUI" sample -c bound.yaml \
	    --nlsq-result res -o bound --progress 0.05
	is "$RUN_RC" 0 "bound to one core (taskset -c 0): exit 0"
	n=$(printf '%s\n' "$RUN_ERR" | grep -c '^status at .* 1 running')
	m=$(printf '%s\n' "$RUN_ERR" | grep -c '^status at .* [2-9] running')
	ok $([ "$n" -ge 2 ] && [ "$m" = 0 ]; echo $?) \
	    "... one worker by default, not one per online core ($n status lines with 1 running, $m with more)"
	printf '%s\n' "$RUN_ERR" | grep -q 'at a time'
	is "$?" 1 "... and no chains at once"
else
	skip 3 "taskset cannot bind this process"
fi

# --- SIGINT after a shard finished: it is combined and written ----------------
# 1000 draws per chain: a shard lasts long enough that the signal lands
# before the next one finishes (with 100 and contrast and offset
# integrated out, two of three shards were sometimes done by then)
sed -e 's/num_shards: 2$/num_shards: 3/' \
    -e 's/num_samples: 100$/num_samples: 1000/' sample_run.yaml >three.yaml
env HETUI_TEST_MARK=$mark "$HETUI" sample -c three.yaml --nlsq-result res \
    -o part --workers 1 >part.out 2>part.err &
pid=$!
wait_line '^shard . .* done ' part.err
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
is "$rc" 130 "SIGINT after one shard finished: exit 130"
like "$(cat part.err)" "interrupted; the finished shards were combined and written" \
    "stderr: what finished was written"
like "$(cat part.out)" "^hetui sample: 1 of 3 shards done, 1 combined" \
    "the table shows the finished shard"
like "$(cat part/cmc_summary.json 2>/dev/null)" '"status": "cancelled"' \
    "cmc_summary.json: status cancelled"
sleep 0.2
is "$(leftover)" 0 "no worker left"

# --- SIGTERM and SIGHUP (time limit, dropped SSH session) do the same --------
# hetui keeps a SIGHUP ignored on entry (nohup), and a test run may
# inherit that: perl restores the default before hetui starts.
hupdfl='$SIG{HUP} = "DEFAULT"; exec @ARGV or die "exec: $!\n"'
for sw in TERM:143 HUP:129; do
	sig=${sw%:*}
	want=${sw#*:}
	# fresh names: wait_line must not read an earlier run's file before
	# the new process has created its own
	rm -rf part_$sig part_$sig.out part_$sig.err
	perl -e "$hupdfl" -- env HETUI_TEST_MARK=$mark "$HETUI" sample \
	    -c three.yaml --nlsq-result res -o part_$sig --workers 1 \
	    >part_$sig.out 2>part_$sig.err &
	pid=$!
	wait_line '^shard . .* done ' part_$sig.err
	# twice, 10 ms apart: a dropped session delivers SIGHUP twice
	kill -$sig $pid 2>/dev/null
	sleep 0.01
	kill -$sig $pid 2>/dev/null
	wait $pid
	rc=$?
	if ! grep -q '^shard . .* done ' part_$sig.err ||
	    grep -q '3 of 3 shards done' part_$sig.out; then
		skip 4 "SIG$sig: no shard finished in time, or all did (rc $rc)"
		continue
	fi
	is "$rc" "$want" "SIG$sig twice after one shard finished: exit $want"
	like "$(cat part_$sig.err)" "interrupted \\(SIG$sig\\); the finished shards were combined and written" \
	    "stderr names SIG$sig and says what was written"
	like "$(cat part_$sig/cmc_summary.json 2>/dev/null)" \
	    '"status": "cancelled"' "SIG$sig: cmc_summary.json written"
	sleep 0.2
	is "$(leftover)" 0 "SIG$sig: no worker left"
done

# --- a shard on course to pass per_shard_timeout is reported at once ---------
# 2 chains x (300 + 30000) cannot finish in 4 s: the warning comes while
# the shard runs (before the timeout's retry line), once, with the time
# needed; then both attempts time out and the run fails (exit 5).
sed -e 's/num_samples: 100$/num_samples: 30000/' \
    -e 's/per_shard_timeout: 3600$/per_shard_timeout: 4/' \
    -e 's/heartbeat_timeout: 600$/heartbeat_timeout: 4/' sample_run.yaml \
    >pace.yaml
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c pace.yaml \
    --nlsq-result res -o pace --workers 2
is "$RUN_RC" 5 "shards slower than per_shard_timeout: they fail (exit 5)"
like "$RUN_ERR" "^hetui sample: warning: shard [01] is [0-9]+ % done after [0-9]+ s, so it needs about [0-9]+ s, more than optimization\\.cmc\\.timeout\\.per_shard_timeout \\(4 s\\): it will be killed at the limit and retried" \
    "the pace warning names the shard, the time needed and the key"
is "$(printf '%s\n' "$RUN_ERR" | grep -c 'so it needs about')" 1 \
    "it is given once"
first=$(printf '%s\n' "$RUN_ERR" |
    grep -E 'so it needs about|^shard +[0-9]+ .* retrying ' | head -1)
like "$first" "so it needs about" "it comes before the first timeout"

# --- under nohup a hang-up stays ignored --------------------------------------
rm -f nohup.out nohup.err
env HETUI_TEST_MARK=$mark nohup "$HETUI" sample -c sample_run.yaml \
    --nlsq-result res -o nohup_run --workers 2 >nohup.out 2>nohup.err &
pid=$!
wait_line '^shard ' nohup.err
kill -HUP $pid 2>/dev/null
wait $pid
is "$?" 0 "nohup: SIGHUP is ignored, the run ends normally (exit 0)"
like "$(cat nohup_run/cmc_summary.json 2>/dev/null)" '"status": "passed"' \
    "nohup: the complete run is written"

done_testing
