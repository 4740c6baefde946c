#!/usr/bin/env python3
"""Checks a Chrome trace written by `scope-tui export --format chrome`.

usage: check_chrome_trace.py TRACE.json schema
           the document parses and every event has the fields its kind needs
       check_chrome_trace.py TRACE.json window TIMES FIRST LAST [--killed-at K] [--capped CAP]
           against trace-workload's own record of its steps (TIMES): each of
           its processes holds exactly the steps FIRST..LAST (up to K-1 when
           it was killed inside step K), each with its two inner phases,
           never the outer "run" phase, the polls of its second thread that
           lie inside the window and none outside it, and the running total
           of "items" over the steps in the window
       check_chrome_trace.py TRACE.json phase NAME PROCS COUNT
           PROCS processes, each with exactly COUNT complete events named NAME
       check_chrome_trace.py TRACE.json names RUN.json
           every process is named "ROLE rank R (pid P) @ HOST" or "ROLE pid
           P @ HOST" from the run's own record of it (RUN.json: `scope-tui
           report --json`), each name its own; every thread is named after
           its process ("main thread" where its tid is the pid, else
           "thread TID"), each name its own
       check_chrome_trace.py TRACE.json hosts N MAX_S
           N processes on N hosts, whose windows open within MAX_S seconds of
           each other on the document's clock

Prints what is wrong and exits 1; exits 0 when all holds.
"""
import json
import sys
from collections import defaultdict

errors = []


def fail(msg):
    errors.append(msg)


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise SystemExit(f"{path}: no traceEvents array")
    return doc["traceEvents"]


NUM = (int, float)


def check_schema(events):
    named_pids, named_tids, used_tids = set(), set(), set()
    for i, e in enumerate(events):
        ph = e.get("ph")
        if not isinstance(e.get("name"), str) or not isinstance(e.get("pid"), int):
            fail(f"event {i} lacks a name or an integer pid: {e}")
            continue
        if ph == "M":
            if e["name"] == "process_name":
                named_pids.add(e["pid"])
            elif e["name"] == "thread_name":
                named_tids.add((e["pid"], e.get("tid")))
            else:
                fail(f"event {i}: unknown metadata {e['name']}")
            if not isinstance(e.get("args", {}).get("name"), str):
                fail(f"event {i}: metadata without args.name: {e}")
        elif ph == "X":
            if not isinstance(e.get("ts"), NUM) or not isinstance(e.get("dur"), NUM):
                fail(f"event {i}: X without numeric ts and dur: {e}")
            elif e["dur"] < 0:
                fail(f"event {i}: negative dur: {e}")
            if not isinstance(e.get("tid"), int):
                fail(f"event {i}: X without an integer tid: {e}")
            used_tids.add((e["pid"], e.get("tid")))
        elif ph == "C":
            args = e.get("args")
            if not isinstance(e.get("ts"), NUM) or not isinstance(args, dict) or not args:
                fail(f"event {i}: C without ts or args: {e}")
            elif not all(isinstance(v, NUM) for v in args.values()):
                fail(f"event {i}: C with a value that is not a number: {e}")
        elif ph == "i":
            if not isinstance(e.get("ts"), NUM) or e.get("s") not in ("g", "p", "t"):
                fail(f"event {i}: i without ts or scope: {e}")
        else:
            fail(f"event {i}: unexpected phase type {ph!r}")
    for pid in {e["pid"] for e in events if isinstance(e.get("pid"), int)} - named_pids:
        fail(f"pid {pid} has no process_name")
    for pid, tid in used_tids - named_tids:
        fail(f"thread {tid} of pid {pid} has no thread_name")


def windows(events):
    """pid -> (open instant, close instant) of its window."""
    w = defaultdict(dict)
    for e in events:
        if e.get("ph") == "i" and e["name"].startswith("trace window opened"):
            w[e["pid"]]["open"] = e
        elif e.get("ph") == "i" and e["name"].startswith("trace window "):
            w[e["pid"]]["end"] = e
    return w


def check_window(events, times_path, first, last, killed_at, cap):
    steps, polls = defaultdict(dict), defaultdict(list)
    with open(times_path, encoding="utf-8") as f:
        for line in f:
            what, pid, i, t0, t1 = line.split()
            if what == "step":
                steps[int(pid)][int(i)] = (int(t0), int(t1))
            else:
                polls[int(pid)].append((int(t0), int(t1)))
    wins = windows(events)
    by_pid = defaultdict(list)
    for e in events:
        by_pid[e["pid"]].append(e)
    if set(wins) != set(steps):
        fail(f"windows in pids {sorted(wins)}, the program ran pids {sorted(steps)}")
    for pid, st in steps.items():
        win = wins.get(pid, {})
        if "open" not in win or "end" not in win:
            fail(f"pid {pid}: no window bounds")
            continue
        # The document's clock against CLOCK_MONOTONIC, from the window's start.
        shift = win["open"]["ts"] * 1000 - win["open"]["args"]["mono_ns"]
        mono = lambda ts: ts * 1000 - shift  # noqa: E731
        xs = [e for e in by_pid[pid] if e["ph"] == "X"]
        names = defaultdict(list)
        for e in xs:
            names[e["name"]].append(e)
        if names.get("run"):
            fail(f"pid {pid}: the outer phase 'run', entered before the window, is in it")
        want = list(range(first, (killed_at if killed_at else last + 1)))
        if cap is None:
            got = []
            for e in names.get("step", []):
                start = mono(e["ts"])
                match = [i for i, (t0, t1) in st.items() if t0 - 1 <= start <= t1 + 1]
                if len(match) != 1:
                    fail(f"pid {pid}: a step event at {start:.0f} matches steps {match}")
                    continue
                got.append(match[0])
                t0, t1 = st[match[0]]
                if mono(e["ts"] + e["dur"]) > t1 + 1:
                    fail(f"pid {pid}: step {match[0]} ends after the program saw it end")
            if sorted(got) != want:
                fail(f"pid {pid}: steps {sorted(got)} in the trace, wanted {want}")
            inner = [e for e in names.get("inner", [])]
            want_inner = 2 * len(want) + (2 if killed_at else 0)
            if len(inner) != want_inner:
                fail(f"pid {pid}: {len(inner)} inner phases, wanted {want_inner}")
            lo = st[first][0]
            for e in inner:
                s = mono(e["ts"])
                if s < lo:
                    fail(f"pid {pid}: an inner phase at {s:.0f} starts before step {first}")
            counts = [e for e in by_pid[pid] if e["ph"] == "C" and e["name"] == "items"]
            want_total = sum(want) + (killed_at if killed_at else 0)
            if not counts or counts[-1]["args"]["items"] != want_total:
                fail(f"pid {pid}: items total {counts[-1]['args'] if counts else None}, "
                     f"wanted {want_total}")
            if len(counts) != len(want) + (1 if killed_at else 0):
                fail(f"pid {pid}: {len(counts)} counts of items, wanted "
                     f"{len(want) + (1 if killed_at else 0)}")
            # The second thread: a poll inside [step FIRST's end, step LAST's
            # start] is in; one that ended before step FIRST began, or began
            # after step LAST ended, is out.
            if polls.get(pid):
                pstarts = [mono(e["ts"]) for e in names.get("poll", [])]

                def present(t0, t1):
                    return any(t0 - 1 <= s <= t1 + 1 for s in pstarts)

                in_lo = st[first][1]
                in_hi = st[last][0] if not killed_at else st[killed_at - 1][1]
                out_hi = st[last][1] if not killed_at and last in st else None
                n_in = 0
                for t0, t1 in polls[pid]:
                    if t0 > in_lo and t1 < in_hi:
                        n_in += 1
                        if not present(t0, t1):
                            fail(f"pid {pid}: a poll inside the window ({t0}) is missing")
                    elif t1 < st[first][0] or (out_hi and t0 > out_hi):
                        if present(t0, t1):
                            fail(f"pid {pid}: a poll outside the window ({t0}) is in it")
                if n_in == 0:
                    fail(f"pid {pid}: no poll fell inside the window; the test proves nothing")
            if killed_at and "still open" not in win["end"]["name"]:
                fail(f"pid {pid}: killed inside its window, but it ends '{win['end']['name']}'")
        else:
            n = sum(1 for e in by_pid[pid] if e["ph"] in ("X", "C"))
            if n > cap:
                fail(f"pid {pid}: {n} events past a cap of {cap}")
            if "capped" not in win["end"]["name"]:
                fail(f"pid {pid}: the window ends '{win['end']['name']}', not capped")


def check_phase(events, name, procs, count):
    per = defaultdict(int)
    for e in events:
        if e.get("ph") == "X" and e["name"] == name:
            per[e["pid"]] += 1
    if len(per) != procs:
        fail(f"{len(per)} processes with '{name}' events, wanted {procs}")
    for pid, n in per.items():
        if n != count:
            fail(f"pid {pid}: {n} '{name}' events, wanted {count}")


def check_hosts(events, n, max_s):
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    hosts = {name.rsplit(" @ ", 1)[-1] for name in names.values()}
    if len(names) != n or len(hosts) != n:
        fail(f"processes {sorted(names.values())}: wanted {n} on {n} hosts")
    opens = [w["open"]["ts"] for w in windows(events).values() if "open" in w]
    if len(opens) != n:
        fail(f"{len(opens)} windows opened, wanted {n}")
    elif max(opens) - min(opens) > max_s * 1e6:
        fail(f"windows open {(max(opens) - min(opens)) / 1e6:.3f} s apart, at most {max_s} wanted")


def check_names(events, run_json):
    with open(run_json, encoding="utf-8") as f:
        run = json.load(f)
    workers = {w["pid"]: w for w in run["workers"] if w["attempt"] == len(run["attempts"]) - 1}
    procs = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    if not procs:
        fail("no process_name events")
    whos = {}
    for pid, name in procs.items():
        w = workers.get(pid)
        if w is None:
            fail(f"pid {pid} ({name!r}) is none of the run's processes")
            continue
        if w["rank"] is not None:
            whos[pid] = f"{w['role']} rank {w['rank']}"
            want = f"{whos[pid]} (pid {pid}) @ {w['host']}"
        else:
            whos[pid] = f"{w['role']} pid {pid}"
            want = f"{whos[pid]} @ {w['host']}"
        if name != want:
            fail(f"pid {pid} is named {name!r}, wanted {want!r}")
    if len(set(procs.values())) != len(procs):
        fail(f"two processes share a name: {sorted(procs.values())}")
    for (pid, tid), name in threads.items():
        if pid not in whos:
            continue
        want = f"{whos[pid]} main thread" if tid == pid else f"{whos[pid]} thread {tid}"
        if name != want and not name.startswith(want + " ("):
            fail(f"thread {tid} of pid {pid} is named {name!r}, wanted {want!r} and its own name")
    if len(set(threads.values())) != len(threads):
        fail(f"two threads share a name: {sorted(threads.values())}")


def main(argv):
    events = load(argv[1])
    check_schema(events)
    if argv[2] == "window":
        killed = capped = None
        rest = argv[6:]
        while rest:
            if rest[0] == "--killed-at":
                killed = int(rest[1])
            elif rest[0] == "--capped":
                capped = int(rest[1])
            rest = rest[2:]
        check_window(events, argv[3], int(argv[4]), int(argv[5]), killed, capped)
    elif argv[2] == "phase":
        check_phase(events, argv[3], int(argv[4]), int(argv[5]))
    elif argv[2] == "names":
        check_names(events, argv[3])
    elif argv[2] == "hosts":
        check_hosts(events, int(argv[3]), float(argv[4]))
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
