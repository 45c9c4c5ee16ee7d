"""HTTP routes and the client calls that reach them: path templates, and which route a call
matches (docs/services.md).

Pure functions over plain rows, used by the resolvers (which emit the rows), the index's
services stage (which composes routes and matches calls) and the `services` question.

A file's resolved HTTP rows (`FileResolution.http`), by their first item:

- ["router", key, framework, prefix]: a router or application object (`APIRouter(prefix=...)`,
  `Blueprint(url_prefix=...)`, `FastAPI()`, `Flask()`), keyed by where it is bound
  (`path::name`); a Django URL module is the router `urls:<path>`.
- ["route", router key, [methods], path, handler symbol id, line, framework]
- ["mount", parent key, child key, prefix, line]: `include_router`, `register_blueprint`,
  `mount`, Django `include()`, Express's `use`.
- ["global", framework, prefix, line]: a prefix every root router of the framework takes
  (NestJS `app.setGlobalPrefix("api")`).
- ["client", source symbol id, method, base, path, line, library]: a request; `base` is
  where the URL's host comes from: "" (a relative URL), a host (`users:8000`), or the name of
  the variable, setting or environment variable that holds it (`settings.USERS_URL`,
  `env:USERS_URL`, `self.base_url`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HOLE = "{}"
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ANY_METHOD = "ANY"
# how sure a match is, by how the URL was matched (the HTTP_CALLS edge's via)
MATCH_CONFIDENCE = {
    "http": 0.95,  # the whole path template, on the service the base URL is configured to
    "http_base": 0.8,  # the whole path template; the base URL's service is not known
    "http_prefix": 0.6,  # the route's template ends the URL's path (a prefix in the base URL)
}
_SCHEME_PREFIX = re.compile(r"^(?:https?:)?//")
_FLASK_PARAM = re.compile(r"<(?:[A-Za-z_]\w*(?:\([^)]*\))?:)?([A-Za-z_]\w*)>")
_BRACE_PARAM = re.compile(r"\{([A-Za-z_]\w*)(?::[^}]*)?\}")
# `:id` after a slash, a dot or a dash (`/:name.:format`, `/:from-:to`); Express 5's `*path`
_EXPRESS_PARAM = re.compile(r"(?<=[/.\-])[:*]([A-Za-z_]\w*)\??")
_OPTIONAL_GROUP = re.compile(r"\{([^{}]*[:*][^{}]*)\}")
_REGEX_GROUP = re.compile(r"\(\?P<([A-Za-z_]\w*)>[^)]*\)|\([^)]*\)")


def template_text(parts: list) -> str:
    """Template parts (literal texts and holes) as one text, each hole written `{}`."""
    return "".join(part if isinstance(part, str) else HOLE for part in parts)


def split_url(parts: list) -> tuple[str, str]:
    """(base, path) of a URL given as template parts: the base is where its host comes from
    ("" for a relative URL, the host of an absolute one, or the text of the hole it starts
    with); the path has holes as `{}`, no query and no fragment."""
    if not parts:
        return "", "/"
    first = parts[0]
    base = ""
    rest = parts
    if not isinstance(first, str):
        base = first[2] or HOLE
        rest = parts[1:]
    else:
        scheme = _SCHEME_PREFIX.match(first)
        if scheme is not None:  # the host runs to the first "/" (holes for host or port)
            host: list = []
            rest = []
            for part in [first[scheme.end() :], *parts[1:]]:
                if rest or not isinstance(part, str) or "/" not in part:
                    (rest if rest else host).append(part)
                    continue
                head, _, tail = part.partition("/")
                host.append(head)
                rest.append("/" + tail)
            base = template_text(host)
    return base, clean_path(template_text(rest))


def request_row(
    source_id: str,
    method: str,
    parts: list | None,
    base_parts: list | None,
    line: int,
    library: str,
) -> list | None:
    """A request's "client" row from its URL's template parts and, when it is sent through a
    client object, that object's base URL; None when the URL has no text of its own (it says
    nothing of where the request goes)."""
    if parts is None or not any(isinstance(p, str) and p.strip("/") for p in parts):
        return None
    if base_parts and (
        isinstance(parts[0], str) and not parts[0].startswith(("http:", "https:", "//"))
    ):
        parts = [*base_parts, "/", *parts]
    base, path = split_url(parts)
    return ["client", source_id, method, base, path, line, library]


def plain_text(value: list | None) -> str | None:
    """A value's text when it is a string without holes (`parsing.services` values)."""
    if value is None or value[0] != "t":
        return None
    parts = value[1]
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)
    return None


def dotted(expr: list | None) -> str | None:
    """A name or attribute chain as text (`settings.USERS_URL`), else None."""
    if expr is None:
        return None
    if expr[0] == "n":
        return expr[1]
    if expr[0] == "a":
        base = dotted(expr[1])
        return f"{base}.{expr[2]}" if base is not None else None
    if expr[0] == "this":
        return "this"
    return None


def last_name(expr: list | None) -> str:
    """The last name of a callee expression (`get` of `session.get`)."""
    if expr is None:
        return ""
    return expr[2] if expr[0] == "a" else expr[1] if expr[0] == "n" else ""


def clean_path(path: str) -> str:
    """A path as routes and calls are compared: no query or fragment, one leading slash, no
    trailing one, no doubled ones."""
    for mark in ("?", "#"):
        path = path.split(mark, 1)[0]
    path = re.sub(r"/{2,}", "/", "/" + path.strip())
    return path.rstrip("/") or "/"


def route_path(framework: str, raw: str) -> str:
    """A route's path template with named parameters written `{name}`, whatever the
    framework's syntax (`<int:id>`, `{id:path}`, `:id`, Django's regular expressions)."""
    if framework == "django-re":
        text = raw.strip().lstrip("^").rstrip("$")
        text = _REGEX_GROUP.sub(lambda m: "{" + (m.group(1) or "") + "}", text)
        text = text.replace("\\", "")
        return text
    if framework == "express":  # Express 5's optional groups: `/:id{/:op}`, `{:query}`
        raw = _OPTIONAL_GROUP.sub(r"\1", raw)
    text = _FLASK_PARAM.sub(r"{\1}", raw)
    text = _BRACE_PARAM.sub(r"{\1}", text)
    return _EXPRESS_PARAM.sub(r"{\1}", text)


def join_paths(*pieces: str) -> str:
    return clean_path("/".join(piece.strip("/") for piece in pieces if piece.strip("/")))


def _segments(path: str) -> list[str]:
    return [s for s in clean_path(path).split("/") if s]


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}") and segment.count("{") == 1


def _segment_score(call: str, route: str) -> int | None:
    """2: the same literal; 1: a route parameter takes the call's segment; None: no match.
    A segment that is all hole (`/users/{}`) matches only a route parameter: the value a
    variable holds is a parameter's, not one of the literal routes beside it (`/users/me`);
    a hole within a segment (`{}.json`) may fill a literal one."""
    if _is_param(route):
        return 1
    if call == route:
        return 2
    if call == HOLE:
        return None
    if HOLE in call:
        pattern = re.escape(call).replace(re.escape(HOLE), "[^/]+")
        literal = route.replace("{", "").replace("}", "")
        return 1 if re.fullmatch(pattern, literal) and not any(c in route for c in "{}") else None
    return None


def _path_score(call: list[str], route: list[str]) -> int | None:
    if len(call) != len(route):
        return None
    total = 0
    for c, r in zip(call, route, strict=True):
        score = _segment_score(c, r)
        if score is None:
            return None
        total += score
    return total


@dataclass(frozen=True, slots=True)
class Route:
    """A route of an indexed service: its symbol id, method and path template."""

    repo: str
    id: str
    method: str
    path: str
    handler: str = ""


@dataclass(frozen=True, slots=True)
class Match:
    route: Route
    via: str  # a key of MATCH_CONFIDENCE

    @property
    def confidence(self) -> float:
        return MATCH_CONFIDENCE[self.via]


def method_matches(call: str, route: str) -> bool:
    return route == ANY_METHOD or call == route or (call == "HEAD" and route == "GET")


def match_call(
    method: str,
    base: str,
    path: str,
    routes: list[Route],
    own_repo: str,
    services: dict[str, str],
) -> Match | None:
    """The one route a call reaches, or None when none or several fit equally well.

    `services` maps a base (a host, a variable or setting, `env:NAME`) to the repository that
    serves it (`.cartograph.toml` `[services]`); a relative URL is served by the repository
    configured for "/" (a web front end's API), else by the calling repository. A route of the configured service matched on its whole template is "http";
    on its whole template with the service not known, "http_base"; a route whose template
    ends the call's path (the base URL holds a prefix), "http_prefix"."""
    target = services.get(base) if base else services.get("/", own_repo)
    if target is None and base:
        host = base.split("/")[0]
        target = services.get(host) or services.get(host.split(":")[0])
    candidates = [r for r in routes if method_matches(method, r.method)]
    if target is not None:
        candidates = [r for r in candidates if r.repo == target]
    call = _segments(path)
    best: list[tuple[int, Route]] = []
    for route in candidates:
        score = _path_score(call, _segments(route.path))
        if score is not None:
            best.append((2 * score + (route.method == method), route))
    via = "http" if target is not None else "http_base"
    if not best:
        for route in candidates:
            segments = _segments(route.path)
            if 0 < len(segments) < len(call):
                score = _path_score(call[len(call) - len(segments) :], segments)
                if score is not None:
                    best.append((2 * score + (route.method == method), route))
        via = "http_prefix"
    if not best:
        return None
    top = max(score for score, _ in best)
    winners = {route for score, route in best if score == top}
    if len(winners) != 1:
        return None  # several routes fit as well: never guessed
    return Match(winners.pop(), via)
