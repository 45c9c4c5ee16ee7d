"""Run the HTTP app for a test: in a thread of this process (uvicorn, real sockets), or as a
subprocess (`cartograph serve`-like, with its own environment)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from redis_server import free_port


def _wait_ready(url: str, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the API process exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the API at {url} did not answer within {timeout} s")


@contextlib.contextmanager
def serve_in_thread(app) -> Iterator[str]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url)
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@contextlib.contextmanager
def serve_in_process(env: dict[str, str], log: Path, workers: int = 1) -> Iterator[str]:
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "cartograph.api.app:app_from_environment",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--log-level", "warning",
    ]  # fmt: skip
    with serving(command, {**os.environ, **env}, log, port) as url:
        yield url


@contextlib.contextmanager
def serving(
    command: list[str], env: dict[str, str], log: Path, port: int, timeout: float = 30
) -> Iterator[str]:
    """`command` (a server on `port` of this machine) running with exactly `env`, its output
    in `log`, until the block ends; its URL once `/healthz` answers (the log's end in the error
    when it never does)."""
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            _wait_ready(url, process, timeout)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}:\n{log.read_text(errors='replace')[-3000:]}") from None
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
