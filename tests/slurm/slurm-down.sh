#!/bin/sh
# slurm-down.sh: stop what slurm-up.sh started, by PID file only, after
# cancelling any job step left behind.  Usage: slurm-down.sh [DIR]
dir=${1:-/tmp/hetui-slurm}
SLURM_CONF="$dir/etc/slurm.conf"
export SLURM_CONF
scancel --user="$(id -un)" 2>/dev/null || true
i=0
while [ -n "$(squeue -h 2>/dev/null)" ] && [ $i -lt 50 ]; do
	i=$((i + 1)); sleep 0.2
done
stop() {
	[ -s "$1" ] || return 0
	p=$(cat "$1")
	kill "$p" 2>/dev/null || return 0
	i=0
	while [ $i -lt 100 ]; do
		kill -0 "$p" 2>/dev/null || return 0
		[ "$(ps -o stat= -p "$p" 2>/dev/null)" = Z ] && return 0
		i=$((i + 1)); sleep 0.1
	done
	echo "slurm-down: pid $p ($1) did not exit" >&2
	return 1
}
rc=0
stop "$dir/run/slurmd.pid" || rc=1
stop "$dir/run/slurmctld.pid" || rc=1
stop /run/munge/munged.pid || rc=1
exit $rc
