"""The team operations whose library calls answer a bare value (True, None), as answers every
surface renders the same way: releasing a claim, ending a session, recording activity; and
reading one session (GraphQL's claim holders)."""

from __future__ import annotations

from dataclasses import dataclass

from cartograph.agents import sessions as agents
from cartograph.model import AgentSession, ApiToken
from cartograph.store.interfaces import Store

ACTIVITY_KINDS = ("read", "edit")


@dataclass(slots=True)
class Release:
    session: int
    repo: str
    path: str
    released: bool  # False: the session held no claim on the path


@dataclass(slots=True)
class Activity:
    session: int
    repo: str
    path: str
    kind: str  # "read" or "edit"
    recorded: bool  # False: the path is not an indexed file (nothing to leave a trail on)


def release(
    store: Store, session: int, repo: str, path: str, caller: ApiToken | None = None
) -> Release:
    return Release(session, repo, path, agents.release(store, session, repo, path, caller))


def end_session(store: Store, session: int, caller: ApiToken | None = None) -> AgentSession:
    """End a session (its claims end with it); the ended session."""
    agents.end_session(store, session, caller)
    ended = store.team.get_session(session)
    assert ended is not None  # live_session found it a moment ago; sessions are never deleted
    return ended


def record_activity(
    store: Store, session: int, repo: str, path: str, kind: str, caller: ApiToken | None = None
) -> Activity:
    """Leave the session's READ or EDITED trail on a file."""
    record = agents.record_read if kind == "read" else agents.record_edit
    return Activity(session, repo, path, kind, record(store, session, repo, path, caller))


def session_by_id(store: Store, session_id: int) -> AgentSession | None:
    return store.team.get_session(session_id)
