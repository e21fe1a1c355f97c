#!/bin/sh
# t_slurm.sh: `hetui sample` with its workers started through Slurm
# (`srun -n1 hetui-worker`), the transport of a real cluster, on the
# single-node localhost cluster of tests/slurm/slurm-up.sh.
#
# Runs only when SLURM_CONF names a configuration and `srun -n1 true`
# answers within 20 s (.ci/run brings the cluster up when it can); skips
# with the reason otherwise.  Checks: a two-shard run through srun passes
# its gates and gives exactly the posterior of the same run with local
# workers (same seed: the transport must not change a bit); SIGINT during
# sampling exits 130 and leaves neither a worker nor a Slurm job behind;
# a worker command naming a program that does not exist on the node
# fails every shard with srun's reason and exit 5.
. "$top_srcdir/tests/tap.sh"

[ -n "${SLURM_CONF:-}" ] && [ -r "$SLURM_CONF" ] ||
    skip_all "no Slurm cluster (SLURM_CONF unset; tests/slurm/slurm-up.sh makes one)"
command -v srun >/dev/null 2>&1 || skip_all "srun not installed"
timeout 20 srun -n1 true >/dev/null 2>&1 ||
    skip_all "srun -n1 true failed with SLURM_CONF=$SLURM_CONF"
plan_lazy

dir="$TAP_TMP"
cp "$top_srcdir/tests/configs/sample_truth.yaml" \
    "$top_srcdir/tests/configs/sample_run.yaml" "$dir/"
cd "$dir" || exit 1
mark="t_slurm_$$_marker"
leftover() {
	grep -ls "HETUI_TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
	    wc -l | tr -d ' '
}
# Jobs still pending or running: a job whose step has ended may stay
# listed as COMPLETING while slurmd cleans up, for seconds on a loaded
# machine; that one is not a job hetui left behind.
jobs_left() {
	squeue -h -u "$(id -un)" -n hetui-worker -t PENDING,RUNNING,SUSPENDED \
	    2>/dev/null | wc -l | tr -d ' '
}
wait_no_jobs() {
	_n=0
	while [ "$(jobs_left)" != 0 ] && [ $_n -lt 300 ]; do
		_n=$((_n + 1)); sleep 0.1
	done
	jobs_left
}

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"

# Local workers, then the same run through srun.
sed 's/^  output_dir: res$/  output_dir: local/' sample_run.yaml > local.yaml
sed 's/^  output_dir: res$/  output_dir: slurm/' sample_run.yaml > slurm.yaml
run_capture "$HETUI" sample -c local.yaml --workers 2 --json
is "$RUN_RC" 0 "local workers: gates pass"
local_json=$RUN_OUT
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c slurm.yaml \
    --workers 2 --json --worker-command "srun -n1 -J hetui-worker $HETUI_WORKER"
is "$RUN_RC" 0 "srun workers: gates pass"
[ "$RUN_RC" = 0 ] || diag "$RUN_ERR"
# The JSON summaries without what must differ (time, directory, files).
strip() {
	printf '%s\n' "$1" | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)
for k in ("wall_time", "output_dir", "files"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))'
}
is "$(strip "$RUN_OUT")" "$(strip "$local_json")" \
    "the posterior through srun equals the local one bit for bit"
is "$(wait_no_jobs)" 0 "no Slurm job left after a clean run"
is "$(leftover)" 0 "no process left after a clean run"

# SIGINT while the shards run through srun.
slow="slow.yaml"
sed -e 's/num_warmup: 300/num_warmup: 20000/' \
    -e 's/num_samples: 100/num_samples: 20000/' \
    -e 's/^  output_dir: res$/  output_dir: slow/' sample_run.yaml > "$slow"
env HETUI_TEST_MARK=$mark "$HETUI" sample -c "$slow" --workers 2 \
    --worker-command "srun -n1 -J hetui-worker $HETUI_WORKER" \
    >int.out 2>int.err &
pid=$!
n=0
until grep -q "running" int.err 2>/dev/null && [ "$(jobs_left)" -ge 1 ]; do
	n=$((n + 1))
	[ $n -lt 300 ] || break
	sleep 0.1
done
ok "$([ "$(jobs_left)" -ge 1 ]; echo $?)" "the shards run as Slurm jobs"
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT: exit 130"
is "$(wait_no_jobs)" 0 "SIGINT: no Slurm job left"
is "$(leftover)" 0 "SIGINT: no process left"

# A worker program the node does not have.
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c slurm.yaml \
    --workers 2 --worker-command "srun -n1 -J hetui-worker /nonexistent/hetui-worker"
is "$RUN_RC" 5 "a missing worker program on the node: exit 5"
like "$RUN_ERR" "shard 0" "the report names the failed shards"
is "$(wait_no_jobs)" 0 "no Slurm job left after the failures"
is "$(leftover)" 0 "no process left after the failures"
done_testing
