"""An index run killed (SIGKILL: no cleanup at all) at any point, then run again normally,
leaves the graph a clean index of the same tree would: the same files, symbols and edges, each
as many times (issue 12, items 1-3). For a first index and for a rebuild; on both stores.

The run is killed in a child process as it asks the store for its Nth call of a method (a
profile hook of the child's own, so the kill points are exact and the library has no hook)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter
from dataclasses import replace

import pytest
from cartograph.index import WRITE_BATCH, index_repository
from indexing_support import (
    assert_same_as_fresh,
    commit_all,
    exported_items,
    fresh_index,
    git_init,
    write_tree,
)
from sample_repo import FILES as SAMPLE_FILES

REPO = "shop"
MODULES = WRITE_BATCH + 40  # more files than one write batch: a kill can fall between two

KILLED_CHILD = """
import os, signal, sys
from cartograph.index import index_repository
from cartograph.store import open_store
store_url, root, name, when, nth = sys.argv[1:6]
calls = [0]

def kill_at(frame, event, arg):
    # the process dies as it asks the store for its nth `when` (before that call does anything)
    code = frame.f_code
    if event == "call" and code.co_name == when and "/store/" in code.co_filename:
        calls[0] += 1
        if calls[0] == int(nth):
            os.kill(os.getpid(), signal.SIGKILL)

store = open_store(store_url)
sys.setprofile(kill_at)
index_repository(store, root, name=name, workers=1)
sys.setprofile(None)
print(f"never killed: {calls[0]} calls of {when}")
"""


def make_tree(root, salt: str = ""):
    """The sample shop, and enough generated modules that import, call and subclass each
    other to take several write batches."""
    files = {path: textwrap.dedent(text).lstrip() for path, text in SAMPLE_FILES.items()}
    files["gen/__init__.py"] = "from gen.mod_0 import f_0\n"
    for i in range(MODULES):
        nxt = (i + 1) % MODULES
        files[f"gen/mod_{i}.py"] = (
            f"from gen.mod_{nxt} import f_{nxt}\n"
            f"from shop.models import Cart\n\n\n"
            f"def f_{i}(n=0):\n"
            f'    """Function {i}{salt}."""\n'
            f"    return f_{nxt}(n + 1) if n < 3 else Cart().total()\n\n\n"
            f"class Cart_{i}(Cart):\n"
            f"    def total(self):\n        return super().total() + f_{i}()\n"
        )
    write_tree(root, files)
    return root


def kill_run(stores, root, when: str, nth: int) -> None:
    child = subprocess.run(
        [sys.executable, "-c", KILLED_CHILD, stores.url(), str(root), REPO, when, str(nth)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert child.returncode == -9, (
        f"the run was not killed at {when} #{nth}: {child.stdout} {child.stderr}"
    )


def finished(store) -> bool:
    """Whether the repository's record was written by a run that finished (Neo4j: writing a
    file creates a bare Repo node its File hangs from, with no format yet)."""
    repo = store.repos.get_repo(REPO)
    return repo is not None and repo.index_format != ""


def export_counts(store, repo: str, as_repo: str | None = None) -> Counter:
    """Every exported node and relationship (ids as if the repository were `as_repo`), with
    how many times it is there: a duplicated edge shows, which a set would hide."""
    return Counter(
        json.dumps(item, sort_keys=True) for item in exported_items(store, repo, as_repo)
    )


def assert_as_a_clean_index(store, root) -> None:
    assert_same_as_fresh(store, root, REPO)
    with fresh_index(store, root, REPO) as fresh:
        clean = export_counts(store, fresh, as_repo=REPO)
    repaired = export_counts(store, REPO)
    extra, missing = repaired - clean, clean - repaired
    assert not extra and not missing, (
        f"after the killed run: more than a clean index {sorted(extra)[:5]}, "
        f"less {sorted(missing)[:5]}"
    )
    labels = Counter(json.loads(item)["label"] for item in repaired.elements())
    assert labels["File"] == len(SAMPLE_FILES) + MODULES + 1
    assert labels["CALLS"] > MODULES


# where a run dies: as it asks the store for the nth call of a method
FIRST_INDEX_KILLS = [
    ("write_files", 2),  # one batch of files written, no record
    ("finish_run", 1),  # every file written, no bookkeeping, no record
    ("upsert_repo", 1),  # everything but the record
]
REBUILD_KILLS = [
    ("write_files", 1),  # the old index deleted, nothing new written
    ("write_files", 2),  # one batch of the new index written, no record
    ("upsert_repo", 1),  # everything but the record
]


@pytest.fixture
def tree(tmp_path):
    root = git_init(tmp_path / "shop")
    make_tree(root)
    commit_all(root, "initial")
    return root


@pytest.mark.parametrize(("when", "nth"), FIRST_INDEX_KILLS, ids=lambda v: str(v))
def test_a_first_index_killed_midway_then_run_again_is_a_clean_index(tree, stores, when, nth):
    store = stores.open()
    kill_run(stores, tree, when, nth)
    assert not finished(store)
    result = index_repository(store, tree, name=REPO, workers=1, lock_timeout=0)
    assert result.parsed == len(SAMPLE_FILES) + MODULES + 1
    assert_as_a_clean_index(store, tree)


@pytest.mark.parametrize(("when", "nth"), REBUILD_KILLS, ids=lambda v: str(v))
def test_a_rebuild_killed_midway_then_run_again_is_a_clean_index(tree, stores, when, nth):
    store = stores.open()
    index_repository(store, tree, name=REPO, workers=1)
    # indexed by another version of the parser: the next run rebuilds, of a changed tree
    store.repos.upsert_repo(replace(store.repos.get_repo(REPO), index_format="0-older"))
    make_tree(tree, salt=" (changed)")
    (tree / "gen" / "mod_7.py").unlink()
    write_tree(tree, {"gen/mod_7.py": "def f_7(n=0):\n    return n\n"})
    commit_all(tree, "changed")
    kill_run(stores, tree, when, nth)
    index_repository(store, tree, name=REPO, workers=1, lock_timeout=0)
    assert_as_a_clean_index(store, tree)


def test_a_first_index_killed_before_its_record_leaves_its_files_behind(tree, stores):
    """What the run after it must clear (a first index with no record to tell it so)."""
    store = stores.open()
    kill_run(stores, tree, "upsert_repo", 1)
    assert not finished(store)
    assert len(store.index.file_states(REPO)) == len(SAMPLE_FILES) + MODULES + 1
