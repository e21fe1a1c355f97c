#!/bin/sh
# fake_worker.sh [MODE]: a stand-in for hetui-worker that misbehaves on
# purpose, for tests/t_engine_proc.c (and t_ui_80cols.sh).  It speaks docs/wire-protocol.md
# just well enough: hello first, then one reaction per shard record.
#
# Modes:
#   ok          hello; per shard: heartbeat, progress, result; exit 0 on EOF
#   exit-early  hello; exit 3 when the shard arrives
#   badresult   hello; per shard a result record marked "unusable" (for
#               the coordinator's check_result)
#   hang        hello; on the shard, sleep without heartbeats
#   hang-noterm like hang, but SIGTERM is ignored (needs SIGKILL)
#   beat        hello; heartbeats every 0.1 s, never a result
#   tinystep    like beat, after one progress record with a step size of
#               5.88e-05 and no divergence (the shard row at 80 columns)
#   garbage     hello; then a line that is not a record
#   sigkill     hello; on the shard, half a record, then SIGKILL itself
#   partial     hello; on the shard, half a record, then exit 0
#   slow        hello byte by byte; on the shard a 3 KiB result record in
#               1 KiB pieces and a progress record byte by byte, with
#               pauses (what srun does to output)
#   badversion  hello hetui-wire 2
#   grandchild  like ok, but first starts a background `sleep` in its
#               process group and writes its pid to $FAKE_PIDFILE
#   script      per shard ID, the action in $FAKE_SHARD_<ID> (default ok):
#               any mode's shard reaction above, `error` (an error
#               record, then idle), or `pause` (ok after 0.3 s); with the
#               prefix `once:` only on the shard's first attempt (a marker
#               in the directory $FAKE_STATE), ok afterwards.  Used by
#               tests/t_engine_cmc.c.
# MODE defaults to $FAKE_MODE, then ok.  Everything it says on stderr
# goes to the worker log: one line at the start, none with FAKE_QUIET=1.
mode=${1:-${FAKE_MODE:-ok}}
[ "${FAKE_QUIET:-0}" = 1 ] || echo "fake_worker: mode $mode, pid $$" >&2

# slowly FILE BS: copy FILE to stdout BS bytes at a time, pausing between.
slowly() {
	size=$(wc -c <"$1")
	i=0
	while [ $((i * $2)) -lt "$size" ]; do
		dd if="$1" bs="$2" skip=$i count=1 2>/dev/null
		sleep 0.01
		i=$((i + 1))
	done
}

shard_id() {
	echo "$1" | sed -n 's/.*"shard":\([0-9][0-9]*\).*/\1/p'
}

tmp=${TMPDIR:-/tmp}/fake_worker.$$
trap 'rm -f "$tmp"' EXIT

case $mode in
badversion)
	echo "hello hetui-wire 2"
	read -r line
	exit 0 ;;
slow)
	printf 'hello hetui-wire 1\n' >"$tmp"
	slowly "$tmp" 1 ;;
grandchild)
	sleep 300 &
	echo $! >"$FAKE_PIDFILE"
	echo "hello hetui-wire 1" ;;
hang-noterm)
	trap '' TERM
	echo "hello hetui-wire 1" ;;
*)
	echo "hello hetui-wire 1" ;;
esac

while read -r line; do
	case $line in
	shard*) ;;
	bye*) echo 'bye {}'; exit 0 ;;
	*) continue ;;
	esac
	id=$(shard_id "$line")
	act=$mode
	if [ "$mode" = script ]; then
		eval "act=\${FAKE_SHARD_$id:-ok}"
		case $act in
		once:*)
			act=${act#once:}
			if [ -e "$FAKE_STATE/shard-$id" ]; then
				act=ok
			else
				: >"$FAKE_STATE/shard-$id"
			fi ;;
		esac
		if [ "$act" = pause ]; then
			sleep 0.3
			act=ok
		fi
	fi
	case $act in
	error)
		echo "error {\"shard\":$id,\"code\":\"HET_EDATA\",\"msg\":\"fake failure of shard $id\"}" ;;
	ok|grandchild)
		echo "heartbeat {\"shard\":$id}"
		echo "progress {\"shard\":$id,\"phase\":\"sampling\",\"chain\":1,\"iteration\":10,\"step_size\":0.25,\"accept\":0.875,\"divergences\":2,\"rhat\":1.015625}"
		echo "result {\"shard\":$id,\"note\":\"fake\"}" ;;
	badresult)
		echo "result {\"shard\":$id,\"note\":\"unusable\"}" ;;
	exit-early)
		exit 3 ;;
	hang|hang-noterm)
		while :; do sleep 1; done ;;
	beat)
		while :; do echo "heartbeat {\"shard\":$id}"; sleep 0.1; done ;;
	tinystep)
		echo "progress {\"shard\":$id,\"phase\":\"sampling\",\"chain\":0,\"iteration\":40,\"step_size\":5.88e-05,\"accept\":0.96,\"divergences\":0,\"rhat\":1.002}"
		while :; do echo "heartbeat {\"shard\":$id}"; sleep 0.1; done ;;
	garbage)
		echo "this is not a wire record" ;;
	sigkill)
		printf 'progress {"shard":%s,"pha' "$id"
		kill -9 $$ ;;
	partial)
		printf 'result {"shard":%s' "$id"
		exit 0 ;;
	slow)
		pad=$(printf '%03000d' 0)
		printf 'result {"shard":%s,"pad":"%s"}\n' "$id" "$pad" >"$tmp"
		slowly "$tmp" 1024
		printf 'progress {"shard":%s,"phase":"warmup","chain":0,"iteration":1,"step_size":1,"accept":0.5,"divergences":0,"rhat":null}\n' "$id" >"$tmp"
		slowly "$tmp" 1 ;;
	esac
done
exit 0
