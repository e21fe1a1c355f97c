#!/bin/sh
# t_sample_resume.sh: `hetui sample --resume DIR` end to end, with the real
# hetui-worker, on the data of t_sample.sh (tests/configs/sample_truth.yaml
# simulated, sampled with tests/configs/sample_run.yaml at 3 shards).
# Checks: a run stopped by SIGTERM after a shard finished, then resumed,
# samples only the other shards, says so on stderr, writes into DIR, and
# gives a consensus bit-identical to an uninterrupted run (the same
# draws, summary and shard table but for the reused column); the results
# record which shards were reused (/cmc/shards/reused, cmc_diagnostics
# .json) and each shard's input digest; resuming a complete run starts
# no worker at all (the worker command does not exist); a changed seed
# is refused when the results would replace the finished shards (DIR is
# left as it was) and, with -o elsewhere, reuses nothing and says so
# before sampling; a stale nlsq_parameters.json in DIR does not matter
# (the run's own /fit is read); exit 1 with a specific
# message for a directory without results, a file that is not HDF5 and
# an NLSQ-only result; exit 2 for --resume without a value; --help
# documents it.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

sample_setup t_sample_resume

# --- the uninterrupted run (full/) ---
sample_three

# --- stopped after one shard, then resumed -------------------------------------
env HETUI_TEST_MARK=$mark "$HETUI" sample -c three.yaml -o part \
    --workers 1 >part.out 2>part.err &
pid=$!
wait_line '^shard . .* done ' part.err
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
is "$rc" 143 "SIGTERM after a shard finished: exit 143"
ndone=$(sed -n 's/^hetui sample: \([0-9]\) of 3 shards done.*/\1/p' part.out)
if [ -z "$ndone" ] || [ "$ndone" -lt 1 ] || [ "$ndone" -gt 2 ]; then
	echo "Bail out! the stopped run finished ${ndone:-no} shards, not 1 or 2"
	exit 1
fi
nrest=$((3 - ndone))
done_ids=$(sed -n 's/^shard \([0-9]\) .* done .*/\1/p' part.err | sort |
    tr '\n' ' ')

run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c three.yaml \
    --resume part --workers 1
is "$RUN_RC" 0 "--resume: exit 0 (the gates pass)"
like "$RUN_ERR" "NLSQ result from part$" "the NLSQ result comes from DIR"
like "$RUN_ERR" "^sampling $nrest of 3 shards \\($ndone reused from the earlier run\\)$" \
    "stderr: how many shards are sampled and how many reused"
for id in $done_ids; do
	like "$RUN_ERR" "^shard $id +[0-9]+ pairs  done +reused \\([0-9.]+ s in the earlier run\\)$" \
	    "stderr: shard $id is reused, with its earlier time"
done
is "$(printf '%s\n' "$RUN_ERR" | grep -cE '^shard [0-9]+ +[0-9]+ pairs  running')" "$nrest" \
    "only the unfinished shards run"
like "$RUN_OUT" "^hetui sample: 3 of 3 shards done, 3 combined" \
    "the summary counts every shard"
like "$RUN_OUT" "results written to part/ " "results go to DIR"
is "$(leftover)" 0 "no worker left"

for ds in /cmc/consensus/draws /cmc/summary/mean /cmc/summary/r_hat \
    /cmc/shards/id /cmc/shards/n_pairs /cmc/shards/state; do
	a=$(h5data full/hetui_results.h5 $ds)
	b=$(h5data part/hetui_results.h5 $ds)
	[ -n "$a" ] && [ "$a" = "$b" ]
	ok $? "$ds identical to the uninterrupted run's"
done
ids=$(h5data part/hetui_results.h5 /cmc/shards/id | sed -n 's/^ *(0): //p')
reu=$(h5data part/hetui_results.h5 /cmc/shards/reused |
    sed -n 's/^ *(0): //p')
want=
for id in $(echo "$ids" | tr ',' ' '); do
	case " $done_ids" in
	*" $id "*) want="$want${want:+, }1" ;;
	*) want="$want${want:+, }0" ;;
	esac
done
is "$reu" "$want" "/cmc/shards/reused marks the reused shards (ids $ids)"
dg_full=$(h5dump -a /cmc/shard_0000/input_digest full/hetui_results.h5 |
    sed -n 's/.*(0): "\([0-9a-f]*\)".*/\1/p')
dg_part=$(h5dump -a /cmc/shard_0000/input_digest part/hetui_results.h5 |
    sed -n 's/.*(0): "\([0-9a-f]*\)".*/\1/p')
like "$dg_full" "^[0-9a-f]{16}$" "shard 0 records a 16-digit input digest"
is "$dg_part" "$dg_full" "... the same in both runs"
is "$(grep -o '"reused": true' part/cmc_diagnostics.json | wc -l |
    tr -d ' ')" "$ndone" "cmc_diagnostics.json: reused true per reused shard"

# --- a complete run: nothing to sample, no worker ------------------------------
run_capture "$HETUI" sample -c three.yaml --resume part --json \
    --worker-command /nonexistent/hetui-worker
is "$RUN_RC" 0 "--resume of a complete run: exit 0 without any worker"
like "$RUN_OUT" '"num_shards_reused": 3' "--json: num_shards_reused 3"
like "$RUN_ERR" "^nothing to sample: all 3 shards reused from the earlier run$" \
    "stderr: nothing to sample"
a=$(h5data full/hetui_results.h5 /cmc/consensus/draws)
b=$(h5data part/hetui_results.h5 /cmc/consensus/draws)
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "... and the consensus is still the uninterrupted run's"

# --- other inputs: refused in DIR, sampled again elsewhere ---------------------
sum0=$(md5sum <part/hetui_results.h5)
run_capture "$HETUI" sample -c three.yaml --resume part --seed 7
is "$RUN_RC" 1 "--resume with another seed into DIR: exit 1"
like "$RUN_ERR" "error: --resume: finished shards [0-9, ]+ in part/hetui_results.h5 were sampled from other inputs \\(the configuration, the data, the NLSQ result, the seed or the hetui version changed\\), and this run would sample them again and replace them; restore what changed, or keep them and write this run elsewhere with -o DIR" \
    "the message says why and how to keep the shards"
is "$(md5sum <part/hetui_results.h5)" "$sum0" "DIR is left as it was"

run_capture "$HETUI" sample -c three.yaml --resume part -o reseed --seed 7 \
    --workers 2
is "$RUN_RC" 0 "--resume with another seed and -o elsewhere: exit 0"
like "$RUN_ERR" "warning: --resume: finished shards [0-9, ]+ in part/hetui_results.h5 were sampled from other inputs" \
    "one warning lists the finished shards sampled again"
first=$(printf '%s\n' "$RUN_ERR" | grep -E 'other inputs|pairs  running' |
    head -1)
like "$first" "other inputs" "... before any shard runs"
like "$RUN_ERR" "^sampling 3 shards$" "... and every shard is sampled"
[ -f reseed/cmc_summary.json ]
ok $? "-o overrides DIR"

# --- a stale nlsq_parameters.json in DIR does not matter -----------------------
# (the run's own NLSQ result is the /fit group of its hetui_results.h5)
rm -rf stale
cp -r part stale
sed '0,/^ *[0-9]/s/^\( *\)\([0-9]\)/\19\2/' part/nlsq_parameters.json \
    >stale/nlsq_parameters.json
cmp -s part/nlsq_parameters.json stale/nlsq_parameters.json
is "$?" 1 "a changed nlsq_parameters.json"
run_capture "$HETUI" sample -c three.yaml --resume stale \
    --worker-command /nonexistent/hetui-worker
is "$RUN_RC" 0 "--resume ignores it: exit 0 without a worker"
like "$RUN_ERR" "^nothing to sample: all 3 shards reused" "... every shard reused"

# --- errors --------------------------------------------------------------------
run_capture "$HETUI" sample -c three.yaml --resume nowhere
is "$RUN_RC" 1 "--resume of a missing directory: exit 1"
like "$RUN_ERR" "error: --resume: " "the message names --resume"
like "$RUN_ERR" "nowhere" "... and the directory"

mkdir -p junk
echo "not HDF5" >junk/hetui_results.h5
cp part/nlsq_parameters.json junk/
run_capture "$HETUI" sample -c three.yaml --resume junk
is "$RUN_RC" 1 "--resume of a file that is not HDF5: exit 1"
like "$RUN_ERR" "--resume: junk/hetui_results.h5 is not an HDF5 file" \
    "the message names the file"

run_capture "$HETUI" fit -c three.yaml -o fitonly
is "$RUN_RC" 0 "an NLSQ-only result (hetui fit)"
run_capture "$HETUI" sample -c three.yaml --resume fitonly
is "$RUN_RC" 1 "--resume of an NLSQ-only result: exit 1"
like "$RUN_ERR" "fitonly/hetui_results.h5 has no /cmc group" \
    "the message says there is no CMC run"
like "$RUN_ERR" "--nlsq-result" "... and points to --nlsq-result"

run_capture "$HETUI" sample -c three.yaml --resume
is "$RUN_RC" 2 "--resume without a directory: exit 2"

run_capture "$HETUI" sample --help
like "$RUN_OUT" "--resume DIR" "--help documents --resume"

done_testing
