#!/bin/sh
# t_ui_browse.sh: refits between measurements at 100x30: the file browser
# (o) lists the folder's result files newest first with format, bins and
# frames, an unreadable file with its reason; opening the older file
# keeps the selection (angles, frame window) and says so in the Log;
# Backspace, folders, a typed path, a missing and an empty folder; follow
# mode (F) loads a file moved into the folder meanwhile, keeps what fits
# and logs what does not; F again stops; a file of another q and other
# angles logs the ring and the angle it could not keep; q quits cleanly.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

runs="$TAP_TMP/runs"
stage="$TAP_TMP/stage"
mkdir -p "$runs" "$stage"
cfg="$TAP_TMP/sim.yaml"
cat >"$cfg" <<'YAML'
analysis_mode: static_ref
analyzer_parameters:
  dt: 0.1
  start_frame: 1
  end_frame: 60
  scattering:
    wavevector_q: 0.01
    phi_angles: [10.0, 45.0, 80.0]
parameters:
  reference:
    D0_ref: {value: 5000.0}
    alpha_ref: {value: 0.3}
    D_offset_ref: {value: 0.0}
initial_parameters:
  per_angle_scaling:
    contrast: [0.3]
    offset: [1.0]
YAML
sim() {
	"$HETUI" simulate -q -c "$cfg" -o "$1" --frames "$2"
}
sim "$runs/run01.h5" 60; ok $? "run01.h5 simulated (60 frames)"
sim "$runs/run02.h5" 80; ok $? "run02.h5 simulated (80 frames)"
printf 'not hdf5\n' >"$runs/bad.h5"
printf 'notes\n' >"$runs/notes.txt"
TZ=UTC touch -d '2026-01-01 09:00:00' "$runs/bad.h5"
TZ=UTC touch -d '2026-01-01 10:00:00' "$runs/run01.h5"
TZ=UTC touch -d '2026-01-01 10:05:00' "$runs/run02.h5"

tui_start 100 30 TZ=UTC HETUI_FOLLOW_SECONDS=0.2 -- "$runs/run02.h5"
wait_for 'run02\.h5 +aps-u +ring 1/1'; ok $? "run02.h5 opened"
wait_for 'c2 = '; ok $? "its heatmap is shown"

# A selection to keep: the middle angle off, frames 10-50.
tui_keys Down Space
wait_for '2/3 selected'; ok $? "angle 2 deselected"
tui_keys w C-u; tui_text '10,50'; tui_keys Enter
wait_for 'frames 10–50'; ok $? "frame window 10,50"

# The browser.
tui_keys o
wait_for 'Open a result file'; ok $? "o opens the browser"
wait_for 'run01\.h5 +2026-01-01 10:00:00 +aps-u +3 +60'
ok $? "run01.h5: time, format, 3 bins, 60 frames"
like "$TUI_SCREEN" 'run02\.h5 +2026-01-01 10:05:00 +aps-u +3 +80' \
    "run02.h5: 3 bins, 80 frames"
like "$TUI_SCREEN" 'bad\.h5 +2026-01-01 09:00:00 +unreadable: not an HDF5 file' \
    "bad.h5 listed with its reason"
like "$TUI_SCREEN" '3 result files' "three candidates counted"
unlike "$TUI_SCREEN" 'notes\.txt' "other files are not listed"
like "$TUI_SCREEN" '\.\./ +parent folder' "the parent folder row"
like "$TUI_SCREEN" "runs" "the folder is shown"
l2=$(printf '%s\n' "$TUI_SCREEN" | grep -nE 'run02\.h5 +2026' | cut -d: -f1)
l1=$(printf '%s\n' "$TUI_SCREEN" | grep -nE 'run01\.h5 +2026' | cut -d: -f1)
lb=$(printf '%s\n' "$TUI_SCREEN" | grep -nE 'bad\.h5 +2026' | cut -d: -f1)
[ -n "$l1" ] && [ -n "$l2" ] && [ -n "$lb" ] && [ "$l2" -lt "$l1" ] &&
    [ "$l1" -lt "$lb" ]
ok $? "newest first: run02 (line $l2), run01 ($l1), bad.h5 ($lb)"
like "$TUI_SCREEN" '● run02\.h5' "the open file is marked"

# Open the second (older) file: the selection is kept.
tui_keys Down Enter
wait_for 'run01\.h5 +aps-u +ring 1/1'; ok $? "Down Enter opens run01.h5"
wait_gone 'Open a result file'; ok $? "and closes the browser"
like "$TUI_SCREEN" 'sel 2/3 φ' "the angles are kept (2 of 3)"
like "$TUI_SCREEN" 'frames 10–50' "the frame window is kept"
like "$TUI_SCREEN" '· +2 +2 +0\.0100' "bin 2 is still off"
tui_keys BTab
wait_for 'Session log'; ok $? "S-Tab shows the Log (the last panel)"
like "$TUI_SCREEN" 'kept from run02\.h5: ring 1 \(q 0\.01\), 2 of 3 angles, frames 10–50' \
    "the Log says what was kept"
tui_keys 1
wait_for 'Bins +ring'; ok $? "back to the Data panel"

# An unreadable file cannot be opened; Backspace, folders, a typed path.
tui_keys o
wait_for 'bad\.h5 +2026'; ok $? "browser again"
tui_keys End Enter
wait_for 'cannot open bad\.h5: not an HDF5 file'
ok $? "Enter on the unreadable file says why"
like "$TUI_SCREEN" 'Open a result file' "and the browser stays open"
tui_keys BSpace
wait_for 'runs/ +[0-9-]+ [0-9:]+ +folder'; ok $? "Backspace: the parent lists runs/"
like "$TUI_SCREEN" 'stage/ +[0-9-]+ [0-9:]+ +folder' "and stage/"
tui_keys Enter
wait_for 'run01\.h5 +2026'; ok $? "Enter on runs/ (the cursor came back to it) enters it"
tui_keys /
wait_for 'Go to \(folder or file\):'; ok $? "/ asks for a path"
tui_keys C-u; tui_text "$TAP_TMP/nope/deeper"; tui_keys Enter
wait_for 'folder .*nope/deeper does not exist \(the nearest existing'
ok $? "a missing folder is reported"
like "$TUI_SCREEN" 'run01\.h5 +2026' "and the listing stays"
# Issue 19: the pre-filled folder is selected, so a typed absolute path
# replaces it (it used to be appended: DIR//ABSOLUTE/PATH).
tui_keys /
wait_for 'Go to \(folder or file\):'; ok $? "/ again"
tui_text "$stage"; tui_keys Enter
wait_for 'no result files in .*stage: the folder is empty'
ok $? "an absolute path typed without erasing replaces the pre-filled folder"
unlike "$TUI_SCREEN" '//' "no doubled slash"
tui_keys /; tui_text "../runs"; tui_keys Enter
wait_for 'run01\.h5 +2026'; ok $? "a relative path typed over it is taken from the listed folder"
tui_keys /; tui_keys C-u; tui_text "$stage"; tui_keys Enter
wait_for 'no result files in .*stage: the folder is empty'
ok $? "an empty folder says so"
tui_keys /; tui_keys C-u; tui_text "$runs/notes.txt"; tui_keys Enter
wait_for 'notes\.txt is not a result file: hetui opens \*\.hdf'
ok $? "a typed path to another file is refused with the reason"
tui_keys /; tui_keys C-u; tui_text "$runs/run02.h5"; tui_keys Enter
wait_for 'run02\.h5 +aps-u +ring 1/1'; ok $? "a typed file path opens the file"
wait_gone 'Open a result file'; ok $? "and closes the browser"
like "$TUI_SCREEN" 'frames 10–50' "selection still kept"

# Follow mode.
tui_keys F
wait_for 'following .*runs: new result files will be loaded'
ok $? "F starts following the file's folder"
wait_for 'follow: .*runs *$'; ok $? "the status line shows follow: <folder>"
sim "$stage/run03.h5" 40; ok $? "run03.h5 simulated elsewhere (40 frames)"
mv "$stage/run03.h5" "$runs/run03.h5"
wait_for 'run03\.h5 +aps-u +ring 1/1' 20; ok $? "follow mode loads run03.h5"
like "$TUI_SCREEN" 'sel 2/3 φ' "angles kept"
like "$TUI_SCREEN" 'frames 1–40' "the window did not fit: every frame"
tui_keys BTab
wait_for 'Session log'; ok $? "the Log"
like "$TUI_SCREEN" 'follow: new result file run03\.h5 \([0-9]+ bytes\) appeared in' \
    "the Log says follow loaded it"
like "$TUI_SCREEN" 'kept selection: the frame window 10,50 does not fit' \
    "and what could not be kept"
like "$TUI_SCREEN" 'every frame is used' "and what was done instead"
tui_keys 1
tui_keys F
wait_for 'follow mode off'; ok $? "F again stops following"
wait_gone 'follow: .*runs *$'; ok $? "the status tag goes"

# A file where the ring and an angle cannot be kept.
"$HETUI" simulate -q -c "$cfg" -o "$TAP_TMP/run04.h5" --frames 30 \
    --q 0.02 --phi 10,50
ok $? "run04.h5 simulated (q 0.02, angles 10 and 50)"
tui_keys o
wait_for 'Open a result file'; ok $? "browser"
tui_keys /; tui_keys C-u; tui_text "$TAP_TMP/run04.h5"; tui_keys Enter
wait_for 'run04\.h5 +aps-u +ring 1/1 q=0\.02'; ok $? "run04.h5 opened"
like "$TUI_SCREEN" 'sel 2/2 φ' "angles 10 and 80 became 10 and 50"
like "$TUI_SCREEN" 'frames 1–30' "every frame stays every frame"
like "$TUI_SCREEN" '2 parts of the selection could not be kept' \
    "the status line counts what was not kept"
tui_keys BTab
wait_for 'Session log'; ok $? "the Log"
like "$TUI_SCREEN" 'kept selection: no ring at q 0\.01 \(ring 1 of run03\.h5\)' \
    "the Log names the ring that could not be kept"
like "$TUI_SCREEN" 'kept selection: no bin at φ 80° in this file; bin #2 at 50°' \
    "and the angle, with the bin chosen instead"
tui_keys 1

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

# ASCII at 80x24: the browser fits and draws with ASCII only.
tui_start 80 24 TZ=UTC -- --ascii "$runs/run01.h5"
wait_for 'run01\.h5 +ring 1/1 q=0\.01 +sel 3/3 phi +frames 1-60 '; ok $? "--ascii at 80x24: run01.h5 opened (the header keeps the frame window, drops the layout)"
tui_keys o
wait_for '^\+- Open a result file -+\+$'; ok $? "ASCII border and title"
wait_for '^\|\* run01\.h5 +2026-01-01 10:00:00 aps-u +3 +60 +\|$'
ok $? "rows fit in 80 columns, the open file marked with *"
like "$TUI_SCREEN" 'run03\.h5 .* aps-u +3 +40' "the file follow mode loaded is listed"
unlike "$TUI_SCREEN" '[│─●…]' "no UTF-8 drawing characters"
tui_keys Escape
wait_gone 'Open a result file'; ok $? "Esc closes the browser"
tui_keys q
tui_wait_exit 10; ok $? "q quits"
is "$TUI_STATUS" 0 "exit status 0"
done_testing
