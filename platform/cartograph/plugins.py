"""What the optional parts of Cartograph add to the core, found through entry points — the core
never imports them (docs/architecture.md, Layers):

- `cartograph.commands`: functions `add(subcommands, common)` that add a CLI command
  (`serve`, from cartograph.api);
- `cartograph.job_runners`: a job runner for a broker URL's scheme (`redis`, from
  cartograph.workers), called with the URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from cartograph.errors import Unavailable

if TYPE_CHECKING:
    from cartograph.jobs import JobRunner

COMMANDS = "cartograph.commands"
JOB_RUNNERS = "cartograph.job_runners"
ENV_BROKER = "CARTOGRAPH_BROKER"


def commands() -> list[Callable[..., Any]]:
    """The command adders installed (each adds one command to the CLI's parser)."""
    return [point.load() for point in entry_points(group=COMMANDS)]


def job_runner(broker_url: str) -> JobRunner:
    """The job runner for a broker URL: sync jobs queued for workers."""
    scheme = broker_url.partition("://")[0].lower()
    for point in entry_points(group=JOB_RUNNERS):
        if point.name == scheme:
            try:
                factory = point.load()
            except ImportError as exc:
                raise Unavailable(
                    f"the {scheme}:// broker needs the workers' libraries ({exc.name} is "
                    "missing): pip install 'cartograph[workers]'"
                ) from exc
            return factory(broker_url)
    known = ", ".join(sorted(p.name for p in entry_points(group=JOB_RUNNERS))) or "none installed"
    raise Unavailable(
        f"no job runner for {scheme}:// brokers (known: {known}); the Redis broker comes with "
        "pip install 'cartograph[workers]'"
    )


def configured_job_runner() -> JobRunner | None:
    """The runner of the broker CARTOGRAPH_BROKER names; None without one (jobs run in the
    caller)."""
    url = os.environ.get(ENV_BROKER)
    return job_runner(url) if url else None
