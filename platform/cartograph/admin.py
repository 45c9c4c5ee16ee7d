"""What the `admin` scope does, as answers every surface renders the same way: index a folder,
bearer tokens, and the repositories kept fresh by pushes (tracking, sync)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cartograph.auth import create_token
from cartograph.discover import DEFAULT_MAX_BYTES
from cartograph.errors import NotFound
from cartograph.gitremote import redact
from cartograph.jobs import JobRunner, JobState
from cartograph.model import ApiToken
from cartograph.store import display_url
from cartograph.store.interfaces import Store
from cartograph.sync import SyncError
from cartograph.tracking import (
    RepoStatus,
    add_tracked,
    remove_tracked,
    repo_status,
    require_tracked,
)
from cartograph.webhooks import PROVIDERS

if TYPE_CHECKING:  # indexing loads the parsers: imported when a folder is indexed
    from cartograph.index import IndexResult
    from cartograph.query import Stats


def load_answer_types() -> None:
    """Bind the types IndexReport names, for a schema of it (MCP's output schema): they load
    the parsers, so only a server that describes its tools asks for them."""
    from cartograph.index import IndexResult
    from cartograph.query import Stats

    globals().update(IndexResult=IndexResult, Stats=Stats)


# ---------------------------------------------------------------- indexing


@dataclass(slots=True)
class IndexReport:
    """An index run and the repository's statistics after it."""

    index: IndexResult
    stats: Stats
    store: str  # the store's URL, fit to print (no password)


def index_folder(
    store: Store,
    path: str = ".",
    name: str | None = None,
    files: list[str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    workers: int | None = None,
    history: bool = True,
    remine: bool = False,
    progress: Callable[[str], None] | None = None,
) -> IndexReport:
    """Index a folder (incrementally), then summarise the repository."""
    from cartograph.index import index_repository
    from cartograph.query import stats

    result = index_repository(
        store,
        path,
        name,
        max_bytes=max_bytes,
        workers=workers,
        progress=progress,
        files=files,
        history=history,
        remine=remine,
    )
    return IndexReport(result, stats(store, result.repo), display_url(store.url))


# ---------------------------------------------------------------- tokens


@dataclass(slots=True)
class IssuedToken:
    """A new token: the secret is in this answer only (the store keeps its hash)."""

    name: str
    scopes: list[str]
    token: str
    created_at: str


@dataclass(slots=True)
class RevokedToken:
    name: str
    revoked_at: str


def issue_token(store: Store, name: str, scopes: list[str]) -> IssuedToken:
    token, record = create_token(store, name, scopes)
    return IssuedToken(record.name, list(record.scopes), token, record.created_at)


def list_tokens(store: Store) -> list[ApiToken]:
    return store.tokens.list_tokens()


def revoke_token(store: Store, name: str) -> RevokedToken:
    at = datetime.now(UTC).isoformat(timespec="seconds")
    if not store.tokens.revoke_token(name, at):
        raise NotFound(f"no active token named {name}")
    return RevokedToken(name, at)


# ---------------------------------------------------------------- tracked repositories


@dataclass(slots=True)
class NewTrackedRepo:
    """A repository just tracked: its webhook secret is shown here only."""

    name: str
    url: str
    branch: str
    secret: str
    webhooks: list[str]  # the paths a git host posts pushes to, one per provider


@dataclass(slots=True)
class UntrackedRepo:
    name: str
    kept_graph: bool


@dataclass(slots=True)
class SyncAnswer:
    """A sync queued for the workers (`queued`), or run here and now (`results`)."""

    repo: str
    target: str  # the commit or branch asked for
    queued: bool
    job_started: bool  # False: a job of this repository is running and will take it too
    results: list[dict] = field(default_factory=list)  # each sync's log fields, when run here


def track(
    store: Store, name: str, url: str, branch: str = "main", secret: str | None = None
) -> NewTrackedRepo:
    tracked = add_tracked(store, name, url, branch, secret)
    webhooks = [f"/webhooks/{provider}/{tracked.name}" for provider in PROVIDERS]
    # the URL as shown: credentials in it never leave the tracking store
    return NewTrackedRepo(
        tracked.name, redact(tracked.url), tracked.branch, tracked.secret, webhooks
    )


def tracked_statuses(store: Store, job_state: JobState | None, data_dir: Path) -> list[RepoStatus]:
    return [repo_status(store, t.name, job_state, data_dir) for t in store.tracking.tracked_repos()]


def tracked_status(
    store: Store, name: str, job_state: JobState | None, data_dir: Path
) -> RepoStatus:
    return repo_status(store, name, job_state, data_dir)


def untrack(store: Store, name: str, keep_graph: bool, data_dir: Path) -> UntrackedRepo:
    remove_tracked(store, name, data_dir, keep_graph)
    return UntrackedRepo(name, keep_graph)


def sync_now(
    store: Store,
    name: str,
    sha: str | None = None,
    workers: int | None = None,
    runner: JobRunner | None = None,
    data_dir: Path | None = None,
) -> SyncAnswer:
    """With a job runner (a broker's workers, the server's threads): queue the sync. Without:
    run it here and now."""
    from cartograph.jobs import MemoryJobState, run_job
    from cartograph.sync import default_data_dir

    tracked = require_tracked(store, name)
    target = sha or f"refs/heads/{tracked.branch}"
    if runner is not None:
        return SyncAnswer(tracked.name, target, True, runner.push(tracked.name, target))
    state = MemoryJobState()
    state.announce(tracked.name, target)
    outcome = run_job(store, tracked.name, state, data_dir or default_data_dir(), workers=workers)
    if outcome.status != "synced":
        raise SyncError(f"sync of {tracked.name} failed: {outcome.error}")
    results = [result.log_fields() for result in outcome.results]
    return SyncAnswer(tracked.name, target, False, True, results)
