"""Real-browser tests: headless Chromium (Debian's, driven by Playwright's sync API) against a
running `cartograph serve`, with axe-core for accessibility checks.

tests/conftest.py registers this module as a plugin, so every test can take its fixtures::

    from browser_support import axe_violations, format_violations

    def test_dashboard(page, page_errors, shop_server):
        page.goto(f"{shop_server.url}/ui/")
        assert page_errors == []
        assert axe_violations(page) == [], format_violations(axe_violations(page))

Fixtures: ``chromium_path`` (session: the executable), ``browser`` (session), ``page``
(a new context per test; 10 s default timeout), ``page_errors`` (the console errors and
uncaught exceptions of that page, as text; a 404 for /favicon.ico is not counted), ``shop_server`` (session: the sample shop
repository indexed into a SQLite store and served without tokens) and ``cartograph_server``
(a factory: ``cartograph_server(env={"CARTOGRAPH_ADMIN_TOKEN": "s3cret"}, repos=[root])``,
each server stopped when the test ends).

Chromium is $CARTOGRAPH_CHROMIUM, else /usr/bin/chromium, else `chromium` or
`chromium-browser` on PATH; failing those, as root with apt-get, the session installs Debian's
`chromium` (Playwright's own browser download is not used). With no Chromium, browser tests
fail under CI=true (like the Neo4j and Redis servers) and skip elsewhere.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest
from api_support import serving
from redis_server import free_port
from sample_repo import make_sample_repo

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page

AXE_JS = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
IMPACTS = ("minor", "moderate", "serious", "critical")
# --disable-background-networking and the rest: on a closed network Chromium's own
# connections (updates, sync, QUIC probes) are refused and get in the way
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def unavailable(reason: str) -> NoReturn:
    """Fail under CI=true (a missing browser must not pass as green), skip elsewhere."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests never skip)", pytrace=False)
    pytest.skip(reason)


def say(request: pytest.FixtureRequest, message: str) -> None:
    """Print past pytest's capture (a Chromium install takes a minute: say so)."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print(f"\n[browser_support] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- Chromium


def find_chromium() -> str | None:
    configured = os.environ.get("CARTOGRAPH_CHROMIUM")
    if configured:
        return configured  # checked by the caller: a wrong setting is an error, not a fallback
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


def apt_get(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["apt-get", *args],
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )


def install_chromium(request: pytest.FixtureRequest) -> str:
    """`apt-get install -y chromium` (after `apt-get update` when the first try fails).
    Returns what went wrong, or "" when it installed."""
    started = time.monotonic()
    say(request, "no Chromium found: apt-get install -y chromium (a minute or two)")
    done = apt_get("install", "-y", "chromium")
    if done.returncode != 0:
        say(request, "apt-get install failed; apt-get update, then install again")
        apt_get("update")
        done = apt_get("install", "-y", "chromium")
    if done.returncode != 0:
        return f"apt-get install -y chromium exited {done.returncode}:\n{done.stdout[-1500:]}{done.stderr[-1500:]}"
    say(request, f"installed Chromium in {time.monotonic() - started:.0f} s")
    return ""


@pytest.fixture(scope="session")
def chromium_path(request: pytest.FixtureRequest) -> str:
    found = find_chromium()
    problem = ""
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        problem = install_chromium(request)
        found = find_chromium()
    if found is None:
        unavailable(
            "no Chromium: set CARTOGRAPH_CHROMIUM or `apt-get install -y chromium`"
            + (f"\n{problem}" if problem else "")
        )
    if not os.access(found, os.X_OK):
        pytest.fail(f"CARTOGRAPH_CHROMIUM={found} is not an executable", pytrace=False)
    return found


# -------------------------------------------------------------------------- Playwright pages


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    """Chromium for one test module. Not for the session: Playwright's sync API keeps its event
    loop running in this thread while it is started, and every later test that calls
    `asyncio.run` (GraphQL, MCP) would be refused."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("no Playwright: pip install -e '.[dev]'")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=LAUNCH_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page_errors() -> list[str]:
    """What went wrong in the test's page: console messages of type error and uncaught
    exceptions, as text. Assert it is empty."""
    return []


@pytest.fixture
def page(browser: Browser, page_errors: list[str]) -> Iterator[Page]:
    context = browser.new_context()
    context.set_default_timeout(10_000)
    opened = context.new_page()

    def console(message: ConsoleMessage) -> None:
        # Chromium asks every page's server for /favicon.ico on its own: not the page's error
        automatic = message.location.get("url", "").endswith("/favicon.ico")
        if message.type == "error" and not automatic:
            page_errors.append(f"console: {message.text} at {message.location}")

    opened.on("console", console)
    opened.on("pageerror", lambda error: page_errors.append(f"uncaught: {error}"))
    yield opened
    context.close()


# ---------------------------------------------------------------------------------- axe-core


def axe_violations(page: Page, impact_at_least: str = "serious") -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now, of `impact_at_least` or worse
    (minor < moderate < serious < critical)."""
    floor = IMPACTS.index(impact_at_least)
    # evaluated rather than added as a <script>: a page whose content security policy allows
    # only its own scripts (the dashboard's) refuses an inline one
    page.evaluate(f"() => {{ {AXE_JS.read_text()}\n }}")
    violations = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    return [v for v in violations if IMPACTS.index(v.get("impact") or "minor") >= floor]


def format_violations(violations: list[dict[str, Any]]) -> str:
    """One line per violation and element, for an assertion's message."""
    return "\n".join(
        f"{v['impact']} {v['id']}: {v['help']} at {node['target']}"
        for v in violations
        for node in v["nodes"]
    )


# ------------------------------------------------------------------------ `cartograph serve`


@dataclass
class Server:
    url: str  # http://127.0.0.1:PORT
    store: str  # its CARTOGRAPH_STORE
    log: Path  # its stdout and stderr
    env: dict[str, str]  # the environment it runs with (to run `cartograph` against it)


def cartograph(*args: str, env: Mapping[str, str]) -> subprocess.CompletedProcess:
    """The `cartograph` command with `env` (for instance `index ROOT` into a server's store)."""
    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"cartograph {' '.join(args)}:\n{done.stdout}{done.stderr}"
    return done


@contextlib.contextmanager
def serve(
    folder: Path, *, env: Mapping[str, str] | None = None, repos: Iterable[Path] = ()
) -> Iterator[Server]:
    """`cartograph serve` on a free loopback port, its SQLite store and data under `folder`,
    `repos` indexed there first (named after their folders). `env` overrides the environment
    (CARTOGRAPH_ADMIN_TOKEN, CARTOGRAPH_REQUIRE_TOKENS, ...); the CARTOGRAPH_ variables of
    this process are not passed on."""
    folder.mkdir(parents=True, exist_ok=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CARTOGRAPH_")}
    environment |= {
        "CARTOGRAPH_STORE": f"sqlite:///{folder / 'graph.db'}",
        "CARTOGRAPH_DATA": str(folder / "data"),
        **(env or {}),
    }
    for root in repos:
        cartograph("index", str(root), env=environment)
    port = free_port()
    command = [sys.executable, "-m", "cartograph.cli", "serve", "--port", str(port)]
    with serving(command, environment, folder / "serve.log", port, timeout=60) as url:
        yield Server(url, environment["CARTOGRAPH_STORE"], folder / "serve.log", environment)


@pytest.fixture
def cartograph_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Start servers for this test: ``cartograph_server(env=..., repos=[...])``."""
    started = itertools.count()
    with contextlib.ExitStack() as running:

        def start(*, env: Mapping[str, str] | None = None, repos: Iterable[Path] = ()) -> Server:
            folder = tmp_path / f"server-{next(started)}"
            return running.enter_context(serve(folder, env=env, repos=repos))

        yield start


@pytest.fixture(scope="session")
def shop_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The sample shop (tests/sample_repo.py) indexed as `shop`, served without tokens."""
    folder = tmp_path_factory.mktemp("shop-server")
    with serve(folder / "server", repos=[make_sample_repo(folder / "shop")]) as server:
        yield server
