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
  last mined commit (a force-push), the repository's history is mined again from scratch;
- a sync job mines without holding the index lock throughout (`Interleaving`): it holds it
  while it reads the index and while it writes a batch, and indexes the pushes that arrived
  in between. A batch is written when it is full, or early when a push is waiting (asked at
  most every WAIT_CHECK_SECONDS), and a push waiting while mining from scratch reads where to
  start goes first (the job mines again, up to it): a push waits a fraction of a second, not
  a batch. History is charged to the files and symbols of the commit mining started from;
  a push that only edits files leaves that true, a push that adds, deletes or renames indexed
  files does not: the history written so far is cleared and mined again.
"""

from __future__ import annotations

import subprocess
import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import combinations, pairwise
from pathlib import Path

from cartograph.errors import CartographError
from cartograph.history.cochange import refresh_weights
from cartograph.history.codeowners import read_codeowners
from cartograph.history.gitlog import CommitRecord, is_bot, read_commits
from cartograph.history.linemap import LineMap, changed_lines
from cartograph.model import CommitRow, HistoryBatch, PersonRow
from cartograph.store.interfaces import Store

DEFAULT_MAX_FILES = 50
MAX_SYMBOLS = 60
BATCH_COMMITS = 1000
BATCH_ROWS = 5000  # commits and touches per write: a sync job lets pushes in between two
WAIT_CHECK_SECONDS = 0.1  # how often mining asks whether a push waits (a Redis read)
SPAN_FILES = 500  # files whose symbols' lines are read at once when mining starts from scratch
SYMBOL_KINDS = ("function", "method", "class", "interface", "enum")


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
    outpaced: bool = False  # pushes changed the indexed files meanwhile: cleared, mine again
    interrupted: bool = False  # a push went in before mining started: mine again, up to it
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class _Spans:
    """Innermost function/method/class at the lines of a file at HEAD."""

    def __init__(self, spans: list[tuple[int, int, str]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s[0] for s in self.spans]
        # what `at` answers is the same between two span boundaries: keep it as pieces
        bounds = sorted({s[0] for s in self.spans} | {s[1] + 1 for s in self.spans})
        self.pieces: list[tuple[int, int, str]] = []  # first, last line, symbol
        for low, high in pairwise(bounds):
            symbol = self.at(low)
            if symbol is not None:
                self.pieces.append((low, high - 1, symbol))
        self.piece_starts = [p[0] for p in self.pieces]

    def at(self, line: int) -> str | None:
        index = bisect_right(self.starts, line) - 1
        while index >= 0:
            start, end, symbol = self.spans[index]
            if start <= line <= end:
                return symbol
            index -= 1
        return None

    def charge(self, first: int, last: int, each: int, lines: Counter[str]) -> None:
        """Add `each` for every line in [first, last] to the symbol holding it."""
        index = max(0, bisect_right(self.piece_starts, first) - 1)
        pieces = self.pieces
        while index < len(pieces):
            low, high, symbol = pieces[index]
            if low > last:
                break
            overlap = min(high, last) - max(low, first) + 1
            if overlap > 0:
                lines[symbol] += overlap * each
            index += 1


class _SpansByPath(dict):
    """The `_Spans` of each file at HEAD: all read up front for a whole history (`eager`: the
    files `SPAN_FILES` at a time, stopping with `_Interrupted` as soon as `interrupted()` says
    a push waits; at once when nothing asks), or file by file, as commits reach them, for a few
    new commits."""

    def __init__(
        self,
        store: Store,
        repo: str,
        eager: Iterable[str] | None,
        interrupted: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self.store, self.repo, self.eager = store, repo, eager is not None
        if eager is None:
            return
        if interrupted is None:  # nothing to give way to: the whole repository at once
            chunks: list[list[str] | None] = [None]
        else:
            paths = sorted(eager)
            chunks = [paths[i : i + SPAN_FILES] for i in range(0, len(paths), SPAN_FILES)]
        for chunk in chunks:
            if interrupted is not None and interrupted():
                raise _Interrupted
            for path, items in store.graph.symbol_spans(repo, SYMBOL_KINDS, chunk).items():
                self[path] = _Spans(items)

    def __missing__(self, path: str) -> _Spans | None:
        if self.eager:
            return None
        items = self.store.graph.symbol_spans(self.repo, SYMBOL_KINDS, [path]).get(path)
        self[path] = spans = _Spans(items) if items else None
        return spans


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


class HistoryError(CartographError):
    """History cannot be mined (not a git repository, not indexed yet, git failed)."""


@dataclass(slots=True)
class Interleaving:
    """How mining shares the repository with the pushes that arrive while it runs (a sync
    job's): `hold()` is the index lock, taken around each read of the index and each batch
    written; `pause()` runs between two batches, with the lock released (the job indexes the
    pushes waiting); `waiting()` says whether a push waits, so the batch is written early."""

    hold: Callable[[], AbstractContextManager[object]]
    pause: Callable[[], None]
    waiting: Callable[[], bool] = lambda: False


class _Cadence:
    """When mining writes its batch: when it holds BATCH_ROWS rows (or BATCH_COMMITS commits,
    checked between commits), or as soon as a push is waiting (asked at most every
    WAIT_CHECK_SECONDS: the batch is cut short, the push goes in)."""

    def __init__(self, interleaving: Interleaving | None) -> None:
        self.ask = interleaving.waiting if interleaving is not None else None
        self.asked = -WAIT_CHECK_SECONDS  # the first question is asked at once

    def due(self, batch: HistoryBatch) -> bool:
        return batch.rows() >= BATCH_ROWS or self.waiting()

    def waiting(self) -> bool:
        """Whether a push waits, asked at most every WAIT_CHECK_SECONDS (else: no)."""
        if self.ask is None or time.monotonic() - self.asked < WAIT_CHECK_SECONDS:
            return False
        self.asked = time.monotonic()
        return self.ask()


class _Outpaced(Exception):
    """A push added, deleted or renamed indexed files while history was being mined."""


class _Interrupted(Exception):
    """A push waits while mining reads where to start: it goes first (the job mines again)."""


def mine_history(
    store: Store,
    root: str | Path,
    repo: str,
    *,
    max_files: int = DEFAULT_MAX_FILES,
    progress: Callable[[str], None] | None = None,
    rebuild: bool = False,
    head_sha: str | None = None,
    interleaving: Interleaving | None = None,
) -> MineResult:
    """Mine the commits of `root` up to `head_sha` (default: HEAD) not mined yet into `store`
    (the repository must be indexed); `rebuild` forgets what was mined and mines it all. The
    caller holds the repository's index lock, or passes the `interleaving` that takes it."""
    started = time.perf_counter()
    root = Path(root)
    if not head_sha:
        head = _git(root, "rev-parse", "--verify", "-q", "HEAD")
        if head.returncode != 0:
            raise HistoryError(f"{root} has no commits to mine")
        head_sha = head.stdout.strip()
    hold = interleaving.hold if interleaving is not None else nullcontext
    cadence = _Cadence(interleaving)
    asks = cadence.waiting if interleaving is not None else None
    try:
        with hold():
            start = _begin(store, root, repo, head_sha, rebuild, max_files, asks)
    except _Interrupted:
        # reading where to start takes a while from scratch (every symbol's lines): a push
        # that arrives meanwhile goes in first, and the job mines again, up to it
        assert interleaving is not None  # only an interleaving asks (`asks`)
        interleaving.pause()
        interrupted = MineResult(repo, head_sha, "", interrupted=True)
        interrupted.notes.append("a push went first: mine again, up to it")
        return interrupted
    result, revisions, walk = start.result, start.revisions, start.walk
    counted_files, counted_symbols = start.counted_files, start.counted_symbols
    if not revisions:
        return result
    if progress:
        progress(f"mining history ({revisions})")
    moved = _MovedFiles(store, repo, head_sha, set(walk.current_of))
    newest = start.ordinal + int(_git(root, "rev-list", "--count", revisions).stdout.strip() or 0)

    def pause() -> None:  # let the pushes waiting in, then check they left the mining true
        if interleaving is not None:
            interleaving.pause()
            with hold():
                if moved.since_mining_began():
                    raise _Outpaced

    def write(batch: HistoryBatch, last: bool) -> None:
        counted_files.update(batch.file_changes)
        counted_symbols.update(batch.symbol_changes)
        with hold():
            _flush(store, repo, batch, result)
            if last:
                if start.since:
                    refresh_weights(store.history, repo, counted_files, counted_symbols)
                else:
                    refresh_weights(store.history, repo)
                store.history.set_history_state(repo, head_sha, start.codeowners)
        batch.clear()
        if not last:
            pause()

    batch = HistoryBatch()
    people_seen: set[str] = set()
    try:
        pause()  # reading where to start took a while (every symbol's lines, from scratch)
        for commit in read_commits(root, revisions):
            walk.add(commit, batch, people_seen, newest - result.commits, write, cadence)
            result.commits += 1
            if len(batch.commits) >= BATCH_COMMITS or cadence.due(batch):
                write(batch, last=False)
        write(batch, last=True)
    except _Outpaced:
        with hold():
            store.history.clear_history(repo)  # charged to files no longer indexed as such
        result.outpaced = True
        result.notes.append("pushes changed the indexed files while mining: mine again")
    result.seconds = round(time.perf_counter() - started, 3)
    return result


@dataclass(slots=True)
class _Start:
    """Where a mining run starts: the result so far, the commit it mines from ("" when from the
    start), the revisions to read ("" when none), the walk over the files indexed now, the
    CODEOWNERS text at the commit mined up to, and the files and symbols whose counts moved
    already (renamed since)."""

    result: MineResult
    since: str
    revisions: str
    walk: _Walk
    codeowners: str
    ordinal: int = 0  # the newest ordinal mined so far
    counted_files: set[str] = field(default_factory=set)
    counted_symbols: set[str] = field(default_factory=set)


def _begin(
    store: Store,
    root: Path,
    repo: str,
    head_sha: str,
    rebuild: bool,
    max_files: int,
    interrupted: Callable[[], bool] | None = None,
) -> _Start:
    row = store.repos.get_repo(repo)
    if row is None:
        raise HistoryError(f"repository {repo!r} is not indexed: index it first")
    result = MineResult(repo, head_sha, row.mined_sha)
    codeowners = read_codeowners(root)
    if rebuild and row.mined_sha:
        store.history.clear_history(repo)
        row.mined_sha = ""
        result.rebuilt = True
        result.notes.append("history mined again from scratch, as asked")
    if row.mined_sha == head_sha:
        if codeowners != row.codeowners:
            store.history.set_history_state(repo, head_sha, codeowners)
        return _Start(result, "", "", _Walk(set(), {}, max_files), codeowners)
    files = set(store.graph.files(repo))
    since = row.mined_sha
    if since and _git(root, "merge-base", "--is-ancestor", since, head_sha).returncode != 0:
        store.history.clear_history(repo)  # rewritten history: start again
        result.rebuilt = True
        result.notes.append(f"{since[:10]} is not an ancestor of HEAD: history mined again")
        since = ""
    revisions = f"{since}..{head_sha}" if since else head_sha
    spans = _SpansByPath(store, repo, None if since else files, interrupted)
    walk = _Walk(files, spans, max_files)
    ordinal = store.history.history_stats(repo)["ordinal"]
    start = _Start(result, since, revisions, walk, codeowners, ordinal)
    if since:
        # what was mined before sits under the paths and symbols of then: follow the files
        # renamed since, forget those deleted (or replaced by another file of the same name)
        moved_files, moved_symbols = _remap_earlier_history(store, root, repo, revisions, files)
        result.renamed = sum(1 for old, new in moved_files.items() if new and new != old)
        start.counted_files.update(new for new in moved_files.values() if new)
        start.counted_symbols.update(new for new in moved_symbols.values() if new)
    return start


class _MovedFiles:
    """Whether the repository's indexed files are still those of the commit mining began at
    (a push indexed meanwhile may have added, deleted or renamed some; edits alone leave
    them). The file list is read again only when the indexed commit moved since last asked."""

    def __init__(self, store: Store, repo: str, mined_from: str, files: set[str]) -> None:
        self.store, self.repo, self.files = store, repo, files
        self.checked = mined_from  # the indexed commit whose files are known to be `files`

    def since_mining_began(self) -> bool:
        row = self.store.repos.get_repo(self.repo)
        if row is None:
            return True
        if row.indexed_sha == self.checked:
            return False
        if set(self.store.graph.files(self.repo)) != self.files:
            return True
        self.checked = row.indexed_sha
        return False


def _remap_earlier_history(
    store: Store, root: Path, repo: str, revisions: str, files: set[str]
) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """Re-key the history mined before `revisions` to the files and symbols at HEAD, as
    mining it all again would: a file renamed since keeps its past under its new path (its
    symbols under their new ids), a file deleted since — or replaced by another file of the
    same name — loses it, and so does a symbol no longer in the index. Runs before the new
    commits are written, so only the earlier history moves."""
    walk = _Walk(files, {}, 0)
    for commit in read_commits(root, revisions, hunks=False):
        for change in commit.changes:
            walk.step_back(change, None)
    file_map = {old: new for old, new in walk.current_of.items() if new != old}
    orphan_files, orphan_symbols = store.history.history_orphans(repo)
    for path in orphan_files:  # gone from the index (or back in it, unchanged in git)
        file_map.setdefault(path, path if path in files else None)
    symbol_map: dict[str, str | None] = {}
    targets = {new for new in file_map.values() if new}
    modules = {path: record.module for path, record in store.graph.files(repo, targets).items()}
    for path, symbols in store.history.history_symbols(repo, list(file_map)).items():
        new_path = file_map[path]
        for symbol in symbols:
            symbol_map[symbol] = (
                _moved_symbol(repo, symbol, path, new_path, modules.get(new_path))
                if new_path
                else None
            )
    existing = store.graph.get_symbols(new for new in symbol_map.values() if new)
    for symbol, new in symbol_map.items():
        if new is not None and new not in existing:
            symbol_map[symbol] = None  # nothing of that name at the new place
    back = store.graph.get_symbols(orphan_symbols)
    for symbol in orphan_symbols:
        symbol_map.setdefault(symbol, symbol if symbol in back else None)
    if file_map or symbol_map:
        store.history.remap_history(repo, file_map, symbol_map)
    return file_map, symbol_map


def _moved_symbol(
    repo: str, symbol: str, old_path: str, new_path: str, new_module: str | None
) -> str | None:
    """The id a symbol of a moved file has in the file at its new path: the same name inside
    the module (`util.helper` in util.py is `lib.util.helper` in lib/util.py)."""
    qualname = symbol.partition("#")[2]
    if new_module is None or not qualname:
        return None
    # the old module name is a dotted tail of the old path ("src/pkg/util.py" → pkg.util)
    stem = old_path.rsplit(".", 1)[0].split("/")
    if stem[-1] in ("__init__", "index"):
        stem = stem[:-1]
    for start in range(len(stem)):
        module = ".".join(stem[start:])
        if qualname == module or qualname.startswith(module + "."):
            inner = qualname[len(module) :]
            return f"{repo}:{new_path}#{new_module}{inner}"
    return None


def _utc(stamp: str) -> str:
    """git's ISO 8601 with the author's offset → UTC, so dates sort as text."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _flush(store: Store, repo: str, batch: HistoryBatch, result: MineResult) -> None:
    if batch.empty():
        return
    store.history.write_history(repo, batch)
    result.touches += len(batch.file_touches)
    result.symbol_touches += len(batch.symbol_touches)


class _Walk:
    """History newest first: where each path of each version lives at HEAD, and its line map."""

    def __init__(self, files: set[str], spans: dict[str, _Spans | None], max_files: int) -> None:
        self.current_of: dict[str, str | None] = {path: path for path in files}
        self.maps: dict[str, LineMap] = {path: LineMap.identity() for path in files}
        self.spans = spans
        self.max_files = max_files

    def add(
        self,
        commit: CommitRecord,
        batch: HistoryBatch,
        people_seen: set[str],
        ordinal: int,
        write: Callable[[HistoryBatch, bool], None] | None = None,
        cadence: _Cadence | None = None,
    ) -> None:
        """Add `commit` to `batch`; a commit touching more than a batch holds, or touching
        files while a push waits, is written in parts as it goes (`write` when `cadence` says
        so: its row goes first, so its touches find it)."""
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
            if write is not None and cadence is not None and cadence.due(batch):
                write(batch, False)
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
        own = change.new_path
        current = self.current_of.get(own) if own is not None else None
        line_map = self.maps.get(own) if own is not None else None
        if current is not None and line_map is not None:
            touched_files.append(current)
            batch.file_touches.append((commit.sha, current, change.added, change.deleted))
            spans = self.spans[current]
            if spans is not None:
                lines: Counter[str] = Counter()
                for first, last in changed_lines(change.hunks):
                    for head_first, head_last, each in line_map.head_runs(first, last):
                        spans.charge(head_first, head_last, each, lines)
                for symbol, count in lines.items():
                    touched_symbols[symbol] += count
                    batch.symbol_touches.append((commit.sha, symbol, count))
        self.step_back(change, line_map)

    def step_back(self, change, line_map: LineMap | None) -> None:
        """Move to the version before `change`: where its paths' files are at HEAD then."""
        own, parent = change.new_path, change.old_path
        if own is None:  # deleted here: before this commit it is another file than any at HEAD
            if parent is not None:
                self.current_of[parent] = None
                self.maps.pop(parent, None)
            return
        current = self.current_of.get(own)
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
