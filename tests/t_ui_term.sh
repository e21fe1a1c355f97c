#!/bin/sh
# t_ui_term.sh: the terminal layer: 80x24 works, smaller shows a clear
# message (and recovers), ASCII mode by flag and by locale, monochrome,
# suspend and resume, and the terminal given back on SIGTERM.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

fx="$TAP_TMP/run42_results.hdf"
tui_fixture "$fx" --frames 120 --nq 2 --nphi 4
ok $? "fixture written"

# 80x24, the minimum.
tui_start 80 24 -- "$fx"
wait_for '80x24'; ok $? "80x24: header shows the size"
wait_for 'c2 = [0-9.]+ +at t1'; ok $? "80x24: heatmap read-out"
like "$TUI_SCREEN" '● +1 +1 +0\.00250 +-135\.00 +120' "80x24: bins table row fits"
like "$TUI_SCREEN" 'q Quit' "80x24: the footer keeps q Quit"
unlike "$TUI_SCREEN" 'too small' "80x24 is not too small"
tui_resize 60 20
wait_for 'Terminal too small: 60x20'; ok $? "resized to 60x20: too small message"
like "$TUI_SCREEN" 'hetui needs at least 80x24' "says what is needed"
tui_resize 80 24
wait_for 'c2 = '; ok $? "resized back: the workstation returns"
wait_gone 'too small'; ok $? "and the message is gone"

# Suspend and resume.
pid=$(tui_pid)
tui_keys C-z
n=0; st=
while [ $n -lt 200 ]; do
	st=$(ps -o stat= -p "$pid" 2>/dev/null)
	case "$st" in T*) break;; esac
	sleep 0.05; n=$((n + 1))
done
like "$st" '^T' "Ctrl-Z stops hetui"
is "$(tui display-message -p -t "$TUI_SESSION" '#{alternate_on}')" 0 \
    "the terminal is given back while stopped"
kill -CONT "$pid"
wait_for 'c2 = '; ok $? "SIGCONT: the screen is repainted"
is "$(tui display-message -p -t "$TUI_SESSION" '#{alternate_on}')" 1 \
    "and curses owns the screen again"

# SIGTERM restores the terminal and reports the signal.
kill -TERM "$pid"
tui_wait_exit 10; ok $? "SIGTERM ends hetui"
is "$TUI_STATUS" 143 "killed by SIGTERM (status 128+15)"
is "$(tui display-message -p -t "$TUI_SESSION" '#{alternate_on}')" 0 \
    "SIGTERM: alternate screen left"
is "$(tui display-message -p -t "$TUI_SESSION" '#{cursor_flag}')" 1 \
    "SIGTERM: cursor visible again"

# Too small from the start; q still quits.
tui_start 60 20 -- "$fx"
wait_for 'Terminal too small: 60x20'; ok $? "started at 60x20: too small"
tui_keys q
tui_wait_exit 10; ok $? "q quits from the message"
is "$TUI_STATUS" 0 "exit status 0"

# ASCII by flag.
tui_start 100 30 -- --ascii "$fx"
wait_for 'c2 = '; ok $? "--ascii: heatmap read-out"
unlike "$TUI_SCREEN" '▀' "--ascii: no half blocks"
ascii_only=$(printf '%s\n' "$TUI_SCREEN" | LC_ALL=C grep -c '[^ -~]')
is "$ascii_only" 0 "--ascii: every character on screen is ASCII"
like "$TUI_SCREEN" '[.:=+*#%@-]{6}' "--ascii: the heatmap uses the shade ramp"
like "$TUI_SCREEN" 'g2\(tau\) one-time' "--ascii: ASCII names"
like "$TUI_SCREEN" 'Up/Dn Bin' "--ascii: ASCII key hints"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "--ascii: quits with 0"

# ASCII by locale, and monochrome by NO_COLOR.
tui_start 100 30 LANG=C LC_ALL=C NO_COLOR=1 -- "$fx"
wait_for 'c2 = '; ok $? "C locale + NO_COLOR: starts"
unlike "$TUI_SCREEN" '▀' "C locale: ASCII automatically"
tui_keys 0
wait_for 'started on a 100x30 terminal \(ASCII, monochrome\)'
ok $? "the log records ASCII and monochrome"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "quits with 0"

tui_start 100 30 -- --no-color "$fx"
wait_for 'c2 = '; ok $? "--no-color: starts"
unlike "$TUI_SCREEN" '▀' "--no-color: no colour pairs, so shades, not half blocks"
like "$TUI_SCREEN" '[.:=+*#%@-]{6}' "--no-color: the shade ramp"
tui_keys 0
wait_for '\(UTF-8, monochrome\)'; ok $? "--no-color: monochrome"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "quits with 0"
done_testing
