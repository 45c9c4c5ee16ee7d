"""tree-sitter parsing: bytes of one file → its facts (plain data, no store, no other files)."""

from __future__ import annotations

import marshal
import zlib

FACTS_MAGIC = b"CGF1"


def extract_facts(language: str, source: bytes) -> dict:
    """Facts for one file in `language` (see each language module for the layout)."""
    if language == "python":
        from cartograph.parsing.python import extract

        return extract(source)
    raise ValueError(f"no parser for {language}")


def facts_version(language: str) -> int:
    if language == "python":
        from cartograph.parsing.python import FACTS_VERSION

        return FACTS_VERSION
    raise ValueError(f"no parser for {language}")


def interface_hash(language: str, facts: dict) -> str:
    """A digest of what other files can observe of this one (see parsing.python.interface_of):
    unchanged, an edit does not re-resolve the files that depend on it."""
    import hashlib

    if language == "python":
        from cartograph.parsing.python import interface_of

        return hashlib.blake2b(interface_of(facts), digest_size=12).hexdigest()
    raise ValueError(f"no parser for {language}")


def encode_facts(facts: dict) -> bytes:
    """Compact storage form of facts (a cache: it is rebuilt from source when unreadable)."""
    return FACTS_MAGIC + zlib.compress(marshal.dumps(facts), 1)


def decode_facts(blob: bytes) -> dict | None:
    if not blob or not blob.startswith(FACTS_MAGIC):
        return None
    try:
        return marshal.loads(zlib.decompress(blob[len(FACTS_MAGIC) :]))
    except (ValueError, EOFError, TypeError, zlib.error):
        return None
