"""A Python program recording through scope.init/phase/count/flush, with
its truth known by construction or measured on its own clocks, for
test_python_record.sh:

    python3 py_workload.py RUN MIXLIB TRUTH

Role "pyapp".  In the main process, on the main thread:
  load          1 entry, a 30 ms sleep
  train         1 entry, holding
    step        6 entries of a 5 ms sleep, each counting 32 "samples"
  crunch        3 calls of a decorated function (CPU work), one raising
  mixed         1 entry, holding 4 calls of a C function (MIXLIB, loaded with
                ctypes) each opening the C phase "c_kernel" of 2 ms and
                counting 1000 "cells"
  walk          3 entries through a decorated generator's resumptions
Two threads each enter "worker" 4 times (3 ms sleep) under no phase.
Children, each its own log with role "pyapp": os.fork() ("os_fork"),
multiprocessing's fork and spawn start methods ("mp_fork", "mp_spawn"),
each one entry of a 10 ms sleep.

TRUTH gets one JSON object: each main-process phase's wall time measured
around its `with` (or the C library's clock), the children's pids.
"""

import ctypes
import json
import multiprocessing
import os
import sys
import threading
import time

import scope


def child_phase(name):
    with scope.phase(name):
        time.sleep(0.010)


def spawn_target(name):
    # No flush: a multiprocessing child's log gets its last frame as the
    # child ends, fork (which leaves through os._exit) and spawn alike.
    child_phase(name)


@scope.phase("crunch")
def crunch(n, fail=False):
    s = 0
    for i in range(n):
        s += i * i
    if fail:
        raise ValueError("crunch failed on purpose")
    return s


@scope.phase("walk")
def walk():
    for i in range(2):
        yield i


def timed(name, body):
    t0 = time.perf_counter_ns()
    with scope.phase(name):
        body()
    return time.perf_counter_ns() - t0


def main():
    run, mixlib, truth_path = sys.argv[1:4]
    truth = {"init": scope.init(run, "pyapp")}
    # The thread's first phase attaches it to the recorder: not timed below.
    with scope.phase("warmup"):
        pass
    truth["load_ns"] = timed("load", lambda: time.sleep(0.030))

    steps = []

    def train():
        for _ in range(6):
            t0 = time.perf_counter_ns()
            with scope.phase("step"):
                time.sleep(0.005)
                scope.count("samples", 32)
            steps.append(time.perf_counter_ns() - t0)

    truth["train_ns"] = timed("train", train)
    truth["step_ns"] = sum(steps)

    crunch(20000)
    crunch(20000)
    try:
        crunch(100, fail=True)
    except ValueError:
        truth["crunch_raised"] = True

    lib = ctypes.CDLL(mixlib)
    lib.py_mix_kernel.restype = ctypes.c_int64
    lib.py_mix_kernel.argtypes = [ctypes.c_int, ctypes.c_int64]
    kernels = []
    truth["mixed_ns"] = timed("mixed", lambda: kernels.extend(lib.py_mix_kernel(2000, 1000) for _ in range(4)))
    truth["c_kernel_ns"] = sum(kernels)

    truth["walk"] = list(walk())

    def worker():
        for _ in range(4):
            with scope.phase("worker"):
                time.sleep(0.003)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    children = {}
    pid = os.fork()
    if pid == 0:
        try:
            child_phase("os_fork")
            scope.flush()  # os._exit skips every exit hook, the recorder's too
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    children["os_fork"] = pid
    for method in ("fork", "spawn"):
        ctx = multiprocessing.get_context(method)
        p = ctx.Process(target=spawn_target, args=("mp_" + method,))
        p.start()
        p.join()
        children["mp_" + method] = p.pid
        truth["exit_mp_" + method] = p.exitcode
    truth["children"] = children
    truth["pid"] = os.getpid()
    truth["workload"] = __file__
    truth["flush"] = scope.flush()
    with open(truth_path, "w") as f:
        json.dump(truth, f)


if __name__ == "__main__":
    main()
