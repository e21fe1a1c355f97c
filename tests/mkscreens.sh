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
tui_keys x 3
wait_for 'Session log' || exit 1
save log
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
