"""Git history in the graph — commits, people, touches, co-change, owners, explain — mined from
real git repositories built by scripted commits (authors and dates under control), on SQLite
and a real Neo4j. Every expected value is worked out by hand from the rules in
platform/cartograph/history/mine.py and query/history.py."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from cartograph.index import index_repository
from cartograph.query import QueryError, SymbolNotFound
from cartograph.query.history import co_changes, explain, history, owners
from cartograph.render import to_data
from history_support import (
    ALICE,
    ALICE_OLD,
    BOB,
    BOT,
    CAROL,
    Repo,
    decayed,
    fresh_view,
    func,
    module,
    partners,
    ranked,
    touches,
    view,
)

BOB_CAPS = ("Bob Jones", "Bob.Jones@Example.COM")  # no .mailmap entry: only lower-cased
BOB_LOWER = "bob.jones@example.com"
BOT_EMAIL = BOT[1]
JOSE = ("José Núñez", "Jose@Example.com")


def index(store, root, name):
    return index_repository(store, root, name=name, workers=1)


# ---------------------------------------------------------------- 1. commits and people


def make_people_repo(root) -> tuple[Repo, list[str]]:
    repo = Repo(root)
    mailmap = f"{ALICE[0]} <{ALICE[1]}> {ALICE_OLD[0]} <{ALICE_OLD[1]}>\n"
    v1 = func("main", "a = 1", "b = 2", "return a + b")
    v2 = v1.replace("b = 2", "b = 3")  # +1 -1
    v3 = v2.replace("b = 3\n", "b = 3\n    c = 4\n    d = 5\n")  # +2
    v4 = v3.replace("a = 1", "a = 10").replace(  # +1 -1, then +9 -1
        "    return a + b\n",
        "".join(f"    e{i} = {i}\n" for i in range(1, 9)) + "    return a + b + c + d\n",
    )
    shas = [
        repo.commit("start", ALICE_OLD, "2021-01-04", {"app.py": v1, ".mailmap": mailmap}),
        repo.commit("bump b", BOB_CAPS, "2021-07-05", {"app.py": v2}),
        repo.commit("add c and d", ALICE, "2022-01-03", {"app.py": v3}),
        repo.commit("Bump deps", BOT, "2022-02-07", {"app.py": v4}),
    ]
    return repo, shas


def test_commits_people_mailmap_and_bots(tmp_path, stores):
    repo, (c1, c2, c3, c4) = make_people_repo(tmp_path / "people")
    store = stores.open()
    result = index(store, repo.root, "people")
    mined = result.history
    assert (mined.repo, mined.head, mined.since) == ("people", c4, "")
    assert (mined.commits, mined.touches, mined.symbol_touches) == (4, 4, 4)
    assert (mined.renamed, mined.rebuilt) == (0, False)
    stats = store.history.history_stats("people")
    assert (stats["commits"], stats["people"]) == (4, 3)
    assert (stats["first"], stats["last"]) == ("2021-01-04T12:00:00Z", "2022-02-07T12:00:00Z")

    page = history(store, "app.py")
    assert page.target.kind == "file" and page.target.path == "app.py"
    # the old name and e-mail of Alice become the canonical ones (.mailmap); Bob's e-mail is
    # lower-cased; the bot is flagged
    assert [(t.sha, t.author, t.name, t.bot, t.at) for t in page.entries] == [
        (c4, BOT_EMAIL, "dependabot[bot]", True, "2022-02-07T12:00:00Z"),
        (c3, "alice@example.com", "Alice Smith", False, "2022-01-03T12:00:00Z"),
        (c2, BOB_LOWER, "Bob Jones", False, "2021-07-05T12:00:00Z"),
        (c1, "alice@example.com", "Alice Smith", False, "2021-01-04T12:00:00Z"),
    ]
    assert [(t.message, t.added, t.deleted) for t in page.entries] == [
        ("Bump deps", 10, 2),
        ("add c and d", 2, 0),
        ("bump b", 1, 1),
        ("start", 4, 0),
    ]

    who = owners(store, "app.py")
    # ages from the newest touch (2022-02-07): c1 399 days, c2 217, c3 35, c4 0
    alice = decayed(4, 399) + decayed(2, 35)  # 4 * 0.2152 + 2 * 0.8739 = 2.61
    bob = decayed(2, 217)  # 0.87
    bot = decayed(12, 0)  # 12.0: the highest score, yet after the people
    total = alice + bob + bot
    assert (round(alice, 2), round(bob, 2), round(bot, 2)) == (2.61, 0.87, 12.0)
    assert ranked(who) == [
        ("alice@example.com", "Alice Smith", False, 2.61, round(alice / total, 4), 2, 6,
         "2022-01-03T12:00:00Z"),
        (BOB_LOWER, "Bob Jones", False, 0.87, round(bob / total, 4), 1, 2,
         "2021-07-05T12:00:00Z"),
        (BOT_EMAIL, "dependabot[bot]", True, 12.0, round(bot / total, 4), 1, 12,
         "2022-02-07T12:00:00Z"),
    ]  # fmt: skip
    assert [o.share for o in who.owners] == [0.1685, 0.056, 0.7754]
    assert who.codeowners == [] and who.half_life_days == 180.0


# ---------------------------------------------------------------- 2. file history


def test_file_history_renames_deletions_and_paging(tmp_path, stores):
    repo = Repo(tmp_path / "files")
    lib = "".join(f"LINE_{i} = {i}\n" for i in range(10))
    c1 = repo.commit(
        "initial",
        ALICE,
        "2022-01-03",
        {
            "core.py": "A = 1\nB = 2\nC = 3\n",
            "old_name.py": "X = 1\nY = 2\nZ = 3\n",
            "lib.py": lib,
            "gone.py": "GONE = 1\n",
            "phoenix.py": "FIRST = 1\n",
        },
    )
    c2 = repo.commit(
        "core: b\n\nWhy: B was wrong.",
        JOSE,
        "2022-02-07T01:30:00+05:00",  # the day before, in UTC
        {"core.py": "A = 1\nB = 20\nB2 = 21\nC = 3\n", "my dir/naïve file.py": "N = 1\nM = 2\n"},
    )
    c3 = repo.commit(
        "move things",
        CAROL,
        "2022-03-07",
        {"pkg/lib.py": lib.replace("LINE_5 = 5", "LINE_5 = 50")},
        move=(
            ("old_name.py", "new_name.py"),
            ("lib.py", "pkg/lib.py"),
            ("my dir/naïve file.py", "other dir/é b.py"),
        ),
    )
    c4 = repo.commit(
        "tidy",
        ALICE,
        "2022-04-04",
        {
            "new_name.py": "X = 1\nY = 2\nZ = 3\nW = 4\n",
            "core.py": "A = 1\nB = 20\nB2 = 22\nC = 3\n",
        },
        delete=("gone.py", "phoenix.py"),
    )
    c5 = repo.commit(
        "phoenix again",
        BOB,
        "2022-05-02",
        {"phoenix.py": "SECOND = 2\nTHIRD = 3\n", "core.py": "A = 1\nB = 20\nC = 3\n"},
    )
    # rebased: written (author date) before the others, committed last; git's order counts
    c6 = repo.commit(
        "core: more",
        CAROL,
        "2021-12-01",
        {"core.py": "A = 1\nB = 20\nC = 3\nD = 4\nE = 5\nF = 6\n"},
        committed="2022-06-06",
    )
    store = stores.open()
    assert index(store, repo.root, "files").history.commits == 6

    core = history(store, "core.py")
    assert touches(core) == [
        (c6, CAROL[1], "core: more", 3, 0),
        (c5, BOB[1], "phoenix again", 0, 1),
        (c4, ALICE[1], "tidy", 1, 1),
        (c2, "jose@example.com", "core: b\n\nWhy: B was wrong.", 2, 1),
        (c1, ALICE[1], "initial", 3, 0),
    ]
    assert [t.name for t in core.entries] == [CAROL[0], BOB[0], ALICE[0], JOSE[0], ALICE[0]]
    assert [t.at for t in core.entries] == [
        "2021-12-01T12:00:00Z",
        "2022-05-02T12:00:00Z",
        "2022-04-04T12:00:00Z",
        "2022-02-06T20:30:00Z",
        "2022-01-03T12:00:00Z",
    ]
    assert [t.target for t in core.entries] == ["core.py"] * 5
    assert (core.offset, core.next_offset) == (0, None)

    # paging: newest first, pages of 2
    pages = [history(store, "core.py", limit=2, offset=offset) for offset in (0, 2, 4)]
    assert [[t.sha for t in p.entries] for p in pages] == [[c6, c5], [c4, c2], [c1]]
    assert [(p.offset, p.next_offset) for p in pages] == [(0, 2), (2, 4), (4, None)]
    assert history(store, "core.py", limit=5).next_offset is None
    assert history(store, "core.py", limit=4).next_offset == 4
    assert history(store, "core.py", offset=5).entries == []

    # renamed files keep their past under the path at HEAD (a pure rename: 0 lines)
    assert touches(history(store, "new_name.py")) == [
        (c4, ALICE[1], "tidy", 1, 0),
        (c3, CAROL[1], "move things", 0, 0),
        (c1, ALICE[1], "initial", 3, 0),
    ]
    assert touches(history(store, "pkg/lib.py")) == [
        (c3, CAROL[1], "move things", 1, 1),  # moved and edited in one commit
        (c1, ALICE[1], "initial", 10, 0),
    ]
    # unusual paths (spaces, non-ASCII), renamed
    assert touches(history(store, "other dir/é b.py")) == [
        (c3, CAROL[1], "move things", 0, 0),
        (c2, "jose@example.com", "core: b\n\nWhy: B was wrong.", 2, 0),
    ]
    # deleted, then added again: only the file at HEAD's own past
    assert touches(history(store, "phoenix.py")) == [(c5, BOB[1], "phoenix again", 2, 0)]
    # a file deleted before HEAD, and the name a file had before its rename, have no history
    for gone in ("gone.py", "old_name.py", "lib.py", "my dir/naïve file.py"):
        with pytest.raises(QueryError, match=gone.replace(".", r"\.")):
            history(store, gone)


# ---------------------------------------------------------------- 3. merges


def test_merge_commit_touches_nothing_and_branch_commits_are_mined(tmp_path, stores):
    repo = Repo(tmp_path / "merge")
    c1 = repo.commit(
        "base",
        ALICE,
        "2022-01-03",
        {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"},
    )
    repo.git("checkout", "-q", "-b", "feature")
    f1 = repo.commit("feature 1", BOB, "2022-01-10", {"a.py": "A = 2\n", "b.py": "B = 2\n"})
    f2 = repo.commit("feature 2", BOB, "2022-01-17", {"a.py": "A = 3\n", "b.py": "B = 3\n"})
    repo.git("checkout", "-q", "main")
    m1 = repo.commit("main work", ALICE, "2022-01-12", {"c.py": "C = 2\n"})
    merge = repo.merge("feature", "Merge branch 'feature'", ALICE, "2022-01-20")
    assert repo.git("rev-list", "--parents", "-n", "1", merge).split() == [merge, m1, f2]
    empty = repo.commit("nothing changed", CAROL, "2022-01-24")
    store = stores.open()
    mined = index(store, repo.root, "merge").history
    # six commits mined, the merge and the empty one among them; they touch no file
    assert (mined.commits, mined.touches, mined.head) == (6, 3 + 2 + 2 + 1, empty)
    stats = store.history.history_stats("merge")
    assert (stats["commits"], stats["people"]) == (6, 3)
    assert stats["last"] == "2022-01-24T12:00:00Z"
    assert [t.sha for t in history(store, "a.py").entries] == [f2, f1, c1]
    assert [t.sha for t in history(store, "b.py").entries] == [f2, f1, c1]
    assert [t.sha for t in history(store, "c.py").entries] == [m1, c1]
    # a.py and b.py: base, feature 1, feature 2 (the merge brings both, and is not counted)
    assert partners(co_changes(store, "a.py")) == [("b.py", 3, 1.0)]
    # c.py changed twice (base, main work); with a.py/b.py only in base
    assert partners(co_changes(store, "c.py", min_count=1)) == [
        ("a.py", 1, 0.5),
        ("b.py", 1, 0.5),
    ]
    assert partners(co_changes(store, "c.py")) == []
    assert [o.email for o in owners(store, "a.py").owners] == [BOB[1], ALICE[1]]


# ---------------------------------------------------------------- 4. huge commits


def test_commits_over_max_files_do_not_count_for_co_change(tmp_path, stores):
    repo = Repo(tmp_path / "huge")
    many = [f"m{i:02}.py" for i in range(48)]
    c1 = repo.commit("a and b", ALICE, "2022-01-03", {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    # 48 modules and a text file: 49 files, counts
    c2 = repo.commit(
        "modules", BOB, "2022-01-10", {**{m: "M = 1\n" for m in many}, "notes.txt": "1\n"}
    )
    # a, b, 48 modules and the text file: 51 files (indexed or not, all count): too many
    c3 = repo.commit(
        "reformat everything",
        BOB,
        "2022-01-17",
        {"a.py": "A = 2\n", "b.py": "B = 2\n", **{m: "M = 2\n" for m in many}, "notes.txt": "2\n"},
    )
    # a, b, 47 modules and the text file: exactly 50 files, counts
    c4 = repo.commit(
        "fifty",
        ALICE,
        "2022-01-24",
        {
            "a.py": "A = 3\n",
            "b.py": "B = 3\n",
            **{m: "M = 3\n" for m in many[:47]},
            "notes.txt": "3\n",
        },
    )
    c5 = repo.commit("a alone", ALICE, "2022-01-31", {"a.py": "A = 4\n"})
    store = stores.open()
    mined = index(store, repo.root, "huge").history
    assert mined.commits == 5
    assert mined.touches == 2 + 48 + 50 + 49 + 1  # every touch of an indexed file is recorded

    with pytest.raises(QueryError, match=r"notes\.txt"):  # not indexed: no history
        history(store, "notes.txt")
    # the huge commit is in the files' history ...
    assert [t.sha for t in history(store, "a.py").entries] == [c5, c4, c3, c1]
    assert [t.sha for t in history(store, "m47.py").entries] == [c3, c2]
    # ... but not in co-change: a+b in c1 and c4 (not c3); a changed 3 times, b twice
    assert partners(co_changes(store, "a.py")) == [("b.py", 2, 1.0)]
    assert partners(co_changes(store, "b.py")) == [("a.py", 2, 1.0)]
    # with a single commit allowed: the 47 modules of c4 (each changed in c2 and c4)
    wide = co_changes(store, "a.py", min_count=1, limit=100)
    assert partners(wide) == [("b.py", 2, 1.0)] + [(m, 1, 0.5) for m in many[:47]]
    # m47 changed in c2 (counted) and c3 (not): it goes with the other 47 modules of c2 only
    assert partners(co_changes(store, "m47.py", min_count=1, limit=100)) == [
        (m, 1, 1.0) for m in many[:47]
    ]
    assert partners(co_changes(store, "m00.py", limit=100)) == [(m, 2, 1.0) for m in many[1:47]]


# ---------------------------------------------------------------- 5. file co-change


def make_cochange_repo(root) -> Repo:
    """Commits (all counted): 1 a b c d | 2 a b | 3 a b | 4 a | 5 a | 6 a c | 7 c d | 8 c d |
    9 a d | 10 a e | 11 a e. Changes: a 9, b 3, c 4, d 4, e 2. Pairs: ab 3, ac 2, ad 2, ae 2,
    bc 1, bd 1, cd 3."""
    repo = Repo(root)
    steps = ["abcd", "ab", "ab", "a", "a", "ac", "cd", "cd", "ad", "ae", "ae"]
    for number, names in enumerate(steps, start=1):
        repo.commit(
            f"step {number}",
            ALICE if number % 2 else BOB,
            f"2022-{number:02}-01",
            {f"{n}.py": f"VALUE = {number}\n" for n in names},
        )
    return repo


def test_file_co_change_counts_weights_order_and_min_count(tmp_path, stores):
    repo = make_cochange_repo(tmp_path / "co")
    store = stores.open()
    assert index(store, repo.root, "co").history.commits == 11
    # weight = count / min(changes): ab 3/min(9,3), ae 2/min(9,2), ac 2/min(9,4), ad 2/min(9,4)
    # order: weight desc, count desc, name
    assert partners(co_changes(store, "a.py")) == [
        ("b.py", 3, 1.0),
        ("e.py", 2, 1.0),
        ("c.py", 2, 0.5),
        ("d.py", 2, 0.5),
    ]
    assert partners(co_changes(store, "a.py", min_count=3)) == [("b.py", 3, 1.0)]
    assert partners(co_changes(store, "a.py", limit=2)) == [("b.py", 3, 1.0), ("e.py", 2, 1.0)]
    # cd 3/min(4,4); ca 2/min(4,9); cb 1/min(4,3)
    assert partners(co_changes(store, "c.py")) == [("d.py", 3, 0.75), ("a.py", 2, 0.5)]
    assert partners(co_changes(store, "c.py", min_count=1)) == [
        ("d.py", 3, 0.75),
        ("a.py", 2, 0.5),
        ("b.py", 1, 0.3333),
    ]
    assert partners(co_changes(store, "b.py", min_count=1)) == [
        ("a.py", 3, 1.0),
        ("c.py", 1, 0.3333),
        ("d.py", 1, 0.3333),
    ]
    assert partners(co_changes(store, "e.py")) == [("a.py", 2, 1.0)]
    assert partners(co_changes(store, "e.py", min_count=0)) == [("a.py", 2, 1.0)]
    answer = co_changes(store, "d.py", min_count=1)
    assert answer.target.kind == "file" and answer.min_count == 1
    assert partners(answer) == [("c.py", 3, 0.75), ("a.py", 2, 0.5), ("b.py", 1, 0.3333)]


def test_co_change_trusts_a_partner_seen_often_over_a_pair_seen_twice(tmp_path, stores):
    """b.py changed with a.py both times it changed (weight 1.0, seen twice); c.py in 10 of
    its 12 changes (weight 0.83, seen ten times): c.py is the partner to trust."""
    repo = Repo(tmp_path / "often")
    repo.commit("start", files={"a.py": "a = 0\n", "b.py": "b = 0\n", "c.py": "c = 0\n"})
    for n in range(1, 3):
        repo.commit(f"a and b {n}", files={"a.py": f"a = {n}\n", "b.py": f"b = {n}\n"})
    for n in range(3, 13):
        repo.commit(f"a and c {n}", files={"a.py": f"a = {n}\n", "c.py": f"c = {n}\n"})
    for n in range(13, 15):
        repo.commit(f"c alone {n}", files={"c.py": f"c = {n}\n"})
    store = stores.open()
    index(store, repo.root, "often")
    answer = co_changes(store, "a.py")
    assert [(p.name, p.count) for p in answer.partners] == [("c.py", 11), ("b.py", 3)]
    [c, b] = answer.partners
    assert b.weight > c.weight and c.score > b.score


# ---------------------------------------------------------------- 6. symbol co-change

MODELS_V1 = '''class Order:
    """An order."""

    def total(self):
        return 1

    def tax(self):
        rate = 0
        return rate
'''
VIEWS_V1 = """def show_total(order):
    return order.total()


def render(order):
    return str(order)
"""


def make_symbol_repo(root) -> tuple[Repo, list[str]]:
    """models.Order (a class with methods total and tax) and views (show_total, render).

    total: c1 c2 c3 c4 c6 | tax: c1 c5 c7 | show_total: c1 c2 c3 c6 c8 | render: c1 c5 c9 |
    Order itself (its own lines, not its methods'): c1."""
    repo = Repo(root)
    shas = [
        repo.commit(
            "orders and views", ALICE, "2022-01-03", {"models.py": MODELS_V1, "views.py": VIEWS_V1}
        )
    ]

    def step(message, who, at, edits):
        for rel, old, new in edits:
            repo.edit(rel, old, new)
        shas.append(repo.commit(message, who, at))

    step("total 2", ALICE, "2022-02-07", [
        ("models.py", "return 1", "return 2"),
        ("views.py", "return order.total()", "return order.total() + 0"),
    ])  # fmt: skip
    step("total 3", BOB, "2022-03-07", [
        ("models.py", "return 2", "return 3"),
        ("views.py", "order.total() + 0", "order.total() + 1"),
    ])  # fmt: skip
    # total grows by a line: tax moves down
    step("total value", BOB, "2022-04-04", [
        ("models.py", "        return 3\n", "        value = 3\n        return value\n"),
    ])  # fmt: skip
    step("tax and render", CAROL, "2022-05-02", [
        ("models.py", "rate = 0", "rate = 5"),
        ("views.py", "return str(order)", "return repr(order)"),
    ])  # fmt: skip
    step("total 4", ALICE, "2022-06-06", [
        ("models.py", "value = 3", "value = 4"),
        ("views.py", "order.total() + 1", "order.total() + 2"),
    ])  # fmt: skip
    # a pure deletion: charged to the line above it (def tax)
    step("tax: drop rate", CAROL, "2022-07-04", [("models.py", "        rate = 5\n", "")])
    step("show_total alone", BOB, "2022-08-01", [
        ("views.py", "order.total() + 2", "order.total() + 3"),
    ])  # fmt: skip
    step("render alone", BOB, "2022-09-05", [("views.py", "repr(order)", "format(order)")])
    return repo, shas


def test_symbol_co_change_and_attribution_through_later_edits(tmp_path, stores):
    repo, (c1, c2, c3, c4, c5, c6, c7, c8, c9) = make_symbol_repo(tmp_path / "sym")
    assert repo.read("models.py") == (
        'class Order:\n    """An order."""\n\n    def total(self):\n        value = 4\n'
        "        return value\n\n    def tax(self):\n        return rate\n"
    )
    store = stores.open()
    assert index(store, repo.root, "sym").history.commits == 9

    def shas(name):
        return [t.sha for t in history(store, name).entries]

    # the lines c2 and c3 wrote are gone at HEAD: they are charged to def total(self), the
    # nearest surviving line above them
    assert shas("Order.total") == [c6, c4, c3, c2, c1]
    assert shas("Order.tax") == [c7, c5, c1]
    assert shas("show_total") == [c8, c6, c3, c2, c1]
    assert shas("render") == [c9, c5, c1]
    # edits inside its methods are not the class's: only the commit that wrote its own lines
    assert shas("Order") == [c1]
    page = history(store, "Order.total")
    assert page.target.kind == "symbol" and page.target.symbol.qualname == "models.Order.total"
    assert page.target.path == "models.py"
    assert [t.target for t in page.entries] == ["sym:models.py#models.Order.total"] * 5
    # lines charged (in `added`): c6 1, c4 2, c3 1, c2 1, c1 2 (def + return)
    assert [(t.added, t.deleted) for t in page.entries] == [(1, 0), (2, 0), (1, 0), (1, 0), (2, 0)]
    assert [(t.sha, t.added) for t in history(store, "Order.tax").entries] == [
        (c7, 1),
        (c5, 1),
        (c1, 3),
    ]

    # total+show_total: c1 c2 c3 c6 = 4; total changed 5 times, show_total 5 → 0.8
    assert partners(co_changes(store, "Order.total")) == [("views.show_total", 4, 0.8)]
    # tax+render: c1 c5 = 2; tax 3, render 3 → 0.6667
    assert partners(co_changes(store, "Order.tax")) == [("views.render", 2, 0.6667)]
    # with single commits: Order (1 change, c1) 1/1; tax and render 1/min(5,3) — ranked by
    # score, which trusts show_total's 4 shared commits over Order's one
    wide = co_changes(store, "Order.total", min_count=1)
    assert partners(wide) == [
        ("views.show_total", 4, 0.8),
        ("models.Order", 1, 1.0),
        ("models.Order.tax", 1, 0.3333),
        ("views.render", 1, 0.3333),
    ]
    assert [p.score for p in wide.partners] == [0.2667, 0.0909, 0.0769, 0.0769]
    assert [p.symbol.id for p in wide.partners] == [
        "sym:views.py#views.show_total",
        "sym:models.py#models.Order",
        "sym:models.py#models.Order.tax",
        "sym:views.py#views.render",
    ]
    assert partners(co_changes(store, "views.show_total")) == [("models.Order.total", 4, 0.8)]
    # the files: models c1-c7 (7), views c1 c2 c3 c5 c6 c8 c9 (7), together c1 c2 c3 c5 c6
    assert partners(co_changes(store, "models.py")) == [("views.py", 5, 0.7143)]


def test_symbol_co_change_skips_commits_touching_too_many_symbols(tmp_path, stores):
    """MAX_SYMBOLS = 60: a commit touching 61 functions counts for files, not for symbols."""
    repo = Repo(tmp_path / "wide")
    names = [f"f{i:02}" for i in range(61)]

    def source(values: dict[str, int]) -> str:
        return module(*(func(n, f"return {values.get(n, 0)}") for n in names))

    c1 = repo.commit(
        "61 functions", ALICE, "2022-01-03", {"many.py": source({}), "other.py": "O = 1\n"}
    )
    c2 = repo.commit("two", BOB, "2022-01-10", {"many.py": source({"f00": 1, "f01": 1})})
    c3 = repo.commit(
        "two again",
        BOB,
        "2022-01-17",
        {"many.py": source({"f00": 2, "f01": 2}), "other.py": "O = 2\n"},
    )
    sixty = {n: 3 for n in names[:60]}  # exactly 60 symbols: counts
    c4 = repo.commit("sixty", ALICE, "2022-01-24", {"many.py": source(sixty)})
    store = stores.open()
    mined = index(store, repo.root, "wide").history
    assert mined.symbol_touches == 61 + 2 + 2 + 60
    assert [t.sha for t in history(store, "f00").entries] == [c4, c3, c2, c1]
    assert [t.sha for t in history(store, "f60").entries] == [c1]
    # f00+f01: c2 c3 c4 (not c1); each changed 3 times
    assert partners(co_changes(store, "f00")) == [("many.f01", 3, 1.0)]
    wide = co_changes(store, "f00", min_count=1, limit=100)
    assert partners(wide) == [("many.f01", 3, 1.0)] + [(f"many.{n}", 1, 1.0) for n in names[2:60]]
    assert partners(co_changes(store, "f60", min_count=1)) == []
    # the files: many.py and other.py changed together in c1 and c3
    assert partners(co_changes(store, "other.py")) == [("many.py", 2, 1.0)]


# ---------------------------------------------------------------- 7. owners

CODEOWNERS = """# last matching rule wins
*                   @org/everyone
*.py                @org/python
/docs/              @org/docs-team
/billing/           @org/billing @carol
/billing/refund.py  @dave
"""


def make_owners_repo(root) -> tuple[Repo, list[str]]:
    repo = Repo(root)
    pay = func("charge", *(f"x{i} = {i}" for i in range(99)))  # 100 lines
    refund = func("refund", *(f"y{i} = {i}" for i in range(19)))  # 20 lines
    shas = [
        repo.commit(
            "billing",
            ALICE,
            "2020-01-01",
            {
                "billing/pay.py": pay,
                ".github/CODEOWNERS": CODEOWNERS,
                "app.py": "APP = 1\n",
                "stubs.pyi": "X: int\n",
                "docs/conf.py": "PROJECT = 'x'\n",
                "lib/docs/guide.py": "GUIDE = 1\n",
            },
        ),
        repo.commit("refunds", BOB, "2021-03-01", {"billing/refund.py": refund}),
        # three lines of charge replaced: +3 -3
        repo.commit(
            "charge fix",
            BOB,
            "2022-06-30",
            {
                "billing/pay.py": pay.replace("= 1\n", "= -1\n")
                .replace("= 2\n", "= -2\n")
                .replace("= 3\n", "= -3\n")
            },
        ),
        # a file next to the folder whose name starts like it: not under billing/
        repo.commit("extra", CAROL, "2022-07-10", {"billing_extra.py": func("extra", "z = 1")}),
        repo.commit(
            "refund note",
            ALICE,
            "2022-08-01",
            {"billing/refund.py": refund.replace("y0 = 0\n", "y0 = 0\n    n1 = 1\n    n2 = 2\n")},
        ),
    ]
    return repo, shas


def test_owners_of_file_and_symbol_with_decay(tmp_path, stores):
    repo, _ = make_owners_repo(tmp_path / "own")
    assert repo.git("diff", "--numstat", "HEAD~3", "HEAD~2").split() == ["3", "3", "billing/pay.py"]
    store = stores.open()
    index(store, repo.root, "own")

    # pay.py: Alice wrote 100 lines 911 days before Bob changed 6: recent work weighs more
    alice, bob = decayed(100, 911), decayed(6, 0)
    assert (round(alice, 2), bob) == (3.0, 6.0)
    pay = owners(store, "billing/pay.py")
    assert (pay.target.kind, pay.target.path) == ("file", "billing/pay.py")
    assert ranked(owners(store, "./billing/pay.py")) == ranked(pay)
    assert ranked(pay) == [
        (BOB[1], BOB[0], False, 6.0, 0.667, 1, 6, "2022-06-30T12:00:00Z"),
        (ALICE[1], ALICE[0], False, 3.0, 0.333, 1, 100, "2020-01-01T12:00:00Z"),
    ]
    assert pay.codeowners == ["@org/billing", "@carol"]

    # a symbol: the lines charged to it (refund: Bob 20 lines 518 days old, Alice 2 now)
    refund = owners(store, "refund")
    assert (
        refund.target.kind == "symbol" and refund.target.symbol.qualname == "billing.refund.refund"
    )
    bob_refund = decayed(20, 518)
    assert round(bob_refund, 2) == 2.72
    assert ranked(refund) == [
        (BOB[1], BOB[0], False, 2.72, round(bob_refund / (bob_refund + 2), 4), 1, 20,
         "2021-03-01T12:00:00Z"),
        (ALICE[1], ALICE[0], False, 2.0, round(2 / (bob_refund + 2), 4), 1, 2,
         "2022-08-01T12:00:00Z"),
    ]  # fmt: skip
    assert [o.share for o in refund.owners] == [0.5764, 0.4236]
    assert refund.codeowners == ["@dave"]

    # a longer half-life: the old work counts more
    slow = owners(store, "billing/pay.py", half_life_days=3650)
    assert [(o.email, o.score) for o in slow.owners] == [
        (ALICE[1], round(decayed(100, 911, 3650), 2)),
        (BOB[1], 6.0),
    ]
    assert slow.owners[0].score == 84.11


def test_codeowners_last_matching_rule_wins(tmp_path, stores):
    repo, _ = make_owners_repo(tmp_path / "own")
    store = stores.open()
    index(store, repo.root, "own")
    expected = {
        "stubs.pyi": ["@org/everyone"],  # only `*`
        "app.py": ["@org/python"],
        "billing_extra.py": ["@org/python"],
        "docs/conf.py": ["@org/docs-team"],  # /docs/ comes after *.py
        "lib/docs/guide.py": ["@org/python"],  # /docs/ is anchored at the root
        "billing/pay.py": ["@org/billing", "@carol"],
        "billing/refund.py": ["@dave"],  # the more specific later rule
        "charge": ["@org/billing", "@carol"],  # a symbol: its file's owners
    }
    assert {target: owners(store, target).codeowners for target in expected} == expected


def test_codeowners_of_a_folder_follow_its_directory_rule(tmp_path, stores):
    repo, _ = make_owners_repo(tmp_path / "own")
    store = stores.open()
    index(store, repo.root, "own")
    # `/billing/` and `/docs/` own those folders (and everything in them)
    assert owners(store, "billing").codeowners == ["@org/billing", "@carol"]
    assert owners(store, "docs").codeowners == ["@org/docs-team"]


def test_codeowners_star_in_a_folder_does_not_reach_nested_folders(tmp_path, stores):
    """GitHub: `docs/*` matches docs/getting-started.md but not docs/build-app/x.md."""
    repo = Repo(tmp_path / "flat")
    repo.commit(
        "docs",
        ALICE,
        "2022-01-03",
        {
            "CODEOWNERS": "*  @all\ndocs/*  @flat\n**/logs  @logs\n",
            "docs/top.py": "T = 1\n",
            "docs/deep/nested.py": "N = 1\n",
            "src/logs/sink.py": "S = 1\n",
        },
    )
    store = stores.open()
    index(store, repo.root, "flat")
    assert owners(store, "docs/top.py").codeowners == ["@flat"]
    assert owners(store, "src/logs/sink.py").codeowners == ["@logs"]
    assert owners(store, "docs/deep/nested.py").codeowners == ["@all"]


def test_owners_of_a_folder_count_every_file_under_it(tmp_path, stores):
    repo, _ = make_owners_repo(tmp_path / "own")
    store = stores.open()
    index(store, repo.root, "own")
    # the folder: every file under billing/ (not billing_extra.py); newest touch 2022-08-01
    # Alice: 100 lines 943 days old + 2 lines now; Bob: 20 lines 518 days + 6 lines 32 days
    alice = decayed(100, 943) + decayed(2, 0)
    bob = decayed(20, 518) + decayed(6, 32)
    assert (round(alice, 2), round(bob, 2)) == (4.65, 8.03)
    folder = owners(store, "billing")
    assert (folder.target.kind, folder.target.path) == ("folder", "billing")
    assert ranked(folder) == [
        (BOB[1], BOB[0], False, 8.03, 0.6332, 2, 26, "2022-06-30T12:00:00Z"),
        (ALICE[1], ALICE[0], False, 4.65, 0.3668, 2, 102, "2022-08-01T12:00:00Z"),
    ]
    assert owners(store, "billing/").target.path == "billing"
    assert owners(store, "billing", limit=1).owners[0].email == BOB[1]


# ---------------------------------------------------------------- 8. explain


def test_explain_gives_context_history_owners_and_partners(tmp_path, stores):
    repo, (c1, c2, c3, c4, _c5, c6, *_) = make_symbol_repo(tmp_path / "sym")
    store = stores.open()
    index(store, repo.root, "sym")
    answer = explain(store, "Order.total")
    assert answer.context.symbol.id == "sym:models.py#models.Order.total"
    assert (answer.context.symbol.start_line, answer.context.symbol.end_line) == (4, 6)
    assert answer.context.symbol.kind == "method"
    assert [t.sha for t in answer.history] == [c6, c4, c3, c2, c1]
    assert [t.message for t in answer.history] == [
        "total 4",
        "total value",
        "total 3",
        "total 2",
        "orders and views",
    ]
    # lines charged: Alice c1 2 (154 days before c6), c2 1 (119), c6 1 (0); Bob c3 1 (91),
    # c4 2 (63)
    alice = decayed(2, 154) + decayed(1, 119) + decayed(1, 0)
    bob = decayed(1, 91) + decayed(2, 63)
    assert answer.owners.target.kind == "symbol"
    assert [(o.email, o.score, o.commits, o.lines) for o in answer.owners.owners] == [
        (ALICE[1], round(alice, 2), 3, 4),
        (BOB[1], round(bob, 2), 2, 3),
    ]
    assert [o.score for o in answer.owners.owners] == [2.74, 2.27]
    assert partners(answer) == [("views.show_total", 4, 0.8)]
    assert answer.partners[0].symbol.id == "sym:views.py#views.show_total"
    assert [(p.name, p.count, p.weight) for p in answer.file_partners] == [("views.py", 5, 0.7143)]
    assert answer.envelope.repos[0].indexed_sha == repo.head()


def test_explain_of_a_symbol_never_charged_falls_back_to_its_file(tmp_path, stores):
    repo = Repo(tmp_path / "tiny")
    c1 = repo.commit("add", ALICE, "2022-01-03", {"tiny.py": "A = 1\n\n\n" + func("f", "return 1")})
    c2 = repo.commit(
        "constant", BOB, "2022-02-07", {"tiny.py": "A = 2\n\n\n" + func("f", "return 1")}
    )
    store = stores.open()
    index(store, repo.root, "tiny")
    assert [t.sha for t in history(store, "f").entries] == [c1]
    assert [t.sha for t in explain(store, "f").history] == [c1]
    # a module is no function, method or class: no symbol touches; its file's history instead
    assert [t.sha for t in explain(store, "tiny").history] == [c2, c1]


# ---------------------------------------------------------------- 9. incremental mining


def make_incremental_repo(root) -> tuple[Repo, list[str]]:
    repo = Repo(root)
    util = func("helper", "a = 1", "b = 2", "return a + b")
    main = func("run", "return 0")
    shas = [
        repo.commit(
            "start",
            ALICE,
            "2022-01-03",
            {"util.py": util, "main.py": main, "extra.py": "EXTRA = 1\n"},
        ),
        repo.commit(
            "b 3",
            BOB,
            "2022-02-07",
            {
                "util.py": util.replace("b = 2", "b = 3"),
                "main.py": main.replace("0", "1"),
                "extra.py": "EXTRA = 2\n",
            },
        ),
        repo.commit(
            "a 5",
            ALICE,
            "2022-03-07",
            {
                "util.py": util.replace("b = 2", "b = 3").replace("a = 1", "a = 5"),
                "main.py": main.replace("0", "2"),
            },
        ),
    ]
    return repo, shas


def grow_incremental_repo(repo: Repo) -> list[str]:
    """Three more commits: an edit, a rename util.py → lib/util.py, extra.py deleted."""
    util = repo.read("util.py")
    main = func("run", "return 0")
    return [
        repo.commit(
            "a 6",
            CAROL,
            "2022-04-04",
            {"util.py": util.replace("a = 5", "a = 6"), "main.py": main.replace("0", "3")},
        ),
        repo.commit(
            "move util",
            BOB,
            "2022-05-02",
            {"main.py": main.replace("0", "4")},
            move=(("util.py", "lib/util.py"),),
        ),
        repo.commit(
            "drop extra",
            ALICE,
            "2022-06-06",
            {"main.py": main.replace("0", "5")},
            delete=("extra.py",),
        ),
    ]


def test_incremental_mining_reads_only_new_commits_and_follows_renames(tmp_path, stores):
    repo, (c1, c2, c3) = make_incremental_repo(tmp_path / "inc")
    store = stores.open()
    first = index(store, repo.root, "inc").history
    assert (first.commits, first.since, first.head, first.rebuilt) == (3, "", c3, False)
    c4, c5, c6 = grow_incremental_repo(repo)

    second = index(store, repo.root, "inc").history
    assert (second.commits, second.since, second.head) == (3, c3, c6)
    assert (second.renamed, second.rebuilt) == (1, False)
    assert second.touches == 2 + 2 + 1  # c4 util+main, c5 util+main, c6 main
    # the history from before the rename is under the new path
    assert touches(history(store, "lib/util.py")) == [
        (c5, BOB[1], "move util", 0, 0),
        (c4, CAROL[1], "a 6", 1, 1),
        (c3, ALICE[1], "a 5", 1, 1),
        (c2, BOB[1], "b 3", 1, 1),
        (c1, ALICE[1], "start", 4, 0),
    ]
    assert [t.sha for t in history(store, "main.py").entries] == [c6, c5, c4, c3, c2, c1]
    with pytest.raises(QueryError):
        history(store, "util.py")
    assert store.history.history_stats("inc")["commits"] == 6

    # a run without new commits mines nothing
    third = index(store, repo.root, "inc").history
    assert (third.commits, third.since, third.head, third.touches) == (0, c6, c6, 0)
    assert (third.renamed, third.rebuilt) == (0, False)
    assert store.history.history_stats("inc")["commits"] == 6


def test_incremental_co_change_and_owners_equal_a_fresh_mining(tmp_path, stores):
    """After new commits that rename util.py and delete extra.py, file co-change and owners are
    what mining the whole history at once gives: main.py and lib/util.py changed together in
    c1-c5 (5 of 5), extra.py (deleted) is no partner."""
    repo, _ = make_incremental_repo(tmp_path / "inc")
    store = stores.open()
    index(store, repo.root, "inc")
    grow_incremental_repo(repo)
    index(store, repo.root, "inc")
    files = ["main.py", "lib/util.py"]
    incremental = view(store, "inc", files, [])
    assert incremental["main.py"]["co"] == [("lib/util.py", 5, 1.0)]
    assert incremental["lib/util.py"]["co"] == [("main.py", 5, 1.0)]
    assert incremental == fresh_view(store, repo.root, "inc", files, [])


def test_incremental_symbol_history_follows_a_renamed_file(tmp_path, stores):
    """helper moved with util.py → lib/util.py: its earlier commits stay its own, as when the
    whole history is mined at once."""
    repo, (c1, c2, c3) = make_incremental_repo(tmp_path / "inc")
    store = stores.open()
    index(store, repo.root, "inc")
    c4, _c5, _c6 = grow_incremental_repo(repo)
    index(store, repo.root, "inc")
    fresh = fresh_view(store, repo.root, "inc", [], ["helper"])
    assert [row[0] for row in fresh["helper"]["history"]] == [c4, c3, c2, c1]
    incremental = view(store, "inc", [], ["helper"])
    assert [row[0] for row in incremental["helper"]["history"]] == [c4, c3, c2, c1]
    assert incremental == fresh


def test_a_file_deleted_then_added_again_in_later_runs_has_only_its_own_past(tmp_path, stores):
    """From scratch, a file added again after a deletion is another file (mine.py): mining
    run by run must say the same."""
    repo = Repo(tmp_path / "again")
    repo.commit("one", ALICE, "2022-01-03", {"phoenix.py": "A = 1\n", "keep.py": "K = 1\n"})
    repo.commit("two", ALICE, "2022-02-07", {"phoenix.py": "A = 2\n", "keep.py": "K = 2\n"})
    store = stores.open()
    index(store, repo.root, "again")
    repo.commit("drop", BOB, "2022-03-07", {"keep.py": "K = 3\n"}, delete=("phoenix.py",))
    index(store, repo.root, "again")
    c4 = repo.commit("again", CAROL, "2022-04-04", {"phoenix.py": "B = 1\n", "keep.py": "K = 4\n"})
    assert index(store, repo.root, "again").history.commits == 1
    files = ["phoenix.py", "keep.py"]
    incremental = view(store, "again", files, [])
    assert touches(history(store, "phoenix.py")) == [(c4, CAROL[1], "again", 1, 0)]
    assert incremental["keep.py"]["co"] == [("phoenix.py", 1, 1.0)]
    assert incremental == fresh_view(store, repo.root, "again", files, [])


def test_a_file_removed_from_the_work_tree_and_restored_keeps_its_past(tmp_path, stores):
    """The index follows the work tree, history follows commits: a file deleted on disk (not
    in git), indexed, then restored loses nothing once the next commits are mined."""
    repo, (c1, c2, c3) = make_incremental_repo(tmp_path / "restore")
    store = stores.open()
    index(store, repo.root, "restore")
    saved = repo.read("util.py")
    (repo.root / "util.py").unlink()
    index(store, repo.root, "restore")  # util.py leaves the index; HEAD has not moved
    repo.write("util.py", saved)
    c4 = repo.commit("main 9", BOB, "2022-04-04", {"main.py": func("run", "return 9")})
    assert index(store, repo.root, "restore").history.commits == 1
    assert [t.sha for t in history(store, "util.py", "restore").entries] == [c3, c2, c1]
    assert [t.sha for t in history(store, "helper", "restore").entries] == [c3, c2, c1]
    files, symbols = ["util.py", "main.py"], ["helper", "run"]
    assert view(store, "restore", files, symbols) == fresh_view(
        store, repo.root, "restore", files, symbols
    )
    assert c4 in [t.sha for t in history(store, "main.py", "restore").entries]


def test_renames_in_a_chain_and_a_renamed_symbol_between_runs(tmp_path, stores):
    """Between two runs: a.py → b.py while b.py → c.py (each file's past follows it, not the
    name), and a function renamed inside a file (its past is no longer anyone's: no stale
    partner is left behind)."""
    repo = Repo(tmp_path / "chain")
    first = func("first", "x = 1", "return x")
    second = func("second", "y = 2", "return y")
    tool = module(func("old_name", "z = 3", "return z"), func("other", "w = 4", "return w"))
    repo.commit("one", ALICE, "2022-01-03", {"a.py": first, "b.py": second, "tool.py": tool})
    repo.commit(
        "two",
        BOB,
        "2022-02-07",
        {
            "a.py": first.replace("x = 1", "x = 10"),
            "tool.py": tool.replace("z = 3", "z = 30").replace("w = 4", "w = 40"),
        },
    )
    store = stores.open()
    index(store, repo.root, "chain")
    c3 = repo.commit("b to c", CAROL, "2022-03-07", {}, move=(("b.py", "c.py"),))
    c4 = repo.commit("a to b", CAROL, "2022-03-08", {}, move=(("a.py", "b.py"),))
    c5 = repo.commit(
        "rename old_name",
        ALICE,
        "2022-04-04",
        {"tool.py": repo.read("tool.py").replace("old_name", "new_name")},
    )
    mined = index(store, repo.root, "chain").history
    assert (mined.commits, mined.renamed) == (3, 2)
    lines = {t.sha: t.message for t in history(store, "b.py", "chain").entries}
    assert list(lines.values()) == ["a to b", "two", "one"]  # a.py's past
    assert [t.message for t in history(store, "c.py", "chain").entries] == ["b to c", "one"]
    assert c4 in lines and c5 not in lines and c3 not in lines
    # symbols follow their files (a pure move changes no line of them)
    assert [t.message for t in history(store, "second", "chain").entries] == ["one"]
    assert [t.message for t in history(store, "b.first", "chain").entries] == ["two", "one"]
    # other changed with first (one, two), second (one) and old_name (one, two): old_name is
    # gone, no stale partner is left. (Mined at once, new_name would own old_name's lines and
    # be a partner: incremental mining cannot follow a symbol renamed in place — documented.)
    assert partners(co_changes(store, "other", "chain", min_count=1)) == [
        ("b.first", 2, 1.0),
        ("c.second", 1, 1.0),
    ]
    assert [t.message for t in history(store, "new_name", "chain").entries] == ["rename old_name"]
    incremental = view(store, "chain", ["b.py", "c.py"], ["first", "second"])
    fresh = fresh_view(store, repo.root, "chain", ["b.py", "c.py"], ["first", "second"])
    for name in ("first", "second"):  # their partners differ by new_name only (see above)
        incremental[name].pop("co"), fresh[name].pop("co")
    assert incremental == fresh

    # mining again from scratch gives new_name old_name's lines, as a fresh repository has
    done = cli(stores.url(), "index", str(repo.root), "--name", "chain", "--remine")
    assert done.returncode == 0, done.stderr
    assert "history: 5 commits mined" in done.stdout
    assert "history: history mined again from scratch, as asked" in done.stdout
    assert [t.message for t in history(store, "new_name", "chain").entries] == [
        "rename old_name",
        "two",
        "one",
    ]
    everything = (["b.py", "c.py", "tool.py"], ["first", "second", "other", "new_name"])
    assert view(store, "chain", *everything) == fresh_view(store, repo.root, "chain", *everything)


def test_force_push_mines_history_again_from_scratch(tmp_path, stores):
    repo, (c1, c2, c3) = make_incremental_repo(tmp_path / "push")
    store = stores.open()
    index(store, repo.root, "push")
    repo.git("reset", "-q", "--hard", c2)
    d3 = repo.commit(
        "rewrite a",
        CAROL,
        "2022-03-14",
        {"util.py": repo.read("util.py").replace("a = 1", "a = 7")},
    )
    d4 = repo.commit("rewrite main", CAROL, "2022-03-21", {"main.py": func("run", "return 9")})
    mined = index(store, repo.root, "push").history
    assert (mined.rebuilt, mined.since, mined.head, mined.commits) == (True, c3, d4, 4)
    assert touches(history(store, "util.py")) == [
        (d3, CAROL[1], "rewrite a", 1, 1),
        (c2, BOB[1], "b 3", 1, 1),
        (c1, ALICE[1], "start", 4, 0),
    ]
    assert [t.sha for t in history(store, "main.py").entries] == [d4, c2, c1]
    files, symbols = ["util.py", "main.py", "extra.py"], ["util.helper", "main.run"]
    assert view(store, "push", files, symbols) == fresh_view(
        store, repo.root, "push", files, symbols
    )
    assert store.history.history_stats("push")["commits"] == 4


# ---------------------------------------------------------------- 10. CLI and MCP


def cli(store_url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cartograph.cli", "--store", store_url, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CARTOGRAPH_STORE": ""},
    )


LIBRARY_CALLS = {
    "history": (history, "models.py", {"limit": 3, "offset": 1}),
    "co-changes": (co_changes, "Order.total", {"min_count": 1}),
    "owners": (owners, "views.py", {}),
    "explain": (explain, "Order.total", {}),
}


def test_cli_answers_equal_the_library(tmp_path, stores):
    repo, _ = make_symbol_repo(tmp_path / "sym")
    store = stores.open()
    index(store, repo.root, "sym")
    url = stores.url()
    wanted = {
        name: to_data(fn(store, target, **kwargs))
        for name, (fn, target, kwargs) in LIBRARY_CALLS.items()
    }
    got = {
        "history": cli(url, "history", "models.py", "--limit", "3", "--offset", "1", "--json"),
        "co-changes": cli(url, "co-changes", "Order.total", "--min-count", "1", "--json"),
        "owners": cli(url, "owners", "views.py", "--json"),
        "explain": cli(url, "explain", "Order.total", "--json"),
    }
    assert {name: done.returncode for name, done in got.items()} == dict.fromkeys(got, 0)
    assert {name: json.loads(done.stdout) for name, done in got.items()} == wanted
    assert len(wanted["history"]["entries"]) == 3 and wanted["history"]["next_offset"] == 4
    # text output and a clear one-line error
    text = cli(url, "history", "Order.total")
    assert text.returncode == 0 and "total 4" in text.stdout
    missing = cli(url, "owners", "no/such/file.py")
    assert missing.returncode == 1
    assert missing.stderr.startswith("cartograph: no symbol named 'no/such/file.py'")
    assert missing.stderr.count("\n") == 1


def test_mcp_tools_answer_equal_the_library(tmp_path, stores):
    from mcp import Client, StdioServerParameters

    repo, _ = make_symbol_repo(tmp_path / "sym")
    store = stores.open()
    index(store, repo.root, "sym")
    wanted = {
        name: to_data(fn(store, target, **kwargs))
        for name, (fn, target, kwargs) in LIBRARY_CALLS.items()
    }
    arguments = {
        "history": ("history", {"target": "models.py", "limit": 3, "offset": 1}),
        "co-changes": ("co_changes", {"target": "Order.total", "min_count": 1}),
        "owners": ("owners", {"target": "views.py"}),
        "explain": ("explain", {"symbol": "Order.total"}),
    }

    async def calls():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "cartograph.cli", "--store", stores.url(), "mcp", "--profile", "all"],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            cwd=str(tmp_path),
        )
        out = {}
        async with Client(params, read_timeout_seconds=60) as client:
            for name, (tool, args) in arguments.items():
                result = await client.call_tool(tool, {**args, "as_json": True})
                assert not result.is_error, result.content
                out[name] = json.loads("".join(b.text for b in result.content))
            text = await client.call_tool("owners", {"target": "views.py"})
            out["text"] = "".join(b.text for b in text.content)
            missing = await client.call_tool("history", {"target": "nowhere.py"})
            out["missing"] = (missing.is_error, "".join(b.text for b in missing.content))
        return out

    out = asyncio.run(calls())
    assert {name: out[name] for name in wanted} == wanted
    assert BOB[1] in out["text"] or BOB[0] in out["text"]
    is_error, message = out["missing"]
    assert is_error and "nowhere.py" in message


# ---------------------------------------------------------------- 11. bad input


def test_repository_without_commits_indexes_and_mines_nothing(tmp_path, stores):
    repo = Repo(tmp_path / "empty")
    repo.write("solo.py", func("solo", "return 1"))
    store = stores.open()
    result = index(store, repo.root, "empty")
    assert (result.files, result.parsed, result.indexed_sha) == (1, 1, "")
    assert result.history is None
    assert store.history.history_stats("empty")["commits"] == 0
    assert history(store, "solo.py").entries == []
    assert history(store, "solo").entries == []
    assert co_changes(store, "solo.py").partners == []
    who = owners(store, "solo.py")
    assert (who.owners, who.codeowners) == ([], [])
    assert explain(store, "solo").history == []
    # the first commit, then: mined from the start
    c1 = repo.commit("first", ALICE, "2022-01-03")
    mined = index(store, repo.root, "empty").history
    assert (mined.commits, mined.since, mined.head) == (1, "", c1)
    assert [t.sha for t in history(store, "solo.py").entries] == [c1]


def test_a_folder_that_is_no_git_work_tree_has_no_history(tmp_path, stores):
    root = tmp_path / "plain"
    root.mkdir()
    (root / "plain.py").write_text(func("plain"))
    store = stores.open()
    result = index(store, root, "plain")
    assert result.history is None
    assert history(store, "plain.py").entries == []


def test_bad_targets_give_clear_errors(tmp_path, stores):
    repo = make_cochange_repo(tmp_path / "co")
    repo.commit("nested", ALICE, "2023-01-02", {"pkg/inner.py": "I = 1\n"})
    store = stores.open()
    index(store, repo.root, "co")
    for ask in (history, co_changes, owners):
        with pytest.raises(SymbolNotFound, match=r"no symbol named 'nothing/here\.py'"):
            ask(store, "nothing/here.py")
        with pytest.raises(QueryError, match="give a file path, a folder, or a symbol"):
            ask(store, "  ")
        with pytest.raises(QueryError, match="nope"):
            ask(store, "a.py", repo="nope")
    with pytest.raises(QueryError, match="pkg is a folder: ask for a file or a symbol"):
        history(store, "pkg")
    with pytest.raises(QueryError, match="pkg is a folder: ask for a file or a symbol"):
        co_changes(store, "pkg/")
    with pytest.raises(SymbolNotFound):
        explain(store, "no_such_function")
    assert [o.email for o in owners(store, "pkg").owners] == [ALICE[1]]


def test_impact_names_whom_to_ask_and_what_usually_changes_with_each_file(tmp_path, stores):
    """An impact reads the history of every file it changes at once (one read per kind, on
    Neo4j as on SQLite) and gives each its own owners and partners."""
    from cartograph.impact.report import impact

    repo = Repo(tmp_path / "pair")
    models = "def save(x):\n    return x\n"
    views = "from app.models import save\n\n\ndef show(x):\n    return save(x)\n"
    repo.commit("start", ALICE, "2023-01-02", files={"app/__init__.py": "",
                "app/models.py": models, "app/views.py": views, "app/alone.py": "A = 1\n"})  # fmt: skip
    for n in range(1, 5):  # models and views change together, by Alice; alone.py by Bob
        repo.commit(f"pair {n}", ALICE, f"2023-02-0{n}", files={
            "app/models.py": models + f"\nN = {n}\n", "app/views.py": views + f"\nN = {n}\n"})  # fmt: skip
        repo.commit(f"alone {n}", BOB, f"2023-03-0{n}", files={"app/alone.py": f"A = {n}\n"})
    store = stores.open()
    index(store, repo.root, "pair")
    patch = (
        "--- a/app/models.py\n+++ b/app/models.py\n@@ -1,2 +1,2 @@\n def save(x):\n"
        "-    return x\n+    return x or 0\n"
        "--- a/app/alone.py\n+++ b/app/alone.py\n@@ -1 +1 @@\n-A = 4\n+A = 5\n"
    )
    answer = impact(store, "pair", patch=patch)

    people = {area.area: [name for _email, name, _share in area.owners] for area in answer.owners}
    assert people == {"app/models.py": [ALICE[0]], "app/alone.py": [BOB[0], ALICE[0]]}
    assert [(m.name, m.with_, m.count) for m in answer.missing if m.level == "file"] == [
        ("app/views.py", "app/models.py", 5)
    ]
