#!/usr/bin/env python3
"""What a phase costs from Python: scope.phase through the C extension
scope._recorder, against the floor an empty `with` sets, and the seed's
figure (with-line-profiler's accounting layer: 2,280 ns per phase enter+exit,
measure_cpu=False, on Python 3.12; seeds/with-line-profiler.txt).

    PYTHONPATH=build/python python3 bench/bench_python.py [--loops N] [--repeat R]

Each figure is the best of R rounds of N iterations, in ns per iteration,
less nothing: the floors are printed beside, so the difference is read off
the table.  The cases take turns, round after round, so that a busy stretch
of a shared machine costs each case a round rather than one case all of
them.  The recorder records into a scratch run directory
(removed at the end) as it would in a program; `off` is the same call with
SCOPE_PROFILE=0 in a child process, where the recorder is switched off.
"""

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

import scope


class Trivial:
    """The cheapest context manager written in Python."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def best(fn, loops, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        fn(loops)
        times.append(time.perf_counter_ns() - t0)
    return min(times) / loops


def cases():
    trivial = Trivial()
    null = contextlib.nullcontext()
    hoisted = scope.phase("bench_hoisted")

    def empty_loop(n):
        for _ in range(n):
            pass

    def with_trivial(n):
        for _ in range(n):
            with trivial:
                pass

    def with_trivial_new(n):
        for _ in range(n):
            with Trivial():
                pass

    def with_nullcontext(n):
        for _ in range(n):
            with null:
                pass

    def with_phase(n):
        phase = scope.phase
        for _ in range(n):
            with phase("bench_with"):
                pass

    def with_phase_module_attr(n):
        for _ in range(n):
            with scope.phase("bench_with_attr"):
                pass

    def with_hoisted(n):
        for _ in range(n):
            with hoisted:
                pass

    def plain():
        pass

    @scope.phase("bench_decorated")
    def decorated():
        pass

    def call_plain(n):
        for _ in range(n):
            plain()

    def call_decorated(n):
        for _ in range(n):
            decorated()

    def count(n):
        c = scope.count
        for _ in range(n):
            c("bench_count", 1)

    def nested_count(n):
        with scope.phase("bench_count_in"):
            count(n)

    return [
        ("empty loop (per iteration)", empty_loop),
        ("floor: with trivial  (one Trivial instance)", with_trivial),
        ("floor: with Trivial()  (made each time)", with_trivial_new),
        ("floor: with nullcontext instance", with_nullcontext),
        ("with phase(\"x\")  (phase = scope.phase)", with_phase),
        ("with scope.phase(\"x\")", with_phase_module_attr),
        ("with P  (P = scope.phase(\"x\") made once)", with_hoisted),
        ("call of a plain empty function", call_plain),
        ("call of it decorated @scope.phase(\"x\")", call_decorated),
        ("scope.count(\"n\", 1) inside a phase", nested_count),
    ]


def run(loops, repeat):
    """The cases interleaved, round after round, each keeping its best: on
    a busy machine a slow stretch then costs every case one round, not one
    case all of them."""
    table = cases()
    bests = [float("inf")] * len(table)
    for _ in range(repeat):
        for i, (_, fn) in enumerate(table):
            bests[i] = min(bests[i], best(fn, loops, 1))
    return [(label, ns) for (label, _), ns in zip(table, bests)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loops", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--child-off", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_off:
        for label, ns in run(args.loops, args.repeat):
            print(f"{label}\t{ns:.1f}")
        return
    tmp = tempfile.mkdtemp(prefix="scope-bench-py-")
    try:
        if not scope.init(os.path.join(tmp, "run"), "bench"):
            sys.exit("scope.init failed")
        on = run(args.loops, args.repeat)
        env = dict(os.environ, SCOPE_PROFILE="0")
        env.pop("SCOPE_RUN_DIR", None)
        out = subprocess.run(
            [sys.executable, __file__, "--child-off", "--loops", str(args.loops), "--repeat", str(args.repeat)],
            env=env, check=True, capture_output=True, text=True,
        ).stdout
        off = dict(line.rsplit("\t", 1) for line in out.splitlines())
        scope.shutdown()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"Python {sys.version.split()[0]}, {args.loops:,} iterations, best of {args.repeat}; ns per iteration")
    print(f"{'':46} {'recording':>10} {'off':>8}")
    for label, ns in on:
        print(f"{label:46} {ns:10.1f} {float(off[label]):8.1f}")
    print("seed (with-line-profiler accounting, Python 3.12): 2,280 ns per phase, measure_cpu=False")


if __name__ == "__main__":
    main()
