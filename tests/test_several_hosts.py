"""The team deployment spread over several hosts that share only Neo4j and Redis: two worker
hosts and an API host, each with a data folder of its own (its mirrors, worktrees and walk
graphs), none able to read another's disk. A repository first synced on one worker host is
synced next on the other, which has never seen it; the API host answers what needs the
indexed files — a symbol's source, whether a caller's call still binds a changed signature,
names written in the source that dead code must not call dead — from its own mirror."""

from __future__ import annotations

import shutil

import httpx
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
    "svc/models.py": "class Order:\n    def total(self):\n        return 1\n",
    "svc/api.py": "from svc.models import Order\n\n\ndef handle():\n    return Order().total()\n",
    "tests/test_api.py": "from svc.api import handle\n\n\ndef test_handle():\n    assert handle()\n",
    # called by name from a string only: dead code must say "unknown", having read the source
    "svc/plugins.py": "def legacy_handler():\n    return 0\n",
    "svc/registry.py": 'HANDLERS = ["svc.plugins.legacy_handler"]\n',
}
SECOND = {
    "svc/models.py": (
        "class Order:\n    def total(self):\n        return self.tax() + 1\n\n"
        "    def tax(self):\n        return 0\n"
    ),
}
PATCH = """\
--- a/svc/models.py
+++ b/svc/models.py
@@ -1,3 +1,3 @@
 class Order:
-    def total(self):
+    def total(self, rate):
         return self.tax() + 1
"""


@pytest.fixture
def hosts(tmp_path, redis_server, neo4j_server):
    """Worker hosts A and B and the API host: one Neo4j and one Redis, a data folder each."""
    wipe_neo4j(neo4j_server.url)
    redis_server.flush()
    made = {}
    for name in ("host-a", "host-b", "api-host"):
        (tmp_path / name).mkdir()
        made[name] = Deployment(tmp_path / name, redis_server.url, neo4j_server.url)
    try:
        yield made
    finally:
        for deploy in made.values():
            deploy.stop_workers()
            deploy.store.close()


def _announce(url: str, name: str, secret: str, sha: str) -> None:
    headers, body = github_delivery(secret, sha)
    answer = httpx.post(f"{url}/webhooks/github/{name}", content=body, headers=headers)
    assert answer.status_code == 202, answer.text


def _synced_on(host: Deployment, url: str, secret: str, sha: str) -> None:
    """`sha` announced and indexed by `host`'s worker, the only one running."""
    host.start_workers()
    try:
        _announce(url, "svc", secret, sha)
        try:
            wait_for_indexed(host.store, "svc", sha, timeout=120)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nworker log:\n{host.worker_log()}") from None
    finally:
        host.stop_workers()


def test_worker_hosts_and_the_api_host_share_only_the_store_and_the_broker(hosts, tmp_path):
    host_a, host_b, api_host = hosts["host-a"], hosts["host-b"], hosts["api-host"]
    remote = Remote(tmp_path / "hosted", FILES)
    with serve_in_process(api_host.env, tmp_path / "api.log") as url:
        answer = httpx.post(f"{url}/api/v1/repos", json={"name": "svc", "url": remote.url})
        assert answer.status_code == 201, answer.text
        secret = answer.json()["secret"]

        _synced_on(host_a, url, secret, remote.head())
        second = remote.commit("tax", write=SECOND)
        remote.push()
        # host B has never seen the repository: it clones its own mirror and re-indexes from
        # the files host A wrote to the store
        _synced_on(host_b, url, secret, second)
        tree_b = Mirror(host_b.data, "svc", remote.url).work
        assert_graph_matches_tree(host_b.store, "svc", tree_b)

        # the workers' disks are out of the API host's reach
        shutil.rmtree(host_a.data)
        shutil.rmtree(host_b.data)

        source = httpx.get(
            f"{url}/api/v1/symbols/svc.models.Order.tax/source", params={"repo": "svc"}
        )
        assert source.status_code == 200, source.text
        assert source.json()["lines"] == ["    def tax(self):", "        return 0"]
        assert source.json()["commit"] == second

        impact = httpx.post(f"{url}/api/v1/repos/svc/impact", json={"patch": PATCH})
        assert impact.status_code == 200, impact.text
        report = impact.json()
        # the caller's file, which the patch does not touch, was read as indexed: its call is
        # judged (it passes no `rate`), not left as "check"
        [broken] = report["will_break"]
        assert (broken["caller"]["qualname"], broken["certainty"]) == ("svc.api.handle", "breaks")
        assert [t["node"] for t in report["tests"]] == ["tests/test_api.py::test_handle"]

        dead = httpx.get(f"{url}/api/v1/repos/svc/dead-code", params={"verdict": "dead,unknown"})
        assert dead.status_code == 200, dead.text
        verdicts = {item["symbol"]["qualname"]: item["verdict"] for item in dead.json()["items"]}
        assert verdicts["svc.plugins.legacy_handler"] == "unknown", verdicts
    # what the API host read, it read from a mirror of its own
    assert (Mirror(api_host.data, "svc", remote.url).git_dir / "HEAD").exists()
