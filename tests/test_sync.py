"""Syncing a tracked repository to pushed commits (library level, both stores): the mirror,
the exact checkout, incremental re-indexing, idempotence, older and force-pushed commits,
permanent failures recorded, coalescing of pushes into one job."""

from __future__ import annotations

import threading

import pytest
from cartograph.jobs import MemoryJobState, ThreadJobRunner, run_job
from cartograph.sync import Mirror, sync_to
from cartograph.tracking import TrackingError, add_tracked, remove_tracked, repo_status
from push_support import Remote, assert_graph_matches_tree, wait_for_indexed

FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": "def net(x):\n    return x / 1.2\n\n\ndef gross(x):\n    return x * 1.2\n",
    "shop/cart.py": (
        "from shop.prices import net\n\n\n"
        "class Cart:\n"
        "    def total(self, items):\n"
        "        return sum(net(i) for i in items)\n"
    ),
    "README.md": "# shop\n",
}


@pytest.fixture
def tracked_remote(tmp_path, stores):
    remote = Remote(tmp_path / "hosted", FILES)
    store = stores.open()
    tracked = add_tracked(store, "shop", remote.url, "main")
    return remote, store, tracked, tmp_path / "data"


def _sync(store, tracked, sha, data):
    return sync_to(store, tracked, sha, data, workers=1)


def test_each_pushed_commit_is_reflected_exactly(tracked_remote):
    remote, store, tracked, data = tracked_remote
    work = Mirror(data, "shop", remote.url).work
    first = remote.head()
    result = _sync(store, tracked, first, data)
    assert (result.action, result.sha) == ("indexed", first)
    assert_graph_matches_tree(store, "shop", work)

    # an edit: only that file is parsed
    remote.commit(
        "edit",
        write={"shop/prices.py": FILES["shop/prices.py"] + "\n\ndef vat():\n    return 0.2\n"},
    )
    edited = remote.push()
    result = _sync(store, tracked, edited, data)
    assert (result.action, result.changed_paths, result.parsed) == ("indexed", 1, 1)
    assert_graph_matches_tree(store, "shop", work)
    # the checkout is the pushed commit: no uncommitted changes (issue 37)
    assert not store.repos.get_repo("shop").dirty

    # an added file, a rename and a deletion in one push
    remote.commit(
        "reshape",
        write={
            "shop/tax.py": "from shop.prices import gross\n\n\ndef with_tax(x):\n    return gross(x)\n"
        },
        rename={"shop/cart.py": "shop/basket.py"},
        delete=["README.md"],
    )
    reshaped = remote.push()
    result = _sync(store, tracked, reshaped, data)
    assert result.action == "indexed" and result.changed_paths == 3
    assert store.repos.get_repo("shop").indexed_sha == reshaped
    assert_graph_matches_tree(store, "shop", work)
    paths = set(store.graph.files("shop"))
    assert "shop/basket.py" in paths and "shop/cart.py" not in paths
    # history followed the rename
    assert store.history.history_stats("shop")["commits"] == 3

    # the same commit again does nothing; an older one is ignored
    assert _sync(store, tracked, reshaped, data).action == "up-to-date"
    assert _sync(store, tracked, first, data).action == "up-to-date"
    assert store.repos.get_repo("shop").indexed_sha == reshaped


def test_a_force_push_is_diffed_against_the_last_indexed_commit(tracked_remote):
    remote, store, tracked, data = tracked_remote
    work = Mirror(data, "shop", remote.url).work
    base = remote.head()
    remote.commit("doomed", write={"shop/doomed.py": "def gone():\n    return 1\n"})
    doomed = remote.push()
    _sync(store, tracked, doomed, data)
    assert "shop/doomed.py" in set(store.graph.files("shop"))

    remote.reset_hard(base)
    remote.commit("rewritten", write={"shop/kept.py": "def kept():\n    return 2\n"})
    rewritten = remote.push(force=True)
    result = _sync(store, tracked, rewritten, data)
    assert (result.action, result.sha, result.previous_sha) == ("indexed", rewritten, doomed)
    paths = set(store.graph.files("shop"))
    assert "shop/kept.py" in paths and "shop/doomed.py" not in paths
    assert_graph_matches_tree(store, "shop", work)


def test_a_late_push_of_an_ancestor_indexes_the_branch_head(tracked_remote):
    """A redelivered or late push never rolls the graph back: the branch moved on, so its head
    is indexed."""
    remote, store, tracked, data = tracked_remote
    old = remote.head()
    remote.commit("newer", write={"shop/new.py": "def n():\n    return 3\n"})
    newer = remote.push()
    result = _sync(store, tracked, old, data)
    assert result.sha == newer and store.repos.get_repo("shop").indexed_sha == newer


def test_locks_left_by_a_killed_git_do_not_fail_the_next_sync(tracked_remote):
    """A worker SIGKILLed in the middle of `git checkout` or `git fetch` leaves `index.lock` in
    the worktree's git dir and ref locks in the mirror; the next job clears them and syncs."""
    remote, store, tracked, data = tracked_remote
    mirror = Mirror(data, "shop", remote.url)
    _sync(store, tracked, remote.head(), data)
    worktree_git = mirror.git_dir / "worktrees" / "shop"
    assert worktree_git.is_dir()
    left = [
        worktree_git / "index.lock",
        mirror.git_dir / "packed-refs.lock",
        mirror.git_dir / "refs" / "heads" / "main.lock",
    ]
    for lock in left:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("left by a killed git\n")
    edited = remote.commit("edit", write={"shop/prices.py": FILES["shop/prices.py"] + "\n# x\n"})
    remote.push()
    result = _sync(store, tracked, edited, data)
    assert (result.action, result.sha) == ("indexed", edited)
    assert not any(lock.exists() for lock in left)
    assert_graph_matches_tree(store, "shop", mirror.work)


def test_a_missing_branch_is_a_permanent_failure_recorded_on_the_repository(tmp_path, stores):
    remote = Remote(tmp_path / "hosted", FILES)
    store = stores.open()
    add_tracked(store, "shop", remote.url, "release")  # no such branch yet
    data = tmp_path / "data"
    state = MemoryJobState()
    state.announce("shop", "f" * 40)
    outcome = run_job(store, "shop", state, data, workers=1)
    assert outcome.status == "failed" and "is not a commit" in outcome.error
    status = repo_status(store, "shop", state, data)
    assert "is not a commit" in status.last_error and status.queue_depth == 0
    # once the branch exists, the next push clears the error
    released = remote.push(branch="release")
    state.announce("shop", released)
    assert run_job(store, "shop", state, data, workers=1).status == "synced"
    status = repo_status(store, "shop", state, data)
    assert status.last_error == "" and (status.indexed_sha, status.lag) == (released, 0)


def test_an_unreachable_remote_is_transient(tmp_path, stores):
    store = stores.open()
    add_tracked(store, "ghost", f"file://{tmp_path}/nowhere.git", "main")
    state = MemoryJobState()
    state.announce("ghost", "refs/heads/main")
    retries = []
    outcome = run_job(store, "ghost", state, tmp_path / "data", on_transient=retries.append)
    assert outcome.status == "retry" and len(retries) == 1
    assert state.wanted("ghost")[0] == "refs/heads/main"  # kept for the retry
    assert "cannot fetch" in store.tracking.get_tracked("ghost").last_error


def test_pushes_during_a_job_coalesce_into_one_more_sync(tracked_remote):
    remote, store, _tracked, data = tracked_remote
    runner = ThreadJobRunner(lambda: _SharedStore(store), data)
    gate = threading.Event()
    original = runner.state.wanted

    def slow_wanted(repo):
        gate.wait(10)
        return original(repo)

    runner.state.wanted = slow_wanted  # the first job waits until every push has arrived
    shas = []
    for n in range(5):
        remote.commit(f"push {n}", write={f"shop/gen{n}.py": f"def f{n}():\n    return {n}\n"})
        shas.append(remote.push())
        runner.push("shop", shas[-1])
    assert runner.state.depth("shop") == 5
    gate.set()
    wait_for_indexed(store, "shop", shas[-1], timeout=60)
    runner.shutdown()
    synced = [r for o in runner.outcomes for r in o.results if r.action == "indexed"]
    assert len(synced) == 1 and synced[0].sha == shas[-1]  # five pushes, one sync
    assert runner.state.depth("shop") == 0


class _SharedStore:
    """The test's store handed to background jobs (their close() leaves it open)."""

    def __init__(self, store) -> None:
        self._store = store

    def __getattr__(self, name):
        return getattr(self._store, name)

    def close(self) -> None:
        pass


def test_tracking_rules(tmp_path, stores):
    store = stores.open()
    with pytest.raises(TrackingError, match="not a repository name"):
        add_tracked(store, "../etc", "file:///x", "main")
    with pytest.raises(TrackingError, match="not a branch name"):
        add_tracked(store, "ok", "file:///x", "bad..branch")
    with pytest.raises(TrackingError, match="not a git URL"):
        add_tracked(store, "ok", "--upload-pack=evil", "main")
    tracked = add_tracked(store, "ok", "file:///x", "main")
    assert len(tracked.secret) >= 24
    with pytest.raises(TrackingError, match="tracked already"):
        add_tracked(store, "ok", "file:///y", "main")
    remove_tracked(store, "ok", tmp_path / "data", keep_graph=False)
    assert store.tracking.get_tracked("ok") is None
    with pytest.raises(TrackingError, match="is not tracked"):
        remove_tracked(store, "ok", tmp_path / "data", keep_graph=False)
