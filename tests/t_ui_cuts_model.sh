#!/bin/sh
# t_ui_cuts_model.sh: the fitted model over the Data panel's cuts (issue
# 20), at 80x24 and 160x50, on the demo dataset.  Before a fit the cut at
# the cursor's age shows the data alone and says "no fit yet"; after r in
# the Fit panel the model's points (◆, + in ASCII) lie over the bars in
# both cuts, with the legend "◆ model".  At 160x50 also: the Log names
# the fit's folder; an angle the latest fit left out says "angle
# not fit" and has no point; picking the earlier fit of every angle in
# the Results panel (Enter) draws its model there again; the one-time
# chart has no legend.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

cp "$top_srcdir/data/demo.yaml" "$top_srcdir/data/demo_results.hdf" \
    "$TAP_TMP/" || exit 1
cd "$TAP_TMP" || exit 1

# The chart's three rows: the lines below the cut's title, up to the
# status line (the chart's column only: after the separator).
chart_rows() {
	printf '%s\n' "$TUI_SCREEN" | awk -v re="$1" '
	    n > 0 && n <= 3 { sub(/^[^│|]*[│|]/, ""); print; n++ }
	    $0 ~ re { n = 1 }'
}
# The model's points on the chart rows.
points() {
	chart_rows "$1" | grep -o "$2" | wc -l | tr -d ' '
}

for size in "80 24" "160 50"; do
	set -- $size
	rm -rf hetui_output
	tui_start "$1" "$2" -- -c demo.yaml
	wait_for 'c2 = '; ok $? "$1x$2: the demo opens"
	tui_keys Enter l l l l l c
	wait_for 'g2\(τ\) at age [0-9.]+–[0-9.]+ s'
	ok $? "$1x$2: c: the cut at the cursor's age"
	wait_for 'no fit yet'; ok $? "$1x$2: before a fit it says no fit yet"
	is "$(points 'g2\(τ\) at age' '◆')" 0 "$1x$2: and draws no model"
	tui_keys 3 r
	wait_for 'fit converged' 60; ok $? "$1x$2: r fits"
	tui_keys 1
	wait_for '◆ model'; ok $? "$1x$2: the cut's legend names the model"
	n=$(points 'g2\(τ\) at age' '◆')
	ok "$([ "$n" -ge 12 ]; echo $?)" \
	    "$1x$2: the model's points over the age cut ($n columns)"
	unlike "$TUI_SCREEN" 'no fit yet' "$1x$2: no longer 'no fit yet'"
	tui_keys c
	wait_for 'c2 at lag [0-9.]+ s against age'
	ok $? "$1x$2: c: the cut at the cursor's lag"
	wait_for '◆ model'; ok $? "$1x$2: with the model too"
	n=$(points 'c2 at lag' '◆')
	ok "$([ "$n" -ge 8 ]; echo $?)" \
	    "$1x$2: its points over the lag cut ($n columns)"
	if [ "$1" -lt 100 ]; then
		tui_keys q
		tui_wait_exit; ok $? "$1x$2: q quits"
		continue
	fi
	tui_keys 0
	wait_for 'the cuts \(c\) draw the fitted model of '
	ok $? "$1x$2: the Log names the fit's folder"
	run='\./hetui_output/demo_results/fit-[0-9]{8}-[0-9]{6}'
	like "$TUI_SCREEN" "model of $run/ over" "$1x$2: the fit's run folder"
	tui_keys 1
	# An angle the latest fit left out, and the Results panel's pick.
	tui_keys c c Escape Down ' '
	wait_for 'sel 7/8'; ok $? "$1x$2: angle 2 deselected"
	tui_keys 3 r
	wait_for 'fit converged: .*' 60; ok $? "$1x$2: a fit of 7 angles"
	tui_keys 1
	wait_for 'g2\(τ\) at age'
	wait_for 'angle not fit'; ok $? "$1x$2: angle 2: 'angle not fit'"
	is "$(points 'g2\(τ\) at age' '◆')" 0 "$1x$2: no model there"
	tui_keys 5 ']' Enter
	wait_for 'run loaded from .*/fit-'; ok $? "$1x$2: the first fit loaded"
	tui_keys 1
	wait_for '◆ model'; ok $? "$1x$2: its model over angle 2"
	n=$(points 'g2\(τ\) at age' '◆')
	ok "$([ "$n" -ge 12 ]; echo $?)" "$1x$2: with its points ($n)"
	tui_keys c c
	wait_for 'g2\(τ\) one-time'; ok $? "$1x$2: c: the one-time chart"
	unlike "$TUI_SCREEN" '◆' "$1x$2: which has no model"
	tui_keys q
	tui_wait_exit; ok $? "$1x$2: q quits"
done

# ASCII: the model's points are + and the legend says so.
rm -rf hetui_output
tui_start 80 24 -- --ascii -c demo.yaml
wait_for 'c2 = '; ok $? "ascii: the demo opens"
tui_keys 3 r
wait_for 'fit converged' 60; ok $? "ascii: r fits"
tui_keys 1 Enter l l l l l c
wait_for '\+ model'; ok $? "ascii: the legend is '+ model'"
n=$(points 'g2\(tau\) at age' '+')
ok "$([ "$n" -ge 12 ]; echo $?)" "ascii: + points over the cut ($n)"
tui_keys q
tui_wait_exit; ok $? "ascii: q quits"
done_testing
