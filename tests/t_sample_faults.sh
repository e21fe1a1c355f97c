#!/bin/sh
# t_sample_faults.sh: `hetui sample` with workers that fail, through the
# command line, with tests/sample_wrap.sh as the worker command (the real
# hetui-worker, except one spawned worker that misbehaves):
#   - a worker SIGKILLed mid-shard: the shard is retried on a fresh worker,
#     the run completes (exit 0), the report gives the signal;
#   - a worker that hangs (no heartbeat): after heartbeat_timeout (2 s)
#     it is killed, the shard retried, the run completes;
#   - a worker that writes garbage: the protocol error is reported, the
#     shard retried, the run completes;
#   - both attempts of one shard fail (garbage), the other shard succeeds:
#     1 of 2 is below min_success_rate 0.9: exit 5, the finished shard is
#     combined and written with status shards_failed;
#   - every worker writes garbage: the early-abort rule stops the run,
#     exit 5, every attempt is reported;
# and after every run no process with the test's marker is left.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

dir="$TAP_TMP"
cp "$top_srcdir/tests/configs/sample_truth.yaml" "$dir/"
cd "$dir" || exit 1
mark="t_sample_faults_$$_marker"
wrap="$top_srcdir/tests/sample_wrap.sh"
# 200 + 8000 transitions per chain: a shard takes about 3 s with the
# Laplace start (trees of a few steps on this small posterior), so a
# worker SIGKILLed 1 s after its start dies mid-shard (a slower machine
# only widens that margin)
sed -e 's/num_warmup: 300$/num_warmup: 200/' \
    -e 's/num_samples: 100$/num_samples: 8000/' \
    -e 's/heartbeat_timeout: 600$/heartbeat_timeout: 2/' \
    "$top_srcdir/tests/configs/sample_run.yaml" >run.yaml


# fault MODE BAD OUT: a run whose worker BAD misbehaves as MODE
fault() {
	rm -rf state && mkdir state
	run_capture env HETUI_TEST_MARK=$mark WRAP_STATE="$dir/state" \
	    WRAP_SAY="${WRAP_SAY:-0}" WRAP_MODE=$1 WRAP_BAD="$2" WRAP_DELAY=1 "$HETUI" sample \
	    -c run.yaml --nlsq-result fit -o "$3" --workers 2 \
	    --worker-command "sh $wrap"
}

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"
run_capture "$HETUI" fit -c run.yaml -o fit
is "$RUN_RC" 0 "the NLSQ fit the runs start from"

fault none none clean
is "$RUN_RC" 0 "through the wrapper, no fault: exit 0"
is "$(ls state | wc -l | tr -d ' ')" 2 "... two workers were spawned"
ok "$([ ! -e clean/worker-logs ]; echo $?)" \
    "workers that wrote nothing to stderr leave no worker-logs folder"

WRAP_SAY=1 fault sigkill 0 said
is "$RUN_RC" 0 "a worker that wrote to stderr, then was SIGKILLed: exit 0"
like "$RUN_ERR" "was killed by signal 9 \\(Killed\\) \\(its stderr is in said/worker-logs/worker-[0-9]+\\.log\\)" \
    "the reason points to its log"
log=$(printf '%s\n' "$RUN_ERR" | sed -n 's/.*its stderr is in \([^)]*\)).*/\1/p' | head -n 1)
like "$(cat "$log" 2>/dev/null)" "^sample_wrap: spawn 0, mode sigkill" \
    "... which holds what it wrote"
is "$(ls said/worker-logs | wc -l | tr -d ' ')" 3 \
    "the logs of all three workers (two and the retry) are kept"

mkdir blocked && : >blocked/worker-logs
fault none none blocked
is "$RUN_RC" 0 "OUT/worker-logs is a file: the run still completes"
like "$RUN_ERR" "worker log folder blocked/worker-logs exists but is not a directory; the workers' messages are discarded" \
    "... with a warning that says why the messages are lost"

fault sigkill 0 killed
is "$RUN_RC" 0 "worker 0 SIGKILLed mid-shard: the run completes, exit 0"
like "$RUN_ERR" "retrying +worker [0-9]+ \\(pid [0-9]+\\): was killed by signal 9" \
    "stderr: the shard is retried, with the signal"
like "$RUN_ERR" "^shard [01] .*done" "stderr: the shard is done on a fresh worker"
like "$(cat killed/cmc_diagnostics.json)" '"attempts": 2' \
    "cmc_diagnostics.json: one shard took two attempts"
like "$(cat killed/cmc_diagnostics.json)" '"reason": "worker [0-9]+ \(pid [0-9]+\): was killed by signal 9' \
    "cmc_diagnostics.json: the reason of the failed attempt"
is "$(leftover)" 0 "no process left"

fault hang 1 hung
is "$RUN_RC" 0 "worker 1 hangs: the run completes, exit 0"
like "$RUN_ERR" "retrying +worker [0-9]+ \\(pid [0-9]+\\): heartbeat timeout: silent for 2 s" \
    "stderr: the heartbeat timeout is the reason"
like "$RUN_OUT" "^hetui sample: 2 of 2 shards done" "both shards done"
is "$(leftover)" 0 "no process left (the hung worker was killed)"

fault garbage 0 garbage
is "$RUN_RC" 0 "worker 0 writes garbage: the run completes, exit 0"
like "$RUN_ERR" "retrying +worker [0-9]+ \\(pid [0-9]+\\): its output: line 2: unknown record type in 'this is not a wire record'" \
    "stderr: the protocol error is the reason"
is "$(leftover)" 0 "no process left"

fault garbage "0 2" half
is "$RUN_RC" 5 "one shard fails twice, one succeeds: exit 5"
like "$RUN_ERR" "1 of 2 shards succeeded \\(rate 0.5, min_success_rate 0.9\\)" \
    "the success-rate rule is reported"
like "$RUN_ERR" "the finished shards were combined and written to half/" \
    "what finished is written"
like "$RUN_OUT" "^hetui sample: 1 of 2 shards done, 1 combined" \
    "the table shows one shard combined"
like "$(cat half/cmc_summary.json)" '"status": "shards_failed"' \
    "cmc_summary.json: status shards_failed"
like "$(cat half/cmc_diagnostics.json)" '"state": "failed"' \
    "cmc_diagnostics.json: the failed shard is recorded"
is "$(leftover)" 0 "no process left"

fault garbage all allbad
is "$RUN_RC" 5 "every worker writes garbage: exit 5"
like "$RUN_ERR" "0 of 2 shards succeeded .*early abort: 2 of the first 2 shards failed \\(more than half\\)" \
    "the early-abort rule is reported"
like "$RUN_ERR" "Shard 0 attempt 1: .+Shard 0 attempt 2: .+Shard 1 attempt 1: .+Shard 1 attempt 2: " \
    "every attempt of every shard is listed"
like "$RUN_ERR" "nothing was written" "nothing written"
is "$(ls state | wc -l | tr -d ' ')" 4 "four workers: two attempts per shard"
is "$(leftover)" 0 "no process left"

done_testing
