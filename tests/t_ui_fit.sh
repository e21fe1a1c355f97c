#!/bin/sh
# t_ui_fit.sh: the Fit panel (3) inside a private tmux server.
#   - the demo dataset with its configuration: r runs the fit to the end
#     and shows chi2, the parameters with uncertainties, the warnings,
#     the heatmaps and where the results went (a new folder for the run,
#     output_dir/<stem>/fit-<UTC time>; the files exist); [ ] changes the
#     angle; R refits from the result, into another folder; D0_ref of the
#     demo is degenerate: a dash in the Fit and Results panels, NaN in
#     the run history CSV;
#   - without output_dir in the config, one angle deselected: 7 angles
#     fitted, results in ./output/<stem>/fit-<UTC time>/;
#   - a slow fit (multistart on a larger simulated file): live iteration
#     and parameters, c cancels and the partial result is written; q
#     while a fit runs asks, n keeps it running, y quits with status 0
#     and no process left;
#   - 0 shows the Log (the last panel); r without a file says why;
#     ASCII mode at 80x24 (the chart and the table header in ASCII).
#
# Margins (issue 19, measured 2026-11-26 with `hetui fit -c demo.yaml
# --json`, the fit r runs): the demo data are a fixed file and the fit
# deterministic, so on another CPU only rounding moves it.  chi2_red
# 0.98677 against the pattern 0.9-0.999 (0.013 below 1; from 15 other
# starts chi2_red agreed to 5e-10); D0_sample 60019 (50000-69999) and
# alpha_sample -0.34971 (-0.3 to -0.399) moved by < 0.1 and < 4e-7 over
# those starts: both far inside.  D0_ref is degenerate (the data do not
# fix it, hence the dash): where the solver stops along the flat valley
# depends on its path.  From the config's start it stops at 9071.3;
# perturbing the start by 1e-10 to 1e-5 moves that continuously (by <
# 0.005), but from 1e-4 on the path can branch: starts 8950-9050 landed
# at 9005-9071 (mean 9055, sd 26), only 2.1 sd above the former
# pattern's floor 9000, so a rounding-flipped branch on another CPU
# could have left it.  The pattern is now 8000-9999: 39 sd below and 36
# sd above that scatter (and starts 8000-10000 landed at 8871-9840).
# The dash and the degenerate flag, the point of the check, are exact.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

cp "$top_srcdir/data/demo.yaml" "$top_srcdir/data/demo_results.hdf" \
    "$TAP_TMP/" || exit 1
cd "$TAP_TMP" || exit 1

# --- a fit to the end ------------------------------------------------------
tui_start 100 30 -- -c demo.yaml
wait_for 'sel 8/8'; ok $? "the demo opens with its 8 angles selected"
like "$TUI_SCREEN" ' 1 Data +2 Model +3 Fit .* [0-9] Log' "tabs: Data, Model, Fit, ..., Log last"
tui_keys 3
wait_for 'no fit yet'; ok $? "3 shows the Fit panel"
like "$TUI_SCREEN" 'r fits two_component' "it says what r fits"
tui_keys r
wait_for 'fit converged: chi2_red [0-9.]+, [0-9]+ iterations' 60
ok $? "r runs the fit to convergence"
like "$TUI_SCREEN" 'converged \((ftol|gtol|xtol|ftol_xtol)\) +[0-9]+ iterations' "the state line says converged"
like "$TUI_SCREEN" 'χ²_red 0\.9[0-9]*' "the reduced chi-square is shown (near 1)"
like "$TUI_SCREEN" 'Parameters +30 free' "the table counts 30 free parameters"
like "$TUI_SCREEN" 'name +value +± 1σ +flags' "with uncertainty column"
# alpha_ref = 0 in the demo's truth: D0_ref trades off with D_offset_ref
# (issue 17), so it has a dash, not a number, and the flag degenerate
like "$TUI_SCREEN" 'D0_ref +[89][0-9][0-9][0-9]\.[0-9]+ +— +degenerate' "D0_ref near the truth 9000 (8000-9999), no uncertainty: degenerate"
like "$TUI_SCREEN" 'D0_sample +[56][0-9][0-9][0-9][0-9]\.?[0-9]* +[0-9.]+ ' "D0_sample near the truth 60000, with an uncertainty"
like "$TUI_SCREEN" 'alpha_sample +-0\.3[0-9]+ +[0-9.e-]+ ' "alpha_sample near -0.35, with an uncertainty"
like "$TUI_SCREEN" 'data +model +residual' "the heatmaps are labelled"
like "$TUI_SCREEN" 'angle 1/8 +φ -157\.5°' "the heatmaps show angle 1"
like "$TUI_SCREEN" 'Warnings +[0-9]+' "the warnings are counted"
like "$TUI_SCREEN" 'strongly' "and given in words"
like "$TUI_SCREEN" "results: \\./hetui_output/demo_results/fit-[0-9]{8}-[0-9]{6}(-[0-9]+)?/ +\\(a new folder for this run\\)" \
    "where the results went: the run's own folder"
braille=$(printf '\342[\240-\243]')
printf '%s\n' "$TUI_SCREEN" | LC_ALL=C grep -q "$braille"
ok $? "the cost history is a braille chart"
run1=$(ls -d hetui_output/demo_results/fit-* 2>/dev/null)
ok "$([ -f "$run1/hetui_results.h5" ] && [ -f "$run1/nlsq_parameters.json" ] \
    && [ -f "$run1/nlsq_metadata.json" ]; echo $?)" "the results files exist"
tui_keys ']'
wait_for 'angle 2/8 +φ -112\.5°'; ok $? "] shows the next angle"
tui_keys '['
wait_for 'angle 1/8'; ok $? "[ goes back"
tui_keys Down Down
wait_for 'Parameters +30 free +3-'; ok $? "Down scrolls the table"
tui_keys R
wait_for 'fit started from the last result'; ok $? "R starts from the last result"
# Wait in the Log: the Fit panel still shows the first fit's "converged"
# while the second runs, so waiting there can end too early.
tui_keys 0
wait_for 'Session log'; ok $? "0 shows the Log (the last panel)"
wait_for '30 of 30 parameters started from the previous result' 60
ok $? "the Log says the warm start took every parameter"
wait_for 'fit converged: chi2_red' 10; ok $? "and converges"
like "$TUI_SCREEN" 'fit results written to \./hetui_output/demo_results/fit-' "and where the results went"
is "$(ls -d hetui_output/demo_results/fit-* | wc -l | tr -d ' ')" 2 "the refit has its own folder"
ok "$([ -f "$run1/hetui_results.h5" ]; echo $?)" "the first fit's results are still there"
# The run history keeps the degenerate D0_ref without a number: NaN in
# its CSV, a dash in the Results panel when the run is loaded.
tui_keys 5 w
wait_for 'run history \(2 runs\) saved to .*hetui_fit_history\.csv'
ok $? "w saves the run history"
csv=hetui_output/hetui_fit_history.csv
col=$(head -1 "$csv" | tr ',' '\n' | grep -nx 'D0_ref_sd' | cut -d: -f1)
is "$(sed -n 2p "$csv" | cut -d, -f"${col:-1}")" NaN "the CSV: D0_ref_sd is NaN (degenerate)"
col=$(head -1 "$csv" | tr ',' '\n' | grep -nx 'D0_sample_sd' | cut -d: -f1)
like "$(sed -n 2p "$csv" | cut -d, -f"${col:-1}")" '^[0-9.]+(e[-+][0-9]+)?$' "the CSV: D0_sample_sd is a number"
tui_keys Enter
wait_for 'run loaded from ' 20; ok $? "Enter loads the picked run"
like "$TUI_SCREEN" 'D0_ref +[89][0-9]{3}(\.[0-9]+)? +— *$' "the Results panel: D0_ref with a dash"
like "$TUI_SCREEN" 'D0_sample +[56][0-9]{4}(\.[0-9]+)? +[0-9.e+]+' "and D0_sample with its uncertainty"
tui_keys q
tui_wait_exit 10; ok $? "q quits when no fit runs"
is "$TUI_STATUS" 0 "exit status 0"

# --- the default output directory ------------------------------------------
sed '/^output:/,$d' demo.yaml > noout.yaml
tui_start 100 30 -- -c noout.yaml
wait_for 'sel 8/8'; ok $? "a config without output_dir"
tui_keys Space
wait_for 'sel 7/8'; ok $? "Space in the Data panel deselects the first angle"
tui_keys 3 r
wait_for 'fit converged' 60; ok $? "fits"
like "$TUI_SCREEN" 'Parameters +28 free' "7 angles: 14 + 2 x 7 free parameters (start values mapped by phi)"
like "$TUI_SCREEN" 'angle 1/7 +φ -112\.5°' "the heatmaps start at the first selected angle"
like "$TUI_SCREEN" "results: \\./output/demo_results/fit-[0-9]{8}-[0-9]{6}/" \
    "results go to ./output/<stem>/fit-<UTC time>/ (the default output_dir)"
ok "$([ -f output/demo_results/fit-*/nlsq_parameters.json ]; echo $?)" "and the files are there"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# --- a slow fit: live state, cancel, quit while running ---------------------
cat > big.yaml <<'YAML'
analysis_mode: two_component
experimental_data:
  file_path: big.h5
analyzer_parameters:
  dt: 0.1
  end_frame: 400
  scattering: {wavevector_q: 0.01, phi_angles: [0.0, 30.0, 60.0, 90.0]}
parameters:
  sample: {D0_sample: 3000.0, alpha_sample: -0.2}
  velocity: {v0: 50.0, v_offset: 5.0}
  fraction: {f0: 0.3, f1: 0.05, f2: 15.0, f3: 0.2}
optimization:
  nlsq: {max_nfev: 100000, max_iterations: 100000, multistart: true, multistart_n: 200}
output:
  output_dir: big_out
YAML
"$HETUI" simulate -q -c big.yaml -o big.h5 --noise 0.01
ok $? "simulated a larger file for a slow fit"
sed 's/D0_sample: 3000.0/D0_sample: 20000.0/' big.yaml > big_start.yaml
tui_start 100 30 -- -c big_start.yaml
wait_for 'sel 4/4'; ok $? "the slow fit's data open"
tui_keys 3 r
wait_for 'running +iteration [0-9]+ +start [0-9]+/200' 60; ok $? "live: iteration and start"
like "$TUI_SCREEN" 'Parameters +[0-9]+ free +.*\(live\)' "the table is live"
like "$TUI_SCREEN" 'name +value +start +flags' "with the start values"
like "$TUI_SCREEN" 'radius [0-9]' "the trust radius"
like "$TUI_SCREEN" 'step [0-9]' "the step norm"
like "$TUI_SCREEN" 'fitting ' "the tab bar says a fit runs"
tui_keys c
wait_for 'cancelling the fit|fit cancelled: chi2_red' 10; ok $? "c cancels (the message may already say it ended)"
wait_for 'fit cancelled: chi2_red' 60; ok $? "the fit ends as cancelled"
like "$TUI_SCREEN" 'cancelled \(cancelled\)' "the state line says cancelled"
like "$TUI_SCREEN" 'results: big_out/big/fit-' "the partial result is written"
grep -q '"status": "cancelled"' big_out/big/fit-*/nlsq_metadata.json
ok $? "its metadata says cancelled"

tui_keys r
wait_for 'running +iteration' 60; ok $? "another fit runs"
tui_keys q
wait_for 'Work is still running\. Quit anyway and stop it\? \(y/n\)'; ok $? "q asks while a fit runs"
tui_keys n
wait_for 'quit cancelled'; ok $? "n keeps running"
like "$TUI_SCREEN" 'running +iteration' "the fit goes on"
pid=$(tui_pid)
tui_keys q
wait_for 'Quit anyway and stop it'
tui_keys y
tui_wait_exit 30; ok $? "y quits"
is "$TUI_STATUS" 0 "exit status 0 after stopping the fit"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	ok 1 "no hetui process left (pid $pid still runs)"
else
	ok 0 "no hetui process left"
fi

# --- no file; ASCII at 80x24 -------------------------------------------------
tui_start 100 30 --
wait_for 'No file open'; ok $? "no file"
tui_keys 3 r
wait_for 'no file is open: start hetui with a result file'; ok $? "r says a file is needed"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# --- per-angle fits and multistart from the Fit panel (issue 20) -------------
tui_start 100 30 -- -c demo.yaml
wait_for 'sel 8/8'; ok $? "the demo again"
tui_keys 3 m
wait_for 'Multistart starts \(1: off\): 1'; ok $? "m asks for the starts, showing 1 (off)"
tui_text '0'; tui_keys Enter
wait_for 'refused: .*multistart_n'; ok $? "0 starts are refused, naming the key"
tui_keys m; tui_text '3'; tui_keys Enter
wait_for 'multistart: 3 starts \(the configured one'; ok $? "3 starts accepted"
tui_keys m; tui_text '1'; tui_keys Enter
wait_for 'multistart: 1 start \(off\)'; ok $? "and back to 1 (off)"
tui_keys p
wait_for 'next fits: every angle on its own'; ok $? "p: per angle"
tui_keys r
wait_for 'fit started per angle' 10; ok $? "the fit starts per angle"
wait_for 'per angle: angle 1/8' 120; ok $? "the result shows angle 1 of 8"
like "$TUI_SCREEN" 'Parameters +16 free' "one angle's parameters: 14 physics, its contrast and offset"
tui_keys ']'
wait_for 'per angle: angle 2/8'; ok $? "] shows the next angle's fit"
tui_keys p
wait_for 'next fits: all angles jointly'; ok $? "p again: jointly"
tui_keys q
wait_for 'unsaved edits .*Quit anyway\? \(y/n\)'
ok $? "the multistart edits count as unsaved configuration edits"
tui_keys y
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

tui_start 80 24 -- --ascii -c demo.yaml
wait_for 'sel 8/8'; ok $? "ASCII, 80x24"
tui_keys 3 r
wait_for 'fit converged' 60; ok $? "fits"
like "$TUI_SCREEN" 'name +value +\+- 1sigma +flags' "ASCII table header"
like "$TUI_SCREEN" 'chi2_red 0\.9' "ASCII chi2 label"
like "$TUI_SCREEN" '\*' "the chart draws with *"
printf '%s\n' "$TUI_SCREEN" | LC_ALL=C grep -q "$braille"
ok $((! $?)) "and no braille"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"
done_testing
