# shellcheck shell=bash
# A single-node Slurm cluster of this machine, for one test: munged,
# slurmctld and slurmd started as root with everything they write (keys,
# sockets, state, spool, logs, pid files) under one directory, on ports
# nobody listens on, so that two tests can each run one at the same time.
# The daemons talk over 127.0.0.1, so the host's name need not resolve.
# The caller must be root; slurm_stop always runs from slurm_start's caller's
# EXIT trap.
#
#   slurm_start       starts the cluster in a new temporary directory,
#                     exports SLURM_CONF; 0 when the node is idle, else 1
#                     with why on stderr
#   slurm_stop        cancels every job, stops the daemons, waits for them,
#                     removes the directory

slurm_pids=()
slurm_dir=

# Two TCP ports free on this machine right now.
free_ports() {
    python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))'
}

slurm_start() {
    local dir node ports
    # munged wants every folder above its socket searchable by all: not
    # under a test's private scratch directory.
    dir=$(mktemp -d "${TMPDIR:-/tmp}/scope-slurm.XXXXXX") || return 1
    slurm_dir=$dir
    node=$(hostname -s)
    read -r -a ports < <(free_ports)
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 755 "$dir" "$dir/munge"
    mungekey -c -k "$dir/munge/key" -b 1024 || return 1
    : >"$dir/plugstack.conf"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=scopetest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
MinJobAge=300
KillWait=2
SchedulerParameters=sched_interval=1
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
    export SLURM_CONF=$dir/slurm.conf
    # Each daemon gets SIGKILL should the test's shell die without its
    # trap (ctest kills a test that runs past its timeout): none outlives it.
    local guard=(setpriv --pdeathsig KILL)
    "${guard[@]}" munged -F --key-file="$dir/munge/key" --socket="$dir/munge/sock" \
        --pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
        --seed-file="$dir/munge/seed" >"$dir/log/munged.out" 2>&1 &
    slurm_pids+=($!)
    local deadline=$((SECONDS + 120)) # a bound for daemons that never start; a loaded machine needs a few s
    while [[ ! -S $dir/munge/sock ]] && ((SECONDS < deadline)); do
        if ! kill -0 "${slurm_pids[0]}" 2>/dev/null; then
            echo "slurm_node.sh: munged did not start:" >&2
            cat "$dir/log/munged.out" >&2
            return 1
        fi
        sleep 0.1
    done
    "${guard[@]}" slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
    slurm_pids+=($!)
    "${guard[@]}" slurmd -D -f "$SLURM_CONF" -N "$node" >"$dir/log/slurmd.out" 2>&1 &
    slurm_pids+=($!)
    while ((SECONDS < deadline)); do
        [[ $(timeout 5 sinfo -h -o %T 2>/dev/null) == idle ]] && return 0
        sleep 0.1
    done
    echo "slurm_node.sh: the node did not come up in 120 s; logs:" >&2
    tail -n 5 "$dir"/log/* >&2
    return 1
}

slurm_stop() {
    [[ ${#slurm_pids[@]} -gt 0 ]] || return 0
    if [[ -n ${SLURM_CONF:-} ]]; then
        scancel --full --quiet --user=root 2>/dev/null || true
        local i
        for ((i = 0; i < 100; i++)); do
            [[ -z $(timeout 5 squeue -h -t running,completing 2>/dev/null) ]] && break
            sleep 0.1
        done
    fi
    # slurmd, slurmctld, then munged, which they need until they are gone.
    # A daemon that ignores SIGTERM (slurmd retrying a registration does)
    # gets SIGKILL after 5 s.
    local p pid j
    for ((p = ${#slurm_pids[@]} - 1; p >= 0; p--)); do
        pid=${slurm_pids[$p]}
        kill "$pid" 2>/dev/null || true
        for ((j = 0; j < 50 && $(kill -0 "$pid" 2>/dev/null && echo 1 || echo 0); j++)); do
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    slurm_pids=()
    [[ -n $slurm_dir ]] && rm -rf "$slurm_dir"
    slurm_dir=""
}
