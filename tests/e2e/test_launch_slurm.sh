#!/usr/bin/env bash
# Slurm, started for real on this machine (slurm_node.sh): what its ranks
# record lands as the job means.  An srun step of 4 tasks is one attempt with
# the job id; a batch script's two steps and the program it runs itself are
# one attempt, steps named; each task of a job array is a run of its own; a
# job requeued while running (scontrol requeuehold, then release) starts a
# new attempt, so nothing is counted twice.  Needs root (the daemons) and the packages slurm-wlm and munge.
#
# Usage: test_launch_slurm.sh SCOPE_TUI RT_BASIC
set -euo pipefail
tui=$(realpath "$1")
prog=$(realpath "$2")
if [[ $(id -u) != 0 ]]; then
    echo "SKIP: a single-node Slurm needs root to start munged, slurmctld and slurmd"
    exit 0
fi
for cmd in setpriv munged mungekey slurmctld slurmd srun sbatch scontrol squeue sinfo; do
    if ! command -v "$cmd" >/dev/null; then
        echo "SKIP: $cmd not found (Debian packages slurm-wlm and munge; scripts/setup.sh installs them)"
        exit 0
    fi
done
here=$(dirname "$(realpath "$0")")
source "$here/lib.sh"
source "$here/slurm_node.sh"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
trap 'exit 143' TERM INT HUP
# This test's cluster, not one the environment names.
while IFS='=' read -r name _; do
    case $name in SLURM_* | SCOPE_*) unset "$name" ;; esac
done < <(env)

slurm_start || exit 1
mkdir runs


# srun -n 4: one step, one attempt, ranks 0-3 and the job id.
timeout 120 srun -n 4 "$prog" init runs/srun rank >srun.out 2>&1 || fail "srun: $(tail -5 srun.out)"
job=$(attempts "$tui" runs/srun | sed -n 's/.* job=\([0-9]*\) .*/\1/p')
expect_attempts runs/srun "slurm ranks=0,1,2,3 job=$job steps=0 task=- restarts=0"
"$tui" report runs/srun >srun.report 2>&1 || fail "report of the srun run"
expect_in srun.report "Ranks 0-3   Job $job"
expect_in srun.report "Launcher slurm   Step 0"
ok "srun -n 4: one attempt, ranks 0-3, job $job"

# A batch script: two steps of 2 tasks and the script's own program.
cat >steps.sh <<SCRIPT
#!/bin/sh
srun -n 2 "$prog" init runs/batch step
srun -n 2 "$prog" init runs/batch step
"$prog" init runs/batch script
SCRIPT
timeout 120 sbatch --wait -n 2 -D "$tmp" -o steps.out steps.sh >/dev/null || fail "sbatch: $(tail -5 steps.out)"
job=$(attempts "$tui" runs/batch | sed -n 's/.* job=\([0-9]*\) .*/\1/p')
expect_attempts runs/batch "slurm ranks=0,0,0,1,1 job=$job steps=-,0,1 task=- restarts=0"
"$tui" report runs/batch >batch.report 2>&1 || fail "report of the batch run"
expect_in batch.report "Launcher slurm   Steps 0, 1"
# Roles are listed busiest first (phase time), which the machine's load
# decides between these two: their counts are what is asked.
grep -qE '^Runtime .*Roles (step x4, script x1|script x1, step x4)$' batch.report ||
    fail "batch.report lacks the roles step x4 and script x1: $(grep Roles batch.report)"
ok "sbatch with two steps: one attempt, steps 0 and 1 named"

# A job array of 2: a run directory per task.
timeout 120 sbatch --wait --array=0-1 -n 1 -D "$tmp" -o array.out \
    --wrap "'$prog' init runs/array task" >/dev/null || fail "sbatch --array: $(tail -5 array.out)"
[[ -e runs/array ]] && fail "the array's tasks recorded into one directory"
for task in 0 1; do
    got=$(attempts "$tui" "runs/array-task$task")
    [[ $got == "slurm ranks=0 job="*" steps=- task=$task restarts=0" ]] ||
        fail "task $task of the array: $got"
done
"$tui" report runs/array-task1 >array.report 2>&1 || fail "report of task 1"
expect_in array.report "Array "
expect_in array.report " task 1"
ok "a job array of 2: a run per task"

# A job requeued while it runs: its first start recorded, then the second.
cat >requeue.sh <<SCRIPT
#!/bin/sh
"$prog" init runs/requeue rank
echo \$\$ >"ran.\${SLURM_RESTART_COUNT:-0}"
exec sleep 300
SCRIPT
job=$(sbatch --parsable -n 1 -D "$tmp" -o requeue.out requeue.sh)
wait_for() { # FILE: up to 120 s (a bound for a job that never starts)
    local deadline=$((SECONDS + 120))
    while [[ ! -s $1 ]] && ((SECONDS < deadline)); do sleep 0.1; done
    [[ -s $1 ]]
}
wait_for ran.0 || fail "the job to requeue did not start: $(squeue; tail -5 requeue.out)"
# Requeued and held, so that it starts again only once its first start has
# ended (started at once on the same node, it can fail to launch while the
# first one's step is still being cleaned up); then released, now rather
# than after the wait Slurm puts before a requeued job's start.
scontrol requeuehold "$job" || fail "scontrol requeuehold $job"
first=$(cat ran.0)
deadline=$((SECONDS + 120))
while [[ -e /proc/$first || $(squeue -h -j "$job" -o %T) != PENDING ]] && ((SECONDS < deadline)); do
    sleep 0.1
done
scontrol release "$job" || fail "scontrol release $job"
while [[ ! -s ran.1 ]] && ((SECONDS < deadline)); do
    [[ $(squeue -h -j "$job" -o %r) == BeginTime ]] && scontrol update jobid="$job" starttime=now
    sleep 0.2
done
[[ -s ran.1 ]] || fail "the requeued job did not start again: $(scontrol show job "$job"; tail -5 requeue.out)"
scancel "$job"
expect_attempts runs/requeue "slurm ranks=0 job=$job steps=- task=- restarts=0" \
    "slurm ranks=0 job=$job steps=- task=- restarts=1"
"$tui" report runs/requeue >requeue.report 2>&1 || fail "report of the requeued job"
expect_in requeue.report "Restarts 1"
expect_in requeue.report "(attempt 2 of 2, the newest; --attempt N shows another)"
ok "scontrol requeuehold and release of a running job: a new attempt"

finish
