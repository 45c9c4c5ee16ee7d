"""Stage 2, parse: sources → facts, on a process pool whose workers get their inputs (the
files' bytes) as arguments and send back encoded facts."""

from __future__ import annotations

import gc
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


@dataclass(slots=True)
class Parsed:
    """A file's facts as this run has them (parsed now, or reused from the store)."""

    source: SourceFile
    sha256: str
    facts: dict
    blob: bytes  # the facts encoded, as stored
    interface: str  # parsing.interface_hash of the facts


def parse_files(
    files: list[tuple[SourceFile, str]], contents: dict[str, bytes], workers: int
) -> dict[str, Parsed]:
    """Parse `files` ((file, sha256), their bytes in `contents`) on `workers` processes."""
    by_path = {source.path: (source, sha) for source, sha in files}
    items = [(source.path, source.language, contents[source.path]) for source, _sha in files]
    parsed: dict[str, Parsed] = {}
    for path, blob, interface in _parse_all(items, workers):
        source, sha = by_path[path]
        parsed[path] = Parsed(source, sha, decode_facts(blob) or {}, blob, interface)
    return parsed


def _parse_chunk(items: list[tuple[str, str, bytes]]) -> list[tuple[str, bytes, str]]:
    """Worker: source bytes → encoded facts (small to send back; decoded by the parent) and
    the digest of the file's interface."""
    gc.disable()
    out = []
    for path, language, data in items:
        facts = extract_facts(language, data)
        out.append((path, encode_facts(facts), interface_hash(language, facts)))
    return out


def _parse_all(items: list[tuple[str, str, bytes]], workers: int) -> list[tuple[str, bytes, str]]:
    if workers <= 1 or len(items) < PARALLEL_MIN_FILES:
        return _parse_chunk(items)
    # biggest files first, dealt round-robin, so chunks are even and the last one is not slow
    items = sorted(items, key=lambda item: -len(item[2]))
    count = max(workers, len(items) // PARSE_CHUNK)
    chunks = [items[i::count] for i in range(count)]
    results: list[tuple[str, bytes, str]] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        for chunk_result in pool.map(_parse_chunk, chunks):
            results.extend(chunk_result)
    return results


def reuse_facts(store: Store, repo: str, root: Path, source: SourceFile, sha: str) -> Parsed | None:
    """A file whose content is unchanged but whose module name changed: its stored facts
    (parsed again when they were written by another parser version). None: unreadable."""
    blob = store.index.load_facts(repo, [source.path]).get(source.path) or b""
    facts = decode_facts(blob) if blob else None
    if facts is None or facts.get("v") != facts_version(source.language):
        data, _reason, sha = read_source(root, source)
        if data is None:
            return None
        facts = extract_facts(source.language, data)
        blob = encode_facts(facts)
    return Parsed(source, sha, facts, blob, interface_hash(source.language, facts))
