"""Tracked repositories as a careless or hostile admin would set them up: URLs that are no git
transport (remote helpers that read a descriptor or run a program), credentials embedded in URLs
(never shown, not in the graph, not in errors, while git's whole message is kept), and names
with a trailing newline (whole-string checks everywhere a name is validated)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from cartograph.auth import create_token
from cartograph.errors import Invalid
from cartograph.gitremote import check_url, git_environment, redact, transport_of
from cartograph.jobs import MemoryJobState, run_job
from cartograph.sync import SyncError, TransientSyncError, sync_to
from cartograph.tracking import TrackingError, add_tracked, repo_status
from cartograph.webhooks import WebhookError, parse
from push_support import Remote

FILES = {"app/__init__.py": "", "app/main.py": "def main():\n    return 1\n"}
SECRET = "sekrit-token-7f3a"

ACCEPTED = {
    "https://github.com/acme/shop.git": "https",
    "https://bot:tok@github.com/acme/shop.git": "https",
    "ssh://git@github.com/acme/shop.git": "ssh",
    "git+ssh://git@github.com/acme/shop.git": "ssh",
    "git@github.com:acme/shop.git": "ssh",
    "github.com:acme/shop.git": "ssh",
    "git://example.com/shop.git": "git",
    "/srv/git/shop.git": "file",
    "file:///srv/git/shop.git": "file",
    "../shop.git": "file",
}
REFUSED = [
    "fd::17",
    "ext::sh -c touch% /tmp/pwned",
    "ext::sh",
    "file::/srv/x",
    "-uhelp",
    "--upload-pack=touch /tmp/pwned",
    "https://github.com/a b",
    "https://github.com/a\n",
    " https://github.com/a",
    "https://github.com/a\x00",
    "ftp://example.com/x.git",
    "javascript://x",
    "",
]


@pytest.mark.parametrize("url", sorted(ACCEPTED))
def test_git_transports_that_are_accepted(url):
    assert transport_of(url) == ACCEPTED[url]
    assert check_url(url) == url


@pytest.mark.parametrize("url", REFUSED)
def test_urls_that_are_no_git_transport_are_refused(url, stores):
    with pytest.raises(Invalid):
        check_url(url)
    store = stores.open()
    with pytest.raises(TrackingError):
        add_tracked(store, "shop", url, "main")
    assert store.tracking.get_tracked("shop") is None


def test_the_allowed_transports_are_configuration(monkeypatch, stores):
    monkeypatch.setenv("CARTOGRAPH_GIT_TRANSPORTS", "https,ssh")
    store = stores.open()
    with pytest.raises(TrackingError, match="file transport is not allowed"):
        add_tracked(store, "local", "/srv/git/shop.git", "main")
    add_tracked(store, "hosted", "https://github.com/acme/shop.git", "main")
    assert git_environment()["GIT_ALLOW_PROTOCOL"] == "https:ssh"
    monkeypatch.setenv("CARTOGRAPH_GIT_TRANSPORTS", "https,gopher")
    with pytest.raises(Invalid, match="gopher"):
        check_url("https://github.com/acme/shop.git")


def test_a_remote_helper_url_stored_before_validation_fails_fast(tmp_path, stores):
    """`fd::17` slipped into the store (an older version accepted it): git itself refuses the
    transport at once (GIT_ALLOW_PROTOCOL) instead of hanging for the git timeout."""
    store = stores.open()
    tracked = add_tracked(store, "shop", "https://example.invalid/shop.git", "main")
    tracked.url = "fd::17"
    started = time.monotonic()
    with pytest.raises(SyncError) as caught:
        sync_to(store, tracked, None, tmp_path / "data", workers=1)
    assert time.monotonic() - started < 10
    assert "not allowed" in str(caught.value) or "transport" in str(caught.value)


@pytest.mark.parametrize(
    "text, shown",
    [
        ("https://bot:ghp_abc@github.com/a/b.git", "https://***@github.com/a/b.git"),
        ("https://ghp_abc@github.com/a/b", "https://***@github.com/a/b"),
        ("fatal: unable to access 'https://u:p@h/x/': 403", "fatal: unable to access 'https://***@h/x/': 403"),
        ("git@github.com:a/b.git", "git@github.com:a/b.git"),
        ("no url here", "no url here"),
    ],
)  # fmt: skip
def test_redact_hides_user_information_of_every_url(text, shown):
    assert redact(text) == shown


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass


@pytest.fixture
def dumb_http_remote(tmp_path):
    """A bare repository served over git's dumb HTTP protocol (static files) on loopback, so
    a URL can carry credentials and still be fetched."""
    remote = Remote(tmp_path / "hosted", FILES)
    subprocess.run(["git", "-C", str(remote.bare), "update-server-info"], check=True)
    handler = functools.partial(_QuietHandler, directory=str(remote.bare.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield remote, server.server_address[1]
    server.shutdown()


def test_credentials_in_a_tracked_url_are_never_shown(
    tmp_path, stores, monkeypatch, dumb_http_remote
):
    _remote, port = dumb_http_remote
    monkeypatch.setenv("CARTOGRAPH_GIT_TRANSPORTS", "http,https,ssh,git,file")
    store = stores.open()
    url = f"http://ci-bot:{SECRET}@127.0.0.1:{port}/remote.git"
    tracked = add_tracked(store, "shop", url, "main")
    data = tmp_path / "data"
    result = sync_to(store, tracked, None, data, workers=1)
    assert result.action == "indexed"
    repo = store.repos.get_repo("shop")
    assert SECRET not in repo.url and repo.url == f"http://***@127.0.0.1:{port}/remote.git"
    assert SECRET not in json.dumps([item for item in store.graph.export("shop")])
    status = repo_status(store, "shop", None, data)
    assert SECRET not in json.dumps(status.as_dict())

    # a failing fetch: git's whole message is kept, its credentials are not
    tracked.url = f"http://ci-bot:{SECRET}@127.0.0.1:1/remote.git"
    store.tracking.update_tracked("shop", url=tracked.url)
    state = MemoryJobState()
    state.announce("shop", "refs/heads/main")
    outcome = run_job(store, "shop", state, data, workers=1)
    assert outcome.status == "retry"
    error = store.tracking.get_tracked("shop").last_error
    assert SECRET not in error and SECRET not in outcome.error
    assert "127.0.0.1" in error and "***@" in error
    status = repo_status(store, "shop", None, data)
    assert SECRET not in json.dumps(status.as_dict()) and status.last_error


def test_cli_repo_commands_never_print_credentials(tmp_path):
    store_url = f"sqlite:///{tmp_path / 'graph.db'}"
    env = {**os.environ, "CARTOGRAPH_DATA": str(tmp_path / "data")}

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "cartograph.cli", "--store", store_url, *args],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        return done.stdout + done.stderr

    url = f"https://ci-bot:{SECRET}@127.0.0.1:1/shop.git"
    shown = [
        cli("repo", "add", "shop", "--url", url),
        cli("repo", "add", "shop2", "--url", url, "--json"),
        cli("repo", "list"),
        cli("repo", "list", "--json"),
        cli("repo", "status", "shop"),
        cli("repo", "sync", "shop"),  # fails: nothing listens on port 1
        cli("repo", "status", "shop", "--json"),
    ]
    for text in shown:
        assert SECRET not in text, text
    assert "https://***@127.0.0.1:1/shop.git" in shown[0]
    assert "127.0.0.1" in shown[-1] and "last_error" in shown[-1]


@pytest.mark.parametrize(
    "name, branch", [("shop\n", "main"), ("shop", "main\n"), ("sh\nop", "main")]
)
def test_names_and_branches_with_a_newline_are_refused(name, branch, stores):
    with pytest.raises(TrackingError):
        add_tracked(stores.open(), name, "https://github.com/acme/shop.git", branch)


def test_token_names_and_webhook_shas_are_checked_whole(stores):
    store = stores.open()
    with pytest.raises(Invalid):
        create_token(store, "alice\n", ["read"])
    # a pushed sha with a newline is taken stripped (what reaches the job is the bare sha);
    # anything else around it is refused
    body = json.dumps({"ref": "refs/heads/main", "after": "a" * 40 + "\n"}).encode()
    assert parse("github", {"x-github-event": "push"}, body, "main").sha == "a" * 40
    body = json.dumps({"ref": "refs/heads/main", "after": "a" * 40 + "\nb"}).encode()
    with pytest.raises(WebhookError):
        parse("github", {"x-github-event": "push"}, body, "main")


def test_transient_and_permanent_errors_still_differ(tmp_path, stores):
    """An unreachable host is worth retrying; a refused transport is not (it never works)."""
    store = stores.open()
    tracked = add_tracked(store, "shop", "https://127.0.0.1:1/shop.git", "main")
    with pytest.raises(TransientSyncError):
        sync_to(store, tracked, None, tmp_path / "data", workers=1)
