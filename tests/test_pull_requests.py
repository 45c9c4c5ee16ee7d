"""Pull-request impact reports, end to end over real HTTP (SQLite store, in-process jobs, real
git): a signed webhook announces a pull request's head; its impact against the base branch is
computed in the mirror, stored (a newer head replaces it), readable over REST and GraphQL, and
— when the repository is configured to — posted to the forge (a local HTTP server standing in
for GitHub) as one comment edited in place and a commit status."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.forge import MARKER
from cartograph.store import open_store
from forge_support import FakeForge
from push_support import Remote, git, wait_for_indexed

REPO = "shop"
FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": "def compute(a, b=2):\n    return a * b\n",
    "shop/orders.py": (
        "from shop.pricing import compute\n\n\n"
        "def order_total(x):\n    return compute(x)\n\n\n"
        "def order_tax(x):\n    return compute(x) + 1\n"
    ),
    "tests/__init__.py": "",
    "tests/test_orders.py": (
        "from shop.orders import order_tax, order_total\n\n\n"
        "def test_total():\n    assert order_total(2) == 4\n\n\n"
        "def test_tax():\n    assert order_tax(2) == 5\n"
    ),
}
BREAKING = {"shop/pricing.py": "def compute(a, b):\n    return a * b\n"}
COMPATIBLE = {"shop/pricing.py": "def compute(a, b=2, c=None):\n    return a * b\n"}
CALLERS = {"shop.orders.order_total", "shop.orders.order_tax"}
TEST_NODES = {"tests/test_orders.py::test_total", "tests/test_orders.py::test_tax"}
TOKEN = "tok-123"
DEADLINE = 90.0


# ------------------------------------------------------------------ the service and the remote


@dataclass
class Service:
    url: str
    remote: Remote
    secret: str
    main: str  # the indexed head of main

    def branch(self, name: str, write: dict[str, str], pull: int | None = None) -> str:
        """A commit on branch `name` (from main, or on top of its previous commit), pushed to
        the remote — and to refs/pull/<pull>/head, as GitHub keeps a pull request's head."""
        dev = self.remote.dev
        existing = git(dev, "branch", "--list", name)
        git(dev, "checkout", "-q", *([name] if existing else ["-b", name, self.main]))
        sha = self.remote.commit(f"change on {name}", write=write)
        git(dev, "push", "-q", "--force", "origin", f"HEAD:refs/heads/{name}")
        if pull is not None:
            git(dev, "push", "-q", "--force", "origin", f"HEAD:refs/pull/{pull}/head")
        git(dev, "checkout", "-q", "main")
        return sha

    def github(
        self, payload: dict, delivery: str | None = None, sign: bool = True
    ) -> httpx.Response:
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "Content-Type": "application/json",
        }
        if sign:
            signature = hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
            headers["X-Hub-Signature-256"] = f"sha256={signature}"
        return httpx.post(f"{self.url}/webhooks/github/{REPO}", content=body, headers=headers)

    def review(self, number: int = 7) -> httpx.Response:
        return httpx.get(f"{self.url}/api/v1/repos/{REPO}/reviews/{number}")

    def wait_for_report(self, head: str, number: int = 7) -> dict:
        """The stored report of `number` once computed for `head` (polled, within DEADLINE)."""
        deadline = time.monotonic() + DEADLINE
        last: Any = None
        while time.monotonic() < deadline:
            answer = self.review(number)
            last = answer.text
            if answer.status_code == 200:
                report = answer.json()
                if report["head_sha"] == head and report["computed_at"]:
                    return report
            time.sleep(0.05)
        raise AssertionError(f"no report of #{number} at {head} within {DEADLINE} s: {last}")

    def graphql(self, query: str) -> dict:
        answer = httpx.post(f"{self.url}/graphql", json={"query": query})
        assert answer.status_code == 200, answer.text
        data = answer.json()
        assert not data.get("errors"), data
        return data["data"]


def pull_request(head: str, action: str = "opened", number: int = 7, **request: Any) -> dict:
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "title": "Make b required",
            "head": {"sha": head, "ref": "feature"},
            "base": {"ref": "main"},
            **request,
        },
    }


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """The forge is on this machine: no proxy from the environment stands in between."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def service(tmp_path):
    settings = Settings(
        store_url=f"sqlite:///{tmp_path / 'graph.db'}",
        broker_url=None,
        data_dir=tmp_path / "data",
        admin_token=None,
    )
    app = create_app(settings)
    store = open_store(settings.store_url)
    remote = Remote(tmp_path / "hosted", FILES)
    try:
        with serve_in_thread(app) as url:
            added = httpx.post(f"{url}/api/v1/repos", json={"name": REPO, "url": remote.url})
            assert added.status_code == 201, added.text
            assert httpx.post(f"{url}/api/v1/repos/{REPO}/sync").status_code == 202
            wait_for_indexed(store, REPO, remote.head())
            yield Service(url, remote, added.json()["secret"], remote.head())
    finally:
        store.close()


@pytest.fixture
def forge():
    fake = FakeForge(users={TOKEN: (4242, "carto-bot")}).start()
    yield fake
    fake.stop()


def _configure_forge(service: Service, url: str) -> None:
    answer = httpx.put(
        f"{service.url}/api/v1/repos/{REPO}/forge",
        json={"forge": "github", "project": "acme/shop", "token": TOKEN, "url": url},
    )
    assert answer.status_code == 200, answer.text
    assert TOKEN not in answer.text
    settings = answer.json()
    assert (settings["forge"], settings["forge_project"], settings["token_set"]) == (
        "github",
        "acme/shop",
        True,
    )


# ------------------------------------------------------------------ the tests


def test_a_breaking_pull_request_is_reported_deduplicated_and_replaced(service):
    head = service.branch("feature", BREAKING, pull=7)
    answer = service.github(pull_request(head), delivery="gh-1")
    assert answer.status_code == 202, answer.text
    assert answer.json()["queued"] is True

    report = service.wait_for_report(head)
    assert report["verdict"] == "breaking"
    assert (report["number"], report["base_ref"], report["title"]) == (7, "main", "Make b required")
    assert report["error"] == "" and report["base_sha"] == service.main
    full = report["report"]  # the full impact report, as JSON
    assert full["verdict"] == "breaking"
    assert {b["caller"]["qualname"] for b in full["will_break"]} == CALLERS
    assert all(b["target_qualname"] == "shop.pricing.compute" for b in full["will_break"])
    assert {t["node"] for t in full["tests"]} == TEST_NODES
    markdown = report["markdown"]
    assert "Will break" in markdown
    assert "python -m pytest " in markdown
    for node in TEST_NODES:
        assert node in markdown

    # the same delivery again: recognised; another delivery of the same head: already reported
    again = service.github(pull_request(head), delivery="gh-1")
    assert again.status_code == 200 and again.json()["duplicate"] is True
    other = service.github(pull_request(head, action="edited"), delivery="gh-2")
    assert other.status_code == 200 and other.json()["duplicate"] is True
    assert service.review().json() == report  # nothing was recomputed

    # a new push to the pull request that keeps callers working replaces the report
    fixed = service.branch("feature", COMPATIBLE, pull=7)
    pushed = service.github(pull_request(fixed, action="synchronize"), delivery="gh-3")
    assert pushed.status_code == 202 and pushed.json()["queued"] is True
    replaced = service.wait_for_report(fixed)
    assert replaced["verdict"] not in ("breaking", "")
    assert replaced["head_sha"] == fixed and replaced["error"] == ""
    assert replaced["report"]["will_break"] == []
    assert "Will break" not in replaced["markdown"]
    listed = httpx.get(f"{service.url}/api/v1/repos/{REPO}/reviews")
    assert listed.status_code == 200, listed.text
    assert [(r["number"], r["head_sha"]) for r in listed.json()] == [(7, fixed)]


def test_reports_are_posted_to_the_forge_and_the_comment_edited_in_place(service, forge):
    _configure_forge(service, forge.url)
    head = service.branch("feature", BREAKING, pull=7)
    assert service.github(pull_request(head)).status_code == 202
    report = service.wait_for_report(head)
    assert report["verdict"] == "breaking"
    assert report["post_error"] == "" and report["posted_at"]
    assert report["comment_url"] == "https://gh.example/c/900"
    assert TOKEN not in json.dumps(report)

    assert forge.requests() == [
        ("GET", "/user"),
        ("GET", "/repos/acme/shop/issues/7/comments?per_page=100"),
        ("POST", "/repos/acme/shop/issues/7/comments"),
        ("POST", f"/repos/acme/shop/statuses/{head}"),
    ]
    _user, listing, comment, status = forge.seen
    assert listing.body is None
    assert all(seen.headers["authorization"] == f"Bearer {TOKEN}" for seen in forge.seen)
    assert comment.body["body"].startswith(MARKER)
    assert "Will break" in comment.body["body"]
    assert status.body["state"] == "failure"
    assert status.body["context"] == "cartograph/impact"

    # a new head: the same comment is edited, not a second one posted
    forge.seen.clear()
    fixed = service.branch("feature", COMPATIBLE, pull=7)
    assert service.github(pull_request(fixed, action="synchronize")).status_code == 202
    replaced = service.wait_for_report(fixed)
    assert replaced["post_error"] == ""
    assert replaced["comment_url"] == "https://gh.example/c/900"
    assert forge.requests() == [
        ("GET", "/repos/acme/shop/issues/comments/900"),  # the id it answered the first time
        ("PATCH", "/repos/acme/shop/issues/comments/900"),
        ("POST", f"/repos/acme/shop/statuses/{fixed}"),
    ]
    assert all(seen.headers["authorization"] == f"Bearer {TOKEN}" for seen in forge.seen)
    assert forge.seen[-1].body["state"] == "success"
    assert forge.seen[-1].body["context"] == "cartograph/impact"
    assert list(forge.comments) == [900]
    body = forge.comments[900].body
    assert body.startswith(MARKER) and "Will break" not in body

    # the forge is down for the next head: the report is kept, and so is the link to the comment
    forge.failing = True
    again = service.branch("feature", COMPATIBLE, pull=7)
    assert service.github(pull_request(again, action="synchronize")).status_code == 202
    kept = service.wait_for_report(again)
    assert kept["verdict"] == replaced["verdict"] and "HTTP 500" in kept["post_error"]
    assert kept["comment_url"] == "https://gh.example/c/900"
    # it asked who wrote the same comment, to edit it
    assert forge.requests()[-2] == ("GET", "/repos/acme/shop/issues/comments/900")


def test_a_failing_forge_never_loses_the_report(service, forge):
    forge.failing = True
    _configure_forge(service, forge.url)
    head = service.branch("feature", BREAKING, pull=7)
    assert service.github(pull_request(head)).status_code == 202
    report = service.wait_for_report(head)
    assert report["verdict"] == "breaking" and "Will break" in report["markdown"]
    assert report["post_error"]
    assert "HTTP 500" in report["post_error"] and "comment" in report["post_error"]
    assert "status" in report["post_error"]
    assert TOKEN not in json.dumps(report)
    assert forge.seen  # it was tried


def test_gitlab_merge_requests(service):
    head = service.branch("feature", BREAKING)

    def hook(action: str, delivery: str) -> httpx.Response:
        payload = {
            "object_kind": "merge_request",
            "object_attributes": {
                "iid": 3,
                "action": action,
                "last_commit": {"id": head},
                "target_branch": "main",
                "title": "Make b required",
            },
        }
        return httpx.post(
            f"{service.url}/webhooks/gitlab/{REPO}",
            json=payload,
            headers={
                "X-Gitlab-Token": service.secret,
                "X-Gitlab-Event": "Merge Request Hook",
                "X-Gitlab-Event-UUID": delivery,
            },
        )

    opened = hook("open", "gl-1")
    assert opened.status_code == 202 and opened.json()["queued"] is True
    report = service.wait_for_report(head, number=3)
    assert report["verdict"] == "breaking" and report["base_ref"] == "main"
    assert {b["caller"]["qualname"] for b in report["report"]["will_break"]} == CALLERS

    closed = hook("close", "gl-2")
    assert closed.status_code == 202 and closed.json()["queued"] is False
    assert service.review(3).json() == report


def test_bad_input_is_refused_or_reported_never_a_crash(service):
    missing = "d" * 40  # in no ref of the remote
    answer = service.github(pull_request(missing))
    assert answer.status_code == 202, answer.text
    report = service.wait_for_report(missing)
    assert report["verdict"] == "" and report["markdown"] == "" and report["report"] is None
    assert missing in report["error"] and "no commit" in report["error"]

    no_head = pull_request(missing)
    del no_head["pull_request"]["head"]
    refused = service.github(no_head)
    assert refused.status_code == 400, refused.text
    assert "head" in refused.json()["detail"]
    for bad in (
        {"action": "opened"},
        pull_request("not-a-sha"),
        {**pull_request(missing), "number": "7"},
    ):
        assert service.github(bad).status_code == 400
    unsigned = service.github(pull_request(service.main, number=8), sign=False)
    assert unsigned.status_code == 401
    forged = httpx.post(
        f"{service.url}/webhooks/github/{REPO}",
        content=json.dumps(pull_request(service.main, number=8)).encode(),
        headers={
            "X-GitHub-Event": "pull_request",
            "X-Hub-Signature-256": "sha256=" + "0" * 64,
        },
    )
    assert forged.status_code == 401
    assert service.review(8).status_code == 404  # nothing was recorded for either
    closed = service.github(pull_request(service.main, action="closed", number=8))
    assert closed.status_code == 202 and closed.json()["queued"] is False
    assert service.review(8).status_code == 404


def test_graphql_answers_the_stored_report(service):
    head = service.branch("feature", BREAKING, pull=7)
    assert service.github(pull_request(head)).status_code == 202
    report = service.wait_for_report(head)

    found = service.graphql(
        f'{{ pullRequestReport(repo: "{REPO}", number: 7) {{ verdict headSha markdown }} }}'
    )["pullRequestReport"]
    assert found == {"verdict": "breaking", "headSha": head, "markdown": report["markdown"]}
    listed = service.graphql("{ repositories { name reviews(first: 5) { number verdict } } }")
    assert listed["repositories"] == [
        {"name": REPO, "reviews": [{"number": 7, "verdict": "breaking"}]}
    ]


def test_pull_request_numbers_beyond_graphqls_int_are_refused_before_anything_is_recorded(
    service,
):
    """A number above 2^31-1 (GraphQL's Int, which carries the graph's numbers to the
    dashboard) is refused with 400 before its delivery is recorded: the same delivery with a
    number in range is then taken. The largest number in range is reported, listed on REST and
    read by GraphQL (the dashboard's Changes list)."""
    head = service.branch("feature", BREAKING)
    for number in (2**31, 2**63, 2**70):
        refused = service.github(pull_request(head, number=number), delivery="gh-big")
        assert refused.status_code == 400, refused.text
        assert f"pull request number {number} is out of range" in refused.json()["detail"]
    largest = 2**31 - 1
    taken = service.github(pull_request(head, number=largest), delivery="gh-big")
    assert taken.status_code == 202 and taken.json()["queued"] is True, taken.text
    assert service.wait_for_report(head, number=largest)["number"] == largest
    listed = httpx.get(f"{service.url}/api/v1/repos/{REPO}/reviews").json()
    assert [r["number"] for r in listed] == [largest]
    data = service.graphql("{ repositories { name reviews { number verdict } } }")
    assert data["repositories"][0]["reviews"] == [{"number": largest, "verdict": "breaking"}]
