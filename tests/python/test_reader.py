"""scope.open's DataFrames hold exactly what `scope-tui report --json` and
`lines --json` print, on a recorded run, its HDF5 export and an imported
scope-profiler file; bad paths and damaged runs raise scope.Error."""

import math
import os

import pandas as pd
import pytest

import scope

REL = 1e-12  # the JSON prints doubles to 17 significant digits


def same(got, want):
    """A DataFrame cell equals a JSON value: null is a missing cell (NA or
    NaN; the JSON also prints an infinite change as null)."""
    if want is None:
        return got is None or got is pd.NA or (isinstance(got, float) and not math.isfinite(got))
    if got is None or got is pd.NA:
        return False
    if isinstance(want, bool):
        return bool(got) == want
    if isinstance(want, (int, float)):
        return math.isclose(float(got), float(want), rel_tol=REL, abs_tol=0.0) or (
            isinstance(want, int) and int(got) == want
        )
    return got == want


def check_row(row, obj, keys, where):
    for key in keys:
        assert same(row[key], obj[key]), f"{where}: {key} is {row[key]!r}, the JSON says {obj[key]!r}"


def json_phases(doc):
    """(role, path) -> the phase object of report --json, depth first."""
    out = {}

    def walk(role, p):
        out[(role, p["path"])] = p
        for c in p["children"]:
            walk(role, c)

    for r in doc["roles"]:
        for p in r["phases"]:
            walk(r["name"], p)
    return out


def check_phases(run, doc):
    df = run.phases()
    want = json_phases(doc)
    assert len(df) == len(want) > 0
    assert list(zip(df.role, df.path)) == list(want)  # the same order, depth first
    # Every key of a JSON phase that is a column: the figures of the figure
    # table, whatever they are, and the phase's own fields.
    keys = [k for k in next(iter(want.values())) if k in df.columns]
    assert {"count", "total_ns", "self_ns", "p99_ns", "share", "wait", "cpu_ns"} <= set(keys)
    for _, row in df.iterrows():
        p = want[(row.role, row.path)]
        check_row(row, p, keys, f"{row.role} {row.path}")
        spread = p["spread"] or {}
        for k in ("min_ns", "median_ns", "max_ns"):
            assert same(row["spread_" + k], spread.get(k)), f"{row.path}: spread {k}"
        wr = p["wait_range"] or {}
        assert same(row.wait_low, wr.get("low")) and same(row.wait_high, wr.get("high"))
        assert bool(row.exact_percentiles) == p.get("exact_percentiles", False)
    units = df.attrs["units"]
    assert units["total_ns"] == "ns" and units["share"] == "fraction" and units["count"] == "count"


def check_io(run, doc):
    df = run.io()
    want = json_phases(doc)
    rows = {(r.role, r.path): r for r in df.itertuples(index=False)}
    for key, p in want.items():
        if p["io"] is None and p["sampled_io"] is None:
            assert key not in rows, f"{key}: an I/O row without I/O"
            continue
        row = df[(df.role == key[0]) & (df.path == key[1])].iloc[0]
        io = p["io"] or {}
        for k in ("entries", "failed", "disk_read", "disk_write", "char_read", "char_write",
                  "cache_read", "disk_bytes_per_s"):
            assert same(row[k], io.get(k)), f"{key}: io {k}"
        smp = p["sampled_io"] or {}
        for k in ("disk_read", "cache_read", "disk_write", "char_read", "char_write"):
            assert same(row["sampled_" + k], smp.get(k)), f"{key}: sampled_io {k}"


def check_processes(run, doc):
    df = run.processes()
    assert len(df) == len(doc["workers"])
    keys = ["path", "role", "host", "pid", "rank", "local_rank", "world_size", "run_id", "end",
            "end_signal", "readable", "runtime_ns", "phase_ns", "threads", "frames",
            "frames_lost", "bytes_skipped", "truncated", "stale", "unbalanced", "dropped",
            "line_samples", "caveats", "start_wall_ns", "attempt"]
    for i, w in enumerate(doc["workers"]):
        check_row(df.iloc[i], w, keys, w["path"])


def check_caveats(run, doc):
    df = run.caveats()
    assert len(df) == len(doc["caveats"])
    for i, c in enumerate(doc["caveats"]):
        check_row(df.iloc[i], c, ["kind", "worker", "text"], f"caveat {i}")


def check_gpu(run, doc):
    df = run.gpu()
    want = [(r["name"], g) for r in doc["roles"] if r["resources"] for g in r["resources"]["gpus"]]
    assert len(df) == len(want)
    for i, (role, g) in enumerate(want):
        assert df.role[i] == role
        check_row(df.iloc[i], g, ["host", "index", "busy", "busy_peak", "this_run",
                                  "this_run_peak", "idle", "vram_this_run", "mem_total",
                                  "running"], f"{role} gpu {i}")


def check_samples(run, doc):
    """The 1 Hz series per process adds up to each process's sampled totals."""
    df = run.samples()
    sampled = [(i, w) for i, w in enumerate(doc["workers"]) if w["resources"]]
    assert sorted(set(df.worker)) == [i for i, _ in sampled]
    for i, w in sampled:
        mine = df[df.worker == i]
        res = w["resources"]
        assert same(mine.cpu_ns.sum(), res["cpu"]["cpu_ns"]), f"{w['path']}: cpu_ns"
        for k in ("disk_read", "disk_write", "char_write"):
            want = res["io"][k]
            got = None if mine[k].isna().all() else int(mine[k].sum())
            assert same(got, want), f"{w['path']}: {k}"
        assert (mine.start_wall_ns.diff().dropna() > 0).all()  # in time order
        if res["memory"]["rss_peak"] is not None:
            assert mine.rss_max.max() <= res["memory"]["rss_peak"]


def check_all(path, json_of):
    doc = json_of("report", "--json", path)
    with scope.open(path) as run:
        assert run.run_id == doc["run"]["run_id"]
        assert run.nprocesses == doc["run"]["processes"]
        assert run.runtime_ns == doc["run"]["runtime_ns"]
        check_phases(run, doc)
        check_io(run, doc)
        check_processes(run, doc)
        check_caveats(run, doc)
        check_gpu(run, doc)
        if doc["samples_loaded"] and any(w["resources"] for w in doc["workers"]):
            check_samples(run, doc)
    return doc


def test_example_run(example_run, json_of):
    doc = check_all(example_run, json_of)
    assert len(doc["roles"]) == 2 and doc["run"]["processes"] == 5


def test_plot_with_pandas(example_run, tmp_path):
    """docs/python.md's plot: the six phases with the most self time, drawn
    by pandas; each bar is its phase's self time from .phases()."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ph = scope.open(example_run).phases()
    top = ph[ph.depth >= 2].nlargest(6, "self_ns")
    ax = (top.assign(label=top.role + ": " + top.path, self_s=top.self_ns / 1e9)
             .plot.barh(x="label", y="self_s", legend=False, figsize=(7, 3)))
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == pytest.approx(list(top.self_ns / 1e9), rel=1e-12)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(top.role + ": " + top.path)
    png = tmp_path / "phases.png"
    ax.figure.savefig(png, dpi=80)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


LINE_KEYS = ["kind", "file", "line", "function", "linkage_name", "module", "samples", "hits",
             "seconds", "share", "share_sd", "approximate"]


def check_lines(path, json_of):
    doc = json_of("lines", "--json", "--top", "0", path)
    df = scope.open(path).lines()
    assert len(df) == len(doc["lines"]) > 0
    for i, line in enumerate(doc["lines"]):
        check_row(df.iloc[i], line, LINE_KEYS, f"line {i}")
    return df, doc


def test_profiler_lines(profiler_file, json_of):
    """line_profiler's measured lines, imported from a scope-profiler file."""
    path = os.path.join(os.path.dirname(profiler_file), "line-profile.h5")
    df, doc = check_lines(path, json_of)
    assert (df.kind == "measured").all() and df.hits.sum() == doc["hits"]


def test_example_lines(example_run, json_of):
    df, doc = check_lines(example_run, json_of)
    assert (df.kind == "sampled").all()
    assert df.samples.sum() <= doc["samples"]


def test_hdf5_export(example_export, json_of):
    check_all(example_export, json_of)


def test_scope_profiler_file(profiler_file, json_of):
    doc = check_all(profiler_file, json_of)
    run = scope.open(profiler_file)
    assert run.source and "scope-profiler" in run.source
    assert doc["run"]["processes"] == 3


def test_frames_outlive_run(profiler_file):
    """A frame views the C table's memory: it stays whole after the run is
    closed and collected (ASan would see a read of freed memory)."""
    import gc

    want = scope.open(profiler_file).phases()
    run = scope.open(profiler_file)
    df, procs = run.phases(), run.processes()
    run.close()
    del run
    gc.collect()
    junk = [bytearray(4096) for _ in range(10000)]  # reuse what was freed, if it was
    pd.testing.assert_frame_equal(df, want)
    assert procs.pid.notna().all() or procs.pid.isna().all()
    del junk


def test_no_samples(example_run):
    run = scope.open(example_run, samples=False)
    assert len(run.phases()) > 0
    with pytest.raises(scope.NoDataError, match="without its samples"):
        run.samples()


def test_compare(json_of):
    base = os.path.join(os.path.dirname(__file__), "..", "fixtures", "compare-runs")
    a, b = os.path.join(base, "base"), os.path.join(base, "slow")
    doc = json_of("compare", "--json", a, b)
    df = scope.open(a).compare(scope.open(b))
    n = 0
    for role in doc["roles"]:
        for p in role["phases"]:
            for fig in df[(df.role == role["name"]) & (df.path == p["path"])].itertuples():
                want = p[fig.figure]
                for k in ("a", "b", "delta", "change"):
                    assert same(getattr(fig, k), want[k]), f"{p['path']} {fig.figure} {k}"
                if "change_low" in want:
                    assert same(fig.change_low, want["change_low"])
                    assert same(fig.change_high, want["change_high"])
                n += 1
    assert n == len(df) > 0
    compute = df[(df.path.str.endswith("compute")) & (df.figure == "mean_ns")]
    assert (compute.change > 0.5).all()  # compute sleeps 12 ms instead of 6


def test_no_lines(profiler_file):
    with pytest.raises(scope.NoDataError, match="no line samples"):
        scope.open(os.path.join(os.path.dirname(profiler_file), "schema-1.h5")).lines()
