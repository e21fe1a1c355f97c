#!/bin/sh
# t_ui_refit.sh: the quick refit between two measurements, as a
# scientist does it at the console: fit the first file of a run folder,
# open the next measurement from the browser (o), refit it starting from
# the previous result (R), and see both fits side by side in the
# Results panel's history, then save the history as CSV.
#
# Margins (issue 19, 2026-11-26): no statistic is asserted.  Both data
# files are fixed (simulate --seed 1 and 2) and the checks are that each
# fit converges (any convergence reason, any chi2 number), the history
# counts and the files: exact on any CPU.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

runs="$TAP_TMP/runs"
mkdir -p "$runs"
cfg="$TAP_TMP/refit.yaml"
cat >"$cfg" <<YAML
analysis_mode: static_ref
analyzer_parameters:
  dt: 0.1
  start_frame: 1
  end_frame: 50
  scattering:
    wavevector_q: 0.01
    phi_angles: [30.0]
parameters:
  reference:
    D0_ref: {value: 5000.0, min: 100.0, max: 100000.0}
    alpha_ref: {value: 0.3, min: -1.0, max: 1.0}
    D_offset_ref: {value: 0.0, vary: false}
initial_parameters:
  per_angle_scaling:
    contrast: [0.3]
    offset: [1.0]
optimization:
  nlsq:
    loss: linear
    per_angle_mode: individual
output:
  output_dir: $TAP_TMP/out
YAML
"$HETUI" simulate -q -c "$cfg" -o "$runs/meas01.h5" --noise 0.003 --seed 1
ok $? "first measurement simulated"
"$HETUI" simulate -q -c "$cfg" -o "$runs/meas02.h5" --noise 0.003 --seed 2
ok $? "second measurement simulated"
TZ=UTC touch -d '2026-01-01 10:00:00' "$runs/meas01.h5"
TZ=UTC touch -d '2026-01-01 10:05:00' "$runs/meas02.h5"

tui_start 100 30 -- -c "$cfg" "$runs/meas01.h5"
wait_for 'meas01\.h5 +aps-u'; ok $? "the first measurement opens"
tui_keys 3 r
wait_for 'converged \([a-z_]+\) +[0-9]+ iterations' 60; ok $? "its fit converges"

tui_keys o
wait_for 'meas02\.h5 +2026-01-01 10:05:00'; ok $? "o lists the next measurement first"
tui_keys Home Down Enter
wait_for 'meas02\.h5 +aps-u'; ok $? "Home, Down (the newest file) and Enter open it"
tui_keys 3 R
# The status line is transient (a 3-iteration refit replaces it within a
# redraw); the Log panel keeps every message.
tui_keys 0
wait_for 'fit started from the last result'; ok $? "R starts from the previous result"

tui_keys 5
wait_for 'Run history +2 runs' 60
ok $? "the refit converges: the Results panel lists two runs"
like "$TUI_SCREEN" 'meas01\.h5 +fit +converged +[0-9.]+' "the first fit's row"
like "$TUI_SCREEN" 'meas02\.h5 +fit +converged +[0-9.]+' "the refit's row"
tui_keys w
wait_for 'run history \(2 runs\) saved to .*hetui_fit_history\.csv'
ok $? "w saves both"
csv="$TAP_TMP/out/hetui_fit_history.csv"
is "$(grep -c 'meas0[12]\.h5' "$csv" 2>/dev/null)" 2 "the CSV has a row per fit"
d1=$(grep 'meas01\.h5' "$csv" | sed -n "s#.*,\($TAP_TMP/out/meas01/fit-[0-9-]*\),.*#\1#p")
d2=$(grep 'meas02\.h5' "$csv" | sed -n "s#.*,\($TAP_TMP/out/meas02/fit-[0-9-]*\),.*#\1#p")
ok "$([ -f "$d1/hetui_results.h5" ] && [ -f "$d2/hetui_results.h5" ]; echo $?)" \
    "each row points at its own run folder, output_dir/<stem>/fit-<time>, with its results"

pid=$(tui_pid)
tui_keys q
tui_wait_exit 10; ok $? "q quits"
is "$TUI_STATUS" 0 "exit status 0"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	ok 1 "no hetui process left (pid $pid still runs)"
else
	ok 0 "no hetui process left"
fi
done_testing
