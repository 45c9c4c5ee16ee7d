"""Claude Code hooks: each hook command run as the harness runs it — a fresh process, the event's
JSON on stdin (the shapes of Claude Code's hooks reference, one sample per event and matcher),
the answer's JSON on stdout — against a real indexed repository; and `hooks install` /
`uninstall` on a project that has settings of its own."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.agents.sessions import claims
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.store import open_store
from sample_repo import make_sample_repo

CARTOGRAPH = str(Path(sys.executable).parent / "cartograph")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The sample shop indexed into a store of its own; hooks read it from the environment."""
    root = make_sample_repo(tmp_path / "shop")
    store_url = f"sqlite:///{tmp_path / 'graph.db'}"
    store = open_store(store_url)
    index_repository(store, root, "shop")
    env = {
        **os.environ,
        "CARTOGRAPH_STORE": store_url,
        "CARTOGRAPH_DATA": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "HOME": str(tmp_path / "home"),
    }
    env["CARTOGRAPH_HOOKD_IDLE"] = "5"  # the warm process a hook starts goes soon after a test
    env.pop("CARTOGRAPH_SERVER", None)
    env.pop("CARTOGRAPH_TOKEN", None)
    return root, store, env


def hook(event: str, payload: dict, env: dict) -> dict | None:
    done = subprocess.run(
        [CARTOGRAPH, "hook", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def base(root: Path, session: str, event: str) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": str(root),
        "hook_event_name": event,
        "permission_mode": "default",
    }


def tool_call(root: Path, session: str, event: str, tool: str, tool_input: dict) -> dict:
    payload = {**base(root, session, event), "tool_name": tool, "tool_input": tool_input,
               "tool_use_id": "toolu_01"}  # fmt: skip
    if event == "PostToolUse":
        payload["tool_response"] = {"filePath": tool_input.get("file_path"), "success": True}
    return payload


def edit(root: Path, path: str, old: str, new: str) -> dict:
    return {"file_path": str(root / path), "old_string": old, "new_string": new}


def context_of(answer: dict | None) -> str:
    assert answer is not None
    return answer["hookSpecificOutput"]["additionalContext"]


def test_session_start_gives_the_index_summary_and_survives_compaction(project):
    root, _store, env = project
    started = hook("session-start", {**base(root, "s1", "SessionStart"), "source": "startup"}, env)
    text = context_of(started)
    assert started["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Cartograph index of shop" in text and "work tree clean" in text
    assert "locate" in text and len(text) <= 1700
    session = text.rsplit("session ", 1)[1].split(" ")[0]
    compacted = hook("session-start", {**base(root, "s1", "SessionStart"), "source": "compact"},
                     env)  # fmt: skip
    assert f"session {session} " in context_of(compacted)  # the same agent session goes on


def test_prompt_gets_the_location_map_only_when_confident(project):
    root, _store, env = project
    payload = {**base(root, "s1", "UserPromptSubmit"),
               "prompt": "The cart total is wrong: price_of is summed per sku quantity"}  # fmt: skip
    text = context_of(hook("prompt", payload, env))
    assert "shop/models.py" in text and "Cart.total" in text
    vague = {**base(root, "s1", "UserPromptSubmit"), "prompt": "hello, how are you today?"}
    assert hook("prompt", vague, env) is None


def test_an_edit_takes_the_claim_and_another_session_is_denied_with_the_holder(project):
    root, _store, env = project
    change = edit(root, "shop/models.py", "return 9.99", "return 10.99")
    for tool, tool_input in (("Edit", change),
                             ("MultiEdit", {"file_path": change["file_path"], "edits": [change]}),
                             ("Write", {"file_path": change["file_path"], "content": "x = 1\n"})):  # fmt: skip
        mine = hook("pre-edit", tool_call(root, "alice", "PreToolUse", tool, tool_input), env)
        assert mine is None or "permissionDecision" not in mine["hookSpecificOutput"]
    held = {c.path: c for c in claims(open_store(env["CARTOGRAPH_STORE"]), "shop")}
    assert held["shop/models.py"].agent == "claude-code"
    alice = held["shop/models.py"].session

    denied = hook("pre-edit", tool_call(root, "bob", "PreToolUse", "Edit", change), env)
    output = denied["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"session {alice}" in output["permissionDecisionReason"]
    assert "shop/models.py" in output["permissionDecisionReason"]
    notebook = {"notebook_path": str(root / "shop/models.py"), "new_source": "x", "cell_id": "a"}
    again = hook("pre-edit", tool_call(root, "bob", "PreToolUse", "NotebookEdit", notebook), env)
    assert again["hookSpecificOutput"]["permissionDecision"] == "deny"

    # the server side enforces it too: bob's session cannot record an edit of the file
    outside = {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}
    assert hook("pre-edit", tool_call(root, "bob", "PreToolUse", "Edit", outside), env) is None

    hook("session-end", {**base(root, "alice", "SessionEnd"), "reason": "prompt_input_exit"}, env)
    freed = hook("pre-edit", tool_call(root, "bob", "PreToolUse", "Edit", change), env)
    assert freed is None or "permissionDecision" not in freed["hookSpecificOutput"]


def test_collision_radar_names_the_session_holding_a_caller(project):
    root, _store, env = project
    hook("pre-edit", tool_call(root, "alice", "PreToolUse", "Edit",
                               edit(root, "shop/payments.py", "amount > 0", "amount >= 0")), env)  # fmt: skip
    # bob edits Cart.total, which PaymentService.pay (claimed by alice's file) calls
    warned = hook("pre-edit", tool_call(root, "bob", "PreToolUse", "Edit", edit(
        root, "shop/models.py", "return sum(price_of(sku) * qty for sku, qty in self.items)",
        "return round(sum(price_of(sku) * qty for sku, qty in self.items), 2)")), env)  # fmt: skip
    output = warned["hookSpecificOutput"]
    assert "permissionDecision" not in output  # a warning, never a denial
    assert "collision radar" in output["additionalContext"]
    assert "shop/payments.py" in output["additionalContext"]


def test_post_edit_reindexes_the_file_records_the_edit_and_names_the_tests(project):
    root, _store, env = project
    models = root / "shop/models.py"
    old = "def price_of(sku: str) -> float:\n    return 9.99\n"
    new = "def price_of(sku: str) -> float:\n    return discounted(9.99)\n\n\ndef discounted(p):\n    return p * 0.9\n"
    change = edit(root, "shop/models.py", old, new)
    hook("pre-edit", tool_call(root, "alice", "PreToolUse", "Edit", change), env)
    models.write_text(models.read_text().replace(old, new))
    answer = hook("post-edit", tool_call(root, "alice", "PostToolUse", "Edit", change), env)
    assert "re-indexing shop/models.py in the background" in context_of(answer)
    jobs = Path(env["CARTOGRAPH_DATA"]) / "hooks" / "jobs"
    deadline = time.monotonic() + 60
    while any(jobs.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(jobs.glob("*.json")), "the re-index did not finish"
    # the next query sees the edit
    searched = subprocess.run([CARTOGRAPH, "search", "discounted", "--json"], env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
    assert any(h["symbol"]["name"] == "discounted" for h in json.loads(searched.stdout)["hits"])
    trail = open_store(env["CARTOGRAPH_STORE"]).team.session_activity(1)
    assert ("shop", "shop/models.py", "EDITED") in {(r, p, k) for r, p, k, _at in trail}
    # the session's next hook passes on the tests that reach the edit, once
    grep = tool_call(root, "alice", "PreToolUse", "Grep", {"pattern": "TODO"})
    text = context_of(hook("pre-search", grep, env))
    assert "re-indexed shop/models.py" in text
    assert "tests/test_orders.py::test_place_order" in text and "pytest" in text
    assert hook("pre-search", grep, env) is None
    other = tool_call(root, "bob", "PreToolUse", "Grep", {"pattern": "TODO"})
    assert hook("pre-search", other, env) is None  # left for alice's session only


def test_a_request_for_explore_goes_to_the_graph_aware_explorer(project):
    root, _store, env = project
    ask = {"description": "Find refunds", "prompt": "Where are refunds computed?",
           "subagent_type": "Explore"}  # fmt: skip
    answer = hook("pre-task", tool_call(root, "s1", "PreToolUse", "Task", ask), env)
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"] == {**ask, "subagent_type": "cartograph-explorer"}
    other = {**ask, "subagent_type": "general-purpose"}
    assert hook("pre-task", tool_call(root, "s1", "PreToolUse", "Task", other), env) is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "advice"),
    [
        ("Grep", {"pattern": r"def\s+total", "path": "."}, "search_symbols total"),
        ("Grep", {"pattern": r"price_of\(", "output_mode": "content"}, "find_callers price_of"),
        (
            "Bash",
            {"command": "rg -n 'from shop.models import Cart' .", "description": "find"},
            "find_callers Cart --references",
        ),
        (
            "Bash",
            {"command": "grep -rn 'class PaymentService' shop/"},
            "get_context PaymentService",
        ),
    ],
)
def test_structural_searches_are_pointed_to_the_graph_and_never_blocked(
    project, tool, tool_input, advice
):
    root, _store, env = project
    answer = hook("pre-search", tool_call(root, "s1", "PreToolUse", tool, tool_input), env)
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert advice in output["additionalContext"]


def test_what_a_hook_gives_the_agent_is_capped_and_says_it_was_cut(project):
    root, _store, env = project
    name = "n" * 200_000
    for tool, tool_input in (
        ("Grep", {"pattern": rf"def\s+{name}"}),
        ("Bash", {"command": f"grep -rn 'class {name}' ."}),
    ):
        answer = hook("pre-search", tool_call(root, "s1", "PreToolUse", tool, tool_input), env)
        text = context_of(answer)
        assert text.startswith("Cartograph: the code graph answers this structurally")
        assert len(text) <= 8_000 and "(cut by Cartograph: " in text.splitlines()[-1]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Grep", {"pattern": "TODO"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Bash", {"command": "ls -la shop"}),
        ("Bash", {"command": "pytest -q tests/test_orders.py"}),
    ],
)
def test_other_searches_and_commands_pass_untouched(project, tool, tool_input):
    root, _store, env = project
    assert hook("pre-search", tool_call(root, "s1", "PreToolUse", tool, tool_input), env) is None


def test_hooks_fail_open_on_a_broken_store(project, tmp_path):
    root, _store, env = project
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"this is not a database" * 100)
    env = {**env, "CARTOGRAPH_STORE": f"sqlite:///{broken}"}
    change = edit(root, "shop/models.py", "return 9.99", "return 1")
    for event, payload in (
        ("session-start", {**base(root, "s9", "SessionStart"), "source": "startup"}),
        ("prompt", {**base(root, "s9", "UserPromptSubmit"), "prompt": "cart total"}),
        ("pre-edit", tool_call(root, "s9", "PreToolUse", "Edit", change)),
        ("post-edit", tool_call(root, "s9", "PostToolUse", "Edit", change)),
        ("session-end", {**base(root, "s9", "SessionEnd"), "reason": "other"}),
    ):
        assert hook(event, payload, env) is None, event
    log = Path(env["CARTOGRAPH_DATA"]) / "hooks" / "errors.log"
    assert "not a Cartograph SQLite store" in log.read_text()
    garbage = subprocess.run([CARTOGRAPH, "hook", "pre-edit"], input="{not json", env=env,
                             capture_output=True, text=True)  # fmt: skip
    assert garbage.returncode == 0 and garbage.stdout == ""


# ---------------------------------------------------------------- install / uninstall

USER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CARTOGRAPH, *args], env=env, capture_output=True, text=True, check=True)


def test_install_keeps_the_users_settings_is_idempotent_and_uninstall_restores_them(project):
    root, _store, env = project
    claude = root / ".claude"
    claude.mkdir()
    original = json.dumps(USER_SETTINGS, indent=4).encode()  # formatted their own way
    (claude / "settings.json").write_bytes(original)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": {"command": "dbmcp"}}}))

    cli(env, "hooks", "install", "--project", str(root))
    settings = json.loads((claude / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["permissions"] == USER_SETTINGS["permissions"]
    assert USER_SETTINGS["hooks"]["PreToolUse"][0] in settings["hooks"]["PreToolUse"]
    assert settings["hooks"]["Stop"] == USER_SETTINGS["hooks"]["Stop"]
    commands = {h["command"].split(" hook ")[1].split()[0]: group.get("matcher")
                for event in settings["hooks"].values() for group in event
                for h in group["hooks"] if " hook " in h["command"]}  # fmt: skip
    assert commands == {
        "session-start": "startup|resume|clear|compact", "prompt": None,
        "pre-edit": "Edit|Write|MultiEdit|NotebookEdit",
        "post-edit": "Edit|Write|MultiEdit|NotebookEdit", "pre-task": "Task|Agent",
        "pre-search": "Grep|Glob|Bash", "session-end": None,
    }  # fmt: skip
    # the store is CARTOGRAPH_STORE's, which the hooks read too: no URL baked into the project
    assert "--store" not in settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    explorer = claude / "agents" / "cartograph-explorer.md"
    assert "name: cartograph-explorer" in explorer.read_text()
    servers = json.loads((root / ".mcp.json").read_text())["mcpServers"]
    assert servers["db"] == {"command": "dbmcp"} and servers["cartograph"]["args"][0] == "mcp"

    once = (claude / "settings.json").read_bytes()
    cli(env, "hooks", "install", "--project", str(root))
    assert (claude / "settings.json").read_bytes() == once  # idempotent

    # the installed command runs as the harness would run it
    command = settings["hooks"]["PreToolUse"][-1]["hooks"][0]["command"]
    ran = subprocess.run(command, shell=True, env=env, capture_output=True, text=True,
                         input=json.dumps(tool_call(root, "s1", "PreToolUse", "Grep",
                                                    {"pattern": r"def\s+total"})))  # fmt: skip
    assert "search_symbols total" in ran.stdout

    cli(env, "hooks", "uninstall", "--project", str(root))
    assert (claude / "settings.json").read_bytes() == original
    assert not explorer.exists()
    assert json.loads((root / ".mcp.json").read_text()) == {
        "mcpServers": {"db": {"command": "dbmcp"}}
    }


def test_uninstall_of_a_project_without_settings_leaves_nothing_behind(project):
    root, _store, env = project
    cli(env, "hooks", "install", "--project", str(root))
    assert (root / ".claude" / "settings.json").exists()
    # the user adds a hook of their own after the install: uninstall keeps it
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    settings["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "say done"}]}]
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    cli(env, "hooks", "uninstall", "--project", str(root))
    assert json.loads((root / ".claude" / "settings.json").read_text()) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}
    }
    (root / ".claude" / "settings.json").unlink()
    cli(env, "hooks", "install", "--project", str(root))
    cli(env, "hooks", "uninstall", "--project", str(root))
    assert not (root / ".claude").exists() and not (root / ".mcp.json").exists()


def refused(env: dict, *args: str) -> str:
    """A command that must fail with one clear line (exit 1, no traceback): its message."""
    done = subprocess.run([CARTOGRAPH, *args], env=env, capture_output=True, text=True)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.startswith("cartograph: ")
    return done.stderr


def _installer(store, env: dict, monkeypatch):
    """`hooks install` in this process, with the project's environment: its message when it
    is refused (Invalid, as the command prints it), else None."""
    from cartograph.errors import Invalid
    from cartograph.hooks.install import install_hooks

    for name in ("HOME", "XDG_CONFIG_HOME", "CARTOGRAPH_DATA", "CODEX_HOME"):
        if name in env:
            monkeypatch.setenv(name, env[name])

    def install(root: Path, agent: str) -> str | None:
        try:
            install_hooks(store, agent, "project", str(root))
        except Invalid as exc:
            return str(exc)
        return None

    return install


def _snapshot(*folders: Path) -> dict[str, bytes | str]:
    """Every file (its bytes) and link (its target) under the folders."""
    found: dict[str, bytes | str] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink():
                found[str(path)] = os.readlink(path)
            elif path.is_file():
                found[str(path)] = path.read_bytes()
    return found


def test_install_never_writes_through_a_symbolic_link(project, tmp_path, monkeypatch):
    root, store, env = project
    env = {**env, "CODEX_HOME": str(tmp_path / "codex")}
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.json").write_text('{"keep": true}\n')
    (outside / "notes.md").write_text("# mine\n")
    cli_install = ("hooks", "install", "--project", str(root))
    cases = [  # (the link in the project, where it points, the agent)
        (".claude/settings.json", outside / "precious.json", "claude"),
        (".claude", outside, "claude"),  # a folder on the way
        (".mcp.json", outside / "precious.json", "claude"),
        (".claude/agents/cartograph-explorer.md", outside / "notes.md", "claude"),
        (".gemini/settings.json", outside / "precious.json", "gemini"),
        ("GEMINI.md", outside / "notes.md", "gemini"),
        (".cursor/mcp.json", outside / "precious.json", "cursor"),
        ("AGENTS.md", outside / "notes.md", "codex"),
    ]
    install = _installer(store, env, monkeypatch)
    for link, target, agent in cases:
        (root / link).parent.mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(target)
        before = _snapshot(root, outside, tmp_path / "codex")
        message = install(root, agent) or ""
        assert "is a symbolic link" in message, (link, message)
        assert _snapshot(root, outside, tmp_path / "codex") == before, link  # nothing written
        (root / link).unlink()
        for leftover in (".claude/agents", ".claude", ".gemini", ".cursor"):
            if (root / leftover).is_dir() and not any((root / leftover).iterdir()):
                (root / leftover).rmdir()
    # Codex's own configuration (the user's) too; and the command says it in one line
    (tmp_path / "codex").mkdir()
    (tmp_path / "codex" / "config.toml").symlink_to(outside / "notes.md")
    assert "is a symbolic link" in refused(env, *cli_install, "--agent", "codex")
    assert (outside / "notes.md").read_text() == "# mine\n"


def test_settings_of_an_unexpected_shape_are_reported_never_overwritten(
    project, tmp_path, monkeypatch
):
    root, store, env = project
    env = {**env, "CODEX_HOME": str(tmp_path / "codex")}
    install = _installer(store, env, monkeypatch)
    (tmp_path / "codex").mkdir()
    cases = [  # (file, its content, agent, what the message says)
        (".claude/settings.json", '{"hooks": [1, 2, 3]}', "claude", "`hooks` is a list"),
        (".claude/settings.json", '{"hooks": {"PreToolUse": {"a": 1}}}', "claude",
         "`hooks.PreToolUse` is an object, not a list"),
        (".claude/settings.json", "[1, 2]", "claude", "does not hold a JSON object"),
        (".claude/settings.json", "{not json", "claude", "is not JSON"),
        (".claude/settings.json", "[" * 100_000, "claude", "is not JSON"),
        (".mcp.json", '{"mcpServers": ["db"]}', "claude", "`mcpServers` is a list"),
        (".gemini/settings.json", '{"hooks": "none"}', "gemini", "`hooks` is a string"),
        (".gemini/settings.json", '{"mcpServers": 3}', "gemini", "`mcpServers` is a number"),
        (".cursor/mcp.json", '{"mcpServers": null}', "cursor", "`mcpServers` is null"),
        ("GEMINI.md", "<!-- cartograph: begin -->\nmine\n", "gemini", "markers"),
        ("AGENTS.md", "<!-- cartograph: end -->\nx\n<!-- cartograph: begin -->\n", "codex",
         "out of order"),
        (str(tmp_path / "codex" / "config.toml"), "model = \"o4\n", "codex", "is not TOML"),
        (str(tmp_path / "codex" / "config.toml"), '[mcp_servers.cartograph]\ncommand = "mine"\n',
         "codex", "already defines `mcp_servers.cartograph`"),
        (str(tmp_path / "codex" / "config.toml"), "mcp_servers = 1\n", "codex",
         "`mcp_servers` is no table"),
    ]  # fmt: skip
    for name, content, agent, says in cases:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        before = _snapshot(root, tmp_path / "codex")
        message = install(root, agent) or ""
        assert says in message and str(path) in message, (name, message)
        assert _snapshot(root, tmp_path / "codex") == before, name  # nothing written
        path.unlink()
    # the command says it in one line; a folder where the settings file should be
    (root / ".claude" / "settings.json").write_text('{"hooks": [1, 2, 3]}')
    assert "`hooks` is a list" in refused(env, "hooks", "install", "--project", str(root))
    (root / ".claude" / "settings.json").unlink()
    (root / ".claude" / "settings.json").mkdir()
    assert "is not a file" in (install(root, "claude") or "")
    assert "is not a file" in refused(env, "hooks", "uninstall", "--project", str(root))


def test_user_scope_writes_the_users_claude_settings(project, tmp_path):
    _root, _store, env = project
    env = {**env, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")}
    done = cli(env, "hooks", "install", "--scope", "user")
    assert "claude mcp add" in done.stdout
    settings = json.loads((tmp_path / "claude-home" / "settings.json").read_text())
    assert len(settings["hooks"]["PreToolUse"]) == 3
    cli(env, "hooks", "uninstall", "--scope", "user")
    assert not (tmp_path / "claude-home" / "settings.json").exists()


# ---------------------------------------------------------------- against the team server


def test_install_refuses_a_server_its_token_would_reach_in_cleartext(project):
    root, _store, env = project
    config = Path(env["XDG_CONFIG_HOME"]) / "cartograph" / "hooks.json"
    for server, why in (
        ("file:///etc/cartograph", "must be an https URL"),
        ("http://team.example:8000", "plain http to team.example"),
    ):
        done = subprocess.run(
            [CARTOGRAPH, "hooks", "install", "--project", str(root), "--server", server,
             "--token", "secret-token"], env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 1 and why in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and "secret-token" not in done.stderr
        assert not (root / ".claude").exists() and not config.exists()
    cli(env, "hooks", "install", "--project", str(root), "--server", "https://team.example",
        "--token", "secret-token")  # fmt: skip
    servers = json.loads((root / ".mcp.json").read_text())["mcpServers"]
    assert servers["cartograph"]["url"] == "https://team.example/mcp/"


def test_hooks_against_the_team_server_take_claims_there_and_keep_the_token_out(project, tmp_path):
    root, store, env = project
    tokens = {name: create_token(store, name, ["read", "claims"])[0] for name in ("alice", "bob")}
    settings = Settings(store_url=env["CARTOGRAPH_STORE"], broker_url=None,
                        data_dir=tmp_path / "server-data", require_tokens=True)  # fmt: skip
    with serve_in_thread(create_app(settings)) as url:
        cli(env, "hooks", "install", "--project", str(root), "--server", url,
            "--token", tokens["alice"], "--repo", "shop")  # fmt: skip
        written = (root / ".claude" / "settings.json").read_text()
        assert tokens["alice"] not in written and "--store" not in written
        config = Path(env["XDG_CONFIG_HOME"]) / "cartograph" / "hooks.json"
        assert oct(config.stat().st_mode & 0o777) == "0o600"

        change = edit(root, "shop/models.py", "return 9.99", "return 10.99")
        started = hook("session-start", {**base(root, "a1", "SessionStart"), "source": "startup"},
                       env)  # fmt: skip
        assert "shop" in context_of(started)
        assert hook("pre-edit", tool_call(root, "a1", "PreToolUse", "Edit", change), env) is None
        held = httpx.get(f"{url}/api/v1/claims", params={"repo": "shop"},
                         headers={"Authorization": f"Bearer {tokens['bob']}"}).json()  # fmt: skip
        rows = held["items"] if isinstance(held, dict) else held
        assert [r["path"] for r in rows] == ["shop/models.py"]

        bob_env = {**env, "CARTOGRAPH_SERVER": url, "CARTOGRAPH_TOKEN": tokens["bob"]}
        denied = hook("pre-edit", tool_call(root, "b1", "PreToolUse", "Edit", change), bob_env)
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert "claude-code" in denied["hookSpecificOutput"]["permissionDecisionReason"]
        # where no hook ran (a subagent), the server refuses bob's edit all the same
        refused = hook("post-edit", tool_call(root, "b1", "PostToolUse", "Edit", change), bob_env)
        assert "being edited by session" in context_of(refused)
        # alice's edit goes into her session's overlay: her reads see it, bob's do not, and
        # the shared graph is not re-indexed from it
        models = root / "shop/models.py"
        models.write_text(models.read_text().replace("return 9.99", "return 10.99")
                          + "\n\ndef loyalty_discount(cart):\n    return cart.total() / 10\n")  # fmt: skip
        mine = context_of(
            hook("post-edit", tool_call(root, "a1", "PostToolUse", "Edit", change), env)
        )
        assert "your session's reads" in mine and "until your push is indexed" in mine
        alice_session = int(context_of(started).split("your session is ", 1)[1].split(" ")[0])

        def found(token: str, **params) -> list[str]:
            answer = httpx.get(f"{url}/api/v1/search", params={"q": "loyalty discount", **params},
                               headers={"Authorization": f"Bearer {token}"})  # fmt: skip
            return [hit["symbol"]["qualname"] for hit in answer.json()["hits"]]

        assert found(tokens["alice"], session=alice_session)[0] == "shop.models.loyalty_discount"
        assert "shop.models.loyalty_discount" not in found(tokens["bob"])
        assert "shop.models.loyalty_discount" not in found(tokens["alice"])  # no session named
        hook("session-end", {**base(root, "a1", "SessionEnd"), "reason": "logout"}, env)
        assert store.team.overlay_files(alice_session) == []
        again = hook("pre-edit", tool_call(root, "b1", "PreToolUse", "Edit", change), bob_env)
        assert again is None or "permissionDecision" not in again["hookSpecificOutput"]


# ---------------------------------------------------------------- other agents


def test_gemini_cli_gets_the_same_hooks_in_its_own_names_and_shapes(project):
    root, _store, env = project
    gemini = root / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_text(json.dumps({"theme": "dark", "mcpServers": {"db": {"command": "db"}}}))
    before = gemini.read_bytes()
    cli(env, "hooks", "install", "--agent", "gemini", "--project", str(root))
    settings = json.loads(gemini.read_text())
    assert settings["theme"] == "dark" and settings["mcpServers"]["db"] == {"command": "db"}
    assert settings["mcpServers"]["cartograph"]["args"] == ["mcp"]
    assert set(settings["hooks"]) == {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool",
                                      "SessionEnd"}  # fmt: skip
    before_tool = {g["matcher"]: g["hooks"][0] for g in settings["hooks"]["BeforeTool"]}
    edit_hook = before_tool["replace|write_file"]
    assert edit_hook["command"].endswith("hook pre-edit --harness gemini")
    assert edit_hook["timeout"] == 10_000  # Gemini CLI counts milliseconds
    assert "Cartograph (code graph)" in (root / "GEMINI.md").read_text()

    def run(command: str, payload: dict) -> dict | None:
        done = subprocess.run(command, shell=True, env=env, input=json.dumps(payload),
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else None

    replace = {"file_path": str(root / "shop/models.py"), "old_string": "return 9.99",
               "new_string": "return 1.0"}  # fmt: skip
    mine = {**base(root, "g1", "BeforeTool"), "tool_name": "replace", "tool_input": replace}
    assert run(edit_hook["command"], mine) is None  # the claim is taken, nothing to say
    theirs = {**mine, "session_id": "g2"}
    denied = run(edit_hook["command"], theirs)
    assert denied["decision"] == "deny" and "being edited by session" in denied["reason"]
    grep = {**base(root, "g1", "BeforeTool"), "tool_name": "search_file_content",
            "tool_input": {"pattern": r"def\s+total"}}  # fmt: skip
    nudged = run(before_tool["search_file_content|grep|glob|run_shell_command"]["command"], grep)
    assert nudged["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
    assert "search_symbols total" in nudged["hookSpecificOutput"]["additionalContext"]

    cli(env, "hooks", "uninstall", "--agent", "gemini", "--project", str(root))
    assert gemini.read_bytes() == before and not (root / "GEMINI.md").exists()


def test_cursor_and_codex_get_the_mcp_server_and_the_rules(project, tmp_path):
    root, _store, env = project
    env = {**env, "CODEX_HOME": str(tmp_path / "codex")}
    (root / "AGENTS.md").write_text("# Agents\n\nRun `make test` before you push.\n")
    codex = tmp_path / "codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('model = "o4"\n\n[mcp_servers.db]\ncommand = "db"\n')
    agents_before, codex_before = (root / "AGENTS.md").read_bytes(), codex.read_bytes()

    cli(env, "hooks", "install", "--agent", "codex", "--project", str(root))
    cli(env, "hooks", "install", "--agent", "codex", "--project", str(root))  # idempotent
    import tomllib

    config = tomllib.loads(codex.read_text())
    assert config["model"] == "o4" and config["mcp_servers"]["db"] == {"command": "db"}
    assert config["mcp_servers"]["cartograph"]["args"] == ["mcp"]
    text = (root / "AGENTS.md").read_text()
    assert text.startswith("# Agents") and text.count("Cartograph (code graph)") == 1
    assert "`locate`" in text and "`find_callers`" in text

    cli(env, "hooks", "install", "--agent", "cursor", "--project", str(root))
    servers = json.loads((root / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert servers["cartograph"]["args"] == ["mcp"]
    rules = (root / ".cursor" / "rules" / "cartograph.mdc").read_text()
    assert rules.startswith("---\n") and "alwaysApply: true" in rules and "`impact`" in rules

    cli(env, "hooks", "uninstall", "--agent", "codex", "--project", str(root))
    cli(env, "hooks", "uninstall", "--agent", "cursor", "--project", str(root))
    assert (root / "AGENTS.md").read_bytes() == agents_before
    assert codex.read_bytes() == codex_before
    assert not (root / ".cursor").exists()


def test_later_hooks_are_answered_by_a_warm_process_and_the_same_without_it(project):
    root, _store, env = project
    sockets = Path(env["CARTOGRAPH_DATA"]) / "hooks"
    hook("session-start", {**base(root, "w1", "SessionStart"), "source": "startup"}, env)
    deadline = time.monotonic() + 30
    while not list(sockets.glob("hookd-*.sock")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(sockets.glob("hookd-*.sock")), "the first hook starts the warm process"
    change = edit(root, "shop/models.py", "return 9.99", "return 10.99")
    hook("pre-edit", tool_call(root, "w1", "PreToolUse", "Edit", change), env)
    warm = hook("pre-edit", tool_call(root, "w2", "PreToolUse", "Edit", change), env)
    cold_env = {**env, "CARTOGRAPH_HOOKD": "0"}
    cold = hook("pre-edit", tool_call(root, "w3", "PreToolUse", "Edit", change), cold_env)
    assert warm["hookSpecificOutput"]["permissionDecision"] == "deny"
    reason = warm["hookSpecificOutput"]["permissionDecisionReason"]
    assert cold["hookSpecificOutput"]["permissionDecisionReason"] == reason
    # the warm process goes when idle (CARTOGRAPH_HOOKD_IDLE) and its socket with it
    deadline = time.monotonic() + 30
    while list(sockets.glob("hookd-*.sock")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not list(sockets.glob("hookd-*.sock"))


def _serve_in_thread(data: Path, monkeypatch, deadline: str) -> tuple[str, threading.Thread]:
    """The warm process's server (`daemon.serve`, as `cartograph hook serve` runs it) in a
    thread of this process, for the hooks data folder `data`: its socket and its thread."""
    from cartograph.hooks import daemon

    monkeypatch.setenv("CARTOGRAPH_DATA", str(data))
    monkeypatch.setenv("CARTOGRAPH_HOOKD_READ_DEADLINE", deadline)
    path = daemon.socket_path(None)
    served = threading.Thread(target=daemon.serve, args=(None,), daemon=True)
    served.start()
    bound = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < bound:
        time.sleep(0.02)
    assert os.path.exists(path), "the warm process did not start"
    return path, served


def _stop(path: str, served: threading.Thread) -> None:
    Path(path).unlink(missing_ok=True)  # it goes when its socket is gone
    served.join(30)
    assert not served.is_alive()


def test_the_warm_process_answers_while_a_client_is_stuck_and_drops_it_after_its_deadline(
    project, monkeypatch
):
    from cartograph.hooks import daemon

    root, _store, env = project
    for name in ("CARTOGRAPH_STORE", "XDG_CONFIG_HOME", "HOME"):
        monkeypatch.setenv(name, env[name])
    short = Path(tempfile.mkdtemp(prefix="hookd-", dir="/tmp"))  # a socket's path is short
    try:
        # a client that connects and sends nothing does not hold up the others' hooks
        path, served = _serve_in_thread(short / "a", monkeypatch, deadline="600")
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.connect(path)
        try:
            grep = tool_call(root, "d1", "PreToolUse", "Grep", {"pattern": r"def\s+total"})
            # daemon.call is a hook run's own client: NotRunning unless the warm process answers
            assert "search_symbols total" in context_of(daemon.call(None, "pre-search", grep))
            start = {**base(root, "d1", "SessionStart"), "source": "startup"}
            assert "shop" in context_of(daemon.call(None, "session-start", start))
            stuck.setblocking(False)
            with pytest.raises(BlockingIOError):  # still waiting: neither answered nor closed
                stuck.recv(1)
        finally:
            stuck.close()
            _stop(path, served)

        # a client whose request trickles in is dropped at its deadline, not per byte
        path, served = _serve_in_thread(short / "b", monkeypatch, deadline="0.5")
        slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        slow.connect(path)
        try:
            reply = b""
            bound = time.monotonic() + 30  # fails a hang, never a speed
            while not reply.endswith(b"\n") and time.monotonic() < bound:
                with contextlib.suppress(OSError):
                    slow.sendall(b" ")
                if select.select([slow], [], [], 0.1)[0]:
                    chunk = slow.recv(65536)
                    reply += chunk
                    if not chunk:
                        break
            assert json.loads(reply)["error"].startswith("TimeoutError")
        finally:
            slow.close()
            _stop(path, served)
    finally:
        shutil.rmtree(short, ignore_errors=True)


@pytest.mark.parametrize("tool", ["Write", "MultiEdit", "NotebookEdit"])
def test_every_edit_tool_after_it_ran_records_the_edit_and_starts_the_reindex(project, tool):
    root, _store, env = project
    path = str(root / "shop/payments.py")
    tool_input = {
        "Write": {"file_path": path, "content": (root / "shop/payments.py").read_text()},
        "MultiEdit": {"file_path": path, "edits": [{"old_string": "amount > 0",
                                                    "new_string": "amount > 0"}]},
        "NotebookEdit": {"notebook_path": path, "new_source": "x", "cell_id": "c1"},
    }[tool]  # fmt: skip
    answer = hook("post-edit", tool_call(root, "e1", "PostToolUse", tool, tool_input), env)
    assert "re-indexing shop/payments.py in the background" in context_of(answer)
    trail = open_store(env["CARTOGRAPH_STORE"]).team.session_activity(1)
    assert ("shop", "shop/payments.py", "EDITED") in {(r, p, k) for r, p, k, _at in trail}
