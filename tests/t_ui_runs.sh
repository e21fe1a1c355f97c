#!/bin/sh
# t_ui_runs.sh: two fits and a sampling run in one workstation session
# (issue 19: nothing overwritten, nothing lost), on the data of
# tests/configs/sample_truth.yaml with tests/configs/sample_run.yaml at
# the default output settings.  Checks: each run lands in its own folder
# output_dir/<stem>/<fit|sample>-<UTC time>, the Results panel's run
# history lists the three runs and w saves them with each row pointing at
# its folder (which holds that run's results); [ ] pick a run, Enter
# loads it from its folder (a fit: its parameters; the sampling run: the
# posterior mean and sd beside the NLSQ values), x returns to the
# posterior.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

dir=$TAP_TMP
cp "$top_srcdir/tests/configs/sample_truth.yaml" "$dir/" || exit 1
cd "$dir" || exit 1
"$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 --noise 0.003 --seed 11
ok $? "simulate the test data"
sed -e '/create_subdirs: false/d' -e '/timestamp_dirs: false/d' \
    -e "s#output_dir: res\$#output_dir: $dir/out#" \
    "$top_srcdir/tests/configs/sample_run.yaml" >runs.yaml

tui_start 100 30 HETUI_WORKER="$HETUI_WORKER" -- -c runs.yaml sim.h5
wait_for 'c2 = '; ok $? "the data open"
tui_keys 3 r
wait_for 'converged \(' 60; ok $? "fit 1 converges"
tui_keys 5
wait_for 'Run history +1 run +picked: [^ ]*/out/sim/fit-'; ok $? "the history lists it with its folder"
tui_keys 3 r
tui_keys 5
wait_for 'Run history +2 runs' 60; ok $? "fit 2 converges: two runs"
tui_keys 4 r
tui_keys 5
wait_for 'Run history +3 runs' 180; ok $? "the sampling run ends: three runs"
like "$TUI_SCREEN" 'sim\.h5 +sample +passed' "the sampling run's row"
is "$(printf '%s\n' "$TUI_SCREEN" | grep -cE 'sim\.h5 +fit +converged')" 2 "and the two fits' rows"
like "$TUI_SCREEN" 'picked: [^ ]*/out/sim/sample-[0-9]{8}-[0-9]{6}' "the newest is picked: the sampling run's folder"
like "$TUI_SCREEN" 'written: [^ ]*/out/sim/sample-[0-9]{8}-[0-9]{6}[-0-9]*/ \(hetui_results\.h5' "the posterior's files, in that folder"

tui_keys w
wait_for 'run history \(3 runs\) saved to .*/out/hetui_fit_history\.csv'; ok $? "w saves the history in output_dir"
csv=out/hetui_fit_history.csv
dirs=$(tail -n +2 "$csv" | awk -F, '{print $9}')
is "$(printf '%s\n' "$dirs" | sort -u | wc -l | tr -d ' ')" 3 "three rows, three distinct folders"
n=0
for d in $dirs; do
	[ -f "$d/hetui_results.h5" ] && [ -f "$d/nlsq_parameters.json" ] && n=$((n + 1))
done
is "$n" 3 "each folder holds its run's results"
like "$(tail -n 1 "$csv" | awk -F, '{print $3 " " $9}')" "^sample $dir/out/sim/sample-" "the sampling row points at the sample-* folder"
is "$(ls out/sim | wc -l | tr -d ' ')" 3 "output_dir/sim/ has the three run folders, nothing else"
fit1=$(sed -n 2p "$csv" | awk -F, '{print $9}')
chi1=$(sed -n 2p "$csv" | awk -F, '{print $6}')

# --- pick and load a run --------------------------------------------------
tui_keys ']'
wait_for 'picked: [^ ]*/out/sim/fit-'; ok $? "] picks the previous run (fit 2)"
tui_keys ']' ']'
wait_for "picked: $fit1/"; ok $? "] again: fit 1 (the oldest; ] stops there)"
tui_keys Enter
wait_for "run loaded from $fit1/" 20; ok $? "Enter loads fit 1 from its folder"
like "$TUI_SCREEN" "run $fit1/ +fit +converged +chi2_red [0-9.]+" "its header: folder, fit, status, chi2"
like "$TUI_SCREEN" 'parameter +value +uncertainty' "its table"
like "$TUI_SCREEN" 'D0_ref +[45][0-9]{3}(\.[0-9]+)? +[0-9.e+]+' "D0_ref near the truth 5000, as the file says"
chs=$(printf '%.4g' "$chi1")
like "$TUI_SCREEN" "chi2_red ${chs%%[0-9]}" "chi2_red as in the CSV ($chs)"
tui_keys x
wait_for 'Results +posterior of sim\.h5'; ok $? "x returns to the posterior"
like "$TUI_SCREEN" 'parameter +mean +sd' "the posterior table again"
tui_keys Home Enter
wait_for 'run loaded from [^ ]*/sample-' 20; ok $? "Home, Enter loads the sampling run"
like "$TUI_SCREEN" 'parameter +NLSQ +uncertainty +posterior mean +sd' "NLSQ beside the posterior"
like "$TUI_SCREEN" 'D0_ref +[45][0-9.e+]+ +[0-9.e+]+ +[45][0-9.e+]+ +[0-9.e+]+' "D0_ref: NLSQ and posterior mean near 5000"

# --- a run whose folder went away -------------------------------------------
rm -rf "$fit1"
tui_keys ']' ']' Enter
wait_for 'not loaded' 20; ok $? "a removed run folder: not loaded"
like "$TUI_SCREEN" 'hetui_results\.h5' "... the message names the file"
tui_keys q
tui_wait_exit 20; is "$TUI_STATUS" 0 "q exits 0"

done_testing
