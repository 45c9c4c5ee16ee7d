"""URL templates as the HTTP parsers keep them (`parsing.services` for Python,
`ecma_services`, `go_services`, `jvm_services`): a list of parts, each a literal text or a
hole ["v", expr | None, text]; `env:NAME` is the text of a hole an environment variable fills."""

from __future__ import annotations

import re

# a path parameter written `{name}` in a generated client's path (`/pet/{petId}`)
PATH_PARAMETER = re.compile(r"\{[A-Za-z_][\w.-]*\}")
MAX_HOLE_TEXT = 120


def merged(parts: list) -> list:
    """Adjacent literal texts joined, empty ones dropped ([""] when nothing is left)."""
    joined: list = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if joined and isinstance(joined[-1], str):
                joined[-1] += part
                continue
        joined.append(part)
    return joined or [""]


def hole(encoded: list | None, text: str) -> list:
    """A template of one hole: an expression (None when it is not a name) and its text."""
    if len(text) > MAX_HOLE_TEXT:
        text = text[: MAX_HOLE_TEXT - 1] + "…"
    return [["v", encoded, text]]


def is_environment(template: list) -> bool:
    """`process.env.X`, `os.Getenv("X")` alone: a hole that names where the value comes from."""
    return len(template) == 1 and template[0][1] is None and template[0][2].startswith("env:")
