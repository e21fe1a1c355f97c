#!/bin/sh
# mkscreens.sh: refresh docs/screens/*.txt, text captures of each panel of
# the workstation at 100x30 (run by `make screens`).  Uses the tmux
# helpers of the UI tests; the captures are what the tests see.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"

sdir=${SCREENS_DIR:-$top_srcdir/docs/screens}
mkdir -p "$sdir" || exit 1
fx="$TAP_TMP/run42_results.hdf"
tui_fixture "$fx" --frames 400 --nq 4 --nphi 12 || exit 1

save() {
	tui_screen > "$sdir/$1.txt"
	echo "  wrote $sdir/$1.txt"
}

tui_start 100 30 -- "$fx"
wait_for 'c2 = ' || exit 1
save data
tui_keys Down Down Enter l l l l k k L
wait_for 'log +cursor' || exit 1
save data-log-cursor
tui_keys Escape '?'
wait_for 'Help: Data' || exit 1
save data-help
tui_keys x 0
wait_for 'Session log' || exit 1
save log
tui_keys q
tui_wait_exit 10

# The Data panel's multitau view (issue 20): a multitau-only file, its
# g2 with the fit, the stretched fits' rates against q^2 with D.
mt="$TAP_TMP/mt_results.hdf"
"$top_builddir/tests/mkmultitau" "$mt" --sigma 0.006 || exit 1
tui_start 100 30 -- "$mt"
wait_for 'χ²/ν' || exit 1
tui_keys j j
wait_for 'g2\(τ\) #3' || exit 1
save data-multitau
tui_keys s d
wait_for 'vs q²' || exit 1
save data-multitau-rates
tui_keys q
tui_wait_exit 10

# The Model panel with the demo configuration (the data file given too).
cfg=$top_srcdir/data/demo.yaml
tui_start 100 30 -- -c "$cfg" "$fx"
wait_for 'c2 = ' || exit 1
tui_keys 2
wait_for 'Model +config demo\.yaml' || exit 1
save model
tui_keys l l Enter
wait_for 'D0_ref max:' || exit 1
tui_text '5000'
tui_keys Enter
wait_for 'refused: D0_ref\.value' || exit 1
save model-refused
tui_keys m
wait_for 'Analysis mode' || exit 1
save model-modes
tui_keys q
tui_wait_exit 10

# The Fit panel: the demo dataset fitted with its configuration (in a
# scratch directory, where the configuration's output_dir is created).
cp "$top_srcdir/data/demo.yaml" "$top_srcdir/data/demo_results.hdf" \
    "$TAP_TMP/" || exit 1
here=$(pwd)
cd "$TAP_TMP" || exit 1
tui_start 100 30 -- -c demo.yaml
wait_for 'sel 8/8' || exit 1
tui_keys 3
wait_for 'no fit yet' || exit 1
save fit-idle
tui_keys r
wait_for 'fit converged' 60 || exit 1
save fit
# the fitted model over the cut at the cursor's age
tui_keys 1 Enter l l l l l c
wait_for '◆ model' || exit 1
save data-cuts-model
tui_keys q
tui_wait_exit 10
tui_start 80 24 -- --ascii -c demo.yaml
wait_for 'sel 8/8' || exit 1
tui_keys 3 r
wait_for 'fit converged' 60 || exit 1
save fit-80x24-ascii
tui_keys q
tui_wait_exit 10
cd "$here" || exit 1

# The Sampling and Results panels: the simulated file of tests/t_sample.sh
# sampled with tests/configs/sample_run.yaml (2 shards, 2 chains of
# 300 + 100) by the real hetui-worker, in a scratch directory.
cp "$top_srcdir/tests/configs/sample_truth.yaml" \
    "$top_srcdir/tests/configs/sample_run.yaml" "$TAP_TMP/" || exit 1
cd "$TAP_TMP" || exit 1
"$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 --noise 0.003 \
    --seed 11 || exit 1
tui_start 100 30 HETUI_WORKER="$HETUI_WORKER" -- -c sample_run.yaml sim.h5
wait_for 'c2 = ' || exit 1
tui_keys 4
wait_for 'Settings' || exit 1
save sampling-settings
tui_keys r
wait_for 'gates passed: every shard' 120 || exit 1
save sampling
tui_keys 5
wait_for 'Results +posterior' || exit 1
save results
tui_keys q
tui_wait_exit 10
tui_start 80 24 HETUI_WORKER="$HETUI_WORKER" -- --ascii -c sample_run.yaml \
    sim.h5
wait_for 'c2 = ' || exit 1
tui_keys 4 r
wait_for 'gates passed: every shard' 120 || exit 1
save sampling-80x24-ascii
tui_keys 5
wait_for 'Results +posterior' || exit 1
save results-80x24-ascii
tui_keys q
tui_wait_exit 10
cd "$here" || exit 1

# The Fit panel's batch of every q ring (e) on the three-ring file of
# tests/t_fit_rings.sh, in a scratch directory.
. "$top_srcdir/tests/batch_data.sh"
cd "$TAP_TMP" || exit 1
batch_configs && batch_rings || exit 1
tui_start 100 30 -- -c rings_start.yaml rings.h5
wait_for 'c2 = ' || exit 1
tui_keys 3 e
wait_for 'Batch +converged' 120 || exit 1
save fit-batch-rings
tui_keys q
tui_wait_exit 10
cd "$here" || exit 1

tui_start 80 24 -- --ascii -c "$cfg" "$fx"
wait_for 'c2 = ' || exit 1
tui_keys 2
wait_for 'Model +config' || exit 1
save model-80x24-ascii
tui_keys q
tui_wait_exit 10

tui_start 100 30 -- --ascii "$fx"
wait_for 'c2 = ' || exit 1
save data-ascii
tui_keys q
tui_wait_exit 10

tui_start 80 24 -- "$fx"
wait_for 'c2 = ' || exit 1
save data-80x24
tui_keys q
tui_wait_exit 10

tui_start 100 30 --
wait_for 'No file open' || exit 1
save data-nofile
tui_keys q
tui_wait_exit 10
exit 0
