"""Post a pull request's impact report to its forge: one comment, edited in place on every
post, and a commit status on the head commit.

| forge | comment | status | credential |
|---|---|---|---|
| GitHub (and Enterprise: `https://ghe.example/api/v3`) | issue comment: `GET`, `POST /repos/{o}/{n}/issues/{number}/comments`, `GET`, `PATCH /repos/{o}/{n}/issues/comments/{id}` | `POST /repos/{o}/{n}/statuses/{sha}` | `Authorization: Bearer <token>` |
| GitLab (API v4) | merge request note: `GET`, `POST /projects/{id}/merge_requests/{iid}/notes`, `GET`, `PUT …/notes/{note_id}` | `POST /projects/{id}/statuses/{sha}` | `PRIVATE-TOKEN: <token>` |

Our comment is one the token's own user wrote (`GET /user` on both forges, asked once per
token and process) whose body starts with `MARKER`: a comment anyone else wrote is never
edited, whatever it starts with, and the comment of an earlier post is edited only when that
user wrote it. A token the forge gives no user for (`GET /user` refused: a GitHub App's or
Actions' token) adopts no comment found by its marker; it edits the one it posted before. When
the forge refuses an edit (403) or the comment is gone (404), the report is posted as a new
comment. Standard library only (urllib). What
the forge refuses, or a forge that cannot be reached, never raises: it is told in
`Posted.error`, without the token; a mistaken call (a bad URL, state or number) raises
ValueError before any request, and so does an API URL the token would cross the network
unencrypted to (plain http to another machine than this one). Redirects are followed within
the API's own origin only, so the token never travels to another host.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from http.client import HTTPException, HTTPMessage
from typing import IO, Any

from cartograph.weburls import credential_url_problem

KINDS = ("github", "gitlab")
STATES = ("success", "failure", "pending", "error")
MARKER = "<!-- cartograph-impact -->"
CONTEXT = "cartograph/impact"
MAX_BODY = {"github": 65_536, "gitlab": 1_000_000}  # characters of a comment body
MAX_DESCRIPTION = 140
MAX_PAGES = 10
MAX_REDIRECTS = 5
MAX_ANSWER = 32 * 1024 * 1024  # bytes of one answer: a page of 100 comments fits
_GITLAB_STATE = {"success": "success", "failure": "failed", "pending": "pending", "error": "failed"}
_SHA = re.compile(r"[0-9a-f]{7,64}")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_REDIRECTS = (301, 302, 303, 307, 308)
_EDIT_REFUSED = (403, 404)  # not ours to edit, or gone: a new comment instead
MAX_KNOWN_USERS = 64
# (forge kind, API base, the token's digest) → the id of the token's user; None: the forge
# gives this token no user (it adopts no comment by its marker)
_USERS: dict[tuple[str, str, str], str | None] = {}
_USERS_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class ForgeTarget:
    kind: str  # "github" | "gitlab"
    api_url: (
        str  # https://api.github.com, https://ghe.example/api/v3, https://gitlab.example/api/v4
    )
    token: str
    project: str  # GitHub "owner/name"; GitLab "group/sub/name" or a numeric id


@dataclass(slots=True)
class Posted:
    comment_url: str = ""  # the comment's page (html_url), else its API URL
    comment_id: str = ""  # pass it back as `previous_comment_id` to edit the same comment
    status_posted: bool = False
    error: str = ""  # empty when both went through; else what failed, "; "-joined


class _Failed(Exception):
    """A request that did not go through; the message is a sentence (the token is redacted
    from it later)."""

    def __init__(self, message: str, status: int = 0, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail


@dataclass(slots=True)
class _Answer:
    data: Any
    headers: Message


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Hands every redirect back as an HTTPError: `_Client` decides whether to follow it."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


def _origin(url: str) -> tuple[str, str, int]:
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: no origin matches it
        return ("", "", -1)
    default = 443 if parts.scheme.lower() == "https" else 80
    return (parts.scheme.lower(), (parts.hostname or "").lower(), port or default)


def _why(reason: object) -> str:
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return _short(str(reason) or type(reason).__name__)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail(raw: bytes) -> str:
    """The forge's own message in an error answer (GitHub and GitLab: `message`, or `error`)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(data, dict):
        return ""
    message = data.get("message") or data.get("error") or ""
    return _short(message if isinstance(message, str) else json.dumps(message))


def _next_link(header: str) -> str:
    """The `rel="next"` URL of a Link header, or ""."""
    for part in header.split(","):
        url, _, params = part.partition(";")
        url = url.strip()
        if not (url.startswith("<") and url.endswith(">")):
            continue
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "rel" and "next" in value.strip().strip('"').split():
                return url[1:-1]
    return ""


class _Client:
    """JSON requests to one API, with its credential; every failure is a `_Failed`."""

    __slots__ = ("base", "kind", "opener", "origin", "timeout", "token")

    def __init__(self, target: ForgeTarget, timeout: float) -> None:
        self.kind = target.kind
        self.base = target.api_url.rstrip("/")
        self.origin = _origin(self.base)
        self.token = target.token
        self.timeout = timeout
        self.opener = urllib.request.build_opener(_NoRedirects())

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {"User-Agent": "cartograph"}
        if self.kind == "github":
            headers["Accept"] = "application/vnd.github+json"
            headers["X-GitHub-Api-Version"] = "2022-11-28"
            headers["Authorization"] = f"Bearer {self.token}"
        else:
            headers["Accept"] = "application/json"
            headers["PRIVATE-TOKEN"] = self.token
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers

    def shown(self, url: str) -> str:
        """The URL as an error tells it: the path under the API's base (with its query)."""
        if url.startswith(self.base + "/"):
            return url[len(self.base) :]
        parts = urllib.parse.urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def call(self, method: str, path: str, body: dict[str, str] | None = None) -> _Answer:
        """`path` is under the API's base, or an absolute URL of the same origin (a next page)."""
        url = path if "://" in path else self.base + path
        shown = self.shown(url)
        if _origin(url) != self.origin:
            raise _Failed(f"{method} {shown} is on another host than the API: refused")
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        for _ in range(MAX_REDIRECTS + 1):
            request = urllib.request.Request(
                url, data=data, method=method, headers=self._headers(data is not None)
            )
            try:
                with self.opener.open(request, timeout=self.timeout) as response:
                    raw = response.read(MAX_ANSWER + 1)
                    status: int = response.status
                    headers: Message = response.headers
            except urllib.error.HTTPError as exc:
                with exc:
                    if exc.code in _REDIRECTS:
                        url = self._redirect(method, shown, url, exc.code, exc.headers)
                        continue
                    try:
                        detail = _detail(exc.read(64 * 1024))
                    except (OSError, HTTPException):
                        detail = ""
                raise _Failed(
                    f"{method} {shown} answered HTTP {exc.code}"
                    + (f" ({detail})" if detail else ""),
                    exc.code,
                    detail,
                ) from None
            except urllib.error.URLError as exc:
                raise _Failed(
                    f"{method} {shown} could not reach the forge ({_why(exc.reason)})"
                ) from None
            except TimeoutError:
                raise _Failed(f"{method} {shown} timed out after {self.timeout:g}s") from None
            except (OSError, HTTPException) as exc:
                raise _Failed(f"{method} {shown} failed ({_why(exc)})") from None
            return _Answer(self._json(method, shown, status, raw), headers)
        raise _Failed(f"{method} {shown} was redirected more than {MAX_REDIRECTS} times")

    def _redirect(self, method: str, shown: str, url: str, code: int, headers: Message) -> str:
        """Where a redirect leads, when it is to be followed: same origin, and the method kept."""
        location = headers.get("Location", "")
        if not location:
            raise _Failed(f"{method} {shown} answered HTTP {code} without a Location", code)
        target = urllib.parse.urljoin(url, location)
        if _origin(target) != self.origin:
            host = urllib.parse.urlsplit(target).netloc or "?"
            raise _Failed(
                f"{method} {shown} was redirected (HTTP {code}) to another host ({_short(host, 80)}): refused",
                code,
            )
        if code not in (307, 308) and method not in ("GET", "HEAD"):
            raise _Failed(
                f"{method} {shown} was redirected (HTTP {code}): not followed, it would turn into a GET",
                code,
            )
        return target

    @staticmethod
    def _json(method: str, shown: str, status: int, raw: bytes) -> Any:
        if len(raw) > MAX_ANSWER:
            raise _Failed(f"{method} {shown} answered more than {MAX_ANSWER // 2**20} MB", status)
        if status == 204 and not raw.strip():
            return None
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            raise _Failed(f"{method} {shown} answered HTTP {status} but not JSON", status) from None


class _Forge:
    """The paths of one forge's comments and statuses."""

    __slots__ = ("client", "kind", "number", "project")

    def __init__(self, client: _Client, target: ForgeTarget, number: int) -> None:
        self.client = client
        self.kind = target.kind
        self.number = number
        if target.kind == "github":
            owner, name = target.project.split("/")
            self.project = f"/repos/{_segment(owner)}/{_segment(name)}"
        else:
            self.project = f"/projects/{_segment(target.project)}"

    def _comments(self) -> str:
        if self.kind == "github":
            return f"{self.project}/issues/{self.number}/comments"
        return f"{self.project}/merge_requests/{self.number}/notes"

    def _comment(self, comment_id: str) -> str:
        if self.kind == "github":
            return f"{self.project}/issues/comments/{_segment(comment_id)}"
        return f"{self.project}/merge_requests/{self.number}/notes/{_segment(comment_id)}"

    def me(self) -> str | None:
        """The id of the token's own user (`GET /user`), asked once per token and process;
        None when the forge gives the token no user (403 or 404: an app's token)."""
        client = self.client
        key = (self.kind, client.base, hashlib.sha256(client.token.encode()).hexdigest())
        with _USERS_LOCK:
            if key in _USERS:
                return _USERS[key]
        try:
            data = client.call("GET", "/user").data
        except _Failed as exc:
            if exc.status not in (403, 404):
                raise
            user = None
        else:
            user = _user_id(data)
            if not user:
                raise _Failed("GET /user answered no user id")
        with _USERS_LOCK:
            while len(_USERS) >= MAX_KNOWN_USERS:
                del _USERS[next(iter(_USERS))]
            _USERS[key] = user
        return user

    def _author(self, item: Any) -> str:
        """The id of the user who wrote a comment (GitHub `user`, GitLab `author`), or ""."""
        if not isinstance(item, dict):
            return ""
        return _user_id(item.get("user" if self.kind == "github" else "author"))

    def author_of(self, comment_id: str) -> str:
        """Who wrote comment `comment_id` of this pull request ("": it is gone)."""
        try:
            answer = self.client.call("GET", self._comment(comment_id))
        except _Failed as exc:
            if exc.status == 404:
                return ""
            raise
        return self._author(answer.data)

    def find_ours(self, me: str) -> str:
        """The id of the first comment user `me` wrote whose body starts with MARKER, or ""."""
        client = self.client
        if self.kind == "github":
            url = f"{self._comments()}?per_page=100"
        else:
            first = f"{self._comments()}?per_page=100&sort=asc"
            url = first
        for _ in range(MAX_PAGES):
            answer = client.call("GET", url)
            if not isinstance(answer.data, list):
                raise _Failed(f"GET {client.shown(url)} answered no list of comments")
            for item in answer.data:
                if (
                    isinstance(item, dict)
                    and isinstance(item.get("body"), str)
                    and item["body"].startswith(MARKER)
                    and self._author(item) == me
                    and not item.get("system")  # GitLab's own notes
                    and isinstance(item.get("id"), int | str)
                    and str(item["id"])
                ):
                    return str(item["id"])
            if self.kind == "github":
                url = _next_link(answer.headers.get("Link", ""))
                if not url:
                    return ""
            else:
                page = answer.headers.get("X-Next-Page", "").strip()
                if not (page.isascii() and page.isdigit()):
                    return ""
                url = f"{first}&page={page}"
        return ""

    def create(self, body: str) -> tuple[str, str]:
        path = self._comments()
        return self._posted("POST", path, self.client.call("POST", path, {"body": body}))

    def edit(self, comment_id: str, body: str) -> tuple[str, str]:
        path = self._comment(comment_id)
        method = "PATCH" if self.kind == "github" else "PUT"
        return self._posted(method, path, self.client.call(method, path, {"body": body}))

    def _posted(self, method: str, path: str, answer: _Answer) -> tuple[str, str]:
        """(comment_url, comment_id) of the comment an answer describes."""
        data = answer.data
        if not isinstance(data, dict) or not isinstance(data.get("id"), int | str):
            raise _Failed(f"{method} {path} answered no comment id")
        comment_id = str(data["id"])
        for key in ("html_url", "web_url", "url"):
            if isinstance(data.get(key), str) and data[key]:
                return data[key], comment_id
        return self.client.base + self._comment(comment_id), comment_id

    def status(self, sha: str, state: str, description: str, details_url: str) -> None:
        payload = {"state": state, "description": description}
        if self.kind == "github":
            payload["context"] = CONTEXT
        else:
            payload["state"] = _GITLAB_STATE[state]
            payload["name"] = CONTEXT
        if details_url:
            payload["target_url"] = details_url
        try:
            self.client.call("POST", f"{self.project}/statuses/{sha}", payload)
        except _Failed as exc:
            # GitLab refuses to set the state a status already has (pending twice): it holds
            if not (self.kind == "gitlab" and "Cannot transition status" in exc.detail):
                raise


def _user_id(data: Any) -> str:
    """A user object's id as text ("" when it has none): ids, unlike names, are never reused."""
    if not isinstance(data, dict):
        return ""
    found = data.get("id")
    if isinstance(found, bool) or not isinstance(found, int | str):
        return ""
    return str(found)


def _segment(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _check(target: ForgeTarget, number: int, head_sha: str, state: str, timeout: float) -> None:
    """Raise ValueError for a call that cannot be right, before any request."""
    if target.kind not in KINDS:
        raise ValueError(f"unknown forge {target.kind!r}; one of {', '.join(KINDS)}")
    problem = credential_url_problem(target.api_url, "api_url")
    if problem:  # the URL itself is not told: it may hold credentials
        raise ValueError(problem)
    parts = urllib.parse.urlsplit(target.api_url)
    if parts.username is not None or parts.query or parts.fragment:
        raise ValueError("api_url must hold no credentials, query or fragment")
    token = target.token
    if not token or not token.isascii() or not token.isprintable() or token != token.strip():
        raise ValueError("the token is empty or holds characters a header cannot carry")
    segments = target.project.split("/")
    if target.kind == "github" and (len(segments) != 2 or not all(segments)):
        raise ValueError(f"a GitHub project is 'owner/name', not {target.project[:200]!r}")
    if not all(segments) or any(segment in (".", "..") for segment in segments):
        raise ValueError(f"bad project path {target.project[:200]!r}")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"the pull request number must be a positive integer, not {number!r}")
    if not _SHA.fullmatch(head_sha):
        raise ValueError(f"{head_sha[:80]!r} is not a commit sha (lower-case hex)")
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}; one of {', '.join(STATES)}")
    if not timeout > 0:
        raise ValueError("the timeout must be positive")


def comment_body(kind: str, markdown: str, details_url: str = "") -> str:
    """MARKER, then the markdown, cut at a line boundary when the whole would pass the
    forge's limit (a code block left open is closed first, by its own fence)."""
    room = MAX_BODY[kind] - len(MARKER) - 1
    if len(markdown) <= room:
        return f"{MARKER}\n{markdown}"
    tail = f"… (cut: the full report is at {details_url})" if details_url else "… (cut)"
    budget = room - len(tail) - 1
    reserve = len("\n```")
    while True:
        keep = max(budget - reserve, 0)
        end = markdown.rfind("\n", 0, keep + 1)
        kept = markdown[:end] if end > 0 else markdown[:keep]
        fence = _open_fence(kept)
        if not fence or len(kept) + 1 + len(fence) <= budget or keep == 0:
            break
        reserve = 1 + len(fence)  # a longer fence to close: keep less
    if fence:
        kept += f"\n{fence}"
    return f"{MARKER}\n{kept}\n{tail}"


def _open_fence(markdown: str) -> str:
    """The fence of a code block `markdown` leaves open ("" when none is): a block closes at
    a line of the same character, at least as long, and nothing else."""
    fence = ""
    for line in markdown.splitlines():
        found = _FENCE.match(line)
        if not found:
            continue
        run = found.group(1)
        if not fence:
            fence = run
        elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip().strip(run[0]):
            fence = ""
    return fence


def status_description(description: str) -> str:
    """The description as a status carries it: at most MAX_DESCRIPTION characters."""
    if len(description) <= MAX_DESCRIPTION:
        return description
    return description[: MAX_DESCRIPTION - 1] + "…"


def _redact(text: str, token: str) -> str:
    for form in {token, urllib.parse.quote(token, safe="")}:
        text = text.replace(form, "[token]")
    return text


def post_report(
    target: ForgeTarget,
    number: int,
    head_sha: str,
    markdown: str,
    state: str,
    description: str,
    details_url: str = "",
    previous_comment_id: str = "",
    timeout: float = 10.0,
) -> Posted:
    """Post the report as our comment on pull request `number` (editing the previous one, or
    the one the token's user wrote with MARKER) and set the `cartograph/impact` status of `head_sha`.

    The two are attempted independently; what failed is in `Posted.error`. `timeout` bounds
    each request. Raises ValueError for a call that cannot be right (see `_check`)."""
    head_sha = head_sha.strip().lower()
    _check(target, number, head_sha, state, timeout)
    forge = _Forge(_Client(target, timeout), target, number)
    body = comment_body(target.kind, markdown, details_url)
    posted = Posted()
    errors: list[str] = []
    try:
        posted.comment_url, posted.comment_id = _post_comment(forge, body, previous_comment_id)
    except _Failed as exc:
        errors.append(f"the comment: {exc}")
    except Exception as exc:  # never raise out of here: a bug shows as an error, not a crash
        errors.append(
            f"the comment: failed unexpectedly ({type(exc).__name__}: {_short(str(exc))})"
        )
    try:
        forge.status(head_sha, state, status_description(description), details_url)
        posted.status_posted = True
    except _Failed as exc:
        errors.append(f"the status: {exc}")
    except Exception as exc:
        errors.append(f"the status: failed unexpectedly ({type(exc).__name__}: {_short(str(exc))})")
    posted.error = _redact("; ".join(errors), target.token)
    return posted


def _post_comment(forge: _Forge, body: str, previous_comment_id: str) -> tuple[str, str]:
    """Edit our comment — the one posted before when the token's user wrote it, else the one
    that user wrote with our marker — or create one: when there is none, or when the forge
    refuses the edit or the comment is gone."""
    me = forge.me()
    comment_id = ""
    if previous_comment_id and (me is None or forge.author_of(previous_comment_id) == me):
        comment_id = previous_comment_id
    elif me is not None:
        comment_id = forge.find_ours(me)
    if comment_id:
        try:
            return forge.edit(comment_id, body)
        except _Failed as exc:
            if exc.status not in _EDIT_REFUSED:
                raise
    return forge.create(body)
