"""The TypeScript/JavaScript resolution rules, pinned by the fixtures of tests/resolution_ts/
(edges written `path#qualname`; see its README for the contract and decisions)."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.model import split_symbol_id
from helpers import GRAPH_EDGE_TYPES, expected, fixture_dirs, ts_fixture_root

FIXTURES = fixture_dirs(ts_fixture_root())


def edges_by_location(store, repo: str) -> set[tuple[str, str, str, str | None]]:
    found = set()
    for item in store.graph.export(repo):
        if item["type"] == "edge" and item["label"] in GRAPH_EDGE_TYPES:
            src, dst = (_location(item["src"]), _location(item["dst"]))
            via = None if item["label"] == "INHERITS" else item["via"]
            found.add((item["label"], src, dst, via))
    return found


def _location(symbol_id: str) -> str:
    _repo, path, qualname = split_symbol_id(symbol_id)
    return f"{path}#{qualname}"


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_ts_resolution_fixture(fixture, stores):
    spec = expected(fixture)
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    actual = edges_by_location(store, "fixture")
    wanted = {(t, s, d, None if t == "INHERITS" else v) for t, s, d, v in spec["edges"]}
    invented = [e for e in spec.get("must_not", []) if any(a[:3] == tuple(e) for a in actual)]
    assert not invented, f"edges that must not exist: {invented}"
    # bonus edges (array element typing, a dynamic import's module): allowed, not required
    optional = {
        (t, s, d, None if t == "INHERITS" else v) for t, s, d, v in spec.get("optional", [])
    }
    missing = sorted(wanted - actual, key=str)
    extra = sorted(actual - wanted - optional, key=str)
    assert not missing and not extra, f"\nmissing: {missing}\nextra:   {extra}"
    unresolved_names = {u.name for _, u in store.graph.search_unresolved("", "fixture", 10_000)}
    for name in spec.get("unresolved", []):
        assert name in unresolved_names, f"{name!r} not unresolved: {sorted(unresolved_names)}"


def test_a_type_and_a_value_of_one_name_and_overloads_are_symbols_of_their_own(tmp_path, stores):
    """`type OK` beside `const OK`: two symbols (the type's qualname takes `:type`); an
    overloaded method or function: one symbol from its first signature to its body's end."""
    store = stores.open()
    index_repository(store, ts_fixture_root() / "type_value_names_overloads", name="t", workers=1)
    spans = {
        (s.qualname, s.kind): (s.start_line, s.end_line)
        for path in ("src/parseUtil.ts", "src/schema.ts")
        for s in store.graph.symbols_in_files("t", [path])[path]
    }
    assert spans[("OK", "function")] == (2, 2) and spans[("OK:type", "type")] == (1, 1)
    assert spans[("Issue", "function")] == (9, 11)
    assert spans[("Issue:type", "interface")] == (4, 7)
    assert spans[("Plain", "type")] == (13, 13)  # no value of its name: no suffix
    assert spans[("Schema.parse", "method")] == (6, 12)
    assert spans[("build", "function")] == (20, 24)


def test_an_edit_in_an_overloaded_methods_body_changes_the_method(tmp_path, stores):
    """impact's diff mapping: the line of an overloaded method's body is the method's, not
    its class's."""
    import shutil

    from cartograph.impact.report import impact

    root = tmp_path / "t"
    shutil.copytree(ts_fixture_root() / "type_value_names_overloads", root)
    store = stores.open()
    index_repository(store, root, name="t", workers=1, history=False)
    patch = (
        "--- a/src/schema.ts\n+++ b/src/schema.ts\n@@ -9,3 +9,3 @@\n"
        '     const issue: Issue = Issue("bad input");\n'
        "-    issue.describe();\n"
        "+    issue.describe().trim();\n"
        "     return OK(input);\n"
    )
    answer = impact(store, "t", patch=patch)
    assert {(c.change, c.qualname) for c in answer.changed} == {("body", "Schema.parse")}
