"""Local HTTP servers standing in for a forge's API (GitHub, GitLab): `serve` records every
request and answers what the test's `respond` says; `FakeForge` answers like the forge itself,
for one pull request, with its users, comments and their authors."""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class Comment:
    id: int
    body: str
    author: int  # the id of the user who wrote it
    system: bool = False  # GitLab's own notes ("added 1 commit")


@dataclass
class FakeForge:
    """A local HTTP server answering like GitHub's API (issue comments, statuses, `GET /user`)
    or GitLab's (merge-request notes, statuses, `GET /user`) for one pull request: each token
    is a user (`users`: token → (id, name); an unknown token answers 401), comments are kept
    with their author, so a listing shows the ones posted. An edit of a comment someone else
    wrote answers 403 unless `edit_others` (GitHub lets a token with write access edit any
    comment); `no_user` answers `GET /user` with 403, as for a GitHub App's token; `failing`
    answers 500 to everything."""

    kind: str = "github"
    project: str = "acme/shop"
    prefix: str = ""  # the API's path on the server: "/api/v4", "/api/v3", ""
    number: int = 7
    users: dict[str, tuple[int, str]] = field(default_factory=dict)
    edit_others: bool = False
    no_user: bool = False
    failing: bool = False
    comments: dict[int, Comment] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    next_id: int = 900

    def start(self) -> FakeForge:
        self.server = serve(self.seen, self._respond)
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def write(self, author: int, body: str, system: bool = False) -> int:
        """A comment written on the pull request by user `author` (not through the API)."""
        comment_id = self.next_id
        self.next_id += 1
        self.comments[comment_id] = Comment(comment_id, body, author, system)
        return comment_id

    def requests(self) -> list[tuple[str, str]]:
        return [(s.method, s.path) for s in self.seen]

    # ------------------------------------------------------------ the API

    def _respond(self, request: Seen) -> tuple[int, dict[str, str], bytes]:
        status, answer = self._answer(request)
        return status, {"Content-Type": "application/json"}, json.dumps(answer).encode()

    def _user(self, request: Seen) -> tuple[int, str] | None:
        if self.kind == "github":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
        else:
            token = request.headers.get("private-token", "")
        return self.users.get(token)

    def _shown(self, comment: Comment) -> dict[str, Any]:
        user_id, name = next(
            ((i, n) for i, n in self.users.values() if i == comment.author),
            (comment.author, f"user{comment.author}"),
        )
        data: dict[str, Any] = {"id": comment.id, "body": comment.body}
        if self.kind == "github":
            data["user"] = {"id": user_id, "login": name, "type": "User"}
            data["html_url"] = f"https://gh.example/c/{comment.id}"
        else:
            data["author"] = {"id": user_id, "username": name}
            data["system"] = comment.system
        return data

    def _answer(self, request: Seen) -> tuple[int, Any]:
        if self.failing:
            return 500, {"message": "the forge is down"}
        user = self._user(request)
        if user is None:
            return 401, {"message": "Bad credentials"}
        method, path = request.method, request.path.partition("?")[0]
        if not path.startswith(self.prefix + "/"):
            return 599, {"message": "not under the API's path"}
        path = path[len(self.prefix) :]
        if (method, path) == ("GET", "/user"):
            if self.no_user:
                return 403, {"message": "Resource not accessible by integration"}
            key = "login" if self.kind == "github" else "username"
            return 200, {"id": user[0], key: user[1]}
        if self.kind == "github":
            base = f"/repos/{self.project}"
            listing = f"{base}/issues/{self.number}/comments"
            single = f"{base}/issues/comments/"
            edit = "PATCH"
        else:
            base = f"/projects/{urllib.parse.quote(self.project, safe='')}"
            listing = f"{base}/merge_requests/{self.number}/notes"
            single = f"{listing}/"
            edit = "PUT"
        if path == listing and method == "GET":
            return 200, [self._shown(c) for c in self.comments.values()]
        if path == listing and method == "POST":
            comment_id = self.write(user[0], request.body["body"])
            return 201, self._shown(self.comments[comment_id])
        if path.startswith(single) and path[len(single) :].isdigit():
            comment = self.comments.get(int(path[len(single) :]))
            if comment is None:
                return 404, {"message": "Not Found"}
            if method == "GET":
                return 200, self._shown(comment)
            if method == edit:
                if comment.author != user[0] and not self.edit_others:
                    return 403, {"message": "You cannot edit this comment"}
                comment.body = request.body["body"]
                return 200, self._shown(comment)
        if method == "POST" and path.startswith(f"{base}/statuses/"):
            return 201, {"id": 1, "state": request.body["state"]}
        return 599, {"message": "unexpected"}
