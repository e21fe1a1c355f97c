#!/bin/sh
# sample_run.sh: the `make bench` run of a full `hetui sample` on the
# 300-frame x 8-angle problem of bench/cmc_sample.yaml (docs/
# PERFORMANCE.md, section CMC).  Simulates the data with `hetui
# simulate` (noise 0.01, seed 7), then times `hetui sample` (NLSQ, then
# CMC over the config's shards, one worker per core) and prints its
# exit status, wall time, the CPU time of it and its workers, and its
# summary.  Usage: sample_run.sh HETUI CONFIG
# Skips (status 0) when the binary has no `sample` command.
hetui=$1
cfg=$2
if ! "$hetui" sample --help >/dev/null 2>&1; then
	echo "== hetui sample: not in this build, skipped"
	exit 0
fi
d=`mktemp -d /tmp/hetui-bench-sample.XXXXXX` || exit 1
trap 'rm -rf "$d"' EXIT
"$hetui" simulate -c "$cfg" -o "$d/data.h5" --noise 0.01 --seed 7 -q ||
    exit 1
t0=`date +%s.%N`
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f "cpu user %U s system %S s" -o "$d/time" \
	    "$hetui" sample -c "$cfg" "$d/data.h5" -o "$d/out" \
	    >"$d/summary" 2>"$d/log"
	rc=$?
else
	"$hetui" sample -c "$cfg" "$d/data.h5" -o "$d/out" \
	    >"$d/summary" 2>"$d/log"
	rc=$?
fi
t1=`date +%s.%N`
echo "hetui sample exit $rc wall `awk "BEGIN { print $t1 - $t0 }"` s"
[ -f "$d/time" ] && sed 's/^/hetui sample /' "$d/time"
cat "$d/summary"
[ $rc -le 4 ] || { tail -20 "$d/log"; exit 1; }
exit 0
