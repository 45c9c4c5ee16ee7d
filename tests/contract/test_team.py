"""TeamStore, and the rules of `cartograph.agents` over it, on both stores: exactly one of many
concurrent claimers wins (the store's compare-and-set), the others are told who holds the file,
claims end with their session or their TTL, re-claiming your own claim is fine; activity on any
path; lessons, and which of them apply to a path (folders included)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from cartograph.agents import sessions as agents
from cartograph.agents.lessons import lesson_keys
from cartograph.agents.sessions import AgentError
from cartograph.model import Claim, Repo

from contract.graphs import build, file_write, module_symbol


def with_repos(store, *names: str):
    """Claims name repositories the store knows: indexed (here: their records) or tracked."""
    for name in names:
        store.repos.upsert_repo(Repo(name=name))
    return store


@pytest.fixture
def store(stores):
    return with_repos(stores.open(), "shop", "billing", "other")


def test_a_claim_is_exclusive_and_explains_who_holds_it(store):
    alice = agents.start_session(store, "alice-laptop", "fix refund rounding")
    bob = agents.start_session(store, "bob-ci", "bump dependencies")
    won = agents.claim(store, alice.id, "shop", "api/payments.py")
    assert won.granted and won.claim.session == alice.id
    lost = agents.claim(store, bob.id, "shop", "api/payments.py")
    assert not lost.granted and lost.claim.session == alice.id
    assert lost.message.startswith(f"`api/payments.py` is being edited by session {alice.id}")
    assert "agent alice-laptop (task: fix refund rounding) since " in lost.message
    assert lost.message.endswith("Work on something else or wait.")
    # re-claiming your own claim renews it; other paths and repositories are free
    again = agents.claim(store, alice.id, "shop", "./api/payments.py")
    assert again.granted and again.claim.since == won.claim.since
    assert agents.claim(store, bob.id, "shop", "api/refunds.py").granted
    assert agents.claim(store, bob.id, "billing", "api/payments.py").granted
    listed = {(c.repo, c.path, c.session) for c in agents.claims(store)}
    assert listed == {
        ("shop", "api/payments.py", alice.id),
        ("shop", "api/refunds.py", bob.id),
        ("billing", "api/payments.py", bob.id),
    }
    assert [c.path for c in agents.claims(store, "billing")] == ["api/payments.py"]

    check = agents.check_edit(store, bob.id, "shop", "api/payments.py")
    assert not check.granted and "alice-laptop" in check.message
    assert agents.check_edit(store, alice.id, "shop", "api/payments.py").granted
    assert agents.check_edit(store, bob.id, "shop", "README.md").granted

    # released, the path can be taken; a session cannot release another's claim
    assert not agents.release(store, bob.id, "shop", "api/payments.py")
    assert agents.release(store, alice.id, "shop", "api/payments.py")
    assert agents.claim(store, bob.id, "shop", "api/payments.py").granted


def test_claims_end_with_their_session_or_their_ttl(store, monkeypatch):
    alice = agents.start_session(store, "alice", "refactor")
    bob = agents.start_session(store, "bob", "review")
    assert agents.claim(store, alice.id, "shop", "models.py").granted
    agents.end_session(store, alice.id)
    assert agents.claim(store, bob.id, "shop", "models.py").granted
    with pytest.raises(AgentError, match="expired"):
        agents.claim(store, alice.id, "shop", "other.py")

    # a heartbeat keeps the session and its claims alive (as it says), past CLAIM_TTL; a
    # claim whose session goes silent lapses with the session
    start = datetime.now(UTC)
    carol = agents.start_session(store, "carol", "tests")
    dave = agents.start_session(store, "dave", "docs")
    assert agents.claim(store, carol.id, "shop", "views.py").granted
    assert agents.claim(store, dave.id, "shop", "urls.py").granted
    for minutes in (10, 20, 31, 45, 58):  # bob and carol heartbeat; dave goes silent
        moment = start + timedelta(minutes=minutes)
        monkeypatch.setattr(agents, "_now", lambda moment=moment: moment)
        agents.heartbeat(store, bob.id)
        agents.heartbeat(store, carol.id)
    refused = agents.claim(store, bob.id, "shop", "views.py")
    assert not refused.granted and refused.claim.session == carol.id
    assert refused.claim.expires_at > (start + timedelta(minutes=58)).isoformat()
    # dave's session expired (silent for 15 minutes): his claim went with it
    assert agents.claim(store, bob.id, "shop", "urls.py").granted
    with pytest.raises(AgentError, match="expired"):
        agents.heartbeat(store, dave.id)
    # without heartbeats a claim still ends CLAIM_TTL after it was taken or renewed
    agents.release(store, carol.id, "shop", "views.py")
    assert agents.claim(store, carol.id, "shop", "views.py").granted
    for minutes in (59, 70, 80, 89):  # the sessions touched, the claims never renewed
        moment = start + timedelta(minutes=minutes)
        monkeypatch.setattr(agents, "_now", lambda moment=moment: moment)
        for session in (bob, carol):
            store.team.touch_session(session.id, moment.isoformat(timespec="seconds"))
    assert agents.claim(store, bob.id, "shop", "views.py").granted


def test_concurrent_claimers_exactly_one_wins(stores):
    setup = with_repos(stores.open(), "shop")
    sessions = [agents.start_session(setup, f"agent-{n}", f"task {n}") for n in range(20)]
    barrier = threading.Barrier(len(sessions))
    outcomes: list = []
    errors: list = []

    def attempt(session_id: int) -> None:
        store = stores.open()  # each claimer has its own connection, as agents do
        try:
            barrier.wait(timeout=30)
            outcomes.append(agents.claim(store, session_id, "shop", "api/payments.py"))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=attempt, args=(s.id,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    winners = [o for o in outcomes if o.granted]
    assert len(outcomes) == 20 and len(winners) == 1
    holder = winners[0].claim.session
    assert all(o.claim.session == holder for o in outcomes)
    assert [c.session for c in agents.claims(setup, "shop")] == [holder]


def test_activity_and_lessons(store):
    session = agents.start_session(store, "alice", "fix refund rounding")
    # one rule on every store: activity is recorded for a path the index does not hold (yet)
    assert agents.record_read(store, session.id, "shop", "api/payments.py") is True
    assert agents.record_edit(store, session.id, "shop", "api/payments.py") is True
    lesson = agents.remember(
        store,
        session.id,
        "Run `pytest tests/payments -q`; the full suite needs Redis.",
        ["api/payments.py", "api/"],
    )
    assert lesson.id > 0 and lesson.agent == "alice"
    other = agents.remember(
        store, session.id, "Money is Decimal, never float.", ["shop:money.py#Money"]
    )
    assert [found.id for found in agents.recall(store, ["api/payments.py"])] == [lesson.id]
    assert [found.id for found in agents.recall(store, ["api/refunds.py"])] == [
        lesson.id
    ]  # via "api/"
    assert [found.id for found in agents.recall(store, ["shop:money.py#Money"])] == [other.id]
    assert [found.id for found in agents.recall(store, text="decimal FLOAT")] == [other.id]
    assert {found.id for found in agents.recall(store)} == {lesson.id, other.id}
    with pytest.raises(AgentError):
        agents.remember(store, session.id, "   ", ["x"])


def test_bad_input(store):
    session = agents.start_session(store, "alice", "task")
    with pytest.raises(AgentError, match="climbs out"):
        agents.claim(store, session.id, "shop", "../etc/passwd")
    with pytest.raises(AgentError, match="intent"):
        agents.claim(store, session.id, "shop", "a.py", intent="'; DROP TABLE claims; --")
    with pytest.raises(AgentError, match="no session"):
        agents.claim(store, 987654, "shop", "a.py")
    with pytest.raises(AgentError, match="empty"):
        agents.start_session(store, "  ", "task")
    hostile = "x' OR 1=1 --\"}) MATCH (n) DETACH DELETE n //"
    with pytest.raises(AgentError, match="not a repository name"):
        agents.claim(store, session.id, hostile, "a.py")
    result = agents.claim(store, session.id, "shop", hostile)  # a strange, legal file name
    assert result.granted and result.claim.path == hostile.rstrip("/")


def test_lessons_come_back_with_the_context_of_what_they_are_about(tmp_path, stores):
    from cartograph.index import index_repository
    from cartograph.query import context
    from cartograph.render import render
    from sample_repo import make_sample_repo

    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    card = context(store, "Cart")
    session = agents.start_session(store, "alice", "cart totals")
    agents.remember(store, session.id, "Totals are rounded once, at the end.", [card.symbol.id])
    agents.remember(store, session.id, "This package's tests need no network.", ["shop/"])
    agents.remember(store, session.id, "Unrelated lesson.", ["docs/"])
    text = render(context(store, "Cart"))
    assert "lessons left by agents (2):" in text
    assert "Totals are rounded once" in text and "need no network" in text
    assert "Unrelated" not in text


# ---------------------------------------------------------------- the store's primitives


def _claim(session, path="api/payments.py", since="2026-01-01T00:00:00+00:00") -> Claim:
    return Claim("shop", path, session.id, "edit", since, "2026-01-01T00:30:00+00:00")


def test_put_claim_is_a_compare_and_set_on_the_version_read(store):
    alice = store.team.create_session("alice", "task", "2026-01-01T00:00:00+00:00")
    bob = store.team.create_session("bob", "task", "2026-01-01T00:00:00+00:00")
    assert store.team.current_claim("shop", "api/payments.py") is None
    assert store.team.put_claim(_claim(alice), expected=None)
    assert not store.team.put_claim(_claim(bob), expected=None)  # it is no longer absent
    held = store.team.current_claim("shop", "api/payments.py")
    assert (held.claim.session, held.claim.agent, held.holder.id) == (alice.id, "alice", alice.id)
    assert store.team.put_claim(_claim(bob, since="later"), expected=held.version)
    assert not store.team.put_claim(_claim(alice), expected=held.version)  # a stale version
    now = store.team.current_claim("shop", "api/payments.py")
    assert (now.claim.session, now.claim.since) == (bob.id, "later")
    assert now.version != held.version
    assert store.team.release_path("shop", "api/payments.py", bob.id)
    # a write that read the released claim changes nothing, and leaves nothing behind
    assert not store.team.put_claim(_claim(alice), expected=now.version)
    assert store.team.current_claim("shop", "api/payments.py") is None
    assert store.team.claims(None) == []


def test_of_concurrent_compare_and_sets_on_one_state_exactly_one_succeeds(stores):
    setup = stores.open()
    sessions = [
        setup.team.create_session(f"agent-{n}", "task", "2026-01-01T00:00:00+00:00")
        for n in range(20)
    ]
    barrier = threading.Barrier(len(sessions))
    outcomes: list[bool] = []
    errors: list[Exception] = []

    def attempt(session) -> None:
        store = stores.open()  # a connection of its own, as another process would have
        try:
            barrier.wait(timeout=30)
            outcomes.append(store.team.put_claim(_claim(session), expected=None))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=attempt, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(outcomes) == [False] * 19 + [True]
    (stored,) = setup.team.claims("shop")
    assert stored.claim.session in {s.id for s in sessions}


def test_stored_claims_are_listed_in_force_or_not_and_the_rule_picks(store, monkeypatch):
    alice = agents.start_session(store, "alice", "task")
    assert agents.claim(store, alice.id, "shop", "b.py").granted
    assert agents.claim(store, alice.id, "shop", "a.py").granted
    assert agents.claim(store, alice.id, "other", "a.py").granted
    assert [(c.claim.repo, c.claim.path) for c in store.team.claims(None)] == [
        ("other", "a.py"),
        ("shop", "a.py"),
        ("shop", "b.py"),
    ]
    later = datetime.now(UTC) + timedelta(hours=1)  # every claim lapsed, still stored
    monkeypatch.setattr(agents, "_now", lambda: later)
    assert len(store.team.claims("shop")) == 2
    assert agents.claims(store, "shop") == []


def test_activity_is_recorded_for_indexed_and_unindexed_paths_alike(store):
    build(
        store,
        "shop",
        [file_write("shop", "api/payments.py", [module_symbol("shop", "api/payments.py")])],
    )
    session = store.team.create_session("alice", "task", "2026-01-01T00:00:00+00:00")
    assert store.team.record_activity(
        session.id, "shop", "api/payments.py", "READ", "2026-01-01T00:01:00+00:00"
    )
    assert store.team.record_activity(
        session.id, "shop", "api/new_file.py", "EDITED", "2026-01-01T00:02:00+00:00"
    )
    assert store.team.record_activity(
        session.id, "shop", "api/payments.py", "READ", "2026-01-01T00:03:00+00:00"
    )
    assert store.team.session_activity(session.id) == [
        ("shop", "api/new_file.py", "EDITED", "2026-01-01T00:02:00+00:00"),
        ("shop", "api/payments.py", "READ", "2026-01-01T00:03:00+00:00"),
    ]
    assert not store.team.record_activity(
        987654, "shop", "a.py", "READ", "2026-01-01T00:00:00+00:00"
    )
    with pytest.raises(ValueError):
        store.team.record_activity(session.id, "shop", "a.py", "WROTE", "2026-01-01T00:00:00+00:00")


def test_the_store_matches_lesson_keys_exactly(store):
    session = store.team.create_session("alice", "task", "2026-01-01T00:00:00+00:00")
    folder = store.team.add_lesson(
        session.id, "alice", "Folder rule.", "lesson", ["shop/"], "2026-01-01T00:01:00+00:00"
    )
    exact = store.team.add_lesson(
        session.id, "alice", "File rule.", "lesson", ["shop/a.py"], "2026-01-01T00:02:00+00:00"
    )
    assert [lesson.id for lesson in store.team.find_lessons(["shop/a.py"], [], 10)] == [exact.id]
    assert [lesson.id for lesson in store.team.find_lessons(["shop/a.py", "shop/"], [], 10)] == [
        exact.id,
        folder.id,
    ]
    assert [lesson.id for lesson in store.team.find_lessons([], ["FOLDER"], 10)] == [folder.id]
    assert [lesson.id for lesson in store.team.find_lessons([], ["rule."], 1)] == [
        exact.id
    ]  # newest first
    assert store.team.find_lessons(["shop"], [], 10) == []


def test_which_lessons_apply_to_a_target():
    assert lesson_keys(["shop/payments.py"]) == ["shop/", "shop/payments.py"]
    assert lesson_keys(["repo:shop/api/pay.py#shop.api.pay.refund"]) == [
        "repo:shop/",
        "repo:shop/api/",
        "repo:shop/api/pay.py#shop.api.pay.refund",
        "shop/",
        "shop/api/",
    ]
    assert lesson_keys(["shop/", "", "shop/"]) == ["shop/"]


def test_a_lesson_about_a_folder_counts_for_what_is_in_it(store):
    session = agents.start_session(store, "alice", "task")
    folder = agents.remember(store, session.id, "Payments need a ledger entry.", ["shop/"])
    scoped = agents.remember(store, session.id, "Run the shop's own tests.", ["repo:shop/api/"])
    other = agents.remember(store, session.id, "Not about shop.", ["shopping/"])

    def found(*about):
        return {lesson.id for lesson in agents.recall(store, list(about))}

    assert found("shop/payments.py") == {folder.id}
    assert found("repo:shop/payments.py") == {folder.id}
    assert found("repo:shop/api/pay.py#shop.api.pay.refund") == {folder.id, scoped.id}
    assert found("shopping/cart.py") == {other.id}
    assert found("lib/shop/x.py") == set()
    assert found("shop") == set()
