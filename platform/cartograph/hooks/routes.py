"""The team server's operations the hooks call, as the catalogue declares their REST routes:
the method, the path, and where each parameter goes (under REST's name for it). A hook starts
in about 40 ms; reading the catalogue itself takes half a second more, which every edit and
prompt of an agent would pay — so the hooks keep this copy of the declarations they use, and
tests/test_catalogue.py fails when it and the catalogue differ."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # under /api/v1; `{name}` (`{name:path}`) is a path parameter
    params: dict[str, str]  # REST's name of each parameter → "path", "query" or "body"

    def request(self, values: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None]:
        """The method, the path with its query, and the body of a call with these values
        (None ones left out)."""
        unknown = set(values) - set(self.params)
        if unknown:
            raise ValueError(f"{self.path} takes no parameter {sorted(unknown)[0]!r}")
        path = self.path
        query: dict[str, Any] = {}
        body: dict[str, Any] = {}
        for name, value in values.items():
            if value is None:
                continue
            where = self.params[name]
            if where == "path":
                quoted = urllib.parse.quote(str(value), safe="")
                path = path.replace(f"{{{name}:path}}", quoted).replace(f"{{{name}}}", quoted)
            elif where == "query":
                query[name] = str(value).lower() if isinstance(value, bool) else value
            else:
                body[name] = value
        if query:
            path += "?" + urllib.parse.urlencode(query)
        has_body = any(where == "body" for where in self.params.values())
        return self.method, path, body if has_body else None


BUDGET = {"max_tokens": "query", "cursor": "query"}

ROUTES = {
    "repos": Route("GET", "/indexed-repos", {"session": "query", **BUDGET}),
    "session-start": Route("POST", "/sessions", {"agent": "body", "task": "body"}),
    "session-heartbeat": Route("POST", "/sessions/{session}/heartbeat", {"session": "path"}),
    "session-end": Route("DELETE", "/sessions/{session}", {"session": "path"}),
    "claim": Route(
        "POST", "/claims", {"session": "body", "repo": "body", "path": "body", "intent": "body"}
    ),
    "claims": Route("GET", "/claims", {"repo": "query", **BUDGET}),
    "overlay-edit": Route(
        "POST",
        "/sessions/{session}/overlay",
        {"session": "path", "repo": "body", "path": "body", "content": "body", "deleted": "body"},
    ),
    "stats": Route("GET", "/repos/{repo}/stats", {"repo": "path", "session": "query", **BUDGET}),
    "locate": Route(
        "POST",
        "/locate",
        {"text": "body", "repo": "body", "limit": "body", "min_confidence": "body"}
        | {"session": "query", **BUDGET},
    ),
    "co-changes": Route(
        "GET",
        "/co-changes",
        {"target": "query", "repo": "query", "limit": "query", "min_count": "query"}
        | {"session": "query", **BUDGET},
    ),
    "impact": Route(
        "POST",
        "/repos/{repo}/impact",
        {"repo": "path", "base": "body", "head": "body", "patch": "body", "limit": "body"}
        | {"format": "body", "min_confidence": "body", "budget": "body", **BUDGET},
    ),
}
