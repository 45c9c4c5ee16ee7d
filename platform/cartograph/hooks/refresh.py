"""After a local edit: the file re-indexed and the tests that reach the edit found, in a process
of its own, so the hook that asked returns at once. `start_refresh` writes the job and starts
`cartograph hook refresh JOB` detached from the harness; the worker does the job and leaves what
it found for the harness session's next hook (`events.leave_context`). Jobs for one repository
run one at a time (a lock file), in the order they were started."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

from cartograph.hooks.paths import hooks_dir
from cartograph.private import open_private, private_dir, write_private


def _jobs() -> Path:
    return Path(hooks_dir()) / "jobs"


def start_refresh(
    store_url: str | None,
    repo: str,
    root: Path,
    path: str,
    lines: list[tuple[int, int]] | None,
    harness: str,
) -> Path:
    folder = private_dir(_jobs(), within=hooks_dir())
    job = folder / f"{time.time_ns()}-{uuid.uuid4().hex[:8]}.json"
    write_private(job, json.dumps({"store": store_url, "repo": repo, "root": str(root),
                               "path": path, "lines": lines, "harness": harness}))  # fmt: skip
    command = [sys.executable, "-m", "cartograph.cli", "hook", "refresh", str(job)]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the harness may end the hook's process group
        close_fds=True,
    )
    return job


def run_refresh(job_file: str) -> int:
    """The worker: one job, under the repository's lock; what it finds goes to the session."""
    from cartograph.hooks.backends import LocalBackend
    from cartograph.hooks.events import leave_context

    job = json.loads(Path(job_file).read_text())
    lock_path = _jobs() / f"{job['repo']}.lock"
    with open_private(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            lines = [tuple(pair) for pair in job["lines"]] if job["lines"] else None
            found = LocalBackend(job["store"]).refresh(
                job["repo"],
                Path(job["root"]),
                job["path"],
                lines,
            )
            leave_context(job["harness"], f"Cartograph: {found}.")
        finally:
            Path(job_file).unlink(missing_ok=True)
            fcntl.flock(lock, fcntl.LOCK_UN)
    return 0


def wait_for_refreshes(timeout: float = 60.0) -> bool:
    """True once no job is left (for tests and scripts that need the graph up to date)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        folder = _jobs()
        if not folder.exists() or not any(folder.glob("*.json")):
            return True
        time.sleep(0.05)
    return False
