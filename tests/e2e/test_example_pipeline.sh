#!/usr/bin/env bash
# End to end: the bundled example pipeline (examples/pipeline), run short with
# its learner and four actors, recorded into a fresh run directory and read
# back by `scope-tui dump`.  What the program says it did must be what the
# logs say, process by process.
# usage: test_example_pipeline.sh PIPELINE SCOPE_TUI
set -euo pipefail
pipeline=$1
scope_tui=$2
# Where and whether it records is the program's own business here.
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Bad arguments: one clear line and exit 2, before anything starts.
expect_rc 2 "$pipeline" --actors 0
expect_in_output "--actors needs a whole number from 1 to 64, not '0'"
expect_rc 2 "$pipeline" --iterations ten
expect_in_output "--iterations needs a whole number"
expect_rc 2 "$pipeline" --no-such-option
expect_in_output "unknown option --no-such-option"
expect_rc 2 "$pipeline" --run-dir
expect_in_output "--run-dir needs a value"
expect_rc 2 "$pipeline" stray
expect_in_output "unexpected argument 'stray'"
expect_rc 0 "$pipeline" --help
expect_in_output "usage: scope-example-pipeline"
[ ! -e example-run ] || fail "a bad command line created example-run"

# The run.  --quick is 10 iterations: 10 games per actor, one checkpoint.
actors=4
iterations=10
expect_rc 0 "$pipeline" --quick --run-dir run --out ckpt
cp out run.out
expect_in_output "learner: $iterations iterations,"
expect_in_output "recorded: run "

mapfile -t logs < <(find run/workers -name '*.scope' | sort)
[ "${#logs[@]}" = $((1 + actors)) ] || fail "${#logs[@]} logs in run/workers, wanted $((1 + actors))"
[ "${#logs[@]}" -gt 0 ] || { echo "no logs to check" >&2; exit 1; }
run_ids=$(for f in "${logs[@]}"; do basename "$f" | cut -d_ -f2; done | sort -u)
[ "$(wc -l <<<"$run_ids")" = 1 ] || fail "the logs belong to several runs: $run_ids"
grep -qF "recorded: run $run_ids in $tmp/run" run.out || fail "the summary names another run than $run_ids"

# Every byte of every log reads back.
expect_rc 0 "$scope_tui" dump --summary "${logs[@]}"
[ "$(grep -c 'nothing skipped' out)" = "${#logs[@]}" ] || fail "damage in the logs:
$(cat out)"

# One log, as lines the checks below can grep:
#   role R / pid P / ppid Q / phase PATH COUNT / counter NAME PATH TOTAL / mark KIND VALUE
# The newest record of a node or counter is its whole state.
facts() {
    "$scope_tui" dump "$1" | awk '
        $1 == "PROCESS" { for (i = 2; i < NF; i++) if ($i == "role") role = $(i + 1) }
        $1 == "pid" && $3 == "ppid" { pid = $2; ppid = $4 }
        $1 == "STRING" { s = $0; sub(/^ *STRING [0-9]+ /, "", s); gsub(/"/, "", s); str[$2] = s }
        $1 == "PHASE_NODE" { parent[$2] = $4; name[$2] = $6 }
        $1 == "PHASE_AGG" { count[$3] = $5 }
        $1 == "COUNTER" { cname[$2] = $4; cnode[$2] = $6; ctotal[$2] = $12 }
        $1 == "MARK" { print "mark", $2, $(NF - 1) }
        function path(n,   p) {
            for (p = ""; n != 0; n = parent[n]) p = str[name[n]] (p == "" ? "" : "/" p)
            return p
        }
        END {
            gsub(/"/, "", role)
            print "role", role
            print "pid", pid
            print "ppid", ppid
            for (n in count) print "phase", path(n), count[n]
            for (c in ctotal) print "counter", str[cname[c]], path(cnode[c]), ctotal[c]
        }'
}

# has FILE LINE: FILE holds exactly that line.
has() {
    grep -qxF -- "$2" "$1" || fail "${1%.facts} lacks '$2'; it has:
$(sort "$1")"
}

# The number after "WORD" in the summary line that starts with PREFIX.
said() {
    grep -F -- "$1" run.out | grep -oE "[0-9]+ $2" | head -1 | cut -d' ' -f1
}

nlearner=0 nactor=0 learner_pid=""
for f in "${logs[@]}"; do
    facts "$f" >"$(basename "$f").facts"
done
for ff in *.facts; do
    role=$(awk '$1 == "role" { print $2 }' "$ff")
    pid=$(awk '$1 == "pid" { print $2 }' "$ff")
    has "$ff" "mark shutdown 0"
    if grep -qE '^mark (unbalanced|dropped|flush-failed) ' "$ff"; then
        fail "$ff has marks of trouble: $(grep '^mark' "$ff")"
    fi
    case "$role" in
    learner)
        nlearner=$((nlearner + 1))
        learner_pid=$pid
        has "$ff" "phase iteration $iterations"
        has "$ff" "phase iteration/load_batch $iterations"
        has "$ff" "phase iteration/train $iterations"
        has "$ff" "phase iteration/checkpoint 1"
        has "$ff" "counter samples_trained iteration/train $(said learner: samples_trained)"
        has "$ff" "counter bytes_checkpointed iteration/checkpoint $(said learner: bytes_checkpointed)"
        ;;
    actor)
        nactor=$((nactor + 1))
        line=$(grep -F "(pid $pid):" run.out) || {
            fail "actor pid $pid is not in the summary"
            continue
        }
        games=$(said "(pid $pid):" games)
        positions=$(said "(pid $pid):" positions)
        sims=$(said "(pid $pid):" mcts_simulations)
        per_move=$(grep -oE '[0-9]+ simulations per move' <<<"$line" | cut -d' ' -f1)
        [ "$games" = "$iterations" ] || fail "actor pid $pid played $games games, wanted $iterations"
        has "$ff" "phase iteration $games"
        has "$ff" "phase iteration/self_play $games"
        has "$ff" "phase iteration/self_play/mcts $positions"
        has "$ff" "phase iteration/self_play/env_step $positions"
        has "$ff" "counter games iteration/self_play $games"
        has "$ff" "counter positions iteration/self_play $positions"
        has "$ff" "counter mcts_simulations iteration/self_play/mcts $sims"
        [ "$sims" = $((per_move * positions)) ] ||
            fail "actor pid $pid: $sims simulations for $positions moves of $per_move"
        ;;
    *) fail "$ff has role '$role'" ;;
    esac
done
[ "$nlearner" = 1 ] || fail "$nlearner learner logs, wanted 1"
[ "$nactor" = "$actors" ] || fail "$nactor actor logs, wanted $actors"
# The actors were started by the learner, and are of unequal speed.
for ff in *.facts; do
    if grep -qx "role actor" "$ff"; then
        has "$ff" "ppid $learner_pid"
    fi
done
mapfile -t per_move < <(grep -oE '[0-9]+ simulations per move' run.out | cut -d' ' -f1)
[ "$(printf '%s\n' "${per_move[@]}" | sort -u | wc -l)" = "$actors" ] ||
    fail "the actors do not differ in speed: ${per_move[*]}"

# The actors' totals add up, and match the logs.
sum_of() {
    cat ./*.facts | awk -v n="$1" '$1 == "counter" && $2 == n { t += $4 } END { print t + 0 }'
}
for what in games positions mcts_simulations; do
    [ "$(sum_of "$what")" = "$(said actors: "$what")" ] ||
        fail "$what: the logs add up to $(sum_of "$what"), the program says $(said actors: "$what")"
done

# The checkpoint is a real file of the size counted.
[ "$(stat -c %s ckpt/model.ckpt 2>/dev/null)" = "$(said learner: bytes_checkpointed)" ] ||
    fail "ckpt/model.ckpt is not $(said learner: bytes_checkpointed) bytes"

finish
echo "example pipeline end-to-end: all checks passed"
