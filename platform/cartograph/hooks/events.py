"""What each hook does. A harness session (its `session_id`) is tied to one Cartograph agent
session, kept in a small state file per harness session (`HookState`): the repository the
session works in, its work tree, and the agent session's id.

- session-start (startup, resume, clear, compact): start or resume the agent session; the index
  summary and its freshness as context.
- prompt: the `locate` map for the prompt, only when it is confident.
- pre-edit: take the claim on the file for this session; another session holds it: deny, with
  the holder's message. Warn (never deny) when the edited symbols are called by, or usually
  change with, files another live session has claimed ("collision radar").
- post-edit: bring the graph up to date with the edit (locally: re-index the file), record the
  edit (READ/EDITED trail), and name the tests that reach the edited symbols.
- pre-task: a request for the built-in Explore subagent goes to the graph-aware one.
- pre-search: a grep for a definition, an import or the calls of a name gets a pointer to the
  graph tool that answers it; never blocked.
- session-end: end the agent session (its claims end with it).

Each handler returns the JSON answer, or None for no answer."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cartograph.hooks import protocol
from cartograph.hooks.paths import hooks_dir
from cartograph.private import open_private, private_dir, write_private

if TYPE_CHECKING:
    from cartograph.hooks.backends import Backend

AGENT_NAME = "claude-code"
MAX_PROMPT = 20_000  # characters of a prompt `locate` is given
MAX_NEIGHBOURS = 5


@dataclass(slots=True)
class HookState:
    repo: str
    root: str
    session: int


def state_dir() -> Path:
    return Path(hooks_dir()) / "sessions"


def _state_file(harness_session: str) -> Path:
    key = hashlib.sha256(harness_session.encode()).hexdigest()[:32]
    return state_dir() / f"{key}.json"


def load_state(harness_session: str) -> HookState | None:
    try:
        data = json.loads(_state_file(harness_session).read_text())
        return HookState(str(data["repo"]), str(data["root"]), int(data["session"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_state(harness_session: str, state: HookState) -> None:
    path = _state_file(harness_session)
    private_dir(path.parent, within=hooks_dir())
    temporary = path.with_suffix(".tmp")
    write_private(temporary, json.dumps(asdict(state)))
    temporary.replace(path)


def forget_state(harness_session: str) -> None:
    _state_file(harness_session).unlink(missing_ok=True)
    _context_file(harness_session).unlink(missing_ok=True)


def _context_file(harness_session: str) -> Path:
    return _state_file(harness_session).with_suffix(".context")


def leave_context(harness_session: str, text: str) -> None:
    """Text for the harness session's next hook to pass on (what a background job found)."""
    path = _context_file(harness_session)
    private_dir(path.parent, within=hooks_dir())
    with open_private(path, "a") as out:
        out.write(text.rstrip() + "\n")


def take_context(harness_session: str) -> str | None:
    """The text left for this session, once (None: nothing)."""
    path = _context_file(harness_session)
    taken = path.with_suffix(f".taken-{os.getpid()}")
    try:
        path.replace(taken)
    except OSError:
        return None
    try:
        return taken.read_text(encoding="utf-8").strip() or None
    finally:
        taken.unlink(missing_ok=True)


# the events whose answers may carry context (Claude Code's names, and Gemini CLI's)
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                  "BeforeAgent", "BeforeTool", "AfterTool")  # fmt: skip


def with_context(payload: dict[str, Any], answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The answer, with what was left for this harness session added to its context."""
    event = str(payload.get("hook_event_name") or "")
    harness = str(payload.get("session_id") or "")
    if not harness or event not in CONTEXT_EVENTS:
        return answer
    left = take_context(harness)
    if left is None:
        return answer
    if answer is None:
        return protocol.context(event, left)
    output = answer.setdefault("hookSpecificOutput", {"hookEventName": event})
    earlier = output.get("additionalContext")
    output["additionalContext"] = f"{earlier}\n{left}" if earlier else left
    return answer


# ---------------------------------------------------------------- the events


def session_start(payload: dict[str, Any], backend: Backend) -> dict[str, Any] | None:
    harness = str(payload.get("session_id") or "")
    state = _session(payload, backend, start=True)
    if state is None:
        return None
    summary = backend.summary(state.repo, Path(state.root), state.session)
    del harness
    return protocol.context(
        "SessionStart", f"{summary}\n(Cartograph session {state.session} for this work.)"
    )


def prompt(payload: dict[str, Any], backend: Backend) -> dict[str, Any] | None:
    state = _session(payload, backend, start=True)
    text = str(payload.get("prompt") or "").strip()
    if state is None or not text:
        return None
    found = backend.locate(text[:MAX_PROMPT], state.repo, state.session)
    if not found:
        return None
    return protocol.context("UserPromptSubmit", "Cartograph's map for this task:\n" + found)


def pre_edit(payload: dict[str, Any], backend: Backend) -> dict[str, Any] | None:
    target = _edited(payload, backend)
    if target is None:
        return None
    state, path = target
    answer = backend.claim(state.session, state.repo, path)
    if not answer.granted:
        return protocol.deny(f"Cartograph: {answer.message}")
    warning = _collisions(payload, backend, state, path)
    return protocol.context("PreToolUse", warning) if warning else None


def post_edit(payload: dict[str, Any], backend: Backend) -> dict[str, Any] | None:
    target = _edited(payload, backend)
    if target is None:
        return None
    state, path = target
    recorded = backend.record_edit(state.session, state.repo, Path(state.root), path)
    if not recorded.granted:
        return protocol.context("PostToolUse", f"Cartograph: {recorded.message}")
    lines = _lines_after(payload, Path(state.root) / path)
    harness = str(payload.get("session_id") or "")
    done = backend.after_edit(state.repo, Path(state.root), path, lines, harness)
    return protocol.context("PostToolUse", f"Cartograph: {done}.")


def pre_task(payload: dict[str, Any], backend: Backend | None = None) -> dict[str, Any] | None:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    if str(tool_input.get("subagent_type", "")).lower() != protocol.EXPLORE_AGENT.lower():
        return None
    rewritten = dict(tool_input, subagent_type=protocol.GRAPH_EXPLORER)
    return protocol.rewrite(
        rewritten, "Cartograph: exploring goes to the graph-aware explorer (callers, callees)"
    )


def pre_search(payload: dict[str, Any], backend: Backend | None = None) -> dict[str, Any] | None:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    found = protocol.structural_search(str(payload.get("tool_name", "")), tool_input)
    if found is None:
        return None
    kind, name = found
    advice = {
        "definition": f"`search_symbols {name}` or `get_context {name}` (where it is defined, "
        "its signature, members and callers)",
        "import": f"`find_callers {name} --references` or `get_context {name}` (who imports "
        "and uses it, through re-exports and aliases)",
        "call": f"`find_callers {name}` (every resolved call site, through imports, `self`, "
        "types and callbacks, which a text search misses)",
    }[kind]
    return protocol.context(
        "PreToolUse", f"Cartograph: the code graph answers this structurally: {advice}."
    )


def session_end(payload: dict[str, Any], backend: Backend) -> dict[str, Any] | None:
    harness = str(payload.get("session_id") or "")
    state = load_state(harness) if harness else None
    if state is not None:
        backend.end_session(state.session)
        forget_state(harness)
    return None


HANDLERS = {
    "session-start": session_start,
    "prompt": prompt,
    "pre-edit": pre_edit,
    "post-edit": post_edit,
    "pre-task": pre_task,
    "pre-search": pre_search,
    "session-end": session_end,
}
NEEDS_NO_BACKEND = {"pre-task", "pre-search"}  # pure: answered from the input alone


# ---------------------------------------------------------------- helpers


def _session(payload: dict[str, Any], backend: Backend, start: bool) -> HookState | None:
    """The agent session of this harness session: resumed when it is alive, started (for the
    repository holding `cwd`) when there is none or it expired."""
    harness = str(payload.get("session_id") or "")
    if not harness:
        return None
    state = load_state(harness)
    if state is not None and backend.alive(state.session):
        return state
    if not start and state is None:
        return None
    found = backend.repo_at(str(payload.get("cwd") or os.getcwd()))
    if found is None:
        return None
    repo, root = found
    task = str(payload.get("prompt") or "Claude Code session")[:200]
    fresh = HookState(repo, str(root), backend.start_session(AGENT_NAME, task))
    save_state(harness, fresh)
    return fresh


def _edited(payload: dict[str, Any], backend: Backend) -> tuple[HookState, str] | None:
    """The session and the repository path an edit tool writes (None: outside the repository,
    or no session)."""
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    absolute = protocol.edited_path(tool_input)
    if absolute is None:
        return None
    state = _session(payload, backend, start=True)
    if state is None:
        return None
    root = Path(state.root).resolve()
    target = Path(absolute)
    if not target.is_absolute():
        target = Path(str(payload.get("cwd") or os.getcwd())) / target
    try:
        relative = target.resolve().relative_to(root)
    except ValueError:
        return None  # outside the repository: no claim to take
    return state, relative.as_posix()


def _collisions(
    payload: dict[str, Any], backend: Backend, state: HookState, path: str
) -> str | None:
    """Files another live session holds that call the symbols being edited or usually change
    with this file."""
    held = [h for h in backend.held_files(state.repo) if h.session != state.session]
    if not held:
        return None
    lines = _lines_before(payload, Path(state.root) / path)
    near = backend.neighbours(state.repo, path, lines)
    hits = [h for h in held if h.path in near][:MAX_NEIGHBOURS]
    if not hits:
        return None
    named = "; ".join(f"{h.path} (session {h.session}, {h.agent}: {h.task[:60]})" for h in hits)
    return (
        f"Cartograph collision radar: code that calls or usually changes with {path} is claimed "
        f"by another session: {named}. Coordinate before you change its interface."
    )


def _lines_of(texts: list[str] | None, file: Path) -> list[tuple[int, int]] | None:
    """The line ranges of `texts` in `file` (None: the whole file, or not found)."""
    if texts is None:
        return None
    try:
        content = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    ranges = []
    for text in texts:
        at = content.find(text) if text else -1
        if at < 0:
            continue
        first = content.count("\n", 0, at) + 1
        ranges.append((first, first + text.count("\n")))
    return ranges or None


def _lines_before(payload: dict[str, Any], file: Path) -> list[tuple[int, int]] | None:
    tool_input = payload.get("tool_input") or {}
    return _lines_of(protocol.old_texts(str(payload.get("tool_name", "")), tool_input), file)


def _lines_after(payload: dict[str, Any], file: Path) -> list[tuple[int, int]] | None:
    tool_input = payload.get("tool_input") or {}
    return _lines_of(protocol.new_texts(str(payload.get("tool_name", "")), tool_input), file)
