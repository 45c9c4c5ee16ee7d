"""What the harness sends and what it accepts back (Claude Code's hooks reference): every event
gets `session_id`, `cwd` and `hook_event_name` on stdin, plus its own fields (`source` for
SessionStart, `prompt` for UserPromptSubmit, `tool_name`/`tool_input` before a tool and
`tool_response` after it, `reason` at SessionEnd). An answer is one JSON object on stdout with
`hookSpecificOutput` naming the event; exit 0 always (a failing hook never blocks the agent).

This module is imported by every hook run: it imports nothing beyond the standard library."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

# the tools a matcher names (a regex over the tool's name, as Claude Code matches it)
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
SEARCH_TOOLS = ("Grep", "Glob", "Bash")
SUBAGENT_TOOLS = ("Task", "Agent")  # the tool that spawns subagents ("Task"; "Agent" in newer)
SESSION_SOURCES = ("startup", "resume", "clear", "compact")
EXPLORE_AGENT = "Explore"  # the harness's built-in exploring subagent
GRAPH_EXPLORER = "cartograph-explorer"  # ours (`install.EXPLORER_AGENT`)


class Hook(NamedTuple):
    """One hook Cartograph installs: the event, its matcher, the `cartograph hook` word."""

    event: str
    matcher: str | None
    command: str
    timeout: int  # seconds the harness waits before it gives up on the command


HOOKS = (
    Hook("SessionStart", "|".join(SESSION_SOURCES), "session-start", 15),
    Hook("UserPromptSubmit", None, "prompt", 15),
    Hook("PreToolUse", "|".join(EDIT_TOOLS), "pre-edit", 10),
    Hook("PostToolUse", "|".join(EDIT_TOOLS), "post-edit", 60),
    Hook("PreToolUse", "|".join(SUBAGENT_TOOLS), "pre-task", 5),
    Hook("PreToolUse", "|".join(SEARCH_TOOLS), "pre-search", 5),
    Hook("SessionEnd", None, "session-end", 15),
)
# Gemini CLI's hooks (its hooks reference): the same stdin/stdout JSON, its own event and tool
# names (`replace` edits, `write_file` writes, `run_shell_command` runs), timeouts in ms, and a
# denial said as {"decision": "deny", "reason": ...}; the answers are translated (`for_gemini`)
GEMINI_TOOLS = {
    "replace": "Edit",
    "write_file": "Write",
    "run_shell_command": "Bash",
    "search_file_content": "Grep",
    "grep": "Grep",
    "glob": "Glob",
}
GEMINI_EDITS = "replace|write_file"
GEMINI_HOOKS = (
    Hook("SessionStart", None, "session-start", 15),
    Hook("BeforeAgent", None, "prompt", 15),
    Hook("BeforeTool", GEMINI_EDITS, "pre-edit", 10),
    Hook("AfterTool", GEMINI_EDITS, "post-edit", 60),
    Hook("BeforeTool", "search_file_content|grep|glob|run_shell_command", "pre-search", 5),
    Hook("SessionEnd", None, "session-end", 15),
)
GEMINI_EVENTS = {hook.command: hook.event for hook in GEMINI_HOOKS}
HARNESSES = ("claude", "gemini")


def from_gemini(payload: dict[str, Any]) -> dict[str, Any]:
    """A Gemini CLI hook's input in Claude Code's names (tools; the rest is shared)."""
    tool = payload.get("tool_name")
    if isinstance(tool, str) and tool in GEMINI_TOOLS:
        return {**payload, "tool_name": GEMINI_TOOLS[tool]}
    return payload


def for_gemini(command: str, answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """An answer in Gemini CLI's form: a denial as `decision`, context under its event."""
    if answer is None:
        return None
    output = answer.get("hookSpecificOutput", {})
    if output.get("permissionDecision") == "deny":
        return {"decision": "deny", "reason": output.get("permissionDecisionReason", "")}
    if "additionalContext" in output:
        return {
            "hookSpecificOutput": {
                "hookEventName": GEMINI_EVENTS.get(command, output.get("hookEventName")),
                "additionalContext": output["additionalContext"],
            }
        }
    return None


COMMANDS = {hook.command: hook for hook in (*HOOKS, *GEMINI_HOOKS)}


MAX_TEXT = 8_000  # characters of one text a hook gives the agent (context, a reason)


def capped(answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The answer with each text it gives the agent cut to MAX_TEXT characters, the cut said:
    what a hook writes lands in the agent's context, and an input (a 200 KB search pattern a
    hook quotes back) must not fill it."""
    output = answer.get("hookSpecificOutput") if answer else None
    if isinstance(output, dict):
        for key in ("additionalContext", "permissionDecisionReason"):
            if isinstance(output.get(key), str) and len(output[key]) > MAX_TEXT:
                output[key] = _cut(output[key])
    return answer


def _cut(text: str) -> str:
    kept = MAX_TEXT - 60
    return f"{text[:kept]}\n… (cut by Cartograph: {len(text) - kept:,} more characters)"


def context(event: str, text: str) -> dict[str, Any]:
    """Text the agent reads before it goes on."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def deny(reason: str) -> dict[str, Any]:
    """Refuse a tool call; the agent is told why."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def rewrite(tool_input: dict[str, Any], reason: str) -> dict[str, Any]:
    """Run the tool with this input instead (the call is allowed as rewritten)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": reason,
            "updatedInput": tool_input,
        }
    }


def edited_path(tool_input: dict[str, Any]) -> str | None:
    """The file an edit tool writes (absolute, as the harness gives it)."""
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    return path if isinstance(path, str) and path else None


def new_texts(tool_name: str, tool_input: dict[str, Any]) -> list[str] | None:
    """The text an edit puts into the file (None: the whole file — Write, NotebookEdit)."""
    if tool_name == "Edit":
        return [str(tool_input.get("new_string", ""))]
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits") or []
        return [str(e.get("new_string", "")) for e in edits if isinstance(e, dict)]
    return None


def old_texts(tool_name: str, tool_input: dict[str, Any]) -> list[str] | None:
    """The text an edit replaces (None: the whole file)."""
    if tool_name == "Edit":
        return [str(tool_input.get("old_string", ""))]
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits") or []
        return [str(e.get("old_string", "")) for e in edits if isinstance(e, dict)]
    return None


# --------------------------------------------------------------- structural searches

_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
# (what the pattern asks, the name it asks about): a definition, an import, a call
_STRUCTURAL = (
    ("definition", re.compile(r"\b(?:def|class|function|func|fn|interface|struct)\s+" + _NAME)),
    ("import", re.compile(r"\bfrom\s+[\w.]+\s+import\s+" + _NAME)),
    ("import", re.compile(r"\bimport\s+(?:[\w.]+\.)?" + _NAME)),
    ("import", re.compile(r"\brequire\(\s*['\"]?(?:[\w./-]*/)?" + _NAME)),
    ("call", re.compile(r"(?:^|[\s.'\"=(])" + _NAME + r"\(")),
)
# regex spelling a search pattern may use, read as the text it stands for
_REGEX_SPACES = re.compile(r"\\s[+*]?|\[\[:space:\]\][+*]?| [+*]")
_REGEX_MARKS = re.compile(r"\\b|\\<|\\>|\^")
_GREP_COMMAND = re.compile(r"(?:^|[|;&(\s])(?:grep|egrep|rg|ag|ack|git\s+grep)\s")
_COMMON_NAMES = frozenset(
    {"if", "for", "while", "print", "return", "len", "str", "int", "not", "and", "self"}
)


def _plain(pattern: str) -> str:
    text = _REGEX_SPACES.sub(" ", pattern)
    text = _REGEX_MARKS.sub("", text)
    return text.replace("\\(", "(").replace("\\.", ".")


def structural_search(tool_name: str, tool_input: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, name) when a search looks for a definition, an import or the calls of a name —
    what the graph answers better than text; None for other searches."""
    if tool_name == "Grep":
        pattern = str(tool_input.get("pattern", ""))
    elif tool_name == "Bash":
        command = str(tool_input.get("command", ""))
        if not _GREP_COMMAND.search(command):
            return None
        pattern = command
    else:  # Glob: file names, never structure
        return None
    text = _plain(pattern)
    for kind, regex in _STRUCTURAL:
        found = regex.search(text)
        if found and found.group(1) not in _COMMON_NAMES and len(found.group(1)) > 2:
            return kind, found.group(1)
    return None
