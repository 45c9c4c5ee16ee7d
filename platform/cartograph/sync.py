"""Keep a tracked repository's graph at a pushed commit.

A tracked repository has a mirror clone under the data folder (`mirrors/NAME.git`) and one
worktree of it (`worktrees/NAME`) that is checked out at exactly the commit being indexed
(forced, untracked files removed), so no job ever sees another job's or a person's edits.
`sync_to` fetches, diffs the last indexed commit against the pushed one
(`git diff --name-status -M`), re-indexes those files (their importers are re-resolved by the
index pipeline), stamps `indexed_sha` and mines the new commits (a sync job mines them
afterwards, `mine_synced`, so that pushes need not wait for history). It is idempotent and never
rolls back: the tracked branch's head (after the fetch) is what gets indexed, so the same
commit twice does no work and an older commit announced after a newer one (a late delivery,
a redelivery) finds the newer one indexed already; a force-push is diffed against the last
indexed commit all the same.

Who runs it and when (one job per repository, pushes coalesced to the newest commit) is
`cartograph.jobs`; this module only knows how.
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cartograph.errors import CartographError
from cartograph.gitremote import check_url, git_environment, redact
from cartograph.model import TrackedRepo
from cartograph.private import narrow, private_dir
from cartograph.store.interfaces import Store, StoreError

if TYPE_CHECKING:
    from cartograph.history.mine import Interleaving, MineResult

log = logging.getLogger("cartograph.sync")
GIT_TIMEOUT = 600.0
ZERO_SHA = "0" * 40


def default_data_dir() -> Path:
    """Where mirrors and worktrees live: CARTOGRAPH_DATA, else ~/.local/share/cartograph."""
    configured = os.environ.get("CARTOGRAPH_DATA")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "cartograph"


class SyncError(CartographError):
    """A sync that cannot succeed as things are (a bad URL, an unknown commit): recorded on the
    repository, not retried."""


class TransientSyncError(SyncError):
    """A sync that may succeed later (the git remote or the store unreachable): retried."""


@dataclass(slots=True)
class SyncResult:
    repo: str
    sha: str
    previous_sha: str
    action: str  # "indexed", or "up-to-date" (the branch's head is indexed already)
    requested: str = ""  # the commit the push announced (the branch may have moved past it)
    changed_paths: int = 0
    parsed: int = 0
    deleted: int = 0
    commits_mined: int = 0
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)

    def log_fields(self) -> dict:
        return {
            "repo": self.repo,
            "sha": self.sha,
            "previous": self.previous_sha,
            "action": self.action,
            "files": self.changed_paths,
            "parsed": self.parsed,
            "commits": self.commits_mined,
            "seconds": round(self.seconds, 3),
        }


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Mirror:
    """The mirror clone of one tracked repository and its worktree."""

    def __init__(self, data_dir: Path, name: str, url: str) -> None:
        self.name = name
        self.url = url
        self.git_dir = Path(data_dir) / "mirrors" / f"{name}.git"
        self.work = Path(data_dir) / "worktrees" / name
        # owner-only, and so again when an older version (or a looser umask) made them wider
        for path in (
            Path(data_dir),
            self.git_dir.parent,
            self.git_dir,
            self.work.parent,
            self.work,
        ):
            narrow(path)

    def _git(self, *args: str, cwd: Path | None = None, check: bool = True) -> str:
        command = ["git", *args] if cwd else ["git", f"--git-dir={self.git_dir}", *args]
        env = git_environment()
        try:
            done = subprocess.run(
                command,
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise TransientSyncError(f"git {args[0]} timed out for {self.name}") from exc
        if check and done.returncode != 0:
            raise SyncError(f"git {' '.join(args[:2])}: {_git_message(done)}")
        return done.stdout

    def fetch(self) -> None:
        """Clone the mirror the first time, fetch every branch (pruned) afterwards, one process
        of this host at a time (a worker's job, a pull request's review and an API process
        reading history may share the data folder); the lock files a killed git left are
        removed first, which is safe only under that lock. A remote that cannot be reached is
        a transient error."""
        with self._fetching():
            self.clear_stale_locks()
            try:
                if not (self.git_dir / "HEAD").exists():
                    private_dir(self.git_dir.parent)
                    partial = self.git_dir.with_name(self.git_dir.name + ".partial")
                    subprocess.run(["rm", "-rf", str(partial)], check=False)
                    self._git_plain("clone", "--mirror", "--quiet", self.url, str(partial))
                    narrow(partial)
                    partial.rename(self.git_dir)
                else:
                    self._git("remote", "set-url", "origin", self.url)
                    self._git("fetch", "--prune", "--quiet", "origin")
            except SyncError as exc:
                if isinstance(exc, TransientSyncError):
                    raise
                raise TransientSyncError(f"cannot fetch {redact(self.url)}: {exc}") from exc

    def holding(self, revisions: Iterable[str]) -> Mirror:
        """This mirror, cloned or fetched first when it is missing or lacks one of `revisions`
        (what a host that has not synced the repository itself, an API host, needs to read
        what a worker elsewhere indexed)."""
        wanted = [revision for revision in revisions if revision]
        present = (self.git_dir / "HEAD").exists()
        if not present or any(self.resolve(revision) is None for revision in wanted):
            self.fetch()
        return self

    @contextmanager
    def _fetching(self) -> Iterator[None]:
        private_dir(self.git_dir.parent)
        with open(self.git_dir.parent / f".{self.name}.fetching", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _git_plain(self, *args: str) -> None:
        try:
            done = subprocess.run(
                ["git", *args],
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT,
                env=git_environment(),
            )
        except subprocess.TimeoutExpired as exc:
            raise TransientSyncError(f"git {args[0]} timed out for {self.name}") from exc
        if done.returncode != 0:
            raise SyncError(f"git {args[0]}: {_git_message(done)}")

    def resolve(self, rev: str) -> str | None:
        """The commit a sha or ref names in the mirror, or None."""
        out = self._git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
        return out.strip() or None

    def commits_between(self, older: str, newer: str) -> int | None:
        out = self._git("rev-list", "--count", f"{older}..{newer}", check=False).strip()
        return int(out) if out.isdigit() else None

    def changed_paths(self, old: str, new: str) -> list[tuple[str, str, str]]:
        """(status letter, path, new path for renames/copies) between two commits."""
        out = self._git("diff", "--name-status", "-M", "-z", old, new)
        parts = out.split("\0")
        changes: list[tuple[str, str, str]] = []
        index = 0
        while index < len(parts) and parts[index]:
            status = parts[index][0]
            if status in "RC":
                changes.append((status, parts[index + 1], parts[index + 2]))
                index += 3
            else:
                changes.append((status, parts[index + 1], parts[index + 1]))
                index += 2
        return changes

    def clear_stale_locks(self, worktree: bool = False) -> list[Path]:
        """Remove the lock files a killed git left, which would fail every later git command
        ("File exists"): the mirror's own (`packed-refs.lock`, `refs/heads/x.lock`, …), or
        with `worktree` its worktree's (`index.lock`). The mirror's are cleared under the
        fetch lock just before a fetch (no git of this host writes the mirror then), the
        worktree's by the repository's one running job before it checks out; returns what
        it removed."""
        admin = self.git_dir / "worktrees"
        removed = []
        if self.git_dir.is_dir():
            for lock in (admin if worktree else self.git_dir).rglob("*.lock"):
                if lock.is_file() and (worktree or admin not in lock.parents):
                    lock.unlink(missing_ok=True)
                    removed.append(lock)
        if removed:
            log.warning("removed stale git locks", extra={"repo": self.name, "locks": len(removed)})
        return removed

    def checkout(self, sha: str) -> Path:
        """The worktree at exactly `sha`: tracked files as committed, nothing else."""
        if not (self.work / ".git").exists():
            private_dir(self.work.parent)
            subprocess.run(["rm", "-rf", str(self.work)], check=False)
            self._git("worktree", "prune")
            self._git("worktree", "add", "--force", "--detach", str(self.work), sha)
            narrow(self.work)
        else:
            self._git("checkout", "--force", "--quiet", "--detach", sha, cwd=self.work)
            self._git("clean", "-ffdxq", cwd=self.work)
        return self.work

    def remove(self) -> None:
        subprocess.run(["rm", "-rf", str(self.work), str(self.git_dir)], check=False)


def _git_message(done: subprocess.CompletedProcess) -> str:
    """git's whole error text (every line: the last one alone often says only "fatal"),
    bounded, with any credentials in URLs redacted."""
    text = (done.stderr or done.stdout or "").strip() or "failed"
    return redact(" | ".join(line.strip() for line in text.splitlines() if line.strip()))[:2000]


def sync_to(
    store: Store,
    tracked: TrackedRepo,
    target: str | None,
    data_dir: Path,
    workers: int | None = None,
    history: bool = True,
) -> SyncResult:
    """Bring the graph of `tracked` to commit `target` (a sha; None: the branch's head), and
    its history with it (`history`; a sync job mines afterwards instead: `mine_synced`)."""
    from cartograph.index import index_repository

    started = time.perf_counter()
    try:
        check_url(tracked.url)  # stored by an older version, or the allowed list changed
    except CartographError as exc:
        raise SyncError(f"{tracked.name}: {exc}") from exc
    mirror = Mirror(data_dir, tracked.name, tracked.url)
    mirror.fetch()  # clearing the locks a job killed mid-git (a worker SIGKILLed) left
    mirror.clear_stale_locks(worktree=True)
    wanted = target or f"refs/heads/{tracked.branch}"
    requested = mirror.resolve(wanted)
    head = mirror.resolve(f"refs/heads/{tracked.branch}")
    # the branch is the truth: a push the branch has moved past since (a late delivery, a
    # redelivery, an older commit after a newer one) indexes where the branch is now, so the
    # graph never rolls back; a force-push back to an older commit is indexed as such
    sha = head or requested
    if sha is None:  # neither resolves
        raise SyncError(f"{tracked.name}: {wanted} is not a commit of {redact(tracked.url)}")
    try:
        repo = store.repos.get_repo(tracked.name)
    except StoreError as exc:
        raise TransientSyncError(str(exc)) from exc
    indexed = repo.indexed_sha if repo is not None else ""
    result = SyncResult(tracked.name, sha, indexed, "up-to-date", requested=requested or wanted)
    if indexed == sha:
        result.seconds = time.perf_counter() - started
        return result
    known = bool(indexed) and mirror.resolve(indexed) is not None
    changes = mirror.changed_paths(indexed, sha) if known else None
    work = mirror.checkout(sha)
    files = None
    if changes is not None:
        result.changed_paths = len(changes)
        # named files are enough when nothing was added, deleted or renamed (the pipeline
        # checks again and lists the tree when a module appears or disappears)
        if all(status == "M" for status, _old, _new in changes):
            files = [new for _status, _old, new in changes]
    try:
        indexed_result = index_repository(
            store,
            work,
            name=tracked.name,
            files=files,
            workers=workers,
            history=history,
            origin=(redact(tracked.url), tracked.branch),  # the graph never holds credentials
        )
    except StoreError as exc:
        raise TransientSyncError(str(exc)) from exc
    result.action = "indexed"
    result.parsed = indexed_result.parsed
    result.deleted = indexed_result.deleted
    if changes is None:
        result.changed_paths = indexed_result.files
    if indexed_result.history is not None:
        result.commits_mined = indexed_result.history.commits
    result.phases = dict(indexed_result.seconds)
    result.seconds = time.perf_counter() - started
    return result


def mine_synced(
    store: Store, tracked: TrackedRepo, data_dir: Path, interleaving: Interleaving | None = None
) -> MineResult | None:
    """Mine the history of `tracked` up to the commit its graph is indexed at, from its mirror;
    None when it is mined up to there already (or nothing is indexed or checked out yet)."""
    from cartograph.history.mine import mine_history

    repo = store.repos.get_repo(tracked.name)
    if repo is None or not repo.indexed_sha or repo.mined_sha == repo.indexed_sha:
        return None
    mirror = Mirror(data_dir, tracked.name, tracked.url)
    if not (mirror.work / ".git").exists():
        return None
    return mine_history(
        store, mirror.work, tracked.name, head_sha=repo.indexed_sha, interleaving=interleaving
    )
