#!/usr/bin/python3
"""The tables of an HDF5 export or reduce SUMMARY (docs/reduce.md, "A bounded
SUMMARY"), in two groups: the processes as loaded, which the loader reads and
merges again today, and the model's tables with /processes, which a SUMMARY of
the merged model would hold.  For each group: rows, raw bytes and the time to
read every table whole with h5py (Debian's python3-h5py: run it with
/usr/bin/python3).

Usage: /usr/bin/python3 bench/reduce_tables.py SUMMARY
"""
import sys
import time

import h5py

GROUPS = {
    "processes as loaded": ["phase_nodes", "phase_node_bins", "counters"],
    "model and /processes": ["roles", "role_processes", "dominant_phases", "phases",
                             "phase_processes", "phase_histograms", "phase_counters",
                             "attempts", "caveats", "processes"],
}

if len(sys.argv) != 2:
    sys.exit(__doc__.strip())
with h5py.File(sys.argv[1], "r") as f:
    nproc = f["processes"].shape[0]
    print(f"{sys.argv[1]}: {nproc} processes")
    for group, names in GROUPS.items():
        rows = raw = 0
        start = time.perf_counter()
        for name in names:
            table = f[name][()]
            rows += len(table)
            raw += table.nbytes
        secs = time.perf_counter() - start
        print(f"  {group}: {rows} rows, {raw / 1e6:.1f} MB raw ({raw / max(nproc, 1) / 1e3:.2f} KB"
              f" a process), read whole in {secs:.2f} s")
