#!/bin/sh
# slurm-up.sh: bring up a single-node Slurm cluster on localhost for the
# srun transport test (tests/t_slurm.sh).  Debian 12, run as root, no
# systemd needed.  Follows the measured recipe of the project's shared
# docs (slurm-single-node.md): munged as the munge user, slurmctld and
# slurmd in daemon mode with PID files, proctrack/linuxproc and task/none
# (no cgroups), InactiveLimit so a leaked step is reaped, and
# OverSubscribe so more workers than cores can run at once.
#
# Usage: tests/slurm/slurm-up.sh [DIR]   (default /tmp/hetui-slurm)
# Prints the SLURM_CONF to export on its last line.  Exits non-zero with
# a one-line reason when any step fails.
set -eu
dir=${1:-/tmp/hetui-slurm}
die() { echo "slurm-up: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and starts daemons)"
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 ||
    ! command -v srun >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null 2>&1 || true
	apt-get install -y -qq --no-install-recommends slurmctld slurmd \
	    slurm-client munge >/dev/null 2>&1 ||
	    die "apt-get install slurmctld slurmd slurm-client munge failed"
fi

host=$(hostname -s)
getent hosts "$host" >/dev/null 2>&1 ||
    die "the host name '$host' does not resolve; add '127.0.0.1 $host' to /etc/hosts"

# munge
if [ ! -s /etc/munge/munge.key ]; then
	mungekey --create --keyfile=/etc/munge/munge.key
	chown munge:munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -S /run/munge/munge.socket.2 ] || ! munge -n >/dev/null 2>&1; then
	runuser -u munge -- /usr/sbin/munged || die "munged did not start"
fi
i=0
until [ -S /run/munge/munge.socket.2 ]; do
	i=$((i + 1)); [ $i -le 50 ] || die "munged socket did not appear"
	sleep 0.1
done
munge -n | unmunge >/dev/null || die "munge round trip failed"

# slurm.conf
mem=$(free -m | awk '/^Mem:/ { print $2 }')
ncpu=$(nproc)
mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
cat > "$dir/etc/slurm.conf" <<CONF
ClusterName=hetui
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
InactiveLimit=10
KillWait=5
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
SLURM_CONF="$dir/etc/slurm.conf"
export SLURM_CONF

/usr/sbin/slurmctld -i || die "slurmctld did not start (see $dir/log/slurmctld.log)"
/usr/sbin/slurmd || die "slurmd did not start (see $dir/log/slurmd.log)"
i=0
until sinfo -h -o '%T' 2>/dev/null | grep -qx idle; do
	i=$((i + 1)); [ $i -le 100 ] || die "the node did not become idle (see $dir/log)"
	sleep 0.2
done
[ "$(srun -n1 hostname)" = "$host" ] || die "srun -n1 hostname failed"
echo "SLURM_CONF=$SLURM_CONF"
