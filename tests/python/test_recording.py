"""scope.init/phase/count/flush from Python: behaviour and bad use
(docs/python.md, "Recording from Python").  Each test that records runs a
small program in a child interpreter (a process records one log, and
scope.init holds for the life of the process), then reads its run back with
`scope-tui report --json` ($SCOPE_TUI).
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import scope

TUI = os.environ.get("SCOPE_TUI")


def record(tmp_path, body, env_extra=None, script=None):
    """Runs `body` (Python, with `scope` imported and RUN the run directory)
    in a child, as `python3 -c`, or as the file tmp_path/script (a script
    whose name is the default role, or whose functions spawned children
    import); returns (its output, the report's role -> {path: phase}, the
    whole report)."""
    run = tmp_path / "run"
    prog = "import json, os, sys, scope\nRUN = sys.argv[1]\n" + textwrap.dedent(body)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_")}
    env.update(SCOPE_QUIET="1", **(env_extra or {}))
    if script:
        (tmp_path / script).write_text(prog)
        argv = [sys.executable, str(tmp_path / script), str(run)]
    else:
        argv = [sys.executable, "-c", prog, str(run)]
    res = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    rep = subprocess.run([TUI, "report", "--json", str(run)], capture_output=True, text=True, timeout=60)
    assert rep.returncode == 0, rep.stderr
    doc = json.loads(rep.stdout)
    roles = {}
    for r in doc["roles"]:
        flat = roles.setdefault(r["name"], {})

        def walk(ps):
            for p in ps:
                flat[p["path"]] = p
                walk(p["children"])

        walk(r["phases"])
    return res.stdout, roles, doc


needs_tui = pytest.mark.skipif(not TUI, reason="$SCOPE_TUI names no scope-tui")


# ---- bad use: clear exceptions, never a crash --------------------------------------


@pytest.mark.parametrize("bad", [b"step", 3, None, ["step"]])
def test_phase_name_must_be_str(bad):
    with pytest.raises(TypeError, match="must be a str"):
        scope.phase(bad)


def test_phase_name_with_nul():
    with pytest.raises(ValueError, match="NUL"):
        scope.phase("a\0b")


def test_count_bad_arguments():
    with pytest.raises(TypeError, match="must be a str"):
        scope.count(b"n", 1)
    with pytest.raises(TypeError, match="must be an int"):
        scope.count("n", 1.5)
    with pytest.raises(OverflowError):
        scope.count("n", 2**64)
    with pytest.raises(TypeError):
        scope.count()


def test_exit_without_enter():
    p = scope.phase("never_entered")
    with pytest.raises(RuntimeError, match="without __enter__"):
        p.__exit__(None, None, None)


def test_exit_on_another_thread():
    import threading

    p = scope.phase("thread_bound")
    p.__enter__()
    errors = []

    def other():
        try:
            p.__exit__(None, None, None)
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    p.__exit__(None, None, None)  # the entering thread closes it
    assert len(errors) == 1 and "on this thread" in str(errors[0])


def test_decorator_bad_use():
    with pytest.raises(TypeError, match="callable"):
        scope.phase("x")(42)

    with pytest.raises(TypeError, match="async generator"):

        @scope.phase("x")
        async def agen():
            yield 1


def test_decorator_keeps_the_function_s_face():
    @scope.phase("x")
    def documented(a, b=2):
        """Adds."""
        return a + b

    assert documented.__name__ == "documented"
    assert documented.__doc__ == "Adds."
    assert documented.__wrapped__(1) == 3
    assert documented(1, b=5) == 6
    assert repr(scope.phase("esc\x1b[31m")) == "scope.phase('esc\\x1b[31m')"


def test_init_bad_arguments():
    with pytest.raises(TypeError, match="must be a str"):
        scope.init("run", role=7)
    with pytest.raises(ValueError):
        scope.init("r\0un")


# ---- what is recorded --------------------------------------------------------------


@needs_tui
def test_exceptions_close_phases(tmp_path):
    out, roles, doc = record(tmp_path, """
        scope.init(RUN, "exc")

        @scope.phase("fails")
        def fails():
            raise KeyError("x")

        for _ in range(3):
            try:
                with scope.phase("outer"):
                    fails()
            except KeyError:
                pass
        try:
            fails()  # at the top: nothing around it would close it
        except KeyError:
            pass
        with scope.phase("after"):
            pass
    """)
    phases = roles["exc"]
    assert {p: v["count"] for p, v in phases.items()} == {
        "outer": 3, "outer/fails": 3, "fails": 1, "after": 1}
    assert [w["unbalanced"] for w in doc["workers"]] == [0]


@needs_tui
def test_reused_and_nested_phase_objects(tmp_path):
    # One phase object entered recursively and from two threads at once:
    # each thread's entries close in their own order.
    out, roles, doc = record(tmp_path, """
        import threading
        scope.init(RUN, "reuse")
        P = scope.phase("rec")

        def deep(n):
            with P:
                if n:
                    deep(n - 1)

        barrier = threading.Barrier(2)

        def worker():
            with P:
                barrier.wait()
                deep(2)

        ts = [threading.Thread(target=worker) for _ in range(2)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    """)
    got = {p: v["count"] for p, v in roles["reuse"].items()}
    assert got == {"rec": 2, "rec/rec": 2, "rec/rec/rec": 2, "rec/rec/rec/rec": 2}
    assert all(w["unbalanced"] == 0 for w in doc["workers"])


@needs_tui
def test_hostile_names_are_recorded_and_shown_escaped(tmp_path):
    out, roles, _ = record(tmp_path, """
        scope.init(RUN, "names")
        with scope.phase("red\\x1b[31m\\u202e"):
            scope.count("n\\x07", 2)
        with scope.phase("ünïcode ✓"):
            pass
    """)
    # JSON carries the names as given (its escapes); the text report shows
    # the controls escaped, never raw.
    names = sorted(v["name"] for v in roles["names"].values())
    assert names == ["red\x1b[31m\u202e", "ünïcode ✓"]
    hostile = [v for v in roles["names"].values() if v["name"].startswith("red")][0]
    assert [c["name"] for c in hostile["counters"]] == ["n\x07"]
    text = subprocess.run([TUI, "report", str(tmp_path / "run")], capture_output=True, text=True,
                          check=True).stdout
    assert "ünïcode ✓" in text
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text


@needs_tui
def test_io_phase_and_init_twice(tmp_path):
    out, roles, doc = record(tmp_path, """
        first = scope.init(RUN, "twice")
        again = scope.init(RUN, "twice")
        with scope.phase("save", io=True):
            with open(os.path.join(RUN, "blob"), "wb") as f:
                f.write(b"x" * 65536)
                f.flush()
                os.fsync(f.fileno())
        print(json.dumps([first, again, scope.flush(), os.environ.get("SCOPE_RUN_DIR"),
                          os.environ.get("SCOPE_ROLE")]))
    """)
    first, again, flushed, env_dir, env_role = json.loads(out)
    assert (first, again, flushed) == (True, True, True)
    assert env_dir and env_dir.endswith("run") and env_role == "twice"
    save = roles["twice"]["save"]
    assert save["count"] == 1
    # Exact per-phase I/O: the 64 KiB written through write() inside it.
    assert 65536 <= save["io"]["char_write"] <= 65536 + 4096, save["io"]


@needs_tui
def test_default_role_is_the_script_name(tmp_path):
    out, roles, _ = record(tmp_path, """
        scope.init(RUN)
        with scope.phase("p"):
            pass
    """, script="my_trainer.py")
    assert list(roles) == ["my_trainer"]


@needs_tui
def test_switched_off_breaks_nothing(tmp_path):
    # SCOPE_PROFILE=0 switches the recorder off: init says so, every call
    # still works, nothing is written.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_")}
    env.update(SCOPE_PROFILE="0")
    res = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import scope
        print(scope.init("never-made", "off"))
        @scope.phase("f")
        def f():
            return 7
        with scope.phase("p"):
            scope.count("n", 1)
            print(f())
    """)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "7"]
    assert not (tmp_path / "never-made").exists()


@needs_tui
def test_init_from_the_environment_and_path_objects(tmp_path):
    # init() with no arguments: $SCOPE_RUN_DIR and $SCOPE_ROLE, as in C.
    out, roles, _ = record(tmp_path, """
        print(scope.init())
        with scope.phase("env_started"):
            pass
    """, env_extra={"SCOPE_RUN_DIR": str(tmp_path / "run"), "SCOPE_ROLE": "envrole"})
    assert out.split() == ["True"]
    assert list(roles) == ["envrole"] and "env_started" in roles["envrole"]
    run2 = tmp_path / "second"
    run2.mkdir()
    out, roles, _ = record(run2, """
        import pathlib
        print(scope.init(pathlib.Path(RUN), role="pathrole"))
        with scope.phase("p"):
            pass
    """)
    assert out.split() == ["True"] and list(roles) == ["pathrole"]


@needs_tui
def test_preloaded_recorder_is_the_one_recorder(tmp_path):
    # Python under LD_PRELOAD=libscope.so (scope-tui record -- python3 ...):
    # the extension's libscope is the preloaded one, even from another path
    # (the loader matches it by soname), so one log holds Python's phases.
    import scope._recorder as ext

    lib = [l.split()[-1] for l in open("/proc/self/maps") if "libscope.so" in l][0]
    copy = tmp_path / "elsewhere" / os.path.basename(lib)
    copy.parent.mkdir()
    copy.write_bytes(open(lib, "rb").read())
    out, roles, doc = record(tmp_path, """
        with scope.phase("preloaded"):
            scope.count("n", 5)
        maps = [l.split()[-1] for l in open("/proc/self/maps")]
        print(json.dumps(sorted({m for m in maps if os.path.basename(m).startswith("libscope.so")})))
    """, env_extra={"SCOPE_PROFILE": "1", "SCOPE_RUN_DIR": str(tmp_path / "run"),
                    "SCOPE_ROLE": "pre", "LD_PRELOAD": " ".join(filter(None, [
                        os.environ.get("LD_PRELOAD", ""), str(copy)]))})
    assert json.loads(out) == [str(copy)]  # one libscope mapped: the preloaded one
    assert len(doc["workers"]) == 1
    assert roles["pre"]["preloaded"]["count"] == 1
    assert [(c["name"], c["total"]) for c in roles["pre"]["preloaded"]["counters"]] == [("n", 5)]


@needs_tui
def test_generators_and_coroutines_are_timed_while_they_run(tmp_path):
    # The consumer sleeps 3 x 200 ms between items and the coroutine awaits
    # 2 x 200 ms: none of it is the decorated phase's, and the consumer's
    # phases are not nested under it.  Their bodies run for microseconds; the
    # bound, 100 ms, is a sixth and a quarter of the time they lay suspended
    # (what a phase left open across a yield or an await would add), and
    # leaves 100 ms for a loaded machine to preempt a few microseconds' work.
    out, roles, _ = record(tmp_path, """
        import asyncio, time
        scope.init(RUN, "gen")

        @scope.phase("produce")
        def produce():
            for i in range(3):
                yield i

        for item in produce():
            with scope.phase("consume"):
                time.sleep(0.200)

        @scope.phase("coro")
        async def coro():
            await asyncio.sleep(0.200)
            await asyncio.sleep(0.200)
            return 9

        print(asyncio.run(coro()))
    """)
    assert out.split() == ["9"]
    phases = roles["gen"]
    got = {p: v["count"] for p, v in phases.items()}
    # produce: 3 resumptions that yield and the one that ends it; coro: 3
    # steps, split by its two awaits.
    assert got == {"produce": 4, "consume": 3, "coro": 3}, got
    assert phases["consume"]["total_ns"] >= 3 * 200e6
    assert phases["produce"]["total_ns"] < 100e6, phases["produce"]["total_ns"]
    assert phases["coro"]["total_ns"] < 100e6, phases["coro"]["total_ns"]


def test_phases_and_decorated_functions_pickle():
    import pickle

    p = scope.phase("pickled", io=True)
    q = pickle.loads(pickle.dumps(p))
    assert (type(q), q.name) == (scope.phase, "pickled")
    assert pickle.loads(pickle.dumps(_module_level_decorated)) is _module_level_decorated
    assert _module_level_decorated(4) == 8


@scope.phase("module_level")
def _module_level_decorated(x):
    return 2 * x


@needs_tui
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_of_decorated_functions(tmp_path, method):
    # multiprocessing.Pool pickles the function it maps: a decorated one
    # goes by reference, and each worker records its calls in its own log.
    out, roles, doc = record(tmp_path, f"""
        import multiprocessing

        @scope.phase("pooled")
        def square(x):
            return x * x

        if __name__ == "__main__":
            scope.init(RUN, "pool")
            with multiprocessing.get_context("{method}").Pool(2) as pool:
                print(sum(pool.map(square, range(6), chunksize=1)))
    """, script="pooled.py")
    assert out.split() == ["55"]
    assert list(roles) == ["pool"]
    assert roles["pool"]["pooled"]["count"] == 6
    assert 1 <= roles["pool"]["pooled"]["nprocs"] <= 2


@needs_tui
def test_scope_tui_record_names_the_script(tmp_path):
    # scope-tui record -- python3 SCRIPT: the preloaded recorder records the
    # script's phases, under the script's name rather than "python3".
    script = tmp_path / "trainer.py"
    script.write_text("import scope\nwith scope.phase('recorded'):\n    scope.count('n', 3)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOPE_")}
    env["SCOPE_QUIET"] = "1"
    res = subprocess.run([TUI, "record", "-o", str(tmp_path / "run"), "--", sys.executable,
                          str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    doc = json.loads(subprocess.run([TUI, "report", "--json", str(tmp_path / "run")],
                                    capture_output=True, text=True, check=True).stdout)
    assert [r["name"] for r in doc["roles"]] == ["trainer"]
    assert [(p["path"], p["count"]) for p in doc["roles"][0]["phases"]] == [("recorded", 1)]
