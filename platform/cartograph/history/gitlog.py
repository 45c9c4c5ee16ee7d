"""Commits with their authors and, per file, the hunks, streamed from two `git log` passes.

`git log -p -U0 -M --topo-order` gives, for every non-merge commit, the lines each file lost and
gained (no context), with renames detected; merges show no diff. Authors come through `.mailmap`
(`%aN`, `%aE`). Output is read as it comes, so memory does not grow with the history.

No text a commit's author wrote can be read as structure: the headers (sha, parents, author,
date, message) come from one pass as NUL-separated fields (git refuses NUL in a message), and
the changes from a second pass over the same commits in the same order, whose only per-commit
line is a NUL followed by the sha — no message there at all. The two are read in lockstep and
checked to name the same commit.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

_HEADER_FIELDS = 6  # sha, parents, author name, author email, author date, message
_HEADER_FORMAT = "%H%x00%P%x00%aN%x00%aE%x00%aI%x00%B"
_MARK = "\0"  # starts the one line per commit of the changes pass: NUL, then the sha
_CHANGES_FORMAT = "%x00%H"
_CONTENT = frozenset("+- ")  # first characters of patch lines (and of ---/+++ file headers)
_STATUS = frozenset("ACDMRTU")  # --name-status letters
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
READ_CHUNK = 1 << 16
BOT_MARKERS = (
    "[bot]",
    "-bot@",
    "bot@",
    "noreply@github.com",
    "dependabot",
    "renovate",
    "github-actions",
    "pre-commit-ci",
)


@dataclass(slots=True)
class FileChange:
    """What one commit did to one file: paths before and after (None: added / deleted)."""

    old_path: str | None
    new_path: str | None
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)  # old a,b new c,d
    binary: bool = False

    @property
    def added(self) -> int:
        return sum(h[3] for h in self.hunks)

    @property
    def deleted(self) -> int:
        return sum(h[1] for h in self.hunks)


@dataclass(slots=True)
class CommitRecord:
    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    at: str  # ISO 8601 with the author's offset
    message: str
    changes: list[FileChange] = field(default_factory=list)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


def normalize_email(email: str) -> str:
    return email.strip().lower()


def is_bot(name: str, email: str) -> bool:
    text = f"{name} {email}".lower()
    return any(marker in text for marker in BOT_MARKERS)


def _unquote(path: str) -> str:
    """git's C-style quoting of unusual paths (quotepath is turned off, but quotes remain for
    control characters and quotes themselves)."""
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        body = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return body.encode("latin-1", "replace").decode("utf-8", "replace")
    return path


def read_commits(root: Path, revisions: str, hunks: bool = True) -> Iterator[CommitRecord]:
    """Commits of `revisions` (e.g. "HEAD" or "abc123..HEAD"), newest first, descendants
    before their ancestors; with `hunks=False` only which files each commit added, deleted,
    renamed or changed (the same renames, much less to read)."""
    diff = ["-p", "-U0", "--no-ext-diff", "--no-textconv"] if hunks else ["--name-status"]
    common = ["git", "-C", str(root), "-c", "core.quotepath=off", "log", "--topo-order"]
    headers = _git_stream([*common, "-z", f"--format={_HEADER_FORMAT}", revisions, "--"])
    changes = _git_stream(
        [*common, "--no-color", "-M", *diff, f"--format={_CHANGES_FORMAT}", revisions, "--"]
    )
    try:
        assert headers.stdout is not None and changes.stdout is not None  # stdout=PIPE
        changes_of = _changes(changes.stdout)
        for commit in _headers(headers.stdout):
            sha, found = next(changes_of, (None, []))
            if sha != commit.sha:
                raise RuntimeError(
                    f"git log gave the changes of {sha} where {commit.sha} was expected"
                )
            commit.changes = found
            yield commit
    finally:
        for process in (headers, changes):
            _finish(process)


def _git_stream(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"
    )


def _finish(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    process.stdout.close()
    error = process.stderr.read() if process.stderr else ""
    code = process.wait()
    if code not in (0, -13) and code is not None:  # -13: we stopped reading early
        raise RuntimeError(f"git log failed ({code}): {error.strip()[:300]}")


def _nul_fields(stream: IO[str]) -> Iterator[str]:
    """The NUL-separated fields of a stream, read in chunks."""
    pending = ""
    while chunk := stream.read(READ_CHUNK):
        pending += chunk
        *complete, pending = pending.split("\0")
        yield from complete
    if pending:
        yield pending


def _headers(stream: IO[str]) -> Iterator[CommitRecord]:
    """Commit headers from `git log -z` with NUL-separated fields: git puts a NUL between
    commits too, so every commit is exactly _HEADER_FIELDS fields."""
    fields: list[str] = []
    for value in _nul_fields(stream):
        fields.append(value)
        if len(fields) == _HEADER_FIELDS:
            yield _header(fields)
            fields = []
    if any(f.strip() for f in fields):
        raise RuntimeError(f"git log ended inside a commit header: {fields[:1]!r}")


def _header(fields: list[str]) -> CommitRecord:
    sha, parents, name, email, at, message = fields
    return CommitRecord(
        sha=sha.strip(),
        parents=parents.split(),
        author_name=name.strip(),
        author_email=normalize_email(email),
        at=at.strip(),
        message=message.strip()[:4000],
    )


def _changes(lines: Iterable[str]) -> Iterator[tuple[str, list[FileChange]]]:
    """(sha, its file changes) per commit of the changes pass, in order."""
    sha: str | None = None
    changes: list[FileChange] = []
    change: FileChange | None = None
    for line in lines:
        # most lines are a patch's content, not needed: drop them before anything else
        if line[:1] in _CONTENT:
            continue
        if line.startswith(_MARK):
            if sha is not None:
                yield sha, changes
            sha, changes, change = line[1:].strip(), [], None
            continue
        if sha is None:
            continue
        if "\t" in line and line[:1] in _STATUS:  # --name-status: "M\tpath", "R090\told\tnew"
            changes.append(_name_status(line.rstrip("\n")))
            continue
        if line.startswith("diff --git "):
            change = FileChange(*_diff_paths(line.rstrip("\n")))
            changes.append(change)
            continue
        if change is None:
            continue
        if line.startswith("@@"):
            match = _HUNK.match(line)
            if match:
                a, b, c, d = match.groups()
                change.hunks.append(
                    (int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
                )
        elif line.startswith("new file mode"):
            change.old_path = None
        elif line.startswith("deleted file mode"):
            change.new_path = None
        elif line.startswith("rename from "):
            change.old_path = _unquote(line[len("rename from ") :].rstrip("\n"))
        elif line.startswith("rename to "):
            change.new_path = _unquote(line[len("rename to ") :].rstrip("\n"))
        elif line.startswith("Binary files "):
            change.binary = True
    if sha is not None:
        yield sha, changes


def _name_status(line: str) -> FileChange:
    status, *paths = line.split("\t")
    paths = [_unquote(p) for p in paths]
    if status[0] == "A":
        return FileChange(None, paths[0])
    if status[0] == "D":
        return FileChange(paths[0], None)
    if status[0] == "R":
        return FileChange(paths[0], paths[1])
    if status[0] == "C":  # a copy: the new file is another file
        return FileChange(None, paths[1])
    return FileChange(paths[0], paths[0])


def _diff_paths(line: str) -> tuple[str, str]:
    """`diff --git a/X b/Y` → (X, Y); exact for ordinary paths (renames are confirmed by the
    `rename from/to` lines that follow)."""
    rest = line[len("diff --git ") :]
    if rest.startswith('"'):
        end = rest.index('" ', 1) + 1
        old, new = rest[:end], rest[end + 1 :]
        return _unquote(old)[2:], _unquote(new)[2:]
    # a/X b/X: the two halves are equal when the file kept its name
    half = (len(rest) - 1) // 2
    if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return rest[2:half], rest[half + 3 :]
    old, _, new = rest.partition(" b/")
    return old[2:], new
