#!/usr/bin/env bash
# Launchers the test suite cannot run (torchrun needs torch, prrte is not
# packaged): their ranks are started here with exactly the environment the
# launcher gives them, as separate processes that are nobody's children, and
# must land as the launcher means: one attempt per launch, a restart a new
# attempt.  Also what no launcher at all gives, and a Slurm array task's
# shape on a machine without Slurm.
#
# Usage: test_launch_env.sh SCOPE_TUI RT_BASIC
set -euo pipefail
tui=$(realpath "$1")
prog=$(realpath "$2")
source "$(dirname "$0")/lib.sh"

# Whatever launcher runs this test stays out of the ranks started below.
while IFS='=' read -r name _; do
    case $name in
    SLURM_* | OMPI_* | PMI_* | PMIX_* | MPI_LOCAL* | TORCHELASTIC_* | RANK | LOCAL_RANK | \
        WORLD_SIZE | GROUP_RANK | NODE_RANK | SCOPE_*) unset "$name" ;;
    esac
done < <(env)

# ranks DIR N VAR=VALUE... : N processes at once, rank r with RANK-like
# variables set by rank_env, plus the variables given.
ranks() {
    local dir=$1 n=$2 r pids=()
    shift 2
    for ((r = 0; r < n; r++)); do
        env "$@" $(rank_env "$r" "$n") "$prog" init "$dir" rank >/dev/null 2>"err.$r" &
        pids+=($!)
    done
    for r in "${!pids[@]}"; do
        wait "${pids[$r]}" || fail "rank $r in $dir: $(cat "err.$r")"
    done
}


# torchrun: one rendezvous id, ranks from RANK, a restart counted.
rank_env() { echo "RANK=$1 LOCAL_RANK=$1 WORLD_SIZE=$2 GROUP_RANK=0 LOCAL_WORLD_SIZE=$2"; }
ranks torch 4 TORCHELASTIC_RUN_ID=job7 TORCHELASTIC_RESTART_COUNT=0
ranks torch 4 TORCHELASTIC_RUN_ID=job7 TORCHELASTIC_RESTART_COUNT=1
expect_attempts torch \
    "torchrun ranks=0,1,2,3 job=job7 steps=- task=- restarts=0" \
    "torchrun ranks=0,1,2,3 job=job7 steps=- task=- restarts=1"
"$tui" report torch >torch.report 2>&1 || fail "report of torch"
expect_in torch.report "Launcher torchrun   Restarts 1"
"$tui" torch --size 100x30 --keys 6 --print >torch.screen 2>&1 || fail "overview of torch"
expect_in torch.screen "launcher     torchrun"
expect_in torch.screen "restarts     1 (the launcher restarted the job)"
ok "torchrun: one attempt per launch, a restart is a new attempt"

# torchrun's default rendezvous id names no launch: each rank its own run.
ranks torch_none 2 TORCHELASTIC_RUN_ID=none TORCHELASTIC_RESTART_COUNT=0
[[ $(attempts "$tui" torch_none | wc -l) == 2 ]] || fail "torchrun, id none: $(attempts "$tui" torch_none)"
ok "torchrun without --rdzv-id: no launch to agree on"

# PMIx (prrte's prterun, Open MPI 5): the namespace is the launch.
rank_env() { echo "PMIX_RANK=$1"; }
ranks pmix 3 PMIX_NAMESPACE=prterun-vm-4711@1
ranks pmix 3 PMIX_NAMESPACE=prterun-vm-4712@1
expect_attempts pmix \
    "pmix ranks=0,1,2 job=prterun-vm-4711@1 steps=- task=- restarts=-" \
    "pmix ranks=0,1,2 job=prterun-vm-4712@1 steps=- task=- restarts=-"
ok "PMIx: one attempt per namespace"

# srun --mpi=pmix: each step a PMIx namespace of Slurm's, the job one attempt.
rank_env() { echo "PMIX_RANK=$1 SLURM_PROCID=$1"; }
ranks srun_pmix 2 PMIX_NAMESPACE=slurm.pmix.55.0 SLURM_JOB_ID=55 SLURM_STEP_ID=0
ranks srun_pmix 2 PMIX_NAMESPACE=slurm.pmix.55.1 SLURM_JOB_ID=55 SLURM_STEP_ID=1
expect_attempts srun_pmix "slurm ranks=0,0,1,1 job=55 steps=0,1 task=- restarts=0"
ok "srun --mpi=pmix: Slurm's PMIx namespaces, one per step, are one job"

# No launcher: each program a run of its own, as ever.
rank_env() { :; }
ranks plain 1
ranks plain 1
expect_attempts plain "- ranks=- job=- steps=- task=- restarts=-" \
    "- ranks=- job=- steps=- task=- restarts=-"
ok "no launcher: each start an attempt of its own"

# A Slurm array's tasks: a run directory each; with SCOPE_RUN_ID, one run.
rank_env() { echo "SLURM_PROCID=0 SLURM_NTASKS=1"; }
ranks array 1 SLURM_JOB_ID=101 SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=0
ranks array 1 SLURM_JOB_ID=102 SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=1
[[ -e array ]] && fail "an array task recorded into the directory named, not its task's"
expect_attempts array-task0 "slurm ranks=0 job=101 steps=- task=0 restarts=0"
expect_attempts array-task1 "slurm ranks=0 job=102 steps=- task=1 restarts=0"
"$tui" report array-task1 >array.report 2>&1 || fail "report of array-task1"
expect_in array.report "Launcher slurm   Array 100 task 1"
"$tui" array-task1 --size 100x30 --keys 6 --print >array.screen 2>&1 || fail "overview of task 1"
expect_in array.screen "job          102"
expect_in array.screen "array        100, task 1"
ranks joined 1 SLURM_JOB_ID=101 SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=0 SCOPE_RUN_ID=all
ranks joined 1 SLURM_JOB_ID=102 SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=1 SCOPE_RUN_ID=all
[[ $(attempts "$tui" joined | wc -l) == 1 ]] || fail "SCOPE_RUN_ID across an array: $(attempts "$tui" joined)"
ok "Slurm array tasks: a run each, or one run when SCOPE_RUN_ID names it"

finish
