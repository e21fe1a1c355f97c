# sample_lib.sh: shell helpers of the `hetui sample` tests, sourced after
# tap.sh.  The caller sets $mark (a string put into HETUI_TEST_MARK of
# every run it starts) and, for wait_line, $pid (the run waited on).

# wait_line REGEX FILE: wait (60 s at most) until FILE has a line
# matching REGEX or the process $pid has ended.
wait_line() {
	_i=0
	while [ $_i -lt 1200 ] && ! grep -q "$1" "$2" 2>/dev/null; do
		kill -0 $pid 2>/dev/null || return
		sleep 0.05
		_i=$((_i + 1))
	done
}

# leftover: how many processes still carry this test's marker
leftover() {
	grep -ls "HETUI_TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
	    wc -l | tr -d ' '
}
