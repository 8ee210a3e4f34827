#!/usr/bin/env bash
# Starts (or stops) a single-node Slurm cluster for tests, from Debian's
# packages and without systemd: munged, slurmctld and slurmd run as plain
# background daemons whose sockets, state and logs all live under DIR.
#
# Usage:
#   scripts/slurm-local.sh start DIR   # installs slurm-wlm/munge if missing
#   scripts/slurm-local.sh stop DIR
#   scripts/slurm-local.sh env DIR     # prints `export SLURM_CONF=…`
#
# After start, `export SLURM_CONF=DIR/slurm.conf` points sbatch, squeue and
# sacct-less tools at it. The node offers every CPU of this machine.
set -euo pipefail
cmd=${1:?usage: $0 start|stop|env DIR}
dir=${2:?usage: $0 start|stop|env DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf

install_packages() {
	if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
		command -v munged >/dev/null && command -v sbatch >/dev/null; then
		return
	fi
	[ "$(id -u)" = 0 ] || { echo "slurm-local: slurm-wlm and munge are missing; install them as root: apt-get install slurm-wlm munge" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq -o DPkg::Lock::Timeout=300 slurm-wlm munge >/dev/null
}

stop() {
	for p in slurmd slurmctld munged; do
		if [ -f "$dir/$p.pid" ]; then
			pid=$(cat "$dir/$p.pid")
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$pid" 2>/dev/null || true
			rm -f "$dir/$p.pid"
		fi
	done
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
	local n=$(($1 * 10)) what=$2
	shift 2
	for _ in $(seq "$n"); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	echo "slurm-local: $what did not come up; logs in $dir" >&2
	tail -n 20 "$dir"/*.log >&2 || true
	return 1
}

start() {
	install_packages
	stop
	local host cpus mem user
	host=$(hostname -s)
	cpus=$(nproc)
	mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
	user=$(id -un)
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 700 "$dir/munge"
	if [ ! -f "$dir/munge/munge.key" ]; then
		dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
		chmod 400 "$dir/munge/munge.key"
	fi
	# munged refuses to run as root without --force; its files are ours.
	munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
		--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed"
	wait_for 10 munged munge --socket="$dir/munge/munge.socket" -n
	cat >"$conf" <<CONF
# Single-node test cluster written by scripts/slurm-local.sh.
ClusterName=mmds-local
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$((6817 + RANDOM % 1000))
SlurmdPort=$((7817 + RANDOM % 1000))
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SchedulerParameters=defer
MaxArraySize=1001
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF=$conf
	slurmctld -f "$conf"
	wait_for 20 slurmctld scontrol ping
	slurmd -f "$conf"
	wait_for 30 "slurmd (node idle)" sh -c "sinfo -h -N -o %t | grep -qx idle"
	echo "export SLURM_CONF=$conf"
}

case $cmd in
start) start ;;
stop) stop ;;
env) echo "export SLURM_CONF=$conf" ;;
*) echo "usage: $0 start|stop|env DIR" >&2; exit 2 ;;
esac
