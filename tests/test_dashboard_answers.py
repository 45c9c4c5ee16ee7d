"""The answers the dashboard added to the catalogue, on both stores: hot spots and co-change
clusters, a symbol's source, the team at a glance; and the GraphQL fields made from the
catalogue (same arguments, same bounds, same scopes as every other surface)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from cartograph.agents import sessions as agents
from cartograph.api.graphql import schema
from cartograph.auth import create_token
from cartograph.impact.source import symbol_source
from cartograph.index import index_repository
from cartograph.query.hotspots import hotspots
from cartograph.team import team_view
from history_support import ALICE, BOB, Repo, func, module


def index(store, root, name):
    return index_repository(store, root, name=name, workers=1)


def _billing(root) -> Repo:
    """pay.py and ledger.py change together three times (Alice, then Bob twice); tax.py,
    called by both, changes once more on its own; notes.py changes with nothing."""
    repo = Repo(root)
    repo.commit("start", ALICE, "2024-01-01", files={
        "billing/tax.py": module(func("rate", "return 0.2")),
        "billing/pay.py": module("from billing.tax import rate", func("pay", "return rate()")),
        "billing/ledger.py": module("from billing.tax import rate", func("book", "return rate() + 1")),
        "billing/notes.py": module(func("note", "return 'n'")),
    })  # fmt: skip
    for n, who in enumerate((ALICE, BOB, BOB)):
        repo.commit(f"together {n}", who, f"2024-02-0{n + 1}", files={
            "billing/pay.py": module("from billing.tax import rate", func("pay", f"return rate() + {n}")),
            "billing/ledger.py": module("from billing.tax import rate", func("book", f"return rate() + {n + 2}")),
        })  # fmt: skip
    repo.commit(
        "tax", BOB, "2024-03-01", files={"billing/tax.py": module(func("rate", "return 0.25"))}
    )
    return repo


def test_hot_spots_rank_churn_times_fan_in_and_clusters_group_what_changes_together(
    tmp_path, stores
):
    repo = _billing(tmp_path / "billing")
    store = stores.open()
    index(store, repo.root, "billing")
    found = hotspots(store, "billing")
    assert found.mined
    # tax.py: 2 commits times 2 calls in (pay, book); nothing calls pay.py, ledger.py or notes.py
    assert [(s.path, s.churn, s.fan_in, s.score) for s in found.spots] == [
        ("billing/tax.py", 2, 2, 4)
    ]
    assert [o.name for o in found.spots[0].owners] == [BOB[0], ALICE[0]]
    assert [(c.files, c.size, c.commits) for c in found.clusters] == [
        (["billing/ledger.py", "billing/pay.py"], 2, 4)
    ]
    # a pair must share min_count commits to join a cluster
    assert hotspots(store, "billing", min_count=5).clusters == []


def test_the_source_of_a_symbol_comes_from_its_work_tree_or_its_indexed_commit(tmp_path, stores):
    repo = _billing(tmp_path / "billing")
    store = stores.open()
    index(store, repo.root, "billing")
    source = symbol_source(store, "book")
    assert (source.start_line, source.commit, source.cut) == (3, "", False)
    assert source.lines == ["def book():", "    return rate() + 4"]
    # the file gone from the work tree: the same lines from the history at the indexed commit
    (repo.root / "billing/ledger.py").unlink()
    from_history = symbol_source(store, "book")
    assert from_history.commit == repo.head() == store.repos.get_repo("billing").indexed_sha
    assert from_history.lines == source.lines


def test_the_team_view_shows_live_sessions_with_claims_reads_and_lessons(tmp_path, stores):
    repo = _billing(tmp_path / "billing")
    store = stores.open()
    index(store, repo.root, "billing")
    working = agents.start_session(store, "alice-laptop", "raise the tax")
    agents.claim(store, working.id, "billing", "billing/tax.py", "edit")
    agents.record_read(store, working.id, "billing", "billing/pay.py")
    agents.record_edit(store, working.id, "billing", "billing/tax.py")
    agents.remember(store, working.id, "tax.py rounds half up", ["billing/tax.py"])
    idle = agents.start_session(store, "bob-ci", "nothing")
    ended = agents.start_session(store, "carol", "done")
    agents.end_session(store, ended.id)
    # a session silent for longer than the session lifetime is not at work
    stale = (datetime.now(UTC) - agents.SESSION_TTL - timedelta(minutes=1)).isoformat(
        timespec="seconds"
    )
    store.team.touch_session(idle.id, stale)

    view = team_view(store)
    assert [s.session.agent for s in view.sessions] == ["alice-laptop"]
    (at_work,) = view.sessions
    assert [(c.path, c.intent) for c in at_work.claims] == [("billing/tax.py", "edit")]
    assert {(t.path, t.kind) for t in at_work.recent} == {
        ("billing/pay.py", "read"),
        ("billing/tax.py", "edit"),
    }
    assert at_work.touched == 2
    assert view.claims == 1
    assert [lesson.text for lesson in view.lessons] == ["tax.py rounds half up"]
    assert team_view(store, repo="elsewhere").sessions == []


def _graphql(store, query: str, caller=None):
    context = {
        "store": lambda: store,
        "shared_store": lambda: store,
        "loaders": None,
        "traces": 0,
        "caller": caller,
        "session": None,
    }
    return asyncio.run(schema.execute(query, context_value=context))


def test_catalogue_fields_answer_as_rest_does_and_keep_their_bounds_and_scopes(tmp_path, stores):
    repo = _billing(tmp_path / "billing")
    store = stores.open()
    index(store, repo.root, "billing")
    found = _graphql(
        store,
        '{ hotspots(repo: "billing", first: 1) { spots { path } } source(name: "rate") { lines } }',
    )
    assert found.errors is None, found.errors
    assert found.data["hotspots"]["spots"][0]["path"] == "billing/tax.py"
    assert found.data["source"]["lines"] == ["def rate():", "    return 0.25"]

    too_many = _graphql(store, '{ hotspots(repo: "billing", first: 101) { repo } }')
    assert too_many.errors and "`first` is 1 to 100" in too_many.errors[0].message

    _, reader = create_token(store, "reader", ["read"])
    refused = _graphql(store, "{ team { claims } }", caller=reader)
    assert refused.errors and refused.errors[0].extensions["kind"] == "forbidden"
    _, teammate = create_token(store, "teammate", ["read", "claims"])
    assert _graphql(store, "{ team { claims } }", caller=teammate).data["team"]["claims"] == 0
