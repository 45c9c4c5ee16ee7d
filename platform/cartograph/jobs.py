"""Push-triggered sync jobs: one job per repository at a time, later pushes coalesced.

A push *announces* its commit: the newest announced commit is what the repository should be
indexed at, and a counter says how many pushes wait. When no job is queued or running for the
repository, one is started. A job takes the repository's lock, then syncs to the newest
announced commit until no newer one is waiting — ten pushes during a long sync cost one more
sync, not ten. A sync indexes the tracked branch's head (`sync.sync_to`): an older commit
announced late, or the same commit twice, does nothing. When no commit waits, the job mines
the history up to the indexed commit, and indexes the pushes that arrive meanwhile between two
batches of it (`_Job`).

Two implementations of the shared state: `MemoryJobState` with jobs on a background thread
(the embedded default: no broker), and `cartograph.workers.state.RedisJobState` with jobs run
by Celery workers. `run_job` is the one job loop both use.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cartograph.gitremote import redact
from cartograph.model import TrackedRepo
from cartograph.store.interfaces import Store, StoreError
from cartograph.sync import (
    SyncError,
    SyncResult,
    TransientSyncError,
    mine_synced,
    now,
    sync_to,
)

if TYPE_CHECKING:
    from cartograph.history.mine import MineResult

log = logging.getLogger("cartograph.jobs")
# a job refreshes its lock and its repository's "queued" mark while it runs; a killed job's
# lapse after these (a lapsed mark only risks a duplicate job, which finds nothing to do)
LOCK_TTL = float(os.environ.get("CARTOGRAPH_JOB_LOCK_TTL", "30"))
QUEUED_TTL = float(os.environ.get("CARTOGRAPH_JOB_QUEUED_TTL", "60"))
MAX_ATTEMPTS = 7  # transient failures retried 1, 2, 4 … 32 s apart, then recorded and dropped


class JobState(Protocol):
    """What every process that receives pushes or runs jobs shares about one repository."""

    def announce(self, repo: str, sha: str) -> bool:
        """Record `sha` as the newest commit wanted; True when the caller must start a job
        (none is queued or running)."""

    def wanted(self, repo: str) -> tuple[str | None, int]:
        """(the newest commit wanted or None, how many pushes announced it so far)."""

    def done(self, repo: str, sha: str, pushes: int) -> None:
        """`sha` is indexed: forget it unless a newer commit was announced meanwhile."""

    def lock(self, repo: str, token: str, ttl: float) -> bool: ...

    def refresh(self, repo: str, token: str, ttl: float) -> None: ...

    def unlock(self, repo: str, token: str) -> None: ...

    def finish(self, repo: str) -> bool:
        """The job is over: clear the queued mark; True when work arrived meanwhile (the caller
        starts another job)."""

    def depth(self, repo: str) -> int:
        """Pushes announced and not indexed yet."""

    def ping(self) -> bool:
        """True when the state can be reached; raises when it cannot (a broker that is down):
        the server's readiness check."""


@dataclass(slots=True)
class JobOutcome:
    repo: str
    status: str  # "synced", "busy" (another job holds the lock), "failed", "retry"
    results: list[SyncResult]
    error: str = ""


def run_job(
    store: Store,
    repo: str,
    state: JobState,
    data_dir: Path,
    workers: int | None = None,
    on_transient: Callable[[TransientSyncError], None] | None = None,
) -> JobOutcome:
    """Sync `repo` to the newest announced commit, again while newer ones arrive, then mine
    its history up to that commit (indexing the pushes that arrive meanwhile between two
    batches). A transient failure is handed to `on_transient` (Celery retries with backoff)
    or recorded; a permanent one is recorded on the repository and the job ends."""
    token = uuid.uuid4().hex
    if not state.lock(repo, token, LOCK_TTL):
        return JobOutcome(repo, "busy", [])
    job = _Job(store, repo, state, data_dir, workers)
    keeper = _LockKeeper(state, repo, token)
    keeper.start()
    try:
        job.run()
    finally:
        keeper.stop()
        state.unlock(repo, token)
    if job.transient is not None and on_transient is not None:
        on_transient(job.transient)
    return JobOutcome(repo, job.status, job.results, job.error)


class _Job:
    """One job's work. Pushes come first: history is mined only when every commit wanted is
    indexed, and mining lets the pushes that arrive in (`_between_batches`), so a push waits
    for one batch of history at most, never for the whole of it."""

    def __init__(
        self, store: Store, repo: str, state: JobState, data_dir: Path, workers: int | None
    ) -> None:
        self.store, self.repo, self.state = store, repo, state
        self.data_dir, self.workers = data_dir, workers
        self.results: list[SyncResult] = []
        self.status = "synced"  # or "failed", "retry" (the job ends: no more syncs)
        self.error = ""
        self.transient: TransientSyncError | None = None

    def run(self) -> None:
        mined_to: set[str] = set()  # the commits mined up to in this job: each once
        while self.sync_wanted():  # pushes synced while it mined: mine up to them too
            tracked = self.store.tracking.get_tracked(self.repo)
            mined = self.mine(tracked) if tracked is not None else None
            if mined is None or mined.head in mined_to:
                return
            mined_to.add(mined.head)

    def sync_wanted(self) -> bool:
        """Sync to the newest commit wanted until none is waiting; False when a failure ends
        the job."""
        if self.status != "synced":
            return False
        repo, state, store = self.repo, self.state, self.store
        while True:
            sha, pushes = state.wanted(repo)
            if sha is None:
                return True
            tracked = store.tracking.get_tracked(repo)
            if tracked is None:  # removed while a push waited
                state.done(repo, sha, pushes)
                return False
            try:
                result = sync_to(store, tracked, sha, self.data_dir, self.workers, history=False)
            except TransientSyncError as exc:
                _record(store, repo, error=str(exc))
                log.warning("sync failed, will retry", extra={"repo": repo, "sha": sha})
                self.status, self.error, self.transient = "retry", str(exc), exc
                return False
            except Exception as exc:  # a permanent failure (or a bug): recorded, not retried
                error = str(exc) if isinstance(exc, SyncError) else f"{type(exc).__name__}: {exc}"
                log.exception("sync failed", extra={"repo": repo, "sha": sha})
                _record(store, repo, error=error)
                state.done(repo, sha, pushes)
                self.status, self.error = "failed", error
                return False
            self.results.append(result)
            _record(store, repo, result=result)
            state.done(repo, sha, pushes)
            log.info("synced", extra=result.log_fields())

    def mine(self, tracked: TrackedRepo) -> MineResult | None:
        """Mine history up to the indexed commit; None when there was nothing to mine or it
        failed (logged: the index stays fresh without it)."""
        from cartograph.history.mine import HistoryError, Interleaving
        from cartograph.index.locks import repository_lock

        interleaving = Interleaving(
            hold=lambda: repository_lock(self.store, self.repo),
            pause=self._between_batches,
            waiting=lambda: self.state.wanted(self.repo)[0] is not None,
        )
        try:
            mined = mine_synced(self.store, tracked, self.data_dir, interleaving)
        except (HistoryError, StoreError, RuntimeError) as exc:  # git log failing: RuntimeError
            log.warning("history not mined: %s", exc, extra={"repo": self.repo})
            return None
        if mined is None:
            return None
        log.info(
            "mined",
            extra={
                "repo": self.repo,
                "sha": mined.head,
                "commits": mined.commits,
                "outpaced": mined.outpaced,
                "interrupted": mined.interrupted,
                "seconds": mined.seconds,
            },
        )
        return mined

    def _between_batches(self) -> None:
        self.sync_wanted()


def _record(store: Store, repo: str, result: SyncResult | None = None, error: str = "") -> None:
    """The repository's last job, for `repo status` and the API."""
    fields: dict = {"last_job_at": now()}
    if result is not None:
        fields.update(last_error="", last_job_seconds=round(result.seconds, 3))
    else:
        fields.update(last_error=redact(error)[:2000], last_error_at=now())
    store.tracking.update_tracked(repo, **fields)


def give_up(store: Store, repo: str, state: JobState, error: str) -> None:
    """Transient failures went on for too long: drop the waiting commit, keep the error."""
    sha, pushes = state.wanted(repo)
    if sha is not None:
        state.done(repo, sha, pushes)
    store.tracking.update_tracked(
        repo, last_error=redact(f"gave up after {MAX_ATTEMPTS} attempts: {error}")[:2000]
    )


class _LockKeeper:
    """Refreshes a job's lock (and queued mark) while the job runs."""

    def __init__(self, state: JobState, repo: str, token: str) -> None:
        self.state, self.repo, self.token = state, repo, token
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"lock-{repo}")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(LOCK_TTL / 4):
            try:
                self.state.refresh(self.repo, self.token, LOCK_TTL)
            except Exception:  # a broker hiccup: the next refresh tries again
                log.exception("could not refresh the job lock of %s", self.repo)


class MemoryJobState:
    """JobState in this process (the embedded default, where one process receives pushes)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._wanted: dict[str, tuple[str, int]] = {}
        self._queued: set[str] = set()
        self._locks: dict[str, tuple[str, float]] = {}

    def announce(self, repo: str, sha: str) -> bool:
        with self._guard:
            _sha, pushes = self._wanted.get(repo, ("", 0))
            self._wanted[repo] = (sha, pushes + 1)
            if repo in self._queued:
                return False
            self._queued.add(repo)
            return True

    def wanted(self, repo: str) -> tuple[str | None, int]:
        with self._guard:
            sha, pushes = self._wanted.get(repo, (None, 0))
            return sha, pushes

    def done(self, repo: str, sha: str, pushes: int) -> None:
        with self._guard:
            current = self._wanted.get(repo)
            if current is None:
                return
            if current[0] == sha:
                del self._wanted[repo]
            else:
                self._wanted[repo] = (current[0], max(0, current[1] - pushes))

    def lock(self, repo: str, token: str, ttl: float) -> bool:
        with self._guard:
            holder = self._locks.get(repo)
            if holder is not None and holder[1] > time.monotonic():
                return False
            self._locks[repo] = (token, time.monotonic() + ttl)
            return True

    def refresh(self, repo: str, token: str, ttl: float) -> None:
        with self._guard:
            if self._locks.get(repo, ("",))[0] == token:
                self._locks[repo] = (token, time.monotonic() + ttl)

    def unlock(self, repo: str, token: str) -> None:
        with self._guard:
            if self._locks.get(repo, ("",))[0] == token:
                del self._locks[repo]

    def finish(self, repo: str) -> bool:
        with self._guard:
            self._queued.discard(repo)
            if repo in self._wanted:
                self._queued.add(repo)
                return True
            return False

    def depth(self, repo: str) -> int:
        with self._guard:
            return self._wanted.get(repo, ("", 0))[1]

    def ping(self) -> bool:
        return True  # in this process: always there


class JobRunner(Protocol):
    """Starts jobs: in this process, or on Celery workers."""

    @property
    def state(self) -> JobState:
        """The shared state its jobs run with (a runner's own kind of JobState)."""

    def push(self, repo: str, sha: str) -> bool:
        """Announce a pushed commit; True when a job was started for it."""

    def review(self, repo: str, number: int) -> None:
        """Start the job computing a pull request's impact report (`cartograph.reviews`)."""


class ThreadJobRunner:
    """Jobs on background threads of this process (no broker configured): one per repository
    at a time, as with workers."""

    def __init__(
        self,
        store_factory: Callable[[], Store],
        data_dir: Path,
        max_threads: int = 2,
        reviewer: Callable[[Store, str, int, Path], object] | None = None,
    ) -> None:
        self.state = MemoryJobState()
        self.store_factory = store_factory
        self.data_dir = data_dir
        # the job computing a pull request's report (cartograph.reviews.review_pull_request,
        # given by the app: jobs sits below the answers it runs)
        self.reviewer = reviewer
        self._pool = ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="sync")
        self.outcomes: list[JobOutcome] = []

    def push(self, repo: str, sha: str) -> bool:
        if self.state.announce(repo, sha):
            self._pool.submit(self._job, repo)
            return True
        return False

    def review(self, repo: str, number: int) -> None:
        if self.reviewer is None:
            raise RuntimeError("this runner computes no pull-request reports")
        self._pool.submit(self._review, repo, number)

    def _review(self, repo: str, number: int) -> None:
        assert self.reviewer is not None
        store = self.store_factory()
        try:
            self.reviewer(store, repo, number, self.data_dir)
        except Exception:  # recorded on the report when it can be; never kills the pool
            log.exception("review job of %s #%s crashed", repo, number)
        finally:
            store.close()

    def _job(self, repo: str) -> None:
        attempts = 0
        while True:
            store = self.store_factory()
            try:
                outcome = run_job(store, repo, self.state, self.data_dir)
                if outcome.status == "retry" and attempts + 1 >= MAX_ATTEMPTS:
                    give_up(store, repo, self.state, outcome.error)
            except Exception as exc:  # never lose the queued mark to a bug
                log.exception("sync job of %s crashed", repo)
                outcome = JobOutcome(repo, "failed", [], str(exc))
            finally:
                store.close()
            self.outcomes.append(outcome)
            attempts += 1
            if outcome.status in ("retry", "busy") and attempts < MAX_ATTEMPTS:
                time.sleep(min(2 ** (attempts - 1), 32))  # back off, then try again
                continue
            if not self.state.finish(repo):
                return
            attempts = 0

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
