"""Stage 2, parse: sources → facts, on a process pool whose workers read the files themselves
and send back encoded facts. The parent keeps no decoded facts: each file's encoded facts go
to the run's spill file (`FactsSpill`), and are read and decoded again where a later stage
needs them, so the parse holds memory in proportion to a chunk of files, not to the tree."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from cartograph.discover import SourceFile, read_source
from cartograph.parsing import (
    decode_facts,
    encode_facts,
    extract_facts,
    facts_version,
    interface_hash,
)
from cartograph.store.interfaces import Store

PARALLEL_MIN_FILES = 64
PARSE_CHUNK = 48


class FactsSpill:
    """The encoded facts of a run's parsed files, in an unnamed temporary file (gone when it
    is closed or collected). Read with `os.pread`, which moves no shared file offset: forked
    workers read the descriptor they inherit without stepping on each other."""

    __slots__ = ("_end", "_file")

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115 (closed by close)
        self._end = 0

    def add(self, blob: bytes) -> SpillSlot:
        view = memoryview(blob)
        while view:
            view = view[self._file.write(view) or 0 :]
        slot = SpillSlot(self, self._end, len(blob))
        self._end += len(blob)
        return slot

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self._file.fileno(), length, offset)

    def close(self) -> None:
        self._file.close()


@dataclass(frozen=True, slots=True)
class SpillSlot:
    spill: FactsSpill
    offset: int
    length: int

    def read(self) -> bytes:
        return self.spill.read(self.offset, self.length)


@dataclass(slots=True)
class Parsed:
    """A file's facts as this run has them (parsed now, or reused from the store). The facts
    are kept encoded, in memory or in the run's spill file; `facts` decodes them on every
    access (a caller that needs them twice keeps what it got)."""

    source: SourceFile
    sha256: str
    interface: str  # parsing.interface_hash of the facts
    errors: int  # syntax errors the parser recovered from
    encoded: bytes | SpillSlot

    @classmethod
    def of(cls, source: SourceFile, sha256: str, facts: dict) -> Parsed:
        """From facts in hand (kept encoded in memory)."""
        return cls(
            source,
            sha256,
            interface_hash(source.language, facts),
            facts.get("errors", 0),
            encode_facts(facts),
        )

    @property
    def blob(self) -> bytes:
        """The facts encoded, as stored."""
        encoded = self.encoded
        return encoded if isinstance(encoded, bytes) else encoded.read()

    @property
    def facts(self) -> dict:
        return decode_facts(self.blob) or {}


def parse_files(
    root: Path, files: list[tuple[SourceFile, str]], workers: int, spill: FactsSpill
) -> dict[str, Parsed]:
    """Parse `files` ((file, sha256 when it was hashed)) under `root` on `workers` processes,
    their encoded facts into `spill`. A file that can no longer be read is left out; one that
    changed since it was hashed has the sha256 of what was parsed."""
    parsed: dict[str, Parsed] = {}
    for source, blob, interface, errors, sha in _parse_all(
        root, [source for source, _sha in files], workers
    ):
        parsed[source.path] = Parsed(source, sha, interface, errors, spill.add(blob))
    return parsed


_Parse = tuple[SourceFile, bytes, str, int, str]  # (file, encoded facts, interface, errors, sha)


def _parse_chunk(root: Path, sources: list[SourceFile]) -> list[_Parse]:
    """Worker: the files' encoded facts (small to send back), the digests of their interfaces
    and contents. Unreadable files are left out."""
    out = []
    for source in sources:
        data, _reason, sha = read_source(root, source)
        if data is None:
            continue
        facts = extract_facts(source.language, data)
        out.append(
            (
                source,
                encode_facts(facts),
                interface_hash(source.language, facts),
                facts.get("errors", 0),
                sha,
            )
        )
    return out


def _parse_all(root: Path, sources: list[SourceFile], workers: int) -> Iterator[_Parse]:
    if workers <= 1 or len(sources) < PARALLEL_MIN_FILES:
        yield from _parse_chunk(root, sources)
        return
    # biggest files first, dealt round-robin, so chunks are even and the last one is not slow
    sources = sorted(sources, key=lambda source: -source.size)
    count = max(workers, len(sources) // PARSE_CHUNK)
    chunks = [sources[i::count] for i in range(count)]
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=get_context("fork"), initializer=gc.disable
    ) as pool:  # a parse worker's collector is off, as its parent's is during an index
        for chunk_result in pool.map(_parse_chunk, [root] * count, chunks):
            yield from chunk_result


def reuse_facts(store: Store, repo: str, root: Path, source: SourceFile, sha: str) -> Parsed | None:
    """A file whose content is unchanged but whose module name changed: its stored facts
    (parsed again when they were written by another parser version). None: unreadable."""
    blob = store.index.load_facts(repo, [source.path]).get(source.path) or b""
    facts = decode_facts(blob) if blob else None
    if facts is None or facts.get("v") != facts_version(source.language):
        data, _reason, sha = read_source(root, source)
        if data is None:
            return None
        return Parsed.of(source, sha, extract_facts(source.language, data))
    return Parsed(source, sha, interface_hash(source.language, facts), facts.get("errors", 0), blob)
