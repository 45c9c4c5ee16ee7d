"""Identifier splitting for search: `useBaseCart` → `use base cart`, `snake_case` → `snake case`.

The store indexes this text and the query splits user input the same way, so `base cart`,
`BaseCart` and `base_cart` all find `useBaseCart`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")
_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")
# a word of a line of code, comment or string (a letter, then at least one letter or digit),
# or the end of a line
_LINE_TOKEN = re.compile(rb"[A-Za-z][0-9A-Za-z]+|\n")


@lru_cache(maxsize=1 << 18)
def _chunk_words(chunk: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _CAMEL.findall(chunk))


def split_words(text: str) -> list[str]:
    """Lower-case words of identifiers, paths and prose."""
    words: list[str] = []
    for chunk in _SEPARATORS.split(text):
        if chunk:
            words.extend(_chunk_words(chunk))
    return words


@lru_cache(maxsize=1 << 18)
def _chunk_text(chunk: str) -> str:
    words = _chunk_words(chunk)
    whole = chunk.lower()
    if len(words) == 1 and words[0] == whole:
        return whole
    return " ".join((whole, *words))


def search_text(text: str) -> str:
    """Indexed form: each identifier whole (lower case) plus its words."""
    return " ".join(_chunk_text(chunk) for chunk in _SEPARATORS.split(text) if chunk)


def line_words(source: bytes) -> str:
    """The searchable words of each line of a file (`search_text` of its identifiers and the
    words of its strings and comments; one-letter words and numbers left out), one line of
    words per line of source, so a symbol's words are the lines of its range."""
    # one pass over the words and the line ends, each word's text cached by its bytes
    joined = " ".join(map(_token_text, _LINE_TOKEN.findall(source)))
    return joined.replace(" \n", "\n").replace("\n ", "\n")


@lru_cache(maxsize=1 << 18)
def _token_text(token: bytes) -> str:
    return "\n" if token == b"\n" else _chunk_text(token.decode())
