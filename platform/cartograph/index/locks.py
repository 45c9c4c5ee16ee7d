"""The repository's index lock: one index run (or other write that must not interleave with
one, such as deleting the repository) at a time. It lapses LOCK_TTL after its holder stops
refreshing it; a holder known to be dead (a process of this machine that no longer runs) is
not waited out."""

from __future__ import annotations

import os
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cartograph.errors import ErrorKind
from cartograph.index.results import IndexingError
from cartograph.store.interfaces import Store, StoreError

LOCK_TTL = 120.0  # a crashed run's lock lapses after this
LOCK_REFRESH_AFTER = LOCK_TTL / 6  # a write batch refreshes the lock when it is this old


def lock_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@contextmanager
def repository_lock(store: Store, repo: str, timeout: float = 600.0) -> Iterator[None]:
    """Hold a repository's index lock (what an index run holds) for other writes that must not
    interleave with one, such as deleting the repository."""
    owner = lock_owner()
    acquire(store, repo, owner, timeout, None)
    try:
        yield
    finally:
        release(store, repo, owner)


def acquire(
    store: Store, repo: str, owner: str, timeout: float, progress: Callable[[str], None] | None
) -> None:
    deadline = time.monotonic() + timeout
    told = False
    while not store.index.acquire_index_lock(repo, owner, LOCK_TTL, _dead_holder(store, repo)):
        if time.monotonic() > deadline:
            raise IndexingError(
                f"another index run of {repo!r} holds its lock; gave up after "
                f"{timeout:.0f} s (a lock expires {LOCK_TTL:.0f} s after its "
                f"holder stops)",
                ErrorKind.CONFLICT,
            )
        if not told and progress:
            progress(f"waiting for another index run of {repo!r} to finish")
            told = True
        time.sleep(0.1)


def release(store: Store, repo: str, owner: str) -> None:
    """Release the index lock; when the store is gone (the error that stopped the run is the
    one to report), the lock expires by itself."""
    propagating = sys.exc_info()[0] is not None
    try:
        store.index.release_index_lock(repo, owner)
    except StoreError:
        if not propagating:
            raise


def _dead_holder(store: Store, repo: str) -> str | None:
    """The lock's holder when it is a process of this machine that no longer runs (killed):
    its lock need not be waited out."""
    holder = store.index.index_lock_holder(repo)
    if not holder:
        return None
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return holder
    except PermissionError:
        return None  # alive, another user's
    return None
