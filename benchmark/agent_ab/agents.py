"""Agent adapters: how to start a headless agent CLI on a prompt, which stream format it
writes, and how Cartograph is wired into it (`cartograph hooks install --agent ...`).

Each adapter is a command builder; the stream parsers are in `streams`. An adapter's binary
can be replaced (`--agent-command PATH`): a team's own build or wrapper of the same CLI, or a
fake that replays recorded streams. Extra arguments (`--agent-arg`) are added before the
prompt.

- claude: `claude -p PROMPT --output-format stream-json --verbose --permission-mode
  bypassPermissions --strict-mcp-config`, plus `--mcp-config .mcp.json` in the Cartograph arm
  (the file `hooks install` wrote; the hooks it merged into .claude/settings.json are read by
  Claude Code from the project). `--strict-mcp-config` keeps the user's other MCP servers out
  of both arms.
- codex: `codex exec --json --sandbox workspace-write --skip-git-repo-check -C TREE PROMPT`.
  Codex reads its MCP servers from $CODEX_HOME/config.toml, so each run gets a CODEX_HOME of
  its own: a copy of the user's config.toml (without a Cartograph section) and auth.json; in
  the Cartograph arm `hooks install --agent codex` adds the server to that copy and the rules
  to the tree's AGENTS.md.
- gemini: `gemini -p PROMPT --output-format stream-json --yolo`; `hooks install --agent
  gemini` writes .gemini/settings.json (hooks and MCP server) and GEMINI.md in the tree.
- command: any executable (`--agent-command`, split like a shell command line; `{prompt}` in
  it is replaced by the prompt, else the prompt is the last argument), writing the stream
  format `--stream-format` names; `--hooks-agent` says which harness's wiring the Cartograph
  arm installs (default: the stream format's agent, `none` for none)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchmark.agent_ab.streams import FORMATS

HOOK_AGENTS = ("claude", "codex", "gemini", "cursor")
CODEX_SECTION = re.compile(r"# cartograph: begin\n.*?# cartograph: end\n?", re.DOTALL)


@dataclass(frozen=True)
class RunContext:
    """What an adapter needs to build one run's command."""

    prompt: str
    tree: Path
    state: Path  # the run's own folder outside the tree (store, data, CODEX_HOME)
    cartograph: bool  # the Cartograph arm


@dataclass(frozen=True)
class Adapter:
    name: str
    command: tuple[str, ...]  # the binary (and fixed words) to start
    stream_format: str
    hooks_agent: str | None  # `cartograph hooks install --agent X` in the Cartograph arm
    extra_args: tuple[str, ...] = ()

    def argv(self, run: RunContext) -> list[str]:
        """The command line of one run."""
        head = list(self.command)
        extra = list(self.extra_args)
        if self.name == "claude":
            argv = [*head, "-p", run.prompt, "--output-format", "stream-json", "--verbose",
                    "--permission-mode", "bypassPermissions", "--strict-mcp-config"]  # fmt: skip
            if run.cartograph:
                argv += ["--mcp-config", str(run.tree / ".mcp.json")]
            return argv + extra
        if self.name == "codex":
            return [*head, "exec", "--json", "--sandbox", "workspace-write",
                    "--skip-git-repo-check", "-C", str(run.tree), *extra, run.prompt]  # fmt: skip
        if self.name == "gemini":
            return [*head, "-p", run.prompt, "--output-format", "stream-json", "--yolo", *extra]
        if any("{prompt}" in word for word in head):
            return [word.replace("{prompt}", run.prompt) for word in head] + extra
        return [*head, *extra, run.prompt]

    def environment(self, run: RunContext) -> dict[str, str]:
        """Variables the run adds to the harness's environment."""
        if self.hooks_agent != "codex":
            return {}
        return {"CODEX_HOME": str(codex_home(run.state))}

    def prepare(self, run: RunContext) -> None:
        """Set-up of both arms before Cartograph's wiring (a CODEX_HOME of the run's own)."""
        if self.hooks_agent == "codex":
            home = codex_home(run.state)
            home.mkdir(parents=True, exist_ok=True)
            user_home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
            for name in ("auth.json", "config.toml"):
                source = user_home / name
                if source.is_file():
                    text = source.read_text(encoding="utf-8")
                    if name == "config.toml":
                        text = CODEX_SECTION.sub("", text)
                    (home / name).write_text(text, encoding="utf-8")


def codex_home(state: Path) -> Path:
    return state / "codex-home"


DEFAULT_BINARIES = {"claude": "claude", "codex": "codex", "gemini": "gemini"}
AGENTS = (*DEFAULT_BINARIES, "command")


def make_adapter(
    agent: str,
    agent_command: str | None = None,
    stream_format: str | None = None,
    hooks_agent: str | None = None,
    extra_args: tuple[str, ...] = (),
) -> Adapter:
    """The adapter for `agent` (AGENTS); ValueError when the options do not fit."""
    if agent not in AGENTS:
        raise ValueError(f"agent {agent!r}: one of {', '.join(AGENTS)}")
    if agent == "command":
        if not agent_command:
            raise ValueError("--agent command needs --agent-command")
        stream_format = stream_format or "none"
        if stream_format not in FORMATS:
            raise ValueError(f"--stream-format: one of {', '.join(FORMATS)}")
        default_hooks = stream_format if stream_format in HOOK_AGENTS else None
    else:
        if stream_format not in (None, agent):
            raise ValueError(f"--stream-format: the {agent} adapter reads {agent}'s stream")
        stream_format = agent
        default_hooks = agent
    if hooks_agent is None:
        chosen_hooks = default_hooks
    elif hooks_agent == "none":
        chosen_hooks = None
    elif hooks_agent in HOOK_AGENTS:
        chosen_hooks = hooks_agent
    else:
        raise ValueError(f"--hooks-agent: one of {', '.join(HOOK_AGENTS)} or none")
    command = tuple(shlex.split(agent_command)) if agent_command else (DEFAULT_BINARIES[agent],)
    return Adapter(agent, command, stream_format, chosen_hooks, tuple(extra_args))


def find_binary(adapter: Adapter) -> str | None:
    """The adapter's executable as found on PATH (or the path given), None when missing."""
    binary = adapter.command[0]
    if os.sep in binary:
        return binary if os.access(binary, os.X_OK) else None
    return shutil.which(binary)
