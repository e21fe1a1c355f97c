#!/bin/sh
# t_ui_fit_window.sh: what the Fit panel says about the data a fit used
# (issue 19, defects found in the tour): the frames and angles of the
# shown fit stay in its title when the Data panel's window changes
# afterwards, and the early-window pre-fit of a long series is labelled
# as the CLI labels it ("started from a pre-fit of the first W frames"),
# on the panel and in the log, so the restarted iteration counter and the
# jump of the cost do not look like a divergence; c pressed while the fit
# ends leaves no "cancelling" beside "converged".
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

dir=$TAP_TMP
cd "$dir" || exit 1
sed -e 's/end_frame: 50/end_frame: 700/' \
    "$top_srcdir/tests/configs/sample_truth.yaml" >long.yaml
"$HETUI" simulate -q -c long.yaml -o long.h5 --noise 0.003 --seed 7
ok $? "simulate 700 frames (a pre-fit of the first 300 runs from 600)"
sed -e 's/D0_ref: {value: 5000.0}/D0_ref: {value: 14000.0}/' \
    -e 's/end_frame: 700/end_frame: 690/' \
    -e 's/start_frame: 1/start_frame: 20/' long.yaml >start.yaml
printf 'output:\n  output_dir: %s/out\n' "$dir" >>start.yaml

tui_start 100 30 -- -c start.yaml long.h5
wait_for 'frames 20–690'; ok $? "the config's window 20-690 is selected"
tui_keys 3 r
wait_for 'fit converged' 120; ok $? "the fit converges"
like "$TUI_SCREEN" 'Fit +long\.h5 +frames 20–690 +1 φ' "the title names the frames and angles fitted"
like "$TUI_SCREEN" 'pre-fit +(first )?300 fr, [0-9]+ it\. ' "the panel says it started from a pre-fit of 300 frames"
tui_keys 1 w; tui_text '30,600'; tui_keys Enter
wait_for 'frame window set to 30,600'; ok $? "the Data panel's window changes"
tui_keys 3
wait_for 'Fit +long\.h5'; ok $? "back on the Fit panel"
like "$TUI_SCREEN" 'Fit +long\.h5 +frames 20–690 +1 φ' "it still names the frames of the shown fit"
tui_keys 0
wait_for 'Session log'; ok $? "the Log"
like "$TUI_SCREEN" 'fit: started from a pre-fit of the first 300 frames \([0-9]+ iterations?\)' \
    "the log has the CLI's sentence"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# While the pre-fit runs the state line says so.  Eight angles of 1000
# frames make the pre-fit last long enough to be seen (seconds); should
# the fit be over before the first look, there is nothing to check.
sed -e 's/end_frame: 300/end_frame: 1000/' \
    -e 's/file_path: demo_results.hdf/file_path: demo1000.h5/' \
    -e "s#output_dir: .*#output_dir: $dir/out#" \
    "$top_srcdir/data/demo.yaml" >demo1000.yaml
"$HETUI" simulate -q -c demo1000.yaml -o demo1000.h5 --noise 0.01 --seed 3
ok $? "simulate the demo's model on 8 angles of 1000 frames"
tui_start 100 30 -- -c demo1000.yaml
wait_for 'sel 8/8'; ok $? "its 8 angles open"
tui_keys 3 r
# The first iterating state seen: the pre-fit's, or (missed) the fit
# proper's, which then says the pre-fit is done.  Unlabelled, the pre-fit
# showed "running  iteration 1" with nothing about a pre-fit.
wait_for 'pre-fit of the early frames +iteration [0-9]+|running +iteration [1-9]|fit converged' 120
if printf '%s\n' "$TUI_SCREEN" | grep -q 'pre-fit of the early frames'; then
	ok 0 "the state line names the pre-fit while it runs"
elif printf '%s\n' "$TUI_SCREEN" | grep -qE 'pre-fit +done, [0-9]+ it\.|fit converged'; then
	skip 1 "the pre-fit was over before the screen was read"
else
	ok 1 "the state line names the pre-fit while it runs"
fi
wait_for 'fit (converged|did not converge)' 120; ok $? "the fit ends"
like "$TUI_SCREEN" 'pre-fit +(first )?300 fr, [0-9]+ it\. ' "and says it started from a pre-fit"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# c while the fit ends (its last iteration, or the writing of its results:
# 1500 frames give a writing phase long enough to catch) must not leave
# "cancelling" on the screen beside "converged".
sed -e 's/end_frame: 700/end_frame: 1500/' long.yaml >wide.yaml
"$HETUI" simulate -q -c wide.yaml -o wide.h5 --noise 0.003 --seed 7
ok $? "simulate 1500 frames"
sed -e 's/D0_ref: {value: 5000.0}/D0_ref: {value: 4000.0}/' wide.yaml >ws.yaml
printf 'output:\n  output_dir: %s/out\n' "$dir" >>ws.yaml
tui_start 100 30 -- -c ws.yaml wide.h5
wait_for 'frames 1–1500'; ok $? "the 1500 frames open"
tui_keys 3 r
if wait_for 'writing the results' 60; then
	tui_keys c
	wait_for 'fit converged' 60; ok $? "the fit ends converged"
	unlike "$TUI_SCREEN" 'cancelling' "no 'cancelling' beside 'converged'"
	tui_keys 0
	wait_for 'Session log'; ok $? "the Log"
	like "$TUI_SCREEN" 'the fit has ended; its results are being written|fit converged before the cancel took effect' \
	    "c is answered with what happened"
else
	skip 3 "the writing phase was too short to press c in it"
fi
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"
done_testing
