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
equals the file as it was before the install, it comes back byte for byte.

Every file is read and its new content decided before the first is written (`_Files`): a file
that is a symbolic link (or, in a project, sits in a linked folder), or whose shape is not what
the harness reads (not JSON, `hooks` that is no object of lists, `mcpServers` that is no object,
TOML that does not parse or already defines our server, section markers out of order), stops
the command with a message naming the file, and nothing is written."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import stat
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
   `trace_calls` for what a function reaches or what reaches it; `find_path` between two
   symbols.
3. `explain` for a symbol's last commits, owners and what usually changes with it.
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
- who wrote a function, who knows it, what usually changes with it → `explain`;
- before you finish → `impact` with your diff: what breaks, the tests to run, whom to ask.
When working with others: `start_session`, `claim_file` before you edit a file (someone else's
claim means: work on something else); claims end with their session, which ends when it has
been silent for 15 minutes (the MCP server's `team` profile has `heartbeat` to keep it and
`end_session` to end it at once). On a team server, send each file you change with
`overlay_edit` and pass your session to the read tools (`session`): they then see your edits,
which nobody else sees until you push. Grep is for text the graph does not hold (messages,
comments, configuration); open a file before you edit it.
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


class _Files:
    """The files an install or uninstall changes, decided in full before the first is
    written: a symbolic link on the way to one, or a file of a shape Cartograph does not know
    (not JSON, `hooks` that is no object, markers out of order, TOML that would not parse),
    stops it with an Invalid that says which file and why, and nothing written. Each file is
    then replaced whole (a new file renamed over it), so a link appearing meanwhile is
    replaced, never written through."""

    def __init__(self, root: Path | None) -> None:
        self.root = root  # the project's folder (project scope): no link from it to a file
        self.pending: dict[Path, bytes | None] = {}  # None: removed

    def check(self, path: Path) -> Path:
        if path.is_symlink():
            raise Invalid(
                f"{path} is a symbolic link (to {os.readlink(path)}): Cartograph does not write "
                "through links; put the file itself in its place, or add the entries by hand"
            )
        if self.root is not None and self.root in path.parents:
            folder = self.root
            for part in path.relative_to(self.root).parts[:-1]:
                folder = folder / part
                if folder.is_symlink():
                    raise Invalid(
                        f"{folder} is a symbolic link (to {os.readlink(folder)}): Cartograph "
                        "writes a project's settings only inside the project"
                    )
        if path.exists() and not path.is_file():
            raise Invalid(f"{path} is not a file")
        return path

    def raw(self, path: Path) -> bytes | None:
        """The file's bytes as they will be (None: there is none)."""
        if path in self.pending:
            return self.pending[path]
        self.check(path)
        if not path.exists():
            return None
        try:
            return path.read_bytes()
        except OSError as exc:
            raise Invalid(f"cannot read {path}: {exc.strerror or exc}") from None

    def text(self, path: Path) -> str | None:
        data = self.raw(path)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid(f"{path} is not UTF-8 text; fix it before installing hooks") from None

    def json(self, path: Path) -> dict[str, Any]:
        text = self.text(path)
        try:
            data = json.loads(text or "{}")
        except (ValueError, RecursionError) as exc:
            raise Invalid(f"{path} is not JSON ({exc}); fix it before installing hooks") from None
        if not isinstance(data, dict):
            raise Invalid(f"{path} does not hold a JSON object; fix it or move it aside")
        return data

    def put(self, path: Path, data: str | bytes) -> None:
        self.check(path)
        self.pending[path] = data.encode("utf-8") if isinstance(data, str) else data

    def put_json(self, path: Path, data: dict[str, Any]) -> None:
        self.put(path, json.dumps(data, indent=2) + "\n")

    def remove(self, path: Path) -> None:
        self.check(path)
        self.pending[path] = None

    def exists(self, path: Path) -> bool:
        return self.raw(path) is not None

    def commit(self) -> None:
        for path, data in self.pending.items():
            self.check(path)
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                _replace(path, data)


def _replace(path: Path, data: bytes) -> None:
    """Write `path` whole: a new file beside it (its mode, or the default one), renamed over
    it."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    temporary = path.with_name(f".{path.name}.{os.getpid()}.cartograph")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _hook_groups(settings_path: Path, settings: dict[str, Any]) -> dict[str, list[Any]]:
    """The settings' `hooks` (an object whose values are lists), else Invalid."""
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise Invalid(
            f"{settings_path}: `hooks` is {_shape(hooks)}, not an object of events; fix it or "
            "move it aside (nothing was written)"
        )
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise Invalid(
                f"{settings_path}: `hooks.{event}` is {_shape(groups)}, not a list of hook "
                "groups; fix it or move it aside (nothing was written)"
            )
    return hooks


def _mcp_servers(path: Path, config: dict[str, Any]) -> dict[str, Any]:
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise Invalid(
            f"{path}: `mcpServers` is {_shape(servers)}, not an object; fix it or move it aside "
            "(nothing was written)"
        )
    return servers


def _shape(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false"}.get(
        type(value), "null" if value is None else "a number"
    )


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
    files = _Files(root if scope == "project" else None)
    if agent == "claude":
        report = _install_claude(files, root, scope, exe, store_url, mcp)
    elif agent == "gemini":
        report = _install_gemini(files, root, scope, exe, store_url, mcp)
    elif agent == "cursor":
        report = _install_cursor(files, root, scope, mcp)
    else:
        report = _install_codex(files, root, scope, server, exe, store_url)
    files.commit()
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
    files = _Files(root if scope == "project" else None)
    emptied: list[Path] = []  # folders removed when the files are gone
    if agent == "claude":
        settings, agents, mcp_path = _claude_places(root, scope)
        report = HookInstall(agent, scope, str(settings))
        _remove_hooks(files, settings, report)
        explorer = agents / EXPLORER_FILE
        if files.exists(explorer):
            if files.text(explorer) == EXPLORER_AGENT:
                files.remove(explorer)
                report.files.append(str(explorer))
                emptied.append(agents)
            else:
                report.notes.append(f"{explorer} was edited since it was installed: left in place")
        if mcp_path is not None:
            _remove_mcp(files, mcp_path, report)
        emptied.append(settings.parent)
    elif agent == "gemini":
        settings = _gemini_settings(root, scope)
        report = HookInstall(agent, scope, str(settings))
        _remove_mcp(files, settings, report, settings_file=True)
        _remove_hooks(files, settings, report)
        if scope == "project":
            _remove_section(files, root / "GEMINI.md", BEGIN, END, report)
        emptied.append(settings.parent)
    elif agent == "cursor":
        folder = root / ".cursor" if scope == "project" else _home("CURSOR_HOME", ".cursor")
        report = HookInstall(agent, scope, str(folder / "mcp.json"))
        _remove_mcp(files, folder / "mcp.json", report)
        rules = folder / "rules" / "cartograph.mdc"
        if files.exists(rules):
            files.remove(rules)
            report.files.append(str(rules))
        emptied += [rules.parent, folder]
    else:
        config = _home("CODEX_HOME", ".codex") / "config.toml"
        report = HookInstall(agent, scope, str(config))
        _remove_section(files, config, TOML_BEGIN, TOML_END, report)
        if scope == "project":
            _remove_section(files, root / "AGENTS.md", BEGIN, END, report)
    files.commit()
    for folder in emptied:
        _remove_empty(folder)
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
    files: _Files, root: Path, scope: str, exe: str, store_url: str | None, mcp: dict[str, Any]
) -> HookInstall:
    settings, agents, mcp_path = _claude_places(root, scope)
    report = HookInstall("claude", scope, str(settings))
    _merge_hooks(files, settings, protocol.HOOKS, exe, store_url, "", 1, report)
    files.put(agents / EXPLORER_FILE, EXPLORER_AGENT)
    report.files.append(str(agents / EXPLORER_FILE))
    if mcp_path is not None:
        _merge_mcp(files, mcp_path, mcp, report)
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
    files: _Files, root: Path, scope: str, exe: str, store_url: str | None, mcp: dict[str, Any]
) -> HookInstall:
    settings = _gemini_settings(root, scope)
    report = HookInstall("gemini", scope, str(settings))
    _merge_hooks(files, settings, protocol.GEMINI_HOOKS, exe, store_url, " --harness gemini",
                 1000, report)  # fmt: skip
    _merge_mcp(files, settings, _gemini_mcp(mcp), report, settings_file=True)
    if scope == "project":
        _write_section(files, root / "GEMINI.md", BEGIN, END, RULES, report)
    return report


def _gemini_mcp(entry: dict[str, Any]) -> dict[str, Any]:
    if entry.get("type") == "http":  # Gemini CLI names a streamable HTTP server `httpUrl`
        return {"httpUrl": entry["url"], "headers": entry["headers"]}
    return entry


# ---------------------------------------------------------------- Cursor and Codex


def _install_cursor(files: _Files, root: Path, scope: str, mcp: dict[str, Any]) -> HookInstall:
    folder = root / ".cursor" if scope == "project" else _home("CURSOR_HOME", ".cursor")
    report = HookInstall("cursor", scope, str(folder / "mcp.json"))
    _merge_mcp(files, folder / "mcp.json", mcp, report)
    rules = folder / "rules" / "cartograph.mdc"
    files.put(
        rules,
        "---\ndescription: Use Cartograph's code graph before text search\nalwaysApply: true\n"
        "---\n" + RULES,
    )
    report.files.append(str(rules))
    report.notes.append(
        "Cursor's hooks can neither add context nor refuse an edit before it happens: claims "
        "are checked by the server (record_activity refuses an edit another session holds)"
    )
    return report


def _install_codex(
    files: _Files, root: Path, scope: str, server: str | None, exe: str, store_url: str | None
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
    _write_section(files, config, TOML_BEGIN, TOML_END, table, report, toml_table=MCP_SERVER)
    if scope == "project":
        _write_section(files, root / "AGENTS.md", BEGIN, END, RULES, report)
    return report


# ---------------------------------------------------------------- merging and removing


def _merge_hooks(
    files: _Files,
    settings_path: Path,
    table: tuple[protocol.Hook, ...],
    exe: str,
    store_url: str | None,
    suffix: str,
    timeout_unit: int,
    report: HookInstall,
) -> None:
    settings = files.json(settings_path)
    hooks = _hook_groups(settings_path, settings)
    backup = _backup_file(settings_path)
    if not backup.exists() and not any(_is_ours(g) for groups in hooks.values() for g in groups):
        files.put(backup, files.raw(settings_path) or b"")
    store_part = f" --store {shlex.quote(store_url)}" if store_url else ""
    settings["hooks"] = hooks
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
    files.put_json(settings_path, settings)


def _remove_hooks(files: _Files, settings_path: Path, report: HookInstall) -> None:
    exists = files.exists(settings_path)
    settings = files.json(settings_path) if exists else {}
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
    original = backup.read_bytes() if backup.exists() and not backup.is_symlink() else None
    if original is not None and settings == _json_or_none(original):
        if original:
            files.put(settings_path, original)
        elif exists:
            files.remove(settings_path)
        files.remove(backup)
    elif exists and settings:
        files.put_json(settings_path, settings)
    elif exists:
        files.remove(settings_path)


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data) if data.strip() else {}
    except (ValueError, RecursionError):
        return None


def _merge_mcp(
    files: _Files,
    path: Path,
    entry: dict[str, Any],
    report: HookInstall,
    settings_file: bool = False,
) -> None:
    config = files.json(path)
    config["mcpServers"] = {**_mcp_servers(path, config), MCP_SERVER: entry}
    files.put_json(path, config)
    if not settings_file:
        report.files.append(str(path))


def _remove_mcp(
    files: _Files, path: Path, report: HookInstall, settings_file: bool = False
) -> None:
    if not files.exists(path):
        return
    config = files.json(path)
    servers = config.get("mcpServers")
    if not isinstance(servers, dict) or MCP_SERVER not in servers:
        return
    del servers[MCP_SERVER]
    if not servers:
        del config["mcpServers"]
    if config or settings_file:
        files.put_json(path, config)
    else:
        files.remove(path)
    if not settings_file:
        report.files.append(str(path))


def _section(path: Path, old: str, begin: str, end: str) -> tuple[int, int] | None:
    """Where our section of `old` is (from its begin marker to past its end marker), None
    when it has none; Invalid when its markers are not one begin followed by one end."""
    count = (old.count(begin), old.count(end))
    if count == (0, 0):
        return None
    start = old.find(begin)
    stop = old.find(end, start) + len(end)
    if count != (1, 1) or stop < len(end) + start:
        raise Invalid(
            f"{path} holds Cartograph's markers ({begin!r}, {end!r}) {count[0]} and {count[1]} "
            "times or out of order: put them right, or take them out, by hand (nothing was "
            "written)"
        )
    return start, stop


def _write_section(
    files: _Files,
    path: Path,
    begin: str,
    end: str,
    text: str,
    report: HookInstall,
    toml_table: str = "",
) -> None:
    """Our section of a shared file (between marker lines): replaced, or appended. With
    `toml_table` the file is TOML whose `mcp_servers.<toml_table>` only our section defines."""
    old = files.text(path) or ""
    section = f"{begin}\n{text.rstrip()}\n{end}\n"
    found = _section(path, old, begin, end)
    if found is not None:
        start, stop = found
        new = old[:start] + section.rstrip("\n") + old[stop:]
    else:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + section if old else section
    if toml_table:
        _check_toml(path, old, new, begin, end, toml_table)
    files.put(path, new)
    report.files.append(str(path))


def _check_toml(path: Path, old: str, new: str, begin: str, end: str, table: str) -> None:
    """The TOML file before and after our section went in: it was TOML, it still is, and only
    our section defines `mcp_servers.<table>`."""
    import tomllib

    found = _section(path, old, begin, end)
    theirs = old[: found[0]] + old[found[1] :] if found else old
    try:
        mcp = tomllib.loads(theirs).get("mcp_servers", {})
    except tomllib.TOMLDecodeError as exc:
        raise Invalid(f"{path} is not TOML ({exc}); fix it before installing") from None
    if not isinstance(mcp, dict) or table in mcp:
        raise Invalid(
            f"{path} already defines `mcp_servers.{table}` (or `mcp_servers` is no table) "
            "outside Cartograph's section: take it out, or keep it and skip this install "
            "(nothing was written)"
        )
    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise Invalid(
            f"{path} would not be TOML with Cartograph's section in it ({exc}): fix it by hand "
            "(nothing was written)"
        ) from None


def _remove_section(files: _Files, path: Path, begin: str, end: str, report: HookInstall) -> None:
    old = files.text(path)
    found = _section(path, old, begin, end) if old is not None else None
    if old is None or found is None:
        return
    start, stop = found
    before, after = old[:start], old[stop:].removeprefix("\n")
    if before.endswith("\n\n"):
        before = before[:-1]
    new = before + after
    if new.strip():
        files.put(path, new)
    else:
        files.remove(path)
    report.files.append(str(path))


def _remove_empty(folder: Path) -> None:
    if not folder.is_symlink() and folder.is_dir() and not any(folder.iterdir()):
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
