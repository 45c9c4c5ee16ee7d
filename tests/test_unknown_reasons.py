"""An unresolved call says why it is unknown (issue 38: "unknown has a reason"), on both stores:
the reason the resolver found is what `context`, `callees`, `stats` and a store's readers give
back, so impact and dead code can answer "unknown, because …" rather than "nothing"."""

from __future__ import annotations

from cartograph.index import index_repository
from cartograph.model import UNKNOWN_REASONS
from cartograph.query import callees, context, stats
from cartograph.render import render
from indexing_support import write_tree

SOURCE = """\
import requests


class Plain:
    pass


class Visitor:
    def visit(self, node):
        return getattr(self, "visit_" + node.kind)(node)

    def visit_leaf(self, node):
        return node


def run(callback, item):
    requests.get("https://example.com")
    callback()
    item.frobnicate()
    item.parent.frobnicate()
    Plain()()
    return Visitor().visit(item)
"""


def test_each_unresolved_call_says_why(tmp_path, stores):
    root = write_tree(tmp_path / "app", {"app.py": SOURCE})
    store = stores.open()
    index_repository(store, root, name="app", workers=1, history=False)

    reasons = {u.name: u.reason for _path, u in store.graph.search_unresolved("", "app", 100)}
    assert reasons == {
        "requests.get": "external",
        "callback": "parameter",
        "item.frobnicate": "parameter",  # a method of what callers pass
        "item.parent.frobnicate": "unknown-value",
        "Plain()": "not-callable",
        'getattr(self, "visit_" + node.kind)': "computed-name",
    }
    assert set(reasons.values()) <= set(UNKNOWN_REASONS)

    page = callees(store, "app.run", repo="app")
    assert {u.name: u.reason for u in page.unresolved}["callback"] == "parameter"
    text = render(context(store, "app.Visitor.visit", repo="app"))
    assert 'getattr(self, "visit_" + node.kind)  l.10  (computed-name)' in text
    counted = stats(store, "app")
    assert counted.unresolved_reasons == {
        "computed-name": 1,
        "external": 1,
        "not-callable": 1,
        "parameter": 2,
        "unknown-value": 1,
    }
    assert "why unresolved: " in render(counted)
