"""`cartograph serve`: the command the server adds to the CLI (entry point
`cartograph.commands`; the core's CLI finds it there and never imports this package)."""

from __future__ import annotations

import argparse
import os

from cartograph.errors import Unavailable

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_serve_command(
    commands: argparse._SubParsersAction, common: argparse.ArgumentParser
) -> None:
    serve = commands.add_parser(
        "serve",
        parents=[common],
        help="run the HTTP app: MCP at /mcp, webhooks, repository API, health",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    serve.set_defaults(handler=serve_http)


def serve_http(args: argparse.Namespace) -> None:
    try:
        import fastapi  # noqa: F401  (the app needs it; said here, before uvicorn starts)
        import uvicorn
    except ImportError as exc:
        raise Unavailable(
            f"`cartograph serve` needs the server's libraries ({exc.name} is missing): "
            "pip install 'cartograph[server]'"
        ) from exc
    if args.host not in LOOPBACK:
        # reachable from elsewhere: every route but health and webhooks needs a token
        os.environ["CARTOGRAPH_REQUIRE_TOKENS"] = "1"
    if args.store:
        os.environ["CARTOGRAPH_STORE"] = args.store
    uvicorn.run(
        "cartograph.api.app:app_from_environment",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
    )
