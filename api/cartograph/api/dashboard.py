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


def page_headers(policy: str) -> dict[str, str]:
    """The headers of a page shipped in the package (the dashboard's, GraphiQL's)."""
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


class DashboardFiles(StaticFiles):
    """Static files with `page_headers` (the dashboard's, or `policy`)."""

    def __init__(self, *args, policy: str = POLICY, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(page_headers(self.policy))
        return response


def dashboard_files() -> DashboardFiles:
    return DashboardFiles(directory=UI_FOLDER, html=True)


def to_dashboard() -> RedirectResponse:
    """`/ui` without its slash: the page's relative links need the folder form."""
    return RedirectResponse("/ui/", status_code=307)
