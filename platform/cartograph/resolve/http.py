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
from collections.abc import Iterable
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


class _Node:
    """A node of a route tree: the routes whose path ends here, by method then repository,
    and the next segment's nodes (a parameter, or a literal text)."""

    __slots__ = ("literals", "param", "routes")

    def __init__(self) -> None:
        self.literals: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.routes: dict[str, dict[str, list[Route]]] = {}


class _Found:
    """The routes a call fits at one stage (whole template, or prefix): the best score, how
    many routes have it (the one route when one), and the repositories of every route that
    fits."""

    __slots__ = ("count", "repos", "route", "top")

    def __init__(self) -> None:
        self.top = -1
        self.count = 0
        self.route: Route | None = None
        self.repos: set[str] = set()

    def add(self, score: int, repo: str, routes: list[Route]) -> None:
        self.repos.add(repo)
        if score > self.top:
            self.top, self.count, self.route = score, len(routes), routes[0]
        elif score == self.top:
            self.count += len(routes)


class RouteIndex:
    """Routes arranged for matching many calls (`match`): one tree per number of segments,
    whose nodes branch on a segment's literal text or a parameter, so a call walks only the
    routes whose literal segments it has (instead of comparing every route). A tree is built
    the first time a call of its length asks for it. Answers are `match_call`'s rules to the
    letter (docs/services.md "Matching a request to a route")."""

    def __init__(self, routes: Iterable[Route]) -> None:
        self._pending: dict[int, list[tuple[Route, list[str]]]] = {}
        self._trees: dict[int, _Node] = {}
        for route in dict.fromkeys(routes):  # an equal route twice is one route
            segments = _segments(route.path)
            self._pending.setdefault(len(segments), []).append((route, segments))
        self._lengths = sorted(self._pending)
        self.routes = sum(len(found) for found in self._pending.values())

    def _tree(self, length: int) -> _Node | None:
        tree = self._trees.get(length)
        if tree is None:
            pending = self._pending.pop(length, None)
            if pending is None:
                return None
            tree = self._trees[length] = _Node()
            for route, segments in pending:
                node = tree
                for segment in segments:
                    if _is_param(segment):
                        if node.param is None:
                            node.param = _Node()
                        node = node.param
                    else:
                        node = node.literals.setdefault(segment, _Node())
                node.routes.setdefault(route.method, {}).setdefault(route.repo, []).append(route)
        return tree

    def _walk(
        self,
        tree: _Node,
        call: list[str],
        methods: list[tuple[str, int]],
        target: str | None,
        found: _Found,
    ) -> None:
        """Add to `found` the routes of `tree` (as long as `call`) that `call` fits, each scored
        2 for a literal segment it has, 1 for a parameter (which takes any segment) or a
        literal its segment with a hole in it (`{}.json`) fills, twice, plus 1 for the call's
        own method. A segment that is all hole (`/users/{}`) fits only a parameter: the value
        a variable holds is a parameter's, not one of the literal routes beside it."""
        stack = [(tree, 0, 0)]
        while stack:
            node, depth, score = stack.pop()
            if depth == len(call):
                for method, bonus in methods:
                    by_repo = node.routes.get(method)
                    if not by_repo:
                        continue
                    if target is not None:
                        routes = by_repo.get(target)
                        if routes:
                            found.add(2 * score + bonus, target, routes)
                        continue
                    for repo, routes in by_repo.items():
                        found.add(2 * score + bonus, repo, routes)
                continue
            segment = call[depth]
            if node.param is not None:
                stack.append((node.param, depth + 1, score + 1))
            exact = node.literals.get(segment)
            if exact is not None:
                stack.append((exact, depth + 1, score + 2))
            if HOLE in segment and segment != HOLE:  # `{}.json` may fill a literal segment
                pattern = re.compile(re.escape(segment).replace(re.escape(HOLE), "[^/]+"))
                for literal, child in node.literals.items():
                    if "{" not in literal and "}" not in literal and pattern.fullmatch(literal):
                        stack.append((child, depth + 1, score + 1))

    def _stages(
        self, method: str, path: str, target: str | None, both: bool
    ) -> tuple[_Found, _Found | None]:
        """The routes the call fits on its whole template, and (when none does, or `both`)
        those whose template ends the call's path."""
        methods = [(method, 1)]
        if method != ANY_METHOD:
            methods.append((ANY_METHOD, 0))
        if method == "HEAD":
            methods.append(("GET", 0))
        call = _segments(path)
        whole = _Found()
        tree = self._tree(len(call))
        if tree is not None:
            self._walk(tree, call, methods, target, whole)
        if whole.count and not both:
            return whole, None
        suffix = _Found()
        for length in self._lengths:
            if not 0 < length < len(call):
                continue
            tree = self._tree(length)
            if tree is not None:
                self._walk(tree, call[len(call) - length :], methods, target, suffix)
        return whole, suffix

    def match(
        self, method: str, base: str, path: str, own_repo: str, services: dict[str, str]
    ) -> tuple[Match | None, set[str]]:
        """`match_call` of one call over these routes, and the repositories whose routes it
        weighed (every route that fits at the stage that decided: the whole template, or the
        prefix when no whole template fits). A change of routes outside these repositories
        cannot change the answer."""
        target = service_of(base, own_repo, services)
        whole, suffix = self._stages(method, path, target, both=False)
        via = "http" if target is not None else "http_base"
        found = whole
        if suffix is not None:
            found, via = suffix, "http_prefix"
        if found.count != 1 or found.route is None:
            return None, found.repos  # none, or several fit as well: never guessed
        return Match(found.route, via), found.repos

    def fits(
        self, method: str, base: str, path: str, own_repo: str, services: dict[str, str]
    ) -> bool:
        """Whether any of these routes fits the call, on its whole template or as a prefix
        (whatever other routes fit too)."""
        whole, suffix = self._stages(method, path, service_of(base, own_repo, services), True)
        return bool(whole.repos) or (suffix is not None and bool(suffix.repos))


def service_of(base: str, own_repo: str, services: dict[str, str]) -> str | None:
    """The repository a call's base URL is configured to (a relative URL: the one configured
    for "/", else the calling repository), or None when it is not known."""
    target = services.get(base) if base else services.get("/", own_repo)
    if target is None and base:
        host = base.split("/")[0]
        target = services.get(host) or services.get(host.split(":")[0])
    return target


def match_call(
    method: str,
    base: str,
    path: str,
    routes: list[Route] | RouteIndex,
    own_repo: str,
    services: dict[str, str],
) -> Match | None:
    """The one route a call reaches, or None when none or several fit equally well.

    `services` maps a base (a host, a variable or setting, `env:NAME`) to the repository that
    serves it (`.cartograph.toml` `[services]`); a relative URL is served by the repository
    configured for "/" (a web front end's API), else by the calling repository. A route of the
    configured service matched on its whole template is "http"; on its whole template with the
    service not known, "http_base"; a route whose template ends the call's path (the base URL
    holds a prefix), "http_prefix". Many calls: build a `RouteIndex` once and pass it."""
    index = routes if isinstance(routes, RouteIndex) else RouteIndex(routes)
    return index.match(method, base, path, own_repo, services)[0]
