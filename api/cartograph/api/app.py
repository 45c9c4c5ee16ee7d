"""The HTTP app: the catalogue's operations as REST routes (/api/v1) and MCP tools (/mcp),
GraphQL (/graphql), webhooks that keep tracked repositories fresh, and health. `cartograph serve` runs it with uvicorn; the team deployment runs the same app behind
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
from collections.abc import Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

import anyio
from cartograph import logs
from cartograph.api.dashboard import dashboard_files, to_dashboard
from cartograph.api.graphql import build_graphql_router
from cartograph.api.guard import AccessPolicy, RequestGuard, area_of, log_refusal
from cartograph.api.ide import PREFIX as IDE_PREFIX
from cartograph.api.ide import graphiql_files
from cartograph.api.rest import answer_components, build_router
from cartograph.auth import AuthError, verify
from cartograph.config import env_bool, env_list
from cartograph.errors import HTTP_STATUS, CartographError, Invalid, NotFound, Unavailable
from cartograph.impact.graph import GraphPreloader
from cartograph.jobs import JobRunner, ThreadJobRunner
from cartograph.mcp_server import build_server, profile_names
from cartograph.model import ApiToken
from cartograph.operations import Services
from cartograph.plugins import job_runner
from cartograph.pushes import queue_push, tracked_for_push
from cartograph.query.answers import known_generation
from cartograph.query.listing import list_repositories
from cartograph.reviews import queue_pull_request, review_pull_request
from cartograph.sealing import unseal
from cartograph.store import open_store
from cartograph.store.interfaces import Store, StoreError
from cartograph.sync import default_data_dir
from cartograph.webhooks import PROVIDERS, Delivery, authenticate, parse
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.transport_security import TransportSecuritySettings

log = logging.getLogger("cartograph.api")


@dataclass
class Settings:
    store_url: str | None = field(default_factory=lambda: os.environ.get("CARTOGRAPH_STORE"))
    # tokens are required of every caller (`cartograph serve` sets this for a host other than
    # loopback) or when an admin token is configured; even without, only requests from this
    # machine to this machine may go without one (cartograph.api.guard)
    require_tokens: bool = field(
        default_factory=lambda: env_bool("CARTOGRAPH_REQUIRE_TOKENS", False)
    )
    broker_url: str | None = field(default_factory=lambda: os.environ.get("CARTOGRAPH_BROKER"))
    data_dir: Path = field(default_factory=default_data_dir)
    admin_token: str | None = field(
        default_factory=lambda: os.environ.get("CARTOGRAPH_ADMIN_TOKEN")
    )
    # where people and agents reach the server (https://cartograph.example.com): its host is
    # allowed, its origin may call from a browser
    public_url: str | None = field(
        default_factory=lambda: os.environ.get("CARTOGRAPH_PUBLIC_URL") or None
    )
    allowed_hosts: tuple[str, ...] = field(
        default_factory=lambda: env_list("CARTOGRAPH_ALLOWED_HOSTS")
    )
    allowed_origins: tuple[str, ...] = field(
        default_factory=lambda: env_list("CARTOGRAPH_ALLOWED_ORIGINS")
    )
    # read each repository's edges for impact at start and after a write changes them, so no
    # question waits for them (cartograph.impact.graph.GraphPreloader)
    preload_graphs: bool = field(
        default_factory=lambda: env_bool("CARTOGRAPH_PRELOAD_GRAPHS", True)
    )
    # the MCP tools the gateway lists unless a client asks for others (`/mcp/?profile=`):
    # comma-separated profiles (cartograph.mcp_server), default the agent's dozen
    mcp_profiles: str = field(
        default_factory=lambda: os.environ.get("CARTOGRAPH_MCP_PROFILES") or "agent"
    )

    @property
    def tokens_required(self) -> bool:
        return self.require_tokens or bool(self.admin_token)

    def access_policy(self) -> AccessPolicy:
        return AccessPolicy.from_settings(
            self.tokens_required, self.public_url, self.allowed_hosts, self.allowed_origins
        )


class Stores:
    """One store per thread for SQLite (connections stay on their thread); one shared store
    for Neo4j (its driver pools connections for every thread)."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self._local = threading.local()
        self._shared: Store | None = None
        self._guard = threading.Lock()
        self.shared_driver = bool(url and not url.startswith(("sqlite:", "/", ".")))

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


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    stores = Stores(settings.store_url)
    runner: JobRunner
    if settings.broker_url:
        runner = job_runner(settings.broker_url)  # the workers' (an entry point)
    else:
        runner = ThreadJobRunner(stores.open_new, settings.data_dir, reviewer=review_pull_request)

    mcp_server = build_server(
        settings.store_url,
        caller=_caller.get,
        session=_session.get,
        stores=stores.get,
        runner=runner,
        data_dir=settings.data_dir,
        profiles=profile_names(settings.mcp_profiles),
        asked_profiles=_profiles.get,
    )
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/",
        stateless_http=True,
        json_response=True,
        # hosts and origins are checked for the whole app, from the settings (RequestGuard)
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
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
        preloader = GraphPreloader(stores.get).start() if settings.preload_graphs else None
        app.state.preloader = preloader
        async with mcp_server.session_manager.run():
            yield
        if preloader is not None:
            preloader.stop()
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
            raise Unavailable(f"the graph store is unavailable: {exc}") from exc

    def services() -> Services:
        return Services(store(), runner=runner, data_dir=settings.data_dir)

    def verify_token(token: str) -> tuple[ApiToken, tuple[str, int]]:
        """The caller, and the store's generation the request begins at (read once: the
        token's record and every answer of the request are looked up at it)."""
        graph = store()
        generation = graph.generation()
        with known_generation(graph.url, generation):
            return verify(graph, token, settings.admin_token), (graph.url, generation)

    # every request passes the guard first: body limits, the caller's token (checked before
    # the body is read), hosts, origins, JSON for changes
    app.add_middleware(RequestGuard, policy=settings.access_policy(), verify=verify_token)

    # the MCP gateway: the stdio server's tools over streamable HTTP, stateless (any number of
    # uvicorn workers), each call authorized by the caller's token scopes
    app.mount("/mcp", _CallerContext(mcp_app))

    def request_caller(request: Request) -> ApiToken | None:
        """The caller the guard identified (None: a tokenless request from this machine)."""
        return request.state.caller

    app.include_router(build_router(services, request_caller))
    _describe_answers(app)

    def request_session(request: Request) -> int | None:
        """The session the request is made in (the X-Cartograph-Session header), if any."""
        return getattr(request.state, "session", None)

    app.include_router(
        build_graphql_router(store, request_caller, request_session), prefix="/graphql"
    )

    @app.exception_handler(CartographError)
    async def refused(request: Request, exc: CartographError) -> JSONResponse:
        """Every error a user can act on: its status from its kind (errors.HTTP_STATUS),
        logged as one line (an exception nobody expected keeps its traceback: Starlette's)."""
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, AuthError) else None
        return _problem(HTTP_STATUS[exc.kind], str(exc), request, headers)

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

    # the dashboard: its static files (docs/dashboard.md); the data comes from /graphql
    app.add_api_route("/ui", to_dashboard, include_in_schema=False)
    app.mount("/ui", dashboard_files(), name="dashboard")
    # GraphiQL's files (its page is GET /graphql from a browser: cartograph.api.ide)
    app.mount(IDE_PREFIX, graphiql_files(), name="graphiql")

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict:  # on the loop: no worker thread to wait for
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz() -> JSONResponse:
        report: dict = {"store": "ok", "broker": "in-process"}
        ready = True
        try:
            list_repositories(stores.get())
        except StoreError as exc:
            report["store"], ready = f"unavailable: {exc}", False
        if settings.broker_url:
            try:
                runner.state.ping()
                report["broker"] = "ok"
            except Exception as exc:
                report["broker"], ready = f"unavailable: {exc}", False
        return JSONResponse(report, status_code=200 if ready else 503)

    @app.post("/webhooks/{provider}/{repo}", tags=["webhooks"], status_code=202)
    async def webhook(provider: str, repo: str, request: Request) -> JSONResponse:
        """A push from GitHub, GitLab, Gitea/Forgejo or any CI (`generic`): authenticated with
        the repository's secret, deduplicated by delivery id, queued as a sync job."""
        if provider not in PROVIDERS:
            raise NotFound(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
        body = await request.body()
        headers = {k.lower(): v for k, v in request.headers.items()}
        # the store work (and the broker's) in a worker thread, never on the event loop
        return await anyio.to_thread.run_sync(receive_push, provider, repo, headers, body)

    def receive_push(provider: str, repo: str, headers: dict, body: bytes) -> JSONResponse:
        graph = store()
        tracked = tracked_for_push(graph, repo)
        authenticate(provider, headers, body, unseal(tracked.secret))
        delivery = parse(provider, headers, body, tracked.branch)
        if delivery.kind == "ping":
            return JSONResponse({"ok": True, "event": "ping"}, status_code=200)
        if delivery.kind == "ignored":
            return JSONResponse({"queued": False, "reason": delivery.reason}, status_code=202)
        if delivery.kind == "pull_request":
            return receive_pull_request(graph, repo, delivery)
        started = queue_push(graph, runner, repo, delivery)
        if started is None:
            return JSONResponse(
                {"queued": False, "duplicate": True, "sha": delivery.sha}, status_code=200
            )
        log.info(
            "push received",
            extra={"repo": repo, "sha": delivery.sha, "job_started": started},
        )
        return JSONResponse(
            {"queued": True, "sha": delivery.sha, "job_started": started}, status_code=202
        )

    def receive_pull_request(graph: Store, repo: str, delivery: Delivery) -> JSONResponse:
        """A pull request's head: its impact report is computed by a job (and replaces the
        one of an older head); a head already reported is not computed twice."""
        if not queue_pull_request(graph, runner, repo, delivery):
            return JSONResponse(
                {"queued": False, "duplicate": True, "number": delivery.number}, status_code=200
            )
        log.info("pull request received", extra={"repo": repo, "number": delivery.number})
        return JSONResponse(
            {"queued": True, "number": delivery.number, "sha": delivery.sha}, status_code=202
        )

    return app


_caller: ContextVar[ApiToken | None] = ContextVar("cartograph_caller", default=None)
_session: ContextVar[int | None] = ContextVar("cartograph_session", default=None)
_profiles: ContextVar[frozenset[str] | None] = ContextVar("cartograph_profiles", default=None)
_TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found",
           409: "Conflict", 413: "Too large", 422: "Invalid request",
           503: "Unavailable"}  # fmt: skip


def _problem(
    status: int,
    detail: object,
    request: Request,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """An RFC 9457 problem document; the refusal is one line of the log."""
    log_refusal(area_of(request.url.path), request.url.path, status, str(detail))
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


class _CallerContext:
    """Before the MCP app: the caller the guard identified rides in a context variable to the
    tools (which check its scopes), and so do the session the request names and the profiles
    it asks for (`?profile=team,admin`; unknown ones are refused)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.get("state") or {}
        asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("profile")
        try:
            profiles = profile_names(",".join(asked)) if asked else None
        except Invalid as exc:
            await _problem(400, str(exc), Request(scope))(scope, receive, send)
            return
        token = _caller.set(state.get("caller"))
        session = _session.set(state.get("session"))
        chosen = _profiles.set(profiles)
        try:
            await self.app(scope, receive, send)
        finally:
            _profiles.reset(chosen)
            _session.reset(session)
            _caller.reset(token)


def _describe_answers(app: FastAPI) -> None:
    """OpenAPI with the schemas the routes' answers refer to (cartograph.api.rest.responses)."""
    generate = app.openapi

    def openapi() -> dict:
        document = generate()
        document.setdefault("components", {}).setdefault("schemas", {}).update(answer_components())
        return document

    app.openapi = openapi  # type: ignore[method-assign]


def app_from_environment() -> FastAPI:
    """For `uvicorn --factory cartograph.api.app:app_from_environment` (several workers)."""
    logs.configure()
    return create_app()
