"""`cartograph hooks install` / `uninstall`: Cartograph's hooks merged into Claude Code's
settings (`.claude/settings.json` of the project, or the user's `~/.claude/settings.json`), the
graph-aware exploring subagent under `.claude/agents/`, and — for a project — the MCP server in
`.mcp.json`.

The merge never touches the user's own entries: each of ours is its own matcher group whose one
command is `… cartograph hook EVENT`; installing again changes nothing; uninstalling removes
exactly those groups (and the subagent and MCP entry when they are still as written), and when
what is left equals the file as it was before the install, that file comes back byte for byte."""

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
    scope: str
    settings: str  # the settings file written
    added: list[str] = field(default_factory=list)  # "PreToolUse Edit|Write… → pre-edit"
    kept: int = 0  # hook groups of the user's left as they were
    files: list[str] = field(default_factory=list)  # other files written or removed
    server: str = ""  # the team server the hooks talk to ("" : the local store)
    notes: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def cartograph_command() -> str:
    """The `cartograph` executable the harness should start: beside this Python, else on
    PATH."""
    beside = Path(sys.executable).parent / "cartograph"
    if beside.exists():
        return str(beside)
    found = shutil.which("cartograph")
    return found or "cartograph"


def _claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def _places(scope: str, project: Path) -> tuple[Path, Path, Path | None]:
    """(settings file, agents folder, .mcp.json or None) of a scope."""
    if scope not in SCOPES:
        raise Invalid(f"scope {scope!r}: one of {', '.join(SCOPES)}")
    if scope == "user":
        home = _claude_home()
        return home / "settings.json", home / "agents", None
    claude = project / ".claude"
    return claude / "settings.json", claude / "agents", project / ".mcp.json"


def _backup_file(settings: Path) -> Path:
    from cartograph.hooks.events import state_dir

    key = hashlib.sha256(str(settings.resolve()).encode()).hexdigest()[:24]
    return state_dir().parent / "backups" / f"{key}.json"


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


def install_hooks(
    store: Any,
    scope: str = "project",
    project: str | None = None,
    server: str | None = None,
    token: str | None = None,
    repo: str | None = None,
) -> HookInstall:
    """Merge Cartograph's hooks into Claude Code's settings of `scope`, install the exploring
    subagent, and (project scope) the MCP server; with `server`, the hooks of this work tree
    talk to the team server with `token` (kept in the user's config, never in the project)."""
    root = Path(project or os.getcwd()).resolve()
    settings_path, agents, mcp_path = _places(scope, root)
    store_url = _store_to_name(store)
    settings = _read(settings_path)
    backup = _backup_file(settings_path)
    if not backup.exists() and not any(
        _is_ours(g) for groups in settings.get("hooks", {}).values() for g in groups
    ):
        backup.parent.mkdir(parents=True, exist_ok=True)
        backup.write_bytes(settings_path.read_bytes() if settings_path.exists() else b"")
    exe = shlex.quote(cartograph_command())
    store_part = f" --store {shlex.quote(store_url)}" if store_url and not server else ""
    report = HookInstall(scope, str(settings_path), server=server or "")
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Invalid(f"{settings_path}: `hooks` is not an object")
    for hook in protocol.HOOKS:
        groups = hooks.setdefault(hook.event, [])
        entry = {"type": "command", "command": f"{exe} hook {hook.command}{store_part}",
                 "timeout": hook.timeout}  # fmt: skip
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
    agents.mkdir(parents=True, exist_ok=True)
    (agents / EXPLORER_FILE).write_text(EXPLORER_AGENT, encoding="utf-8")
    report.files.append(str(agents / EXPLORER_FILE))
    if mcp_path is not None:
        config = _read(mcp_path)
        config.setdefault("mcpServers", {})[MCP_SERVER] = _mcp_entry(server, exe, store_url)
        _write(mcp_path, config)
        report.files.append(str(mcp_path))
    else:
        report.notes.append(
            "add the MCP server for every project with: claude mcp add --scope user "
            f"{MCP_SERVER} -- {cartograph_command()} mcp"
        )
    if server:
        set_server(ServerConfig(EVERY_TREE if scope == "user" else str(root), server, token, repo))
    return report


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
            "url": server.rstrip("/") + "/mcp",
            "headers": {"Authorization": "Bearer ${CARTOGRAPH_TOKEN}"},
        }
    args = ["mcp", *(["--store", store_url] if store_url else [])]
    return {"command": shlex.split(exe)[0], "args": args}


def uninstall_hooks(store: Any, scope: str = "project", project: str | None = None) -> HookInstall:
    """Take out exactly what `install_hooks` put in."""
    root = Path(project or os.getcwd()).resolve()
    settings_path, agents, mcp_path = _places(scope, root)
    report = HookInstall(scope, str(settings_path))
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
        _write(settings_path, settings)
    explorer = agents / EXPLORER_FILE
    if explorer.exists():
        if explorer.read_text(encoding="utf-8") == EXPLORER_AGENT:
            explorer.unlink()
            report.files.append(str(explorer))
            if agents.exists() and not any(agents.iterdir()):
                agents.rmdir()
        else:
            report.notes.append(f"{explorer} was edited since it was installed: left in place")
    if mcp_path is not None and mcp_path.exists():
        config = _read(mcp_path)
        servers = config.get("mcpServers", {})
        if MCP_SERVER in servers:
            del servers[MCP_SERVER]
            if not servers:
                del config["mcpServers"]
            if config:
                _write(mcp_path, config)
            else:
                mcp_path.unlink()
            report.files.append(str(mcp_path))
    claude = settings_path.parent
    if scope == "project" and claude.exists() and not any(claude.iterdir()):
        claude.rmdir()
    forget_server(EVERY_TREE if scope == "user" else str(root))
    return report
