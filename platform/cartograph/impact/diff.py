"""Unified diffs: parsed into files and hunks, and applied to old file contents.

Reads what `git diff` (renames, copies, mode changes, binary files), `git format-patch` and
`diff -u` write. Standard library only; nothing here calls git.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cartograph.errors import CartographError, ErrorKind

MAX_PATCH_BYTES = 20 * 1024 * 1024
MAX_PATCH_FILES = 10_000  # files one patch may change (impact reads every one, both sides)

_HUNK_HEADER = re.compile(r"@@ -(\d{1,18})(?:,(\d{1,18}))? \+(\d{1,18})(?:,(\d{1,18}))? @@(.*)")
_BINARY_FILES = re.compile(r"Binary files (.+) and (.+) differ")
_BINARY_BLOCK = re.compile(r"(?:literal|delta) \d+")
_SIMILARITY = re.compile(r"similarity index (\d{1,3})%")
_OCTAL_ESCAPE = re.compile(r"[0-3][0-7][0-7]")
# the escapes of git's C-quoted paths, besides octal bytes
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class PatchError(CartographError):
    """A patch that cannot be read (no diff in it, a malformed hunk, too large) or applied."""

    kind = ErrorKind.INVALID


class PatchMismatch(PatchError):
    """A hunk whose context and removed lines are not in the old content."""


@dataclass(slots=True)
class _Run:
    """Consecutive changed lines of a hunk: where they sit on each side and which they are."""

    old_position: int  # the old line at the run's start (the line after it, for an insertion)
    new_position: int
    removed: list[int]
    added: list[int]
    next_line_exists: bool  # a line follows the run (or, in a hunk without context, may)


@dataclass(slots=True)
class Hunk:
    """One `@@ -old_start,old_count +new_start,new_count @@ header` block. With a count of 0
    the start is the line after which the empty range sits."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[tuple[str, str]]  # (" " context | "-" removed | "+" added, text without "\n")
    header: str = ""  # the text after the second @@, often the enclosing function
    old_missing_newline: bool = False  # the old side's last line has no newline at end of file
    new_missing_newline: bool = False  # the new side's last line has no newline at end of file

    def old_lines(self) -> list[int]:
        """Old-file line numbers (1-based) of the removed lines."""
        return [line for run in _changed_runs(self) for line in run.removed]

    def new_lines(self) -> list[int]:
        """New-file line numbers (1-based) of the added lines."""
        return [line for run in _changed_runs(self) for line in run.added]


@dataclass(slots=True)
class FileDiff:
    """The change of one file. Paths have no a/ b/ prefixes."""

    old_path: str | None  # None for an added file
    new_path: str | None  # None for a deleted file
    status: str  # "added" | "deleted" | "modified" | "renamed" | "copied" | "mode"
    binary: bool
    hunks: list[Hunk]
    similarity: int | None = None  # of a rename or copy, in percent

    @property
    def path(self) -> str:
        """The new path, or the old one for a deleted file."""
        return self.new_path or self.old_path or ""

    def changed_old_lines(self) -> set[int]:
        """Old-file lines the change touches: the removed lines and, around an insertion, the
        old lines on either side of it (so an insertion in a function's body touches it)."""
        if self.old_path is None:
            return set()
        touched: set[int] = set()
        for hunk in self.hunks:
            for run in _changed_runs(hunk):
                touched.update(run.removed or _neighbours(run.old_position, run.next_line_exists))
        return touched

    def changed_new_lines(self) -> set[int]:
        """New-file lines the change touches: the added lines and, around a deletion, the new
        lines on either side of where it happened."""
        if self.new_path is None:
            return set()
        touched: set[int] = set()
        for hunk in self.hunks:
            for run in _changed_runs(hunk):
                touched.update(run.added or _neighbours(run.new_position, run.next_line_exists))
        return touched


@dataclass(slots=True)
class Patch:
    """The file diffs of a patch, in its order."""

    files: list[FileDiff]

    @property
    def empty(self) -> bool:
        """Whether the patch changes no file."""
        return not self.files


def parse_patch(data: str | bytes) -> Patch:
    """The files and hunks of a unified diff: `git diff` (also -M, -C, --binary), `git
    format-patch` mail or `diff -u` output, with LF or CRLF line endings. Bytes are read as
    UTF-8, undecodable bytes kept as surrogate escapes. Empty or blank input is an empty patch.

    Raises PatchError when the text holds no diff, a hunk header does not parse or a hunk's
    lines do not match its header's counts, and (kind TOO_LARGE) beyond MAX_PATCH_BYTES or
    MAX_PATCH_FILES files."""
    if _size_in_bytes(data) > MAX_PATCH_BYTES:
        raise PatchError(
            f"the patch is larger than {MAX_PATCH_BYTES // (1024 * 1024)} MiB: "
            "split it, or give the changes of fewer files",
            ErrorKind.TOO_LARGE,
        )
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return Patch([])
    files = _Parser(text).parse()
    if not files:
        raise PatchError(
            "no diff found: give the output of `git diff`, `git format-patch` or `diff -u`"
        )
    return Patch(files)


def apply(old: str, diff: FileDiff, fuzz_lines: int = 0) -> str:
    """The new content of `diff`'s file, given its old content.

    Each hunk is tried at its stated old line (shifted as far as the previous hunk was), then
    at ever farther lines after the previous hunk, nearest first, as `patch` does. Context is
    matched exactly, except that with `fuzz_lines` up to that many of a hunk's outer context
    lines may be left out when it fits nowhere whole. Old lines keep their endings; an added
    line keeps the CR the diff gives it, or else takes CRLF when the old text's first line
    ends so. Raises PatchMismatch when a hunk fits nowhere, PatchError for a binary diff."""
    if fuzz_lines < 0:
        raise ValueError(f"fuzz_lines must be 0 or more, not {fuzz_lines}")
    if diff.binary:
        if diff.status == "deleted":
            return ""
        raise PatchError(f"{diff.path}: a binary diff cannot be applied")
    old_lines = _split_lines(old)
    old_keys = [_without_line_ending(line) for line in old_lines]
    crlf = bool(old_lines) and old_lines[0].endswith("\r\n")
    new_lines: list[str] = []
    consumed = 0  # the old lines before this index are copied or replaced
    offset = 0  # how far the previous hunk was from its stated line
    for number, hunk in enumerate(diff.hunks, 1):
        placed = _place(hunk, old_keys, consumed, offset, fuzz_lines)
        if placed is None:
            raise PatchMismatch(
                f"{diff.path}: hunk {number} (@@ -{hunk.old_start},{hunk.old_count} "
                f"+{hunk.new_start},{hunk.new_count} @@) does not apply: its context and removed "
                f"lines, stated at old line {hunk.old_start}, are nowhere in the old content"
            )
        start, leading, trailing, offset = placed
        new_lines.extend(old_lines[consumed:start])
        position = start
        unterminated = _unterminated_added_line(hunk)
        for index in range(leading, len(hunk.lines) - trailing):
            tag, text = hunk.lines[index]
            if tag == " ":
                new_lines.append(old_lines[position])
                position += 1
            elif tag == "-":
                position += 1
            elif index == unterminated:
                new_lines.append(text)
            else:
                new_lines.append(text + ("\r\n" if crlf and not text.endswith("\r") else "\n"))
        consumed = position
    new_lines.extend(old_lines[consumed:])
    return "" if diff.status == "deleted" else "".join(new_lines)


def _size_in_bytes(data: str | bytes) -> int:
    if isinstance(data, bytes) or len(data) > MAX_PATCH_BYTES:
        return len(data)  # a character is at least a byte
    return len(data.encode("utf-8", "surrogatepass"))


def _within_file_limit(files: list[FileDiff]) -> None:
    if len(files) > MAX_PATCH_FILES:
        raise PatchError(
            f"the patch changes more than {MAX_PATCH_FILES:,} files, the most impact reads: "
            "split it, or give the changes of fewer files",
            ErrorKind.TOO_LARGE,
        )


def _changed_runs(hunk: Hunk) -> list[_Run]:
    runs: list[_Run] = []
    old_line = hunk.old_start if hunk.old_count else hunk.old_start + 1
    new_line = hunk.new_start if hunk.new_count else hunk.new_start + 1
    # without context a hunk cannot tell whether a line follows it (git diff -U0)
    has_context = any(tag == " " for tag, _ in hunk.lines)
    run: _Run | None = None
    for tag, _ in hunk.lines:
        if tag == " ":
            if run is not None:
                run.next_line_exists = True
                run = None
            old_line += 1
            new_line += 1
            continue
        if run is None:
            run = _Run(old_line, new_line, [], [], next_line_exists=not has_context)
            runs.append(run)
        if tag == "-":
            run.removed.append(old_line)
            old_line += 1
        else:
            run.added.append(new_line)
            new_line += 1
    return runs


def _neighbours(position: int, next_line_exists: bool) -> set[int]:
    """The lines on either side of a gap just before line `position`."""
    lines = {position} if next_line_exists else set()
    if position > 1:
        lines.add(position - 1)
    return lines


def _split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its "\n" (the last may have none); only "\n" ends one."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


def _without_line_ending(line: str) -> str:
    return line.removesuffix("\n").removesuffix("\r")


def _leading_context(lines: Iterable[tuple[str, str]]) -> int:
    count = 0
    for tag, _ in lines:
        if tag != " ":
            break
        count += 1
    return count


def _place(
    hunk: Hunk, old_keys: list[str], earliest: int, offset: int, fuzz_lines: int
) -> tuple[int, int, int, int] | None:
    """Where `hunk` fits in the old lines, at `earliest` or after: the index of its first
    matched old line, the leading and trailing context lines left out, and its offset from
    the stated line. None when it fits nowhere."""
    stated = hunk.old_start - 1 if hunk.old_count else hunk.old_start
    leading_context = _leading_context(hunk.lines)
    trailing_context = _leading_context(reversed(hunk.lines))
    for fuzz in range(min(fuzz_lines, max(leading_context, trailing_context)) + 1):
        leading, trailing = min(fuzz, leading_context), min(fuzz, trailing_context)
        lines = hunk.lines[leading : len(hunk.lines) - trailing]
        pattern = [_without_line_ending(text) for tag, text in lines if tag != "+"]
        expected = stated + leading + offset
        if not pattern:
            if earliest <= expected <= len(old_keys):
                return expected, leading, trailing, offset
            continue
        for start in _nearest_first(expected, earliest, len(old_keys) - len(pattern)):
            if old_keys[start : start + len(pattern)] == pattern:
                return start, leading, trailing, start - stated - leading
    return None


def _nearest_first(expected: int, low: int, high: int) -> Iterator[int]:
    """low..high, starting at `expected` and moving out, the later position first."""
    if high < low:
        return
    expected = min(max(expected, low), high)
    yield expected
    for distance in range(1, max(high - expected, expected - low) + 1):
        if expected + distance <= high:
            yield expected + distance
        if expected - distance >= low:
            yield expected - distance


def _unterminated_added_line(hunk: Hunk) -> int | None:
    """The index of the hunk's last new-side line if it is added without a newline."""
    if not hunk.new_missing_newline:
        return None
    for index in range(len(hunk.lines) - 1, -1, -1):
        tag = hunk.lines[index][0]
        if tag != "-":
            return index if tag == "+" else None
    return None


def _unquote(text: str) -> tuple[str, int] | None:
    """A C-quoted path at the start of `text` (as git writes one) and the index after its
    closing quote; None when it does not parse."""
    pieces: list[str] = []
    escaped = bytearray()  # octal bytes, decoded together: they spell UTF-8 sequences
    index = 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            code = text[index + 1 : index + 4]
            if _OCTAL_ESCAPE.fullmatch(code):
                escaped.append(int(code, 8))
                index += 4
                continue
            if code[:1] not in _C_ESCAPES:
                return None
            escaped.append(_C_ESCAPES[code[:1]])
            index += 2
            continue
        pieces.append(escaped.decode("utf-8", "surrogateescape"))
        escaped.clear()
        if char == '"':
            return "".join(pieces), index + 1
        pieces.append(char)
        index += 1
    return None


def _git_header_names(names: str) -> tuple[str, str] | None:
    """The two names of `diff --git <old> <new>`, as written (with prefixes), or None when
    they cannot be told apart (the rename, copy or ---/+++ lines then name the file)."""
    if names.startswith('"'):
        first = _unquote(names)
        if first is None or names[first[1] : first[1] + 1] != " ":
            return None
        rest = names[first[1] + 1 :]
        second = _unquote(rest) if rest.startswith('"') else (rest, len(rest))
        return (first[0], second[0]) if second is not None else None
    if names.endswith('"'):
        old, space, quoted = names.partition(' "')
        second = _unquote('"' + quoted) if space else None
        return (old, second[0]) if second is not None else None
    # unquoted names may hold spaces: git writes the same name twice unless it was renamed
    middle = len(names) // 2
    old, new = names[:middle], names[middle + 1 :]
    if len(names) % 2 and names[middle] == " " and _same_but_prefix(old, new):
        return old, new
    if names.count(" ") == 1:
        old, _, new = names.partition(" ")
        return old, new
    old, space, new = names.partition(" b/")
    return (old, "b/" + new) if space else None


def _same_but_prefix(old: str, new: str) -> bool:
    """Whether two names differ at most in their first component (a/x and b/x)."""
    if old == new:
        return True
    return "/" in old and "/" in new and old.partition("/")[2] == new.partition("/")[2]


def _without_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """Paths without the a/ and b/ of git and of `diff -u a/... b/...`."""
    if (old is None or old.startswith("a/")) and (new is None or new.startswith("b/")):
        return (old and old[2:]) or None, (new and new[2:]) or None
    return old, new


def _status(old: str | None, new: str | None) -> str:
    return "added" if old is None else "deleted" if new is None else "modified"


class _Parser:
    """Reads a patch's lines in one pass, from the first file header to the end."""

    def __init__(self, text: str) -> None:
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
            terminated = lines
        else:
            terminated = lines[:-1]
        # a patch sent with CRLF line endings (mail, Windows): its CRs are no part of the text
        if terminated and all(line.endswith("\r") for line in terminated):
            lines = [line.removesuffix("\r") for line in lines]
        self.lines = lines
        self.index = 0

    def parse(self) -> list[FileDiff]:
        files: list[FileDiff] = []
        while self.index < len(self.lines):
            _within_file_limit(files)  # refused as soon as known, not after reading them all
            line = self._header_at(self.index)
            binary = _BINARY_FILES.fullmatch(line)
            if line.startswith("diff --git "):
                files.append(self._git_file())
            elif line.startswith("--- ") and self._header_at(self.index + 1).startswith("+++ "):
                old, new = self._file_header_names()
                files.append(FileDiff(old, new, _status(old, new), False, self._hunks(new or old)))
            elif binary is not None:
                old, new = self._names(*(self._diff_name(name) for name in binary.groups()))
                self.index += 1
                files.append(FileDiff(old, new, _status(old, new), True, []))
            elif _HUNK_HEADER.fullmatch(line):
                raise self._error("a hunk without a file header (--- and +++ lines) before it")
            else:
                self.index += 1  # mail headers, a commit message, `diff -r` lines
        _within_file_limit(files)
        return files

    def _git_file(self) -> FileDiff:
        names = _git_header_names(self._header_at(self.index).removeprefix("diff --git "))
        old, new = self._names(*names) if names is not None else (None, None)
        status = "modified"
        mode_changed = binary = False
        similarity: int | None = None
        hunks: list[Hunk] = []
        self.index += 1
        while self.index < len(self.lines):
            line = self._header_at(self.index)
            self.index += 1
            if line.startswith(("old mode ", "new mode ")):
                mode_changed = True
            elif line.startswith("new file mode "):
                status = "added"
            elif line.startswith("deleted file mode "):
                status = "deleted"
            elif line.startswith(("rename from ", "copy from ")):
                status = "renamed" if line.startswith("rename") else "copied"
                old = self._path(line.partition(" from ")[2])
            elif line.startswith(("rename to ", "copy to ")):
                new = self._path(line.partition(" to ")[2])
            elif similar := _SIMILARITY.fullmatch(line):
                similarity = int(similar[1])
            elif line.startswith(("index ", "dissimilarity index ")):
                pass
            elif _BINARY_FILES.fullmatch(line):
                binary = True
                break
            elif line == "GIT binary patch":
                binary = True
                self._skip_binary_blocks()
                break
            elif line.startswith("--- "):
                self.index -= 1
                header_old, header_new = self._file_header_names()
                if header_old is None:
                    status = "added"
                if header_new is None:
                    status = "deleted"
                if status not in ("renamed", "copied"):
                    old, new = header_old or old, header_new or new
                hunks = self._hunks(new or old)
                break
            else:
                self.index -= 1  # the next file's header, or what follows the patch
                break
        if status == "added":
            old = None
        elif status == "deleted":
            new = None
        elif status == "modified" and mode_changed and not hunks and not binary:
            status = "mode"
        if old is None and new is None:
            raise self._error("a `diff --git` header whose file names cannot be told")
        return FileDiff(old, new, status, binary, hunks, similarity)

    def _file_header_names(self) -> tuple[str | None, str | None]:
        """The names of the `--- old` and `+++ new` lines at the index, which it passes."""
        new_line = self._header_at(self.index + 1)
        if not new_line.startswith("+++ "):
            raise self._error("a `--- ` line not followed by a `+++ ` line")
        old = self._diff_name(self._header_at(self.index)[4:])
        new = self._diff_name(new_line[4:])
        self.index += 2
        return self._names(old, new)

    def _diff_name(self, text: str) -> str | None:
        """The path of a ---/+++ or Binary files line (None for /dev/null), less a timestamp."""
        name = self._path(text) if text.startswith('"') else text.partition("\t")[0]
        if not name:
            raise self._error("a file header without a file name")
        return None if name == "/dev/null" else name

    def _path(self, text: str) -> str:
        if not text.startswith('"'):
            return text
        unquoted = _unquote(text)
        if unquoted is None:
            raise self._error(f"a quoted path that does not parse: {text!r}")
        return unquoted[0]

    def _names(self, old: str | None, new: str | None) -> tuple[str | None, str | None]:
        if old is None and new is None:
            raise self._error("a file header naming /dev/null on both sides")
        return _without_prefixes(old, new)

    def _skip_binary_blocks(self) -> None:
        """Passes the base85 blocks of a `GIT binary patch` (forward, then reverse)."""
        while _BINARY_BLOCK.fullmatch(self._header_at(self.index)):
            self.index += 1
            while self._header_at(self.index):
                self.index += 1
            self.index += 1  # the blank line that ends a block

    def _hunks(self, path: str | None) -> list[Hunk]:
        hunks: list[Hunk] = []
        while self._header_at(self.index).startswith("@@"):
            hunks.append(self._hunk(path or "", len(hunks) + 1))
        if not hunks:
            raise self._error(f"{path}: a file header without a hunk (@@ line) after it")
        return hunks

    def _hunk(self, path: str, number: int) -> Hunk:
        header_index = self.index
        header = self._header_at(header_index)
        match = _HUNK_HEADER.fullmatch(header)
        if match is None:
            if header.startswith("@@@"):
                raise self._error(f"{path}: combined diffs (of merges) are not supported")
            raise self._error(f"{path}: hunk {number}: the header does not parse: {header!r}")
        old_count = 1 if match[2] is None else int(match[2])
        new_count = 1 if match[4] is None else int(match[4])
        hunk = Hunk(int(match[1]), old_count, int(match[3]), new_count, [], match[5].strip())
        old_left, new_left = old_count, new_count
        self.index += 1
        while (old_left or new_left) and self.index < len(self.lines):
            line = self.lines[self.index]
            tag, text = line[:1], line[1:]
            if tag == "\\" and hunk.lines:
                self._mark_missing_newline(hunk)
            elif tag in (" ", "") and old_left and new_left:
                old_left -= 1
                new_left -= 1
                hunk.lines.append((" ", text))  # an empty line: context whose space was lost
            elif tag == "-" and old_left:
                old_left -= 1
                hunk.lines.append((tag, text))
            elif tag == "+" and new_left:
                new_left -= 1
                hunk.lines.append((tag, text))
            else:
                break
            self.index += 1
        if self.index < len(self.lines) and self.lines[self.index].startswith("\\") and hunk.lines:
            self._mark_missing_newline(hunk)
            self.index += 1
        if old_left or new_left:
            raise self._error(
                f"{path}: hunk {number} ({header.strip()}) holds {old_count - old_left} old and "
                f"{new_count - new_left} new lines where its header says {old_count} and "
                f"{new_count}: the patch is truncated or was edited by hand",
                header_index,
            )
        if self._continues_hunk():
            raise self._error(
                f"{path}: hunk {number} ({header.strip()}) has more lines than its header says "
                f"({old_count} old, {new_count} new): the patch was edited by hand",
                header_index,
            )
        return hunk

    def _continues_hunk(self) -> bool:
        """Whether the line after a complete hunk still reads as one of its lines."""
        line = self._header_at(self.index)
        if line[:1] not in (" ", "-", "+") or line.rstrip() == "--":  # format-patch's signature
            return False
        return not (line.startswith("--- ") and self._header_at(self.index + 1).startswith("+++ "))

    def _mark_missing_newline(self, hunk: Hunk) -> None:
        """Records a `\\ No newline at end of file` on the side(s) of the line before it."""
        tag = hunk.lines[-1][0]
        if tag != "+":
            hunk.old_missing_newline = True
        if tag != "-":
            hunk.new_missing_newline = True

    def _header_at(self, index: int) -> str:
        """The line at `index` without a CR ("" past the end): headers never hold one."""
        return self.lines[index].removesuffix("\r") if index < len(self.lines) else ""

    def _error(self, message: str, index: int | None = None) -> PatchError:
        line = (self.index if index is None else index) + 1
        return PatchError(f"patch line {line}: {message}")
