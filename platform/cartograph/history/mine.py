"""Mine git history into the graph: commits, people, touches, co-change (files and symbols).

Rules (docs/graph-schema.md, "History"):
- history is kept for the files the index holds, under their path at HEAD: a rename is followed
  back, so a moved file keeps its past; a file deleted before HEAD has no history here;
- every commit is recorded with its author (through `.mailmap`, email lower-cased, bots
  flagged); merge commits touch nothing (their changes are their parents');
- co-change counts the non-merge commits that touch at most `max_files` files (all files of the
  commit count, indexed or not): each pair of indexed files they touch gets +1, each file +1;
  weight = count / min(changes of a, changes of b); queries show pairs seen at least twice;
- symbol co-change: each hunk's lines are followed to HEAD (like `git blame`) and charged to
  the innermost function, method or class holding them there; pairs as for files, in commits
  that touch at most MAX_SYMBOLS symbols;
- mining is incremental: it reads `mined_sha..HEAD` only; when HEAD no longer descends from the
  last mined commit (a force-push), the repository's history is mined again from scratch.
"""

from __future__ import annotations

import subprocess
import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

from cartograph.history.codeowners import read_codeowners
from cartograph.history.gitlog import CommitRecord, is_bot, read_commits
from cartograph.history.linemap import LineMap, changed_lines
from cartograph.model import CommitRow, HistoryBatch, PersonRow
from cartograph.store.base import GraphStore

DEFAULT_MAX_FILES = 50
MAX_SYMBOLS = 60
BATCH_COMMITS = 1000
SYMBOL_KINDS = ("function", "method", "class")


@dataclass(slots=True)
class MineResult:
    repo: str
    head: str
    since: str  # the commit mined before this run ("" when mining from the start)
    commits: int = 0
    touches: int = 0
    symbol_touches: int = 0
    renamed: int = 0
    rebuilt: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class _Spans:
    """Innermost function/method/class at a line of a file at HEAD."""

    def __init__(self, spans: list[tuple[int, int, str]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s[0] for s in self.spans]

    def at(self, line: int) -> str | None:
        index = bisect_right(self.starts, line) - 1
        while index >= 0:
            start, end, symbol = self.spans[index]
            if start <= line <= end:
                return symbol
            index -= 1
        return None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


class HistoryError(RuntimeError):
    """History cannot be mined (not a git repository, not indexed yet, git failed)."""


def mine_history(
    store: GraphStore,
    root: str | Path,
    repo: str,
    *,
    max_files: int = DEFAULT_MAX_FILES,
    progress: Callable[[str], None] | None = None,
) -> MineResult:
    """Mine the commits of `root` not mined yet into `store` (the repository must be indexed;
    the caller holds its index lock)."""
    started = time.perf_counter()
    root = Path(root)
    head = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    if head.returncode != 0:
        raise HistoryError(f"{root} has no commits to mine")
    head_sha = head.stdout.strip()
    row = store.get_repo(repo)
    if row is None:
        raise HistoryError(f"repository {repo!r} is not indexed: index it first")
    result = MineResult(repo, head_sha, row.mined_sha)
    codeowners = read_codeowners(root)
    if row.mined_sha == head_sha:
        if codeowners != row.codeowners:
            store.set_history_state(repo, head_sha, codeowners)
        return result
    since = row.mined_sha
    if since and _git(root, "merge-base", "--is-ancestor", since, head_sha).returncode != 0:
        store.clear_history(repo)  # rewritten history: start again
        result.rebuilt = True
        result.notes.append(f"{since[:10]} is not an ancestor of HEAD: history mined again")
        since = ""
    revisions = f"{since}..{head_sha}" if since else head_sha
    if progress:
        progress(f"mining history ({revisions})")

    total = _git(root, "rev-list", "--count", revisions)
    newest = store.history_stats(repo)["ordinal"] + int(total.stdout.strip() or 0)
    files = set(store.files(repo))
    spans = {path: _Spans(items) for path, items in store.symbol_spans(repo, SYMBOL_KINDS).items()}
    walk = _Walk(files, spans, max_files)
    batch = HistoryBatch()
    people_seen: set[str] = set()
    for commit in read_commits(root, revisions):
        walk.add(commit, batch, people_seen, newest - result.commits)
        result.commits += 1
        if len(batch.commits) >= BATCH_COMMITS:
            _flush(store, repo, batch, result)
            batch = HistoryBatch()
    _flush(store, repo, batch, result)
    moves = {old: new for old, new in walk.current_of.items() if new and old != new}
    if since and moves:
        # history mined earlier sits under the paths of then; follow the renames since
        store.rename_history(repo, moves)
        result.renamed = len(moves)
    store.refresh_cochange_weights(repo)
    store.set_history_state(repo, head_sha, codeowners)
    result.seconds = round(time.perf_counter() - started, 3)
    return result


def _utc(stamp: str) -> str:
    """git's ISO 8601 with the author's offset → UTC, so dates sort as text."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _flush(store: GraphStore, repo: str, batch: HistoryBatch, result: MineResult) -> None:
    if not batch.commits:
        return
    store.write_history(repo, batch)
    result.touches += len(batch.file_touches)
    result.symbol_touches += len(batch.symbol_touches)


class _Walk:
    """History newest first: where each path of each version lives at HEAD, and its line map."""

    def __init__(self, files: set[str], spans: dict[str, _Spans], max_files: int) -> None:
        self.current_of: dict[str, str | None] = {path: path for path in files}
        self.maps: dict[str, LineMap] = {path: LineMap.identity() for path in files}
        self.spans = spans
        self.max_files = max_files

    def add(
        self, commit: CommitRecord, batch: HistoryBatch, people_seen: set[str], ordinal: int
    ) -> None:
        email = commit.author_email
        if email not in people_seen:  # newest first: the latest name an author used
            people_seen.add(email)
            batch.people.append(
                PersonRow(email, commit.author_name, is_bot(commit.author_name, email))
            )
        batch.commits.append(
            CommitRow(
                commit.sha,
                commit.message,
                _utc(commit.at),
                email,
                len(commit.parents),
                len(commit.changes),
                ordinal,
            )
        )
        counts = not commit.is_merge and 0 < len(commit.changes) <= self.max_files
        touched_files: list[str] = []
        touched_symbols: Counter[str] = Counter()
        for change in commit.changes:
            self._change(commit, change, batch, touched_files, touched_symbols)
        if counts:
            for path in touched_files:
                batch.file_changes[path] += 1
            for pair in combinations(sorted(set(touched_files)), 2):
                batch.file_pairs[pair] += 1
            if len(touched_symbols) <= MAX_SYMBOLS:
                for symbol in touched_symbols:
                    batch.symbol_changes[symbol] += 1
                for pair in combinations(sorted(touched_symbols), 2):
                    batch.symbol_pairs[pair] += 1

    def _change(self, commit, change, batch, touched_files, touched_symbols) -> None:
        own, parent = change.new_path, change.old_path
        if own is None:  # deleted here: before this commit it is another file than any at HEAD
            if parent is not None:
                self.current_of[parent] = None
                self.maps.pop(parent, None)
            return
        current = self.current_of.get(own)
        line_map = self.maps.get(own)
        if current is not None and line_map is not None:
            touched_files.append(current)
            batch.file_touches.append((commit.sha, current, change.added, change.deleted))
            spans = self.spans.get(current)
            if spans is not None:
                lines: Counter[str] = Counter()
                for first, last in changed_lines(change.hunks):
                    for line in range(first, last + 1):
                        at_head = line_map.lookup_near(line)
                        symbol = spans.at(at_head) if at_head is not None else None
                        if symbol is not None:
                            lines[symbol] += 1
                for symbol, count in lines.items():
                    touched_symbols[symbol] += count
                    batch.symbol_touches.append((commit.sha, symbol, count))
        # step back to the version before this commit
        if parent is None:  # added here: an older file of this name is another file
            self.current_of[own] = None
            self.maps.pop(own, None)
            return
        previous = line_map.parent(change.hunks) if line_map is not None else None
        if parent != own:
            self.current_of[parent] = current
            if previous is not None:
                self.maps[parent] = previous
            self.current_of[own] = None
            self.maps.pop(own, None)
        elif previous is not None:
            self.maps[own] = previous
