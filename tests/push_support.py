"""Helpers for the push-triggered sync tests: a bare git repository playing the hosted remote,
signed webhook deliveries, and "the graph reflects this commit exactly"."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from cartograph.store import open_store
from indexing_support import differences, fresh_snapshot, snapshot

AUTHOR = ["-c", "user.name=Dev", "-c", "user.email=dev@example.com"]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *AUTHOR, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


class Remote:
    """A bare repository (the "hosted" remote) and a developer clone that pushes to it."""

    def __init__(self, folder: Path, files: dict[str, str], branch: str = "main") -> None:
        self.bare = folder / "remote.git"
        self.dev = folder / "dev"
        self.branch = branch
        folder.mkdir(parents=True, exist_ok=True)
        git(folder, "init", "-q", "--bare", "-b", branch, str(self.bare))
        git(folder, "init", "-q", "-b", branch, str(self.dev))
        git(self.dev, "remote", "add", "origin", str(self.bare))
        self.commit("initial", write=files)
        self.push()

    @property
    def url(self) -> str:
        return f"file://{self.bare}"

    def commit(
        self,
        message: str,
        write: dict[str, str] | None = None,
        delete: list[str] | tuple[str, ...] = (),
        rename: dict[str, str] | None = None,
    ) -> str:
        for rel, text in (write or {}).items():
            path = self.dev / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for old, new in (rename or {}).items():
            (self.dev / new).parent.mkdir(parents=True, exist_ok=True)
            git(self.dev, "mv", old, new)
        for rel in delete:
            git(self.dev, "rm", "-q", rel)
        git(self.dev, "add", "-A")
        git(self.dev, "commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return git(self.dev, "rev-parse", "HEAD")

    def push(self, force: bool = False, branch: str | None = None) -> str:
        target = branch or self.branch
        git(self.dev, "push", "-q", *(["--force"] if force else []), "origin", f"HEAD:{target}")
        return self.head()

    def reset_hard(self, sha: str) -> None:
        git(self.dev, "reset", "-q", "--hard", sha)


def github_delivery(secret: str, sha: str, before: str = "", branch: str = "main", event="push"):
    body = json.dumps(
        {"ref": f"refs/heads/{branch}", "before": before or "0" * 40, "after": sha}
    ).encode()
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": f"sha256={signature}",
        "Content-Type": "application/json",
    }
    return headers, body


def wait_for_indexed(store, repo: str, sha: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        current = store.repos.get_repo(repo)
        seen = current.indexed_sha if current else None
        if seen == sha:
            return
        time.sleep(0.1)
    tracked = store.tracking.get_tracked(repo)
    raise AssertionError(
        f"{repo} not indexed at {sha} within {timeout} s (indexed: {seen}; "
        f"last error: {tracked.last_error if tracked else '?'})"
    )


def assert_graph_matches_tree(store, repo: str, tree: Path) -> None:
    """The graph of `repo` equals a from-scratch index of `tree` (the worktree the sync
    checked out), the Repo node's own properties left aside (url, branch and root differ)."""

    def without_repo_node(parts: dict[str, set[str]]) -> dict[str, set[str]]:
        parts["nodes"] = {n for n in parts["nodes"] if '"label": "Repo"' not in n}
        return parts

    synced = without_repo_node(snapshot(store, repo))
    fresh = without_repo_node(fresh_snapshot(store, tree, repo))
    problems = differences(synced, fresh, ("the synced graph", "a fresh index"))
    assert not problems, "the synced graph differs from a fresh index\n" + "\n".join(problems)


class Deployment:
    """Redis + Neo4j (running servers), one API process (`url`, set by whoever starts it) and
    `workers` Celery worker processes (solo pool: each runs one job at a time, with parallel
    parsers, as docker-compose.yml runs them)."""

    def __init__(
        self,
        tmp: Path,
        redis_url: str,
        neo4j_url: str,
        workers: int = 1,
        quick_lapse: bool = True,
    ) -> None:
        self.tmp = tmp
        self.data = tmp / "data"
        self.env = {
            "CARTOGRAPH_STORE": neo4j_url,
            "CARTOGRAPH_BROKER": redis_url,
            "CARTOGRAPH_DATA": str(self.data),
        }
        if quick_lapse:  # a killed worker's marks must not hold the next sync for long
            self.env.update(CARTOGRAPH_JOB_LOCK_TTL="3", CARTOGRAPH_JOB_QUEUED_TTL="4")
        self.count = workers
        self.store = open_store(neo4j_url)
        self.workers: list[subprocess.Popen] = []
        self.generation = 0
        self.url = ""

    def start_workers(self) -> None:
        self.generation += 1
        for n in range(self.count):
            command = [
                sys.executable, "-m", "celery", "-A", "cartograph.workers.celery_app",
                "worker", "--pool", "solo", "--queues", "cartograph",
                "--hostname", f"w{self.generation}-{n}@%h", "--without-gossip",
                "--without-mingle", "--without-heartbeat", "--loglevel", "INFO",
            ]  # fmt: skip
            log = open(self._log(n), "wb")  # noqa: SIM115
            worker = subprocess.Popen(
                command,
                env={**os.environ, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed as a whole
            )
            self.workers.append(worker)

    def _log(self, n: int) -> Path:
        return self.tmp / f"worker-{self.generation}-{n}.log"

    def kill_workers(self) -> None:
        for worker in self.workers:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
        self.workers = []

    def stop_workers(self) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
        self.workers = []

    def worker_log(self, full: bool = False) -> str:
        text = "".join(
            self._log(n).read_text(errors="replace")
            for n in range(self.count)
            if self._log(n).exists()
        )
        return text if full else text[-4000:]
