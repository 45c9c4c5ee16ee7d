"""The team operations whose library calls answer a bare value (True, None), as answers every
surface renders the same way: releasing a claim, ending a session, recording activity; reading
one session (GraphQL's claim holders); and the team at a glance (the dashboard's Team page)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartograph.agents import sessions as agents
from cartograph.agents.overlay import forget_session
from cartograph.model import AgentSession, ApiToken, Claim, Lesson
from cartograph.store.interfaces import Store

ACTIVITY_KINDS = ("read", "edit")
RECENT_ACTIVITY = 20  # a session's newest reads and edits shown


@dataclass(slots=True)
class Touch:
    repo: str
    path: str
    kind: str  # "read" or "edit"
    at: str


@dataclass(slots=True)
class SessionAtWork:
    session: AgentSession
    claims: list[Claim]
    recent: list[Touch]  # newest first, at most RECENT_ACTIVITY
    touched: int  # paths read or edited in all


@dataclass(slots=True)
class TeamView:
    sessions: list[SessionAtWork]  # live ones, last seen first
    claims: int
    lessons: list[Lesson] = field(default_factory=list)  # newest first


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
    forget_session(store, session)  # its overlay went with it: so does its resolved layer
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


def team_view(store: Store, repo: str | None = None, lessons: int = 20) -> TeamView:
    """Who is at work: every live session with its claims and its latest reads and edits
    (of one repository, or all), and the newest lessons."""
    held: dict[int, list[Claim]] = {}
    claims = agents.claims(store, repo)
    for claim in claims:
        held.setdefault(claim.session, []).append(claim)
    sessions = []
    for session in agents.live_sessions(store):
        trail = [
            Touch(r, path, "edit" if kind == "EDITED" else "read", at)
            for r, path, kind, at in store.team.session_activity(session.id)
            if repo is None or r == repo
        ]
        if repo is not None and not trail and session.id not in held:
            continue
        trail.reverse()
        sessions.append(
            SessionAtWork(session, held.get(session.id, []), trail[:RECENT_ACTIVITY], len(trail))
        )
    return TeamView(sessions, len(claims), agents.recall(store, None, "", lessons))
