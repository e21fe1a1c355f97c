#!/bin/sh
# t_ui_multitau.sh: the Data panel's multitau view (issue 20) at 80x24
# and 160x50.  A multitau-only file (tests/mkmultitau: 8 q bins of a
# Brownian sample with D = 4.87e4 A^2/s, noise 0.01) opens in the view
# instead of being refused: g2(tau) with error bars on a log tau axis,
# the fit's numbers, D near the truth; j moves to the next bin, s shows
# the stretched fits, d the rates against q^2 with D.  A file with both
# kinds of data switches with m; m on a file without multitau data, or
# with unreadable multitau data, says so; an unreadable multitau-only
# file shows both reasons.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

mk="$top_builddir/tests/mkmultitau"
mt="$TAP_TMP/mt_results.hdf"
"$mk" "$mt" --sigma 0.01
ok $? "fixture written (8 q bins, D 4.87e4, 52 delays of 1 ms frames)"

# D (and its error) from "D  VALUE ± ERR Å²/s" within 4 errors of 4.87e4.
d_near() {
	printf '%s\n' "$1" | sed -n "s/.*$2 *\\([-0-9.e+]*\\) ± \\([-0-9.e+]*\\) Å²\\/s.*/\\1 \\2/p" |
	    head -n 1 | awk '{ d = $1 - 48700; if (d < 0) d = -d;
		exit !(NF == 2 && $2 > 0 && d < 4 * $2) }'
}

for size in "80 24" "160 50"; do
	set -- $size
	tui_start "$1" "$2" -- "$mt"
	wait_for "$1x$2"; ok $? "$1x$2: started"
	wait_for 'χ²/ν [0-9.]+, 52 pts'
	ok $? "$1x$2: the multitau-only file opens in the multitau view"
	like "$TUI_SCREEN" 'hetui [0-9.]+ +mt_results\.hdf +multitau g2 only' \
	    "$1x$2: the header says what the file holds"
	like "$TUI_SCREEN" 'Multitau g2  \(no two-time matrices\)' \
	    "$1x$2: the summary's title"
	like "$TUI_SCREEN" 'delays +52  0\.001–16\.38 s' "$1x$2: the delays"
	like "$TUI_SCREEN" 'g2\(τ\) #1  q 0\.0021 Å⁻¹' "$1x$2: the plot's title"
	like "$TUI_SCREEN" '1e-3 .* 0\.1 .* 1 .* 10 .*τ/s' \
	    "$1x$2: the log tau axis with its decades and unit"
	bars=$(printf '%s\n' "$TUI_SCREEN" | grep -c '│.*│')
	ok $([ "$bars" -ge 4 ]; echo $?) \
	    "$1x$2: error bars on $bars rows of the plot"
	like "$TUI_SCREEN" '●' "$1x$2: the points"
	like "$TUI_SCREEN" 'Γ = 0\.[0-9]+ ± [0-9.e+-]+ s⁻¹' "$1x$2: the rate"
	like "$TUI_SCREEN" 'β 0\.[0-9]+ ± ' "$1x$2: the contrast"
	like "$TUI_SCREEN" 'κ 1 \(single\)' "$1x$2: the exponent of a single fit"
	d_near "$TUI_SCREEN" 'D'
	ok $? "$1x$2: D in the summary within 4 errors of 4.87e4 Å²/s"
	like "$TUI_SCREEN" '● +8 +0\.00889 +0\.0 +[0-9.]+ +[0-9.]+' \
	    "$1x$2: the bins table with each rate"
	like "$TUI_SCREEN" '↑↓ Bin +\[\] q +s Stretched +d Rates' \
	    "$1x$2: the view's keys in the footer"
	tui_keys j
	wait_for 'g2\(τ\) #2  q 0\.00307'; ok $? "$1x$2: j: the next bin"
	tui_keys ']'
	wait_for 'g2\(τ\) #3  q 0\.00404'; ok $? "$1x$2: ]: the next q ring"
	tui_keys '['
	wait_for 'g2\(τ\) #2  q 0\.00307'; ok $? "$1x$2: [: back"
	tui_keys '?'
	wait_for 'Help: Data'; ok $? "$1x$2: ? shows the help"
	like "$TUI_SCREEN" 'The multitau view: the one-time g2\(tau\)' \
	    "$1x$2: the multitau view's own help"
	like "$TUI_SCREEN" 'single exponential \(kappa 1\) or stretched' \
	    "$1x$2: with its keys"
	tui_keys Escape
	wait_gone 'Help: Data'; ok $? "$1x$2: a key closes it"
	tui_keys s
	wait_for 'κ [0-9.]+ ± [0-9.e+-]+'
	ok $? "$1x$2: s: the stretched fit with its exponent"
	like "$TUI_SCREEN" 'fits +stretched exponential' "$1x$2: said in the summary"
	tui_keys d
	wait_for 'Γ \(s⁻¹\) vs q² \(Å⁻²\)  stretched'
	ok $? "$1x$2: d: the rates against q²"
	d_near "$TUI_SCREEN" 'D ='
	ok $? "$1x$2: D of the stretched rates within 4 errors of the truth"
	like "$TUI_SCREEN" '8 bins, χ²/ν' "$1x$2: from all 8 bins"
	like "$TUI_SCREEN" 'with Γ0: D = ' "$1x$2: and the fit with an intercept"
	tui_keys s
	wait_for 'Γ \(s⁻¹\) vs q² \(Å⁻²\)  single'
	d_near "$TUI_SCREEN" 'D ='
	ok $? "$1x$2: D of the single rates within 4 errors of the truth"
	tui_keys m
	wait_for 'holds multitau g2 only: there is no two-time view'
	ok $? "$1x$2: m says there is no two-time view"
	tui_keys Space
	wait_for 'no two-time matrices: that key has nothing to act on'
	ok $? "$1x$2: a two-time key says why it does nothing"
	tui_keys q
	tui_wait_exit; ok $? "$1x$2: q quits"
done

# A file with both kinds of data: m switches.
both="$TAP_TMP/both_results.hdf"
tui_fixture "$both" --frames 120 --nq 3 --nphi 2 && "$mk" "$both" --append
ok $? "a two-time file with multitau g2 added"
tui_start 100 30 -- "$both"
wait_for 'c2 = [0-9.]+ +at t1'; ok $? "both: the two-time view first"
tui_keys ']' m
wait_for 'g2\(τ\) #3  q 0\.004 Å⁻¹  φ -90\.0°'
ok $? "both: m: the multitau view, at the two-time cursor's bin"
like "$TUI_SCREEN" 'm Two-time' "both: the footer offers the way back"
like "$TUI_SCREEN" 'bins +6 = 3 q × 2 φ' "both: the file's q map"
tui_keys Space
wait_for 'that key acts in the two-time view \(m\)'; ok $? "both: Space says so"
tui_keys m
wait_for 'c2 = [0-9.]+ +at t1'; ok $? "both: m again: the two-time view"
like "$TUI_SCREEN" 'ring 2/3' "both: where it was"
tui_keys q
tui_wait_exit

# m without multitau data, and with unreadable multitau data.
plain="$TAP_TMP/plain_results.hdf"
tui_fixture "$plain" --frames 60 --nq 1 --nphi 2
tui_start 100 30 -- "$plain"
wait_for 'c2 = '; tui_keys m
wait_for 'this file has no multitau g2 \(/xpcs/multitau\)'
ok $? "m on a file without multitau data says so"
tui_keys q
tui_wait_exit
bad="$TAP_TMP/bad_results.hdf"
tui_fixture "$bad" --frames 8 --nq 52 --nphi 1 && "$mk" "$bad" --append
tui_start 100 30 -- "$bad"
wait_for 'c2 = '; tui_keys m
wait_for 'The multitau g2 of this file cannot be shown'
ok $? "m on unreadable multitau data: a page says it cannot be shown"
like "$TUI_SCREEN" 'cannot tell the delay axis' "with the reason"
like "$TUI_SCREEN" 'm Two-time' "and the way back"
tui_keys m
wait_for 'c2 = '; ok $? "m: back to the two-time view"
tui_keys q
tui_wait_exit

# The browser lists a multitau-only file and opens it.
fold="$TAP_TMP/fold"
mkdir -p "$fold"
tui_fixture "$fold/run01.hdf" --frames 60 --nq 1 --nphi 2 &&
    "$mk" "$fold/run02_mt.hdf"
TZ=UTC touch -d '2026-01-01 10:00:00' "$fold/run01.hdf"
TZ=UTC touch -d '2026-01-01 10:05:00' "$fold/run02_mt.hdf"
tui_start 100 30 TZ=UTC -- "$fold/run01.hdf"
wait_for 'c2 = '; tui_keys o
wait_for 'run02_mt\.hdf +2026-01-01 10:05:00 +multitau +8 +-'
ok $? "the browser lists a multitau-only file: multitau, 8 bins, no frames"
tui_keys Enter
wait_for 'run02_mt\.hdf +multitau g2 only'
ok $? "and opens it in the multitau view"
wait_for 'g2\(τ\) #1'; ok $? "with its plot"
tui_keys 2
wait_for 'Model'; tui_keys 1
wait_for 'g2\(τ\) #1'; ok $? "the view stays across panels"
tui_keys q
tui_wait_exit

# A multitau-only file that cannot be read: both reasons.
"$mk" "$TAP_TMP/square.hdf" --nq 52
tui_start 100 30 -- "$TAP_TMP/square.hdf"
wait_for 'Cannot open'; ok $? "an unreadable multitau-only file is refused"
like "$TUI_SCREEN" 'multitau-only' "with the two-time reason"
like "$TUI_SCREEN" 'cannot be shown either' "and the multitau one"
tui_keys q
tui_wait_exit
done_testing
