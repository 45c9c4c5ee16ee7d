"""The team deployment end to end: a real Redis, a real Celery worker subprocess, a real Neo4j
and the API as its own process. A bare git repository plays the remote; commits are pushed
(add, edit, rename, delete, a force-push), signed webhooks are posted to the running API, and
after each one the graph reflects the pushed commit exactly. Then the worker is killed in the
middle of a sync: nothing is lost or half-written once the next sync has run."""

from __future__ import annotations

import hashlib
import json
import time
import uuid

import httpx
import neo4j
import pytest
from api_support import serve_in_process
from cartograph.sync import Mirror
from neo4j_server import wipe_neo4j
from push_support import (
    Deployment,
    Remote,
    assert_graph_matches_tree,
    github_delivery,
    wait_for_indexed,
)

FILES = {
    "svc/__init__.py": "",
    "svc/models.py": ("class Order:\n    def total(self):\n        return 1\n"),
    "svc/api.py": ("from svc.models import Order\n\n\ndef handle():\n    return Order().total()\n"),
}


@pytest.fixture
def deployment(tmp_path, redis_server, neo4j_server):
    wipe_neo4j(neo4j_server.url)
    redis_server.flush()
    deploy = Deployment(tmp_path, redis_server.url, neo4j_server.url)
    deploy.start_workers()
    with serve_in_process(deploy.env, tmp_path / "api.log") as url:
        deploy.url = url
        try:
            yield deploy
        finally:
            deploy.stop_workers()
            deploy.store.close()


def _track(deploy: Deployment, remote: Remote, name: str) -> str:
    answer = httpx.post(f"{deploy.url}/api/v1/repos", json={"name": name, "url": remote.url})
    assert answer.status_code == 201, answer.text
    return answer.json()["secret"]


def _announce(deploy: Deployment, name: str, secret: str, sha: str) -> dict:
    headers, body = github_delivery(secret, sha)
    answer = httpx.post(f"{deploy.url}/webhooks/github/{name}", content=body, headers=headers)
    assert answer.status_code == 202, answer.text
    return answer.json()


def _wait(deploy: Deployment, name: str, sha: str, timeout: float = 120) -> None:
    try:
        wait_for_indexed(deploy.store, name, sha, timeout)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nworker log:\n{deploy.worker_log()}") from None


def test_pushes_reach_the_graph_through_webhooks_redis_and_a_worker(deployment):
    deploy = deployment
    remote = Remote(deploy.tmp / "hosted", FILES)
    secret = _track(deploy, remote, "svc")
    work = Mirror(deploy.data, "svc", remote.url).work

    steps = [
        ("first", {}),
        (
            "edit",
            {
                "write": {
                    "svc/models.py": FILES["svc/models.py"]
                    + "\n\ndef make():\n    return Order()\n"
                }
            },
        ),
        (
            "add",
            {
                "write": {
                    "svc/jobs.py": "from svc.api import handle\n\n\ndef nightly():\n    return handle()\n"
                }
            },
        ),
        ("rename", {"rename": {"svc/jobs.py": "svc/tasks.py"}}),
        ("delete", {"delete": ["svc/__init__.py"]}),
    ]
    for message, change in steps:
        sha = remote.head() if message == "first" else remote.commit(message, **change)
        remote.push()
        _announce(deploy, "svc", secret, sha)
        _wait(deploy, "svc", sha)
        assert_graph_matches_tree(deploy.store, "svc", work)

    # a force-push that drops the last two commits and adds another
    remote.reset_hard(remote.head() + "~2")
    sha = remote.commit("rewritten", write={"svc/api.py": "def handle():\n    return 0\n"})
    remote.push(force=True)
    _announce(deploy, "svc", secret, sha)
    _wait(deploy, "svc", sha)
    assert_graph_matches_tree(deploy.store, "svc", work)
    assert "svc/tasks.py" not in set(deploy.store.graph.files("svc"))

    # a redelivery is recognised; a bad signature is refused and queues nothing
    headers, body = github_delivery(secret, sha)
    first = httpx.post(f"{deploy.url}/webhooks/github/svc", content=body, headers=headers)
    again = httpx.post(f"{deploy.url}/webhooks/github/svc", content=body, headers=headers)
    assert first.status_code == 202 and again.json()["duplicate"] is True
    forged_headers, forged_body = github_delivery("guessed-secret", "f" * 40)
    forged = httpx.post(
        f"{deploy.url}/webhooks/github/svc", content=forged_body, headers=forged_headers
    )
    assert forged.status_code == 401
    assert deploy.store.tracking.get_tracked("svc").pushed_sha == sha

    # five quick pushes coalesce: the graph ends at the last one, nothing left queued
    shas = []
    for n in range(5):
        shas.append(
            remote.commit(f"burst {n}", write={f"svc/b{n}.py": f"def b{n}():\n    return {n}\n"})
        )
        remote.push()
        _announce(deploy, "svc", secret, shas[-1])
    _wait(deploy, "svc", shas[-1])
    assert_graph_matches_tree(deploy.store, "svc", work)
    status = httpx.get(f"{deploy.url}/api/v1/repos/svc").json()
    assert (status["indexed_sha"], status["lag"], status["last_error"]) == (shas[-1], 0, "")
    deadline = time.monotonic() + 10
    while status["queue_depth"] and time.monotonic() < deadline:
        time.sleep(0.2)
        status = httpx.get(f"{deploy.url}/api/v1/repos/svc").json()
    assert status["queue_depth"] == 0
    assert httpx.get(f"{deploy.url}/readyz").json() == {"store": "ok", "broker": "ok"}
    # the worker logs each sync as one JSON line with its repository, commit, files and time
    synced = [
        json.loads(line)
        for line in deploy.worker_log(full=True).splitlines()
        if line.startswith("{") and '"event": "synced"' in line
    ]
    assert synced and synced[-1]["repo"] == "svc" and synced[-1]["sha"] == shas[-1]
    assert {"files", "parsed", "commits", "seconds"} <= set(synced[-1])


MODULES = 2000  # a sync of this many changed files spans several write transactions


def _big_tree(version: int) -> dict[str, str]:
    files = {"big/__init__.py": ""}
    for n in range(MODULES):
        files[f"big/m{n:04d}.py"] = (
            f"from big.m{(n + 1) % MODULES:04d} import f{(n + 1) % MODULES}\n\n\n"
            f"def f{n}():\n    return {version}\n\n\n"
            f"def g{n}():\n    return f{(n + 1) % MODULES}()\n"
            + (f"\n\ndef v{version}_{n}():\n    return g{n}()\n" if version else "")
        )
    return files


def test_a_worker_killed_mid_sync_loses_nothing(deployment):
    deploy = deployment
    remote = Remote(deploy.tmp / "hosted", _big_tree(0))
    secret = _track(deploy, remote, "big")
    work = Mirror(deploy.data, "big", remote.url).work
    first = remote.head()
    _announce(deploy, "big", secret, first)
    _wait(deploy, "big", first, timeout=300)

    # every module changes; the worker is killed as soon as the first write transaction of the
    # sync has committed (files are written a batch per transaction, many batches)
    new_tree = _big_tree(1)
    new_shas = [hashlib.sha256(text.encode()).hexdigest() for text in new_tree.values()]
    sha = remote.commit("v1", write=new_tree)
    remote.push()
    _announce(deploy, "big", secret, sha)
    url = deploy.env["CARTOGRAPH_STORE"]
    written = 0
    with neo4j.GraphDatabase.driver(url, auth=None) as watcher:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not written:
            records, _, _ = watcher.execute_query(
                "MATCH (f:File {repo: 'big'}) WHERE f.sha256 IN $shas RETURN count(f) AS n",
                shas=new_shas,
            )
            written = records[0]["n"]
            if not written:
                time.sleep(0.01)
        deploy.kill_workers()
    assert 0 < written < MODULES, f"could not catch the sync midway ({written} written)"
    assert deploy.store.repos.get_repo("big").indexed_sha == first  # not stamped: the sync died
    changed = sum(1 for s in _file_shas(deploy, "big").values() if s in set(new_shas))
    assert 0 < changed < MODULES  # some files new, the others still old

    # a new worker, and the next sync (a redelivered push, after the dead job's marks lapse)
    deploy.start_workers()
    time.sleep(5)
    headers, body = github_delivery(secret, sha)
    headers["X-GitHub-Delivery"] = str(uuid.uuid4())
    answer = httpx.post(f"{deploy.url}/webhooks/github/big", content=body, headers=headers)
    assert answer.status_code == 202 and answer.json()["job_started"] is True
    _wait(deploy, "big", sha, timeout=300)
    assert_graph_matches_tree(deploy.store, "big", work)


def _file_shas(deploy: Deployment, repo: str) -> dict[str, str]:
    return {
        item["path"]: item["sha256"]
        for item in deploy.store.graph.export(repo)
        if item["type"] == "node" and item["label"] == "File"
    }
