#!/bin/sh
# t_output_faults.sh: `hetui fit -o DIR` and `hetui sample -o DIR` when the
# output folder cannot take the results.
#  - A full disk (a 200 KB tmpfs, mostly filled first): each prints "No
#    space left on device" and exits 1.  Before the fix both died with
#    SIGSEGV (exit 139) at exit, in libhdf5's clean-up of the file whose
#    close had failed (H5_term_library -> H5F__close_cb, HDF5 1.10).
#  - A read-only folder (a read-only tmpfs, which refuses root too): each
#    says so before any work (no data read, no NLSQ, no shard) and exits
#    1, and never prints "results written".
# Mounting needs root (as in CI); without it the test skips and says why.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"

sample_setup t_disk_full
cp "$top_srcdir/tests/configs/fit_truth.yaml" \
    "$top_srcdir/tests/configs/fit_start.yaml" "$dir/"
mkdir tiny
if ! mount -t tmpfs -o size=200k tmpfs tiny 2>mount.err; then
	skip_all "cannot mount a 200 KB tmpfs here ($(head -n 1 mount.err)); the test needs root"
fi
mkdir ro
if ! mount -t tmpfs -o ro,size=64k tmpfs ro 2>mount.err; then
	umount tiny
	skip_all "cannot mount a read-only tmpfs here ($(head -n 1 mount.err))"
fi
trap 'umount "$dir/tiny" "$dir/ro" 2>/dev/null; rm -rf "$TAP_TMP"' EXIT
plan_lazy

# leave about 50 KB: less than either result file needs
fill() {
	rm -rf tiny/*
	head -c 150000 /dev/zero >tiny/fill 2>/dev/null
}

run_capture "$HETUI" simulate -q -c fit_truth.yaml -o fit_sim.h5 \
    --noise 0.002 --seed 7
is "$RUN_RC" 0 "simulate the fit data"
fill
run_capture "$HETUI" fit -c fit_start.yaml -o tiny/fit
is "$RUN_RC" 1 "fit on a full disk: exit 1, not a crash (139)"
like "$RUN_ERR" "^hetui fit: error: .*No space left on device" \
    "fit: the error says the disk is full"
unlike "$RUN_OUT" "results written" "fit: no claim that results were written"
is "$(ls -A tiny/fit 2>/dev/null | grep -c tmp)" 0 "fit: no temporary file left"

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the sampling data"
fill
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c sample_run.yaml \
    -o tiny/sample --workers 2
is "$RUN_RC" 1 "sample on a full disk: exit 1, not a crash (139)"
like "$RUN_ERR" "^hetui sample: error: .*No space left on device" \
    "sample: the error says the disk is full"
unlike "$RUN_OUT" "results written to tiny/sample/ \\(\\)" \
    "sample: no 'results written ... ()' when nothing was written"
is "$(leftover)" 0 "no worker left behind"

# --- a read-only output folder: refused before any work -------------------
run_capture "$HETUI" fit -c fit_start.yaml -o ro/fit
is "$RUN_RC" 1 "fit into a read-only folder: exit 1"
like "$RUN_ERR" "^hetui fit: error: the output directory ro/fit is not writable: a file cannot be created in ro: Read-only file system; choose a writable folder" \
    "fit: the error names the folder, the reason and what to do"
unlike "$RUN_ERR" "reading bin" "fit: refused before reading any data"
unlike "$RUN_OUT" "results written" "fit: no claim that results were written"
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c sample_run.yaml \
    -o ro --workers 2
is "$RUN_RC" 1 "sample into a read-only folder: exit 1"
like "$RUN_ERR" "^hetui sample: error: the output directory ro is not writable: a file cannot be created in ro: Read-only file system" \
    "sample: the error names the folder and the reason"
unlike "$RUN_ERR" "NLSQ|sampling|reading data" \
    "sample: refused before reading data, NLSQ or any shard"
unlike "$RUN_OUT" "results written" "sample: no claim that results were written"
is "$(leftover)" 0 "no worker started"

done_testing
