"""The Celery app: sync jobs on workers, Redis as broker and result backend.

    CARTOGRAPH_BROKER=redis://127.0.0.1:6379/0 CARTOGRAPH_STORE=bolt://127.0.0.1:7687 \\
        celery -A cartograph.workers.celery_app worker --pool solo

One job per worker process (the solo pool), which parses and resolves on every core; run more
worker processes for more repositories at once (prefork children are daemonic: one core each).

Settings (environment): CARTOGRAPH_BROKER (required), CARTOGRAPH_STORE (the graph),
CARTOGRAPH_DATA (mirrors and worktrees; shared by the workers of one machine).
A task is acknowledged when it ends. Nobody waits for a task's result: tasks are sent with
`ignore_result`, so no sender subscribes to a result channel (with Redis away, that
subscription failed with Celery's "the Celery application must be restarted", which it need
not be: the next call reconnects).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TypeVar

from cartograph import logs
from cartograph.errors import Unavailable
from cartograph.gitremote import redact
from cartograph.jobs import MAX_ATTEMPTS, give_up, run_job
from cartograph.store import open_store
from cartograph.sync import TransientSyncError, default_data_dir
from cartograph.workers.state import RedisJobState
from celery import Celery, signals
from celery.exceptions import MaxRetriesExceededError
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

BROKER = os.environ.get("CARTOGRAPH_BROKER", "redis://127.0.0.1:6379/0")
SYNC_TASK = "cartograph.sync_repository"
REVIEW_TASK = "cartograph.review_pull_request"
T = TypeVar("T")

app = Celery("cartograph", broker=BROKER, backend=BROKER)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue="cartograph",
    broker_connection_retry_on_startup=True,
    result_expires=3600,
    worker_hijack_root_logger=False,
)
log = logging.getLogger("cartograph.workers")


@signals.after_setup_logger.connect
def _structured_logs(**_kwargs) -> None:
    logs.configure()


class _Retry(Exception):
    def __init__(self, cause: TransientSyncError) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _raise_retry(exc: TransientSyncError) -> None:
    raise _Retry(exc)


@app.task(name=SYNC_TASK, bind=True, max_retries=MAX_ATTEMPTS - 1)
def sync_repository(self, repo: str, after_sha: str | None = None) -> dict:
    """Sync `repo` to the newest commit announced (`after_sha` announces one more)."""
    state = RedisJobState(BROKER)
    if after_sha:
        state.announce(repo, after_sha)
    store = open_store(os.environ.get("CARTOGRAPH_STORE"))
    try:
        try:
            outcome = run_job(store, repo, state, default_data_dir(), on_transient=_raise_retry)
        except _Retry as retry:
            try:
                raise self.retry(exc=retry.cause, countdown=min(2**self.request.retries, 32))
            except MaxRetriesExceededError:
                give_up(store, repo, state, str(retry.cause))
                outcome = None
        if outcome is not None and outcome.status == "busy":
            # another worker runs this repository's job: it takes the newest commit too
            raise self.retry(countdown=2, max_retries=None)
    finally:
        store.close()
    if state.finish(repo):
        app.send_task(SYNC_TASK, args=[repo], ignore_result=True)
    if outcome is None:
        return {"repo": repo, "status": "failed"}
    return {
        "repo": repo,
        "status": outcome.status,
        "error": outcome.error,
        "synced": [r.log_fields() for r in outcome.results],
    }


@app.task(name=REVIEW_TASK)
def review_pull_request(repo: str, number: int) -> dict:
    """Compute (and post, when configured) the impact report of a pull request's head."""
    from cartograph.reviews import review_pull_request as review

    store = open_store(os.environ.get("CARTOGRAPH_STORE"))
    try:
        done = review(store, repo, number, default_data_dir())
    finally:
        store.close()
    return {"repo": repo, "number": number, "verdict": done.verdict, "error": done.error}


class CeleryJobRunner:
    """What the API uses with a broker: announce in Redis, start a worker job when needed. A
    broker that cannot be reached is Unavailable, said as such (every call connects anew: the
    runner needs no restart when the broker is back)."""

    def __init__(self, broker_url: str) -> None:
        self.url = broker_url
        self.state = RedisJobState(broker_url)
        # a sender of its own for this broker: the worker's module-level app keeps the
        # connections it made first, so pointing it at another broker would still send there
        self.sender = Celery("cartograph-sender", broker=broker_url)
        self.sender.conf.update(task_default_queue=app.conf.task_default_queue)

    def push(self, repo: str, sha: str) -> bool:
        def announce() -> bool:
            if self.state.announce(repo, sha):
                self.sender.send_task(SYNC_TASK, args=[repo], ignore_result=True)
                return True
            return False

        return self._reaching_broker(announce)

    def review(self, repo: str, number: int) -> None:
        self._reaching_broker(
            lambda: self.sender.send_task(REVIEW_TASK, args=[repo, number], ignore_result=True)
        )

    def _reaching_broker(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except (RedisError, OperationalError, OSError) as exc:
            raise Unavailable(
                f"the job broker at {redact(self.url)} cannot be reached "
                f"({type(exc).__name__}: {redact(str(exc))})"
            ) from exc
