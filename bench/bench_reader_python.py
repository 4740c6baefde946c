"""The Python side of bench/bench_reader.sh: scope.open and its DataFrames
on one run, timed in this process, with the memory they add.  Prints one
line of figures:

  import_ms N open_ms N phases_ms N samples_ms N phases_rows N samples_rows N
  base_rss_kb N maxrss_kb N frames_kb N

base_rss_kb is the interpreter's with scope, numpy and pandas imported,
before the run is opened; maxrss_kb the peak after; frames_kb what the
DataFrames hold (memory_usage(deep=True)).
usage: python3 bench/bench_reader_python.py RUN
"""

import resource
import sys
import time


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


t = time.perf_counter()
import scope  # noqa: E402
import scope._reader  # noqa: E402,F401  (cffi, numpy, pandas)

import_ms = (time.perf_counter() - t) * 1e3
scope._reader._library()
base = rss_kb()

t = time.perf_counter()
run = scope.open(sys.argv[1])
open_ms = (time.perf_counter() - t) * 1e3
t = time.perf_counter()
phases = run.phases()
phases_ms = (time.perf_counter() - t) * 1e3
t = time.perf_counter()
samples = run.samples()
samples_ms = (time.perf_counter() - t) * 1e3
frames = (phases.memory_usage(deep=True).sum() + samples.memory_usage(deep=True).sum()) // 1024
maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"import_ms {import_ms:.1f} open_ms {open_ms:.1f} phases_ms {phases_ms:.2f} "
      f"samples_ms {samples_ms:.1f} phases_rows {len(phases)} samples_rows {len(samples)} "
      f"base_rss_kb {base} maxrss_kb {maxrss} frames_kb {frames}")
