"""Stage 5, write: each file in one transaction with everything it contributes (its symbols,
outgoing edges, unresolved calls, imports), so an interrupted run leaves every file either fully
old or fully new; then the run's bookkeeping and, last, the repository record."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from cartograph.discover import Discovery, SourceFile
from cartograph.index.locks import LOCK_REFRESH_AFTER, LOCK_TTL
from cartograph.model import EdgeWrite, FileWrite, Repo, Skipped
from cartograph.store.interfaces import Store


@dataclass(slots=True)
class Batch:
    """Resolved files to write together: rewritten files, and re-resolved files (edges only)."""

    files: list[FileWrite] = field(default_factory=list)
    edges: list[EdgeWrite] = field(default_factory=list)
    unchanged: int = 0  # files re-resolved the same as before (nothing to write for them)
    flows_changed: bool = False  # a file's flow rows differ from what it had
    http_touched: bool = False  # a file written has HTTP rows, or had some (index.services)
    # path → references left unresolved because resolving them went past a budget
    over_budget: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Written:
    symbols: int = 0
    edges: int = 0
    reresolved_unchanged: int = 0
    flows: bool = False  # a file's flow rows changed (the flow stage must run)
    http: bool = False  # a file with HTTP rows, now or before, was written (services stage)
    over_budget: dict[str, int] = field(default_factory=dict)  # as Batch.over_budget

    def add(self, other: Written) -> None:
        self.symbols += other.symbols
        self.edges += other.edges
        self.reresolved_unchanged += other.reresolved_unchanged
        self.flows = self.flows or other.flows
        self.http = self.http or other.http
        self.over_budget.update(other.over_budget)


class Writer:
    """Writes batches through one store connection, refreshing the run's index lock now and
    then (each process that writes has its own)."""

    def __init__(self, store: Store, repo: str, owner: str, replace: bool) -> None:
        self.store = store
        self.repo = repo
        self.owner = owner
        self.replace = replace  # files may be stored already (not a first index)
        self.lock_refreshed = time.monotonic()  # the lock was taken just before the run

    def write(self, batch: Batch) -> Written:
        index = self.store.index
        if batch.files:
            index.write_files(self.repo, batch.files, replace=self.replace)
        if batch.edges:
            index.write_edges(self.repo, batch.edges)
        if time.monotonic() - self.lock_refreshed > LOCK_REFRESH_AFTER:
            index.refresh_index_lock(self.repo, self.owner, LOCK_TTL)
            self.lock_refreshed = time.monotonic()
        return Written(
            sum(len(w.symbols) for w in batch.files),
            sum(len(w.edges) for w in batch.files) + sum(len(w.edges) for w in batch.edges),
            batch.unchanged,
            batch.flows_changed,
            batch.http_touched,
            dict(batch.over_budget),
        )


def begin(store: Store, repo: str, pending: set[str], deleted: list[str]) -> None:
    """Before the first file is written: mark the changed names pending (a run killed midway
    is completed by the next one) and delete the files that are gone."""
    if pending:
        store.index.add_pending(repo, pending)
    if deleted:
        store.index.delete_files(repo, deleted)


def finish(
    store: Store,
    repo: str,
    discovery: Discovery,
    *,
    index_format: str,
    previous: Repo | None,
    pending: bool,
    touched: list[SourceFile],
    skipped: list[Skipped],
    packages: list[str],
    dirty: bool,
    origin: tuple[str, str] | None,
) -> None:
    """After every file: the run's bookkeeping, then the repository record (the mark that the
    index is complete, in this format)."""
    index = store.index
    index.finish_run(repo)
    if pending:
        index.clear_pending(repo)
    index.update_file_stats(repo, [(s.path, s.size, s.mtime_ns) for s in touched])
    if not discovery.partial:
        index.set_skipped(repo, skipped)
        index.set_packages(repo, packages, "pypi")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    store.repos.upsert_repo(
        Repo(
            name=repo,
            root=str(discovery.root),
            url=origin[0] if origin else (previous.url if previous else ""),
            default_branch=(
                origin[1]
                if origin
                else discovery.branch or (previous.default_branch if previous else "")
            ),
            head_sha=discovery.head_sha,
            indexed_sha=discovery.head_sha,
            indexed_at=now,
            dirty=dirty,
            index_format=index_format,
            indexed_run=uuid.uuid4().hex,
        )
    )
