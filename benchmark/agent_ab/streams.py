"""Reading an agent's output stream into the figures the harness compares.

Formats (what each CLI writes on stdout, one JSON object a line):

- `claude` — Claude Code's `-p --output-format stream-json --verbose`: `system` (init), then
  `assistant` messages whose `message.content` holds `text` and `tool_use` blocks
  ({name, input}) and whose `message.usage` is the model call's, `user` messages carrying
  the `tool_result`s, and a closing `result` ({usage: input_tokens, output_tokens,
  cache_read_input_tokens, cache_creation_input_tokens}, num_turns, is_error, subtype,
  result: the final answer, total_cost_usd). The result's usage is the whole session's; the
  messages of one model call share an id and its usage, counted once when the stream is cut
  off before its result. Subagents' messages are in the same stream.
- `codex` — `codex exec --json`: thread.started, turn.started, item.started / item.updated /
  item.completed (items: agent_message, reasoning, command_execution {command, exit_code},
  file_change {changes: [{path, kind}]}, mcp_tool_call {server, tool, arguments},
  web_search, todo_list, error), turn.completed {usage: input_tokens, cached_input_tokens,
  output_tokens}, turn.failed, error.
- `gemini` — Gemini CLI's `--output-format stream-json`: init, message {role, content,
  delta}, tool_use {tool_name, tool_id, parameters}, tool_result {tool_id, status, output},
  error, result {status, stats: input_tokens, output_tokens, cached, input, tool_calls}.
  Its `--output-format json` (one object: response, stats) is read too.
- `none` — no stream: the whole stdout is the final answer.

Tokens are kept apart: `input` (not read from a cache), `cache_read`, `cache_creation`,
`output`; their sum is `total`. Codex and Gemini report input including the cached part,
which is taken out. Turns: Claude's `num_turns`; for Codex and Gemini, which do not report
them, the number of model responses — a response starts at the first model output (a message
or a tool call) after the prompt or after a tool's result.

Tool calls are counted by the tool's name (Claude's and Gemini's own names; Codex's items as
`shell`, `apply_patch`, `mcp__<server>__<tool>`, `web_search`). A call is a *search* when it
is Grep or Glob (Gemini: glob, grep, search_file_content) or a shell command running grep, rg,
ag, ack, find, fd or git grep; a *read* when it is Read (Gemini: read_file, read_many_files)
or a shell command printing files (cat, head, tail, nl, less, more, bat, sed/awk without
-i); an *edit* when it is Edit, MultiEdit, Write, NotebookEdit (Gemini: replace, write_file),
a Codex file change, or a shell `sed -i` / `apply_patch`. A *Cartograph call* is a call to
the `cartograph` MCP server's tools, or a shell command running `cartograph`."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

FORMATS = ("claude", "codex", "gemini", "none")

CLAUDE_SEARCH = {"Grep", "Glob"}
CLAUDE_READ = {"Read", "NotebookRead"}
CLAUDE_EDIT = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
GEMINI_SEARCH = {"glob", "grep", "search_file_content", "grep_search"}
GEMINI_READ = {"read_file", "read_many_files"}
GEMINI_EDIT = {"replace", "edit", "write_file"}
SHELL_SEARCH = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind"}
SHELL_READ = {"cat", "head", "tail", "nl", "less", "more", "bat", "batcat", "sed", "awk"}
SHELLS = {"bash", "sh", "zsh", "dash"}
WRAPPERS = {"sudo", "time", "nice", "env", "command", "exec", "nohup"}
CONTROL = {"|", "||", "&&", ";", "&", "(", ")", "|&"}
REDIRECTS = {">", ">>", "<", "<<", "<<<", "2>", "2>>", "&>", ">&"}
# options whose value is the next word, by program (`head -n 20 FILE`)
OPTIONS_WITH_VALUE = {
    "head": {"-n", "-c", "--lines", "--bytes"},
    "tail": {"-n", "-c", "--lines", "--bytes"},
    "sed": {"-e", "-f", "--expression", "--file"},
    "awk": {"-f", "-v", "-F"},
}
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$", re.MULTILINE)
CARTOGRAPH_PREFIXES = ("mcp__cartograph__", "mcp_cartograph_", "cartograph__", "cartograph.")


@dataclass
class StreamMetrics:
    """What one run's stream says."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    turns: int = 0
    tool_calls: Counter[str] = field(default_factory=Counter)
    grep_calls: int = 0
    read_calls: int = 0
    edit_calls: int = 0
    files_read: list[str] = field(default_factory=list)
    files_edited: list[str] = field(default_factory=list)
    cartograph_calls: Counter[str] = field(default_factory=Counter)
    final_answer: str = ""
    cost_usd: float | None = None  # the agent's own estimate (Claude's total_cost_usd)
    is_error: bool = False
    error: str = ""
    finished: bool = False  # the stream's closing event (result / turn.completed) arrived
    lines: int = 0
    unreadable_lines: int = 0

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_creation_tokens
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "tokens": {
                "input": self.input_tokens,
                "output": self.output_tokens,
                "cache_read": self.cache_read_tokens,
                "cache_creation": self.cache_creation_tokens,
                "total": self.total_tokens,
            },
            "turns": self.turns,
            "tool_calls": dict(sorted(self.tool_calls.items())),
            "tool_calls_total": sum(self.tool_calls.values()),
            "grep_calls": self.grep_calls,
            "read_calls": self.read_calls,
            "edit_calls": self.edit_calls,
            "files_read": self.files_read,
            "files_edited": self.files_edited,
            "cartograph_calls": dict(sorted(self.cartograph_calls.items())),
            "cartograph_calls_total": sum(self.cartograph_calls.values()),
            "cost_usd": self.cost_usd,
            "is_error": self.is_error,
            "error": self.error,
            "stream_finished": self.finished,
            "stream_lines": self.lines,
            "unreadable_lines": self.unreadable_lines,
        }


class _Recorder:
    """Adds one tool call's effects to the metrics, paths made relative to the tree."""

    def __init__(self, metrics: StreamMetrics, root: Path | None) -> None:
        self.metrics = metrics
        self.root = root

    def path(self, value: Any) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return None
        return relative_path(value.strip(), self.root)

    def call(self, name: str, bare_names: bool = False) -> None:
        self.metrics.tool_calls[name] += 1
        tool = cartograph_tool(name, bare_names)
        if tool is not None:
            self.metrics.cartograph_calls[tool] += 1

    def search(self) -> None:
        self.metrics.grep_calls += 1

    def read(self, paths: Iterable[Any]) -> None:
        self.metrics.read_calls += 1
        _add_unique(self.metrics.files_read, (self.path(p) for p in paths))

    def edit(self, paths: Iterable[Any]) -> None:
        self.metrics.edit_calls += 1
        _add_unique(self.metrics.files_edited, (self.path(p) for p in paths))

    def shell(self, command: Any) -> None:
        effects = shell_effects(command if isinstance(command, str) else _joined(command))
        if effects.searched:
            self.search()
        if effects.read:
            self.read(effects.read)
        if effects.edited:
            self.edit(effects.edited)
        for sub in effects.cartograph:
            self.metrics.cartograph_calls[f"cli:{sub}"] += 1


def _joined(command: Any) -> str:
    if isinstance(command, list):
        return shlex.join(str(part) for part in command)
    return str(command or "")


def _add_unique(target: list[str], values: Iterable[str | None]) -> None:
    for value in values:
        if value and value not in target:
            target.append(value)


def relative_path(path: str, root: Path | None) -> str:
    """`path` relative to the tree when it is inside it, as posix; others normalised."""
    if root is not None and os.path.isabs(path):
        try:
            path = os.path.relpath(path, root)
        except ValueError:
            return path
        if path.startswith(".."):
            return os.path.normpath(os.path.join(root, path))
    return str(PurePosixPath(os.path.normpath(path)))


@lru_cache(maxsize=1)
def cartograph_tool_names() -> frozenset[str]:
    """The MCP tool names of Cartograph's catalogue."""
    from cartograph.operations import CATALOGUE

    return frozenset(op.mcp for op in CATALOGUE if op.mcp)


def cartograph_tool(name: str, bare_names: bool = False) -> str | None:
    """The Cartograph tool a tool name calls (`mcp__cartograph__locate` -> `locate`), None
    for another tool. `bare_names`: a name of the catalogue alone counts too (Gemini CLI
    names an MCP tool by its own name when no other tool has it)."""
    for prefix in CARTOGRAPH_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    if bare_names and name in cartograph_tool_names():
        return name
    return None


# ---------------------------------------------------------------------------- shell commands


@dataclass
class ShellEffects:
    searched: bool = False
    read: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    cartograph: list[str] = field(default_factory=list)  # `cartograph SUBCOMMAND` run


def shell_effects(command: str) -> ShellEffects:
    """What a shell command line does that the harness counts: searches, files it prints,
    files it edits in place (sed -i, apply_patch), Cartograph commands."""
    effects = ShellEffects()
    patched = PATCH_FILE.findall(command)
    if patched or re.search(r"(^|[\s;&|'\"])apply_patch\b", command):
        effects.edited.extend(patched)
    for words in _simple_commands(command):
        _classify(words, effects)
    return effects


def _simple_commands(script: str, depth: int = 0) -> list[list[str]]:
    """The simple commands of a script (split at pipes, ;, &&, ||, newlines), a `bash -c`
    script unwrapped."""
    out: list[list[str]] = []
    for line in _logical_lines(script):
        current: list[str] = []
        for token in line:
            if token in CONTROL:
                if current:
                    out.append(current)
                current = []
            else:
                current.append(token)
        if current:
            out.append(current)
    unwrapped: list[list[str]] = []
    for words in out:
        inner = _shell_script(words)
        if inner is not None and depth < 3:
            unwrapped.extend(_simple_commands(inner, depth + 1))
        else:
            unwrapped.append(words)
    return unwrapped


def _logical_lines(script: str) -> list[list[str]]:
    """The tokens of each line (a quoted string spanning lines keeps the script whole)."""
    try:
        return [_tokens(line) for line in script.splitlines() if line.strip()]
    except ValueError:
        try:
            return [_tokens(script)]
        except ValueError:
            return [script.split()]


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _shell_script(words: list[str]) -> str | None:
    """The script of `bash -c SCRIPT` / `bash -lc SCRIPT`, None for another command."""
    if not words or PurePosixPath(words[0]).name not in SHELLS:
        return None
    for index, word in enumerate(words[1:-1], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return words[index + 1]
    return None


def _classify(words: list[str], effects: ShellEffects) -> None:
    words = _without_redirects(words)
    while words and ("=" in words[0] and not words[0].startswith("-")):
        words = words[1:]  # VAR=value before the command
    while words and PurePosixPath(words[0]).name in WRAPPERS:
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if words and words[0] == "timeout":
        words = words[2:]
    if words and PurePosixPath(words[0]).name == "xargs":
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if not words:
        return
    program = PurePosixPath(words[0]).name
    arguments = words[1:]
    if program in SHELL_SEARCH or (program == "git" and arguments[:1] == ["grep"]):
        effects.searched = True
    elif program == "cartograph":
        sub = next((a for a in arguments if not a.startswith("-")), "")
        effects.cartograph.append(sub or "?")
    elif program in ("sed", "awk"):
        in_place = any(a == "--in-place" or re.fullmatch(r"-i\S*", a) for a in arguments)
        files = _operands(program, arguments)
        if not set(arguments) & {"-e", "-f", "--expression", "--file"}:
            files = files[1:]  # the first operand is the script
        if in_place:
            effects.edited.extend(files)
        else:
            effects.read.extend(files)
    elif program in SHELL_READ:
        effects.read.extend(_operands(program, arguments))


def _without_redirects(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in REDIRECTS or (word.endswith(">") and word.rstrip(">&12") == ""):
            skip = True
            continue
        kept.append(word)
    return kept


def _operands(program: str, arguments: list[str]) -> list[str]:
    """The non-option arguments (an option's value, `-n 20`, is no operand; nor a number)."""
    operands: list[str] = []
    takes_value = OPTIONS_WITH_VALUE.get(program, set())
    skip = False
    for word in arguments:
        if skip:
            skip = False
            continue
        if word in takes_value:
            skip = True
            continue
        if word.startswith("-") or word.isdigit() or not word:
            continue
        operands.append(word)
    return operands


# ---------------------------------------------------------------------------- the formats


def parse_stream(format: str, lines: Iterable[str], root: Path | None = None) -> StreamMetrics:
    """The metrics of a stream of `format` (FORMATS); `root`: the tree the agent worked in
    (absolute paths under it are made relative)."""
    if format not in PARSERS:
        raise ValueError(f"stream format {format!r}: one of {', '.join(FORMATS)}")
    return PARSERS[format](list(lines), root)


def _events(lines: list[str], metrics: StreamMetrics) -> Iterable[dict[str, Any]]:
    for line in lines:
        line = line.strip()
        if not line:
            continue
        metrics.lines += 1
        try:
            event = json.loads(line)
        except ValueError:
            metrics.unreadable_lines += 1
            continue
        if isinstance(event, dict):
            yield event
        else:
            metrics.unreadable_lines += 1


def _number(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def parse_claude(lines: list[str], root: Path | None) -> StreamMetrics:
    metrics = StreamMetrics()
    record = _Recorder(metrics, root)
    usage_by_message: dict[str, dict[str, Any]] = {}
    last_text = ""
    result: dict[str, Any] | None = None
    for event in _events(lines, metrics):
        kind = event.get("type")
        if kind == "assistant":
            message = event.get("message") or {}
            if isinstance(message.get("usage"), dict):
                key = str(message.get("id") or f"line-{metrics.lines}")
                usage_by_message[key] = message["usage"]
            for block in message.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and block.get("text"):
                    last_text = str(block["text"])
                elif block.get("type") == "tool_use":
                    _claude_tool(record, str(block.get("name") or "?"), block.get("input") or {})
        elif kind == "result":
            result = event
    if result is not None:
        metrics.finished = True
        usage = result.get("usage") or {}
        _claude_usage(metrics, usage)
        metrics.turns = _number(result.get("num_turns"))
        cost = result.get("total_cost_usd")
        metrics.cost_usd = float(cost) if isinstance(cost, int | float) else None
        metrics.is_error = bool(result.get("is_error")) or str(
            result.get("subtype") or ""
        ).startswith("error")
        if metrics.is_error:
            metrics.error = str(result.get("subtype") or result.get("result") or "error")[:500]
        answer = result.get("result")
        metrics.final_answer = answer if isinstance(answer, str) else last_text
    else:  # cut off (a timeout): what the messages said so far
        for usage in usage_by_message.values():
            _claude_usage(metrics, usage)
        metrics.turns = len(usage_by_message)
        metrics.final_answer = last_text
    return metrics


def _claude_usage(metrics: StreamMetrics, usage: dict[str, Any]) -> None:
    metrics.input_tokens += _number(usage.get("input_tokens"))
    metrics.output_tokens += _number(usage.get("output_tokens"))
    metrics.cache_read_tokens += _number(usage.get("cache_read_input_tokens"))
    metrics.cache_creation_tokens += _number(usage.get("cache_creation_input_tokens"))


def _claude_tool(record: _Recorder, name: str, arguments: Any) -> None:
    arguments = arguments if isinstance(arguments, dict) else {}
    record.call(name)
    if name in CLAUDE_SEARCH:
        record.search()
    elif name in CLAUDE_READ:
        record.read([arguments.get("file_path") or arguments.get("notebook_path")])
    elif name in CLAUDE_EDIT:
        record.edit([arguments.get("file_path") or arguments.get("notebook_path")])
    elif name == "Bash":
        record.shell(arguments.get("command"))


CODEX_TOOL_ITEMS = {"command_execution", "file_change", "mcp_tool_call", "web_search"}


def parse_codex(lines: list[str], root: Path | None) -> StreamMetrics:
    metrics = StreamMetrics()
    record = _Recorder(metrics, root)
    items: dict[str, dict[str, Any]] = {}  # tool items by id, as last seen
    order: list[str] = []
    awaiting_model = True
    for event in _events(lines, metrics):
        kind = event.get("type")
        item = event.get("item") if isinstance(event.get("item"), dict) else None
        if kind in ("item.started", "item.updated", "item.completed") and item is not None:
            item_type = item.get("type")
            key = str(item.get("id") or f"line-{metrics.lines}")
            is_tool = item_type in CODEX_TOOL_ITEMS
            if (is_tool or item_type in ("agent_message", "reasoning")) and awaiting_model:
                metrics.turns += 1
                awaiting_model = False
            if is_tool:
                if key not in items:
                    order.append(key)
                items[key] = item
                if kind == "item.completed":
                    awaiting_model = True
            elif item_type == "agent_message" and kind == "item.completed":
                metrics.final_answer = str(item.get("text") or "")
        elif kind == "turn.completed":
            metrics.finished = True
            usage = event.get("usage") or {}
            cached = _number(usage.get("cached_input_tokens"))
            metrics.input_tokens += max(0, _number(usage.get("input_tokens")) - cached)
            metrics.cache_read_tokens += cached
            metrics.output_tokens += _number(usage.get("output_tokens"))
        elif kind in ("turn.failed", "error"):
            metrics.finished = metrics.finished or kind == "turn.failed"
            metrics.is_error = True
            error = event.get("error")
            details: dict[str, Any] = error if isinstance(error, dict) else event
            metrics.error = str(details.get("message") or kind)[:500]
    for key in order:
        _codex_item(record, items[key])
    return metrics


def _codex_item(record: _Recorder, item: dict[str, Any]) -> None:
    item_type = item.get("type")
    if item_type == "command_execution":
        record.call("shell")
        record.shell(item.get("command"))
    elif item_type == "file_change":
        record.call("apply_patch")
        changes = item.get("changes") or []
        record.edit(c.get("path") for c in changes if isinstance(c, dict))
    elif item_type == "mcp_tool_call":
        record.call(f"mcp__{item.get('server') or '?'}__{item.get('tool') or '?'}")
    else:
        record.call(str(item_type))


def parse_gemini(lines: list[str], root: Path | None) -> StreamMetrics:
    metrics = StreamMetrics()
    whole = "".join(lines).strip()
    if whole.startswith("{") and '"response"' in whole:
        try:
            single = json.loads(whole)
        except ValueError:
            single = None
        if isinstance(single, dict) and "response" in single:
            return _gemini_json(single, metrics)
    record = _Recorder(metrics, root)
    awaiting_model = True
    answer_parts: list[str] = []
    for event in _events(lines, metrics):
        kind = event.get("type")
        if kind == "message" and event.get("role") == "assistant":
            if awaiting_model:
                metrics.turns += 1
                awaiting_model = False
            answer_parts.append(str(event.get("content") or ""))
        elif kind == "tool_use":
            if awaiting_model:
                metrics.turns += 1
                awaiting_model = False
            _gemini_tool(record, str(event.get("tool_name") or "?"), event.get("parameters"))
        elif kind == "tool_result":
            awaiting_model = True
            answer_parts = []
        elif kind == "result":
            metrics.finished = True
            stats = event.get("stats") or {}
            cached = _number(stats.get("cached"))
            fresh = stats.get("input")
            metrics.input_tokens = (
                _number(fresh)
                if fresh is not None
                else max(0, _number(stats.get("input_tokens")) - cached)
            )
            metrics.cache_read_tokens = cached
            metrics.output_tokens = _number(stats.get("output_tokens"))
            if event.get("status") == "error":
                metrics.is_error = True
                error = event.get("error") or {}
                metrics.error = str(error.get("message") if isinstance(error, dict) else error)
    metrics.final_answer = "".join(answer_parts)
    return metrics


def _gemini_tool(record: _Recorder, name: str, parameters: Any) -> None:
    parameters = parameters if isinstance(parameters, dict) else {}
    record.call(name, bare_names=True)
    if name in GEMINI_SEARCH:
        record.search()
    elif name == "read_many_files":
        paths = parameters.get("paths") or []
        record.read(paths if isinstance(paths, list) else [paths])
    elif name in GEMINI_READ:
        record.read([parameters.get("absolute_path") or parameters.get("file_path")])
    elif name in GEMINI_EDIT:
        record.edit([parameters.get("file_path") or parameters.get("absolute_path")])
    elif name == "run_shell_command":
        record.shell(parameters.get("command"))


def _gemini_json(data: dict[str, Any], metrics: StreamMetrics) -> StreamMetrics:
    """`--output-format json`: the answer and the session's statistics (tokens per model,
    tool calls by name), no per-call detail."""
    metrics.finished = True
    metrics.lines = 1
    metrics.final_answer = str(data.get("response") or "")
    stats = data.get("stats") or {}
    for model in (stats.get("models") or {}).values():
        tokens = model.get("tokens") or {}
        cached = _number(tokens.get("cached"))
        metrics.input_tokens += max(0, _number(tokens.get("prompt")) - cached)
        metrics.cache_read_tokens += cached
        metrics.output_tokens += _number(tokens.get("candidates"))
        metrics.turns += _number((model.get("api") or {}).get("totalRequests"))
    for name, tool in ((stats.get("tools") or {}).get("byName") or {}).items():
        count = _number((tool or {}).get("count"))
        metrics.tool_calls[name] += count
        cartograph = cartograph_tool(name, bare_names=True)
        if cartograph is not None:
            metrics.cartograph_calls[cartograph] += count
        if name in GEMINI_SEARCH:
            metrics.grep_calls += count
        elif name in GEMINI_READ:
            metrics.read_calls += count
        elif name in GEMINI_EDIT:
            metrics.edit_calls += count
    if data.get("error"):
        metrics.is_error = True
        error = data["error"]
        metrics.error = str(error.get("message") if isinstance(error, dict) else error)
    return metrics


def parse_plain(lines: list[str], root: Path | None) -> StreamMetrics:
    metrics = StreamMetrics(finished=True)
    metrics.lines = len(lines)
    metrics.final_answer = "".join(lines)
    return metrics


PARSERS: dict[str, Callable[[list[str], Path | None], StreamMetrics]] = {
    "claude": parse_claude,
    "codex": parse_codex,
    "gemini": parse_gemini,
    "none": parse_plain,
}
