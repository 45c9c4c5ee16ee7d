"""A push a webhook received: the tracked repository it is for, and its bookkeeping (a
redelivery is recognised by its delivery id; the newest pushed commit is recorded)."""

from __future__ import annotations

from cartograph.errors import NotFound
from cartograph.model import TrackedRepo
from cartograph.store.interfaces import Store
from cartograph.sync import now
from cartograph.webhooks import Delivery


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
