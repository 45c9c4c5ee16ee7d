"""Agent sessions, file claims, activity and lessons — so two agents never edit the same file
blind.

- `start_session(agent, task)` opens a session; `heartbeat` keeps it alive; a session silent for
  SESSION_TTL (15 min) has expired, and its claims with it.
- `claim(session, repo, path, intent)` is atomic on both stores: among any number of concurrent
  claimers of a path exactly one holds it; the others are told who holds it, for what and since
  when. A claim lasts CLAIM_TTL (30 min) unless claimed again (re-claiming your own claim
  renews it), released, or its session expires or ends. When a claim is in force is decided
  in `agents/claims.py`, over the store's compare-and-set.
- `check_edit` answers "may I edit this path now?"; `record_read` / `record_edit` leave the
  session's READ/EDITED trail (an edit of a file another session holds is refused) — on any path, indexed or not (an agent reads and creates files
  the index does not hold yet); `remember` stores a lesson about paths or symbols, `recall`
  brings lessons back (which apply to a path: `agents/lessons.py`).
- A session belongs to the token that opened it (`caller`): only that token, or an admin, may
  heartbeat, end, claim, release, check, record or remember in it; without a token (on this
  machine) every session is yours. `heartbeat` keeps the session *and its claims* alive.
- Paths and repository names have one normal form (`cartograph.names`): `a//b.py`, `a/./b.py`
  and `a\\b.py` are one file, and claims name repositories that are indexed or tracked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cartograph.agents.claims import active_claims, in_force, take
from cartograph.agents.lessons import lesson_keys, normal_target
from cartograph.errors import CartographError, ErrorKind, Forbidden, Invalid, NotFound
from cartograph.model import AgentSession, ApiToken, Claim, Lesson
from cartograph.names import repo_name, repo_path
from cartograph.store.interfaces import Store

SESSION_TTL = timedelta(minutes=15)
CLAIM_TTL = timedelta(minutes=30)
INTENTS = ("edit", "refactor", "review", "test")
MAX_TEXT = 4000
MAX_SESSION_ID = 2**53  # ids are counters; anything larger is not one (and fits no store)
MAX_RECALL_WORDS = 100


class AgentError(CartographError):
    """An unknown (not found) or expired (conflict) session, a bad path, or a lesson without
    text (invalid)."""


@dataclass(slots=True)
class ClaimResult:
    granted: bool
    claim: Claim  # the claim in force: yours when granted, the holder's otherwise
    message: str


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _clean(text: str, what: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    if not text:
        raise AgentError(f"{what} is empty")
    return text[:limit]


def _path(path: str) -> str:
    try:
        return repo_path(path)
    except Invalid as exc:
        raise AgentError(str(exc)) from None


def known_repo(store: Store, repo: str) -> str:
    """`repo` in its normal form when the store knows it (indexed or tracked), else NotFound
    naming the ones it does know (`Small` when there is `small`)."""
    try:
        name = repo_name(repo)
    except Invalid as exc:
        raise AgentError(str(exc)) from None
    if store.repos.get_repo(name) is not None or store.tracking.get_tracked(name) is not None:
        return name
    known = sorted({r.name for r in store.repos.list_repos()} |
                   {t.name for t in store.tracking.tracked_repos()})  # fmt: skip
    alike = [k for k in known if k.lower() == name.lower()]
    hint = f" (did you mean {alike[0]!r}?)" if alike else ""
    listed = ", ".join(known) or "none"
    raise NotFound(f"no repository named {name!r}{hint}; known: {listed}")


def start_session(
    store: Store, agent: str, task: str, caller: ApiToken | None = None
) -> AgentSession:
    now = _stamp(_now())
    owner = caller.name if caller is not None else ""
    # the overlays of sessions that ended or expired are of no one's use any more
    store.team.drop_stale_overlays(_stamp(_now() - SESSION_TTL))
    return store.team.create_session(_clean(agent, "agent"), _clean(task, "task", 500), now, owner)


def may_act(session: AgentSession, caller: ApiToken | None) -> None:
    """Forbidden unless `caller` may act in the session: the token that opened it, an admin,
    or a call without a token (this machine's own user: the CLI, MCP over stdio)."""
    if caller is None or "admin" in caller.scopes or caller.name == session.owner:
        return
    raise Forbidden(
        f"session {session.id} belongs to another token: start a session of your own "
        "(an admin token may act in any)"
    )


def live_session(store: Store, session_id: int, caller: ApiToken | None = None) -> AgentSession:
    if not isinstance(session_id, int) or not 0 < session_id <= MAX_SESSION_ID:
        raise AgentError(
            f"there is no session {session_id}: start one with start_session", ErrorKind.NOT_FOUND
        )
    session = store.team.get_session(session_id)
    if session is None:
        raise AgentError(
            f"there is no session {session_id}: start one with start_session", ErrorKind.NOT_FOUND
        )
    may_act(session, caller)
    if session.ended_at or session.last_seen <= _stamp(_now() - SESSION_TTL):
        raise AgentError(f"session {session_id} has expired: start a new one", ErrorKind.CONFLICT)
    return session


def live_sessions(store: Store) -> list[AgentSession]:
    """The sessions not ended nor expired, last seen first."""
    return store.team.live_sessions(_stamp(_now() - SESSION_TTL))


def heartbeat(store: Store, session_id: int, caller: ApiToken | None = None) -> AgentSession:
    """Keep the session alive, and its claims with it: each claim's expiry moves to a full
    CLAIM_TTL from now."""
    live_session(store, session_id, caller)
    now = _now()
    store.team.touch_session(int(session_id), _stamp(now))
    store.team.renew_claims(int(session_id), _stamp(now + CLAIM_TTL))
    return live_session(store, session_id, caller)


def end_session(store: Store, session_id: int, caller: ApiToken | None = None) -> None:
    live_session(store, session_id, caller)
    store.team.end_session(int(session_id), _stamp(_now()))


def claim(
    store: Store,
    session_id: int,
    repo: str,
    path: str,
    intent: str = "edit",
    caller: ApiToken | None = None,
) -> ClaimResult:
    session = live_session(store, session_id, caller)
    repo = known_repo(store, repo)
    if intent not in INTENTS:
        raise AgentError(f"intent {intent!r}: one of {', '.join(INTENTS)}")
    now = _now()
    store.team.touch_session(session.id, _stamp(now))
    granted, held = take(
        store.team,
        session,
        repo,
        _path(path),
        intent,
        now=_stamp(now),
        expires_at=_stamp(now + CLAIM_TTL),
        alive_after=_stamp(now - SESSION_TTL),
    )
    if granted:
        return ClaimResult(True, held, f"{held.path} is yours ({intent}) until {held.expires_at}.")
    return ClaimResult(False, held, busy_message(held))


def busy_message(held: Claim) -> str:
    since = held.since[11:16] if len(held.since) >= 16 else held.since
    return (
        f"`{held.path}` is being {'edited' if held.intent == 'edit' else held.intent + 'ed'} "
        f"by session {held.session} of agent {held.agent} (task: {held.task}) since {since}. "
        "Work on something else or wait."
    )


def release(
    store: Store, session_id: int, repo: str, path: str, caller: ApiToken | None = None
) -> bool:
    live_session(store, session_id, caller)
    return store.team.release_path(known_repo(store, repo), _path(path), int(session_id))


def claims(store: Store, repo: str | None = None) -> list[Claim]:
    """The claims in force (of one repository), by repository and path."""
    now = _now()
    return active_claims(store.team.claims(repo), _stamp(now), _stamp(now - SESSION_TTL))


def check_edit(
    store: Store, session_id: int, repo: str, path: str, caller: ApiToken | None = None
) -> ClaimResult:
    """May this session edit the path now? Yes when nobody else holds it (a claim is still
    advised); no, with the holder, when another live session does."""
    session = live_session(store, session_id, caller)
    repo = known_repo(store, repo)
    path = _path(path)
    now = _now()
    stored = store.team.current_claim(repo, path)
    if stored is not None and in_force(stored, _stamp(now), _stamp(now - SESSION_TTL)):
        held = stored.claim
        if held.session != session.id:
            return ClaimResult(False, held, busy_message(held))
        return ClaimResult(True, held, f"{path} is yours until {held.expires_at}.")
    free = Claim(repo, path, 0, "", "", "", "", "")
    return ClaimResult(True, free, f"nobody holds {path}: claim it before you edit.")


def record_read(
    store: Store, session_id: int, repo: str, path: str, caller: ApiToken | None = None
) -> bool:
    return _record(store, session_id, repo, path, "READ", caller)


def record_edit(
    store: Store, session_id: int, repo: str, path: str, caller: ApiToken | None = None
) -> bool:
    """Leave the EDITED trail — refused (a conflict naming the holder) when another live
    session holds the file: claims hold even where a harness runs no hooks (subagents)."""
    allowed = check_edit(store, session_id, repo, path, caller)
    if not allowed.granted:
        raise AgentError(allowed.message, ErrorKind.CONFLICT)
    return _record(store, session_id, repo, path, "EDITED", caller)


def _record(
    store: Store, session_id: int, repo: str, path: str, kind: str, caller: ApiToken | None
) -> bool:
    live_session(store, session_id, caller)
    repo = known_repo(store, repo)
    return store.team.record_activity(int(session_id), repo, _path(path), kind, _stamp(_now()))


def remember(
    store: Store,
    session_id: int,
    text: str,
    about: list[str],
    kind: str = "lesson",
    caller: ApiToken | None = None,
) -> Lesson:
    session = live_session(store, session_id, caller)
    targets = sorted({normal_target(t) for t in about if t and t.strip()})[:50]
    return store.team.add_lesson(
        session.id,
        session.agent,
        _clean(text, "a lesson", MAX_TEXT),
        _clean(kind, "kind", 40),
        targets,
        _stamp(_now()),
    )


def recall(
    store: Store, about: list[str] | None = None, text: str = "", limit: int = 20
) -> list[Lesson]:
    """Lessons about these paths or symbols (a lesson about a folder counts for what is in it),
    or whose text has these words; newest first."""
    limit = max(1, min(int(limit), 200))
    words = list(dict.fromkeys(text.lower().split()))
    if len(words) > MAX_RECALL_WORDS:
        raise AgentError(f"recall matches at most {MAX_RECALL_WORDS} words ({len(words)} given)")
    targets = [normal_target(t) for t in about or [] if t and t.strip()]
    return store.team.find_lessons(lesson_keys(targets), words, limit)
