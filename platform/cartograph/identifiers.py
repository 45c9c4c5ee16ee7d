"""Identifier splitting for search: `useBaseCart` → `use base cart`, `snake_case` → `snake case`.

The store indexes this text and the query splits user input the same way, so `base cart`,
`BaseCart` and `base_cart` all find `useBaseCart`.
"""

from __future__ import annotations

import re

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")
_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")


def split_words(text: str) -> list[str]:
    """Lower-case words of identifiers, paths and prose."""
    words: list[str] = []
    for chunk in _SEPARATORS.split(text):
        if chunk:
            words.extend(w.lower() for w in _CAMEL.findall(chunk))
    return words


def search_text(text: str) -> str:
    """Indexed form: each identifier whole (lower case) plus its words."""
    parts: list[str] = []
    for chunk in _SEPARATORS.split(text):
        if not chunk:
            continue
        words = [w.lower() for w in _CAMEL.findall(chunk)]
        whole = chunk.lower()
        if len(words) != 1 or words[0] != whole:
            parts.append(whole)
        parts.extend(words)
    return " ".join(parts)
