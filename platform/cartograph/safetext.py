"""Strings from a repository (paths, symbol names, docstrings, CSS values, commit messages,
author names) shown to a person: as text on a terminal, or as Markdown a forge renders. A
repository is written by whoever wrote it; what it holds is shown, never obeyed.

- `visible`: every control character — C0 (ESC starting an escape sequence among them), DEL
  and C1 — written as a visible escape (`\\x1b`, `\\n`), so no string moves the cursor, clears
  the screen, retitles the window or hides what follows. The text renderer passes everything it
  prints through it; JSON keeps the exact strings.
- `md`: the one escaping of a repository string in Markdown (a pull request's comment): it
  shows exactly the string and does nothing else on GitHub or GitLab — no mention, issue or
  merge-request reference, link, autolink, image, HTML, emphasis, code span, table cell or
  line break of its own. `md_fence` is a fenced code block no line of it can close.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_CONTROL = "\x00-\x1f\x7f-\x9f"


@lru_cache(maxsize=8)
def _controls(keep: str) -> re.Pattern[str]:
    kept = "".join(re.escape(c) for c in keep)
    return re.compile(f"(?![{kept}])[{_CONTROL}]" if kept else f"[{_CONTROL}]")


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    return _NAMED.get(char) or f"\\x{ord(char):02x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with every control character (C0, DEL, C1) but those in `keep` (say "\\n\\t")
    written as a visible escape: `\\n`, `\\t`, `\\r`, else `\\xNN` (ESC is `\\x1b`)."""
    return _controls(keep).sub(_escape, text)


# Markdown. The word joiner (U+2060) shows as nothing: put after a reference's sigil (`@name`,
# `#12`, GitLab's `!12`, `~label`, `%milestone`, `&12`, `$12`), inside `://` and `www.`, and
# in `GH-12`, it keeps the forge from reading a mention, a reference or a bare URL there.
_JOIN = "\u2060"
_SIGIL = re.compile(r"([@#!~%&$])(?=\S)")
_SCHEME = re.compile(r":(?=//)")
_WWW = re.compile(r"(?i)\b(www)(?=\.)")
_GH = re.compile(r"(?i)\b(gh)(?=-\d)")
# characters with a meaning inside a line: escapes, code spans, emphasis, links and images,
# HTML and autolinks, table cells, strikethrough, math, entities
_INLINE = re.compile(r"([\\`*_\[\]<>|~$&])")
# what would start a block (a heading, a quote, a list) were the string at a line's start
_LEADING = re.compile(r"^(?:([#>+=-])|(\d+)([.)]))")
_TICKS = re.compile(r"`+")


def md(text: str, *, code: bool = False, cell: bool = False) -> str:
    """`text` (a string from a repository) as Markdown that shows exactly it (control
    characters as `visible` escapes, on one line) and does nothing else. `code`: as a code
    span (monospace; a forge reads no mention, reference or link inside one); `cell`: for a
    table cell (a `|` is escaped: a table splits its row there, even inside a code span)."""
    shown = visible(text)
    if not shown:
        return ""
    if code and not (cell and "\\|" in shown):  # `\|` cannot be said inside a span in a cell
        if cell:
            shown = shown.replace("|", "\\|")
        ticks = "`" * (max((len(run) for run in _TICKS.findall(shown)), default=0) + 1)
        pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
        return f"{ticks}{pad}{shown}{pad}{ticks}"
    shown = _SIGIL.sub(rf"\1{_JOIN}", shown)
    shown = _SCHEME.sub(f":{_JOIN}", shown)
    shown = _WWW.sub(rf"\1{_JOIN}", shown)
    shown = _GH.sub(rf"\1{_JOIN}", shown)
    shown = _INLINE.sub(r"\\\1", shown)
    return _LEADING.sub(_block_escaped, shown, count=1)


def _block_escaped(found: re.Match[str]) -> str:
    if found.group(1):
        return "\\" + found.group(1)
    return f"{found.group(2)}\\{found.group(3)}"


def md_fence(lines: list[str], info: str = "") -> list[str]:
    """A fenced code block of `lines` (each made one line by `visible`): its fence is longer
    than any run of backticks inside, so no line closes it."""
    shown = [visible(line) for line in lines]
    longest = max((len(run) for line in shown for run in _TICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *shown, fence]
