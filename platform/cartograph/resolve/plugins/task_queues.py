"""Task queues: a function decorated as a task (Celery's `@app.task` / `@shared_task`,
Dramatiq's `@dramatiq.actor`, RQ's `@job(...)`, Huey's `@huey.task()`) becomes the queue's
task object, and the methods that enqueue or run it (`add.delay(1, 2)`,
`add.apply_async(...)`, `add.s(...)` in a chain, `actor.send(...)`) run the function, on a
worker (via `framework`). Any other attribute of the task is the framework's.

The table is data: a queue's package, the decorators that make a task, and the task's
methods that run it. Only where the package is outside the repository."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from cartograph.resolve.core import Found
from cartograph.resolve.plugins.registration import decorated_by, registrations
from cartograph.resolve.values import External, Function, Runs

if TYPE_CHECKING:
    from cartograph.resolve.python import Program


class TaskQueue(NamedTuple):
    makers: frozenset[str]  # the decorators that make a task
    runs: frozenset[str]  # the task's methods that run the function (now or on a worker)


CELERY_RUNS = frozenset(
    {"delay", "apply_async", "apply", "run", "s", "si", "signature", "map", "starmap", "chunks"}
)
TASK_QUEUES = {
    "celery": TaskQueue(
        frozenset({"task", "shared_task"}),
        CELERY_RUNS,
    ),
    "dramatiq": TaskQueue(frozenset({"actor"}), frozenset({"send", "send_with_options", "fn"})),
    "rq": TaskQueue(frozenset({"job"}), frozenset({"delay"})),
    "huey": TaskQueue(
        frozenset({"task", "periodic_task"}), frozenset({"call_local", "s", "schedule"})
    ),
}

TASK_MAKERS = frozenset(name for queue in TASK_QUEUES.values() for name in queue.makers)


def task_queue_of(program: Program, function: Function) -> External | None:
    """The queue package whose decorator made the function a task, or None."""

    def compute() -> External | None:
        for registration in registrations(program, function.module, function.scope):
            owner = registration.owner
            if not isinstance(owner, External):
                continue
            queue = TASK_QUEUES.get(owner.top)
            if queue is not None and registration.name in queue.makers:
                return owner
        return None

    if not decorated_by(function.module, function.scope, TASK_MAKERS):
        return None
    key = ("task-queue", function.module.path, function.scope)
    return program.memo.cached(key, compute, None)


class TaskQueuePlugin:
    def decorated_attribute(self, program: Program, function: Function, name: str) -> Found | None:
        queue = task_queue_of(program, function)
        if queue is None:
            return None
        if name in TASK_QUEUES[queue.top].runs:
            return Found(Runs(function, queue), "framework")
        return Found(queue, "framework")  # the framework's own attribute of the task object
