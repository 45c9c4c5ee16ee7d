"""Tracked repositories: add, list, remove, and their sync status (CLI and API share these)."""

from __future__ import annotations

import re
import secrets
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from cartograph.errors import CartographError, ErrorKind
from cartograph.gitremote import check_url, redact
from cartograph.jobs import JobState
from cartograph.model import TrackedRepo
from cartograph.names import repo_name
from cartograph.sealing import seal
from cartograph.store.interfaces import Store
from cartograph.sync import Mirror, now

# whole-string patterns (fullmatch): `$` would also accept a trailing newline
_BRANCH = re.compile(r"(?!/)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<!/)")


class TrackingError(CartographError):
    """A bad name, URL or branch, or a repository that is not tracked."""


@dataclass(slots=True)
class RepoStatus:
    name: str
    url: str  # credentials in it are shown as ***
    branch: str
    head_sha: str  # the newest commit pushed (or fetched) on the tracked branch
    indexed_sha: str  # the commit the graph reflects
    lag: int | None  # commits between them (None when unknown)
    queue_depth: int  # pushes waiting for a job
    last_error: str
    last_error_at: str
    last_job_seconds: float
    last_job_at: str
    indexed_at: str

    def as_dict(self) -> dict:
        return asdict(self)


def add_tracked(
    store: Store, name: str, url: str, branch: str = "main", secret: str | None = None
) -> TrackedRepo:
    """Track a repository (its webhook secret is generated unless given)."""
    try:
        name = repo_name(name)
    except CartographError as exc:
        raise TrackingError(str(exc)) from None
    try:
        check_url(url)
    except CartographError as exc:
        raise TrackingError(str(exc)) from exc
    if not _BRANCH.fullmatch(branch):
        raise TrackingError(f"{branch!r} is not a branch name")
    if store.tracking.get_tracked(name) is not None:
        raise TrackingError(
            f"{name} is tracked already (remove it first to change it)", ErrorKind.CONFLICT
        )
    tracked = TrackedRepo(
        name=name,
        url=url,
        branch=branch,
        secret=secret or secrets.token_urlsafe(24),
        added_at=now(),
    )
    # stored sealed when the server has a key (cartograph.sealing); answered in the clear,
    # the one time it is shown
    store.tracking.track_repo(replace(tracked, secret=seal(tracked.secret)))
    return tracked


def remove_tracked(store: Store, name: str, data_dir: Path, keep_graph: bool) -> None:
    """Stop tracking (later pushes are 404), then — once a running sync of it is over — drop
    its mirror and, unless kept, its graph."""
    from cartograph.index import (
        IndexingError,
        IndexResult,
        forget_repository,
        refresh_consumers,
        repository_lock,
    )
    from cartograph.index.services import rematch_others, serves_routes

    tracked = require_tracked(store, name)
    store.tracking.untrack_repo(name)
    consumers: set[str] = set()
    served = False
    try:
        with repository_lock(store, name, timeout=300):
            Mirror(data_dir, name, tracked.url).remove()
            if not keep_graph and store.repos.get_repo(name) is not None:
                served = serves_routes(store, name)
                consumers = forget_repository(store, name)
    except IndexingError as exc:
        raise TrackingError(f"{name} is no longer tracked, but {exc}") from exc
    # the repositories that bound into it lose those edges now, and the requests that
    # reached its routes reach nothing
    refresh_consumers(store, consumers, IndexResult(name, ""))
    if served:
        rematch_others(store, name, lock_timeout=300)


def require_tracked(store: Store, name: str) -> TrackedRepo:
    tracked = store.tracking.get_tracked(name)
    if tracked is None:
        known = ", ".join(t.name for t in store.tracking.tracked_repos()) or "none"
        raise TrackingError(f"{name} is not tracked (tracked: {known})", ErrorKind.NOT_FOUND)
    return tracked


def repo_status(store: Store, name: str, state: JobState | None, data_dir: Path) -> RepoStatus:
    tracked = require_tracked(store, name)
    repo = store.repos.get_repo(name)
    indexed = repo.indexed_sha if repo else ""
    mirror = Mirror(data_dir, name, tracked.url)
    head = tracked.pushed_sha
    lag: int | None = None
    if (mirror.git_dir / "HEAD").exists():
        branch_head = mirror.resolve(f"refs/heads/{tracked.branch}")
        head = head or branch_head or ""
        if head and indexed and mirror.resolve(head) and mirror.resolve(indexed):
            lag = mirror.commits_between(indexed, head)
    if head and head == indexed:
        lag = 0
    return RepoStatus(
        name=name,
        url=redact(tracked.url),
        branch=tracked.branch,
        head_sha=head,
        indexed_sha=indexed,
        lag=lag,
        queue_depth=state.depth(name) if state is not None else 0,
        last_error=redact(tracked.last_error),
        last_error_at=tracked.last_error_at,
        last_job_seconds=tracked.last_job_seconds,
        last_job_at=tracked.last_job_at,
        indexed_at=repo.indexed_at if repo else "",
    )
