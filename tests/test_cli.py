"""The `cartograph` command, run as a real subprocess the way a developer or an agent runs it,
against both stores (a SQLite file and a real Neo4j server, given by URL)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from sample_repo import make_sample_repo


def run(*args: str, store: str, cwd=None, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "CARTOGRAPH_STORE": store}
    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def indexed(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop")
    store = stores.url()
    run("index", str(root), "--name", "shop", store=store)
    return root, store


def test_index_defaults_to_the_current_folder_and_prints_a_summary(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop")
    store = stores.url()
    done = run("index", store=store, cwd=root)
    assert "indexed shop" in done.stdout and "5 files" in done.stdout
    assert "call sites:" in done.stdout and "symbols:" in done.stdout
    again = run("index", store=store, cwd=root)
    assert "0 parsed, 5 unchanged" in again.stdout


def test_store_option_and_environment(tmp_path, stores):
    """--store wins over $CARTOGRAPH_STORE."""
    root = make_sample_repo(tmp_path / "shop")
    run(
        "--store",
        stores.url("other"),
        "index",
        str(root),
        store="sqlite://unused.db",  # relative: would be created in cwd
        cwd=tmp_path,
    )
    assert not (tmp_path / "unused.db").exists()
    assert [r.name for r in stores.open("other").repos.list_repos()] == ["shop"]
    out = run("repos", store=stores.url("other")).stdout
    assert out.startswith("shop ")


def test_queries_print_compact_text(indexed):
    _, store = indexed
    out = run("search", "PaymentService", store=store).stdout
    assert out.splitlines()[1].startswith("search") and "shop/payments.py" in out
    out = run("context", "Cart", store=store).stdout
    assert "class shop.models.Cart" in out and "members (3)" in out
    out = run("callers", "price_of", store=store).stdout
    assert "shop.models.Cart.total" in out
    out = run("callees", "place_order", store=store).stdout
    assert "shop.payments.PaymentService.pay" in out
    out = run("trace", "place_order", "--depth", "3", store=store).stdout
    assert "└" in out and "shop.models.price_of" in out
    out = run("path", "place_order", "price_of", store=store).stdout
    assert "3 call(s)" in out
    out = run("dead-code", store=store).stdout
    assert "shop.models.unused_helper" in out
    out = run("overview", store=store).stdout
    assert "most called" in out
    out = run("stats", store=store).stdout
    assert "unresolved" in out
    out = run("repos", store=store).stdout
    assert out.startswith("shop ")


def test_json_output_is_machine_readable(indexed):
    _, store = indexed
    data = json.loads(run("callers", "price_of", "--json", store=store).stdout)
    assert data["items"][0]["symbol"]["qualname"] == "shop.models.Cart.total"
    assert data["envelope"]["repos"][0]["name"] == "shop"
    data = json.loads(run("search", "cart", "--limit", "1", "--json", store=store).stdout)
    assert len(data["hits"]) == 1 and data["next_offset"] == 1


def test_export_writes_nodes_and_edges_as_json_lines(indexed, tmp_path):
    _, store = indexed
    out = tmp_path / "graph.jsonl"
    run("export", "--repo", "shop", "-o", str(out), store=store)
    items = [json.loads(line) for line in out.read_text().splitlines()]
    labels = {(i["type"], i["label"]) for i in items}
    assert {
        ("node", "Repo"),
        ("node", "File"),
        ("node", "Symbol"),
        ("edge", "CALLS"),
        ("edge", "DEFINES"),
        ("edge", "HAS_MEMBER"),
        ("edge", "IMPORTS"),
    } <= labels
    calls = [i for i in items if i["label"] == "CALLS"]
    assert all("via" in c and "lines" in c for c in calls)
    assert any(i.get("qualname") == "shop.orders.place_order" for i in items)


def test_errors_are_one_clear_line_without_traceback(indexed, tmp_path):
    _, store = indexed
    done = run("context", "PaymentServise", store=store, check=False)
    assert done.returncode == 1
    assert "no symbol named 'PaymentServise'" in done.stderr and "PaymentService" in done.stderr
    assert "Traceback" not in done.stderr
    done = run("index", str(tmp_path / "missing"), store=store, check=False)
    assert (
        done.returncode == 1 and "does not exist" in done.stderr and "Traceback" not in done.stderr
    )
    done = run("stats", "--repo", "nope", store=store, check=False)
    assert done.returncode == 1 and "no repository named 'nope'" in done.stderr
    done = run("search", "x", store="neo4j+bad://", check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr


def test_repo_commands_track_sync_and_report(tmp_path, stores, monkeypatch):
    """`repo add/sync/status/list/remove` without a broker: the sync runs in the command."""
    from push_support import Remote

    files = {"app/__init__.py": "", "app/main.py": "def go():\n    pass\n"}
    remote = Remote(tmp_path / "hosted", files)
    store = stores.url()
    monkeypatch.setenv("CARTOGRAPH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("CARTOGRAPH_BROKER", raising=False)
    added = json.loads(run("repo", "add", "app", "--url", remote.url, "--json", store=store).stdout)
    assert added["branch"] == "main" and len(added["secret"]) >= 24
    assert "/webhooks/github/app" in added["webhooks"]
    again = run("repo", "add", "app", "--url", remote.url, store=store, check=False)
    assert again.returncode == 1 and "tracked already" in again.stderr

    # reports posted to a forge: its token goes to https, or plain http on this machine only
    forge = ("repo", "forge", "app", "--forge", "github", "--project", "acme/app", "--token", "t")
    for url, why in (
        ("http://ghe.example/api/v3", "plain http to ghe.example"),
        ("file:///etc/passwd", "must be an https URL"),
    ):
        refused = run(*forge, "--url", url, store=store, check=False)
        assert refused.returncode == 1 and why in refused.stderr, refused.stderr
    for url in ("https://ghe.example/api/v3", "http://127.0.0.1:9/api/v3"):
        assert f"at {url}" in run(*forge, "--url", url, store=store).stdout

    synced = run("repo", "sync", "app", store=store).stdout
    assert f"sha={remote.head()}" in synced and "action=indexed" in synced
    status = json.loads(run("repo", "status", "app", "--json", store=store).stdout)
    assert status["indexed_sha"] == status["head_sha"] == remote.head()
    assert (status["lag"], status["queue_depth"], status["last_error"]) == (0, 0, "")

    remote.commit("two", write={"app/extra.py": "def more():\n    pass\n"})
    remote.push()
    line = run("repo", "status", "app", store=store).stdout
    assert line.startswith("app  main  indexed ")
    listed = json.loads(run("repo", "list", "--json", store=store).stdout)
    assert [r["name"] for r in listed] == ["app"]
    run("repo", "sync", "app", store=store)
    assert "more" in run("search", "more", store=store).stdout

    run("repo", "remove", "app", store=store)
    missing = run("repo", "status", "app", store=store, check=False)
    assert missing.returncode == 1 and "is not tracked" in missing.stderr
    assert not (tmp_path / "data" / "mirrors" / "app.git").exists()


def test_text_output_shows_terminal_escapes_from_a_repository_never_sends_them(tmp_path, stores):
    """A docstring, a CSS value, a file name and a commit message holding escape sequences
    (clear the screen, retitle the window, C1's CSI, DEL) print as visible escapes; `--json`
    keeps the exact strings (and escapes what a terminal would act on)."""
    from indexing_support import git, git_init, write_tree

    clear, title, csi = "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x9b31m\x7f"
    root = git_init(tmp_path / "evil")
    write_tree(root, {
        "app/__init__.py": "",
        "app/core.py": f'def greet():\n    """Hello{clear} there{csi}"""\n    return 1\n',
        f"app/odd{title}.py": "def odd():\n    return 2\n",
        "web/theme.css": f":root {{\n  --brand: \"red{clear}\";\n}}\n",
    })  # fmt: skip
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"start{clear}{title}{csi}")
    store = stores.url()
    run("index", str(root), "--name", "evil", store=store)
    outputs = {
        "context": run("context", "greet", store=store).stdout,
        "files": run("files", "--repo", "evil", store=store).stdout,
        "design-tokens": run("design-tokens", "--repo", "evil", store=store).stdout,
        "history": run("history", "app/core.py", "--repo", "evil", store=store).stdout,
    }
    for command, out in outputs.items():
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out), (command, out)
    assert "Hello\\x1b[2J\\x1b[H there\\x9b31m\\x7f" in outputs["context"]
    assert "app/odd\\x1b]0;pwned\\x07.py" in outputs["files"]
    assert "red\\x1b[2J\\x1b[H" in outputs["design-tokens"]
    assert "start\\x1b[2J" in outputs["history"]
    data = run("context", "greet", "--json", store=store).stdout
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", data)
    assert json.loads(data)["symbol"]["doc"] == f"Hello{clear} there{csi}"
