"""Index runs of one store from several processes at once, and locks left by dead runs."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from cartograph.index import IndexingError, index_repository
from cartograph.store.sqlite import SQLiteStore
from indexing_support import calls, commit_all, git_init, snapshot, write_tree

MODULES = 200

# Imports everything first, then waits for "go" on stdin so that every child starts indexing
# at the same moment; prints its IndexResult as JSON.
CHILD = """
import json, sys
from cartograph.index import index_repository
from cartograph.store.sqlite import SQLiteStore
store_path, root, name = sys.argv[1:4]
sys.stdin.readline()
store = SQLiteStore(store_path)
result = index_repository(store, root, name=name, workers=2, lock_timeout=120)
print(json.dumps({"files": result.files, "parsed": result.parsed,
                  "unchanged": result.unchanged, "symbols": result.symbols_written}))
store.close()
"""


def make_repo(root, modules: int = MODULES, salt: str = ""):
    """`modules` small modules that import and call each other, with classes and methods."""
    files = {"pkg/__init__.py": "from pkg.mod_0 import f_0\n"}
    for i in range(modules):
        nxt, far = (i + 1) % modules, (i * 7 + 3) % modules
        files[f"pkg/mod_{i}.py"] = (
            f"from pkg.mod_{nxt} import f_{nxt}, C_{nxt}\n"
            f"import pkg.mod_{far}\n\n\n"
            f"def f_{i}(n=0):\n"
            f'    """Function {i}{salt}."""\n'
            f"    if n > 3:\n        return n\n"
            f"    return f_{nxt}(n + 1) + pkg.mod_{far}.f_{far}(n + 2)\n\n\n"
            f"class C_{i}(C_{nxt}):\n"
            f"    def run(self):\n        return self.step() + f_{i}()\n\n"
            f"    def step_{i}(self):\n        return self.run()\n"
        )
    last = modules - 1
    files[f"pkg/mod_{last}.py"] = (
        f"from pkg import f_0\n\n\ndef f_{last}(n=0):\n    return f_0(n)\n\n\n"
        f"class C_{last}:\n    def step(self):\n        return 0\n"
    )
    files["app.py"] = "from pkg import f_0\n\n\ndef main():\n    return f_0()\n"
    write_tree(root, files)
    return root


def counts(store, repo: str) -> Counter:
    found: Counter = Counter()
    for item in store.export(repo):
        found[(item["type"], item["label"])] += 1
    return found


def run_children(jobs: list[tuple[str, str, str]]) -> list[dict]:
    """Start one child per (store, root, name), release them together, wait for all."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, *job],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    ]
    for child in children:  # all are importing now; let them go together
        child.stdin.write("go\n")
        child.stdin.flush()
    results = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, f"child failed:\n{err}"
        assert "Traceback" not in err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory):
    root = git_init(tmp_path_factory.mktemp("big") / "repo")
    make_repo(root)
    commit_all(root)
    single = SQLiteStore(tmp_path_factory.mktemp("single") / "graph.db")
    result = index_repository(single, root, name="big", workers=2)
    assert result.files == MODULES + 2
    reference = (counts(single, "big"), snapshot(single, "big"))
    single.close()
    return root, reference


def test_two_processes_indexing_the_same_repository_end_like_one_run(big_repo, tmp_path):
    root, (reference_counts, reference_snapshot) = big_repo
    db = tmp_path / "shared.db"  # does not exist yet: both children create it
    results = run_children([(str(db), str(root), "big"), (str(db), str(root), "big")])

    store = SQLiteStore(db)
    assert counts(store, "big") == reference_counts
    assert snapshot(store, "big") == reference_snapshot
    assert ("app.main", "pkg.mod_0.f_0") in calls(store, "big")
    # the runs took turns: one did the work, the other found nothing to do
    assert sorted(r["parsed"] for r in results) == [0, MODULES + 2]
    assert sorted(r["unchanged"] for r in results) == [0, MODULES + 2]
    assert all(r["files"] == MODULES + 2 for r in results)
    # no lock is left behind
    assert store.acquire_index_lock("big", "next-run", 10.0)
    store.close()


def test_three_processes_on_an_existing_index_after_a_change(tmp_path):
    modules = 100
    work = make_repo(tmp_path / "work", modules=modules)
    db = tmp_path / "shared.db"
    store = SQLiteStore(db)
    index_repository(store, work, name="big", workers=2)
    store.close()

    make_repo(work, modules=modules, salt=" (changed)")  # all docstrings but the last change
    results = run_children([(str(db), str(work), "big")] * 3)
    assert sorted(r["parsed"] for r in results) == [0, 0, modules - 1]

    store = SQLiteStore(db)
    fresh = SQLiteStore(tmp_path / "fresh.db")
    index_repository(fresh, work, name="big", workers=1)
    assert counts(store, "big") == counts(fresh, "big")
    assert snapshot(store, "big") == snapshot(fresh, "big")
    (f_5,) = store.find_symbols("pkg.mod_5.f_5", "big", 5)
    assert f_5.doc == "Function 5 (changed)."
    store.close()
    fresh.close()


def test_two_processes_indexing_different_repositories_into_one_store(tmp_path):
    one = make_repo(tmp_path / "one", modules=80)
    two = make_repo(tmp_path / "two", modules=70, salt="!")
    db = tmp_path / "shared.db"
    results = run_children([(str(db), str(one), "one"), (str(db), str(two), "two")])
    assert [r["parsed"] for r in results] == [82, 72]

    store = SQLiteStore(db)
    for root, name in ((one, "one"), (two, "two")):
        fresh = SQLiteStore(tmp_path / f"fresh-{name}.db")
        index_repository(fresh, root, name=name, workers=1)
        assert snapshot(store, name) == snapshot(fresh, name)
        fresh.close()
    store.close()


# ---------------------------------------------------------------- locks


def small_repo(tmp_path):
    return write_tree(
        tmp_path / "small",
        {"a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"},
    )


def test_a_stale_lock_does_not_block_a_new_run(tmp_path):
    root = small_repo(tmp_path)
    store = SQLiteStore(tmp_path / "graph.db")
    # a run on another machine died long ago: its lock has expired
    assert store.acquire_index_lock("r", "other-host:4242:deadbeef", -1.0)
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.parsed == 1
    assert calls(store, "r") == {("a.f", "a.g")}
    # and the run released its own lock
    assert store.acquire_index_lock("r", "someone", 10.0)
    store.close()


def test_a_stale_lock_written_by_another_process_does_not_block(tmp_path):
    root = small_repo(tmp_path)
    db = tmp_path / "graph.db"
    code = (
        "import sys\n"
        "from cartograph.store.sqlite import SQLiteStore\n"
        "s = SQLiteStore(sys.argv[1])\n"
        "assert s.acquire_index_lock('r', 'crashed-run', -5.0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=True)
    store = SQLiteStore(db)
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.files == 1
    store.close()


def test_the_lock_of_a_killed_process_on_this_machine_is_not_waited_out(tmp_path):
    """A run killed by SIGKILL or the OOM killer leaves an unexpired lock; its process is gone,
    so the next run takes the lock at once instead of waiting for it to expire."""
    root = small_repo(tmp_path)
    db = tmp_path / "graph.db"
    code = (
        "import os, signal, socket, sys\n"
        "from cartograph.store.sqlite import SQLiteStore\n"
        "s = SQLiteStore(sys.argv[1])\n"
        "owner = f'{socket.gethostname()}:{os.getpid()}:abc'\n"
        "assert s.acquire_index_lock('r', owner, 300.0)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", code, str(db)], check=False)
    assert killed.returncode == -9
    store = SQLiteStore(db)
    assert store.index_lock_holder("r") is not None  # still there, unexpired
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.files == 1
    store.close()


def test_a_live_lock_blocks_and_names_the_repository(tmp_path):
    root = small_repo(tmp_path)
    store = SQLiteStore(tmp_path / "graph.db")
    assert store.acquire_index_lock("r", "busy-run", 300.0)
    assert not store.acquire_index_lock("r", "another", 300.0)
    messages = []
    with pytest.raises(IndexingError) as info:
        index_repository(store, root, name="r", workers=1, lock_timeout=0, progress=messages.append)
    assert "'r'" in str(info.value)
    assert "lock" in str(info.value)
    assert store.get_repo("r") is None
    # a lock on one repository does not block another
    assert index_repository(store, root, name="other", workers=1, lock_timeout=0).files == 1
    # once the holder is done, the run goes through
    store.release_index_lock("r", "busy-run")
    assert index_repository(store, root, name="r", workers=1, lock_timeout=0).files == 1
    store.close()


def test_the_lock_is_released_when_a_run_fails(tmp_path):
    root = small_repo(tmp_path)
    store = SQLiteStore(tmp_path / "graph.db")

    def boom(_message: str) -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        index_repository(store, root, name="r", workers=1, progress=boom)
    assert index_repository(store, root, name="r", workers=1, lock_timeout=0).parsed == 1
    store.close()


# ---------------------------------------------------------------- a run killed half-way

KILLED_CHILD = """
import os, signal, sys
from cartograph.index import index_repository
from cartograph.store.sqlite import SQLiteStore
store_path, root, name, when = sys.argv[1:5]

def kill_at(frame, event, arg):
    # the process dies (SIGKILL: no cleanup at all) as the store is asked to `when`
    if event == "call" and frame.f_code.co_name == when:
        os.kill(os.getpid(), signal.SIGKILL)

store = SQLiteStore(store_path)
sys.setprofile(kill_at)
index_repository(store, root, name=name, workers=1)
"""


def clear_lock_of_dead_run(db, repo: str) -> None:
    """The killed run's lock lives on for LOCK_TTL; expire it as if that time had passed."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM locks WHERE repo = ?", (repo,)).fetchone()[0]
        conn.execute("UPDATE locks SET expires = 0 WHERE repo = ?", (repo,))


@pytest.mark.parametrize(
    "when",
    ["write_edges", "write_files"],
    ids=["killed-before-dependents-are-rewritten", "killed-after-deleting-files"],
)
def test_the_run_after_a_killed_run_repairs_the_graph(tmp_path, when):
    root = write_tree(
        tmp_path / "repo",
        {
            "b.py": "def old_name():\n    return 1\n",
            "a.py": "from b import old_name\n\n\ndef run():\n    old_name()\n",
            "gone.py": "def doomed():\n    return 1\n",
            "c.py": "from gone import doomed\n\n\ndef run():\n    doomed()\n",
        },
    )
    db = tmp_path / "graph.db"
    store = SQLiteStore(db)
    index_repository(store, root, name="r", workers=1)
    assert calls(store, "r") == {("a.run", "b.old_name"), ("c.run", "gone.doomed")}
    store.close()

    write_tree(root, {"b.py": "def new_name():\n    return 1\n"})
    (root / "gone.py").unlink()
    child = subprocess.run(
        [sys.executable, "-c", KILLED_CHILD, str(db), str(root), "r", when],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -9, f"the run was not killed at {when}: {child.stderr}"

    clear_lock_of_dead_run(db, "r")
    store = SQLiteStore(db)
    index_repository(store, root, name="r", workers=1, lock_timeout=0)
    fresh = SQLiteStore(tmp_path / "fresh.db")
    index_repository(fresh, root, name="r", workers=1)
    assert calls(store, "r") == calls(fresh, "r") == set()
    assert snapshot(store, "r") == snapshot(fresh, "r")
    store.close()
    fresh.close()
