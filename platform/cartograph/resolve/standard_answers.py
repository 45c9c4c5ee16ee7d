"""The answers about the standard library's classes (`resolve/standard.py`), as data: `Reach`,
what an inherited method may look up on its instance, and the JSON form both take on the pipe
to the process that computes them (`standard_process.py`) and in the cache file kept once per
interpreter and computing code (`AnswerCache`).

The cache file is `<folder>/<implementation>-<major.minor.micro>-<key>.json`, where the folder
is `$CARTOGRAPH_DATA/cache/stdlib` when the data folder is configured (a deployment keeps what
Cartograph writes on its volume: the API and the workers share it), else
`$XDG_CACHE_HOME/cartograph/stdlib` (`~/.cache/cartograph/stdlib`: what can be computed again
belongs in the cache folder), and the key a digest of `sys.version` (the build) and of the
source of every `cartograph` module the computing process runs. So a new Python or a changed
rule reads another file, computed anew. The folder is the user's only (0700, files 0600).

Writers (every computing process, of one indexer or of several at once) merge what they
computed with what the file holds under an exclusive lock on `<file>.lock`, into a temporary
file renamed over it: a reader sees the old file or the new one, never half of one, and no
writer drops another's answers. A file that cannot be read or does not hold this form is
ignored (and replaced by the next write): the answers are computed again, never a failed run.
The standard library only (the indexing process imports this module).
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cartograph.private import private_dir

# standard modules whose import does something (opens a browser, prints, starts a GUI)
IMPORT_SIDE_EFFECTS = frozenset(
    {"antigravity", "this", "turtle", "turtledemo", "tkinter", "idlelib", "__hello__", "__phello__"}
)
# the module the computing process runs (`python -m`); its `cartograph` imports, followed,
# are the computing code the cache key digests (and the index format reads)
PROCESS_MODULE = "cartograph.resolve.standard_process"
CACHE_FORMAT = 1
PACKAGE = Path(__file__).resolve().parent.parent  # platform/cartograph


def is_standard_module(top: str) -> bool:
    """Whether a top-level module name is one of the standard library's that may be imported
    to read its classes."""
    return top in sys.stdlib_module_names and top not in IMPORT_SIDE_EFFECTS


@dataclass(frozen=True, slots=True)
class Reach:
    """What calling an inherited standard-library method on an instance may look up on it
    (`standard.standard_method_reach`)."""

    looked_up: frozenset[str]  # names looked up: a method of the class by that name may run
    # names set or deleted on the instance: a property's setter or deleter by that name runs,
    # a method does not (`self.default = default` in `JSONEncoder.__init__`)
    stored: frozenset[str]
    # attributes of the instance whose strings were taken for names to look up
    # (`_type_equality_funcs`), and the functions whose parameters are stored there
    # (`addTypeEqualityFunc`): a class that sets the one or calls the other may put any name
    state: frozenset[str]
    feeds: frozenset[str]
    # the method may return the instance (or an object holding it) to its caller: the
    # repository's code, which the resolver reads
    returns: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "looked_up": sorted(self.looked_up),
            "stored": sorted(self.stored),
            "state": sorted(self.state),
            "feeds": sorted(self.feeds),
            "returns": self.returns,
        }

    @classmethod
    def from_json(cls, data: object) -> Reach:
        """The reach a JSON object describes; ValueError when it is not one."""
        if not isinstance(data, dict) or set(data) != set(REACH_FIELDS):
            raise ValueError("not a reach")
        if not isinstance(data["returns"], bool):
            raise ValueError("not a reach")
        return cls(
            looked_up=_names(data["looked_up"]),
            stored=_names(data["stored"]),
            state=_names(data["state"]),
            feeds=_names(data["feeds"]),
            returns=data["returns"],
        )


REACH_FIELDS = ("looked_up", "stored", "state", "feeds", "returns")


def _names(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of names")
    return frozenset(value)


def members_from_json(value: object) -> frozenset[str] | None:
    return None if value is None else _names(value)


def reach_from_json(value: object) -> Reach | None:
    return None if value is None else Reach.from_json(value)


def members_key(top: str, written: str) -> str:
    return json.dumps([top, written])


def reach_key(bases: tuple[tuple[str, str], ...], method: str) -> str:
    return json.dumps([[list(b) for b in bases], method])


# ---------------------------------------------------------------- the cache file
def cache_folder() -> Path:
    configured = os.environ.get("CARTOGRAPH_DATA")
    if configured:
        return Path(configured).expanduser() / "cache" / "stdlib"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cartograph" / "stdlib"


def computing_sources() -> list[Path]:
    """The files of the computing process's `cartograph` modules: `PROCESS_MODULE` and what
    it imports, followed (read with `ast`, nothing imported)."""
    pending, seen, files = [PROCESS_MODULE], set(), []
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        path = PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")
        if not path.is_file():
            continue  # a name imported from a module, or a package
        files.append(path)
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                pending += [a.name for a in node.names if a.name.startswith("cartograph.")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cartograph"):
                pending.append(str(node.module))
                pending += [f"{node.module}.{a.name}" for a in node.names]
    return sorted(files)


def cache_path(folder: Path | None = None) -> Path:
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    for path in computing_sources():
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    version = ".".join(map(str, sys.version_info[:3]))
    name = f"{sys.implementation.name}-{version}-{digest.hexdigest()[:16]}.json"
    return (folder or cache_folder()) / name


@dataclass
class Answers:
    """Answers by key (`members_key`, `reach_key`), in their JSON form."""

    members: dict[str, Any]
    reach: dict[str, Any]

    def __len__(self) -> int:
        return len(self.members) + len(self.reach)


class AnswerCache:
    """The cache file of this interpreter and computing code."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def signature(self) -> tuple[int, int] | None:
        """What changes when the file is replaced (None: no file)."""
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return found.st_ino, found.st_mtime_ns

    def read(self) -> Answers:
        """What the file holds; nothing when it is missing, unreadable or of another form."""
        try:
            data = json.loads(self.path.read_bytes())
            if (
                not isinstance(data, dict)
                or data.get("format") != CACHE_FORMAT
                or data.get("python") != sys.version
                or not isinstance(data.get("members"), dict)
                or not isinstance(data.get("reach"), dict)
            ):
                raise ValueError("another form")
            for value in data["members"].values():
                members_from_json(value)
            for value in data["reach"].values():
                reach_from_json(value)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return Answers({}, {})
        return Answers(data["members"], data["reach"])

    def add(self, new: Answers) -> None:
        """Merge `new` into the file (under its lock, written whole and renamed over it)."""
        folder = private_dir(self.path.parent)
        lock = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held = self.read()
            held.members.update(new.members)
            held.reach.update(new.reach)
            data = {
                "format": CACHE_FORMAT,
                "python": sys.version,
                "members": held.members,
                "reach": held.reach,
            }
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=".stdlib-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp makes it 0600
                    json.dump(data, out, sort_keys=True, separators=(",", ":"))
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        finally:
            os.close(lock)  # (releases the lock)
