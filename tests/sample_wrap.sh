#!/bin/sh
# sample_wrap.sh: a worker command for tests/t_sample_faults.sh.  It runs
# the real $HETUI_WORKER, except that the worker spawned as number
# in $WRAP_BAD (a blank-separated list of 0-based spawn numbers, counted
# with mkdir in the directory $WRAP_STATE; "all" for every worker)
# misbehaves as $WRAP_MODE:
#   sigkill  the real worker, SIGKILLed $WRAP_DELAY (0.5) s after its start
#            (mid-shard)
#   hang     says hello, takes a shard, then stays silent forever
#   garbage  says hello, takes a shard, then writes a line that is not a
#            record
# With WRAP_SAY=1 every worker first writes a line to its stderr (which
# the coordinator sends to OUT/worker-logs/worker-N.log).
# The spawn numbers follow the order in which the workers' shells reach
# mkdir, not the order the coordinator started them: a bad worker that
# failed before the other first worker's shell ran would let a retry take
# number 1 and the late first worker number 2.  So a bad worker waits
# (10 s at most) until the first $WRAP_INITIAL (2) workers are numbered.
n=0
while ! mkdir "$WRAP_STATE/w$n" 2>/dev/null; do
	n=$((n + 1))
done
case " $WRAP_BAD " in
*" all "*|*" $n "*) bad=1 ;;
*) bad=0 ;;
esac
[ "${WRAP_SAY:-0}" = 1 ] && echo "sample_wrap: spawn $n, mode ${WRAP_MODE:-none}" >&2
if [ $bad = 1 ]; then
	_i=0
	while [ ! -d "$WRAP_STATE/w$((${WRAP_INITIAL:-2} - 1))" ] &&
	    [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	case $WRAP_MODE in
	sigkill)
		( sleep "${WRAP_DELAY:-0.5}"; kill -9 $$ ) \
		    </dev/null >/dev/null 2>&1 &
		exec "$HETUI_WORKER" ;;
	hang)
		echo "hello hetui-wire 1"
		read -r line
		exec sleep 3600 ;;
	garbage)
		echo "hello hetui-wire 1"
		read -r line
		echo "this is not a wire record"
		exec cat >/dev/null ;;
	esac
fi
exec "$HETUI_WORKER"
