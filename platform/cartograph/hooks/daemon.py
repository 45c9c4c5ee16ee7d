"""A warm process for the hooks: each `cartograph hook EVENT` is a fresh process, and starting
Python with the store's modules costs more than the hook's own work. The first hook of a session
starts `cartograph hook serve` (detached); later hook runs send it their event over a Unix socket
and print its answer, importing nothing but the standard library.

- One daemon per store, data folder and version of this code (the socket's name says which), so
  a changed installation gets a new one and the old one idles out.
- It serves its clients concurrently, a thread each (at most MAX_CLIENTS; past that a client
  is closed at once and runs its hook itself), with the same handlers as a hook run
  (`events.HANDLERS`), each store opened once. A client has REQUEST_DEADLINE seconds to send
  its whole request ($CARTOGRAPH_HOOKD_READ_DEADLINE), so one that connects and sends nothing
  delays nobody; the events that use a store or a team server take turns on it (one lock per
  backend: a store's connection is not shared by two events at once), the others
  (pre-task, pre-search) need none.
- The socket is the user's own (mode 0600, in the data folder); it exits after IDLE_SECONDS
  without a request ($CARTOGRAPH_HOOKD_IDLE), or when its socket file is gone.
- Nothing depends on it: when it is not there, or does not answer within CLIENT_TIMEOUT, the hook
  runs in its own process as before (and starts one for next time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from cartograph.hooks.paths import hooks_dir
from cartograph.private import private_dir

IDLE_SECONDS = float(os.environ.get("CARTOGRAPH_HOOKD_IDLE", "1800"))
CLIENT_TIMEOUT = 20.0  # seconds a hook waits for the daemon's answer (a hook's own limit: 10+)
CONNECT_TIMEOUT = 0.2
MAX_REQUEST = 4 * 1024 * 1024
MAX_CLIENTS = 32  # clients served at once
REQUEST_DEADLINE = 10.0  # seconds a client has to send its whole request


def _request_deadline() -> float:
    try:
        seconds = float(os.environ.get("CARTOGRAPH_HOOKD_READ_DEADLINE") or REQUEST_DEADLINE)
    except ValueError:
        return REQUEST_DEADLINE
    return seconds if seconds > 0 else REQUEST_DEADLINE


class NotRunning(Exception):
    """No daemon answered: the hook runs in its own process."""


def _code_version() -> str:
    """Sizes and times of this package's files: a changed installation, a new daemon."""
    here = os.path.dirname(os.path.abspath(__file__))
    parts = []
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            info = os.stat(os.path.join(here, name))
            parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return ";".join(parts)


def socket_path(store_url: str | None) -> str:
    store = store_url or os.environ.get("CARTOGRAPH_STORE") or ""
    key = hashlib.sha256(f"{store}\0{hooks_dir()}\0{_code_version()}".encode()).hexdigest()[:16]
    return os.path.join(hooks_dir(), f"hookd-{key}.sock")


def call(store_url: str | None, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The daemon's answer to one event (None: no answer). NotRunning when there is none."""
    path = socket_path(store_url)
    if not os.path.exists(path):
        raise NotRunning
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(CONNECT_TIMEOUT)
    try:
        client.connect(path)
    except OSError:
        client.close()
        raise NotRunning from None
    try:
        client.settimeout(CLIENT_TIMEOUT)
        request = {"event": event, "payload": payload, "store": store_url,
                   "env": _forwarded_env()}  # fmt: skip
        client.sendall(json.dumps(request).encode() + b"\n")
        reply = _read_line(client)
    except OSError:
        raise NotRunning from None
    finally:
        client.close()
    if not reply:
        raise NotRunning
    answer = json.loads(reply)
    if "error" in answer:
        raise NotRunning  # the daemon failed on this one: the hook runs it itself
    return answer.get("answer")


def _forwarded_env() -> dict[str, str]:
    """What decides a hook's answer besides its input: the team server to talk to."""
    return {k: os.environ[k] for k in ("CARTOGRAPH_SERVER", "CARTOGRAPH_TOKEN") if k in os.environ}


def _read_line(connection: socket.socket, deadline: float | None = None) -> bytes:
    """Bytes up to a newline (or the peer's end, or MAX_REQUEST); with `deadline` (a
    `time.monotonic()`), TimeoutError once it passes, however the bytes trickle in."""
    chunks = []
    size = 0
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not come in time")
            connection.settimeout(left)
        chunk = connection.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > MAX_REQUEST:
            break
    return b"".join(chunks)


def start(store_url: str | None) -> None:
    """Start a daemon for this store in the background (it gives up if one is there)."""
    command = [sys.executable, "-m", "cartograph.cli", "hook", "serve"]
    if store_url:
        command += ["--store", store_url]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def serve(store_url: str | None) -> int:
    """The daemon: answer events on the socket until idle."""
    path = socket_path(store_url)
    private_dir(os.path.dirname(path))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        if os.path.exists(path):
            try:
                probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                probe.settimeout(CONNECT_TIMEOUT)
                probe.connect(path)
                probe.close()
                return 0  # another one is serving
            except OSError:
                os.unlink(path)  # left by one that died
        server.bind(path)
    finally:
        os.umask(old_umask)
    server.listen(64)
    server.settimeout(1.0)
    backends: dict[tuple, Any] = {}
    slots = threading.BoundedSemaphore(MAX_CLIENTS)
    deadline = _request_deadline()
    last = time.monotonic()
    try:
        while time.monotonic() - last < IDLE_SECONDS and os.path.exists(path):
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            last = time.monotonic()
            if not slots.acquire(blocking=False):
                connection.close()  # too many at once: this client runs its hook itself
                continue
            threading.Thread(
                target=_serve_client, args=(connection, backends, slots, deadline), daemon=True
            ).start()
    finally:
        server.close()
        if os.path.exists(path):
            os.unlink(path)
    return 0


def _serve_client(
    connection: socket.socket,
    backends: dict[tuple, Any],
    slots: threading.BoundedSemaphore,
    deadline: float,
) -> None:
    """One client: its request (within `deadline` seconds), its answer."""
    try:
        with connection:
            try:
                request = json.loads(_read_line(connection, time.monotonic() + deadline))
                reply = _answer(backends, request)
            except Exception as exc:  # the client runs the hook itself
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            connection.settimeout(CLIENT_TIMEOUT)
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps(reply).encode() + b"\n")
    finally:
        slots.release()


def _answer(backends: dict[tuple, Any], request: dict) -> dict:
    """One event, as the client's environment would answer it (its team server, if any)."""
    from cartograph.hooks.run import answer_here

    env = request.get("env") or {}
    forwarded = {k: str(env[k]) for k in ("CARTOGRAPH_SERVER", "CARTOGRAPH_TOKEN") if k in env}
    answer = answer_here(request["event"], request["payload"], request.get("store"), backends,
                         env=forwarded)  # fmt: skip
    return {"answer": answer}
