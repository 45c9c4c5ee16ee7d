"""GraphiQL, the in-browser GraphQL editor, at GET /graphql (what a browser asks for there: HTML,
no query). Its files are in the package (`graphiql/`: the page, its script and style, and the
GraphiQL and React builds under `vendor/`, taken from the npm registry's tarballs by
tools/graphiql/update.sh), so it works on a closed network; the page loads nothing but them and
talks to nothing but /graphql (its content security policy says so).

The page itself needs no token; its queries do. It has a field for the token, which GraphiQL
then sends as a bearer token with each query (kept in the tab's sessionStorage, under the
dashboard's key). When this server answers the browser without a token (an open server, a
request from this machine to itself), GraphiQL starts at once.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from cartograph.api.dashboard import DashboardFiles, page_headers
from starlette.responses import HTMLResponse

FOLDER = Path(__file__).parent / "graphiql"
PREFIX = "/graphiql"  # where the page's files are served (relative to /graphql: graphiql/…)
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)


@cache
def _template() -> str:
    return (FOLDER / "page.html").read_text(encoding="utf-8")


def graphiql_page(tokenless: bool) -> HTMLResponse:
    """The page; `tokenless`: this server answers the browser's queries without a token."""
    html = _template().replace("__TOKENS__", "optional" if tokenless else "required")
    return HTMLResponse(html, headers=page_headers(POLICY))


def graphiql_files() -> DashboardFiles:
    return DashboardFiles(directory=FOLDER, policy=POLICY)
