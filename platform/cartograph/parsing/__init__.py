"""tree-sitter parsing: bytes of one file → its facts (plain data, no store, no other files).

Three families share the pipeline: Python (`parsing.python`), TypeScript/JavaScript
(`parsing.ecma`) and the tags-driven tier for other languages (`parsing.tags`).
"""

from __future__ import annotations

import hashlib
import marshal
import zlib
from types import ModuleType

FACTS_MAGIC = b"CGF1"
ECMA_LANGUAGES = frozenset({"typescript", "tsx", "javascript"})


def family(language: str) -> str:
    """ "python", "ecma" or "generic": which parser and resolver a language uses."""
    if language == "python":
        return "python"
    if language in ECMA_LANGUAGES:
        return "ecma"
    return "generic"


def _parser_module(language: str) -> ModuleType:
    kind = family(language)
    if kind == "python":
        from cartograph.parsing import python as module
    elif kind == "ecma":
        from cartograph.parsing import ecma as module
    else:
        from cartograph.parsing import tags as module
    return module


def extract_facts(language: str, source: bytes) -> dict:
    """Facts for one file in `language` (see each language module for the layout)."""
    module = _parser_module(language)
    if module.__name__.endswith(".python"):
        return module.extract(source)
    return module.extract(language, source)


def facts_version(language: str) -> int:
    return _parser_module(language).FACTS_VERSION


def interface_hash(language: str, facts: dict) -> str:
    """A digest of what other files can observe of this one (see each parser's interface_of):
    unchanged, an edit does not re-resolve the files that depend on it."""
    return hashlib.blake2b(_parser_module(language).interface_of(facts), digest_size=12).hexdigest()


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
