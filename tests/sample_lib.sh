# sample_lib.sh: shell helpers of the `hetui sample` tests, sourced after
# tap.sh.  The caller sets $mark (a string put into HETUI_TEST_MARK of
# every run it starts; sample_setup does) and, for wait_line and
# wait_file, $pid (the run waited on).

# sample_setup NAME: work in $TAP_TMP (also $dir) with the test configs
# sample_truth.yaml and sample_run.yaml; mark is NAME_PID_marker.
sample_setup() {
	dir="$TAP_TMP"
	cp "$top_srcdir/tests/configs/sample_truth.yaml" \
	    "$top_srcdir/tests/configs/sample_run.yaml" "$dir/" || exit 1
	cd "$dir" || exit 1
	mark="$1_$$_marker"
}

# sample_three: simulate the test data (sim.h5), write three.yaml (the
# run at 3 shards) and run it uninterrupted into full/ (two checks).
sample_three() {
	run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
	    --noise 0.003 --seed 11
	is "$RUN_RC" 0 "simulate the test data"
	sed 's/num_shards: 2$/num_shards: 3/' sample_run.yaml >three.yaml
	run_capture "$HETUI" sample -c three.yaml -o full --workers 2
	is "$RUN_RC" 0 "an uninterrupted run: exit 0"
}

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

# wait_file FILE: wait (60 s at most) until FILE exists or $pid ended.
wait_file() {
	_i=0
	while [ $_i -lt 1200 ] && [ ! -e "$1" ]; do
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

# h5data FILE DATASET: the values of a dataset, without h5dump's header
h5data() {
	h5dump -d "$2" "$1" 2>/dev/null | sed -n '/DATA {/,$p'
}
