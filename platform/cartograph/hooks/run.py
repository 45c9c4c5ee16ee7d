"""`cartograph hook EVENT [--store URL] [--harness claude|gemini]`: one hook run, as the harness
starts it — a fresh process, the event's JSON on stdin, the answer's JSON on stdout, exit 0.
Claude Code's shapes by default; Gemini CLI's translated in and out (`protocol.from_gemini`).

It fails open: a broken store, an unreachable server, bad JSON or a bug give exit 0 and no
decision (the agent goes on as if no hook ran); the error goes to
$CARTOGRAPH_DATA/hooks/errors.log. It is imported without the catalogue or the parsers, so a
per-tool hook costs little more than starting Python and opening the store."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from cartograph.hooks import events

USAGE = (
    "usage: cartograph hook {" + ",".join(events.HANDLERS) + "} [--store URL] "
    "[--harness claude|gemini]"
)


def backend_for(store_url: str | None, cwd: str) -> Any:
    """The team server when one is configured for this work tree (`hooks install --server`, or
    CARTOGRAPH_SERVER / CARTOGRAPH_TOKEN), else the local store."""
    from cartograph.hooks.config import server_for

    server = server_for(cwd)
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


def main(argv: Sequence[str]) -> int:
    from cartograph.hooks import protocol

    args = list(argv)
    store_url = _option(args, "--store")
    harness = _option(args, "--harness") or "claude"
    if len(args) != 1 or args[0] not in events.HANDLERS or harness not in protocol.HARNESSES:
        print(USAGE, file=sys.stderr)
        return 2
    event = args[0]
    try:
        payload = json.loads(sys.stdin.read() or "{}")
        if not isinstance(payload, dict):
            return 0
        if harness == "gemini":
            payload = protocol.from_gemini(payload)
        handler = events.HANDLERS[event]
        backend: Any = (
            None
            if event in events.NEEDS_NO_BACKEND
            else backend_for(store_url, str(payload.get("cwd") or os.getcwd()))
        )
        answer = handler(payload, backend)
        if harness == "gemini":
            answer = protocol.for_gemini(event, answer)
    except Exception:  # fail open: the agent goes on as if no hook ran
        _log(event, traceback.format_exc())
        return 0
    if answer is not None:
        sys.stdout.write(json.dumps(answer))
        sys.stdout.flush()
    return 0


def _log(event: str, text: str) -> None:
    try:
        folder = events.state_dir().parent
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "errors.log", "a", encoding="utf-8") as log:
            log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} hook {event}\n{text}\n")
    except OSError:
        pass
