"""`cartograph hook EVENT [--store URL] [--harness claude|gemini]`: one hook run, as the harness
starts it — a fresh process, the event's JSON on stdin, the answer's JSON on stdout, exit 0.
Claude Code's shapes by default; Gemini CLI's translated in and out (`protocol.from_gemini`).

It fails open: a broken store, an unreachable server, bad JSON or a bug give exit 0 and no
decision (the agent goes on as if no hook ran); the error goes to
$CARTOGRAPH_DATA/hooks/errors.log. It is imported without the catalogue or the parsers, so a
per-tool hook costs little more than starting Python and opening the store."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

USAGE = (
    "usage: cartograph hook {session-start,prompt,pre-edit,post-edit,pre-task,pre-search,"
    "session-end} [--store URL] [--harness claude|gemini]"
)


def backend_for(store_url: str | None, cwd: str, env: Mapping[str, str] | None = None) -> Any:
    """The team server when one is configured for this work tree (`hooks install --server`, or
    CARTOGRAPH_SERVER / CARTOGRAPH_TOKEN in `env`, this process's environment by default), else
    the local store."""
    from cartograph.hooks.config import server_for

    server = server_for(cwd, env)
    if server is not None:
        from cartograph.hooks.backends import ServerBackend

        return ServerBackend(server.url, server.token, server.repo)
    from cartograph.hooks.backends import LocalBackend

    return LocalBackend(store_url)


def _option(args: list[str], name: str) -> str | None:
    if name not in args:
        return None
    at = args.index(name)
    value = args[at + 1] if at + 1 < len(args) else None
    del args[at : at + 2]
    return value


COMMANDS = (
    "session-start",
    "prompt",
    "pre-edit",
    "post-edit",
    "pre-task",
    "pre-search",
    "session-end",
)  # fmt: skip  (events.HANDLERS: this module answers through the daemon without importing it)


def main(argv: Sequence[str]) -> int:
    from cartograph.hooks import protocol

    args = list(argv)
    if args[:1] == ["refresh"] and len(args) == 2:  # the worker an edit started
        from cartograph.hooks.refresh import run_refresh

        try:
            return run_refresh(args[1])
        except Exception:  # nobody waits on it: the log says what went wrong
            _log("refresh", traceback.format_exc())
            return 0
    store_url = _option(args, "--store")
    if args == ["serve"]:  # the warm process later hook runs talk to
        from cartograph.hooks.daemon import serve

        return serve(store_url)
    harness = _option(args, "--harness") or "claude"
    if len(args) != 1 or args[0] not in COMMANDS or harness not in protocol.HARNESSES:
        print(USAGE, file=sys.stderr)
        return 2
    event = args[0]
    try:
        payload = json.loads(sys.stdin.read() or "{}")
        if not isinstance(payload, dict):
            return 0
        if harness == "gemini":
            payload = protocol.from_gemini(payload)
        answer = _answer(event, payload, store_url)
        if harness == "gemini":
            answer = protocol.for_gemini(event, answer)
    except Exception:  # fail open: the agent goes on as if no hook ran
        _log(event, traceback.format_exc())
        return 0
    if answer is not None:
        sys.stdout.write(json.dumps(answer))
        sys.stdout.flush()
    return 0


def _answer(event: str, payload: dict[str, Any], store_url: str | None) -> Any:
    """The daemon's answer when one is serving this store; else answered here (and a daemon
    started for the next hook, unless CARTOGRAPH_HOOKD=0)."""
    use_daemon = os.environ.get("CARTOGRAPH_HOOKD", "1") != "0"
    if use_daemon:
        from cartograph.hooks import daemon

        try:
            return daemon.call(store_url, event, payload)
        except daemon.NotRunning:
            if event != "session-end":
                daemon.start(store_url)
    return answer_here(event, payload, store_url)


_BACKENDS = threading.Lock()  # the daemon's threads share its backends


def answer_here(
    event: str,
    payload: dict[str, Any],
    store_url: str | None,
    backends: dict | None = None,
    env: Mapping[str, str] | None = None,
) -> Any:
    """The event answered in this process (a hook run's, or the daemon's, which keeps its
    `backends` — each store opened once — by store, folder and team server, and answers from
    several threads: an event holds its backend's lock while it uses it). `env` holds
    CARTOGRAPH_SERVER / CARTOGRAPH_TOKEN as the client has them (default: this process's)."""
    from cartograph.hooks import events, protocol

    backend: Any = None
    turn: Any = contextlib.nullcontext()
    if event not in events.NEEDS_NO_BACKEND:
        env = os.environ if env is None else env
        cwd = str(payload.get("cwd") or os.getcwd())
        which = (store_url, cwd, env.get("CARTOGRAPH_SERVER"), env.get("CARTOGRAPH_TOKEN"))
        cache = backends if backends is not None else {}
        with _BACKENDS:
            if which not in cache:
                cache[which] = (backend_for(store_url, cwd, env), threading.Lock())
            backend, turn = cache[which]
    with turn:
        answer = events.HANDLERS[event](payload, backend)
    return protocol.capped(events.with_context(payload, answer))


def _log(event: str, text: str) -> None:
    from cartograph.hooks.paths import hooks_dir
    from cartograph.private import open_private, private_dir

    try:
        private_dir(hooks_dir())
        with open_private(os.path.join(hooks_dir(), "errors.log"), "a") as log:
            log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} hook {event}\n{text}\n")
    except OSError:
        pass
