"""TrackingStore: tracked repositories and the webhook deliveries seen."""

from __future__ import annotations

import pytest
from cartograph.model import TrackedRepo


def test_tracked_repositories_are_written_updated_and_removed(stores):
    store = stores.open()
    tracking = store.tracking
    tracking.track_repo(TrackedRepo("web", "https://git.example.org/web.git", "main", "s3cret"))
    tracking.track_repo(TrackedRepo("api", "https://git.example.org/api.git", "trunk"))
    assert [t.name for t in tracking.tracked_repos()] == ["api", "web"]
    tracking.update_tracked("web", pushed_sha="abc123", last_job_seconds=1.5)
    web = tracking.get_tracked("web")
    assert (web.secret, web.pushed_sha, web.last_job_seconds) == ("s3cret", "abc123", 1.5)
    with pytest.raises(ValueError, match="not a field"):
        tracking.update_tracked("web", colour="blue")
    tracking.untrack_repo("web")
    assert tracking.get_tracked("web") is None
    assert [t.name for t in tracking.tracked_repos()] == ["api"]


def test_a_delivery_is_new_once_per_repository(stores):
    store = stores.open()
    tracking = store.tracking
    assert tracking.record_delivery("web", "d-1")
    assert not tracking.record_delivery("web", "d-1")
    assert tracking.record_delivery("api", "d-1")  # ids are per repository
    tracking.untrack_repo("web")  # forgets its deliveries too
    assert tracking.record_delivery("web", "d-1")
