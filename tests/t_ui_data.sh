#!/bin/sh
# t_ui_data.sh: the workstation on a data file at 100x30: header and bins
# table, heatmap and its cursor read-out, angle selection, q rings, the
# frame window prompt (accepted and rejected), the log colour scale, panel
# switching, help, a resize, and a clean quit.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

fx="$TAP_TMP/run42_results.hdf"
tui_fixture "$fx" --frames 160 --nq 3 --nphi 6
ok $? "fixture written"

tui_start 100 30 -- "$fx"
wait_for '100x30'; ok $? "header shows the terminal size 100x30"
wait_for '^ hetui [0-9.]+ +run42_results\.hdf +aps-u +ring 1/3'
ok $? "header: program, version, file, layout, ring"
# tmux may capture a frame half written: wait for its last table row.
wait_for '● +6 +6 +0\.00250 +150\.00 +160'
like "$TUI_SCREEN" 'sel 6/6 φ +frames 1–160' "header: selection and frame window"
like "$TUI_SCREEN" 'Bins +ring 1/3 +q 0\.0025 Å⁻¹ +6/6 selected' "bins table title"
like "$TUI_SCREEN" '# label +q +φ +frames' "bins table column heads"
like "$TUI_SCREEN" '● +1 +1 +0\.00250 +-150\.00 +160' "first bin row: mark, #, label, q, phi, frames"
like "$TUI_SCREEN" '● +6 +6 +0\.00250 +150\.00 +160' "sixth bin row"
like "$TUI_SCREEN" 'dt +0\.01 s' "summary: dt from the file"
like "$TUI_SCREEN" 'energy +8 keV +dist 5\.5 m' "summary: energy and distance"
wait_for 'c2 = [0-9.]+ +at t1 '; ok $? "heatmap read-out appears"
like "$TUI_SCREEN" '▀▀▀▀▀▀▀▀' "heatmap drawn with half blocks"
like "$TUI_SCREEN" 'g2\(τ\) one-time +lag 1–159 fr' "one-time projection chart"
like "$TUI_SCREEN" '\? Help +Tab Panel .* q Quit' "footer key hints"

# Heatmap cursor.
before=$(printf '%s\n' "$TUI_SCREEN" | grep -o 'c2 = .*t2 [0-9.–]* s')
tui_keys Enter
wait_for 'lin +cursor'; ok $? "Enter gives the heatmap the focus"
tui_keys l l l l k k
wait_gone "$(printf '%s' "$before" | sed 's/[].[*^$()+?{|\\]/\\&/g')"
ok $? "moving the cursor changes the read-out"
after=$(printf '%s\n' "$TUI_SCREEN" | grep -o 'c2 = .*t2 [0-9.–]* s')
like "$after" 'c2 = 1\.[0-9]+ +at t1 [0-9.]+–[0-9.]+ s, t2 [0-9.]+–[0-9.]+ s' "read-out shows c2 and the times"
diag "read-out: '$before' -> '$after'"
# Issue 20: the time axis, age and lag, frames on demand, cuts, zoom.
like "$TUI_SCREEN" '│ 0\.01 s +0\.805 s +1\.6 s t1, t2' \
    "time axis under the heatmap: frame f at f dt, 0.01 s to 1.6 s (160 frames of 0.01 s)"
like "$TUI_SCREEN" 'age [0-9.]+ s +lag [0-9.]+ s +mean of' "read-out: age and lag in seconds"
tui_keys f
wait_for '│ 1 +80\.5 +160 frame'; ok $? "f: the axis in frame numbers"
like "$TUI_SCREEN" 'at t1 [0-9]+–[0-9]+, t2 [0-9]+–[0-9]+' "f: the read-out in frames"
like "$TUI_SCREEN" 'lag [0-9]+ fr' "f: the lag in frames"
tui_keys f
wait_for '│ 0\.01 s '; ok $? "f again: seconds"
tui_keys c
wait_for 'g2\(τ\) at age [0-9.]+–[0-9.]+ s +lag 1–159 fr, log'
ok $? "c: g2 against lag at the cursor's age"
tui_keys c
wait_for 'c2 at lag [0-9.]+ s against age, the whole window'
ok $? "c again: c2 against age at the cursor's lag"
tui_keys c
wait_for 'g2\(τ\) one-time'; ok $? "c a third time: the one-time projection"
tui_keys z
wait_for 'zoom [0-9]+–[0-9]+ '; ok $? "z zooms in: the title shows the frames"
like "$TUI_SCREEN" 'zoom: frames [0-9]+-[0-9]+ \(Z zooms out\)' "z says so"
tui_keys z z z z z z
wait_for 'cannot zoom further: [0-9]+ frames shown'; ok $? "zooming stops at a few frames"
tui_keys Z Z Z Z Z
wait_for 'zoom out: the whole frame window'; ok $? "Z zooms back to the whole window"
unlike "$TUI_SCREEN" 'zoom [0-9]' "no zoom in the title"
tui_keys Z
wait_for 'not zoomed: z zooms in on the cursor'; ok $? "Z when not zoomed says so"
tui_keys Escape
wait_gone 'lin +cursor'; ok $? "Esc returns the focus to the table"

# Angles.
tui_keys Space
wait_for '5/6 selected'; ok $? "Space deselects the angle under the cursor"
like "$TUI_SCREEN" 'sel 5/6 φ' "header follows the selection"
like "$TUI_SCREEN" '· +1 +1 +0\.00250' "the row shows the cleared mark"
tui_keys a
wait_for '6/6 selected'; ok $? "a selects every angle of the ring"
tui_keys a
wait_for '0/6 selected'; ok $? "a again selects none"
tui_keys a Down Down
wait_for 'c2 #3 '; ok $? "Down moves to bin #3 and shows its c2"

# Rings.
tui_keys ']'
wait_for 'ring 2/3 q=0\.004'; ok $? "] moves to ring 2"
like "$TUI_SCREEN" '● +9 +9 +0\.00400' "ring 2 bins listed"
tui_keys '['
wait_for 'ring 1/3 q=0\.0025'; ok $? "[ moves back"

# Frame window.
tui_keys w
wait_for 'Frame window \(first,last\): 1,160'; ok $? "w opens the prompt with the current window"
tui_keys C-u; tui_text '10,90'; tui_keys Enter
wait_for 'frame window set to 10,90 \(81 frames\)'; ok $? "a valid window is accepted"
like "$TUI_SCREEN" 'frames 10–90' "header shows the window"
wait_for 'c2 = .* at t1 [0-9]'; ok $? "the heatmap is read again for the window"
# Issue 19: the current window is selected, so typing replaces it (it
# used to be appended: '1,16010,90' was rejected).
tui_keys w
wait_for 'Frame window \(first,last\): 10,90'; ok $? "w shows the current window"
tui_text '20,80'; tui_keys Enter
wait_for 'frame window set to 20,80 \(61 frames\)'
ok $? "typing without erasing replaces the pre-filled window"
tui_keys w; tui_text '10,90'; tui_keys Enter
wait_for 'frame window set to 10,90'; ok $? "and again, back to 10,90"
tui_keys w C-u; tui_text '90,10'; tui_keys Enter
wait_for 'frame window 90,10 rejected: first must be below last'
ok $? "a reversed window is rejected with a reason"
like "$TUI_SCREEN" 'frames 10–90' "and the window is unchanged (no silent clamp)"
tui_keys w C-u; tui_text '5,999'; tui_keys Enter
wait_for 'last must be at most 160 \(the file has 160 frames\)'
ok $? "a window past the end is rejected"
tui_keys w C-u; tui_text 'abc'; tui_keys Enter
wait_for "frame window 'abc' rejected: write two frame numbers"
ok $? "garbage is rejected with the expected form"
tui_keys w C-u; tui_text 'all'; tui_keys Enter
wait_for 'frame window set to 1,160'; ok $? "'all' restores the full window"

# Colour scale.
tui_keys L
wait_for 'colour scale: log10\(c2 - far-lag baseline\)'; ok $? "L switches to log scale"
like "$TUI_SCREEN" 'φ -?[0-9.]+° +log' "the heatmap title says log"
like "$TUI_SCREEN" 'c2-base' "the legend names the transform"
tui_keys L
wait_for 'colour scale: linear c2'; ok $? "L again: linear"

# Panels and help.
tui_keys 0
wait_for 'Session log: [0-9]+ lines'; ok $? "0 shows the Log panel (the last)"
like "$TUI_SCREEN" 'frame window 90,10 rejected' "the log has the rejected window"
# The open is some 25 lines up: how many debug lines came since depends
# on timing (a stale view dropped or not), so go to the top to see it.
tui_keys g
wait_for 'info +opened .*run42_results\.hdf: aps-u, 18 bins in 3 rings'
ok $? "g: the top of the log, with the open"
tui_keys G
tui_keys 1
wait_for 'Bins +ring'; ok $? "1 returns to the Data panel"
tui_keys '?'
wait_for 'Help: Data'; ok $? "? shows the panel's help"
like "$TUI_SCREEN" 'far lags' "the help explains the log scale"
like "$TUI_SCREEN" 'Everywhere' "and lists the global keys"
tui_keys x
wait_gone 'Help: Data'; ok $? "any key closes the help"

# Resize.
tui_resize 120 40
wait_for '120x40'; ok $? "resize: the header shows 120x40"
wait_for 'c2 = '; ok $? "and the heatmap is redrawn"
tui_resize 100 30
wait_for '100x30'; ok $? "back to 100x30"

# Quit.
pid=$(tui_pid)
tui_keys q
tui_wait_exit 10; ok $? "q quits"
is "$TUI_STATUS" 0 "exit status 0"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	ok 1 "no hetui process left (pid $pid still runs)"
else
	ok 0 "no hetui process left"
fi
is "$(tui display-message -p -t "$TUI_SESSION" '#{alternate_on}')" 0 \
    "the terminal left the alternate screen"
done_testing
