"""CODEOWNERS: who a repository says owns a path (GitHub/GitLab syntax, last match wins)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

LOCATIONS = ("CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")
MAX_BYTES = 256 * 1024


def read_codeowners(root: Path) -> str:
    """The text of the repository's CODEOWNERS file ("" when there is none)."""
    for location in LOCATIONS:
        path = root / location
        try:
            if path.is_file() and path.stat().st_size <= MAX_BYTES:
                return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return ""


@lru_cache(maxsize=64)
def _rules(text: str) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    rules = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line or line.startswith("["):  # blank, comment, GitLab section header
            continue
        pattern, *owners = line.split()
        rules.append((_compile(pattern), tuple(owners)))
    return rules


def _compile(pattern: str) -> re.Pattern[str]:
    """gitignore-style pattern → regex over a '/'-separated path relative to the root."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    directory = pattern.endswith("/")
    body = pattern.strip("/")
    parts = []
    index = 0
    while index < len(body):
        if body.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif body.startswith("/**", index) and index + 3 == len(body):
            parts.append("/.*")
            index += 3
        elif body.startswith("**", index):
            parts.append(".*")
            index += 2
        elif body[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif body[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(body[index]))
            index += 1
    regex = "".join(parts)
    prefix = "" if anchored else "(?:.*/)?"
    # a name matches the file itself or everything under a folder of that name; a last part
    # with a wildcard matches only its own level (GitHub: `docs/*` is not docs/deep/x.md)
    last = body.rsplit("/", 1)[-1]
    flat = ("*" in last or "?" in last) and last != "**"
    suffix = "/.*" if directory else ("" if flat else "(?:/.*)?")
    if body == "*":
        return re.compile(".*")
    return re.compile(f"^{prefix}{regex}{suffix}$")


def owners_of(text: str, path: str) -> tuple[str, ...]:
    """The owners CODEOWNERS gives `path` (the last matching rule wins; () when none)."""
    found: tuple[str, ...] = ()
    for regex, owners in _rules(text):
        if regex.match(path):
            found = owners
    return found
