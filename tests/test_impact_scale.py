"""`impact` of a patch of many files (docs/impact.md "Limits"): the work grows with the files
the patch changes, not with their square; a patch past the file limit is refused with that
limit named; and a patch the time budget does not cover is answered in part, saying so, with
what it could read — never a hang, never a guess about the files it left out."""

from __future__ import annotations

import cProfile
import os
import pstats
import subprocess
import sys

import pytest
from cartograph.errors import ErrorKind
from cartograph.impact import report
from cartograph.impact.diff import MAX_PATCH_FILES, PatchError, parse_patch
from cartograph.impact.report import Budget, impact, impact_of
from cartograph.impact.source import change_from_patch
from cartograph.index import index_repository
from cartograph.query import answers
from indexing_support import commit_all, git, git_init, write_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def helper(x):\n    return x + 1\n\n\ndef compute(a):\n    return helper(a)\n",
    "pkg/api.py": "from pkg.core import compute\n\n\ndef entry():\n    return compute(1)\n",
    "tests/test_api.py": "from pkg.api import entry\n\n\ndef test_entry():\n    assert entry()\n",
}


def _index(tmp_path, store):
    root = git_init(tmp_path / "proj")
    write_tree(root, FILES)
    commit_all(root, "start")
    index_repository(store, root, name="proj", workers=1, history=False)
    return root, store


@pytest.fixture
def indexed(tmp_path):
    """On SQLite: what is counted or refused here is no store's work."""
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    yield _index(tmp_path, store)
    store.close()


@pytest.fixture
def on_both(tmp_path, stores):
    return _index(tmp_path, stores.open())


def added_files(count: int, folder: str = "gen") -> str:
    """A patch adding `count` Python modules, each defining a function that calls the
    repository's code."""
    return "".join(
        f"diff --git a/{folder}/m{i}.py b/{folder}/m{i}.py\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/{folder}/m{i}.py\n@@ -0,0 +1,4 @@\n"
        f"+from pkg.core import helper\n+\n+def added_{i}(x):\n+    return helper(x) + {i}\n"
        for i in range(count)
    )


def calls_made(store, patch: str) -> int:
    """The function calls one impact of the patch makes (Python's and built-in ones): a
    count of its work that no clock or machine changes."""
    profile = cProfile.Profile()
    profile.enable()
    answer = impact(store, "proj", patch=patch)
    profile.disable()
    assert len(answer.changed) == patch.count("new file mode")
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def test_the_work_of_a_patch_grows_with_its_files_not_their_square(indexed):
    _root, store = indexed
    calls_made(store, added_files(20))  # imports and first reads out of the way
    small, large = calls_made(store, added_files(200)), calls_made(store, added_files(800))
    # four times the files: four times the work and a little (a square would be sixteen)
    assert large < 4.6 * small, (small, large)


def test_a_patch_past_the_file_limit_is_refused_naming_the_limit(indexed, tmp_path):
    root, store = indexed
    empty = "diff --git a/e{0} b/e{0}\nnew file mode 100644\nindex 0000000..e69de29\n"
    at_limit = "".join(empty.format(i) for i in range(MAX_PATCH_FILES))
    assert len(parse_patch(at_limit).files) == MAX_PATCH_FILES
    with pytest.raises(PatchError) as raised:
        parse_patch(at_limit + empty.format("last"))
    assert raised.value.kind == ErrorKind.TOO_LARGE
    # the command line says so, naming the limit
    patch = tmp_path / "huge.diff"
    patch.write_text(at_limit + empty.format("last"))
    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", "impact", "--repo", "proj", "--patch", str(patch)],
        capture_output=True,
        text=True,
        env={**os.environ, "CARTOGRAPH_STORE": store.url},
        cwd=root,
        timeout=300,
    )
    assert done.returncode != 0
    assert f"more than {MAX_PATCH_FILES:,} files" in done.stderr, done.stderr


def test_a_spent_time_budget_answers_in_part_and_says_what_it_left_out(on_both):
    _root, store = on_both
    # a change to a module the others call, and ten new modules
    edit = (
        "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
        "@@ -1,2 +1,2 @@\n-def helper(x):\n+def helper(x, y):\n     return x + 1\n"
    )
    change = change_from_patch(store, "proj", edit + added_files(10))
    whole = impact_of(store, change)
    assert ("signature", "pkg.core.helper") in {(c.change, c.qualname) for c in whole.changed}
    assert len(whole.changed) == 11 and not whole.summary[0].startswith("PARTIAL")
    assert {b.caller.qualname for b in whole.will_break} == {"pkg.core.compute"}

    # no time at all: nothing is read, nothing is guessed (the edited module's symbols are
    # not "removed"), and the answer says so first
    answer = impact_of(store, change, budget=Budget(0))
    assert answer.changed == [] and answer.will_break == []
    assert answer.summary[0].startswith("PARTIAL: the time budget of 0 s ran out: 11 of 11 ")
    assert "pkg/core.py" in answer.summary[0]
    assert all(not f.indexed and "time budget" in f.note for f in answer.files)

    # a clock that moves a second each time it is read (0 when the budget starts, then once
    # before each file): the first two files are read, the rest are not, and what comes after
    # the reading (owners, co-changes) says it stopped too
    ticks = iter(range(1000))
    answer = impact_of(store, change, budget=Budget(3, clock=lambda: float(next(ticks))))
    assert {c.path for c in answer.changed} == {"pkg/core.py", "gen/m0.py"}
    assert ("signature", "pkg.core.helper") in {(c.change, c.qualname) for c in answer.changed}
    assert {b.caller.qualname for b in answer.will_break} == {"pkg.core.compute"}
    assert answer.summary[0].startswith("PARTIAL: the time budget of 3 s ran out: 9 of 11 ")
    assert {f.path for f in answer.files if not f.indexed} == {f"gen/m{i}.py" for i in range(1, 10)}
    assert "PARTIAL: the time budget of 3 s ran out: only owners were asked for 0 of 1 files" in (
        answer.summary
    )


def test_an_answer_the_budget_cut_is_computed_again_when_asked_again(on_both, monkeypatch):
    """A partial answer depends on the clock: the answer cache does not keep it (an answer
    between two commits is kept while the store does not change)."""
    root, store = on_both
    git(root, "checkout", "-q", "-b", "feature")
    write_tree(root, {"pkg/more.py": "def more():\n    return 1\n"})
    commit_all(root, "more")
    git(root, "checkout", "-q", "main")
    first = impact(store, "proj", base="main", head="feature")
    assert impact(store, "proj", base="main", head="feature") is first
    monkeypatch.setattr(report, "TIME_BUDGET", 0.0)
    answers.ANSWERS.clear()
    cut = impact(store, "proj", base="main", head="feature")
    assert cut.summary[0].startswith("PARTIAL: the time budget of 0 s ran out: 1 of 1 ")
    again = impact(store, "proj", base="main", head="feature")
    assert again is not cut and again.summary == cut.summary
