#!/usr/bin/env bash
# scope-tui reduce and scope-reduce under real MPI launchers (docs/reduce.md):
# a run of 24 processes on 6 hosts, one log damaged in the middle and one
# that is not a log at all, reduced to SUMMARY by
#
#   - scope-tui reduce (one rank, no MPI);
#   - scope-reduce-openmpi under mpirun.openmpi at 1, 2 and 4 ranks;
#   - scope-reduce-mpich under mpiexec.hydra at 1, 2 and 4 ranks;
#   - and a run of 3 processes on 4 ranks, where a rank reads nothing.
#
# A run read past the reader's caps (SCOPE_READ_MAX_NODES) gives a SUMMARY
# that says what they left out, as the run's report does.
#
# report --json of every SUMMARY is the same to the byte, and the same as
# report --json of the run directory itself (the path it was loaded from,
# run.dir, aside); the two bad logs are caveats in it, not an abort.  A rank
# that aborts (SCOPE_REDUCE_ABORT_RANK) fails the job with a non-zero status
# and leaves an earlier SUMMARY as it was, with no temporary file beside it.
#
# Usage: test_reduce.sh SCOPE_TUI GEN_RUN [REDUCE_OPENMPI MPIRUN_OPENMPI]
#                       [REDUCE_MPICH MPIEXEC_HYDRA]   ("-" for one not built)
set -uo pipefail
tui=$(realpath "$1")
gen_run=$(realpath "$2")
red_ompi=${3:--} mpirun=${4:--} red_mpich=${5:--} hydra=${6:--}
[ "$red_ompi" = - ] || red_ompi=$(realpath "$red_ompi")
[ "$red_mpich" = - ] || red_mpich=$(realpath "$red_mpich")
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_LINES SCOPE_REDUCE_ABORT_RANK
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# The ranks' scratch files go here, to be counted.
mkdir scratch
export TMPDIR=$PWD/scratch
# Open MPI refuses root unless told (a container's CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

"$gen_run" --out run --procs 24 --hours 0.005 --hosts 6 --resources --trace >gen.out 2>&1 ||
    { echo "FAIL: scope_gen_run: $(tail -3 gen.out)" >&2; exit 1; }
"$gen_run" --out small --procs 3 --hours 0.005 >gen.out 2>&1 ||
    { echo "FAIL: scope_gen_run: $(tail -3 gen.out)" >&2; exit 1; }
mapfile -t logs < <(find run/workers -name '*.scope' | sort)
[ "${#logs[@]}" = 24 ] || { echo "FAIL: ${#logs[@]} logs, wanted 24" >&2; exit 1; }
# A log damaged in the middle: 64 bytes of 0xff, the rest intact.
damaged=${logs[9]}
size=$(stat -c %s "$damaged")
head -c 64 /dev/zero | tr '\0' '\377' |
    dd of="$damaged" bs=1 seek=$((size / 2)) conv=notrunc status=none
# A file named like a log that is none.
host3=$(dirname "${logs[14]}")
head -c 300 /dev/urandom >"$host3/w_not_a_log.scope"

"$tui" report --json run >whole.raw 2>report.err || fail "report --json of the run: $(cat report.err)"
jq 'del(.run.dir)' whole.raw >whole.json
jq -e '[.caveats[] | select(.kind == "damaged")] | length >= 1' whole.json >/dev/null ||
    fail "the run's report has no damaged caveat: $(jq -c '.caveats' whole.json | head -c 600)"
jq -e '[.caveats[] | select(.kind == "unreadable")] | length >= 1' whole.json >/dev/null ||
    fail "the run's report has no unreadable caveat"
"$tui" report run >whole.txt 2>&1

# same SUMMARY WHAT: report --json of SUMMARY is the run's, byte for byte.
same() {
    "$tui" report --json "$1" >"$1.raw" 2>"$1.err" || { fail "$2: report --json: $(cat "$1.err")"; return; }
    jq 'del(.run.dir)' "$1.raw" >"$1.json"
    cmp -s whole.json "$1.json" || fail "$2: report --json differs from the run's:
$(diff whole.json "$1.json" | head -20)"
    "$tui" report "$1" >"$1.txt" 2>&1
    cmp -s whole.txt "$1.txt" || fail "$2: the text report differs:
$(diff whole.txt "$1.txt" | head -10)"
}

expect_rc 0 "$tui" reduce run -o one.h5
same one.h5 "scope-tui reduce"
ok "scope-tui reduce (one rank): report --json equal to the run's, the damaged and unreadable logs as caveats"

# SUMMARY is the model (/summary, docs/hdf5.md), not the processes' tables:
# read again, and written again by export (a model without logs writes its
# summary), it gives the same report.
py=$(h5py_python)
if [ -z "$py" ]; then
    fail "no python3 with h5py (scripts/setup.sh installs python3-h5py)"
else
    "$py" - one.h5 >tables.out 2>&1 <<'PY' || fail "SUMMARY's groups: $(cat tables.out)"
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert "summary" in f, "no /summary group"
for t in ("phase_nodes", "phase_node_bins", "counters", "processes", "line_samples"):
    assert t not in f, "SUMMARY holds /" + t
s = f["summary"]
for t in ("processes", "phases", "phase_processes", "phase_bins", "roles", "caveats"):
    assert t in s, "no /summary/" + t
assert len(s["processes"]) == 25, len(s["processes"])
PY
fi
"$tui" report --json one.h5 | jq 'del(.run.dir)' >twice.json
cmp -s one.h5.json twice.json || fail "SUMMARY read twice differs"
expect_rc 0 "$tui" export one.h5 --format hdf5 -o again.h5
same again.h5 "SUMMARY exported again"
ok "SUMMARY holds /summary, not the processes' tables; read twice and written again, the same report"

# Reduced without the resource samples, SUMMARY says they were not read
# (resources unknown), as report --no-samples of the run does.
"$tui" report --json --no-samples run | jq 'del(.run.dir)' >nosamples.json
expect_rc 0 "$tui" reduce --no-samples run -o nosamples.h5
"$tui" report --json nosamples.h5 | jq 'del(.run.dir)' >nosamples.h5.json
cmp -s nosamples.json nosamples.h5.json || fail "reduce --no-samples differs from report --no-samples:
$(diff nosamples.json nosamples.h5.json | head -10)"
ok "reduce --no-samples: SUMMARY's resources are unread, as the run's with --no-samples"

# What needs a process's own log says so in one line, exit 2, nothing on stdout.
for args in "lines one.h5" "lines --folded one.h5" "export one.h5 --format chrome -o trace.json"; do
    # shellcheck disable=SC2086
    expect_rc 2 "$tui" $args
    expect_in_output "the run directory it was reduced from has them"
    [ -s out ] && fail "'$args' printed on stdout: $(head -3 out)"
    [ "$(wc -l <err)" = 1 ] || fail "'$args': not one line: $(cat err)"
done
[ -e trace.json ] && fail "export --format chrome of SUMMARY wrote trace.json"
"$tui" one.h5 --keys $'5j\r' --size 120x40 --print >screen.txt 2>&1 ||
    fail "the browser on SUMMARY: $(tail -3 screen.txt)"
expect_in screen.txt "keeps no process's own tree: open the run"
ok "SUMMARY: hot lines, folded stacks, a trace and one process's tree say the run directory has them"

# A damaged /summary is refused in one line naming what is wrong, exit 2.
# damage PYTHON-EDIT WANT: one.h5 edited in a copy with h5py, then read.
damage() {
    cp one.h5 bad.h5
    "$py" - bad.h5 "$1" >edit.out 2>&1 <<'PY' || fail "editing bad.h5 ($1): $(cat edit.out)"
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
s = f["summary"]
def edit(table, field, value, row=0):
    a = s[table][...]
    a[row][field] = value
    s[table][...] = a
exec(sys.argv[2])
PY
    expect_rc 2 "$tui" report --json bad.h5
    expect_in_output "$2"
    [ "$(wc -l <err)" = 1 ] || fail "damage '$1': not one line: $(cat err)"
}
if [ -n "$py" ]; then
    damage 'edit("role_processes", "process", 10**6)' "is not a process of its role"
    damage 'edit("role_processes", "process", 1, row=1); edit("role_processes", "process", 1, row=0)' \
        "listed once"
    damage 'edit("phases", "parent", 3)' "not an earlier phase of its role"
    damage 'edit("phases", "role", 99)' "is not a role"
    damage 'edit("phase_bins", "bucket", 5000)' "bucket 5000 out of order or past"
    damage 'edit("phase_processes", "proc", 10**9)' "out of order or past its role's"
    damage 'edit("phase_processes", "phase", 10**9)' "out of order or past the"
    damage 'edit("phase_counters", "role", 77)' "is not there"
    damage 'edit("caveats", "process", 10**6)' "is not there"
    damage 'edit("processes", "end", b"lost")' "end 'lost' is none of"
    damage 's.attrs["shown_attempt"] = 9' "attribute shown_attempt is 9"
    damage 'del s["phases"]' "/summary/phases"
    damage 'del s["processes"]' "/summary/processes"
    ok "a damaged /summary: exit 2, one line saying what is wrong"
fi

# A run past the reader's caps (lowered by SCOPE_READ_MAX_NODES, each log
# past its own, the run within its): SUMMARY, read without the variable,
# says what the caps left out as the run read with it does.
SCOPE_READ_MAX_NODES=5 "$tui" report --json small | jq 'del(.run.dir)' >capped.json
jq -e '[.caveats[] | select(.kind == "capped")] | length >= 3' capped.json >/dev/null ||
    fail "SCOPE_READ_MAX_NODES=5 left no capped caveat: $(jq -c .caveats capped.json | head -c 400)"
SCOPE_READ_MAX_NODES=5 expect_rc 0 "$tui" reduce small -o capped.h5
"$tui" report --json capped.h5 | jq 'del(.run.dir)' >capped.h5.json
cmp -s capped.json capped.h5.json || fail "a capped run's SUMMARY differs from the run:
$(diff capped.json capped.h5.json | head -10)"
ok "a run past the reader's caps: SUMMARY says what they left out"

# launch IMPL NP SUMMARY [RUN]: the reduction of RUN (default run) under
# IMPL's own launcher.
# Under AddressSanitizer (scripts/test.sh --sanitize) the MPI libraries'
# own allocations, never freed at exit, are not reported: scope's are, in
# the one-rank runs above, which run the same reduction.
launch() {
    local impl=$1 np=$2 out=$3 from=${4:-run}
    local ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export ASAN_OPTIONS
    if [ "$impl" = openmpi ]; then
        timeout 180 "$mpirun" --oversubscribe --allow-run-as-root -n "$np" "$red_ompi" "$from" -o "$out"
    else
        timeout 180 "$hydra" -n "$np" "$red_mpich" "$from" -o "$out"
    fi
}

impls=()
if [ "$red_ompi" != - ] && [ -x "$mpirun" ]; then impls+=(openmpi); else
    echo "SKIP: Open MPI: scope-reduce-openmpi or mpirun.openmpi missing (scripts/setup.sh)"; fi
if [ "$red_mpich" != - ] && [ -x "$hydra" ]; then impls+=(mpich); else
    echo "SKIP: MPICH: scope-reduce-mpich or mpiexec.hydra missing (scripts/setup.sh)"; fi

for impl in "${impls[@]}"; do
    for np in 1 2 4; do
        expect_rc 0 launch "$impl" "$np" "$impl.$np.h5"
        same "$impl.$np.h5" "$impl at $np ranks"
    done
    ok "$impl at 1, 2 and 4 ranks: report --json the run's, byte for byte"

    # More ranks than logs: the ranks without one send nothing.
    "$tui" report --json small | jq 'del(.run.dir)' >small.json
    expect_rc 0 launch "$impl" 4 "$impl.small.h5" small
    "$tui" report --json "$impl.small.h5" | jq 'del(.run.dir)' >"$impl.small.json"
    cmp -s small.json "$impl.small.json" || fail "$impl: 3 logs on 4 ranks: report --json differs:
$(diff small.json "$impl.small.json" | head -10)"

    # Past the caps, each rank reading its part with them.
    SCOPE_READ_MAX_NODES=5 expect_rc 0 launch "$impl" 2 "$impl.capped.h5" small
    "$tui" report --json "$impl.capped.h5" | jq 'del(.run.dir)' >"$impl.capped.json"
    cmp -s capped.json "$impl.capped.json" || fail "$impl: a capped run's SUMMARY differs:
$(diff capped.json "$impl.capped.json" | head -10)"

    # A rank that dies: the job fails, and the SUMMARY written before stays
    # as it was, nothing beside it.
    cp one.h5 keep.h5
    before=$(sha256sum <keep.h5)
    rc=0
    SCOPE_REDUCE_ABORT_RANK=1 launch "$impl" 2 keep.h5 >abort.out 2>&1 || rc=$?
    [ "$rc" != 0 ] || fail "$impl: a rank aborted, yet the job exited 0: $(tail -5 abort.out)"
    grep -q "rank 1 aborts" abort.out || fail "$impl: the aborting rank said nothing: $(tail -5 abort.out)"
    [ "$(sha256sum <keep.h5)" = "$before" ] || fail "$impl: a failed job changed SUMMARY"
    ls keep.h5.tmp* >/dev/null 2>&1 && fail "$impl: a failed job left a temporary file: $(ls keep.h5.tmp*)"
    # Open MPI ends the other ranks with SIGTERM, and they remove their
    # scratch files; Hydra ends them uncatchably, and one is left
    # (docs/reduce.md).
    [ "$impl" = mpich ] && rm -rf scratch/scope-reduce-*
    ok "$impl: a rank that aborts fails the job (exit $rc), SUMMARY untouched"

    # A run that cannot be read: the job fails, saying why once.
    rc=0
    launch "$impl" 2 nothing.h5 no-such-run >nosuch.out 2>&1 || rc=$?
    [ "$rc" != 0 ] || fail "$impl: the reduction of a missing run exited 0"
    grep -q "no such run directory" nosuch.out || fail "$impl: no reason given: $(tail -5 nosuch.out)"
    [ -e nothing.h5 ] && fail "$impl: a failed reduction wrote nothing.h5"
done

left=$(find scratch -mindepth 1 | head -3)
[ -z "$left" ] || fail "scratch files left behind: $left"

# Wrong arguments and paths, one line each.
expect_rc 2 "$tui" reduce run
expect_in_output "where to? (-o SUMMARY)"
expect_rc 2 "$tui" reduce no-such-run -o x.h5
expect_in_output "no such run directory"
[ -e x.h5 ] && fail "a failed reduce wrote x.h5"
expect_rc 2 "$tui" reduce one.h5 -o x.h5
expect_in_output "is a file: reduce reads a run directory"
mkdir adir
expect_rc 2 "$tui" reduce run -o adir
expect_in_output "is a directory"
ok "bad arguments: exit 2, one line, nothing written"
finish
