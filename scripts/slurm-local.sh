#!/bin/sh
# slurm-local.sh start|stop|env DIR - a single-node Slurm cluster of this
# machine, all of its state in DIR: a munge key and munged on a socket in
# DIR, slurm.conf, slurmctld and slurmd.  For trying pagesim sweep --emit
# slurm without a cluster, and for the tests.  Needs root and Debian's
# slurm-wlm and munge (apt-get install slurm-wlm munge); the system's own
# Slurm and munge, if any, are left alone (other ports, other socket).
#
#   scripts/slurm-local.sh start ~/slurm   # then: export SLURM_CONF=~/slurm/slurm.conf
#   scripts/slurm-local.sh stop ~/slurm
#
# PAGESIM_SLURM_PORT (default 16817) is slurmctld's port, slurmd's the next.
set -eu
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|env DIR" >&2; exit 2; }
port=${PAGESIM_SLURM_PORT:-16817}

need() {
	for b in munged munge slurmctld slurmd sbatch sinfo scontrol; do
		command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || {
			echo "slurm-local: $b is missing (apt-get install slurm-wlm munge)" >&2; exit 77; }
	done
	[ "$(id -u)" = 0 ] || { echo "slurm-local: needs root (slurmd runs jobs as their users)" >&2; exit 77; }
}

case $cmd in
start)
	need
	PATH=$PATH:/usr/sbin
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
	chmod 700 "$dir/munge"
	# munged wants the socket's directory searchable by all
	chmod 711 "$dir"
	[ -f "$dir/munge/munge.key" ] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null; chmod 400 "$dir/munge/munge.key"; }
	munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"
	host=$(hostname -s)
	mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
	cat > "$dir/slurm.conf" <<EOF
# written by pagesim's scripts/slurm-local.sh: one node, this machine
ClusterName=pagesim-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF="$dir/slurm.conf"
	slurmctld
	slurmd
	# up once the node is idle
	i=0
	until sinfo -h -o %t 2>/dev/null | grep -qx idle; do
		i=$((i + 1))
		if [ $i -gt 60 ]; then
			echo "slurm-local: the node did not come up; see $dir/log" >&2
			tail -n 5 "$dir"/log/*.log >&2 || true
			exit 1
		fi
		sleep 0.5
	done
	echo "export SLURM_CONF=$dir/slurm.conf"
	;;
stop)
	PATH=$PATH:/usr/sbin
	dir=$(cd "$dir" && pwd)
	export SLURM_CONF="$dir/slurm.conf"
	[ -f "$dir/slurm.conf" ] && scontrol shutdown >/dev/null 2>&1 || true
	# the daemons named by their pid files, and only those
	for p in "$dir/slurmctld.pid" "$dir/slurmd.pid" "$dir/munge/munged.pid"; do
		[ -f "$p" ] || continue
		pid=$(cat "$p")
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 20 ]; do
			[ "$p" = "$dir/munge/munged.pid" ] && [ $i = 0 ] && kill "$pid" 2>/dev/null
			sleep 0.25
			i=$((i + 1))
		done
		kill -0 "$pid" 2>/dev/null && kill "$pid" 2>/dev/null || true
	done
	;;
env)
	echo "export SLURM_CONF=$(cd "$dir" && pwd)/slurm.conf"
	;;
*)
	echo "usage: $0 start|stop|env DIR" >&2
	exit 2
	;;
esac
