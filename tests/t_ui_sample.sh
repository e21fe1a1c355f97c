#!/bin/sh
# t_ui_sample.sh: the Sampling (4) and Results (5) panels with the real
# hetui-worker, on a file written by `hetui simulate` from
# tests/configs/sample_truth.yaml (static_ref, one angle, 50 frames) and a
# run of 2 shards x 2 chains x (300 + 100).
# Checks: the settings table and its refusals (a word for a number, 0
# chains, 99 workers), the strategy cycling; r runs NLSQ then the shards
# to DONE with per-shard R-hat and ESS, a shard whose first worker dies is
# retried visibly (DONE#2 and the reason under it, the Log says so); the
# shard detail (per-parameter R-hat, ESS, traces); the Results panel's
# posterior table, "gates passed" in words and the files written; a fit
# in the Fit panel appears in the history and w saves it as CSV; c
# cancels a long run (workers reaped while hetui lives, no zombies);
# quitting while sampling asks, then stops the workers (exit 0, nothing
# left); a shard on course to pass per_shard_timeout is announced in the
# status line and the Log; a hang-up (SIGHUP) after one of three shards
# finished still writes that shard (exit 129, no worker left); a failing
# gate (min_ess 100000) is said in words in both panels at 80x24; a
# worker that always fails ends in FAILED shards with reasons at 80x24 in
# ASCII mode.
#
# Margins (issue 19, measured 2026-11-26 with `hetui sample -c run.yaml
# --seed 1..60 --workers 1` on the same data, simulate --seed 11; the
# TUI runs the same coordinator and workers, and on another CPU only the
# sampler's path differs, as with another seed): every run passed, no
# divergences.  Largest shard R-hat mean 1.035 (sd 0.015, largest
# 1.075) against 1.2: 8.6 sd above the largest; lowest shard bulk ESS
# 165 (log-sd 0.20, lowest 100) against 10: 14 log-sd below the mean;
# lowest BFMI 0.91 (log-sd 0.14, lowest 0.66) against 0.3: 7.8 log-sd
# (5.6 from the lowest).  The combined posterior: D0_ref mean 4943 (sd
# 10 over seeds, 4918-4969; posterior sd 47) against the pattern
# 4000-5999, > 100 sd; alpha_ref 0.2975 (sd 0.0015, 0.293-0.302)
# against 0.2-0.399, > 60 sd; contrast[0] 0.29952 (sd 7e-5) against
# 0.2-0.399, > 1000 sd; a shard's D0_ref (half the data: posterior sd
# about 47 x sqrt 2 = 67, not measured apart) sits > 10 of its sd
# inside 4000-5999.  The failing gate, min_ess 100000, is 400 times the
# largest shard ESS seen (244) for 2 x 100 draws: it fails on any CPU.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

dir=$TAP_TMP
mark="t_ui_sample_$$_marker"
cp "$top_srcdir/tests/configs/sample_truth.yaml" "$dir/" || exit 1
(cd "$dir" && "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11)
ok $? "simulate the test data"

# run.yaml: the sampling run; long.yaml: the same with long chains.
mkrun() {
	# warm-up: at least 300 iterations with a dense metric, so the
	# D0_ref / alpha_ref correlation is learnt and the gates pass with
	# margin whatever the rounding of the gradient
	_w=$2
	[ "$_w" -lt 300 ] && _w=300
	cat > "$dir/$1" <<EOF
analysis_mode: static_ref
experimental_data:
  file_path: sim.h5
analyzer_parameters:
  start_frame: 1
  end_frame: 50
  scattering:
    wavevector_q: 0.01
    phi_angles: [30.0]
parameters:
  reference:
    D0_ref: {value: 3000.0, min: 100.0, max: 100000.0}
    alpha_ref: {value: 0.1, min: -1.0, max: 1.0}
    D_offset_ref: {value: 0.0, vary: false}
optimization:
  nlsq:
    loss: linear
    per_angle_mode: individual
  cmc:
    sharding:
      num_shards: ${4:-2}
    per_shard_mcmc:
      num_warmup: $_w
      num_samples: $2
      num_chains: 2
      seed: 42
      dense_mass: true
    validation:
      max_r_hat: 1.2
      min_ess: ${3:-10}
    nlsq:
      nlsq_prior_width_factor: 50
output:
  output_dir: $dir/out
  create_subdirs: false
  timestamp_dirs: false
EOF
}
mkrun run.yaml 100
mkrun long.yaml 200000
mkrun strict.yaml 100 100000
# hup: 20,000 draws a shard, so that the second shard still runs when the
# hang-up comes after the first is seen done (with 1,500 a loaded machine
# once finished the second before the signal arrived)
mkrun hup.yaml 20000 10 3

# A worker that drops the first shard it is given (once per test), then
# behaves: the coordinator must retry that shard on a fresh worker.
cat > "$dir/flaky_worker" <<EOF
#!/bin/sh
if mkdir "$dir/flaky.once" 2>/dev/null; then
	echo "hello hetui-wire 1"
	read -r line
	echo "flaky_worker: dropping the shard on purpose" >&2
	exit 3
fi
exec "$HETUI_WORKER"
EOF
chmod +x "$dir/flaky_worker"

# The workers still carrying this test's marker (zombies have no
# environment: they are counted by zombies()).
leftover() {
	grep -ls "HETUI_TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
	    grep -v "/proc/$(tui_pid)/" | wc -l | tr -d ' '
}
# Zombie children of hetui.
zombies() {
	ps -o stat= --ppid "$1" 2>/dev/null | grep -c '^Z' | tr -d ' '
}
# Wait (polling, with a deadline) until no worker carries the marker.
wait_no_workers() {
	_n=$((${1:-10} * 20))
	while [ "$_n" -gt 0 ]; do
		[ "$(leftover)" = 0 ] && return 0
		sleep 0.05
		_n=$((_n - 1))
	done
	return 1
}

# --- settings, a run to the end, the detail, Results, history, CSV ------
tui_start 100 30 HETUI_WORKER="$dir/flaky_worker" HETUI_TEST_MARK=$mark \
    -- -c "$dir/run.yaml" "$dir/sim.h5"
wait_for 'c2 = '; ok $? "the simulated file opens"
like "$TUI_SCREEN" '4 Sampling +5 Results +6 Log' "tabs: Sampling 4, Results 5, Log last"
tui_keys 4
wait_for 'Settings +\(Enter edits, r starts\)'; ok $? "4 shows the Sampling settings"
like "$TUI_SCREEN" 'shards +2 ' "shards from the config"
like "$TUI_SCREEN" 'chains +2 ' "chains"
like "$TUI_SCREEN" 'warmup +300 ' "warmup"
like "$TUI_SCREEN" 'samples +100 ' "samples"
like "$TUI_SCREEN" 'workers +auto ' "workers: auto"
like "$TUI_SCREEN" 'strategy +random ' "strategy"
like "$TUI_SCREEN" 'combine +robust_consensus_mc' "combine method"
like "$TUI_SCREEN" 'gates: max R-hat 1\.2, min ESS 10, min BFMI 0\.3' "the gate thresholds"
like "$TUI_SCREEN" 'worker: .*flaky_worker' "the worker program (HETUI_WORKER)"

tui_keys Enter
wait_for 'sampling shards:'; ok $? "Enter edits the shards"
tui_text 'two'; tui_keys Enter
wait_for "refused: optimization\\.cmc\\.sharding\\.num_shards: 'two' is not an integer"; ok $? "a word for the shards is refused with the reason, naming the key"
like "$TUI_SCREEN" 'shards +2 ' "the shards stay 2"
tui_keys Down Enter
wait_for 'sampling chains:'
tui_text '0'; tui_keys Enter
wait_for 'refused: .*num_chains'; ok $? "0 chains is refused by the validator, naming the key"
like "$TUI_SCREEN" 'chains +2 ' "the chains stay 2"
tui_keys Down Down Down Enter
wait_for 'sampling workers:'
tui_text '99'; tui_keys Enter
wait_for 'refused: workers'; ok $? "99 workers is refused"
tui_keys Enter; tui_text '2'; tui_keys Enter
wait_for 'workers +2 '; ok $? "2 workers accepted"
tui_keys Down Enter
wait_for 'strategy +angle_balanced'; ok $? "Enter cycles the strategy"
tui_keys Enter Enter
wait_for 'strategy +random'; ok $? "and back to random"
# The gates are settings too (issue 20), edited through the schema table.
tui_keys Down Down Enter
wait_for 'sampling max R-hat:'; ok $? "Enter edits the R-hat gate"
tui_text '0.9'; tui_keys Enter
wait_for 'refused: .*max_r_hat'; ok $? "an R-hat gate of 0.9 is refused, naming the key"
tui_keys Enter; tui_text '1.15'; tui_keys Enter
wait_for 'max R-hat +1\.15 '; ok $? "1.15 accepted"
like "$TUI_SCREEN" 'gates: max R-hat 1\.15' "the gate line follows"
tui_keys Down
wait_for 'min ESS +10 +gate: bulk ESS'; ok $? "the ESS gate row"
tui_keys Down
wait_for 'max div\. +[0-9.]+ +gate: divergent'; ok $? "the divergence gate row"
tui_keys Up Up Enter; tui_text '1.2'; tui_keys Enter
wait_for 'max R-hat +1\.2 '; ok $? "back to 1.2"

tui_keys r
wait_for 'NLSQ fit: converged, chi2_red [0-9.]+; static_ref, 1225 pairs, 4 parameters' 60
ok $? "r: NLSQ first, converged"
wait_for 'gates passed: every shard passed' 120; ok $? "the run ends with the gates passed"
like "$TUI_SCREEN" 'passed +2/2 done +0 running +0 queued +0 retrying +0 failed' "phase line: the verdict, 2 of 2 shards done"
like "$TUI_SCREEN" ' [01] DONE +61[23] .*100% +[0-9.e-]+ +[01]\.[0-9]{2} +[0-9]+ +[01]\.[0-9]{3} +[0-9]+ +[0-9.]+s' \
    "a shard row: DONE, pairs, progress, step, acceptance, divergences, R-hat, ESS, time"
like "$TUI_SCREEN" ' [01] DONE#2 +61[23] ' "the retried shard says so"
like "$TUI_SCREEN" 'attempt 1 failed: .*(status 3|exited)' "the reason of the failed attempt is under it"
like "$TUI_SCREEN" 'id state +pairs progress +step +acc +div +R-hat +ESS +time +pid' "column heads"
like "$TUI_SCREEN" 'parameter +R-hat +bulk +tail +mean +sd' "the selected shard's detail"
like "$TUI_SCREEN" 'D0_ref +[01]\.[0-9]{4} +[0-9]+ +[0-9]+ +[45][0-9]{3}' "its D0_ref: R-hat, ESS, mean near the truth 5000"
like "$TUI_SCREEN" 'results in .*/out/' "where the results went"
ok "$(wait_no_workers 10; echo $?)" "the workers have exited"

tui_keys Down Enter
wait_for 'Shard [01] +61[23] pairs +2 chains × 100 draws'; ok $? "Enter zooms into the second shard's detail"
tui_keys Escape

tui_keys 5
wait_for 'Results +posterior of sim\.h5'; ok $? "5 shows the Results"
like "$TUI_SCREEN" 'gates passed: every shard passed \(max R-hat [01]\.[0-9]+ < 1\.2, min ESS [0-9]+ > 10' "gates in words"
like "$TUI_SCREEN" '2 of 2 shards combined \(robust_consensus_mc\), 200 draws' "the combination"
like "$TUI_SCREEN" 'consensus against all the data: 4000 importance draws, PSIS' "the consensus checked against all the data"
like "$TUI_SCREEN" 'robust_consensus_mc: only 2 usable shards, too few for the outlier test \(needs 3\); both are' "the consensus note on its own lines"
like "$TUI_SCREEN" 'parameter +mean +sd +5% +50% +95% +R-hat +ESS +NLSQ +contr' "posterior column heads"
like "$TUI_SCREEN" 'D0_ref +[45][0-9]{3}(\.[0-9]+)? +[0-9.]+ +[45][0-9.]+ +[45][0-9.]+ +[45][0-9.]+ +[01]\.[0-9]{4} +[0-9]+ +[45][0-9.]+ +0\.[0-9]{2}' \
    "D0_ref row: mean, sd, quantiles, R-hat, ESS, NLSQ, contraction"
like "$TUI_SCREEN" 'alpha_ref +0\.[23][0-9]*' "alpha_ref near the truth 0.3"
like "$TUI_SCREEN" 'contrast\[0\] +0\.[23]' "contrast row"
like "$TUI_SCREEN" 'D0_ref: marginal +trace of the 200 combined draws' "histogram and trace of the selected parameter"
like "$TUI_SCREEN" 'written: .*/out/ \(hetui_results\.h5, nlsq_parameters\.json, nlsq_metadata\.json' "the files written"
like "$TUI_SCREEN" "Run history +1 run +picked: [^ ]*/out/" "the sampling run is in the history, pointing at its folder"
ok "$([ -s "$dir/out/cmc_summary.json" ]; echo $?)" "cmc_summary.json is on disk"
tui_keys Down
wait_for 'alpha_ref: marginal'; ok $? "Down selects the next parameter"
tui_keys w
wait_for 'run history \(1 run\) saved to'; ok $? "w saves the sampling run's row"

tui_keys 0
wait_for 'shard [01] failed, retrying on a fresh worker'; ok $? "the Log has the retry with its reason"
like "$TUI_SCREEN" 'sampling results written to .*/out/' "the Log says where the results went"

tui_keys 3 r
wait_for 'converged \(' 60; ok $? "a fit in the Fit panel"
tui_keys 5
wait_for 'Run history +2 runs'; ok $? "the Results list it"
like "$TUI_SCREEN" '[0-9]{2}:[0-9]{2}:[0-9]{2} +sim\.h5 +fit +converged +[0-9.]+ +[0-9.]+' "history row: time, file, fit, status, chi2, parameters"
like "$TUI_SCREEN" '[0-9]{2}:[0-9]{2}:[0-9]{2} +sim\.h5 +sample +passed +[0-9.]+' "the sampling run's row: posterior means"
tui_keys w
wait_for 'run history \(2 runs\) saved to .*hetui_fit_history\.csv'; ok $? "w saves the history as CSV"
csv=$(cat "$dir/out/hetui_fit_history.csv" 2>/dev/null)
like "$csv" '^time,file,analysis,status,mode,chi2_red,iterations,seconds,outdir,D0_ref,D0_ref_sd,alpha_ref,alpha_ref_sd' "CSV header"
like "$(printf '%s\n' "$csv" | sed -n 2p)" "^[0-9-]+T[0-9:]+[-+][0-9]{4},$dir/sim\\.h5,sample,passed,static_ref,,0,[0-9.e-]+,$dir/out,[0-9.e+]+,[0-9.e-]+," "CSV row of the sampling run"
like "$(printf '%s\n' "$csv" | sed -n 3p)" "^[0-9-]+T[0-9:]+[-+][0-9]{4},$dir/sim\\.h5,fit,converged,static_ref,[0-9.e-]+,[0-9]+,[0-9.e-]+,$dir/out,[0-9.e+]+,[0-9.e-]+," "CSV row of the fit"
is "$(printf '%s\n' "$csv" | wc -l | tr -d ' ')" 3 "CSV: header and two runs"
is "$(ls -a "$dir/out" | grep -c tmp)" 0 "no temporary file left"

tui_keys q
tui_wait_exit 20; is "$TUI_STATUS" 0 "q exits 0"
is "$(leftover)" 0 "no worker left"
# worker logs are kept only when a worker wrote something (this run's
# flaky worker says why it dropped a shard); an empty one is removed, and
# so is a folder left empty (issue 19)
is "$(find "$dir/out" -path '*worker-logs*' -empty | wc -l | tr -d ' ')" 0 \
    "no empty worker log or worker-logs folder left in the run's folder"
like "$(cat "$dir"/out/worker-logs/*.log 2>/dev/null)" "dropping the shard on purpose" \
    "... and the flaky worker's message is kept"

# --- cancel, then quit while sampling -----------------------------------
tui_start 100 30 HETUI_WORKER="$HETUI_WORKER" HETUI_TEST_MARK=$mark \
    -- -c "$dir/long.yaml" "$dir/sim.h5"
wait_for 'c2 = '
tui_keys 4 r
wait_for ' RUNNING ' 60; ok $? "a long run: shards RUNNING"
like "$TUI_SCREEN" 'RUNNING +61[23] .* [0-9]+ *$' "a running shard shows its worker pid"
hp=$(tui_pid)
tui_keys c
wait_for 'cancelled +0/2 done' 30
ok $? "c cancels the run"
like "$TUI_SCREEN" 'CANCELLED' "the shards say CANCELLED"
ok "$(wait_no_workers 10; echo $?)" "the workers are gone while hetui runs"
is "$(zombies "$hp")" 0 "no zombie children"
tui_keys r
wait_for ' RUNNING ' 60; ok $? "a second run starts"
tui_keys q
wait_for 'Sampling is running\. Quit, stop it and write the finished shards\? \(y/n\)'; ok $? "q asks while sampling"
tui_keys n
wait_for 'quit cancelled'; ok $? "n keeps running"
like "$TUI_SCREEN" 'RUNNING' "the shards still run"
tui_keys q y
tui_wait_exit 20; is "$TUI_STATUS" 0 "quit while sampling exits 0"
ok "$(wait_no_workers 5; echo $?)" "no worker left behind"
like "$(tui_screen)" 'hetui: sampling stopped at exit; no shard had finished, nothing was written' \
    "stderr after the screen: no shard had finished"

# --- a hang-up after a shard finished: what finished is written ---------
# One worker, three shards: the first is done while the second runs.
rm -f "$dir/out/cmc_summary.json" "$dir/out/hetui_results.h5"
tui_start 100 30 HETUI_WORKER="$HETUI_WORKER" HETUI_TEST_MARK=$mark \
    -- -c "$dir/hup.yaml" "$dir/sim.h5"
wait_for 'c2 = '
tui_keys 4 Down Down Down Down Enter
wait_for 'sampling workers:'
tui_text '1'; tui_keys Enter
wait_for 'workers +1 '; ok $? "one worker"
tui_keys r
wait_for ' 1/3 done' 120; ok $? "the first of three shards is done"
kill -HUP "$(tui_pid)"
tui_wait_exit 30; is "$TUI_STATUS" 129 "SIGHUP: hetui dies of SIGHUP (129)"
ok "$(wait_no_workers 5; echo $?)" "no worker left behind"
like "$(cat "$dir/out/cmc_summary.json" 2>/dev/null)" '"status": "cancelled"' \
    "cmc_summary.json written with status cancelled"
like "$(cat "$dir/out/cmc_summary.json" 2>/dev/null)" '"num_shards_used": 1,' \
    "holding the one finished shard"

# --- a shard on course to pass per_shard_timeout: said in the status line --
mkrun pace.yaml 30000
sed 's/^  cmc:$/  cmc:\
    timeout: {per_shard_timeout: 4, heartbeat_timeout: 4}/' \
    "$dir/pace.yaml" >"$dir/pace2.yaml"
tui_start 100 30 HETUI_WORKER="$HETUI_WORKER" HETUI_TEST_MARK=$mark \
    HETUI_LOG="$dir/pace.log" -- -c "$dir/pace2.yaml" "$dir/sim.h5"
wait_for 'c2 = '
tui_keys 4 r
wait_for 'sampling: shard [01] is [0-9]+ % done after [0-9]+ s, so it needs' 60
ok $? "the status line warns of a shard on course to pass its timeout"
wait_for 'too few shards finished' 60; ok $? "the shards then time out"
tui_keys q
tui_wait_exit 20; is "$TUI_STATUS" 0 "q exits 0"
is "$(grep -c 'sampling: shard [01] is [0-9]* % done after [0-9]* s, so it needs about [0-9]* s, more than optimization\.cmc\.timeout\.per_shard_timeout (4 s)' "$dir/pace.log")" 1 \
    "the session log has the whole warning, once"

# --- a gate fails: said in words in both panels (80x24) -------------------
tui_start 80 24 HETUI_WORKER="$HETUI_WORKER" HETUI_TEST_MARK=$mark \
    -- -c "$dir/strict.yaml" "$dir/sim.h5"
wait_for 'c2 = '
tui_keys 4 r
wait_for 'gates failed for 2 shards; results in ' 120; ok $? "min_ess 100000: the last line says the gates failed"
like "$TUI_SCREEN" 'gates_failed +2/2 done' "the phase line gives the verdict"
tui_keys 5
wait_for 'gates FAILED for 2 of 2 shards: .*ESS'; ok $? "the Results say which gate failed, in words"
like "$TUI_SCREEN" 'D0_ref +[45][0-9]{3}' "the posterior is shown all the same"
tui_keys q
tui_wait_exit 20; is "$TUI_STATUS" 0 "q exits 0"

# --- every worker fails: FAILED shards with reasons, 80x24 ASCII ----------
tui_start 80 24 HETUI_WORKER=/bin/false HETUI_TEST_MARK=$mark \
    -- --ascii -c "$dir/run.yaml" "$dir/sim.h5"
wait_for 'c2 = '
tui_keys 4 r
wait_for 'too few shards finished' 60; ok $? "a worker that always fails: too few shards finished"
like "$TUI_SCREEN" ' [01] FAILED ' "FAILED shards"
like "$TUI_SCREEN" 'failed: ' "with the reason under them"
like "$TUI_SCREEN" 'FAILED +61[23] +\.{8} +0%' "ASCII progress bars"
# Issue 19: a cell not known yet says "-", like R-hat and ESS (a blank
# divergence cell could be read as none).
like "$TUI_SCREEN" 'FAILED +61[23] +\.{8} +0% +- +- +- +- +- ' "step, acceptance, divergences, R-hat and ESS: '-' each"
unlike "$TUI_SCREEN" '█' "no block characters in ASCII mode"
tui_keys 5
wait_for 'The last sampling run has no posterior \(shards_failed\)'; ok $? "Results say why there is no posterior"
tui_keys q
tui_wait_exit 20; is "$TUI_STATUS" 0 "q exits 0"
is "$(leftover)" 0 "nothing left"

done_testing
