#!/bin/sh
# t_ui_errors.sh: bad input never crashes the workstation: a missing file
# and a file that is not HDF5 show the reason in the status line, the Data
# panel and the Log panel; without a file the Data panel says how to open
# one; stderr output is captured into the log, not onto the screen.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

missing="$TAP_TMP/nothere/run42_results.hdf"
tui_start 100 30 -- "$missing"
wait_for 'Cannot open .*nothere/run42_results\.hdf'; ok $? "missing file: the Data panel says so"
like "$TUI_SCREEN" 'nothere/run42_results\.hdf: ' "the reason starts with the file name"
last=$(printf '%s\n' "$TUI_SCREEN" | sed -n '29p')
like "$last" 'nothere/run42_results\.hdf' "the status line shows the error"
tui_keys 0
wait_for 'error +.*nothere/run42_results\.hdf'; ok $? "the Log panel has it, as an error"
tui_keys q
tui_wait_exit 10; ok $? "quits"
is "$TUI_STATUS" 0 "exit status 0 after a failed open"

bad="$TAP_TMP/notes.hdf"
printf 'beam dump at 03:12\n' > "$bad"
tui_start 100 30 -- "$bad"
wait_for 'Cannot open .*notes\.hdf'; ok $? "not HDF5: reported in the panel"
like "$TUI_SCREEN" 'HDF5' "the reason mentions HDF5"
like "$TUI_SCREEN" 'hetui run42_results\.hdf' "and how to open a file"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

tui_start 100 30 --
wait_for 'No file open\.'; ok $? "no file: the Data panel says so"
# Issue 19: o opens the file browser, so quitting is not the way.
like "$TUI_SCREEN" 'Press o to browse for an XPCS two-time result file' "and how to open one: o"
unlike "$TUI_SCREEN" 'quit \(q\)' "without telling the user to quit"
like "$TUI_SCREEN" 'or start hetui with one' "the command line is the other way"
like "$TUI_SCREEN" 'hetui run42_results\.hdf' "with an example"
like "$TUI_SCREEN" '^ hetui [0-9.]+ .*100x30' "the header is drawn"
tui_keys j k Space a w L Enter
tui_keys 0
wait_for 'Session log'; ok $? "keys of the Data panel are harmless without data"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"
done_testing
