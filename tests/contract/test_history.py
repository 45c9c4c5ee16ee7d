"""HistoryStore: commits, people, touches, change and pair counts — and the co-change weights,
computed above the seam (history/cochange.py) and stored as given."""

from __future__ import annotations

from collections import Counter

from cartograph.history.cochange import cochange_weight, refresh_weights
from cartograph.model import CommitRow, HistoryBatch, PersonRow
from cartograph.store.interfaces import PairWeight

from contract.graphs import build, file_write, module_symbol, sym

PATHS = ("a.py", "b.py", "c.py")


def _repo(store) -> dict[str, str]:
    symbols = {p: sym("r", p, f"{p[0]}.f") for p in PATHS}
    build(store, "r", [file_write("r", p, [module_symbol("r", p), symbols[p]]) for p in PATHS])
    return {p: s.id for p, s in symbols.items()}


def _commit(sha: str, ordinal: int, author: str = "ann@example.org") -> CommitRow:
    return CommitRow(sha, f"change {sha}", f"2026-01-0{ordinal}T00:00:00Z", author, 1, 2, ordinal)


def _batch(ids: dict[str, str]) -> HistoryBatch:
    """Four commits: a+b, a+b, a+c, a alone; the symbols change as their files do."""
    batch = HistoryBatch(
        commits=[_commit(f"c{n}", n) for n in range(1, 5)],
        people=[PersonRow("ann@example.org", "Ann", False)],
    )
    for sha, paths in (("c1", "ab"), ("c2", "ab"), ("c3", "ac"), ("c4", "a")):
        for letter in paths:
            path = f"{letter}.py"
            batch.file_touches.append((sha, path, 2, 1))
            batch.symbol_touches.append((sha, ids[path], 3))
    batch.file_changes = Counter({"a.py": 4, "b.py": 2, "c.py": 1})
    batch.file_pairs = Counter({("a.py", "b.py"): 2, ("a.py", "c.py"): 1})
    batch.symbol_changes = Counter({ids["a.py"]: 4, ids["b.py"]: 2, ids["c.py"]: 1})
    batch.symbol_pairs = Counter({(ids["a.py"], ids["b.py"]): 2, (ids["a.py"], ids["c.py"]): 1})
    return batch


def test_commits_touches_and_history_reads(stores):
    store = stores.open()
    ids = _repo(store)
    store.history.write_history("r", _batch(ids))
    stats = store.history.history_stats("r")
    assert (stats["commits"], stats["people"], stats["ordinal"]) == (4, 1, 4)
    assert (stats["first"], stats["last"]) == ("2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z")
    history = store.history.file_history("r", "a.py", 2)
    assert [(t.sha, t.name, t.added, t.deleted) for t in history] == [
        ("c4", "Ann", 2, 1),
        ("c3", "Ann", 2, 1),
    ]
    assert [t.sha for t in store.history.file_history("r", "a.py", 10, offset=3)] == ["c1"]
    assert [(t.sha, t.added) for t in store.history.symbol_history(ids["b.py"], 10)] == [
        ("c2", 3),
        ("c1", 3),
    ]
    touched = store.history.file_touches("r", ["a.py", "b.py", "gone.py"])
    assert [t.sha for t in touched["a.py"]] == ["c4", "c3", "c2", "c1"]  # newest first
    assert [t.sha for t in touched["b.py"]] == ["c2", "c1"] and touched["gone.py"] == []
    assert [(t.sha, t.target) for t in store.history.touches_under("r", "")][:2] == [
        ("c4", "a.py"),
        ("c3", "a.py"),
    ]


def test_weights_are_computed_above_the_seam_and_stored_as_given(stores):
    store = stores.open()
    ids = _repo(store)
    store.history.write_history("r", _batch(ids))
    counts = {
        (p.a, p.b): (p.count, p.changes_a, p.changes_b)
        for p in store.history.pair_counts("r", "file")
    }
    assert counts == {("a.py", "b.py"): (2, 4, 2), ("a.py", "c.py"): (1, 4, 1)}
    refresh_weights(store.history, "r")
    partners = store.history.cochanges("r", ["a.py", "b.py", "gone.py"], 1, 10)
    # weight = count / min(changes): b changed twice, both times with a; c once, with a
    assert [(c.other, c.count, c.weight) for c in partners["a.py"]] == [
        ("b.py", 2, 1.0),
        ("c.py", 1, 1.0),
    ]
    assert [(c.other, c.weight) for c in partners["b.py"]] == [("a.py", 1.0)]
    assert partners["gone.py"] == []
    assert [c.other for c in store.history.cochanges("r", ["a.py"], 2, 10)["a.py"]] == ["b.py"]
    assert [c.other for c in store.history.cochanges("r", ["a.py"], 1, 1)["a.py"]] == ["b.py"]
    symbol_partners = store.history.symbol_cochanges([ids["a.py"], ids["c.py"]], 1, 10)
    assert [(c.other, c.weight) for c in symbol_partners[ids["a.py"]]] == [
        (ids["b.py"], 1.0),
        (ids["c.py"], 1.0),
    ]
    assert [c.other for c in symbol_partners[ids["c.py"]]] == [ids["a.py"]]
    # the store keeps what it is handed
    store.history.set_pair_weights("r", "file", [PairWeight("a.py", "c.py", 0.25)])
    assert [(c.other, c.weight) for c in store.history.cochanges("r", ["c.py"], 1, 10)["c.py"]] == [
        ("a.py", 0.25)
    ]


def test_after_more_commits_only_the_pairs_of_moved_counts_are_weighed_again(stores):
    store = stores.open()
    ids = _repo(store)
    store.history.write_history("r", _batch(ids))
    refresh_weights(store.history, "r")
    more = HistoryBatch(commits=[_commit("c5", 5), _commit("c6", 6)])
    more.file_touches = [("c5", "b.py", 1, 0), ("c6", "b.py", 1, 0)]
    more.file_changes = Counter({"b.py": 2})
    store.history.write_history("r", more)
    touching_b = store.history.pair_counts("r", "file", ["b.py"])
    assert [(p.a, p.b, p.count, p.changes_b) for p in touching_b] == [("a.py", "b.py", 2, 4)]
    store.history.set_pair_weights("r", "file", [PairWeight("a.py", "c.py", 0.5)])  # marker
    refresh_weights(store.history, "r", files={"b.py"}, symbols=set())
    weights = {c.other: c.weight for c in store.history.cochanges("r", ["a.py"], 1, 10)["a.py"]}
    assert weights == {"b.py": 0.5, "c.py": 0.5}  # a-b: 2 / min(4, 4); a-c not weighed again


def test_the_weight_rule():
    assert cochange_weight(2, 4, 2) == 1.0
    assert cochange_weight(1, 3, 5) == 0.3333
    assert cochange_weight(2, 3, 3) == 0.6667
    assert cochange_weight(1, 32, 40) == 0.0313  # half up, at four decimals
    assert cochange_weight(3, 0, 0) == 3.0  # no counts on record: over 1


def test_history_is_re_keyed_and_cleared(stores):
    store = stores.open()
    ids = _repo(store)
    store.history.write_history("r", _batch(ids))
    # b.py's past moves to c.py (a rename), a.py's is forgotten
    store.history.remap_history("r", {"b.py": "c.py", "a.py": None}, {})
    assert [t.sha for t in store.history.file_history("r", "c.py", 10)] == ["c3", "c2", "c1"]
    assert store.history.file_history("r", "a.py", 10) == []
    assert store.history.pair_counts("r", "file") == []  # every pair held a.py
    store.history.clear_history("r")
    assert store.history.history_stats("r")["commits"] == 0
    assert store.history.symbol_history(ids["a.py"], 10) == []
    assert store.repos.get_repo("r").mined_sha == ""
