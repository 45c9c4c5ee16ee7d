"""A session's overlay: the files an agent session edited and has not pushed, which that
session's queries see in place of the shared graph's and no other session sees.

On the team server an agent's edits must never change what the others see, yet the agent
itself should find the function it just wrote. So the post-edit hook (or an agent, with the
`overlay_edit` tool) sends the file's new text: it is recorded as an edit (refused when another
session holds the file, as `record_edit` is) and kept under the session (`TeamStore`). A read
made in the session (`session_view`: REST `?session=` or the `X-Cartograph-Session` header,
GraphQL and MCP alike) answers over `store.overlay.OverlayGraph`: the overlaid files resolved
against the stored repository, as an index run would write them, in place of the stored ones.

An overlaid file stops counting once the shared graph holds the same text (the session's push
was indexed); the overlay is dropped when the session ends, on `overlay_drop`, and with the
sessions that expired."""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from cartograph.agents.sessions import (
    SESSION_TTL,
    AgentError,
    _now,
    _stamp,
    known_repo,
    live_session,
    live_sessions,
    may_act,
    record_edit,
)
from cartograph.agents.sessions import _path as session_path
from cartograph.discover import DEFAULT_MAX_BYTES
from cartograph.errors import ErrorKind
from cartograph.index.whatif import Budget, OverBudget
from cartograph.model import AgentSession, ApiToken, FileWrite, OverlayFile, split_symbol_id
from cartograph.store.interfaces import Store
from cartograph.store.overlay import Layer, OverlayGraph, layer_of

MAX_OVERLAY_FILES = 500  # files one session may overlay
MAX_FILE_BYTES = DEFAULT_MAX_BYTES  # one overlaid file: what the index reads of a file
MAX_SESSION_BYTES = 4 << 20  # the text one session overlays, all files together
MAX_TOKEN_BYTES = 16 << 20  # the text a token's live sessions overlay, all together
LAYER_SECONDS = 30.0  # resolving a session's overlay for its first read
LAYER_WEIGHT = 128 << 20  # what a session's resolved overlay may hold in memory, about
CACHE_WEIGHT = 256 << 20  # resolved overlays kept in memory (the most recently used first)


@dataclass(slots=True)
class OverlayDropped:
    session: int
    files: int  # how many files the overlay held


def overlay_edit(
    store: Store,
    session_id: int,
    repo: str,
    path: str,
    content: str | None = None,
    deleted: bool = False,
    caller: ApiToken | None = None,
) -> OverlayFile:
    """Record the session's edit of a file and keep its new text (`deleted`: the file is gone)
    in the session's overlay. Refused when another live session holds the file."""
    if deleted == (content is not None):
        raise AgentError("give the file's new `content`, or `deleted` when the edit removed it")
    session = live_session(store, session_id, caller)  # the caller's own, before its files
    repo = known_repo(store, repo)
    path = session_path(path)
    data = content.encode("utf-8", "surrogateescape") if content is not None else None
    _check_budget(store, session, repo, path, len(data) if data is not None else 0)
    record_edit(store, session_id, repo, path, caller)
    return store.team.put_overlay(int(session_id), repo, path, data, _stamp(_now()))


def _check_budget(store: Store, session: AgentSession, repo: str, path: str, size: int) -> None:
    """Refuse an edit that would take the session past MAX_OVERLAY_FILES files or any of the
    byte budgets (the file's, the session's, its token's over the token's live sessions)."""
    held = store.team.overlay_files(session.id)
    if (repo, path) not in {(f.repo, f.path) for f in held} and len(held) >= MAX_OVERLAY_FILES:
        raise AgentError(
            f"session {session.id} already overlays {MAX_OVERLAY_FILES} files: push your work "
            "(or drop the overlay) before editing more",
            ErrorKind.CONFLICT,
        )
    if size > MAX_FILE_BYTES:
        raise AgentError(
            f"{repo}:{path} has {size:,} bytes: an overlaid file holds at most "
            f"{MAX_FILE_BYTES:,} (the index reads no larger file either)",
            ErrorKind.TOO_LARGE,
        )

    def others(files: list[OverlayFile]) -> int:
        return sum(
            f.size for f in files if (f.repo, f.path) != (repo, path) or f.session != session.id
        )

    in_session = others(held) + size
    if in_session > MAX_SESSION_BYTES:
        raise AgentError(
            f"session {session.id} would overlay {in_session:,} bytes: a session overlays at "
            f"most {MAX_SESSION_BYTES:,}; push your work (or drop the overlay) first",
            ErrorKind.TOO_LARGE,
        )
    siblings = [s for s in live_sessions(store) if s.owner == session.owner and s.id != session.id]
    in_token = in_session + sum(others(store.team.overlay_files(s.id)) for s in siblings)
    if in_token > MAX_TOKEN_BYTES:
        who = f"token {session.owner!r}" if session.owner else "this machine's user"
        raise AgentError(
            f"the sessions of {who} would overlay {in_token:,} bytes: together they overlay at "
            f"most {MAX_TOKEN_BYTES:,}; push or drop the overlays of other sessions first",
            ErrorKind.TOO_LARGE,
        )


def overlay_files(
    store: Store, session_id: int, caller: ApiToken | None = None
) -> list[OverlayFile]:
    """The files of the session's overlay (its own versions of them, not yet pushed)."""
    live_session(store, session_id, caller)
    return store.team.overlay_files(int(session_id))


def drop_overlay(store: Store, session_id: int, caller: ApiToken | None = None) -> OverlayDropped:
    """Forget the session's overlay: its queries see the shared graph again."""
    live_session(store, session_id, caller)
    dropped = store.team.drop_overlay(int(session_id))
    forget_session(store, int(session_id))
    return OverlayDropped(session_id, dropped)


def session_view(store: Store, session_id: int | None, caller: ApiToken | None = None) -> Store:
    """The store as the session sees it: its overlay over the shared graph. The store itself
    without a session, when the session ended or expired (its overlay went with it) or holds
    nothing; Forbidden when the session is another token's."""
    if session_id is None:
        return store
    session = store.team.get_session(int(session_id))
    if session is None:
        raise AgentError(
            f"there is no session {session_id}: start one with start_session", ErrorKind.NOT_FOUND
        )
    may_act(session, caller)
    if session.ended_at or session.last_seen <= _stamp(_now() - SESSION_TTL):
        forget_session(store, session.id)
        return store
    files = store.team.overlay_files(session.id)
    if not files:
        forget_session(store, session.id)
        return store
    layers = _layers(store, session.id, files)
    if not layers:
        return store
    return replace(store, graph=OverlayGraph(store.graph, layers))


@dataclass(slots=True)
class _Resolved:
    """A session's overlay resolved (its layers, what they hold about), or the reason it could
    not be within its budget (kept, so a read that repeats it answers at once)."""

    layers: dict[str, Layer]
    weight: int
    refused: str = ""


class _LayerCache:
    """Sessions' resolved overlays, the most recently used first, evicted by weight past
    CACHE_WEIGHT; a session's go when its overlay is dropped or the session ends."""

    def __init__(self) -> None:
        self.entries: OrderedDict[tuple, _Resolved] = OrderedDict()
        self.weight = 0
        self.lock = threading.Lock()

    def get(self, key: tuple) -> _Resolved | None:
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
            return found

    def put(self, key: tuple, resolved: _Resolved) -> None:
        with self.lock:
            self._drop([k for k in self.entries if k[:2] == key[:2]])  # the session's older
            self.entries[key] = resolved
            self.weight += resolved.weight
            while self.weight > CACHE_WEIGHT and len(self.entries) > 1:
                self._drop([next(iter(self.entries))])

    def forget(self, url: str, session: int) -> None:
        with self.lock:
            self._drop([k for k in self.entries if k[:2] == (url, session)])

    def _drop(self, keys: list[tuple]) -> None:
        for key in keys:
            self.weight -= self.entries.pop(key).weight


_cache = _LayerCache()


def forget_session(store: Store, session: int) -> None:
    """Let go of the session's resolved overlay held in this process."""
    _cache.forget(store.url, session)


def cached_weight(store: Store, session: int | None = None) -> int:
    """What this process holds of resolved overlays, about (of one session's: `session`)."""
    with _cache.lock:
        return sum(
            entry.weight
            for key, entry in _cache.entries.items()
            if key[0] == store.url and (session is None or key[1] == session)
        )


def _layers(store: Store, session: int, files: list[OverlayFile]) -> dict[str, Layer]:
    """The session's files resolved, by repository (cached while neither they, nor the stored
    versions of those files, nor the repositories' last index run change). Refused, with
    TOO_LARGE, when resolving them takes longer than LAYER_SECONDS or would hold more than
    LAYER_WEIGHT."""
    indexed = []
    for name in sorted({f.repo for f in files}):
        record = store.repos.get_repo(name)
        stored = store.graph.files(name, [f.path for f in files if f.repo == name])
        shas = tuple(sorted((path, r.sha256) for path, r in stored.items()))
        indexed.append((name, record.indexed_sha, record.indexed_at, shas) if record else (name,))
    key = (
        store.url,
        session,
        tuple((f.repo, f.path, f.sha256, f.gone) for f in files),
        tuple(indexed),
    )
    resolved = _cache.get(key)
    if resolved is None:
        budget = Budget(LAYER_SECONDS, LAYER_WEIGHT)
        try:
            layers = _resolve_layers(store, session, files, budget)
        except OverBudget as exc:
            size = sum(f.size for f in files)
            resolved = _Resolved(
                {},
                0,
                f"the overlay of session {session} ({len(files)} files, {size:,} bytes) {exc}: "
                "push your work (or drop the overlay) to read again",
            )
        else:
            resolved = _Resolved(layers, budget.weight)
        _cache.put(key, resolved)
    if resolved.refused:
        raise AgentError(resolved.refused, ErrorKind.TOO_LARGE)
    return resolved.layers


def _resolve_layers(
    store: Store, session: int, files: list[OverlayFile], budget: Budget | None = None
) -> dict[str, Layer]:
    from cartograph.index.whatif import Versions

    contents = store.team.overlay_contents(session)
    layers: dict[str, Layer] = {}
    for repo in sorted({f.repo for f in files}):
        if store.repos.get_repo(repo) is None:
            continue  # tracked, not indexed yet: nothing to overlay
        states = store.index.file_states(repo)
        changed: dict[str, bytes | None] = {}
        for f in files:
            if f.repo != repo:
                continue
            stored = states.get(f.path)
            if f.gone and stored is None:
                continue  # gone from the shared graph too
            if not f.gone and stored is not None and stored.sha256 == f.sha256:
                continue  # the shared graph caught up (the session's push was indexed)
            changed[f.path] = contents.get((repo, f.path))
        if not changed:
            continue
        versions = Versions(store, repo, changed, states, budget)
        gone = {path for path, data in changed.items() if data is None}
        writes = versions.writes()
        layers[repo] = layer = layer_of(repo, writes, gone)
        _add_services(store, layer, writes)
    return layers


def _add_services(store: Store, layer: Layer, writes: list[FileWrite]) -> None:
    """The services stage's part of the overlaid files (docs/services.md): the routes they
    declare with their ROUTES_TO edges, and the HTTP_CALLS of the requests they send, as the
    stage would list them with these versions. Routes of other files stay the stored ones (a
    prefix an overlaid mount changes shows once indexed), and so do the requests of other
    files: a route the edit moves loses them, as it would."""
    from cartograph.index.services import (
        file_rows,
        route_edge,
        route_symbol,
        services_as_changed,
        with_changed_rows,
    )

    stored = file_rows(store, layer.repo)
    changed: dict[str, list | None] = dict.fromkeys(layer.paths)
    changed.update((w.record.path, marshal.loads(w.http) if w.http else None) for w in writes)
    if not any(changed.values()) and not set(changed) & set(stored):
        return  # nothing of HTTP here, before or after
    routes, calls = services_as_changed(store, layer.repo, with_changed_rows(stored, changed))
    declared = [c for c in routes if c.path in layer.paths]
    sent = [e for e in calls if split_symbol_id(e.src)[1] in layer.paths]
    layer.add(
        [route_symbol(c) for c in declared],
        [route_edge(c) for c in declared if c.route.handler] + sent,
        {},
    )
