"""The dashboard's files at /ui (docs/dashboard.md): static, shipped in the package, served with a
content security policy that lets the page load nothing but its own files and talk to nothing
but this server (no CDN, no inline script). The data comes from /graphql with the reader's
token, so the files themselves need none."""

from __future__ import annotations

from pathlib import Path

from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

UI_FOLDER = Path(__file__).parent / "ui"
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)


class DashboardFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = POLICY
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


def dashboard_files() -> DashboardFiles:
    return DashboardFiles(directory=UI_FOLDER, html=True)


def to_dashboard() -> RedirectResponse:
    """`/ui` without its slash: the page's relative links need the folder form."""
    return RedirectResponse("/ui/", status_code=307)
