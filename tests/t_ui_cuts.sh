#!/bin/sh
# t_ui_cuts.sh: the Data panel's time views at 80x24 and 160x50 (issue
# 20): the time axis in seconds under the heatmap (frame f at f dt, as
# the model and hetui report place it), the read-out of t1,
# t2, age and lag, the cuts at the cursor's age and lag (key c), frame
# numbers on demand (f), and zooming in and back out (z, Z), whose
# title names the frames shown.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

fx="$TAP_TMP/run42_results.hdf"
tui_fixture "$fx" --frames 120 --nq 1 --nphi 2
ok $? "fixture written (120 frames of 0.01 s)"

for size in "80 24" "160 50"; do
	set -- $size
	tui_start "$1" "$2" -- "$fx"
	wait_for "$1x$2"; ok $? "$1x$2: started"
	wait_for '│ 0\.01 s .* 1\.2 s t1, t2'
	ok $? "$1x$2: the time axis runs from 0.01 s to 1.2 s (frame f at f dt)"
	tui_keys Enter
	wait_for 'age [0-9.]+ s +lag [0-9.]+ s'
	ok $? "$1x$2: read-out with age and lag"
	tui_keys l l l l l
	wait_for 'lag 0\.[0-9]+ s'; ok $? "$1x$2: off the diagonal, a lag"
	tui_keys c
	wait_for 'g2\(τ\) at age [0-9.]+–[0-9.]+ s'
	ok $? "$1x$2: c: the cut at the cursor's age"
	tui_keys c
	wait_for 'c2 at lag 0\.[0-9]+ s against age'
	ok $? "$1x$2: c: the cut at the cursor's lag"
	tui_keys f
	wait_for 'lag [0-9]+ fr'; ok $? "$1x$2: f: frames"
	tui_keys f z
	wait_for 'zoom: frames [0-9]+-[0-9]+'; ok $? "$1x$2: z: zoomed"
	wait_gone '│ 0\.01 s '; ok $? "$1x$2: the axis starts later in the zoom"
	if [ "$1" -ge 100 ]; then
		like "$TUI_SCREEN" 'lin +zoom [0-9]+–[0-9]+' \
		    "$1x$2: the title names the frames shown"
	fi
	tui_keys Z
	wait_for 'zoom out: the whole frame window'
	ok $? "$1x$2: Z: the whole window again"
	wait_for '│ 0\.01 s '; ok $? "$1x$2: the axis starts at 0.01 s again"
	tui_keys q
	tui_wait_exit; ok $? "$1x$2: q quits"
done
done_testing
