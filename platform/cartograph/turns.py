"""The few heavy questions a process computes at once: an impact, the tests of an agent's edit,
a task's map (`locate`). The others wait their turn.

They are pure Python, so threads share one core's worth of them (the interpreter's lock): more
at once answer no sooner, and each holds what it computes while it runs (an impact of a
Django change: its 30,000 reached symbols and 18,000 tests; a map: its thousands of scored
candidates), which the process keeps as its own memory afterwards. Sixteen threads asking
impact and locate on Django in Neo4j for 45 s peaked at 956-1,060 MB all at once, and at
483-523 MB two at a time, answering as many questions (49-56 against 47-52; `docs/deploy.md`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

HEAVY_AT_ONCE = max(1, int(os.environ.get("CARTOGRAPH_HEAVY_AT_ONCE", "2")))
_TURNS = threading.BoundedSemaphore(HEAVY_AT_ONCE)
_HOLDS_A_TURN = threading.local()


@contextmanager
def heavy_turn(clock: Callable[[], float] = time.monotonic) -> Iterator[float]:
    """Wait for one of the process's HEAVY_AT_ONCE turns and hold it for the block; gives the
    time waited (by `clock`, read only when a turn is not free), which a caller's time budget
    does not count. A thread holding a turn already takes no second one."""
    if getattr(_HOLDS_A_TURN, "held", False):
        yield 0.0
        return
    waited = 0.0
    if not _TURNS.acquire(blocking=False):  # the clock is read only when there is a wait
        asked = clock()
        _TURNS.acquire()
        waited = clock() - asked
    _HOLDS_A_TURN.held = True
    try:
        yield waited
    finally:
        _HOLDS_A_TURN.held = False
        _TURNS.release()
