"""What only the Neo4j store has: store URLs with credentials and a database, connection and
credential errors, and an index run whose server dies under it.

The failure tests use a second, private Neo4j server (authentication on), which they kill
(SIGKILL) in the middle of a run and restart on the same data directory and port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

import neo4j
import pytest
from cartograph.index import index_repository
from cartograph.model import split_symbol_id
from cartograph.query import search
from cartograph.store import StoreError, open_store
from cartograph.store.neo4j.connection import parse_url
from indexing_support import (
    assert_same_as_fresh,
    calls,
    commit_all,
    git_init,
    renamer,
    write,
    write_tree,
)
from neo4j_server import load_neo4jdev, start_private_server, wipe_neo4j

PASSWORD = "cartograph-test-pw"
CREDENTIAL_ENV = ("CARTOGRAPH_NEO4J_USER", "CARTOGRAPH_NEO4J_PASSWORD")
TWO_FUNCTIONS = "def inner():\n    return 1\n\n\ndef outer():\n    return inner()\n"


def closed_port() -> int:
    """A port nothing listens on (bound for a moment, then released)."""
    return load_neo4jdev().free_port()


def cli(*args: str, env: dict | None = None, timeout: float = 180):
    return subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def no_credential_env(monkeypatch):
    for name in CREDENTIAL_ENV:
        monkeypatch.delenv(name, raising=False)


# ---------------------------------------------------------------- store URLs


def test_url_with_user_password_and_database(no_credential_env):
    assert parse_url("neo4j://user:pass@db.example.org:7688/graphs") == (
        "neo4j://db.example.org:7688",
        ("user", "pass"),
        "graphs",
    )


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("bolt://127.0.0.1:7999", ("bolt://127.0.0.1:7999", None, None)),
        ("neo4j+s://graph.example.org", ("neo4j+s://graph.example.org:7687", None, None)),
        ("bolt+ssc://h:1/", ("bolt+ssc://h:1", None, None)),
        ("bolt://[::1]:7690/neo4j", ("bolt://[::1]:7690", None, "neo4j")),
        (  # reserved characters in a password are percent-encoded
            "bolt://neo4j:p%40ss%3Aw%2Frd%25@127.0.0.1:7999/db",
            ("bolt://127.0.0.1:7999", ("neo4j", "p@ss:w/rd%"), "db"),
        ),
        ("neo4j://alice@h:7687", ("neo4j://h:7687", ("alice", ""), None)),
        ("neo4j://alice:@h", ("neo4j://h:7687", ("alice", ""), None)),
    ],
)
def test_url_forms(no_credential_env, url, parsed):
    assert parse_url(url) == parsed


def test_credentials_from_the_environment_and_the_url_wins(monkeypatch):
    monkeypatch.setenv("CARTOGRAPH_NEO4J_USER", "env-user")
    monkeypatch.setenv("CARTOGRAPH_NEO4J_PASSWORD", "env-pass")
    assert parse_url("bolt://h:7687") == ("bolt://h:7687", ("env-user", "env-pass"), None)
    assert parse_url("bolt://u:p@h:7687") == ("bolt://h:7687", ("u", "p"), None)


@pytest.mark.parametrize("url", ["neo4j://", "bolt:///neo4j", "neo4j://:7687"])
def test_url_without_a_host_is_a_store_error(no_credential_env, url):
    with pytest.raises(StoreError) as info:
        open_store(url)
    assert "host" in str(info.value)


# ---------------------------------------------------------------- unreachable server


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_unreachable_server_is_a_store_error_naming_the_address(no_credential_env, scheme):
    port = closed_port()
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        open_store(f"{scheme}://neo4j:{PASSWORD}@127.0.0.1:{port}")
    assert time.monotonic() - started < 30
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message
    assert "Neo4j" in message
    assert PASSWORD not in message


def test_cli_with_an_unreachable_server_prints_one_line(no_credential_env):
    port = closed_port()
    done = cli("--store", f"bolt://127.0.0.1:{port}", "stats")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{done.stderr}"
    assert lines[0].startswith("cartograph: ") and f"127.0.0.1:{port}" in lines[0]


# ---------------------------------------------------------------- a server with authentication


class PrivateServer:
    """A Neo4j server of this module's own, authentication on (user neo4j, PASSWORD)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.server = start_private_server(data_dir, password=PASSWORD)
        self.port = self.server.port

    def url(self, user: str = "neo4j", password: str | None = PASSWORD) -> str:
        if password is None:
            return f"bolt://127.0.0.1:{self.port}"
        return f"bolt://{quote(user, safe='')}:{quote(password, safe='')}@127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush beyond what Neo4j made durable at each commit."""
        os.killpg(self.server.pid, signal.SIGKILL)
        self.server.stop()  # reaps the process and forgets its state file

    def restart(self) -> None:
        """On the same data directory and the same port."""
        self.server = start_private_server(self.data_dir, port=self.port, password=PASSWORD)
        assert self.server.port == self.port

    def stop(self) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def private(tmp_path_factory):
    server = PrivateServer(tmp_path_factory.mktemp("neo4j-private"))
    yield server
    server.stop()


@pytest.fixture
def private_store(private):
    """A store on the private server, emptied (the module's tests share the server)."""
    store = open_store(private.url())
    for repo in store.repos.list_repos():
        store.repos.delete_repo(repo.name)
    yield store
    store.close()


def test_right_credentials_open_the_store(tmp_path, private_store, no_credential_env):
    root = write_tree(tmp_path / "repo", {"a.py": TWO_FUNCTIONS})
    index_repository(private_store, root, name="r", workers=1)
    assert calls(private_store, "r") == {("a.outer", "a.inner")}
    assert search(private_store, "outer").hits[0].symbol.qualname == "a.outer"


def test_credentials_from_the_environment_open_the_store(private, monkeypatch):
    monkeypatch.setenv("CARTOGRAPH_NEO4J_USER", "neo4j")
    monkeypatch.setenv("CARTOGRAPH_NEO4J_PASSWORD", PASSWORD)
    store = open_store(private.url(password=None))
    try:
        assert isinstance(store.repos.list_repos(), list)
    finally:
        store.close()


# Neo4j locks a user out for a few seconds after 3 failed logins in a row: the tests below
# try at most two wrong passwords for `neo4j` (other attempts use other user names).


@pytest.mark.parametrize(
    ("user", "password"),
    [("neo4j", "wrong-password"), ("nobody", PASSWORD), (None, None)],
    ids=["wrong-password", "unknown-user", "no-credentials"],
)
def test_wrong_credentials_are_a_clear_store_error(private, no_credential_env, user, password):
    url = private.url(password=None) if user is None else private.url(user, password)
    with pytest.raises(StoreError) as info:
        open_store(url)
    message = str(info.value)
    assert "credentials" in message or "authentication" in message.lower(), message
    assert f"127.0.0.1:{private.port}" in message
    assert PASSWORD not in message and "wrong-password" not in message


def test_cli_with_a_wrong_password_prints_one_line(private, no_credential_env):
    done = cli("--store", private.url("neo4j", "wrong-password-2"), "repos")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{done.stderr}"
    assert "credentials" in lines[0] and "wrong-password-2" not in lines[0]


def test_cli_never_prints_the_password(tmp_path, private, private_store, no_credential_env):
    """The store URL holds the password; what the CLI prints (the summary names the store it
    wrote to) must not."""
    root = git_init(tmp_path / "repo")
    write_tree(root, {"a.py": TWO_FUNCTIONS})
    commit_all(root)
    outputs = []
    for args in (["index", str(root), "--name", "r"], ["repos"], ["stats", "--repo", "r"]):
        done = cli("--store", private.url(), *args)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout + done.stderr)
    leaked = [text for text in outputs if PASSWORD in text]
    assert not leaked, f"the password is printed:\n{leaked[0]}"


# ---------------------------------------------------------------- the server dies mid-run

PACKAGES, MODULES = 4, 100  # 400 modules: two write transactions (256 files each at most)


def module_source(k: int, j: int, version: int) -> str:
    """Version 1 shifts every line, changes the docstrings and the unresolved name, keeps every
    symbol and what each call resolves to (so another file's edges do not depend on which
    version of this one is in the graph)."""
    nxt = (j + 1) % MODULES
    return "# edited\n" * version + (
        f'"""Module {k}.{j}, version {version}."""\n'
        f"from base import Base, helper\nfrom pkg_{k}.mod_{nxt} import g_{nxt}\n\n\n"
        f'def f_{j}(x):\n    """f {j}, version {version}."""\n'
        f"    return helper(x) + g_{j}(x) + g_{nxt}(x)\n\n\n"
        f"def g_{j}(x):\n    return x\n\n\n"
        f"class C_{j}(Base):\n    def run(self):\n"
        f"        return self.start() + f_{j}(1) + undefined_{version}()\n"
    )


def write_version(root: Path, version: int) -> None:
    for k in range(PACKAGES):
        for j in range(MODULES):
            write(root, f"pkg_{k}/mod_{j}.py", module_source(k, j, version))
    if version == 0:
        write_tree(
            root,
            {
                "base.py": "def helper(x):\n    return x\n\n\n"
                "class Base:\n    def start(self):\n        return 0\n",
                **{f"pkg_{k}/__init__.py": "" for k in range(PACKAGES)},
                "extra/old_only.py": "from base import helper\n\n\ndef old():\n    helper(1)\n",
            },
        )
    else:  # one module goes, one comes (nothing imports either)
        (root / "extra" / "old_only.py").unlink()
        write(root, "extra/new_only.py", "from base import helper\n\n\ndef new():\n    helper(2)\n")


def per_file(store, repo: str, as_repo: str = "victim") -> dict[str, frozenset[str]]:
    """Everything each file contributes: its File node, its symbols and their DEFINES and
    HAS_MEMBER edges, the CALLS/REFERENCES/INHERITS and IMPORTS edges going out of it, and
    its unresolved calls (ids as if the repository were `as_repo`)."""
    rename = renamer(repo, as_repo)
    found: dict[str, set[str]] = defaultdict(set)
    for item in store.graph.export(repo):
        item = {k: rename(v) if k in ("id", "src", "dst", "repo") else v for k, v in item.items()}
        label = item["label"]
        if label in ("Repo", "Package", "PROVIDES"):
            continue
        if item["type"] == "node":
            path = item["path"]
        elif label == "CONTAINS":
            path = item["dst"].partition(":")[2]
        elif label == "IMPORTS":
            path = item["src"].partition(":")[2]
        elif label in ("DEFINES", "HAS_MEMBER"):
            path = split_symbol_id(item["dst"])[1]
        else:
            path = split_symbol_id(item["src"])[1]
        found[path].add(json.dumps(item, sort_keys=True))
    for path, u in store.graph.search_unresolved("", repo, 1_000_000):
        found[path].add(json.dumps(["unresolved", rename(u.src), u.name, u.line, u.external]))
    return {path: frozenset(items) for path, items in found.items()}


def file_node(items: frozenset[str]) -> dict:
    (node,) = [d for d in map(json.loads, items) if isinstance(d, dict) and d["label"] == "File"]
    return node


FAILING_RUN = """
import json, sys
from cartograph.index import IndexingError, index_repository
from cartograph.store import StoreError, open_store
url, root, name = sys.argv[1:4]
store = open_store(url)
try:
    result = index_repository(store, root, name=name, workers=1)
except (IndexingError, StoreError) as exc:
    print(json.dumps({"error": type(exc).__name__, "message": str(exc)}), flush=True)
    sys.exit(3)
print(json.dumps({"parsed": result.parsed}), flush=True)
"""


def test_server_killed_mid_run_leaves_files_old_or_new_and_the_next_run_repairs(
    tmp_path, private, private_store, no_credential_env
):
    store = private_store
    root = git_init(tmp_path / "work")
    write_version(root, 0)
    commit_all(root, "version 0")
    index_repository(store, root, name="victim", workers=1)
    old = per_file(store, "victim")
    assert len(old) == PACKAGES * MODULES + PACKAGES + 2

    write_version(root, 1)
    index_repository(store, root, name="victim.new", workers=1)
    new = per_file(store, "victim.new")
    store.repos.delete_repo("victim.new")
    assert set(new) - set(old) == {"extra/new_only.py"}
    assert all(new[p] != old[p] for p in new if p.startswith("pkg_") and "__init__" not in p)
    new_shas = [file_node(new[p])["sha256"] for p in new if new[p] != old.get(p)]

    # the re-index runs in another process (as `cartograph index` would); the server is killed
    # as soon as the run's first write transaction has committed
    child = subprocess.Popen(
        [sys.executable, "-c", FAILING_RUN, private.url(), str(root), "victim"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        committed = 0
        with neo4j.GraphDatabase.driver(private.server.url, auth=private.server.auth) as watcher:
            deadline = time.monotonic() + 120
            while child.poll() is None and time.monotonic() < deadline:
                records, _, _ = watcher.execute_query(
                    "MATCH (f:File {repo: 'victim'}) WHERE f.sha256 IN $shas RETURN count(f) AS n",
                    shas=new_shas,
                )
                committed = records[0]["n"]
                if committed:
                    break
                time.sleep(0.02)
        assert child.poll() is None, "the run ended before the server could be killed"
        assert committed, "no write of the run was seen within 120 s"
        private.kill()
        killed_at = time.monotonic()
        out, err = child.communicate(timeout=240)
        failed_after = time.monotonic() - killed_at
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if not private.server.is_running():
            private.restart()  # for whatever runs next, also when this test failed early

    # the run failed with the library's own error (no driver traceback) naming the server
    assert child.returncode == 3, f"exit {child.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    assert "Traceback" not in err, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["error"] in ("StoreError", "IndexingError")
    message = report["message"]
    assert "Neo4j" in message and f"127.0.0.1:{private.port}" in message, message
    assert failed_after < 180
    # checked at the end, after the graph: a clear message is one line without the password
    unclear = []
    if PASSWORD in message:
        unclear.append(f"the error shows the password: {message}")
    if "\n" in message.strip():
        unclear.append(f"a multi-line error:\n{message}")

    # after a restart on the same data directory and port (done above): every file fully old
    # or fully new
    store = open_store(private.url())
    try:
        after = per_file(store, "victim")
        mixed = sorted(
            p for p in set(old) | set(new) if after.get(p) not in (old.get(p), new.get(p))
        )
        assert not mixed, f"{len(mixed)} files are neither old nor new, e.g. {mixed[:3]}"
        now_new = sum(1 for p in after if after[p] == new.get(p) and new.get(p) != old.get(p))
        # what the watcher saw committed survived the kill
        assert now_new >= committed

        # the next run completes and equals a fresh index of the new tree
        result = index_repository(store, root, name="victim", workers=1, lock_timeout=30)
        assert result.files == len(new)
        # the files the failed run wrote are not parsed again
        assert result.parsed == sum(1 for p in new if after.get(p) != new[p])
        assert per_file(store, "victim") == new
        assert_same_as_fresh(store, root, "victim")
        assert store.index.index_lock_holder("victim") is None
    finally:
        store.close()
    assert not unclear, "\n".join(unclear)


# ---------------------------------------------------------------- writes by difference


def test_a_file_written_again_keeps_what_did_not_change(tmp_path, neo4j_server):
    """A body edit near the end of a file rewrites the symbols whose lines moved and the edges
    whose lines moved; every other node and relationship stays the one stored (same element
    id, the properties the index wrote untouched), and the graph equals a fresh index."""
    wipe_neo4j(neo4j_server.url)
    store = open_store(neo4j_server.url)
    head = "def first():\n    return second()\n\n\ndef second():\n    return 2\n\n\n"
    tail = "def last():\n    return first()\n"
    root = git_init(tmp_path / "repo")
    write_tree(
        root, {"a.py": head + tail, "b.py": "from a import first\n\n\ndef b():\n    first()\n"}
    )
    commit_all(root)
    index_repository(store, root, "r")

    def graph() -> dict[str, tuple[str, str]]:
        rows = store.connection.read(
            "MATCH (s:Symbol {repo: 'r'}) OPTIONAL MATCH (s)-[e:CALLS]->(d) "
            "RETURN s.id AS id, elementId(s) AS node, s.written AS written, "
            "collect([d.id, elementId(e), e.lines]) AS calls"
        )
        return {r["id"]: (r["node"], r["written"], sorted(map(str, r["calls"]))) for r in rows}

    before = graph()
    write(root, "a.py", head + "def last():\n    x = 1\n    return first()\n")
    index_repository(store, root, "r", files=["a.py"])
    after = graph()
    assert set(after) == set(before)
    for sid in ("r:a.py#a.first", "r:a.py#a.second", "r:b.py#b.b"):
        assert after[sid] == before[sid], sid  # nothing of theirs was rewritten
    node, written, calls = after["r:a.py#a.last"]
    assert node == before["r:a.py#a.last"][0] and written != before["r:a.py#a.last"][1]
    assert calls != before["r:a.py#a.last"][2]  # its call moved a line down, in place
    assert calls[0].split(",")[1] == before["r:a.py#a.last"][2][0].split(",")[1]
    assert_same_as_fresh(store, root, "r")
    store.close()


def test_the_drivers_debug_log_names_a_writes_rows_without_writing_them_out(
    tmp_path, neo4j_server, caplog
):
    """The driver writes each query's parameters into a debug message, made whether or not
    debug is logged: an index write's rows (symbols with their bodies) are written there as
    their count, not in full (the cost was the client's, on every write)."""
    wipe_neo4j(neo4j_server.url)
    store = open_store(neo4j_server.url)
    body = "\n".join(f"    marker_{n} = {n}" for n in range(400))
    root = git_init(tmp_path / "repo")
    write_tree(root, {f"m{k}.py": f"def f{k}():\n{body}\n    return {k}\n" for k in range(5)})
    commit_all(root)
    with caplog.at_level("DEBUG", logger="neo4j"):
        index_repository(store, root, "r")
    runs = [r.getMessage() for r in caplog.records if " C: RUN " in r.getMessage()]
    assert runs, "the driver logged no RUN message at debug"
    assert not [m for m in runs if "marker_399" in m]  # a body is never in a message
    assert any(" rows>" in m for m in runs)
    stored = store.connection.read(
        "MATCH (s:Symbol {repo: 'r', name: 'f0'}) RETURN s.search_body AS b"
    )
    assert stored[0]["b"].split().count("marker") == 400  # the rows themselves went whole
    store.close()


def test_a_graph_of_schema_17_gets_the_repository_in_its_full_text_index(tmp_path, neo4j_server):
    """Version 18 made the repository a field of `symbol_text`, so that Lucene keeps a ranked
    match to one repository and cuts its best there. A graph an earlier version wrote (the old
    index, no search sizes) is upgraded when a store opens it, and ranks as before."""
    from sample_repo import make_sample_repo

    wipe_neo4j(neo4j_server.url)
    store = open_store(neo4j_server.url)
    index_repository(store, make_sample_repo(tmp_path / "shop"), "shop", history=False)
    before = [(h.symbol.qualname, h.score) for h in search(store, "cart total", "shop").hits]
    store.close()
    with neo4j.GraphDatabase.driver(neo4j_server.url, auth=None) as driver:
        driver.execute_query("DROP INDEX symbol_text")
        driver.execute_query(
            "CREATE FULLTEXT INDEX symbol_text FOR (n:Symbol) ON EACH [n.search_name, "
            "n.search_qualname, n.search_context, n.search_body] OPTIONS {indexConfig: "
            "{`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: true}}"
        )
        driver.execute_query("MATCH (z:SearchSize) DELETE z")
        driver.execute_query("MATCH (i:IndexState) REMOVE i.search_rows")
        driver.execute_query("MATCH (m:CartographMeta {key: 'schema'}) SET m.version = 17")
    store = open_store(neo4j_server.url)
    assert store.schema_version() == 18
    [index] = store.graph.read("SHOW INDEXES YIELD name, properties WHERE name = 'symbol_text'")
    assert "repo" in index["properties"]
    after = [(h.symbol.qualname, h.score) for h in search(store, "cart total", "shop").hits]
    assert after == before
    assert before and all(q.startswith("shop.") for q, _ in before)
    store.close()
