# tui.sh: drive the real hetui binary inside a private tmux server.
# Source it after tap.sh:  . "$top_srcdir/tests/tap.sh"; . "$top_srcdir/tests/tui.sh"
#
#   tui_start COLS LINES [ENV=VALUE ...] -- [HETUI ARGS ...]
#                                 start hetui in a detached session
#   tui_keys KEY ...              tmux send-keys (key names or literal text)
#   tui_text TEXT                 send literal text (send-keys -l)
#   wait_for REGEX [TIMEOUT]      poll the pane until REGEX (grep -E) shows;
#                                 on timeout print the pane as diagnostics
#   wait_gone REGEX [TIMEOUT]     poll until REGEX is no longer shown
#   tui_screen                    the pane as text (also in $TUI_SCREEN)
#   tui_resize COLS LINES         resize the window
#   tui_wait_exit [TIMEOUT]       wait for hetui to exit; sets TUI_STATUS
#   tui_pid                       hetui's process id
#   tui_fixture PATH [ARGS]       write a synthetic APS-U file
#
# Rules (aesthetics-anchors §6.9): a private server (-L hetui-test-$$,
# -f /dev/null), a fixed size, no fixed sleeps (every wait polls the pane
# with a deadline), the exit status recorded by a shell wrapper, and the
# server killed at the end whatever happens.

if [ -z "$TMUX_BIN" ] || ! command -v "$TMUX_BIN" >/dev/null 2>&1; then
	skip_all "tmux not available (TMUX_BIN is empty)"
fi

TUI_RUN=0
TUI_SOCK="hetui-test-$$"
TUI_ST="$TAP_TMP/hetui.status"
TUI_SCREEN=
TUI_STATUS=
TUI_SESSION=t
TUI_TERM=xterm-256color
for t in tmux-256color screen-256color xterm-256color; do
	if infocmp "$t" >/dev/null 2>&1; then TUI_TERM=$t; break; fi
done

tui() { "$TMUX_BIN" -u -L "$TUI_SOCK" -f /dev/null "$@"; }

# kill-server leaves the socket file behind; remove it too.
tui_kill() {
	tui kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TUI_SOCK"
}

tui_cleanup() {
	tui_kill
	rm -rf "$TAP_TMP"
}
trap 'tui_cleanup' EXIT
trap 'exit 1' INT TERM HUP

tui_start() {
	_tui_cols=$1 _tui_lines=$2
	shift 2
	_tui_env="LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=$TUI_TERM"
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		_tui_env="$_tui_env $1"
		shift
	done
	[ "$1" = "--" ] && shift
	rm -f "$TUI_ST"
	# A fresh server per run: reusing a socket races with the exit of
	# the previous server.
	tui_kill
	TUI_RUN=$((TUI_RUN + 1))
	TUI_SOCK="hetui-test-$$-$TUI_RUN"
	# The wrapper records hetui's exit status, then keeps the pane alive
	# (cat ends when the server closes the pty) so the final screen and
	# the terminal modes can be inspected; a dead pane's modes are not
	# hetui's.
	tui new-session -d -s "$TUI_SESSION" -x "$_tui_cols" -y "$_tui_lines" \
	    "env -u TMUX $_tui_env '$HETUI' $*; echo \$? > '$TUI_ST'; exec cat >/dev/null" \
	    >/dev/null 2>&1
}

tui_screen() {
	TUI_SCREEN=$(tui capture-pane -p -t "$TUI_SESSION" 2>/dev/null)
	printf '%s\n' "$TUI_SCREEN"
}

tui_keys() { tui send-keys -t "$TUI_SESSION" "$@"; }
tui_text() { tui send-keys -t "$TUI_SESSION" -l "$1"; }

# Polling interval: the condition is re-checked every 50 ms.
_tui_poll() {
	_tui_want=$1 _tui_tmo=${2:-10} _tui_neg=$3
	_tui_n=$(awk "BEGIN { print int($_tui_tmo * 20) }")
	while [ "$_tui_n" -gt 0 ]; do
		tui_screen >/dev/null
		if printf '%s\n' "$TUI_SCREEN" | grep -Eq -- "$_tui_want"; then
			# tmux may show a frame half painted (the new panel's
			# top over the old one's bottom): what a test then
			# reads of TUI_SCREEN is a second capture that still
			# matches
			if [ -z "$_tui_neg" ]; then
				sleep 0.02
				tui_screen >/dev/null
				printf '%s\n' "$TUI_SCREEN" |
				    grep -Eq -- "$_tui_want" && return 0
			fi
		else
			[ -n "$_tui_neg" ] && return 0
		fi
		sleep 0.05
		_tui_n=$((_tui_n - 1))
	done
	diag "timed out after ${_tui_tmo}s waiting for ${_tui_neg:+absence of }/$_tui_want/; the pane:"
	printf '%s\n' "$TUI_SCREEN" | sed 's/^/#   |/'
	return 1
}

wait_for() { _tui_poll "$1" "${2:-10}" ""; }
wait_gone() { _tui_poll "$1" "${2:-10}" "neg"; }

tui_resize() {
	tui resize-window -t "$TUI_SESSION" -x "$1" -y "$2" >/dev/null 2>&1
}

tui_pid() {
	_tui_pp=$(tui display-message -p -t "$TUI_SESSION" '#{pane_pid}')
	ps -o pid= --ppid "$_tui_pp" 2>/dev/null | awk 'NR == 1 { print $1 }'
}

tui_wait_exit() {
	_tui_n=$(awk "BEGIN { print int(${1:-10} * 20) }")
	while [ "$_tui_n" -gt 0 ]; do
		if [ -s "$TUI_ST" ]; then
			TUI_STATUS=$(cat "$TUI_ST")
			return 0
		fi
		sleep 0.05
		_tui_n=$((_tui_n - 1))
	done
	TUI_STATUS=
	diag "hetui did not exit within ${1:-10}s; the pane:"
	tui_screen | sed 's/^/#   |/'
	return 1
}

tui_fixture() {
	_tui_fx=$1
	shift
	"$top_builddir/tests/mkdemo_fixture" "$_tui_fx" "$@"
}
