"""A repository's walk graph (`impact.graph.RepoEdges`) as one file that processes map instead
of holding it in dictionaries: integer arrays, built once per index state and shared through
the page cache by every process of a host.

Read whole into Python, Django's walk graph costs each process about 180 MB and 3 s; mapped,
a process holds a few small tables and reads the pages a walk touches. The file:

- `MAGIC`, then a little-endian uint32 giving the length of a JSON header (what is small or
  rarely read: the index state, the vocabularies of vias and reasons, the test files, getattr
  calls, external bases, opaque tests, and where each array starts), then the arrays, each at
  a multiple of 8 bytes;
- the symbol ids as a string table (`ids`: UTF-8 bytes, uint32 offsets, and an
  open-addressing hash table of uint32 slots keyed by CRC-32, so finding an id reads one or two
  of them), and the same for names (`names`: those unresolved calls call, and each id's last
  name);
- each id's owner (`owners`: the index of the id before its last dot when that is a symbol,
  every such owner being an id of the table; else NO_OWNER) and its last name (`members`: an
  index into `names`), so a walk finds a method's class and name without reading it as text;
  and each id's members (`children`: CSR, by last name's index, for a class's method by name);
- the callers of each id in CSR form (`callers.start`: uint32 offsets by target; `.src`:
  uint32 ids; `.via`: uint8 into the vias; `.weight`: float64, the weights `_load` computed,
  unrounded), each list in the order `_load` made it;
- the bases of each class (CSR, in declared order), one flag byte per id (a function of test
  code, a module, an id of another repository, a class with a base from outside), and the
  unresolved calls by the name they call (CSR of source and reason).

A file is named by the index state it was built at and the code that derives it
(`derivation()`: a digest of the library's modules), so a write that changes an edge, or
another version of Cartograph, never reads an old one. It is written beside a temporary name and
renamed into place; the processes of a host take turns to build one (impact.graph).
"""

from __future__ import annotations

import array
import bisect
import hashlib
import json
import mmap
import os
import struct
import sys
import zlib
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

MAGIC = b"CGWALK2\0"
NO_OWNER = 0xFFFFFFFF  # `owners`: the id is not a member of a symbol
_LENGTH = struct.Struct("<I")
# flags: _FOREIGN, an id of another repository; _EXTERNAL, a class with a base from outside
_TEST_FUNCTION, _MODULE, _FOREIGN, _EXTERNAL = 1, 2, 4, 8


LIBRARY = Path(__file__).resolve().parents[1]  # platform/cartograph


@cache
def derivation(library: Path = LIBRARY) -> str:
    """A digest of the library's code (every module under `library`): the walk graph is derived
    by impact.graph with rules from many of them (test layouts, vias, the standard library's
    classes), so a file made by other code is never read. Read once a process."""
    digest = hashlib.blake2b(digest_size=8)
    for source in sorted(library.rglob("*.py")):
        digest.update(str(source.relative_to(library)).encode() + b"\0")
        digest.update(source.read_bytes())
    return digest.hexdigest()


def file_name(repo: str, state: str) -> str:
    return f"{file_prefix(repo)}{state}-{derivation()}.walk"


def file_prefix(repo: str) -> str:
    """How the names of a repository's files start, whatever the state and code."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in repo)[:60]
    repo_digest = hashlib.blake2b(repo.encode(), digest_size=4).hexdigest()
    return f"{safe}-{repo_digest}-"


def owner_of(symbol_id: str) -> str | None:
    """The id before a symbol id's last dot, when that is a symbol (its class, or its
    module): a method's class, a function's module."""
    owner = symbol_id.rpartition(".")[0]
    return owner if "#" in owner else None


# ---------------------------------------------------------------- writing


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.sections: dict[str, tuple[int, int, str]] = {}

    def add(self, name: str, data: array.array | bytes) -> None:
        raw = data.tobytes() if isinstance(data, array.array) else data
        code = data.typecode if isinstance(data, array.array) else "s"
        self.sections[name] = (self.size, len(raw), code)
        self.parts.append(raw)
        self.size += len(raw)
        pad = -self.size % 8
        self.parts.append(b"\0" * pad)
        self.size += pad


def _uint32(values: Any = ()) -> array.array:
    made = array.array("I", values)
    assert made.itemsize == 4
    return made


def _add_strings(writer: _Writer, name: str, texts: list[str]) -> None:
    encoded = [text.encode() for text in texts]
    offsets = _uint32([0])
    at = 0
    for each in encoded:
        at += len(each)
        offsets.append(at)
    slots = _uint32([0]) * max(2, 1 << (2 * len(texts)).bit_length())
    mask = len(slots) - 1
    for index, each in enumerate(encoded):
        slot = zlib.crc32(each) & mask
        while slots[slot]:
            slot = (slot + 1) & mask
        slots[slot] = index + 1
    writer.add(f"{name}.blob", b"".join(encoded))
    writer.add(f"{name}.offsets", offsets)
    writer.add(f"{name}.slots", slots)


def write(edges: Any, path: Path) -> None:
    """Write `edges` (a RepoEdges) to `path`, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as out:
        for part in _encoded(edges):
            out.write(part)
    os.replace(temporary, path)


def encode(edges: Any) -> bytes:
    """`edges` (a RepoEdges) as the bytes of a walk-graph file: what a process that may not
    write files holds instead (`WalkFile(encode(edges))`)."""
    return b"".join(_encoded(edges))


def _encoded(edges: Any) -> list[bytes]:
    ids: dict[str, int] = {}

    def number(text: str) -> int:
        found = ids.get(text)
        if found is None:
            found = ids[text] = len(ids)
        return found

    for dst, callers in edges.callers.items():
        number(dst)
        for src, _via, _weight in callers:
            number(src)
    for cls, bases in edges.bases.items():
        number(cls)
        for base in bases:
            number(base)
    for sid in (*edges.test_functions, *edges.modules):
        number(sid)
    for calls in edges.open_calls.values():
        for src, _reason in calls:
            number(src)
    for cls in edges.external_based:
        number(cls)
    for text in list(ids):  # every owner is an id too (a class reached by its dunders)
        owner = owner_of(text)
        while owner is not None and owner not in ids:
            number(owner)
            owner = owner_of(owner)
    count = len(ids)
    vias: dict[str, int] = {}
    reasons: dict[str, int] = {}
    writer = _Writer()
    _add_strings(writer, "ids", list(ids))

    start, src, via, weight = _uint32([0]), _uint32(), array.array("B"), array.array("d")
    by_target = {ids[dst]: callers for dst, callers in edges.callers.items()}
    for index in range(count):
        for caller, how, sure in by_target.get(index, ()):
            src.append(ids[caller])
            via.append(vias.setdefault(how, len(vias)))
            weight.append(sure)
        start.append(len(src))
    assert len(vias) < 256
    writer.add("callers.start", start)
    writer.add("callers.src", src)
    writer.add("callers.via", via)
    writer.add("callers.weight", weight)

    start, dst_of = _uint32([0]), _uint32()
    bases = {ids[cls]: found for cls, found in edges.bases.items()}
    for index in range(count):
        dst_of.extend(ids[base] for base in bases.get(index, ()))
        start.append(len(dst_of))
    writer.add("bases.start", start)
    writer.add("bases.dst", dst_of)

    flags = array.array("B", bytes(count))
    for sid in edges.test_functions:
        flags[ids[sid]] |= _TEST_FUNCTION
    for sid in edges.modules:
        flags[ids[sid]] |= _MODULE
    for cls in edges.external_based:
        flags[ids[cls]] |= _EXTERNAL
    own = f"{edges.repo}:"
    for sid, at in ids.items():
        if not sid.startswith(own):
            flags[at] |= _FOREIGN
    writer.add("flags", flags)

    names = list(edges.open_calls)
    named = {name: at for at, name in enumerate(names)}
    owners, members = _uint32(), _uint32()
    for text in ids:
        owner = owner_of(text)
        owners.append(NO_OWNER if owner is None else ids[owner])
        name = text.rpartition(".")[2]
        found = named.get(name)
        if found is None:
            found = named[name] = len(names)
            names.append(name)
        members.append(found)
    writer.add("owners", owners)
    writer.add("members", members)
    children: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    for at, owner in enumerate(owners):
        if owner != NO_OWNER:
            children[owner].append((members[at], at))
    start, child_member, child_id = _uint32([0]), _uint32(), _uint32()
    for each in children:
        for member, at in sorted(each):
            child_member.append(member)
            child_id.append(at)
        start.append(len(child_id))
    writer.add("children.start", start)
    writer.add("children.member", child_member)
    writer.add("children.id", child_id)
    _add_strings(writer, "names", names)
    start, src, reason = _uint32([0]), _uint32(), array.array("B")
    for name in names:
        for caller, why in edges.open_calls.get(name, ()):
            src.append(ids[caller])
            reason.append(reasons.setdefault(why, len(reasons)))
        start.append(len(src))
    assert len(reasons) < 256
    writer.add("open.start", start)
    writer.add("open.src", src)
    writer.add("open.reason", reason)

    header = json.dumps(
        {
            "state": edges.state,
            "sections": writer.sections,
            "vias": list(vias),
            "reasons": list(reasons),
            "test_paths": sorted(edges.test_paths),
            "computed_calls": edges.computed_calls,
            "external_based": edges.external_based,
            "opaque_tests": edges.opaque_tests,
        }
    ).encode()
    header += b" " * (-(len(MAGIC) + _LENGTH.size + len(header)) % 8)
    return [MAGIC + _LENGTH.pack(len(header)) + header, *writer.parts]


# ---------------------------------------------------------------- reading


class WalkFile:
    """A mapped walk-graph file (or its bytes held in memory: `encode`), shared by the walks of
    a process; each walk reads it through a `WalkGraph` of its own (`walk()`)."""

    def __init__(self, source: Path | bytes) -> None:
        self.path = None if isinstance(source, bytes) else source  # None: held in memory
        if isinstance(source, bytes):
            self._map: mmap.mmap | bytes = source
        else:
            with open(source, "rb") as opened:
                self._map = mmap.mmap(opened.fileno(), 0, access=mmap.ACCESS_READ)
        whole = memoryview(self._map)
        if bytes(whole[: len(MAGIC)]) != MAGIC:
            raise ValueError("not a walk-graph file")
        (length,) = _LENGTH.unpack_from(whole, len(MAGIC))
        begin = len(MAGIC) + _LENGTH.size
        header = json.loads(bytes(whole[begin : begin + length]))
        body = begin + length
        self.arrays: dict[str, memoryview] = {}
        for name, (offset, size, code) in header["sections"].items():
            part = whole[body + offset : body + offset + size]
            self.arrays[name] = part if code == "s" else part.cast(code)
        self.state: str = header["state"]
        self.vias: list[str] = [sys.intern(v) for v in header["vias"]]
        self.reasons: list[str] = header["reasons"]
        self.ids = _Strings(self.arrays, "ids")
        self.names = _Strings(self.arrays, "names")
        # small, or read whole by a walk: held as Python values
        self.test_paths: set[str] = set(header["test_paths"])
        self.computed_calls: list[tuple[str, str]] = [tuple(c) for c in header["computed_calls"]]
        self.external_based: Mapping[str, list[tuple[str, str]]] = {
            cls: [tuple(b) for b in bases] for cls, bases in header["external_based"].items()
        }
        self.opaque_tests: dict[str, str] = header["opaque_tests"]
        self.size = len(self._map)

    def walk(self) -> WalkGraph:
        return WalkGraph(self)

    def span(self, section: str, index: int | None) -> range:
        """The items of `index` in a CSR section (`callers.start`…); none for no index."""
        if index is None:
            return range(0)
        start = self.arrays[section]
        return range(start[index], start[index + 1])


class _Strings:
    """A string table: the text of an index, and the index of a text (None: not in it)."""

    def __init__(self, arrays: Mapping[str, memoryview], name: str) -> None:
        self._blob = arrays[f"{name}.blob"]
        self._offsets = arrays[f"{name}.offsets"]
        self._slots = arrays[f"{name}.slots"]
        self._mask = len(self._slots) - 1

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def index(self, text: str) -> int | None:
        key = text.encode()
        slots, offsets, blob = self._slots, self._offsets, self._blob
        slot = zlib.crc32(key) & self._mask
        while found := slots[slot]:
            at = found - 1
            if blob[offsets[at] : offsets[at + 1]] == key:
                return at
            slot = (slot + 1) & self._mask
        return None

    def text(self, index: int) -> str:
        return str(self._blob[self._offsets[index] : self._offsets[index + 1]], "utf-8")


class WalkGraph:
    """One walk's reading of a WalkFile, by index (`ReverseGraph`'s nodes): callers, bases,
    owners, members and open ends, with the small attributes of a RepoEdges. What the walk
    has read — ids found and decoded, open ends listed — it keeps for the walk's length, and
    lets go of with the walk: a process keeps no more than the file's mapping between walks."""

    def __init__(self, file: WalkFile) -> None:
        self.file = file
        self.state = file.state
        self.test_paths = file.test_paths
        self.computed_calls = file.computed_calls
        self.external_based = file.external_based
        self.opaque_tests = file.opaque_tests
        self._texts: list[str | None] = [None] * len(file.ids)
        self._indexes: dict[str, int | None] = {}
        self.test_functions = _Flagged(self, _TEST_FUNCTION)
        self.modules = _Flagged(self, _MODULE)
        arrays = file.arrays
        self._starts, self._sources = arrays["callers.start"], arrays["callers.src"]
        self._via_codes, self._weights = arrays["callers.via"], arrays["callers.weight"]
        self._vias = file.vias
        self._open_steps: dict[int, list[tuple[int, str]]] = {}
        self.owners, self._members = arrays["owners"], arrays["members"]
        self.flags = arrays["flags"]
        self._base_starts, self._base_targets = arrays["bases.start"], arrays["bases.dst"]
        self._child_starts, self._child_members = (
            arrays["children.start"],
            arrays["children.member"],
        )
        self._child_ids = arrays["children.id"]
        self._name_indexes: dict[str, int | None] = {}
        self._names: list[str | None] = [None] * len(file.names)

    def member_index(self, index: int) -> int:
        """The index among the names of the last name of the id at `index`."""
        return self._members[index]

    def member(self, index: int) -> str:
        """The last name of the id at `index`."""
        at = self._members[index]
        found = self._names[at]
        if found is None:
            found = self._names[at] = sys.intern(self.file.names.text(at))
        return found

    def is_module(self, index: int) -> bool:
        return bool(self.flags[index] & _MODULE)

    def has_external_base(self, index: int) -> bool:
        """Whether the class at `index` has a base from outside (`external_based`)."""
        return bool(self.flags[index] & _EXTERNAL)

    def is_foreign(self, index: int) -> bool:
        """Whether the id at `index` is of another repository (a base class, a callee)."""
        return bool(self.flags[index] & _FOREIGN)

    def child(self, index: int, name: str) -> int | None:
        """The index of the member `name` of the id at `index` (a class's method), if held."""
        at = self.name_index(name)
        if at is None:
            return None
        start, members = self._child_starts, self._child_members
        begin, end = start[index], start[index + 1]
        found = bisect.bisect_left(members, at, begin, end)
        return self._child_ids[found] if found < end and members[found] == at else None

    def base_indexes(self, index: int) -> list[int]:
        """The indexes of the bases of the class at `index`, in declared order."""
        start, bases = self._base_starts, self._base_targets
        return [bases[at] for at in range(start[index], start[index + 1])]

    def index(self, sid: str) -> int | None:
        found = self._indexes.get(sid, -1)
        if found == -1:
            found = self._indexes[sid] = self.file.ids.index(sid)
        return found

    def text(self, index: int) -> str:
        found = self._texts[index]
        if found is None:
            found = self._texts[index] = sys.intern(self.file.ids.text(index))
            self._indexes[found] = index  # what a walk read, it is asked of next (is it a test?)
        return found

    def caller_steps(self, index: int, offset: int) -> list[tuple[int, str, float]]:
        """The callers of the id at `index` as (source's index + `offset`, via, weight): a
        walk's nodes (`ReverseGraph.node`), no id read as text."""
        start = self._starts
        return [
            (offset + self._sources[at], self._vias[self._via_codes[at]], self._weights[at])
            for at in range(start[index], start[index + 1])
        ]

    def open_steps(self, name: str) -> list[tuple[int, str]]:
        """The unresolved calls naming `name`: (source's index, reason)."""
        at = self.name_index(name)
        return self.open_steps_at(at) if at is not None else []

    def open_steps_at(self, name_index: int) -> list[tuple[int, str]]:
        """`open_steps` of the name at `name_index` of the names (`member_index`)."""
        found = self._open_steps.get(name_index)
        if found is None:
            file = self.file
            span = file.span("open.start", name_index)
            src, reason, reasons = file.arrays["open.src"], file.arrays["open.reason"], file.reasons
            found = self._open_steps[name_index] = [(src[at], reasons[reason[at]]) for at in span]
        return found

    def name_index(self, name: str) -> int | None:
        at = self._name_indexes.get(name, -1)
        if at == -1:
            at = self._name_indexes[name] = self.file.names.index(name)
        return at


class _Flagged:
    """The ids with a flag (a function of test code, a module), as a read-only set."""

    def __init__(self, walk: WalkGraph, flag: int) -> None:
        self._walk, self._flag = walk, flag
        self._flags = walk.file.arrays["flags"]

    def __contains__(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        index = self._walk.index(sid)
        return index is not None and bool(self._flags[index] & self._flag)

    def __iter__(self) -> Iterator[str]:
        flags, flag, text = self._flags, self._flag, self._walk.text
        return (text(index) for index in range(len(flags)) if flags[index] & flag)

    def __len__(self) -> int:
        return sum(1 for each in self._flags if each & self._flag)
