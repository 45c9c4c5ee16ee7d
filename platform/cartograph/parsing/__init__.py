"""tree-sitter parsing: bytes of one file → its facts (plain data, no store, no other files).

Four families share the pipeline: Python (`parsing.python`), TypeScript/JavaScript
(`parsing.ecma`), the tags-driven tier for other languages (`parsing.tags`) and stylesheets
(`parsing.styles`); which one a
language uses is the language registry's (`cartograph.languages`). The layout of the facts
is `parsing.facts`.
"""

from __future__ import annotations

import hashlib
import marshal
import zlib
from importlib import import_module
from types import ModuleType

from cartograph.identifiers import line_words
from cartograph.languages import FAMILY, family

FACTS_MAGIC = b"CGF1"


def _parser_module(language: str) -> ModuleType:
    """The parser of a language's family (`languages.Family.parser`): extract(language,
    source), FACTS_VERSION, interface_of(facts)."""
    return import_module(FAMILY[family(language)].parser)


def extract_facts(language: str, source: bytes) -> dict:
    """Facts for one file in `language` (their layout: `cartograph.parsing.facts`), with the
    searchable words of each of its lines (`words`, the same for every family)."""
    facts = _parser_module(language).extract(language, source)
    facts["words"] = line_words(source)
    return facts


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
