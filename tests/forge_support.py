"""A local HTTP server standing in for a forge's API (GitHub, GitLab): it records every request
and answers what the test's `respond` says."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    method: str
    path: str  # with the query
    headers: dict[str, str]  # lower-cased names
    body: Any  # the JSON body, or None


# a request → (status, headers, body bytes)
Respond = Callable[[Seen], tuple[int, dict[str, str], bytes]]


def serve(seen: list[Seen], respond: Respond) -> ThreadingHTTPServer:
    """Serve on 127.0.0.1 (a free port) in a daemon thread; each request is appended to
    `seen` before it is answered."""

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            request = Seen(
                self.command,
                self.path,
                {name.lower(): value for name, value in self.headers.items()},
                json.loads(raw.decode("utf-8")) if raw else None,
            )
            seen.append(request)
            status, headers, data = respond(request)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server
