"""Which files belong to a repository, and which are skipped (with the reason `stats` shows).

In a git work tree the list comes from `git ls-files` (tracked plus untracked-but-not-ignored,
so .gitignore is respected); elsewhere from a walk that leaves out the usual generated and
vendored folders. Symlinks are never followed out of the repository.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from cartograph.errors import CartographError
from cartograph.languages import language_of
from cartograph.model import Skipped

DEFAULT_MAX_BYTES = 1024 * 1024
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".env",
        "env",
        "node_modules",
        "build",
        "dist",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        "site-packages",
        ".idea",
        ".vscode",
        "htmlcov",
        ".cache",
        "target",
    }
)
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.cjs", "-min.js", ".bundle.js")


@dataclass(slots=True)
class SourceFile:
    path: str  # relative, '/'-separated
    size: int
    mtime_ns: int
    language: str


@dataclass(slots=True)
class Discovery:
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    other_paths: list[str] = field(default_factory=list)  # files of no indexed language
    git: bool = False
    head_sha: str = ""
    branch: str = ""
    dirty: bool = False
    partial: bool = False  # only some named files were looked at (see discover_paths)
    missing: list[str] = field(default_factory=list)  # named files that do not exist

    @property
    def all_paths(self) -> set[str]:
        return {f.path for f in self.files} | set(self.other_paths)


class DiscoveryError(CartographError):
    """The path cannot be indexed at all (missing, not a folder, unreadable)."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def _git_many(root: Path, *commands: tuple[str, ...]) -> list[tuple[int, bytes]]:
    """Run git commands side by side (a listing and a status each stat the whole tree)."""
    running = [
        subprocess.Popen(
            ["git", "-C", str(root), *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        for args in commands
    ]
    results = []
    for process in running:
        out, _ = process.communicate()
        results.append((process.returncode, out))
    return results


def _git_listing(root: Path, result: Discovery) -> list[bytes] | None:
    """Tracked and untracked-but-not-ignored files of a git work tree (None: not one), with
    its HEAD, branch and whether it has uncommitted changes."""
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        return None
    ignored, listed, head, status = _git_many(
        root,
        ("check-ignore", "-q", "."),
        ("ls-files", "-z", "--cached", "--others", "--exclude-standard"),
        ("rev-parse", "HEAD", "--abbrev-ref", "HEAD"),
        ("status", "--porcelain", "--untracked-files=no"),
    )
    if ignored[0] == 0 or listed[0] != 0:
        return None  # a folder the enclosing repository ignores: not its files, walk it
    result.git = True
    if head[0] == 0:
        result.head_sha, result.branch = _head_and_branch(head[1])
    result.dirty = bool(status[1].strip())
    return [p for p in listed[1].split(b"\0") if p]


def _head_and_branch(output: bytes) -> tuple[str, str]:
    """Output of `git rev-parse HEAD --abbrev-ref HEAD`."""
    lines = [*output.decode().split(), "", ""]
    return lines[0], lines[1]


def _walk_paths(root: Path) -> list[bytes]:
    """Relative paths of the files under root, never entering ignored or symlinked folders."""
    found: list[bytes] = []
    pending: list[tuple[bytes, bytes]] = [(os.fsencode(root), b"")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if os.fsdecode(name) not in IGNORED_DIRS and not name.endswith(b".egg-info"):
                    pending.append((entry.path, prefix + name + b"/"))
            else:
                found.append(prefix + name)
    return found


def discover(root: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> Discovery:
    root_path = _existing_folder(root)
    result = Discovery(root_path)
    raw_paths = _git_listing(root_path, result)
    if raw_paths is None:
        raw_paths = _walk_paths(root_path)
    folders: dict[str, bool] = {}
    for raw in sorted(set(raw_paths)):
        _classify(root_path, raw, max_bytes, result, folders)
    return result


def discover_paths(
    root: str | os.PathLike[str], paths: list[str], max_bytes: int = DEFAULT_MAX_BYTES
) -> Discovery:
    """Look only at the named files (relative to root), e.g. the ones an agent just edited."""
    root_path = _existing_folder(root)
    result = Discovery(root_path, partial=True)
    # whether the work tree has uncommitted changes is a question about all of it: one status
    # (it compares file stats with git's index, so it costs little), beside the HEAD
    head, status = _git_many(
        root_path,
        ("rev-parse", "HEAD", "--abbrev-ref", "HEAD"),
        ("status", "--porcelain", "--untracked-files=no"),
    )
    if head[0] == 0:
        result.git = True
        result.head_sha, result.branch = _head_and_branch(head[1])
        result.dirty = status[0] == 0 and bool(status[1].strip())
    for path in dict.fromkeys(paths):
        relative = os.path.relpath(os.path.join(root_path, path), root_path).replace(os.sep, "/")
        if relative.startswith("../"):
            raise DiscoveryError(f"{path} is outside {root_path}")
        if not os.path.lexists(os.path.join(root_path, relative)):
            result.missing.append(relative)
            continue
        _classify(root_path, os.fsencode(relative), max_bytes, result, {})
    return result


def _existing_folder(root: str | os.PathLike[str]) -> Path:
    root_path = Path(root).expanduser()
    if not root_path.exists():
        raise DiscoveryError(f"{root_path} does not exist")
    if not root_path.is_dir():
        raise DiscoveryError(f"{root_path} is not a folder")
    return root_path.resolve()


def _classify(
    root: Path, raw: bytes, max_bytes: int, result: Discovery, folders: dict[str, bool]
) -> None:
    """Keep or skip one listed file; `folders` remembers which folders were found free of
    symlinks in this listing (each is looked at once, not once per file in it)."""
    try:
        path = raw.decode("utf-8")
    except UnicodeDecodeError:
        result.skipped.append(
            Skipped(raw.decode("utf-8", "replace"), "file name is not valid UTF-8")
        )
        return
    if (
        "\n" in path
        or "\r" in path
        or "\0" in path
        or path.startswith("/")
        or ".." in path.split("/")
    ):
        result.skipped.append(Skipped(path.replace("\n", "\\n"), "unsafe file name"))
        return
    language = language_of(path)
    if language is None:
        # not indexed: only its name matters (project files mark source roots)
        result.other_paths.append(path)
        return
    if path.endswith(MINIFIED_SUFFIXES):
        result.skipped.append(Skipped(path, "minified bundle"))
        return
    full = f"{root}/{path}"
    try:
        info = os.lstat(full)
    except OSError:
        return  # listed by git but deleted from the work tree
    if stat.S_ISLNK(info.st_mode):
        target = os.path.realpath(full)
        if os.path.commonpath([target, str(root)]) != str(root):
            result.skipped.append(Skipped(path, "symlink leaves the repository"))
        else:
            result.skipped.append(Skipped(path, "symlink (its target is indexed instead)"))
        return
    if not _folder_inside(root, path.rpartition("/")[0], folders):
        result.skipped.append(Skipped(path, "a folder on its path is a symlink"))
        return
    if not stat.S_ISREG(info.st_mode):
        return
    if info.st_size > max_bytes:
        result.skipped.append(Skipped(path, f"larger than {max_bytes} bytes", info.st_size))
        return
    result.files.append(SourceFile(path, info.st_size, info.st_mtime_ns, language))


def is_inside(root: Path, path: str) -> bool:
    """Whether `path` (relative to the resolved `root`) reaches a file of the work tree through
    no symlink at all: git never stores files under a symlinked folder, so a link on the way
    means the tree was changed to reach elsewhere (`ln/secret.py` with `ln -> /outside`)."""
    full = os.path.join(root, path)
    return os.path.realpath(full) == os.path.normpath(full)


def _folder_inside(root: Path, folder: str, known: dict[str, bool]) -> bool:
    """Whether a folder of the work tree (relative to the resolved `root`, "" for the root)
    is reached through no symlink: each folder on the way is a real folder (see `is_inside`)."""
    if not folder:
        return True
    found = known.get(folder)
    if found is None:
        parent = folder.rpartition("/")[0]
        try:
            info = os.lstat(os.path.join(root, folder))
        except OSError:
            found = False
        else:
            found = stat.S_ISDIR(info.st_mode) and _folder_inside(root, parent, known)
        known[folder] = found
    return found


def read_inside(root: Path, path: str) -> bytes | None:
    """The bytes of a repository file, or None when it is missing, unreadable, a symlink or
    reached through one (see `is_inside`): nothing outside the work tree is ever read."""
    if not is_inside(root, path):
        return None
    try:
        descriptor = os.open(os.path.join(root, path), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read()


def read_source(root: Path, source: SourceFile) -> tuple[bytes | None, str, str]:
    """(the file's text as UTF-8 bytes, or None; the reason it is skipped; sha256 of the raw
    bytes on disk)."""
    if not is_inside(root, source.path):
        return None, "a folder on its path is a symlink", ""
    try:
        descriptor = os.open(root / source.path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}", ""
    sha = hashlib.sha256(raw).hexdigest()
    if b"\0" in raw[:8192]:
        return None, "binary file", sha
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        declared = _declared_encoding(raw)
        if declared is None:
            return None, "not valid UTF-8 (and no coding declaration)", sha
        try:
            return raw.decode(declared).encode("utf-8"), "", sha
        except (LookupError, UnicodeDecodeError):
            return None, f"not valid {declared}", sha
    return raw, "", sha


def _declared_encoding(data: bytes) -> str | None:
    """PEP 263 coding cookie on the first two lines."""
    for line in data.split(b"\n", 2)[:2]:
        match = re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            return match.group(1).decode("ascii", "replace")
    return None


class WorkTreeFiles:
    """A work tree's files that are not parsed, as a resolver asks for them: the names of the
    files of no indexed language (`other_paths`: tsconfig.json, package.json steer
    TypeScript's imports) and their bytes (`read`); nothing when `root` is None."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def other_paths(self) -> list[str]:
        return discover(self.root).other_paths if self.root is not None else []

    def read(self, path: str) -> bytes | None:
        return read_inside(self.root, path) if self.root is not None else None
