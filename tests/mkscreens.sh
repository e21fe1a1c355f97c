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
tui_keys x Tab
wait_for 'Session log' || exit 1
save log
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
