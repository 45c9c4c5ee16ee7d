"""The HTTP app: webhooks that keep tracked repositories fresh, repository administration and
health. `cartograph serve` runs it with uvicorn; the team deployment runs the same app behind
several uvicorn workers with CARTOGRAPH_STORE=neo4j://… and CARTOGRAPH_BROKER=redis://….

Settings come from the environment unless given: CARTOGRAPH_STORE (default: the embedded
SQLite store), CARTOGRAPH_BROKER (unset: sync jobs run on a background thread of this process),
CARTOGRAPH_DATA (mirrors and worktrees), CARTOGRAPH_ADMIN_TOKEN (required as a bearer token by
the /api/v1 routes when set; webhooks authenticate with their repository's secret).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from cartograph import logs
from cartograph.api.graphql import build_graphql_router
from cartograph.api.rest import build_router
from cartograph.auth import AuthError, require, verify
from cartograph.jobs import JobRunner, ThreadJobRunner
from cartograph.mcp_server import build_server
from cartograph.model import ApiToken
from cartograph.store import open_store
from cartograph.store.interfaces import Store, StoreError
from cartograph.sync import default_data_dir, now
from cartograph.tracking import (
    TrackingError,
    add_tracked,
    remove_tracked,
    repo_status,
    require_tracked,
)
from cartograph.webhooks import PROVIDERS, WebhookError, authenticate, parse
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

log = logging.getLogger("cartograph.api")


@dataclass
class Settings:
    store_url: str | None = field(default_factory=lambda: os.environ.get("CARTOGRAPH_STORE"))
    # tokens are required when the server is reachable from elsewhere (`cartograph serve`
    # sets this for a host other than loopback) or an admin token is configured
    require_tokens: bool = field(
        default_factory=lambda: os.environ.get("CARTOGRAPH_REQUIRE_TOKENS", "") in ("1", "true")
    )
    broker_url: str | None = field(default_factory=lambda: os.environ.get("CARTOGRAPH_BROKER"))
    data_dir: Path = field(default_factory=default_data_dir)
    admin_token: str | None = field(
        default_factory=lambda: os.environ.get("CARTOGRAPH_ADMIN_TOKEN")
    )

    @property
    def tokens_required(self) -> bool:
        return self.require_tokens or bool(self.admin_token)


class Stores:
    """One store per thread for SQLite (connections stay on their thread); one shared store
    for Neo4j (its driver pools connections for every thread)."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self._local = threading.local()
        self._shared: Store | None = None
        self._guard = threading.Lock()
        self.shared_driver = bool(url) and not url.startswith(("sqlite:", "/", "."))

    def get(self) -> Store:
        if self.shared_driver:
            with self._guard:
                if self._shared is None:
                    self._shared = open_store(self.url)
                return self._shared
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = open_store(self.url)
        return store

    def open_new(self) -> Store:
        """A store for a background job (closed by it)."""
        return open_store(self.url)

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()


class NewRepo(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    url: str = Field(min_length=1, max_length=2000)
    branch: str = Field(default="main", min_length=1, max_length=200)
    secret: str | None = Field(default=None, min_length=16, max_length=200)


class SyncRequest(BaseModel):
    sha: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    stores = Stores(settings.store_url)
    if settings.broker_url:
        from cartograph.workers.celery_app import CeleryJobRunner

        runner: JobRunner = CeleryJobRunner(settings.broker_url)
    else:
        runner = ThreadJobRunner(stores.open_new, settings.data_dir)

    mcp_server = build_server(
        settings.store_url, authorize=_authorize_mcp_caller, stores=stores.get
    )
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/", stateless_http=True, json_response=True
    )

    mcp_running: list[bool] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        # the MCP session manager runs once per process; a harness that enters the lifespan
        # again (an ASGI test transport per request) gets the rest of the app without it
        if mcp_running:
            yield
            return
        mcp_running.append(True)
        async with mcp_server.session_manager.run():
            yield
        if isinstance(runner, ThreadJobRunner):
            runner.shutdown()
        stores.close()

    app = FastAPI(
        title="Cartograph",
        version="0.1.0",
        description="A shared code graph for coding agents.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.stores = stores
    app.state.runner = runner

    def store() -> Store:
        try:
            return stores.get()
        except StoreError as exc:
            raise HTTPException(503, f"the graph store is unavailable: {exc}") from exc

    def caller_of(header: str) -> ApiToken | None:
        """The caller's token; None on an open local server (no token required, none given)."""
        if header.startswith("Bearer "):
            return verify(store(), header[7:], settings.admin_token)
        if header or settings.tokens_required:
            raise AuthError("a bearer token is required (`cartograph token create`)")
        return None

    def admin(request: Request) -> None:
        try:
            require(caller_of(request.headers.get("authorization", "")), "admin")
        except AuthError as exc:
            raise HTTPException(exc.status, str(exc), {"WWW-Authenticate": "Bearer"}) from exc

    # the MCP gateway: the stdio server's tools over streamable HTTP, stateless (any number of
    # uvicorn workers), each call authorized by the caller's token scopes
    app.mount("/mcp", _BearerGate(mcp_app, caller_of))

    def request_caller(request: Request) -> ApiToken | None:
        try:
            return caller_of(request.headers.get("authorization", ""))
        except AuthError as exc:
            raise HTTPException(exc.status, str(exc), {"WWW-Authenticate": "Bearer"}) from exc

    app.include_router(build_router(store, request_caller))

    def graphql_reader(request: Request) -> None:
        try:
            require(request_caller(request), "read")
        except AuthError as exc:
            raise HTTPException(exc.status, str(exc), {"WWW-Authenticate": "Bearer"}) from exc

    app.include_router(build_graphql_router(store, graphql_reader), prefix="/graphql")

    @app.exception_handler(HTTPException)
    async def problem(request: Request, exc: HTTPException) -> JSONResponse:
        return _problem(exc.status_code, exc.detail, request, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        details = "; ".join(
            f"{'.'.join(str(p) for p in error.get('loc', ()))}: {error.get('msg', '')}"
            for error in exc.errors()
        )
        return _problem(422, details or "invalid request", request)

    @contextmanager
    def user_errors() -> Iterator[None]:
        try:
            yield
        except TrackingError as exc:
            status = 404 if "is not tracked" in str(exc) else 400
            if "tracked already" in str(exc):
                status = 409
            raise HTTPException(status, str(exc)) from exc
        except StoreError as exc:
            raise HTTPException(503, str(exc)) from exc

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz() -> JSONResponse:
        report: dict = {"store": "ok", "broker": "in-process"}
        ready = True
        try:
            stores.get().repos.list_repos()
        except StoreError as exc:
            report["store"], ready = f"unavailable: {exc}", False
        if settings.broker_url:
            try:
                runner.state.ping()  # type: ignore[attr-defined]
                report["broker"] = "ok"
            except Exception as exc:
                report["broker"], ready = f"unavailable: {exc}", False
        return JSONResponse(report, status_code=200 if ready else 503)

    @app.post("/webhooks/{provider}/{repo}", tags=["webhooks"], status_code=202)
    async def webhook(provider: str, repo: str, request: Request) -> JSONResponse:
        """A push from GitHub, GitLab, Gitea/Forgejo or any CI (`generic`): authenticated with
        the repository's secret, deduplicated by delivery id, queued as a sync job."""
        if provider not in PROVIDERS:
            raise HTTPException(
                404, f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}"
            )
        graph = store()
        tracked = graph.tracking.get_tracked(repo)
        if tracked is None:
            raise HTTPException(404, f"{repo} is not tracked")
        body = await request.body()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            authenticate(provider, headers, body, tracked.secret)
            delivery = parse(provider, headers, body, tracked.branch)
        except WebhookError as exc:
            raise HTTPException(exc.status, str(exc)) from exc
        if delivery.kind == "ping":
            return JSONResponse({"ok": True, "event": "ping"}, status_code=200)
        if delivery.kind == "ignored":
            return JSONResponse({"queued": False, "reason": delivery.reason}, status_code=202)
        if delivery.delivery_id and not graph.tracking.record_delivery(repo, delivery.delivery_id):
            return JSONResponse(
                {"queued": False, "duplicate": True, "sha": delivery.sha}, status_code=200
            )
        graph.tracking.update_tracked(repo, pushed_sha=delivery.sha, pushed_at=now())
        started = runner.push(repo, delivery.sha)
        log.info(
            "push received",
            extra={"repo": repo, "sha": delivery.sha, "job_started": started},
        )
        return JSONResponse(
            {"queued": True, "sha": delivery.sha, "job_started": started}, status_code=202
        )

    @app.get("/api/v1/repos", tags=["repositories"], dependencies=[Depends(admin)])
    def list_repos() -> list[dict]:
        graph = store()
        with user_errors():
            return [
                repo_status(graph, t.name, runner.state, settings.data_dir).as_dict()
                for t in graph.tracking.tracked_repos()
            ]

    @app.post(
        "/api/v1/repos", tags=["repositories"], status_code=201, dependencies=[Depends(admin)]
    )
    def add_repo(new: NewRepo) -> dict:
        """Track a repository; the answer holds its webhook secret (shown only here)."""
        graph = store()
        with user_errors():
            tracked = add_tracked(graph, new.name, new.url, new.branch, new.secret)
        return {
            "name": tracked.name,
            "url": tracked.url,
            "branch": tracked.branch,
            "secret": tracked.secret,
            "webhooks": {p: f"/webhooks/{p}/{tracked.name}" for p in PROVIDERS},
        }

    @app.get("/api/v1/repos/{name}", tags=["repositories"], dependencies=[Depends(admin)])
    def get_repo(name: str) -> dict:
        with user_errors():
            return repo_status(store(), name, runner.state, settings.data_dir).as_dict()

    @app.delete(
        "/api/v1/repos/{name}",
        tags=["repositories"],
        status_code=204,
        dependencies=[Depends(admin)],
    )
    def delete_repo(name: str, keep_graph: bool = False) -> None:
        with user_errors():
            remove_tracked(store(), name, settings.data_dir, keep_graph)

    @app.post(
        "/api/v1/repos/{name}/sync",
        tags=["repositories"],
        status_code=202,
        dependencies=[Depends(admin)],
    )
    def sync_repo(name: str, request: SyncRequest | None = None) -> dict:
        """Queue a sync to a commit (default: the tracked branch's head, fetched first)."""
        graph = store()
        with user_errors():
            tracked = require_tracked(graph, name)
        sha = request.sha if request and request.sha else f"refs/heads/{tracked.branch}"
        return {"queued": True, "target": sha, "job_started": runner.push(name, sha)}

    return app


_caller: ContextVar[ApiToken | None] = ContextVar("cartograph_caller", default=None)
_TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found",
           409: "Conflict", 422: "Invalid request", 503: "Unavailable"}  # fmt: skip


def _problem(
    status: int, detail: object, request: Request, headers: dict | None = None
) -> JSONResponse:
    """An RFC 9457 problem document."""
    return JSONResponse(
        {
            "type": "about:blank",
            "title": _TITLES.get(status, "Error"),
            "status": status,
            "detail": detail if isinstance(detail, str) else str(detail),
            "instance": request.url.path,
        },
        status_code=status,
        headers=headers,
        media_type="application/problem+json",
    )


def _authorize_mcp_caller(scope: str) -> None:
    """Called by every MCP tool with the scope it needs."""
    require(_caller.get(), scope)


class _BearerGate:
    """ASGI middleware before the MCP app: 401 without a valid token (when one is needed), else
    the caller's token rides in a context variable to the tools."""

    def __init__(self, app, authenticate) -> None:
        self.app = app
        self.authenticate = authenticate

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
        try:
            caller = self.authenticate(header)
        except AuthError as exc:
            response = JSONResponse(
                {"detail": str(exc)}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
            await response(scope, receive, send)
            return
        token = _caller.set(caller)
        try:
            await self.app(scope, receive, send)
        finally:
            _caller.reset(token)


def app_from_environment() -> FastAPI:
    """For `uvicorn --factory cartograph.api.app:app_from_environment` (several workers)."""
    logs.configure()
    return create_app()
