#!/usr/bin/env bash
# End to end: a shared run directory is untrusted (docs/trust.md).  Whatever
# someone planted in it (symbolic links, launch files holding bad run ids,
# an empty, huge or FIFO launch file), a real recording process writes only
# inside RUN, starts in well under a second and keeps recording; the
# directories it creates are not group or world writable unless
# SCOPE_DIR_MODE says so; every host name, "." and ".." included, gets a
# folder of its own that readers find; and readers follow no link either.
# usage: test_run_dir_trust.sh SCOPE_TUI CMP_WORKLOAD
set -euo pipefail
scope_tui=$(realpath "$1")
workload=$(realpath "$2")
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Nothing inherited may choose a run id or a launch key for these runs.
while read -r var; do
    case $var in
    SCOPE_* | PMIX_* | OMPI_* | SLURM_* | TORCHELASTIC_*) unset "$var" ;;
    esac
done < <(compgen -e)

# record DIR [VAR=VALUE...]: one recording process (cmp_workload, ~0.15 s of
# sleeps) into DIR; its stderr in ./rec_err.  A process that hangs on
# something planted is ended after 60 s, which fails the checks after it.
record() {
    local dir=$1
    shift
    timeout 60 env "$@" "$workload" "$dir" 1 >/dev/null 2>rec_err ||
        fail "cmp_workload into $dir exited $?: $(cat rec_err)"
}

# logs_in DIR: how many logs DIR holds, at any depth.
logs_in() {
    find "$1" -type f -name '*.scope' | wc -l
}

expect_logs() { # DIR N
    local n
    n=$(logs_in "$1")
    [ "$n" = "$2" ] || fail "$1 holds $n logs, wanted $2: $(find "$1" | head -20)"
}

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# The host folder this machine's processes write into.
record plain
host=$(ls plain/workers)
[ -n "$host" ] || fail "no host folder in plain/workers"
one_log=$(find plain -name '*.scope' | head -1)

# ---- the recorder follows no link planted in RUN ---------------------------

mkdir -p linked_host/workers outside_host
ln -s ../../outside_host "linked_host/workers/$host"
record linked_host
expect_logs outside_host 0
expect_in rec_err "symbolic link"

mkdir -p linked_workers outside_workers
ln -s ../outside_workers linked_workers/workers
record linked_workers
expect_logs outside_workers 0
expect_in rec_err "symbolic link"

# A .scope or launches/ link: the ranks still agree (on an id derived from
# the launch), inside RUN, and say why on stderr.
mkdir -p linked_scope outside_scope
ln -s ../outside_scope linked_scope/.scope
record linked_scope PMIX_NAMESPACE=trust-ns
[ -z "$(ls -A outside_scope)" ] || fail "outside_scope was written: $(ls -AR outside_scope)"
expect_logs linked_scope 1
expect_in rec_err "cannot agree on a run id"

# The user's own run directory may be a link: it is followed, once.
mkdir real_run
ln -s real_run user_link
record user_link
expect_logs real_run 1

# ---- run ids read from RUN/.scope/launches ----------------------------------

# launch_file DIR: a first rank of launch "trust-ns" publishes its run id in
# DIR; prints the launch file's path, for the caller to replace with what an
# attacker (or a damaged disk) would leave there.
launch_file() {
    record "$1" PMIX_NAMESPACE=trust-ns
    echo "$1/.scope/launches/$(ls "$1/.scope/launches")"
}

# An id that climbs out: with a w_ folder planted where the log's name would
# begin, the path RUN/workers/<host>/w_/../../../../escaped... leaves RUN.
f=$(launch_file climb)
mkdir "climb/workers/$host/w_"
printf '/../../../../escaped\n' >"$f"
record climb PMIX_NAMESPACE=trust-ns
[ -z "$(find . -name 'escaped*')" ] || fail "a log escaped RUN: $(find . -name 'escaped*')"
[ -n "$(find climb -name 'w_launch-*.scope')" ] || fail "climb: no log under the fallback id"
expect_in rec_err "does not hold a valid run id"

f=$(launch_file slash)
printf 'a/b\n' >"$f"
record slash PMIX_NAMESPACE=trust-ns
[ -n "$(find slash -name 'w_launch-*.scope')" ] || fail "slash: recording was turned off"

# An empty launch file: no waiting for it to fill (it never will).  The
# baseline is a process with a good launch file; the empty one may cost at
# most 1 s more (a few ms when fixed, 2 s and more when it waited).
f=$(launch_file empty)
t0=$(now_ms)
record empty PMIX_NAMESPACE=trust-ns
good_ms=$(($(now_ms) - t0))
: >"$f"
t0=$(now_ms)
record empty PMIX_NAMESPACE=trust-ns
empty_ms=$(($(now_ms) - t0))
echo "start with a good launch file: ${good_ms} ms, with an empty one: ${empty_ms} ms"
((empty_ms < good_ms + 1000)) || fail "an empty launch file cost $((empty_ms - good_ms)) ms"
[ -n "$(find empty -name 'w_launch-*.scope')" ] || fail "empty: recording was turned off"

f=$(launch_file huge)
: >"$f"
truncate -s 1G "$f"
record huge PMIX_NAMESPACE=trust-ns
[ -n "$(find huge -name 'w_launch-*.scope')" ] || fail "huge: recording was turned off"

f=$(launch_file fifo)
rm "$f"
mkfifo "$f"
record fifo PMIX_NAMESPACE=trust-ns
[ -n "$(find fifo -name 'w_launch-*.scope')" ] || fail "fifo: no log under the fallback id"

# ---- directory modes ---------------------------------------------------------

(
    umask 000
    record modes
)
for d in modes modes/workers "modes/workers/$host"; do
    [ "$(stat -c %a "$d")" = 755 ] || fail "$d has mode $(stat -c %a "$d") under umask 000, wanted 755"
done
(
    umask 022
    record shared SCOPE_DIR_MODE=2775
)
for d in shared shared/workers "shared/workers/$host"; do
    [ "$(stat -c %a "$d")" = 2775 ] || fail "$d has mode $(stat -c %a "$d") with SCOPE_DIR_MODE=2775"
done
record bad_mode SCOPE_DIR_MODE=0644
expect_in rec_err "SCOPE_DIR_MODE='0644'"
[ ! -e bad_mode ] || fail "SCOPE_DIR_MODE=0644 still recorded"

# ---- readers follow no link in RUN either -------------------------------------

mkdir -p elsewhere/h
cp "$one_log" elsewhere/h/
cp -r plain host_link
ln -s "$PWD/elsewhere/h" host_link/workers/evil
expect_rc 0 "$scope_tui" report host_link
expect_in_output "Processes 1 "
expect_in_output "workers/evil"
expect_in_output "a symbolic link, not followed"

cp -r plain log_link
ln -s "$PWD/elsewhere/h/$(basename "$one_log")" "log_link/workers/$host/w_evil.scope"
expect_rc 0 "$scope_tui" report log_link
expect_in_output "Processes 1 "
expect_in_output "a symbolic link, not followed"

mkdir workers_link
ln -s "$PWD/plain/workers" workers_link/workers
expect_rc 2 "$scope_tui" report workers_link
expect_in err "symbolic link"

# Logs an older recorder left where host "." and ".x" put them.
mkdir -p older/workers/.x
cp "$one_log" older/workers/
cp "$one_log" older/workers/.x/w_other.scope
expect_rc 0 "$scope_tui" report older
expect_in_output "Processes 2 "

# ---- host names: every one a folder of its own, found by the readers --------

if unshare -u true 2>/dev/null; then
    names=(. .. .x a/b '%41' 'x y' "$(printf 'c\001')" "$host")
    for name in "${names[@]}"; do
        # A UTS namespace of its own: the process's host name is `name`.
        # shellcheck disable=SC2016 # the inner shell expands $1 and $@
        unshare -u sh -c 'printf "%s" "$1" >/proc/sys/kernel/hostname && shift && exec "$@"' \
            sh "$name" env SCOPE_RUN_ID=hosts-1 "$workload" hosts 1 >/dev/null 2>rec_err ||
            fail "recording on host '$name' failed: $(cat rec_err)"
    done
    got=$(find hosts/workers -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')
    want=$(printf '%s\n' %2E %2E. %2Ex a%2Fb %2541 x%20y c%01 "$host" | sort | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "host folders are '$got', wanted '$want'"
    expect_logs hosts/workers 8
    expect_rc 0 "$scope_tui" report hosts
    expect_in_output "Processes 8 "
    expect_in_output "(8 nodes)"
else
    echo "SKIP host names: cannot make a UTS namespace (not root?)"
fi

finish
