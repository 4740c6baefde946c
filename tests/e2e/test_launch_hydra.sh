#!/usr/bin/env bash
# MPICH's launcher, Hydra (mpiexec.hydra; Intel MPI's and Cray MPICH's
# mpiexec are Hydra too), started for real: its ranks name no launch, yet the
# ranks of one mpiexec are one attempt, each mpiexec into the same directory
# is an attempt of its own, and two at once are never merged.  Several hosts
# are Hydra's fork launcher with a host list: a proxy per named host, as over
# ssh, on this one machine.
#
# Usage: test_launch_hydra.sh SCOPE_TUI RT_BASIC [MPIEXEC_HYDRA]
set -euo pipefail
tui=$(realpath "$1")
prog=$(realpath "$2")
hydra=${3:-}
if [[ -z $hydra || ! -x $hydra ]]; then
    echo "SKIP: mpiexec.hydra not found (Debian package mpich; scripts/setup.sh installs it)"
    exit 0
fi
source "$(dirname "$0")/lib.sh"
unset SCOPE_RUN_ID SCOPE_RUN_DIR SCOPE_PROFILE

launch() { # DIR NP [hydra options...]
    local dir=$1 np=$2
    shift 2
    timeout 120 "$hydra" "$@" -n "$np" "$prog" init "$dir" rank >launch.out 2>&1 ||
        fail "mpiexec.hydra -n $np $*: $(tail -5 launch.out)"
}


four="hydra ranks=0,1,2,3 job=- steps=- task=- restarts=-"

launch one 4
expect_attempts one "$four"
"$tui" report one >one.report 2>&1 || fail "report of one launch"
expect_in one.report "Ranks 0-3"
expect_in one.report "Launcher hydra"
grep -q "attempts" one.report && fail "one launch reads as several attempts: $(head -5 one.report)"
ok "mpiexec.hydra -n 4: one attempt, ranks 0-3"

# A wrapper between proxy and rank (a shell that does not exec) changes
# nothing: the rank finds its proxy among its ancestors.
timeout 120 "$hydra" -n 4 sh -c "'$prog' init wrapped rank; true" >launch.out 2>&1 ||
    fail "mpiexec.hydra -n 4 sh -c: $(tail -5 launch.out)"
expect_attempts wrapped "$four"
ok "mpiexec.hydra -n 4 of a shell that runs the rank: one attempt"

launch two 4
launch two 4
expect_attempts two "$four" "$four"
ok "two launches one after the other: two attempts"

# Two at once: neither waits for the other, and each is whole.
timeout 120 "$hydra" -n 4 "$prog" init both rank >a.out 2>&1 &
a=$!
timeout 120 "$hydra" -n 4 "$prog" init both rank >b.out 2>&1 || fail "second launch: $(tail -3 b.out)"
wait "$a" || fail "first launch: $(tail -3 a.out)"
expect_attempts both "$four" "$four"
ok "two launches at once: two attempts, none merged"

# Two hosts of two ranks each: one attempt; again: a second.
launch hosts 4 -launcher fork -hosts h1,h2 -ppn 2
launch hosts 4 -launcher fork -hosts h1,h2 -ppn 2
expect_attempts hosts "$four" "$four"
ok "mpiexec.hydra over two hosts, twice: two attempts of ranks 0-3"

# A launch of another size never joins a launch still in its start window.
launch sizes 4 -launcher fork -hosts h1,h2 -ppn 2
launch sizes 2 -launcher fork -hosts h1,h2 -ppn 1
expect_attempts sizes "$four" "hydra ranks=0,1 job=- steps=- task=- restarts=-"
ok "launches of 4 and 2 ranks over two hosts: two attempts"

# A shared run directory may hold anything: a FIFO planted where host h1's
# claim of the first launch goes blocks no rank (it is not opened to read),
# and h1's ranks fall back together to an id of their own, saying why.
mkdir -p planted/.scope/launches
slot=$(python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print("%016x" % h)' "$(realpath planted)|hydra=4.0|host=h1")
mkfifo "planted/.scope/launches/$slot"
launch planted 4 -launcher fork -hosts h1,h2 -ppn 2
expect_in launch.out "cannot agree on a run id"
got=$(attempts "$tui" planted | sort)
[[ $got == $'hydra ranks=0,1 job=- steps=- task=- restarts=-\nhydra ranks=2,3 job=- steps=- task=- restarts=-' ]] ||
    fail "planted: attempts, wanted h1's ranks 0,1 and h2's 2,3 apart:
$got"
ok "a FIFO planted as a host's claim: no rank blocks, each host's ranks stay together"

finish
