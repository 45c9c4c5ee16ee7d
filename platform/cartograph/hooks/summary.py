"""The index summary an agent gets when its session starts (and again after a compaction): what
is indexed, how fresh it is, who else is working where, and which tools to reach for — at most
~400 tokens."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from cartograph.agents.sessions import claims
from cartograph.hooks.backends import git_output
from cartograph.store.interfaces import Store

MAX_CHARS = 1600  # ~400 tokens
TOOLS = (
    "Use the code graph before grep: `locate` (task text → likely functions and tests), "
    "`search_symbols`, `get_context`, `find_callers` (before changing a signature), "
    "`trace_calls`, and `impact` on your diff before you finish (what breaks, tests to run). "
    "Edits to files another session has claimed are refused."
)


def index_summary(store: Store, repo: str, root: Path | None, session: int = 0) -> str:
    """The summary; `root` is the work tree to compare with the index (None: not on this
    machine, as for a repository indexed from a mirror)."""
    record = store.repos.get_repo(repo)
    if record is None:
        return f"Cartograph: {repo} is not indexed; run `cartograph index {root or 'PATH'}`."
    files = store.graph.files(repo)
    languages = Counter(f.language for f in files.values())
    tests = sum(1 for f in files.values() if f.is_test)
    head = git_output(root, "rev-parse", "HEAD") if root is not None else ""
    status = git_output(root, "status", "--porcelain") if root is not None else ""
    changed = [line for line in status.splitlines() if line.strip()]
    indexed = record.indexed_sha[:10] or "no commit"
    lines = [
        f"Cartograph index of {repo} at {indexed}, {_ago(record.indexed_at)}"
        + ("" if not head or head == record.indexed_sha else f"; HEAD is now {head[:10]}")
        + (
            f"; {len(changed)} files changed on disk"
            if changed
            else "; work tree clean"
            if root is not None
            else ""
        )
        + ".",
        f"{len(files)} files ({tests} tests): "
        + ", ".join(f"{language} {count}" for language, count in languages.most_common(5))
        + ".",
    ]
    held = [c for c in claims(store, repo) if c.session != session]
    if held:
        shown = "; ".join(
            f"{c.path} by session {c.session} ({c.agent}: {c.task[:60]})" for c in held[:5]
        )
        more = f" and {len(held) - 5} more" if len(held) > 5 else ""
        lines.append(f"Claimed by other sessions: {shown}{more}.")
    lines.append(TOOLS)
    return "\n".join(lines)[:MAX_CHARS]


def _ago(stamp: str) -> str:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp or "never"
    minutes = int((datetime.now(UTC) - moment).total_seconds() // 60)
    if minutes < 1:
        return "just now"
    if minutes < 120:
        return f"{minutes} min ago"
    hours = minutes // 60
    return f"{hours} h ago" if hours < 48 else f"{hours // 24} days ago"
