"""`cartograph hooks install` / `uninstall`: wiring Cartograph into an agent's harness.

- claude (Claude Code): the hooks merged into `.claude/settings.json` (or the user's
  `~/.claude/settings.json`), the graph-aware exploring subagent under `.claude/agents/`, and for
  a project the MCP server in `.mcp.json`;
- gemini (Gemini CLI): the same hooks in its names, and the MCP server, in `.gemini/settings.json`
  (or `~/.gemini/settings.json`), and the rules in a section of `GEMINI.md`;
- cursor: no hook can add context or refuse an edit before it happens there, so the MCP server
  in `.cursor/mcp.json` and the rules in `.cursor/rules/cartograph.mdc`;
- codex (Codex CLI): the MCP server in `$CODEX_HOME/config.toml` and the rules in a section of
  the project's `AGENTS.md`.

The merge never touches the user's own entries: each hook of ours is its own matcher group whose
one command is `… cartograph hook EVENT`; a section of ours in a shared file sits between marker
lines; installing again changes nothing; uninstalling removes exactly what was added (the
subagent and MCP entry when they are still as written), and when what is left of a settings file
equals the file as it was before the install, it comes back byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cartograph.errors import Invalid
from cartograph.hooks import protocol
from cartograph.hooks.config import EVERY_TREE, ServerConfig, forget_server, set_server
from cartograph.hooks.paths import hooks_dir
from cartograph.weburls import credential_url_problem

SCOPES = ("project", "user")
MCP_SERVER = "cartograph"
EXPLORER_FILE = f"{protocol.GRAPH_EXPLORER}.md"
_OURS = re.compile(
    r"(?:^|[/\s'\"])cartograph['\"]? hook (?:" + "|".join(protocol.COMMANDS) + r")\b"
)

EXPLORER_AGENT = f"""---
name: {protocol.GRAPH_EXPLORER}
description: Explores a codebase through Cartograph's code graph — where a task lives, who calls
  what (through imports, re-exports, self, types and callbacks), what a change reaches. Use it
  instead of the built-in Explore agent for any "where is / who calls / what breaks" question.
---
You explore code for another agent and answer with file paths, line ranges and names.

Work graph first, text second:
1. `locate` with the task's own words: the likely functions, their lines and tests.
2. `search_symbols` for names and concepts; `get_context` for one symbol (signature,
   members, callers, callees); `find_callers` / `find_callees` for the call graph;
   `trace_calls` for what a function reaches or what reaches it; `path` between two symbols.
3. `co_changes` and `owners` for what usually changes with a file and who knows it.
4. Only then grep, for text the graph does not hold (messages, comments, configuration).

Open a file before you quote it: the graph says where to look. Answer briefly: the locations,
why each matters, and what you could not find.
"""


@dataclass(slots=True)
class HookInstall:
    agent: str
    scope: str
    settings: str  # the main file written
    added: list[str] = field(default_factory=list)  # "PreToolUse Edit|Write… → pre-edit"
    kept: int = 0  # hook groups of the user's left as they were
    files: list[str] = field(default_factory=list)  # other files written or removed
    server: str = ""  # the team server the hooks talk to ("" : the local store)
    notes: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


AGENTS = ("claude", "gemini", "cursor", "codex")
BEGIN, END = "<!-- cartograph: begin -->", "<!-- cartograph: end -->"
TOML_BEGIN, TOML_END = "# cartograph: begin", "# cartograph: end"
RULES = """## Cartograph (code graph)

This repository is indexed by Cartograph; its MCP server is `cartograph`. Reach for the graph
before text search:
- a task or bug report → `locate` with its words: the likely functions, their lines and tests;
- where something is defined → `search_symbols`, then `get_context` (signature, members,
  callers, callees);
- who calls a function, before you change its signature → `find_callers` (resolved through
  imports, re-exports, `self`, types and callbacks, which grep misses); what it reaches →
  `trace_calls`;
- what usually changes with a file, who knows it → `co_changes`, `owners`;
- before you finish → `impact` with your diff: what breaks, the tests to run, whom to ask.
When working with others: `start_session`, `claim_file` before you edit a file (someone else's
claim means: work on something else), `end_session` when done. On a team server, send each
file you change with `overlay_edit` and pass your session to the read tools (`session`): they
then see your edits, which nobody else sees until you push. Grep is for text the graph does
not hold (messages, comments, configuration); open a file before you edit it.
"""


def cartograph_command() -> str:
    """The `cartograph` executable the harness should start: beside this Python, else on
    PATH."""
    beside = Path(sys.executable).parent / "cartograph"
    if beside.exists():
        return str(beside)
    found = shutil.which("cartograph")
    return found or "cartograph"


def _home(variable: str, default: str) -> Path:
    return Path(os.environ.get(variable) or Path.home() / default)


def _backup_file(settings: Path) -> Path:
    key = hashlib.sha256(str(settings.resolve()).encode()).hexdigest()[:24]
    return Path(hooks_dir()) / "backups" / f"{key}.json"


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise Invalid(f"{path} is not JSON ({exc}); fix it before installing hooks") from None
    if not isinstance(data, dict):
        raise Invalid(f"{path} does not hold a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _is_ours(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return (
        isinstance(hooks, list)
        and bool(hooks)
        and all(isinstance(h, dict) and _OURS.search(str(h.get("command", ""))) for h in hooks)
    )


def _check_scope(scope: str, agent: str) -> None:
    if scope not in SCOPES:
        raise Invalid(f"scope {scope!r}: one of {', '.join(SCOPES)}")
    if agent not in AGENTS:
        raise Invalid(f"agent {agent!r}: one of {', '.join(AGENTS)}")


def install_hooks(
    store: Any,
    agent: str = "claude",
    scope: str = "project",
    project: str | None = None,
    server: str | None = None,
    token: str | None = None,
    repo: str | None = None,
) -> HookInstall:
    """Wire Cartograph into `agent`'s harness for the project (or, `scope="user"`, every
    project); with `server`, the hooks of this work tree talk to the team server with `token`
    (kept in the user's config, never in the project)."""
    _check_scope(scope, agent)
    if server:
        problem = credential_url_problem(server, "the team server's URL")
        if problem:
            raise Invalid(problem)
    root = Path(project or os.getcwd()).resolve()
    exe = shlex.quote(cartograph_command())
    store_url = None if server else _store_to_name(store)
    mcp = _mcp_entry(server, exe, store_url)
    if agent == "claude":
        report = _install_claude(root, scope, exe, store_url, mcp)
    elif agent == "gemini":
        report = _install_gemini(root, scope, exe, store_url, mcp)
    elif agent == "cursor":
        report = _install_cursor(root, scope, mcp)
    else:
        report = _install_codex(root, scope, server, exe, store_url)
    report.server = server or ""
    if server:
        set_server(ServerConfig(EVERY_TREE if scope == "user" else str(root), server, token, repo))
    return report


def uninstall_hooks(
    store: Any, agent: str = "claude", scope: str = "project", project: str | None = None
) -> HookInstall:
    """Take out exactly what `install_hooks` put in."""
    _check_scope(scope, agent)
    root = Path(project or os.getcwd()).resolve()
    if agent == "claude":
        settings, agents, mcp_path = _claude_places(root, scope)
        report = HookInstall(agent, scope, str(settings))
        _remove_hooks(settings, report)
        explorer = agents / EXPLORER_FILE
        if explorer.exists():
            if explorer.read_text(encoding="utf-8") == EXPLORER_AGENT:
                explorer.unlink()
                report.files.append(str(explorer))
                _remove_empty(agents)
            else:
                report.notes.append(f"{explorer} was edited since it was installed: left in place")
        if mcp_path is not None:
            _remove_mcp(mcp_path, report)
        _remove_empty(settings.parent)
    elif agent == "gemini":
        settings = _gemini_settings(root, scope)
        report = HookInstall(agent, scope, str(settings))
        _remove_mcp(settings, report, settings_file=True)
        _remove_hooks(settings, report)
        if scope == "project":
            _remove_section(root / "GEMINI.md", BEGIN, END, report)
        _remove_empty(settings.parent)
    elif agent == "cursor":
        folder = root / ".cursor" if scope == "project" else _home("CURSOR_HOME", ".cursor")
        report = HookInstall(agent, scope, str(folder / "mcp.json"))
        _remove_mcp(folder / "mcp.json", report)
        rules = folder / "rules" / "cartograph.mdc"
        if rules.exists():
            rules.unlink()
            report.files.append(str(rules))
            _remove_empty(rules.parent)
        _remove_empty(folder)
    else:
        config = _home("CODEX_HOME", ".codex") / "config.toml"
        report = HookInstall(agent, scope, str(config))
        _remove_section(config, TOML_BEGIN, TOML_END, report)
        if scope == "project":
            _remove_section(root / "AGENTS.md", BEGIN, END, report)
    forget_server(EVERY_TREE if scope == "user" else str(root))
    return report


# ---------------------------------------------------------------- Claude Code


def _claude_places(root: Path, scope: str) -> tuple[Path, Path, Path | None]:
    """(settings file, agents folder, .mcp.json or None) of a scope."""
    if scope == "user":
        home = _home("CLAUDE_CONFIG_DIR", ".claude")
        return home / "settings.json", home / "agents", None
    return root / ".claude" / "settings.json", root / ".claude" / "agents", root / ".mcp.json"


def _install_claude(
    root: Path, scope: str, exe: str, store_url: str | None, mcp: dict[str, Any]
) -> HookInstall:
    settings, agents, mcp_path = _claude_places(root, scope)
    report = HookInstall("claude", scope, str(settings))
    _merge_hooks(settings, protocol.HOOKS, exe, store_url, "", 1, report)
    agents.mkdir(parents=True, exist_ok=True)
    (agents / EXPLORER_FILE).write_text(EXPLORER_AGENT, encoding="utf-8")
    report.files.append(str(agents / EXPLORER_FILE))
    if mcp_path is not None:
        _merge_mcp(mcp_path, mcp, report)
    else:
        report.notes.append(
            "add the MCP server for every project with: claude mcp add --scope user "
            f"{MCP_SERVER} -- {cartograph_command()} mcp"
        )
    return report


# ---------------------------------------------------------------- Gemini CLI


def _gemini_settings(root: Path, scope: str) -> Path:
    base = root / ".gemini" if scope == "project" else _home("GEMINI_HOME", ".gemini")
    return base / "settings.json"


def _install_gemini(
    root: Path, scope: str, exe: str, store_url: str | None, mcp: dict[str, Any]
) -> HookInstall:
    settings = _gemini_settings(root, scope)
    report = HookInstall("gemini", scope, str(settings))
    _merge_hooks(settings, protocol.GEMINI_HOOKS, exe, store_url, " --harness gemini", 1000,
                 report)  # fmt: skip
    _merge_mcp(settings, _gemini_mcp(mcp), report, settings_file=True)
    if scope == "project":
        _write_section(root / "GEMINI.md", BEGIN, END, RULES, report)
    return report


def _gemini_mcp(entry: dict[str, Any]) -> dict[str, Any]:
    if entry.get("type") == "http":  # Gemini CLI names a streamable HTTP server `httpUrl`
        return {"httpUrl": entry["url"], "headers": entry["headers"]}
    return entry


# ---------------------------------------------------------------- Cursor and Codex


def _install_cursor(root: Path, scope: str, mcp: dict[str, Any]) -> HookInstall:
    folder = root / ".cursor" if scope == "project" else _home("CURSOR_HOME", ".cursor")
    report = HookInstall("cursor", scope, str(folder / "mcp.json"))
    _merge_mcp(folder / "mcp.json", mcp, report)
    rules = folder / "rules" / "cartograph.mdc"
    rules.parent.mkdir(parents=True, exist_ok=True)
    rules.write_text(
        "---\ndescription: Use Cartograph's code graph before text search\nalwaysApply: true\n"
        "---\n" + RULES,
        encoding="utf-8",
    )
    report.files.append(str(rules))
    report.notes.append(
        "Cursor's hooks can neither add context nor refuse an edit before it happens: claims "
        "are checked by the server (record_activity refuses an edit another session holds)"
    )
    return report


def _install_codex(
    root: Path, scope: str, server: str | None, exe: str, store_url: str | None
) -> HookInstall:
    config = _home("CODEX_HOME", ".codex") / "config.toml"
    report = HookInstall("codex", scope, str(config))
    if server:
        table = (f'[mcp_servers.{MCP_SERVER}]\nurl = {json.dumps(server.rstrip("/") + "/mcp/")}\n'
                 'bearer_token_env_var = "CARTOGRAPH_TOKEN"\n')  # fmt: skip
    else:
        args = ", ".join(
            json.dumps(a) for a in ["mcp", *(["--store", store_url] if store_url else [])]
        )
        table = (f"[mcp_servers.{MCP_SERVER}]\ncommand = {json.dumps(shlex.split(exe)[0])}\n"
                 f"args = [{args}]\n")  # fmt: skip
    _write_section(config, TOML_BEGIN, TOML_END, table, report)
    if scope == "project":
        _write_section(root / "AGENTS.md", BEGIN, END, RULES, report)
    return report


# ---------------------------------------------------------------- merging and removing


def _merge_hooks(
    settings_path: Path,
    table: tuple[protocol.Hook, ...],
    exe: str,
    store_url: str | None,
    suffix: str,
    timeout_unit: int,
    report: HookInstall,
) -> None:
    settings = _read(settings_path)
    backup = _backup_file(settings_path)
    if not backup.exists() and not any(
        _is_ours(g) for groups in settings.get("hooks", {}).values() for g in groups
    ):
        backup.parent.mkdir(parents=True, exist_ok=True)
        backup.write_bytes(settings_path.read_bytes() if settings_path.exists() else b"")
    store_part = f" --store {shlex.quote(store_url)}" if store_url else ""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Invalid(f"{settings_path}: `hooks` is not an object")
    for hook in table:
        groups = hooks.setdefault(hook.event, [])
        entry = {"type": "command", "command": f"{exe} hook {hook.command}{store_part}{suffix}",
                 "timeout": hook.timeout * timeout_unit}  # fmt: skip
        group: dict[str, Any] = {"hooks": [entry]}
        if hook.matcher is not None:
            group = {"matcher": hook.matcher, **group}
        mine = [
            g
            for g in groups
            if _is_ours(g)
            and g.get("matcher") == hook.matcher
            and f" hook {hook.command}" in g["hooks"][0].get("command", "")
        ]
        if mine:
            mine[0].clear()
            mine[0].update(group)
        else:
            groups.append(group)
            report.added.append(f"{hook.event} {hook.matcher or '*'} → {hook.command}")
    report.kept = sum(
        1 for groups in hooks.values() for g in groups if isinstance(g, dict) and not _is_ours(g)
    )
    _write(settings_path, settings)


def _remove_hooks(settings_path: Path, report: HookInstall) -> None:
    settings = _read(settings_path)
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept = [g for g in groups if not _is_ours(g)]
            report.removed.extend(f"{event} {g.get('matcher', '*')}" for g in groups if _is_ours(g))
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks:
            del settings["hooks"]
    backup = _backup_file(settings_path)
    original = backup.read_bytes() if backup.exists() else None
    if original is not None and settings == (json.loads(original) if original.strip() else {}):
        if original:
            settings_path.write_bytes(original)
        else:
            settings_path.unlink(missing_ok=True)
        backup.unlink()
    elif settings_path.exists():
        if settings:
            _write(settings_path, settings)
        else:
            settings_path.unlink()


def _merge_mcp(
    path: Path, entry: dict[str, Any], report: HookInstall, settings_file: bool = False
) -> None:
    config = _read(path)
    config.setdefault("mcpServers", {})[MCP_SERVER] = entry
    _write(path, config)
    if not settings_file:
        report.files.append(str(path))


def _remove_mcp(path: Path, report: HookInstall, settings_file: bool = False) -> None:
    if not path.exists():
        return
    config = _read(path)
    servers = config.get("mcpServers", {})
    if MCP_SERVER not in servers:
        return
    del servers[MCP_SERVER]
    if not servers:
        del config["mcpServers"]
    if config or settings_file:
        _write(path, config)
    else:
        path.unlink()
    if not settings_file:
        report.files.append(str(path))


def _write_section(path: Path, begin: str, end: str, text: str, report: HookInstall) -> None:
    """Our section of a shared file (between marker lines): replaced, or appended."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    section = f"{begin}\n{text.rstrip()}\n{end}\n"
    if begin in old and end in old:
        start = old.index(begin)
        stop = old.index(end, start) + len(end)
        new = old[:start] + section.rstrip("\n") + old[stop:]
    else:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + section if old else section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
    report.files.append(str(path))


def _remove_section(path: Path, begin: str, end: str, report: HookInstall) -> None:
    if not path.exists():
        return
    old = path.read_text(encoding="utf-8")
    if begin not in old or end not in old:
        return
    start = old.index(begin)
    stop = old.index(end, start) + len(end)
    before, after = old[:start], old[stop:].removeprefix("\n")
    if before.endswith("\n\n"):
        before = before[:-1]
    new = before + after
    if new.strip():
        path.write_text(new, encoding="utf-8")
    else:
        path.unlink()
    report.files.append(str(path))


def _remove_empty(folder: Path) -> None:
    if folder.exists() and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def _store_to_name(store: Any) -> str | None:
    """The store the hooks open, when it is not the default: a SQLite file only (a Neo4j URL
    may hold a password, which never goes into a settings file: set CARTOGRAPH_STORE)."""
    from cartograph.store import default_store_url

    url = str(getattr(store, "url", "") or "")
    if url.startswith("sqlite") and url != default_store_url():
        return url
    return None


def _mcp_entry(server: str | None, exe: str, store_url: str | None) -> dict[str, Any]:
    if server:
        return {
            "type": "http",
            "url": server.rstrip("/") + "/mcp/",
            "headers": {"Authorization": "Bearer ${CARTOGRAPH_TOKEN}"},
        }
    args = ["mcp", *(["--store", store_url] if store_url else [])]
    return {"command": shlex.split(exe)[0], "args": args}
