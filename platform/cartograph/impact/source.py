"""Where a change comes from: two refs of a repository's git history (its work tree, or the
mirror of a tracked repository), or a patch against the indexed commit. Either way a `Change`:
the parsed diff and both versions of every file it touches. And where a symbol's source is
read from (`symbol_source`: its work tree, or its history at the indexed commit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cartograph.errors import NotFound
from cartograph.impact.diff import FileDiff, Patch, PatchMismatch, apply, parse_patch
from cartograph.indexedfiles import files_here, git_of, indexed_files
from cartograph.model import SymbolRow
from cartograph.query import find_symbol
from cartograph.store.interfaces import Store


@dataclass(slots=True)
class Change:
    """A diff of one repository and both versions of each file it touches (None: the file
    does not exist on that side; files a patch does not apply to are left out, with why)."""

    repo: str
    patch: Patch
    base: str = ""  # the old side's commit ("" : the indexed commit, for a patch)
    head: str = ""  # the new side's commit ("" : the patch applied)
    old: dict[str, bytes | None] = field(default_factory=dict)
    new: dict[str, bytes | None] = field(default_factory=dict)
    not_applied: dict[str, str] = field(default_factory=dict)  # path → why
    notes: list[str] = field(default_factory=list)
    data_dir: Path | None = None  # this host's data folder, where its mirrors are


def commits_of(
    store: Store, repo: str, base: str, head: str, data_dir: Path | None = None
) -> tuple[str, str]:
    """The commits `base` and `head` name in the repository's history."""
    git = git_of(store, repo, data_dir, (base, head))
    base_commit, head_commit = git.commit(base), git.commit(head)
    for ref, commit in ((base, base_commit), (head, head_commit)):
        if commit is None:
            raise NotFound(f"{ref!r} names no commit in {repo}")
    assert base_commit is not None and head_commit is not None
    return base_commit, head_commit


def change_between(
    store: Store,
    repo: str,
    base: str,
    head: str,
    data_dir: Path | None = None,
    commits: tuple[str, str] | None = None,
) -> Change:
    """The change from `base` to `head`, as a pull request shows it: against their merge base
    when they have one. `commits`: the commits they name, when already found."""
    git = git_of(store, repo, data_dir, commits or (base, head))
    base_commit, head_commit = commits or commits_of(store, repo, base, head, data_dir)
    old_side = git.merge_base(base_commit, head_commit) or base_commit
    change = Change(
        repo,
        parse_patch(git.diff(old_side, head_commit)),
        old_side,
        head_commit,
        data_dir=data_dir,
    )
    if old_side != base_commit:
        change.notes.append(f"compared against the merge base {old_side[:12]} of {base} and {head}")
    old_paths = [f.old_path for f in change.patch.files if f.old_path and not f.binary]
    new_paths = [f.new_path for f in change.patch.files if f.new_path and not f.binary]
    change.old = dict(git.blobs(old_side, old_paths))
    change.new = dict(git.blobs(head_commit, new_paths))
    for diff in change.patch.files:
        if diff.old_path is None and diff.new_path is not None:
            change.old.setdefault(diff.new_path, None)
        if diff.new_path is None and diff.old_path is not None:
            change.new.setdefault(diff.old_path, None)
    return change


def change_from_patch(
    store: Store, repo: str, text: str | bytes, data_dir: Path | None = None
) -> Change:
    """A patch applied to the files as indexed: each file it touches is read at the indexed
    commit (or from the work tree when there is no history); a file it does not apply to is
    left out, with the reason."""
    patch = parse_patch(text)
    change = Change(repo, patch, data_dir=data_dir)
    record = store.repos.get_repo(repo)
    if record is None:
        raise NotFound(f"{repo} is not indexed")
    wanted = [f.old_path for f in patch.files if f.old_path and not f.binary]
    old = indexed_files(store, record, wanted, data_dir)
    for diff in patch.files:
        if diff.binary:
            continue
        source = old.get(diff.old_path) if diff.old_path else b""
        if diff.old_path and source is None:
            change.not_applied[diff.path] = f"{diff.old_path} is not in the indexed commit"
            continue
        try:
            new_text = apply(_text(source or b""), diff)
        except PatchMismatch as exc:
            change.not_applied[diff.path] = str(exc)
            continue
        _record_sides(change, diff, source, _bytes(new_text))
    return change


def _record_sides(change: Change, diff: FileDiff, old: bytes | None, new: bytes) -> None:
    if diff.old_path:
        change.old[diff.old_path] = old
    elif diff.new_path:
        change.old[diff.new_path] = None
    if diff.new_path:
        change.new[diff.new_path] = new
    elif diff.old_path:
        change.new[diff.old_path] = None


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    """A file's new content: the bytes `_text` decoded back, and a character no file can hold
    (a lone surrogate sent in JSON) replaced."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


MAX_SOURCE_LINES = 400  # of one symbol shown; longer ones are cut (`cut` says so)


@dataclass(slots=True)
class SymbolSource:
    """A symbol's lines as the graph indexed them."""

    symbol: SymbolRow
    start_line: int
    lines: list[str]
    cut: bool  # the symbol is longer than MAX_SOURCE_LINES; the first ones are shown
    commit: str  # where the lines were read: the indexed commit, or "" for the work tree


def symbol_source(
    store: Store, symbol: str, repo: str | None = None, data_dir: Path | None = None
) -> SymbolSource:
    """The source of a symbol: from the work tree it was indexed from when that is on this
    host (the answer's envelope says when the file changed since), else from its history at
    the indexed commit (this host's mirror of a tracked repository, fetched when needed)."""
    row = find_symbol(store, symbol, repo)
    record = store.repos.get_repo(row.repo)
    assert record is not None  # find_symbol found a symbol of it
    found, commit = files_here(store, record, [row.path], data_dir)
    content = found[row.path]
    if content is None:
        raise NotFound(f"the source of {row.path} is not here (neither its work tree nor history)")
    lines = content.decode("utf-8", "replace").splitlines()
    wanted = lines[row.start_line - 1 : row.end_line]
    return SymbolSource(
        row, row.start_line, wanted[:MAX_SOURCE_LINES], len(wanted) > MAX_SOURCE_LINES, commit
    )
