"""The HTTP app with in-process jobs (the embedded default: no broker), over real HTTP, on both
stores: tracking a repository through the API, signed webhooks from every provider keeping the
graph at each pushed commit, redelivery, bad signatures, unknown repositories, status."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.sync import Mirror
from push_support import Remote, assert_graph_matches_tree, github_delivery, wait_for_indexed
from redis_server import RedisServer

FILES = {
    "app/__init__.py": "",
    "app/core.py": "def helper():\n    return 1\n\n\ndef run():\n    return helper()\n",
}


@pytest.fixture
def served(tmp_path, stores):
    store = stores.open()
    settings = Settings(store_url=stores.url("graph"), broker_url=None, data_dir=tmp_path / "data")
    app = create_app(settings)
    with serve_in_thread(app) as url:
        yield url, store, tmp_path


def _add(url: str, remote: Remote, name: str = "app") -> str:
    answer = httpx.post(f"{url}/api/v1/repos", json={"name": name, "url": remote.url})
    assert answer.status_code == 201, answer.text
    return answer.json()["secret"]


def test_webhooks_keep_the_graph_at_each_pushed_commit(served):
    url, store, tmp = served
    remote = Remote(tmp / "hosted", FILES)
    secret = _add(url, remote)
    work = Mirror(tmp / "data", "app", remote.url).work

    headers, body = github_delivery(secret, remote.head())
    answer = httpx.post(f"{url}/webhooks/github/app", content=body, headers=headers)
    assert answer.status_code == 202 and answer.json()["queued"] is True
    wait_for_indexed(store, "app", remote.head())
    assert_graph_matches_tree(store, "app", work)

    # the same delivery again: recognised, nothing queued
    again = httpx.post(f"{url}/webhooks/github/app", content=body, headers=headers)
    assert again.status_code == 200 and again.json()["duplicate"] is True

    # an edit and a new file, announced by GitLab
    remote.commit(
        "more",
        write={"app/extra.py": "from app.core import run\n\n\ndef go():\n    return run()\n"},
    )
    sha = remote.push()
    gitlab = json.dumps({"ref": "refs/heads/main", "after": sha}).encode()
    answer = httpx.post(
        f"{url}/webhooks/gitlab/app",
        content=gitlab,
        headers={"X-Gitlab-Token": secret, "X-Gitlab-Event": "Push Hook"},
    )
    assert answer.status_code == 202
    wait_for_indexed(store, "app", sha)
    assert_graph_matches_tree(store, "app", work)

    # a rename and a deletion, announced by Gitea
    remote.commit("move", rename={"app/extra.py": "app/more.py"}, delete=["app/__init__.py"])
    sha = remote.push()
    gitea = json.dumps({"ref": "refs/heads/main", "after": sha}).encode()
    signature = hmac.new(secret.encode(), gitea, hashlib.sha256).hexdigest()
    answer = httpx.post(
        f"{url}/webhooks/gitea/app",
        content=gitea,
        headers={"X-Gitea-Signature": signature, "X-Gitea-Event": "push"},
    )
    assert answer.status_code == 202
    wait_for_indexed(store, "app", sha)
    assert_graph_matches_tree(store, "app", work)

    # a force-push, announced by a CI system
    remote.reset_hard(remote.head() + "~2")
    remote.commit("rewrite", write={"app/core.py": "def run():\n    return 2\n"})
    sha = remote.push(force=True)
    answer = httpx.post(
        f"{url}/webhooks/generic/app",
        json={"sha": sha},
        headers={"Authorization": f"Bearer {secret}", "X-Delivery-Id": str(uuid.uuid4())},
    )
    assert answer.status_code == 202
    wait_for_indexed(store, "app", sha)
    assert_graph_matches_tree(store, "app", work)

    status = httpx.get(f"{url}/api/v1/repos/app").json()
    assert status["indexed_sha"] == status["head_sha"] == sha
    assert (status["lag"], status["queue_depth"], status["last_error"]) == (0, 0, "")
    assert status["last_job_seconds"] > 0


def test_bad_requests_queue_nothing(served):
    url, store, tmp = served
    remote = Remote(tmp / "hosted", FILES)
    secret = _add(url, remote)
    headers, body = github_delivery("not-the-secret", remote.head())
    assert (
        httpx.post(f"{url}/webhooks/github/app", content=body, headers=headers).status_code == 401
    )
    headers, body = github_delivery(secret, remote.head())
    tampered = body.replace(b"refs/heads/main", b"refs/heads/mainx")
    assert (
        httpx.post(f"{url}/webhooks/github/app", content=tampered, headers=headers).status_code
        == 401
    )
    del headers["X-Hub-Signature-256"]
    assert (
        httpx.post(f"{url}/webhooks/github/app", content=body, headers=headers).status_code == 401
    )
    assert (
        httpx.post(f"{url}/webhooks/github/nope", content=body, headers=headers).status_code == 404
    )
    assert httpx.post(f"{url}/webhooks/svn/app", content=body, headers=headers).status_code == 404
    assert store.tracking.get_tracked("app").pushed_sha == ""  # nothing was announced
    assert store.repos.get_repo("app") is None

    ping_headers, ping_body = github_delivery(secret, remote.head(), event="ping")
    ping = httpx.post(f"{url}/webhooks/github/app", content=ping_body, headers=ping_headers)
    assert ping.status_code == 200 and ping.json()["event"] == "ping"
    other_headers, other_body = github_delivery(secret, remote.head(), branch="feature")
    other = httpx.post(f"{url}/webhooks/github/app", content=other_body, headers=other_headers)
    assert other.status_code == 202 and other.json()["queued"] is False
    assert store.tracking.get_tracked("app").pushed_sha == ""


def test_repository_administration(served):
    url, store, tmp = served
    remote = Remote(tmp / "hosted", FILES)
    _add(url, remote)
    assert (
        httpx.post(f"{url}/api/v1/repos", json={"name": "app", "url": remote.url}).status_code
        == 409
    )
    assert (
        httpx.post(f"{url}/api/v1/repos", json={"name": "../x", "url": remote.url}).status_code
        == 422  # refused at the edge: a repository name is checked where it comes in
    )
    assert httpx.post(f"{url}/api/v1/repos", json={"name": "x"}).status_code == 422
    assert [r["name"] for r in httpx.get(f"{url}/api/v1/repos").json()] == ["app"]
    answer = httpx.post(f"{url}/api/v1/repos/app/sync")
    assert answer.status_code == 202
    wait_for_indexed(store, "app", remote.head())
    assert httpx.get(f"{url}/api/v1/repos/missing").status_code == 404
    deleted = httpx.delete(f"{url}/api/v1/repos/app")
    assert deleted.status_code == 204, deleted.text
    assert store.tracking.get_tracked("app") is None and store.repos.get_repo("app") is None
    assert httpx.get(f"{url}/readyz").json() == {"store": "ok", "broker": "in-process"}


def test_admin_token_guards_the_repository_routes(tmp_path, stores):
    stores.open()
    settings = Settings(
        store_url=stores.url("graph"),
        broker_url=None,
        data_dir=tmp_path / "data",
        admin_token="admin-token-for-tests",
    )
    with serve_in_thread(create_app(settings)) as url:
        assert httpx.get(f"{url}/api/v1/repos").status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert httpx.get(f"{url}/api/v1/repos", headers=wrong).status_code == 401
        right = {"Authorization": "Bearer admin-token-for-tests"}
        assert httpx.get(f"{url}/api/v1/repos", headers=right).status_code == 200
        assert httpx.get(f"{url}/healthz").status_code == 200


def test_a_broker_away_is_said_and_the_server_recovers_by_itself(tmp_path):
    """With Redis away, a push and a pull request are refused (503) with what happened (the
    job broker cannot be reached) and what to do (redeliver once it answers; no restart);
    once Redis answers again at the same address, the redelivery is queued by the same
    server."""
    folder = tmp_path / "redis"
    folder.mkdir()
    redis = RedisServer(folder)
    try:
        settings = Settings(
            store_url=f"sqlite:///{tmp_path / 'graph.db'}",
            broker_url=redis.url,
            data_dir=tmp_path / "data",
            preload_graphs=False,
        )
        remote = Remote(tmp_path / "hosted", FILES)
        with serve_in_thread(create_app(settings)) as url:
            secret = _add(url, remote)
            hook = f"{url}/webhooks/github/app"
            headers, body = github_delivery(secret, remote.head())
            assert httpx.post(hook, content=body, headers=headers).status_code in (200, 202)
            redis.stop()

            remote.commit("more", write={"app/more.py": "X = 1\n"})
            headers, body = github_delivery(secret, remote.push())
            refused = httpx.post(hook, content=body, headers=headers, timeout=60)
            assert refused.status_code == 503
            detail = refused.json()["detail"]
            assert f"the job broker at {redis.url} cannot be reached" in detail, detail
            assert "redeliver it once the broker answers again" in detail
            assert "no restart needed" in detail and "must be restarted" not in detail

            payload = {
                "action": "opened", "number": 7,
                "pull_request": {"number": 7, "title": "t", "head": {"sha": remote.head()},
                                 "base": {"ref": "main"}},
            }  # fmt: skip
            pull = json.dumps(payload).encode()
            signature = hmac.new(secret.encode(), pull, hashlib.sha256).hexdigest()
            pull_headers = {
                "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()),
                "X-Hub-Signature-256": f"sha256={signature}", "Content-Type": "application/json",
            }  # fmt: skip
            report = httpx.post(hook, content=pull, headers=pull_headers, timeout=60)
            assert report.status_code == 503
            assert "the report of app #7 could not be queued: the job broker" in report.text

            redis = RedisServer(folder, port=redis.port)  # back, at the same address
            again = httpx.post(hook, content=body, headers=headers, timeout=60)
            assert again.status_code == 202 and again.json()["queued"] is True, again.text
            assert httpx.post(hook, content=pull, headers=pull_headers).status_code == 202
    finally:
        redis.stop()
