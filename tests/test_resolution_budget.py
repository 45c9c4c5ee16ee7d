"""The work a file's resolution may cost is bounded (issue 37: an astropy test function that
appends to a list values built from the list's own elements kept an index busy for over 30
minutes; four appends took 1 s, five did not finish in 120 s).

A container whose elements are made from its own elements is a cycle, cut once where it
closes; whatever else grows too costly meets a budget (`resolve.core.Memo.budget`): the
reference is left unresolved and the run says so, never a hang."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cartograph.index import index_repository
from cartograph.resolve import core
from cartograph.resolve.core import Memo, OverBudget
from helpers import graph_edges
from indexing_support import write_tree

REPRESENTATIONS = (
    "class Base:\n"
    "    def with_differentials(self, n):\n"
    "        return self.__class__()\n"
    + "".join(f"\n\nclass {name}(Base):\n    pass\n" for name in "ABCDE")
)


def concat_test(appends: int) -> str:
    """The reduced astropy test: a list appended to with values built from its elements."""
    lines = [
        "from pkg import r",
        "",
        "",
        "def test_concat():",
        "    reps = [r.A(), r.B(), r.C(), r.D(), r.E()]",
    ]
    lines += [f"    reps.append(reps[{i % 3}].with_differentials({i + 1}))" for i in range(appends)]
    lines += ["    for rep in reps:", "        rep.with_differentials(0)", ""]
    return "\n".join(lines)


INDEX_IN_A_CHILD = """
import json, sys
from cartograph.index import index_repository
from cartograph.store import open_store
store = open_store(sys.argv[1])
result = index_repository(store, sys.argv[2], name="astro", workers=1, history=False)
print(json.dumps(result.notes))
"""


@pytest.mark.parametrize("appends", [5, 40])
def test_a_list_built_from_its_own_elements_indexes_at_once(tmp_path, appends):
    root = write_tree(
        tmp_path / "astro",
        {
            "pkg/__init__.py": "",
            "pkg/r.py": REPRESENTATIONS,
            "pkg/test_concat.py": concat_test(appends),
        },
    )
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    # in a child: a hang fails the test at the timeout instead of holding the suite
    done = subprocess.run(
        [sys.executable, "-c", INDEX_IN_A_CHILD, url, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "budget" not in done.stdout  # cut where the cycle closes, not at a budget

    from cartograph.store import open_store

    store = open_store(url)
    try:
        calls = {
            (src, dst) for kind, src, dst, _via in graph_edges(store, "astro") if kind == "CALLS"
        }
    finally:
        store.close()
    caller = "pkg.test_concat.test_concat"
    assert (caller, "pkg.r.Base.with_differentials") in calls  # `rep` of the loop, and appends
    assert {(caller, f"pkg.r.{name}") for name in "ABCDE"} <= calls


def mutual_lists(size: int) -> str:
    """Two lists, each appended to with values made from the other's elements."""
    lines = [
        "from pkg import r",
        "",
        "",
        "def test_mutual():",
        "    a = [r.A()]",
        "    b = [r.B()]",
    ]
    for i in range(size):
        lines += [
            f"    a.append(b[{i % 2}].with_differentials({i}))",
            f"    b.append(a[{i % 3}].with_differentials({i}))",
        ]
    lines += ["    for x in a + b:", "        x.with_differentials(0)", ""]
    return "\n".join(lines)


def test_a_reference_past_its_budget_is_left_unresolved_and_said(tmp_path, stores, monkeypatch):
    monkeypatch.setattr(core, "REFERENCE_BUDGET", 60)
    root = write_tree(
        tmp_path / "astro",
        {
            "pkg/__init__.py": "",
            "pkg/r.py": REPRESENTATIONS,
            "pkg/test_mutual.py": mutual_lists(12),
            "pkg/use.py": "from pkg import r\n\n\ndef plain():\n    return r.A().with_differentials(1)\n",
        },
    )
    store = stores.open()
    result = index_repository(store, root, name="astro", workers=1, history=False)
    notes = [n for n in result.notes if "budget" in n]
    assert len(notes) == 1 and "pkg/test_mutual.py" in notes[0], result.notes
    calls = {(src, dst) for kind, src, dst, _via in graph_edges(store, "astro") if kind == "CALLS"}
    # the other file resolves as ever
    assert ("pkg.use.plain", "pkg.r.Base.with_differentials") in calls
    unresolved = {u.name for _path, u in store.graph.search_unresolved("", "astro", 1000)}
    assert unresolved  # what went past the budget is there to see, not guessed


def test_a_budget_counts_computations_and_caches_nothing_it_abandoned():
    memo = Memo()
    runs: list[str] = []

    def chain(n: int):
        runs.append(f"c{n}")
        return 0 if n == 0 else memo.cached(("c", n - 1), lambda: chain(n - 1)) + 1

    with pytest.raises(OverBudget), memo.budget(5):
        memo.cached(("c", 10), lambda: chain(10))
    # nothing of the abandoned question was cached: asked without a budget, all of it runs
    runs.clear()
    assert memo.cached(("c", 10), lambda: chain(10)) == 10
    assert len(runs) == 11
    # a budget within a budget: the inner one counts against the outer one too
    runs.clear()
    with memo.budget(3):
        with memo.budget(100):
            memo.cached(("d", 1), lambda: 1)
            memo.cached(("d", 2), lambda: 2)
        with pytest.raises(OverBudget):
            memo.cached(("d", 3), lambda: memo.cached(("d", 4), lambda: 4))
    assert memo.cached(("c", 10), lambda: chain(10)) == 10 and runs == []  # a cache hit is free
