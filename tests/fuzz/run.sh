#!/bin/sh
# run.sh: one harness of `make fuzz` (./configure --enable-fuzzing).
#
#   run.sh N HARNESS SECONDS OUT SRCDIR
#
# Runs tests/fuzz/fuzz_HARNESS under libFuzzer for SECONDS in fork mode
# (crashes, leaks, timeouts of 20 s and out-of-memory at 2 GB are kept as
# OUT/HARNESS/crash-* (leak-, timeout-, oom-) and fuzzing goes on), on a
# fresh corpus in OUT/HARNESS/corpus seeded from SRCDIR/tests/fuzz/HARNESS
# and the reproducers of SRCDIR/tests/fuzz/crashes/HARNESS.  Then each
# kept input is run again to see where it crashes: a crash whose stack
# reaches hetui's code only through libhdf5 (the fault is inside libhdf5,
# which hetui cannot fix; tests/fuzz/crashes/README.md) is reported as
# "# upstream" and counted as an expected failure (XFAIL); any other is a
# failure.  Prints TAP line N and writes OUT/fuzz_HARNESS.trs for the CI
# count.  Exit status 1 when hetui crashed.
n=$1 h=$2 secs=$3 out=$4 src=$5
bin=tests/fuzz/fuzz_$h
d=$out/$h
rm -rf "$d"
mkdir -p "$d/corpus"
trs=$out/fuzz_$h.trs
: >"$trs"
set -- "$d/corpus" "$src/tests/fuzz/$h"
[ -d "$src/tests/fuzz/crashes/$h" ] && set -- "$@" "$src/tests/fuzz/crashes/$h"
# A malloc too large returns NULL, as glibc does, instead of stopping ASan.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp
export OPENBLAS_NUM_THREADS=1
# fuzz_dataset's input files (in memory when /dev/shm is there), removed
# at the end with those of the inputs that crashed.
tmp=$(mktemp -d /dev/shm/hetui-fuzz.XXXXXX 2>/dev/null || mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
"$bin" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="$d/" "$@" >"$d/log" 2>&1
rc=$?
runs=$(sed -n 's/^#\([0-9][0-9]*\): cov.*/\1/p' "$d/log" | tail -n 1)
bad=0 upstream=0
for f in "$d"/crash-* "$d"/leak-* "$d"/timeout-* "$d"/oom-*; do
	[ -f "$f" ] || continue
	# An out-of-memory input is replayed with a 256 MB limit on single
	# allocations and room for 4 GB of RSS, so that the replay stops at
	# the first large malloc with its stack (whose frames say hetui or
	# libhdf5) before the process's RSS, which a corrupt file can make
	# libhdf5 grow ahead of its one huge request, trips the RSS limit
	# (whose report lists live allocations, not the culprit).
	case $f in
	*/oom-*) lim="-malloc_limit_mb=256" rss=4096 ;;
	*) lim= rss=2048 ;;
	esac
	"$bin" -timeout=20 -rss_limit_mb=$rss $lim "$f" >"$f.log" 2>&1
	# the frames of the first report, up to the first frame in hetui
	where=$(grep -E '^ +#[0-9]+ ' "$f.log" | awk '
	    /#0 / && seen++ { exit }
	    / in (het_|LLVMFuzzerTestOneInput)/ { print "hetui"; exit }
	    /libhdf5/ { print "libhdf5"; exit }')
	if [ "$where" = libhdf5 ]; then
		upstream=$((upstream + 1))
		echo "# upstream: $f crashes inside libhdf5 ($(grep -m 1 SUMMARY "$f.log"))"
		echo ":test-result: XFAIL" >>"$trs"
	else
		bad=$((bad + 1))
		echo "# hetui: $f (replay: tests/fuzz/replay_$h $f)"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:| +#[0-9] )' "$f.log" |
		    head -n 12 | sed 's/^/#   /'
	fi
done
if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && [ "$upstream" -eq 0 ]; then
	bad=1
	echo "# libFuzzer exited $rc without a kept input; last lines of $d/log:"
	tail -n 10 "$d/log" | sed 's/^/#   /'
fi
if [ "$bad" -eq 0 ]; then
	echo ":test-result: PASS" >>"$trs"
	echo "ok $n - fuzz_$h: ${runs:-?} runs in $secs s, no crash in hetui" \
	    "($upstream inside libhdf5)"
	exit 0
fi
echo ":test-result: FAIL" >>"$trs"
echo "not ok $n - fuzz_$h: $bad crash(es) in hetui, $upstream inside libhdf5"
exit 1
