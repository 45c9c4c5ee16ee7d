"""Configuration files a repository carries (pyproject.toml, package.json, tsconfig.json,
.cartograph.toml, lock files), read as data that may be hostile: a file nested deeper than
MAX_DEPTH, or whose dotted keys have more than MAX_KEY_PARTS parts, is refused before a parser
sees it (the parsers recurse once per level, and tomllib copies a dotted key's parts once per
part: 200 KB of `a.a.a…` takes it past 20 GB). Every failure is an `Unreadable` whose message
is the reason, for the index run's notes."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import Any

MAX_DEPTH = 128  # arrays and tables (objects) inside one another
MAX_KEY_PARTS = 128  # parts of one dotted TOML key (a.b.c has 3)


class Unreadable(ValueError):
    """A configuration file that cannot be read; the message says why."""


# strings (which may hold brackets, dots and comment marks) and comments, in the order TOML
# reads them, so a quote inside a comment or a `#` inside a string is what it is
_TOML_TOKENS = re.compile(
    r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""{0,2}'
    r"|'''[\s\S]*?'''{0,2}"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
)
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"|//[^\n]*|/\*[\s\S]*?\*/')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# MAX_KEY_PARTS words joined by dots: a longer dotted key (strings are "s" by then)
_LONG_KEY = re.compile(rf"(?<![\w-])(?:[\w-]+[ \t]*\.[ \t]*){{{MAX_KEY_PARTS}}}[\w-]")


def load_toml(text: str) -> dict[str, Any]:
    """A TOML document, or Unreadable."""
    bare = _TOML_TOKENS.sub("s", text)  # a string is one word (it may be a key's part)
    _check_depth(bare)
    if _LONG_KEY.search(bare):
        raise Unreadable(f"a dotted key has more than {MAX_KEY_PARTS} parts")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"not valid TOML ({exc})") from exc
    except RecursionError as exc:  # not expected past the checks above
        raise Unreadable("nested too deeply to read") from exc


def load_json(text: str, lenient: bool = False) -> Any:
    """A JSON document, or Unreadable. `lenient`: the comments and trailing commas that
    tsconfig.json allows are read too."""
    _check_depth(_JSON_TOKENS.sub("s", text))
    try:
        try:
            return json.loads(text)
        except ValueError:
            if not lenient:
                raise
        return json.loads(_TRAILING_COMMA.sub(r"\1", _JSON_COMMENTS.sub(_keep_strings, text)))
    except ValueError as exc:
        raise Unreadable(f"not valid JSON ({exc})") from exc
    except RecursionError as exc:  # not expected past the check above
        raise Unreadable("nested too deeply to read") from exc


_JSON_COMMENTS = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*[\s\S]*?\*/')
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def _keep_strings(match: re.Match[str]) -> str:
    return match.group(1) or ""


def _check_depth(bare: str) -> None:
    brackets = bare.encode("utf-8", "surrogateescape").translate(None, _NOT_BRACKETS)
    if not brackets:
        return
    deepest = max(accumulate(map(_STEP.__getitem__, brackets)))
    if deepest > MAX_DEPTH:
        raise Unreadable(f"nested more than {MAX_DEPTH} levels deep")


# configuration files the index reads besides the manifests (`manifests.read_manifest`, which
# notes its own): TypeScript's and JavaScript's compiler options
CHECKED = ("tsconfig.json", "jsconfig.json")


def unreadable_configs(paths: Iterable[str], read: Callable[[str], bytes | None]) -> list[str]:
    """ "path: reason" for each of CHECKED among `paths` that cannot be read (the index goes on
    as if it were empty)."""
    notes = []
    for path in sorted(paths):
        if path.rpartition("/")[2] not in CHECKED:
            continue
        data = read(path)
        if data is None:
            continue
        try:
            load_json(data.decode("utf-8"), lenient=True)
        except UnicodeDecodeError:
            notes.append(f"{path}: not UTF-8 text, skipped")
        except Unreadable as exc:
            notes.append(f"{path}: {exc}, skipped")
    return notes
