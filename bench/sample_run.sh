#!/bin/sh
# sample_run.sh: the `make bench` run of a full `hetui sample` on the
# 300-frame x 8-angle problem of bench/cmc_sample.yaml (docs/
# PERFORMANCE.md, section CMC).  Simulates the data with `hetui
# simulate` (noise 0.01, seed 7), then times `hetui sample` (NLSQ, then
# CMC over the config's shards, one worker per core) and prints its
# exit status, wall time, the CPU time of it and its workers, and its
# summary.  Usage: sample_run.sh HETUI CONFIG [DIR]
# Without DIR the run lives in a temporary directory and is lost when it
# is stopped.  With DIR (make bench-cmc CMC_SAMPLE_DIR=DIR) everything
# is kept there, and a run that was stopped (a time limit, a hang-up,
# Ctrl-C: the finished shards are written; a kill: they are in the
# checkpoint, DIR/out/hetui_checkpoint.h5) is continued with `hetui
# sample --resume DIR/out` by the next call with the same DIR; each
# call appends its times to DIR/times and the totals over all calls are
# printed.  A call after a complete run finds nothing to sample; remove
# DIR/out (or DIR) to measure afresh.
# Skips (status 0) when the binary has no `sample` command.
hetui=$1
cfg=$2
keep=$3
if ! "$hetui" sample --help >/dev/null 2>&1; then
	echo "== hetui sample: not in this build, skipped"
	exit 0
fi
if [ -n "$keep" ]; then
	d=$keep
	mkdir -p "$d" || exit 1
else
	d=`mktemp -d /tmp/hetui-bench-sample.XXXXXX` || exit 1
	trap 'rm -rf "$d"' EXIT
fi
if [ ! -f "$d/data.h5" ]; then
	"$hetui" simulate -c "$cfg" -o "$d/data.h5" --noise 0.01 --seed 7 \
	    -q || exit 1
fi
if [ -f "$d/out/hetui_results.h5" ] || [ -f "$d/out/hetui_checkpoint.h5" ]; then
	echo "resuming the run in $d/out"
	set -- --resume "$d/out"
else
	set -- -o "$d/out"
fi
t0=`date +%s.%N`
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f "cpu user %U s system %S s" -o "$d/time" \
	    "$hetui" sample -c "$cfg" "$d/data.h5" "$@" \
	    >"$d/summary" 2>>"$d/log"
	rc=$?
else
	"$hetui" sample -c "$cfg" "$d/data.h5" "$@" >"$d/summary" 2>>"$d/log"
	rc=$?
fi
t1=`date +%s.%N`
wall=`awk "BEGIN { print $t1 - $t0 }"`
echo "hetui sample exit $rc wall $wall s"
[ -f "$d/time" ] && sed 's/^/hetui sample /' "$d/time"
if [ -n "$keep" ]; then
	user=`sed -n 's/^cpu user \([0-9.]*\) s.*/\1/p' "$d/time" 2>/dev/null`
	echo "`date -u +%FT%TZ` exit $rc wall $wall user ${user:-?}" \
	    >>"$d/times"
	awk '{ n++; w += $5; u += $7 } END { printf "over %d calls: wall " \
	    "%.0f s, cpu user %.0f s\n", n, w, u }' "$d/times"
fi
cat "$d/summary"
[ $rc -le 4 ] || { tail -20 "$d/log"; exit 1; }
exit 0
