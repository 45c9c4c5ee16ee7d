"""What every HTTP request passes before the app sees it (an ASGI middleware around the whole
app, so it holds however the app is started: `cartograph serve`, `uvicorn --factory`, the Docker
image, a test harness).

1. **Size.** A body larger than its area's limit is refused (413) from its Content-Length, or
   as soon as the bytes read pass the limit; nothing larger is ever held in memory.
2. **Who calls.** The bearer token is checked from the headers, before the body is read; the
   scheme is case-insensitive. A request may go without a token only on an open server (tokens
   not required) *and* when it comes from this machine to this machine: client and local
   address loopback, a loopback `Host`, and no proxy header (`Forwarded`, `X-Forwarded-For`,
   `X-Real-IP`) — so an open server bound to 0.0.0.0, or reached through a proxy, still asks
   everyone else for a token.
3. **Hosts and origins.** With `CARTOGRAPH_PUBLIC_URL` or `CARTOGRAPH_ALLOWED_HOSTS` set, a
   `Host` outside them (and loopback) is refused (421). A browser's cross-site request (an
   `Origin` that is neither the request's own host nor allowed) is refused (403), and a request
   without a token accepts only a loopback origin: a web page cannot drive a local server,
   through DNS rebinding or a cross-site form.
4. **JSON for changes.** A POST, PUT or PATCH with a body must send JSON (415 otherwise: a
   cross-site `text/plain` post is no longer a way in), nested at most MAX_JSON_DEPTH deep
   (400: deeper documents exhaust the parser's recursion).
5. **Which session.** An `X-Cartograph-Session` header names the agent session a request is
   made in (left in `scope["state"]["session"]`: its reads see the session's overlay); a value
   that is not a session id is refused (422).

Health checks pass untouched; webhooks authenticate with their repository's secret (in the
route, over the body), so only the size limit applies to them. The GraphiQL page (a browser's
GET of /graphql: HTML, no query) is a page like the dashboard's: it needs no token, the queries
it sends do.

Every refusal, here or in a route (a missing scope, an unknown token, a query out of bounds),
is logged as one line at INFO (`log_refusal`): it is the answer working as designed, not an
error of the server, whose tracebacks stay for what nobody expected.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import anyio
from cartograph.auth import AuthError
from cartograph.errors import HTTP_STATUS
from cartograph.model import ApiToken
from cartograph.operations import InvalidValue
from cartograph.operations.catalogue import VIEW_SESSION
from cartograph.query.answers import known_generation

log = logging.getLogger("cartograph.api")
KIB = 1024
MIB = 1024 * KIB
# the largest body each area accepts (GitHub caps webhook payloads at 25 MB)
BODY_LIMITS = {
    "api": 4 * MIB,  # a session's version of a file (overlay_edit: up to 1 MiB, JSON-escaped)
    "graphql": 256 * KIB,
    "mcp": 4 * MIB,
    "webhooks": 25 * MIB,
    "other": 64 * KIB,
}
MAX_JSON_DEPTH = 64
# the agent session a request is made in: reads see its overlay (cartograph.agents.overlay)
SESSION_HEADER = b"x-cartograph-session"
PROXY_HEADERS = (b"forwarded", b"x-forwarded-for", b"x-real-ip")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH"})
_JSON_TYPE = re.compile(r"application/([a-z0-9.+-]*\+)?json\b")
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")


@dataclass(frozen=True)
class AccessPolicy:
    tokens_required: bool  # CARTOGRAPH_REQUIRE_TOKENS, or an admin token is configured
    allowed_hosts: tuple[str, ...] = ()  # `host` or `host:port`; `*.example.com` for a domain
    allowed_origins: tuple[str, ...] = ()  # `https://cartograph.example.com`

    @classmethod
    def from_settings(
        cls, tokens_required: bool, public_url: str | None, hosts: tuple[str, ...],
        origins: tuple[str, ...],
    ) -> AccessPolicy:  # fmt: skip
        allowed_hosts, allowed_origins = list(hosts), list(origins)
        if public_url:
            parts = urlsplit(public_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"CARTOGRAPH_PUBLIC_URL={public_url!r} is not an http(s) URL")
            allowed_hosts.append(parts.netloc.lower())
            allowed_origins.append(f"{parts.scheme}://{parts.netloc.lower()}")
        return cls(tokens_required, tuple(allowed_hosts), tuple(allowed_origins))

    def host_allowed(self, host: str) -> bool:
        if not self.allowed_hosts or _is_loopback_host(host):
            return True
        name = _host_name(host)
        for allowed in self.allowed_hosts:
            allowed = allowed.lower()
            if allowed.startswith("*."):
                if name.endswith(allowed[1:]):
                    return True
            elif host == allowed or name == allowed:
                return True
        return False

    def origin_allowed(self, origin: str, host: str, tokenless: bool, scheme: str = "http") -> bool:
        """Origins compare whole: scheme, host and port (a default port spelled or not). A
        page may call the server it came from (the request's scheme and `Host`); an origin
        of a host that the public URL or CARTOGRAPH_ALLOWED_ORIGINS names must be one of those
        exactly (behind a TLS proxy the request itself says http: `http://` + the public
        host is another origin, not the public one)."""
        given = origin_key(origin)
        if given is None:
            return False
        own = origin_key(f"{scheme}://{host}")
        if tokenless:  # only a page of this machine may drive an open local server
            return given == own and _is_loopback_address(given[1])
        configured = {key for key in map(origin_key, self.allowed_origins) if key is not None}
        if given in configured:
            return True
        return given == own and all(key[1] != given[1] for key in configured)


def log_refusal(surface: str, path: str, status: int | str, detail: str) -> None:
    """An expected refusal, as one line: at INFO, at WARNING when the server cannot serve
    (5xx: a store or broker away). A traceback is for what nobody expected."""
    first = detail.strip().splitlines()[0][:300] if detail.strip() else ""
    level = logging.WARNING if isinstance(status, int) and status >= 500 else logging.INFO
    log.log(
        level,
        "%s %s refused: %s %s",
        surface,
        path,
        status,
        first,
        extra={"surface": surface, "status": status, "refused": first},
    )


def wants_graphiql(method: str, path: str, query: str | bytes, accept: str | None) -> bool:
    """A browser opening GraphiQL: a GET of /graphql that accepts HTML and names no query (the
    same test strawberry makes, so the page the guard lets pass is the page that is served)."""
    if method != "GET" or path not in ("/graphql", "/graphql/"):
        return False
    text = query.decode("latin-1") if isinstance(query, bytes) else query
    if any(name == "query" for name, _value in parse_qsl(text, keep_blank_values=True)):
        return False
    return any(kind in (accept or "") for kind in ("text/html", "*/*"))


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """`https://Example.com` → ("https", "example.com", 443); None for what is not an http(s)
    origin."""
    try:
        parts = urlsplit(origin.strip().rstrip("/"))
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or (443 if parts.scheme == "https" else 80)


def area_of(path: str) -> str:
    """Which part of the app a path belongs to (what limits and checks apply)."""
    if path in ("/healthz", "/readyz"):
        return "health"
    for prefix, area in (("/api/", "api"), ("/graphql", "graphql"), ("/mcp", "mcp"),
                         ("/webhooks/", "webhooks")):  # fmt: skip
        if path.startswith(prefix):
            return area
    return "other"  # the OpenAPI document and its pages


class RequestGuard:
    """The ASGI middleware described in the module docstring. `verify(token)` returns the
    caller's ApiToken, with the store generation it was read at (store URL, generation), or
    raises AuthError (it reads the store: run in a worker thread). The caller (None: a
    tokenless local request) is left in `scope["state"]["caller"]`; the rest of the request
    reads the store at that generation (cartograph.query.answers.known_generation)."""

    def __init__(
        self, app, policy: AccessPolicy, verify: Callable[[str], tuple[ApiToken, tuple[str, int]]]
    ) -> None:
        self.app = app
        self.policy = policy
        self.verify = verify

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        area = area_of(scope["path"])
        if area == "health":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if not self.policy.host_allowed(host):
            await _refuse(scope, send, 421, f"this server does not answer for the host {host!r}")
            return
        limit = BODY_LIMITS[area]
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await _refuse(scope, send, 413, f"the body is larger than {limit} bytes")
            return

        caller: ApiToken | None = None
        known: tuple[str, int] | None = None
        tokenless = False
        page = area == "graphql" and wants_graphiql(
            scope["method"], scope["path"], scope.get("query_string", b""),
            headers.get(b"accept", b"").decode("latin-1"),
        )  # fmt: skip
        if page:  # whether its queries may go without a token (the page says so)
            tokenless = self._tokenless(scope, headers, host)
        elif area in ("api", "graphql", "mcp"):
            authorization = headers.get(b"authorization", b"").decode("latin-1").strip()
            scheme, _, credentials = authorization.partition(" ")
            try:
                if scheme.lower() == "bearer" and credentials.strip():
                    caller, known = await anyio.to_thread.run_sync(self.verify, credentials.strip())
                elif authorization or not self._tokenless(scope, headers, host):
                    raise AuthError(
                        "a bearer token is required (Authorization: Bearer …); make one with "
                        "`cartograph token create --name NAME --scopes read`"
                    )
                else:
                    tokenless = True
            except AuthError as exc:
                await _refuse(
                    scope, send, HTTP_STATUS[exc.kind], str(exc), {"WWW-Authenticate": "Bearer"}
                )
                return
        origin = headers.get(b"origin", b"").decode("latin-1")
        if (
            origin
            and area != "webhooks"
            and origin != "null"
            and not self.policy.origin_allowed(origin, host, tokenless, scope.get("scheme", "http"))
        ):
            await _refuse(scope, send, 403, f"cross-origin requests from {origin!r} are refused")
            return
        if origin == "null" and area != "webhooks":
            await _refuse(scope, send, 403, "requests from an opaque origin are refused")
            return

        body = await _read_body(receive, limit)
        if body is None:
            await _refuse(scope, send, 413, f"the body is larger than {limit} bytes")
            return
        if body and scope["method"] in STATE_CHANGING and area in ("api", "graphql", "mcp"):
            content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
            if not _JSON_TYPE.match(content_type):
                await _refuse(scope, send, 415, "a request that changes state must send JSON")
                return
        if body and json_too_deep(body):
            await _refuse(
                scope, send, 400, f"the JSON body is nested more than {MAX_JSON_DEPTH} deep"
            )
            return
        session: int | None = None
        given = headers.get(SESSION_HEADER)
        if given is not None and area in ("api", "graphql", "mcp"):
            try:
                session = VIEW_SESSION.parse(int(given), SESSION_HEADER.decode())
            except (ValueError, InvalidValue) as exc:
                message = str(exc) if isinstance(exc, InvalidValue) else "not a session id"
                await _refuse(scope, send, 422, f"X-Cartograph-Session: {message}")
                return
        state = scope.setdefault("state", {})
        state["caller"] = caller
        state["session"] = session
        state["tokenless"] = tokenless
        if known is None:
            await self.app(scope, _replay(body, receive), send)
            return
        with known_generation(*known):
            await self.app(scope, _replay(body, receive), send)

    def _tokenless(self, scope, headers: dict[bytes, bytes], host: str) -> bool:
        if self.policy.tokens_required:
            return False
        client, server = scope.get("client"), scope.get("server")
        if not client or not server:
            return False
        if not (_is_loopback_address(client[0]) and _is_loopback_address(server[0])):
            return False
        if any(name in headers for name in PROXY_HEADERS):
            return False
        return _is_loopback_host(host)


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether a JSON document nests deeper than `limit` (strings are skipped; brackets are
    counted with regular expressions, so a large document costs little)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub(b'""', body)):
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


async def _read_body(receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive):
    """A `receive` that gives the app the body already read, then hands over to the real one
    (which says when the client goes away)."""
    sent = False

    async def replay() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(
    scope, send, status: int, detail: str, headers: dict[str, str] | None = None
) -> None:
    log_refusal(area_of(scope["path"]), scope["path"], status, detail)
    titles = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 413: "Too large",
              415: "Unsupported media type", 421: "Misdirected request"}  # fmt: skip
    body = json.dumps(
        {
            "type": "about:blank",
            "title": titles.get(status, "Error"),
            "status": status,
            "detail": detail,
        }
    ).encode()
    raw = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
    ]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _headers(scope) -> dict[bytes, bytes]:
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers") or []:
        found.setdefault(name.lower(), value)
    return found


def _host_name(host: str) -> str:
    """`example.com:8000` → `example.com`; `[::1]:8000` → `::1`."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_loopback_host(host: str) -> bool:
    return _is_loopback_address(_host_name(host.lower()))


def _is_loopback_address(address: str) -> bool:
    if address in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
