"""The team tools tried as a careless and a hostile agent would: one file under many spellings,
repositories that do not exist, sessions driven by another agent's token, a heartbeat that
must keep claims alive, recall with a thousand words, claim keys that could collide, a webhook
while the broker is down, and who may read the store's file."""

from __future__ import annotations

import contextlib
import os
import stat

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.agents import sessions as agents
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.errors import CartographError, ErrorKind, Forbidden, Invalid, NotFound
from cartograph.model import Claim, Repo
from cartograph.names import repo_path
from cartograph.operations import CATALOGUE
from cartograph.operations.values import RepoPath
from cartograph.store import open_store
from cartograph.tracking import add_tracked

SCOPES = ("read", "claims", "admin")
SPELLINGS = ["a/b.py", "a//b.py", "a/./b.py", "./a/b.py", "a/b.py/", "a\\b.py", " a/b.py ",
             "a///./b.py", "./a\\.\\b.py"]  # fmt: skip
REFUSED_PATHS = ["../x.py", "a/../../x.py", "/etc/passwd", "C:/x.py", "a\nb.py", "a\x00b", "", "/"]


@contextlib.contextmanager
def refused(kind: ErrorKind, match: str | None = None):
    """The block raises a CartographError of this kind (any class: the kind is the contract)."""
    with pytest.raises(CartographError, match=match) as caught:
        yield
    assert caught.value.kind == kind, (caught.value.kind, caught.value)


def known(store, *names: str):
    for name in names:
        store.repos.upsert_repo(Repo(name=name))
    return store


# ---------------------------------------------------------------- one file, one key


def test_every_spelling_of_a_path_is_one_path():
    assert {repo_path(s) for s in SPELLINGS} == {"a/b.py"}
    assert repo_path("shop/", folder=True) == "shop/" and repo_path("shop/") == "shop"
    assert repo_path("", empty=True) == ""
    for bad in REFUSED_PATHS:
        with pytest.raises(Invalid):
            repo_path(bad)


@pytest.mark.parametrize(
    "op, param",
    [(op, p) for op in CATALOGUE for p in op.params if isinstance(p.value, RepoPath)],
    ids=lambda item: getattr(item, "name", ""),
)
def test_every_path_taking_operation_normalises_at_the_edge(op, param):
    """Whatever surface a path comes in by, the operation gets its one form (the surfaces
    check through the same Param)."""
    for spelling in SPELLINGS:
        # a folder parameter keeps a trailing `/` ("the folder a/b.py/"); a file one drops it
        folder = param.value.folder and spelling.strip().endswith("/")
        assert param.parse(spelling) == ("a/b.py/" if folder else "a/b.py"), (op.name, spelling)
    for bad in REFUSED_PATHS:
        if bad == "" and param.value.min_length == 0:
            assert param.parse(bad) == ""
            continue
        with pytest.raises(Invalid):
            param.parse(bad)


def test_a_second_agent_cannot_hold_a_file_under_another_spelling(stores):
    store = known(stores.open(), "small")
    alice = agents.start_session(store, "alice", "edit")
    bob = agents.start_session(store, "bob", "edit")
    assert agents.claim(store, alice.id, "small", "a/b.py").granted
    for spelling in SPELLINGS:
        lost = agents.claim(store, bob.id, "small", spelling)
        assert not lost.granted and lost.claim.session == alice.id, spelling
        assert not agents.check_edit(store, bob.id, "small ", spelling).granted
        assert not agents.release(store, bob.id, "small", spelling)
    assert [(c.repo, c.path) for c in agents.claims(store)] == [("small", "a/b.py")]
    assert agents.release(store, alice.id, " small", "a\\b.py")
    # the activity trail and lessons use the same form
    assert agents.record_edit(store, bob.id, "small", "./a//b.py")
    assert {path for _r, path, _k, _a in store.team.session_activity(bob.id)} == {"a/b.py"}
    lesson = agents.remember(store, bob.id, "careful", ["a\\", "small:a//b.py"])
    assert lesson.about == ["a/", "small:a/b.py"]
    assert [x.id for x in agents.recall(store, ["a/./c.py"])] == [lesson.id]


def test_claims_name_repositories_that_exist(stores):
    store = known(stores.open(), "small")
    add_tracked(store, "tracked", "https://example.com/t.git", "main", "s" * 20)
    session = agents.start_session(store, "alice", "edit")
    assert agents.claim(store, session.id, "tracked", "x.py").granted  # tracked counts
    with pytest.raises(NotFound, match="did you mean 'small'"):
        agents.claim(store, session.id, "Small", "x.py")
    with pytest.raises(NotFound, match="no repository named 'nowhere'"):
        agents.check_edit(store, session.id, "nowhere", "x.py")
    for bad in ("small\n", "sm all", "../small", "small/x", ""):
        with refused(ErrorKind.INVALID):
            agents.claim(store, session.id, bad, "x.py")
    assert [c.repo for c in agents.claims(store)] == ["tracked"]


def test_claim_keys_never_collide(stores):
    """Two different files whose old Neo4j key (repo + newline + path) was the same."""
    store = stores.open()
    session = store.team.create_session("alice", "task", "2026-01-01T00:00:00+00:00")
    first = Claim("a", "x\ny", session.id, "edit", "t", "2999-01-01T00:00:00+00:00", "", "")
    second = Claim("a\nx", "y", session.id, "edit", "t", "2999-01-01T00:00:00+00:00", "", "")
    assert store.team.put_claim(first, expected=None)
    assert store.team.put_claim(second, expected=None)
    assert {(c.claim.repo, c.claim.path) for c in store.team.claims(None)} == {
        ("a", "x\ny"),
        ("a\nx", "y"),
    }


def test_recall_with_a_thousand_words_is_a_clear_answer(stores):
    store = known(stores.open(), "shop")
    session = agents.start_session(store, "alice", "notes")
    words = [f"word{n}" for n in range(100)]
    lesson = agents.remember(store, session.id, " ".join(words), ["shop/"])
    assert [x.id for x in agents.recall(store, text=" ".join(words))] == [lesson.id]
    assert agents.recall(store, text=" ".join([*words[:99], "absent"])) == []
    with refused(ErrorKind.INVALID, "at most 100 words"):
        agents.recall(store, text=" ".join(f"w{n}" for n in range(1000)))


# ---------------------------------------------------------------- sessions belong to tokens


@pytest.fixture
def team_api(tmp_path, stores):
    store = known(stores.open(), "shop")
    tokens = {
        name: create_token(store, name, scopes)[0]
        for name, scopes in (("alice", ["claims"]), ("mallory", ["claims"]), ("root", ["admin"]))
    }
    settings = Settings(store_url=stores.url(), broker_url=None, data_dir=tmp_path / "data",
                        require_tokens=True)  # fmt: skip
    with serve_in_thread(create_app(settings)) as url:
        yield url, {k: {"Authorization": f"Bearer {v}"} for k, v in tokens.items()}, store


def test_only_the_token_that_opened_a_session_acts_in_it(team_api):
    url, headers, _store = team_api
    api = f"{url}/api/v1"
    opened = httpx.post(f"{api}/sessions", json={"agent": "alice", "task": "fix"},
                        headers=headers["alice"])  # fmt: skip
    assert opened.status_code == 201
    session = opened.json()["id"]
    claim = {"session": session, "repo": "shop", "path": "shop/models.py"}
    attempts = {
        "heartbeat": lambda h: httpx.post(f"{api}/sessions/{session}/heartbeat", headers=h),
        "claim": lambda h: httpx.post(f"{api}/claims", json=claim, headers=h),
        "check": lambda h: httpx.get(f"{api}/check-edit", params=claim, headers=h),
        "activity": lambda h: httpx.post(f"{api}/activity", json={**claim, "kind": "edit"}, headers=h),
        "lesson": lambda h: httpx.post(f"{api}/lessons", json={"session": session, "text": "x"}, headers=h),
        "release": lambda h: httpx.delete(f"{api}/claims", params=claim, headers=h),
        "end": lambda h: httpx.delete(f"{api}/sessions/{session}", headers=h),
    }  # fmt: skip
    for name, attempt in attempts.items():
        refused = attempt(headers["mallory"])
        assert refused.status_code == 403, (name, refused.text)
        assert "belongs to another token" in refused.json()["detail"]
    for name, attempt in attempts.items():
        if name == "end":
            continue
        allowed = attempt(headers["alice"])
        assert allowed.status_code in (200, 201, 204, 404), (name, allowed.text)
    assert attempts["heartbeat"](headers["root"]).status_code == 200  # an admin may act
    assert attempts["end"](headers["alice"]).status_code == 204


def test_library_calls_without_a_token_act_as_this_machines_user(stores):
    store = known(stores.open(), "shop")
    alice_token = create_token(store, "alice", ["claims"])[1]
    mallory_token = create_token(store, "mallory", ["claims"])[1]
    session = agents.start_session(store, "alice", "fix", caller=alice_token)
    assert session.owner == "alice" and store.team.get_session(session.id).owner == "alice"
    assert agents.heartbeat(store, session.id).id == session.id  # no token: the local user
    with pytest.raises(Forbidden):
        agents.claim(store, session.id, "shop", "x.py", caller=mallory_token)
    assert agents.claim(store, session.id, "shop", "x.py", caller=alice_token).granted


# ---------------------------------------------------------------- a webhook, the broker down


def test_a_push_the_broker_could_not_take_is_taken_when_redelivered(tmp_path, stores):
    import hashlib
    import hmac
    import json

    from redis_server import free_port

    store = stores.open()
    secret = "s" * 24
    add_tracked(store, "shop", "https://example.com/shop.git", "main", secret)
    body = json.dumps({"ref": "refs/heads/main", "after": "a" * 40}).encode()
    headers = {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": "delivery-1",
        "X-Hub-Signature-256": "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
        "Content-Type": "application/json",
    }  # fmt: skip
    down = Settings(store_url=stores.url(), data_dir=tmp_path / "data",
                    broker_url=f"redis://127.0.0.1:{free_port()}/0")  # fmt: skip
    with serve_in_thread(create_app(down)) as url:
        lost = httpx.post(f"{url}/webhooks/github/shop", content=body, headers=headers)
    assert lost.status_code == 503, lost.text
    assert "redeliver" in lost.json()["detail"]
    up = Settings(store_url=stores.url(), data_dir=tmp_path / "data", broker_url=None)
    app = create_app(up)
    app.state.runner.push = lambda repo, sha: True  # queued (no sync needed for the check)
    with serve_in_thread(app) as url:
        again = httpx.post(f"{url}/webhooks/github/shop", content=body, headers=headers)
        assert again.status_code == 202 and again.json()["queued"] is True, again.text
        twice = httpx.post(f"{url}/webhooks/github/shop", content=body, headers=headers)
        assert twice.json().get("duplicate") is True


# ---------------------------------------------------------------- the store's file


def test_a_new_store_is_readable_by_its_owner_only(tmp_path):
    folder = tmp_path / "fresh" / "nested"
    store = open_store(f"sqlite:///{folder / 'graph.db'}")
    store.repos.upsert_repo(Repo(name="shop"))
    store.close()
    for created in (tmp_path / "fresh", folder):
        assert stat.S_IMODE(created.stat().st_mode) == 0o700, created
    for name in ("graph.db", "graph.db-wal", "graph.db-shm"):
        path = folder / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, (name, oct(path.stat().st_mode))
    existing = tmp_path / "shared"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    open_store(f"sqlite:///{existing / 'graph.db'}").close()
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755  # a folder it did not make keeps its mode
    assert stat.S_IMODE((existing / "graph.db").stat().st_mode) == 0o600


def _cli(*args: str, env: dict[str, str], umask: int, stdin: str = "") -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        preexec_fn=lambda: os.umask(umask),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def test_the_data_and_hooks_folders_are_their_owners_only(tmp_path):
    """A real sync and a failing hook run under a loose umask (022, and 000) leave the data
    folder, its mirrors and worktrees and the hooks folder 0700, and errors.log 0600; ones an
    older version left wider are narrowed the next time they are opened."""
    from push_support import Remote

    remote = Remote(tmp_path / "remote", {"app.py": "def main():\n    return 1\n"})
    data = tmp_path / "home" / "cartograph"
    env = {
        "CARTOGRAPH_STORE": f"sqlite:///{tmp_path / 'store' / 'graph.db'}",
        "CARTOGRAPH_DATA": str(data),
        "CARTOGRAPH_HOOKD": "0",
    }
    folders = [
        data,
        data / "mirrors",
        data / "mirrors" / "shop.git",
        data / "worktrees",
        data / "worktrees" / "shop",
        data / "hooks",
    ]
    errors = data / "hooks" / "errors.log"

    def modes() -> dict[str, str]:
        return {
            str(path.relative_to(tmp_path)): oct(stat.S_IMODE(path.stat().st_mode))
            for path in [*folders, errors]
        }

    _cli("repo", "add", "shop", "--url", remote.url, env=env, umask=0o022)
    _cli("repo", "sync", "shop", env=env, umask=0o022)
    _cli("hook", "prompt", env=env, umask=0o000, stdin="{not json")  # logged, not raised
    expected = {str(p.relative_to(tmp_path)): "0o700" for p in folders}
    expected[str(errors.relative_to(tmp_path))] = "0o600"
    assert modes() == expected
    assert "hook prompt" in errors.read_text()

    for path in folders:
        os.chmod(path, 0o755)
    os.chmod(errors, 0o644)
    remote.commit("more", write={"app.py": "def main():\n    return 2\n"})
    remote.push()
    _cli("repo", "sync", "shop", env=env, umask=0o022)
    _cli("hook", "prompt", env=env, umask=0o022, stdin="[")
    assert modes() == expected


# ---------------------------------------------------------------- every MCP tool, every scope


def _argument(param):
    """A value of the parameter's type that passes validation and names nothing that exists
    (so an allowed call fails later, harmlessly: not found, not a folder, …)."""
    from cartograph.operations import values

    kind = param.value
    if isinstance(kind, values.Choice):
        return kind.choices[0]
    if isinstance(kind, values.CommaList):
        return ""
    if isinstance(kind, values.TextList):
        return []
    if isinstance(kind, values.Flag):
        return False
    if isinstance(kind, values.Integer):
        return 424242 if param.name == "session" else (param.minimum or 1)
    if isinstance(kind, values.CommitSha):
        return "abcdef1"
    if isinstance(kind, values.RepoName):
        return "nobody"
    if isinstance(kind, values.RepoPath):
        return "nowhere/x.py"
    return "nothing-here-" + param.name


def test_every_mcp_tool_checks_its_scope(tmp_path, stores):
    import asyncio

    from mcp import Client
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    store = stores.open()
    tokens = {scope: create_token(store, f"{scope}-only", [scope])[0] for scope in SCOPES}
    settings = Settings(store_url=stores.url(), broker_url=None, data_dir=tmp_path / "data",
                        require_tokens=True)  # fmt: skip
    tools = [op for op in CATALOGUE if op.mcp is not None]

    async def run(url: str) -> list[tuple[str, str, bool, str]]:
        seen = []
        for held, token in tokens.items():
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            client = Client(streamable_http_client(f"{url}/mcp/?profile=all", http_client=http),
                            read_timeout_seconds=60)  # fmt: skip
            async with client:
                for op in tools:
                    # every required argument, and a path: index's default "." would index
                    # the folder the server runs in (this repository, a minute on Neo4j)
                    arguments = {p.name: _argument(p) for p in op.on("mcp")
                                 if p.required or p.name == "path"}  # fmt: skip
                    result = await client.call_tool(op.mcp, arguments)
                    text = "".join(getattr(b, "text", "") for b in result.content)
                    seen.append((op.name, held, result.is_error, text))
        return seen

    with serve_in_thread(create_app(settings)) as url:
        seen = asyncio.run(run(url))
    scope_of = {op.name: op.scope for op in tools}
    assert len(seen) == 3 * len(tools) and len(tools) > 30
    refusals = [row for row in seen if "lacks the" in row[3]]
    assert len(refusals) == sum(
        1 for op in tools for held in SCOPES if held not in ("admin", op.scope)
    )
    for name, held, is_error, text in seen:
        needed = scope_of[name]
        if held == "admin" or held == needed:
            assert "lacks the" not in text, (name, held, text)
        else:
            assert is_error and f"lacks the {needed!r} scope" in text, (name, held, text)


# ---------------------------------------------------------------- webhook secrets at rest


def test_webhook_secrets_are_sealed_at_rest_with_a_server_key(tmp_path, stores, monkeypatch):
    import hashlib
    import hmac
    import json

    from cartograph.sealing import is_sealed, seal, unseal

    monkeypatch.setenv("CARTOGRAPH_SECRET_KEY", "k" * 40)
    store = stores.open()
    shown = add_tracked(store, "shop", "https://example.com/shop.git", "main").secret
    stored = store.tracking.get_tracked("shop").secret
    assert is_sealed(stored) and shown not in stored and unseal(stored) == shown
    assert seal(shown) != seal(shown)  # a fresh nonce each time
    body = json.dumps({"ref": "refs/heads/main", "after": "b" * 40}).encode()
    signature = "sha256=" + hmac.new(shown.encode(), body, hashlib.sha256).hexdigest()
    headers = {"X-GitHub-Event": "push", "X-Hub-Signature-256": signature,
               "Content-Type": "application/json"}  # fmt: skip
    app = create_app(Settings(store_url=stores.url(), data_dir=tmp_path / "d", broker_url=None))
    app.state.runner.push = lambda repo, sha: True
    with serve_in_thread(app) as url:
        accepted = httpx.post(f"{url}/webhooks/github/shop", content=body, headers=headers)
        assert accepted.status_code == 202, accepted.text
        forged = {**headers, "X-Hub-Signature-256": "sha256=" + "0" * 64}
        assert (
            httpx.post(f"{url}/webhooks/github/shop", content=body, headers=forged).status_code
            == 401
        )
    # a sealed value altered in the store (one byte) or cut is refused, never half-read
    import base64

    raw = bytearray(base64.b64decode(stored.removeprefix("sealed:1:")))
    raw[-1] ^= 1
    with refused(ErrorKind.UNAVAILABLE, "does not open"):
        unseal("sealed:1:" + base64.b64encode(bytes(raw)).decode())
    with refused(ErrorKind.UNAVAILABLE, "does not open"):
        unseal("sealed:1:" + base64.b64encode(bytes(raw[:5])).decode())
    with refused(ErrorKind.UNAVAILABLE, "damaged"):
        unseal("sealed:1:not base64!")
    # a sealed secret never opens without its key, or with another: a clear refusal
    monkeypatch.setenv("CARTOGRAPH_SECRET_KEY", "other-key-" * 4)
    with refused(ErrorKind.UNAVAILABLE, "does not open"):
        unseal(stored)
    monkeypatch.delenv("CARTOGRAPH_SECRET_KEY")
    with refused(ErrorKind.UNAVAILABLE, "set CARTOGRAPH_SECRET_KEY"):
        unseal(stored)
    assert unseal("plain-secret-stored-before-a-key") == "plain-secret-stored-before-a-key"
    monkeypatch.setenv("CARTOGRAPH_SECRET_KEY", "short")
    with refused(ErrorKind.UNAVAILABLE, "at least 32"):
        seal("x")
