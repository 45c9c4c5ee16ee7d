"""Index runs of one store from several processes at once, and locks left by dead runs.

Every test runs on both stores: the child processes open the store by URL (a SQLite file, or
the Neo4j server, where the index lock is a node of the graph)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from cartograph.index import IndexingError, index_repository
from cartograph.query.common import symbols_named
from indexing_support import (
    assert_same_as_fresh,
    calls,
    commit_all,
    differences,
    fresh_index,
    git_init,
    snapshot,
    start_together,
    write_tree,
)

MODULES = 200

# Imports everything first, then waits for "go" on stdin so that every child starts indexing
# at the same moment; prints its IndexResult as JSON.
CHILD = """
import json, sys
from cartograph.index import index_repository
from cartograph.store import open_store
store_url, root, name = sys.argv[1:4]
sys.stdin.readline()
store = open_store(store_url)
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
    for item in store.graph.export(repo):
        found[(item["type"], item["label"])] += 1
    return found


def run_children(jobs: list[tuple[str, str, str]]) -> list[dict]:
    """Index with one child per (store URL, root, name), started together; their results."""
    results = []
    for child, out, err in start_together(CHILD, [list(job) for job in jobs]):
        assert child.returncode == 0, f"child failed:\n{err}"
        assert "Traceback" not in err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory):
    root = git_init(tmp_path_factory.mktemp("big") / "repo")
    make_repo(root)
    commit_all(root)
    return root


OPEN_CHILD = """
import sys
from cartograph.store import open_store
sys.stdin.readline()
store = open_store(sys.argv[1])
print(len(store.repos.list_repos()))
store.close()
"""


def test_processes_opening_a_new_store_at_once_all_succeed(stores):
    """Nothing is there yet and every process creates it at the same moment (SQLite: the
    file and its tables; Neo4j: the schema's constraints and indexes). A few rounds: it is
    a race."""
    for round_ in range(4):
        stores.blank()
        name = f"new-{round_}"
        failures = []
        for child, out, err in start_together(OPEN_CHILD, [[stores.url(name)]] * 3):
            if child.returncode != 0 or out.strip() != "0":
                lines = err.strip().splitlines() or [out]
                failures.append(next((x for x in reversed(lines) if "Error:" in x), lines[-1]))
        assert not failures, f"round {round_}: {failures}"
        assert stores.open(name).repos.list_repos() == []


def test_two_processes_indexing_the_same_repository_end_like_one_run(big_repo, stores):
    root = big_repo
    url = stores.url("shared")
    store = stores.open("shared")
    results = run_children([(url, str(root), "big"), (url, str(root), "big")])

    # one run of one process (with as many workers), in the same store under another name
    with fresh_index(store, root, "big", suffix="single", workers=2) as name:
        assert counts(store, name) == counts(store, "big")
        assert snapshot(store, name, as_repo="big") == snapshot(store, "big")
    assert ("app.main", "pkg.mod_0.f_0") in calls(store, "big")
    # the runs took turns: one did the work, the other found nothing to do
    assert sorted(r["parsed"] for r in results) == [0, MODULES + 2]
    assert sorted(r["unchanged"] for r in results) == [0, MODULES + 2]
    assert all(r["files"] == MODULES + 2 for r in results)
    # no lock is left behind
    assert store.index.index_lock_holder("big") is None
    assert store.index.acquire_index_lock("big", "next-run", 10.0)


def test_the_graph_does_not_depend_on_the_number_of_workers(big_repo, stores):
    """Forked workers resolve shares of the files, each with the symbol table as it was when
    they forked; what a call resolves to must not depend on that (nor on the order)."""
    store = stores.open()
    with (
        fresh_index(store, big_repo, "big", suffix="one-worker", workers=1) as one,
        fresh_index(store, big_repo, "big", suffix="two-workers", workers=2) as two,
    ):
        alone, shared = snapshot(store, one, as_repo="big"), snapshot(store, two, "big")
    problems = differences(shared, alone, ("the index by 2 workers", "the index by 1 worker"))
    assert not problems, "the number of workers changes the graph\n" + "\n".join(problems)


def test_three_processes_on_an_existing_index_after_a_change(tmp_path, stores):
    modules = 100
    work = make_repo(tmp_path / "work", modules=modules)
    store = stores.open("shared")
    index_repository(store, work, name="big", workers=2)

    make_repo(work, modules=modules, salt=" (changed)")  # all docstrings but the last change
    url = stores.url("shared")
    results = run_children([(url, str(work), "big")] * 3)
    assert sorted(r["parsed"] for r in results) == [0, 0, modules - 1]

    with fresh_index(store, work, "big") as fresh:
        assert counts(store, "big") == counts(store, fresh)
        assert snapshot(store, "big") == snapshot(store, fresh, as_repo="big")
    (f_5,) = symbols_named(store.graph, "pkg.mod_5.f_5", "big", 5)
    assert f_5.doc == "Function 5 (changed)."


def test_two_processes_indexing_different_repositories_into_one_store(tmp_path, stores):
    one = make_repo(tmp_path / "one", modules=80)
    two = make_repo(tmp_path / "two", modules=70, salt="!")
    url = stores.url("shared")
    results = run_children([(url, str(one), "one"), (url, str(two), "two")])
    assert [r["parsed"] for r in results] == [82, 72]

    store = stores.open("shared")
    assert {r.name for r in store.repos.list_repos()} == {"one", "two"}
    for root, name in ((one, "one"), (two, "two")):
        assert_same_as_fresh(store, root, name)


# ---------------------------------------------------------------- locks


def small_repo(tmp_path):
    return write_tree(
        tmp_path / "small",
        {"a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"},
    )


def test_a_stale_lock_does_not_block_a_new_run(tmp_path, stores):
    root = small_repo(tmp_path)
    store = stores.open()
    # a run on another machine died long ago: its lock has expired
    assert store.index.acquire_index_lock("r", "other-host:4242:deadbeef", -1.0)
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.parsed == 1
    assert calls(store, "r") == {("a.f", "a.g")}
    # and the run released its own lock
    assert store.index.acquire_index_lock("r", "someone", 10.0)


def test_a_stale_lock_written_by_another_process_does_not_block(tmp_path, stores):
    root = small_repo(tmp_path)
    code = (
        "import sys\n"
        "from cartograph.store import open_store\n"
        "s = open_store(sys.argv[1])\n"
        "assert s.index.acquire_index_lock('r', 'crashed-run', -5.0)\n"
        "s.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, stores.url()], check=True)
    store = stores.open()
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.files == 1


def test_the_lock_of_a_killed_process_on_this_machine_is_not_waited_out(tmp_path, stores):
    """A run killed by SIGKILL or the OOM killer leaves an unexpired lock; its process is gone,
    so the next run takes the lock at once instead of waiting for it to expire."""
    root = small_repo(tmp_path)
    code = (
        "import os, signal, socket, sys\n"
        "from cartograph.store import open_store\n"
        "s = open_store(sys.argv[1])\n"
        "owner = f'{socket.gethostname()}:{os.getpid()}:abc'\n"
        "assert s.index.acquire_index_lock('r', owner, 300.0)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", code, stores.url()], check=False)
    assert killed.returncode == -9
    store = stores.open()
    assert store.index.index_lock_holder("r") is not None  # still there, unexpired
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.files == 1
    assert store.index.index_lock_holder("r") is None


def test_a_live_lock_blocks_and_names_the_repository(tmp_path, stores):
    root = small_repo(tmp_path)
    store = stores.open()
    assert store.index.acquire_index_lock("r", "busy-run", 300.0)
    assert not store.index.acquire_index_lock("r", "another", 300.0)
    messages = []
    with pytest.raises(IndexingError) as info:
        index_repository(store, root, name="r", workers=1, lock_timeout=0, progress=messages.append)
    assert "'r'" in str(info.value)
    assert "lock" in str(info.value)
    assert store.repos.get_repo("r") is None
    # a lock on one repository does not block another
    assert index_repository(store, root, name="other", workers=1, lock_timeout=0).files == 1
    # once the holder is done, the run goes through
    store.index.release_index_lock("r", "busy-run")
    assert index_repository(store, root, name="r", workers=1, lock_timeout=0).files == 1


def test_the_lock_is_released_when_a_run_fails(tmp_path, stores):
    root = small_repo(tmp_path)
    store = stores.open()

    def boom(_message: str) -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        index_repository(store, root, name="r", workers=1, progress=boom)
    assert index_repository(store, root, name="r", workers=1, lock_timeout=0).parsed == 1


def test_a_rebuild_holds_its_lock_after_deleting_the_old_index(tmp_path, stores):
    """A rebuild (another index format) deletes the repository's data first; its own lock must
    survive that, so no other run enters while it writes (issue 12, item 2)."""
    from dataclasses import replace

    root = small_repo(tmp_path)
    store = stores.open()
    index_repository(store, root, name="r", workers=1)
    store.repos.upsert_repo(replace(store.repos.get_repo("r"), index_format="0-older"))
    seen = []

    def while_parsing(message: str) -> None:  # called after the old data is gone
        if message.startswith("parsing"):
            seen.append((store.index.index_lock_holder("r"), store.graph.files("r")))
            seen.append(store.index.acquire_index_lock("r", "another-run", 300.0))

    result = index_repository(store, root, name="r", workers=1, progress=while_parsing)
    assert result.parsed == 1
    (holder, files), taken = seen
    assert holder is not None and holder != "another-run"
    assert files == {}  # the old index was deleted before parsing
    assert taken is False
    assert store.index.index_lock_holder("r") is None  # released at the end


# ---------------------------------------------------------------- a run killed half-way

KILLED_CHILD = """
import os, signal, sys
from cartograph.index import index_repository
from cartograph.store import open_store
store_url, root, name, when = sys.argv[1:5]

def kill_at(frame, event, arg):
    # the process dies (SIGKILL: no cleanup at all) as the store is asked to `when`
    if event == "call" and frame.f_code.co_name == when:
        os.kill(os.getpid(), signal.SIGKILL)

store = open_store(store_url)
sys.setprofile(kill_at)
index_repository(store, root, name=name, workers=1)
"""


def clear_lock_of_dead_run(store, repo: str) -> None:
    """The killed run's lock lives on for LOCK_TTL; expire it as if that time had passed (its
    owner may take it again: with a lifetime in the past)."""
    holder = store.index.index_lock_holder(repo)
    assert holder is not None
    assert store.index.acquire_index_lock(repo, holder, -1.0)
    assert store.index.index_lock_holder(repo) is None


@pytest.mark.parametrize(
    "when",
    ["write_edges", "write_files"],
    ids=["killed-before-dependents-are-rewritten", "killed-after-deleting-files"],
)
def test_the_run_after_a_killed_run_repairs_the_graph(tmp_path, stores, when):
    root = write_tree(
        tmp_path / "repo",
        {
            "b.py": "def old_name():\n    return 1\n",
            "a.py": "from b import old_name\n\n\ndef run():\n    old_name()\n",
            "gone.py": "def doomed():\n    return 1\n",
            "c.py": "from gone import doomed\n\n\ndef run():\n    doomed()\n",
        },
    )
    store = stores.open()
    index_repository(store, root, name="r", workers=1)
    assert calls(store, "r") == {("a.run", "b.old_name"), ("c.run", "gone.doomed")}

    write_tree(root, {"b.py": "def new_name():\n    return 1\n"})
    (root / "gone.py").unlink()
    child = subprocess.run(
        [sys.executable, "-c", KILLED_CHILD, stores.url(), str(root), "r", when],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -9, f"the run was not killed at {when}: {child.stderr}"

    clear_lock_of_dead_run(store, "r")
    index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert calls(store, "r") == set()
    assert_same_as_fresh(store, root, "r")


WORKER_KILLED_CHILD = """
import os, signal, sys
from cartograph.index import IndexingError, index_repository
from cartograph.store import open_store
store_url, root = sys.argv[1:3]
parent = os.getpid()

def kill_worker(frame, event, arg):
    # a forked resolve worker dies as the OOM killer would kill it
    if event == "call" and frame.f_code.co_name == "batches" and os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)

sys.setprofile(kill_worker)
try:
    index_repository(open_store(store_url), root, name="r", workers=2)
except IndexingError as exc:
    print("refused:", exc)
"""


def test_a_resolve_worker_killed_is_a_clear_error_not_a_hang(tmp_path, stores):
    root = make_repo(tmp_path / "repo", modules=100)
    child = subprocess.run(
        [sys.executable, "-c", WORKER_KILLED_CHILD, stores.url(), str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert "refused: a resolve worker stopped (exit code -9)" in child.stdout
    # the run released its lock, and the next run completes the index
    store = stores.open()
    index_repository(store, root, name="r", workers=2, lock_timeout=0)
    assert_same_as_fresh(store, root, "r")
