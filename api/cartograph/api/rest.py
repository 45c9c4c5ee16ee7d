"""REST routes over the query library and the agent tools (`/api/v1/…`): thin adapters, each
answer the same data the CLI's `--json` prints. Lists take `limit` (1 to 200) and an opaque
`cursor`, and answer `next_cursor` (null on the last page). Errors are RFC 9457
`application/problem+json`.

Scopes: queries need `read`; sessions, claims and lessons need `claims`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Annotated, Any

from cartograph.agents import sessions as agents
from cartograph.model import ApiToken
from cartograph.query import (
    QueryError,
    SymbolNotFound,
    callees,
    callers,
    context,
    dead_code,
    overview,
    path,
    search,
    stats,
    to_data,
    trace,
)
from cartograph.query.common import RepoNotFound
from cartograph.query.history import co_changes, explain, history, owners
from cartograph.store.interfaces import Store
from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field

MAX_LIMIT = 200


def encode_cursor(offset: int | None) -> str | None:
    return None if offset is None else base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        if text.startswith("o:") and text[2:].isdigit():
            return int(text[2:])
    except (ValueError, UnicodeError):
        pass
    raise HTTPException(400, "the cursor is not one this API gave out")


def _page(answer: Any, next_offset: int | None) -> dict:
    data = to_data(answer)
    data.pop("next_offset", None)
    data["next_cursor"] = encode_cursor(next_offset)
    return data


class NewSession(BaseModel):
    agent: str = Field(min_length=1, max_length=200)
    task: str = Field(min_length=1, max_length=500)


class ClaimRequest(BaseModel):
    session: int = Field(ge=1, le=2**53)
    repo: str = Field(min_length=1, max_length=200)
    path: str = Field(min_length=1, max_length=1000)
    intent: str = "edit"


class ActivityRequest(BaseModel):
    session: int = Field(ge=1, le=2**53)
    repo: str = Field(min_length=1, max_length=200)
    path: str = Field(min_length=1, max_length=1000)
    kind: str = Field(pattern="^(read|edit)$")


class LessonRequest(BaseModel):
    session: int = Field(ge=1, le=2**53)
    text: str = Field(min_length=1, max_length=4000)
    about: list[str] = Field(default_factory=list, max_length=50)
    kind: str = "lesson"


def _files(store: Store, repo: str, under: str | None) -> list:
    if store.repos.get_repo(repo) is None:
        raise RepoNotFound(repo, [r.name for r in store.repos.list_repos()])
    return sorted(store.graph.files(repo, under=under).values(), key=lambda f: f.path)


def build_router(
    store: Callable[[], Store], caller: Callable[[Request], ApiToken | None]
) -> APIRouter:
    from cartograph.auth import AuthError, require

    def scoped(scope: str):
        def check(request: Request) -> None:
            try:
                require(caller(request), scope)
            except AuthError as exc:
                raise HTTPException(exc.status, str(exc), {"WWW-Authenticate": "Bearer"}) from exc

        return Depends(check)

    read = APIRouter(prefix="/api/v1", tags=["queries"], dependencies=[scoped("read")])
    team = APIRouter(prefix="/api/v1", tags=["agents"], dependencies=[scoped("claims")])

    def ask(fn: Callable[[Store], Any]) -> Any:
        try:
            return fn(store())
        except (SymbolNotFound, RepoNotFound) as exc:
            raise HTTPException(404, str(exc)) from exc
        except QueryError as exc:
            raise HTTPException(400, str(exc)) from exc

    def act(fn: Callable[[Store], Any]) -> Any:
        try:
            return fn(store())
        except agents.AgentError as exc:
            status = 404 if "no session" in str(exc) else 409 if "expired" in str(exc) else 400
            raise HTTPException(status, str(exc)) from exc

    limit_q = Query(20, ge=1, le=MAX_LIMIT)

    @read.get("/search")
    def search_symbols(
        q: str = Query(min_length=1, max_length=500),
        repo: str | None = None,
        kind: str | None = None,
        limit: int = limit_q,
        cursor: str | None = None,
    ) -> dict:
        """Symbols by name or concept, ranked."""
        kinds = [k for k in (kind or "").split(",") if k] or None
        found = ask(lambda g: search(g, q, repo, kinds, limit, decode_cursor(cursor)))
        return _page(found, found.next_offset)

    def neighbor_route(direction: str, lookup) -> None:
        @read.get(f"/symbols/{{symbol:path}}/{direction}", name=f"symbol_{direction}")
        def route(
            symbol: str,
            repo: str | None = None,
            references: bool = False,
            limit: int = limit_q,
            cursor: str | None = None,
        ) -> dict:
            """Who calls the symbol (callers) or what it calls (callees), a page at a time."""
            page = ask(
                lambda g: lookup(
                    g,
                    symbol,
                    repo=repo,
                    limit=limit,
                    offset=decode_cursor(cursor),
                    include_references=references,
                )
            )
            return _page(page, page.next_offset)

    neighbor_route("callers", callers)
    neighbor_route("callees", callees)

    @read.get("/symbols/{symbol:path}/trace")
    def symbol_trace(
        symbol: str,
        direction: str = Query("out", pattern="^(in|out)$"),
        depth: int = Query(3, ge=1, le=10),
        fanout: int = Query(20, ge=1, le=100),
        repo: str | None = None,
        references: bool = False,
    ) -> dict:
        return to_data(ask(lambda g: trace(g, symbol, direction, depth, repo, fanout, references)))

    @read.get("/symbols/{symbol:path}/explain")
    def symbol_explain(symbol: str, repo: str | None = None) -> dict:
        """Context plus provenance: last commits, owners, co-change partners."""
        return to_data(ask(lambda g: explain(g, symbol, repo)))

    @read.get("/symbols/{symbol:path}")
    def symbol_context(symbol: str, repo: str | None = None) -> dict:
        """One symbol: location, signature, members, callers, callees, lessons."""
        return to_data(ask(lambda g: context(g, symbol, repo)))

    @read.get("/path")
    def call_path(
        source: str,
        target: str,
        repo: str | None = None,
        max_depth: int = Query(8, ge=1, le=12),
        references: bool = False,
    ) -> dict:
        return to_data(ask(lambda g: path(g, source, target, repo, max_depth, references)))

    @read.get("/repos/{repo}/dead-code")
    def repo_dead_code(
        repo: str,
        path_prefix: str = "",
        verdict: str = "dead",
        include_tests: bool = False,
        limit: int = Query(50, ge=1, le=MAX_LIMIT),
        cursor: str | None = None,
    ) -> dict:
        report = ask(
            lambda g: dead_code(
                g,
                repo,
                path_prefix,
                [v for v in verdict.split(",") if v],
                limit,
                decode_cursor(cursor),
                include_tests,
            )
        )
        return _page(report, report.next_offset)

    @read.get("/repos/{repo}/files")
    def repo_files(
        repo: str,
        under: str | None = None,
        limit: int = Query(100, ge=1, le=MAX_LIMIT),
        cursor: str | None = None,
    ) -> dict:
        """The repository's indexed files (path, language, lines, is_test), by path."""
        records = ask(lambda g: _files(g, repo, under))
        offset = decode_cursor(cursor)
        page = records[offset : offset + limit]
        more = offset + limit if len(records) > offset + limit else None
        return {"items": to_data(page), "total": len(records), "next_cursor": encode_cursor(more)}

    @read.get("/repos/{repo}/overview")
    def repo_overview(repo: str, top: int = Query(15, ge=1, le=100)) -> dict:
        return to_data(ask(lambda g: overview(g, repo, top)))

    @read.get("/repos/{repo}/stats")
    def repo_stats(repo: str) -> dict:
        return to_data(ask(lambda g: stats(g, repo)))

    @read.get("/history")
    def target_history(
        target: str, repo: str | None = None, limit: int = limit_q, cursor: str | None = None
    ) -> dict:
        """The latest commits that changed a file or a symbol."""
        page = ask(lambda g: history(g, target, repo, limit, decode_cursor(cursor)))
        return _page(page, page.next_offset)

    @read.get("/co-changes")
    def target_co_changes(
        target: str,
        repo: str | None = None,
        limit: int = limit_q,
        min_count: int = Query(2, ge=1, le=1000),
    ) -> dict:
        return to_data(ask(lambda g: co_changes(g, target, repo, limit, min_count)))

    @read.get("/owners")
    def target_owners(target: str, repo: str | None = None, limit: int = limit_q) -> dict:
        return to_data(ask(lambda g: owners(g, target, repo, limit)))

    @team.post("/sessions", status_code=201)
    def open_session(new: NewSession) -> dict:
        return to_data(act(lambda g: agents.start_session(g, new.agent, new.task)))

    @team.post("/sessions/{session}/heartbeat")
    def session_heartbeat(session: int) -> dict:
        return to_data(act(lambda g: agents.heartbeat(g, session)))

    @team.delete("/sessions/{session}", status_code=204)
    def close_session(session: int) -> None:
        act(lambda g: agents.end_session(g, session))

    @team.post("/claims")
    def claim_file(request: ClaimRequest) -> Any:
        """Claim a file: 200 with the claim when granted, 409 naming the holder otherwise."""
        result = act(
            lambda g: agents.claim(g, request.session, request.repo, request.path, request.intent)
        )
        if not result.granted:
            raise HTTPException(409, result.message)
        return to_data(result)

    @team.delete("/claims", status_code=204)
    def release_file(session: int, repo: str, path: str) -> None:
        if not act(lambda g: agents.release(g, session, repo, path)):
            raise HTTPException(404, f"session {session} holds no claim on {path}")

    @team.get("/claims")
    def list_claims(repo: str | None = None) -> list[dict]:
        return to_data(act(lambda g: agents.claims(g, repo)))

    @team.get("/check-edit")
    def may_edit(session: int, repo: str, path: str) -> dict:
        return to_data(act(lambda g: agents.check_edit(g, session, repo, path)))

    @team.post("/activity", status_code=204)
    def record_activity(request: ActivityRequest) -> None:
        """What a session read or edited (its READ/EDITED trail on the file)."""
        record = agents.record_read if request.kind == "read" else agents.record_edit
        act(lambda g: record(g, request.session, request.repo, request.path))

    @team.post("/lessons", status_code=201)
    def add_lesson(request: LessonRequest) -> dict:
        return to_data(
            act(
                lambda g: agents.remember(
                    g, request.session, request.text, request.about, request.kind
                )
            )
        )

    @team.get("/lessons")
    def find_lessons(
        about: Annotated[list[str] | None, Query()] = None, text: str = "", limit: int = limit_q
    ) -> list[dict]:
        return to_data(act(lambda g: agents.recall(g, about or [], text, limit)))

    router = APIRouter()
    router.include_router(read)
    router.include_router(team)
    return router
