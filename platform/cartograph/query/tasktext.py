"""What a task's text names in code, for `locate`: the frames of the tracebacks it quotes, the
names it writes as code, and — for a long text (a log, a long traceback) — the part that is
read: its start, then the lines that name code.

A frame is `File "…/flask/app.py", line 12, in wsgi_app` (CPython) or `src/app.py:12: in run`
(pytest's short form). A name written as code is a dotted name (`Flask.run`,
`flask.json.dumps`), a call (`send_file()`), a snake_case or CamelCase word with an inner
capital or underscore (`url_for`, `HTTPHeaderDict`), a hyphenated word (a message such as
`invalid-name`, an option such as `--no-binary`: its dashes in front dropped), or anything
between backticks."""

from __future__ import annotations

import re
from dataclasses import dataclass

READ_LIMIT = 20_000  # characters of a text read whole; past it, only the lines naming code
MAX_TASK_TEXT = 1_000_000  # characters a surface takes (a pasted log); more is refused
MAX_FRAMES = 40
MAX_NAMES = 40

_FRAMES = (
    re.compile(r'File "([^"\n]+?\.pyw?)", line (\d+), in ([A-Za-z_]\w*)'),
    re.compile(r"^\s*([\w./\\-]+\.pyw?):(\d+):? in ([A-Za-z_]\w*)", re.MULTILINE),
)
_TICKED = re.compile(r"`{1,2}([^`\n]{2,80})`{1,2}")
_DOTTED = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\(")
_CODE_WORD = re.compile(r"\b([a-z]\w*_\w+|_\w+|[A-Z][a-z0-9]+[A-Z]\w*|[a-z]+[A-Z]\w*)\b")
# a hyphenated name: a message (`invalid-name`), an option (`--no-binary`), a header
_HYPHENATED = re.compile(r"(?<![\w-])-{0,2}([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+)(?![\w-])")
_PATH = re.compile(r"[\w./-]+\.py\b")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SELF = re.compile(r"^(?:self|cls)\.")
# dotted words that are prose or files, not code: "e.g", "i.e", "setup.py", "README.md"
_NOT_CODE = re.compile(
    r"^(?:e\.g|i\.e|etc|vs)$|\.(?:py|pyw|md|rst|txt|toml|cfg|ini|json|yaml|yml)$"
)


@dataclass(frozen=True, slots=True)
class Frame:
    path: str  # as the traceback writes it (absolute, or relative to where it ran)
    line: int
    function: str


def frames(text: str) -> list[Frame]:
    """The traceback frames the text quotes, in its order (the innermost call of a traceback
    last), each once."""
    found: dict[tuple[str, str], Frame] = {}
    spans: list[tuple[int, Frame]] = []
    for pattern in _FRAMES:
        for m in pattern.finditer(text):
            frame = Frame(m.group(1).replace("\\", "/"), int(m.group(2)), m.group(3))
            spans.append((m.start(), frame))
    for _start, frame in sorted(spans, key=lambda item: item[0]):
        key = (frame.path, frame.function)
        found.pop(key, None)  # seen again deeper: its last place counts
        found[key] = frame
    return list(found.values())[-MAX_FRAMES:]


def code_names(text: str) -> list[str]:
    """The names the text writes as code (dotted names keep their dots), each once, in the
    text's order; frames are left to `frames`."""
    names: dict[str, None] = {}
    for pattern in (_TICKED, _DOTTED, _CALLED, _CODE_WORD, _HYPHENATED):
        for m in pattern.finditer(text):
            raw = m.group(1).strip().rstrip("()")
            if pattern is _TICKED:
                dotted = _DOTTED.search(raw)
                word = dotted.group(1) if dotted else raw.lstrip("-")
                if not _IDENTIFIER.fullmatch(word.replace(".", "_").replace("-", "_")):
                    continue
                raw = word
            raw = _SELF.sub("", raw)  # self.method: the method, of a class not said
            if _NOT_CODE.search(raw) or len(raw) < 3:
                continue
            names.setdefault(raw, None)
    return list(names)[:MAX_NAMES]


def readable(text: str) -> str:
    """The part of `text` a ranking reads: all of it up to READ_LIMIT characters; of a longer
    text, its start and then, up to READ_LIMIT more, the lines that name code (a frame, a
    path, a dotted or snake_case name), the last ones first dropped."""
    if len(text) <= READ_LIMIT:
        return text
    head = text[:READ_LIMIT]
    kept: list[str] = []
    size = 0
    for line in text[READ_LIMIT:].splitlines():
        if not _names_code(line):
            continue
        size += len(line) + 1
        if size > READ_LIMIT:
            break
        kept.append(line)
    return head + "\n" + "\n".join(kept)


def _names_code(line: str) -> bool:
    return bool(
        any(pattern.search(line) for pattern in _FRAMES)
        or _PATH.search(line)
        or _DOTTED.search(line)
        or _CODE_WORD.search(line)
    )
