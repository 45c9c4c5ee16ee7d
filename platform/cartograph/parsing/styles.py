"""Stylesheets (CSS, SCSS, Less) → the facts of their shared definitions: CSS custom
properties (`--color-primary: #06f`), SCSS variables (`$brand: …`) and Less variables
(`@brand: …`) with their values and the selector they are defined under, their uses
(`var(--x)`, `$x`, `@x`), and the stylesheets a file imports (`@import`, `@use`, `@forward`).

A small lexer, not a tree-sitter grammar: the definitions and uses are a few tokens, and the
SCSS grammar published on PyPI (tree-sitter-scss 1.0.0) marks as errors syntax every current
design system uses (`!default`, `math.div(…)`, `#{…}` in a custom property), losing the
declarations around them. The lexer skips comments and strings and follows braces, so a
definition knows its selector and a use its place.

facts: {"v", "language", "lines", "errors": 0,
        "defs": [[name, line, value, selector]],   # in source order
        "uses": [[name, line]],
        "imports": [[spec, line]]}
"""

from __future__ import annotations

import marshal
import re

FACTS_VERSION = 2

# at-rules that are statements of the language, never Less variables
AT_RULES = frozenset(
    [
        "charset",
        "import",
        "namespace",
        "media",
        "supports",
        "document",
        "page",
        "font-face",
        "keyframes",
        "viewport",
        "counter-style",
        "font-feature-values",
        "property",
        "layer",
        "container",
        "scope",
        "starting-style",
        "use",
        "forward",
        "mixin",
        "include",
        "function",
        "return",
        "if",
        "else",
        "each",
        "for",
        "while",
        "extend",
        "at-root",
        "debug",
        "warn",
        "error",
        "content",
        "plugin",
        "arguments",
        "rest",
    ]
)
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_SCSS_VARIABLE = re.compile(r"\$[A-Za-z0-9_-]+")
_IMPORT = re.compile(r"""@(?:import|use|forward)\s+(?:\([^)]*\)\s*)?(['"])([^'"]+)\1""")


def extract(language: str, source: bytes) -> dict:
    text = source.decode("utf-8", "replace")
    defs: list[list] = []
    uses: list[list] = []
    imports: list[list] = []
    selectors: list[str] = []  # the selector of each open block
    statement_start = 0  # where the current statement (declaration or selector) began
    line = 1
    i = 0
    n = len(text)
    sigil = {"css": "", "scss": "$", "less": "@"}.get(language, "")
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i) or (
            text.startswith("//", i) and language != "css" and not _in_url(text, i)
        ):
            block = text.startswith("/*", i)
            end = text.find("*/" if block else "\n", i + 2)
            end = n if end < 0 else end + (2 if block else 0)
            line += text.count("\n", i, end)
            if not text[statement_start:i].strip():
                statement_start = end  # a comment before a statement is not part of it
            i = end
        elif ch in "\"'":
            end = _string_end(text, i)
            line += text.count("\n", i, end)
            i = end
        elif ch == "#" and text.startswith("#{", i):  # SCSS interpolation: not a block
            close = text.find("}", i)
            close = n if close < 0 else close
            uses.extend([m.group(0), line] for m in _SCSS_VARIABLE.finditer(text, i, close))
            line += text.count("\n", i, close)
            i = close + 1
        elif ch == "{":
            selectors.append(" ".join(text[statement_start:i].split())[:200])
            i += 1
            statement_start = i
        elif ch == "}":
            if selectors:
                selectors.pop()
            i += 1
            statement_start = i
        elif ch == ";":
            i += 1
            statement_start = i
        elif ch == "@" and text.startswith(("@import", "@use", "@forward"), i):
            found = _IMPORT.match(text, i)
            if found:
                imports.append([found.group(2), line])
                line += text.count("\n", i, found.end())
                i = found.end()
            else:
                i += 1
        elif (ch == "-" and text.startswith("--", i)) or (sigil and ch == sigil):
            start = i
            name_at = i + (2 if ch == "-" else 1)
            found = _NAME.match(text, name_at)
            if found is None or (
                ch == "-" and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "-_")
            ):
                i += 1
                continue
            name = text[start : found.end()]
            word = found.group(0)
            j = found.end()
            while j < n and text[j] in " \t":
                j += 1
            at_statement = not text[statement_start:start].strip()
            if ch == "@" and word in AT_RULES:
                i = found.end()
                continue
            if at_statement and j < n and text[j] == ":":
                selector = selectors[-1] if selectors else ""
                defs.append([name, line, _value(text, j + 1), selector])
                i = j + 1  # the value is read on: the names it uses are uses
                continue
            if ch != "-" or _inside_var(text, start):
                uses.append([name, line])
            i = found.end()
        else:
            i += 1
    return {
        "v": FACTS_VERSION,
        "language": language,
        "lines": text.count("\n") + (0 if text.endswith("\n") or not text else 1),
        "errors": 0,
        "defs": defs,
        "uses": uses,
        "imports": imports,
    }


def _string_end(text: str, i: int) -> int:
    quote = text[i]
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote or text[j] == "\n":
            return j + 1
        j += 1
    return len(text)


def _in_url(text: str, i: int) -> bool:
    """`//` inside `url(http://…)` is not a comment."""
    opened = text.rfind("url(", 0, i)
    return opened >= 0 and text.find(")", opened) > i and "\n" not in text[opened:i]


def _value(text: str, i: int) -> str:
    """A declaration's value, whitespace folded: up to `;`, or the `}` closing its block,
    nested parentheses, strings and `#{…}` interpolations skipped."""
    depth = 0
    j = i
    n = len(text)
    while j < n:
        ch = text[j]
        if ch in "\"'":
            j = _string_end(text, j)
            continue
        if text.startswith("#{", j):
            close = text.find("}", j)
            j = n if close < 0 else close + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif (depth <= 0 and ch in ";}") or (depth <= 0 and ch == "{"):
            break
        j += 1
    return " ".join(text[i:j].split())[:200]


def _inside_var(text: str, i: int) -> bool:
    """A custom property named where it is read: `var(--x`, with only spaces between."""
    k = i - 1
    while k >= 0 and text[k] in " \t\n":
        k -= 1
    return k >= 3 and text[k] == "(" and text[k - 3 : k].lower() == "var"


def interface_of(facts: dict) -> bytes:
    """What other stylesheets can observe of this one: the names it defines (in order) and
    what it imports — no lines, no values (a use binds to a definition by its name)."""
    shape = [
        facts.get("v"),
        facts.get("language"),
        [d[0] for d in facts.get("defs", [])],
        [spec for spec, _line in facts.get("imports", [])],
    ]
    return marshal.dumps(shape)
