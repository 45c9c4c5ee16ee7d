"""A push a webhook received: the tracked repository it is for, and its bookkeeping (a
redelivery is recognised by its delivery id; the newest pushed commit is recorded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from cartograph.errors import CartographError, NotFound, Unavailable
from cartograph.jobs import JobRunner
from cartograph.model import TrackedRepo
from cartograph.store.interfaces import Store
from cartograph.sync import now
from cartograph.webhooks import Delivery

T = TypeVar("T")


def tracked_for_push(store: Store, repo: str) -> TrackedRepo:
    tracked = store.tracking.get_tracked(repo)
    if tracked is None:
        raise NotFound(f"{repo} is not tracked")
    return tracked


def accept_push(store: Store, repo: str, delivery: Delivery) -> bool:
    """Record a push; False when its delivery was received before (nothing to do)."""
    if delivery.delivery_id and not store.tracking.record_delivery(repo, delivery.delivery_id):
        return False
    store.tracking.update_tracked(repo, pushed_sha=delivery.sha, pushed_at=now())
    return True


def queue_push(store: Store, runner: JobRunner, repo: str, delivery: Delivery) -> bool | None:
    """Record a push and queue its sync: whether a job started (None: a redelivery, nothing
    to do). The delivery is recorded first, so two copies arriving at once queue one sync; when
    the job cannot be queued (the broker is down), the record is taken back, so the forge's
    redelivery is taken instead of answered "duplicate" — and Unavailable is raised."""
    if not accept_push(store, repo, delivery):
        return None
    return start_or_forget(
        store, repo, delivery, lambda: runner.push(repo, delivery.sha), f"the push of {repo}"
    )


def start_or_forget(
    store: Store, repo: str, delivery: Delivery, start: Callable[[], T], what: str
) -> T:
    """Start a delivery's job; when it cannot be queued (the broker is down), the delivery's
    record is taken back, so the forge's redelivery is taken instead of answered "duplicate"
    — and Unavailable is raised."""
    try:
        return start()
    except Exception as exc:
        if delivery.delivery_id:
            store.tracking.forget_delivery(repo, delivery.delivery_id)
        cause = str(exc) if isinstance(exc, CartographError) else f"{type(exc).__name__}: {exc}"
        raise Unavailable(
            f"{what} could not be queued: {cause}. Nothing was recorded: redeliver it once "
            "the broker answers again (this server reconnects by itself, no restart needed)"
        ) from exc
