#!/bin/sh
# t_fuzz_replay.sh: every seed of tests/fuzz/<harness>/ and every crash
# reproducer of tests/fuzz/crashes/<harness>/* run through its fuzz
# harness in this (normal, non-libFuzzer) build: tests/fuzz/replay_<harness>
# must exit 0, so a fixed crash stays fixed and the seeds stay inputs the
# harness accepts.  `make fuzz` (./configure --enable-fuzzing) finds new
# ones; docs/design.md says how a crash becomes a file here.
. "$top_srcdir/tests/tap.sh"
plan_lazy

fz="$top_srcdir/tests/fuzz"
for h in dataset config wire npy rings; do
	n=0
	for f in "$fz/$h"/* "$fz/crashes/$h"/*; do
		[ -f "$f" ] || continue
		case $f in */README*) continue ;; esac
		n=$((n + 1))
		run_capture "$top_builddir/tests/fuzz/replay_$h" "$f"
		ok "$RUN_RC" "replay_$h ${f#"$fz"/}"
		[ "$RUN_RC" -eq 0 ] || diag "$RUN_ERR"
	done
	[ "$n" -gt 0 ]
	ok $? "tests/fuzz/$h has seeds"
done

done_testing
