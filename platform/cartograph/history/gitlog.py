"""One streaming pass over `git log`: commits with their authors and, per file, the hunks.

`git log -p -U0 -M --topo-order` gives, for every non-merge commit, the lines each file lost and
gained (no context), with renames detected; merges show no diff. Authors come through `.mailmap`
(`%aN`, `%aE`). The output is read line by line, so memory does not grow with the history.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_START = "\x1e\x1f"  # record separator: never in a patch or a commit message
_FORMAT = f"{_START}%H%x1f%P%x1f%aN%x1f%aE%x1f%aI%x1f%B%x1e"
_CONTENT = frozenset("+- ")  # first characters of patch lines (and of ---/+++ file headers)
_STATUS = frozenset("ACDMRTU")  # --name-status letters
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
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
    command = [
        "git",
        "-C",
        str(root),
        "-c",
        "core.quotepath=off",
        "log",
        "--topo-order",
        "--no-color",
        "-M",
        *diff,
        f"--format={_FORMAT}",
        revisions,
        "--",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"
    )
    assert process.stdout is not None
    try:
        yield from _parse(process.stdout)
    finally:
        process.stdout.close()
        error = process.stderr.read() if process.stderr else ""
        code = process.wait()
        if code not in (0, -13) and code is not None:  # -13: we stopped reading early
            raise RuntimeError(f"git log failed ({code}): {error.strip()[:300]}")


def _parse(lines) -> Iterator[CommitRecord]:
    commit: CommitRecord | None = None
    header: list[str] | None = None
    change: FileChange | None = None
    for line in lines:
        # most lines are a patch's content, not needed: drop them before anything else
        # (a message line may start like them, but it is read only while `header` is open)
        if line[:1] in _CONTENT and header is None:
            continue
        if line.startswith(_START):
            if commit is not None:
                yield commit
            header = [line[len(_START) :]]
            commit = None
            change = None
            if "\x1e" in header[0]:
                commit = _header(header)
                header = None
            continue
        if header is not None:  # the message may span lines until its \x1e
            header.append(line)
            if "\x1e" in line:
                commit = _header(header)
                header = None
            continue
        if commit is None:
            continue
        if "\t" in line and line[:1] in _STATUS:  # --name-status: "M\tpath", "R090\told\tnew"
            commit.changes.append(_name_status(line.rstrip("\n")))
            continue
        if line.startswith("diff --git "):
            change = FileChange(None, None)
            commit.changes.append(change)
            paths = _diff_paths(line.rstrip("\n"))
            change.old_path, change.new_path = paths
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
    if commit is not None:
        yield commit


def _header(parts: list[str]) -> CommitRecord:
    text = "".join(parts)
    text = text[: text.index("\x1e")]
    sha, parents, name, email, at, message = text.split("\x1f", 5)
    return CommitRecord(
        sha=sha,
        parents=parents.split(),
        author_name=name.strip(),
        author_email=normalize_email(email),
        at=at,
        message=message.strip()[:4000],
    )


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
