"""Answers within a budget: a read's answer cut to `max_tokens`, the rest a cursor away.

An answer is ranked content in lists (callers by how sure the graph is, tests by how close they
are, locations by score) around a few scalars that say what it is about. Cutting keeps the
scalars and shortens the longest list first, a quarter at a time, until the answer's text (or
its JSON, whichever the caller reads) fits; what was left out is said in a note at its top,
with a cursor. The same question asked again with the cursor answers the rest: every list goes
on from where the cut answer stopped (lists shown whole are not repeated), cut again if the
rest does not fit either. An answer with nothing left to cut and still too long is cut as
text, at a line, and says so.

Tokens are counted by `estimate_tokens`: a conservative count (every punctuation mark, every
run of a word's letters, every three digits count as one) that comes out above what the
tokenizers of the models agents run on give for code, JSON and prose.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cartograph.errors import Invalid
from cartograph.model import WHOLE_OR_NOTHING

# what an agent's answer costs by default (MCP); the CLI, REST and GraphQL answer whole
# unless asked
AGENT_MAX_TOKENS = 3000
MIN_MAX_TOKENS = 200  # below this nothing useful fits
MAX_MAX_TOKENS = 1_000_000
CURSOR_LENGTH = 2000

_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d{1,3}|[^\sA-Za-z\d]|\n\s*|\s{2,}")


def estimate_tokens(text: str) -> int:
    """A conservative token count: a letter run (split at camel case), up to three digits,
    every other visible character, and a line break or a run of spaces (indentation) count one
    each."""
    return len(_PIECE.findall(text))


# the key under which a JSON answer carries what was cut (Fitted.data; no answer type has a
# field of this name: tests/test_catalogue.py), and its schema, for the surfaces' schemas
CUT_KEY = "cut_to_budget"
CUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "present when the answer was cut to max_tokens: what it left out, and the "
    "cursor that answers the rest",
    "properties": {
        "max_tokens": {"type": "integer"},
        "left_out": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "shown": {"type": "integer"},
                    "left": {"type": "integer"},
                },
                "required": ["field", "shown", "left"],
            },
        },
        "cursor": {"type": ["string", "null"]},
        "cut_as_text": {"type": "boolean"},
        "texts_cut": {"type": "integer"},
    },
    "required": ["max_tokens", "left_out", "cursor", "cut_as_text", "texts_cut"],
}


@dataclass(frozen=True, slots=True)
class LeftOut:
    field: str  # the list's place in the answer ("items", "context.callers")
    shown: int  # items of it this answer shows
    left: int  # items of it a cursor gives


@dataclass(slots=True)
class Fitted:
    """An answer as it fits the budget: its text (or JSON) and, when cut, what was left out
    and the cursor that gives the rest."""

    answer: Any
    text: str
    max_tokens: int
    left_out: list[LeftOut] = field(default_factory=list)
    cursor: str | None = None
    cut_as_text: bool = False  # nothing was left to cut and the text was cut at a line
    texts_cut: int = 0  # long texts in it (a command line, a stored report) cut short

    @property
    def cut(self) -> bool:
        return bool(self.left_out) or self.cut_as_text or bool(self.texts_cut)

    def note(self) -> str:
        """One line at the top of a cut answer: what it leaves out and how to get the rest."""
        if not self.cut:
            return ""
        parts = [f"{item.field}: {item.shown} shown, {item.left} more" for item in self.left_out]
        if len(parts) > 3:  # many lists cut: the three that leave out most
            most = sorted(self.left_out, key=lambda item: -item.left)[:3]
            parts = [f"{item.field}: {item.left} more" for item in most]
            parts.append(f"{len(self.left_out) - 3} lists more")
        if self.texts_cut:
            parts.append(f"{self.texts_cut} long texts cut short")
        said = "; ".join(parts) if parts else "the text is cut at a line"
        rest = (
            f'; the rest: the same call with cursor="{self.cursor}"'
            if self.cursor
            else "; ask a narrower question for the rest"
        )
        return f"[cut to {self.max_tokens} tokens — {said}{rest}]"

    def data(self) -> dict[str, Any] | None:
        """What a JSON answer carries of the cut (None: it is whole)."""
        if not self.cut:
            return None
        return {
            "max_tokens": self.max_tokens,
            "left_out": [dataclasses.asdict(item) for item in self.left_out],
            "cursor": self.cursor,
            "cut_as_text": self.cut_as_text,
            "texts_cut": self.texts_cut,
        }


def fit(
    answer: Any,
    write: Callable[[Any], str],
    max_tokens: int | None,
    cursor: str | None = None,
    question: str = "",
    lines: bool = True,
    at: int = 0,
    shown: dict[str, int] | None = None,
) -> Fitted:
    """`answer` written by `write` (its text or its JSON) within `max_tokens` (None or 0: no
    limit), going on from `cursor` (what a cut answer to the same `question` gave). With
    `lines` (text), an answer with no list left to cut is cut at a line. `at` is the offset
    of the page answered, kept in the cursor (REST's cursor stands for the offset too).
    `shown`: how many items of a list the text shows at most (the rest it only counts): a cut
    answer keeps no more, so its cursor goes on from the last item shown."""
    budget = max_tokens or 0
    answer = _materialised(answer)
    lists = _lists(answer)
    skips = decode_cursor(cursor, question, list(lists)) if cursor else {}
    rest = {place: items[skips.get(place, 0) :] for place, items in lists.items()}
    current = _with_lists(answer, rest) if skips else answer
    text = write(current)
    whole = estimate_tokens(text)
    # a list longer than the text shows would leave its last items unnamed and out of any
    # cursor's reach: within a budget, it is cut where the text stops naming items
    past_shown = any(
        len(items) > (shown or {}).get(place, len(items)) for place, items in rest.items()
    )
    if not budget or (whole <= budget and not past_shown):
        return Fitted(current, text, budget)
    texts_cut: Counter[str] = Counter()
    if whole > budget:
        # a text longer than a third of the budget (a command line running 2,000 tests, a
        # stored report) would leave no room for the rest: each is cut short, with a mark
        answer = _capped(answer, budget, texts_cut)
    rest = {place: items[skips.get(place, 0) :] for place, items in _lists(answer).items()}
    # every list shortened in proportion at first (a few writes of a large answer, not many)
    share = min(1.0, budget / whole)
    most = {
        place: min(len(items), (shown or {}).get(place, len(items)))
        for place, items in rest.items()
    }
    keep = {place: max(1, int(len(rest[place]) * share)) for place in rest}
    keep = {place: min(keep[place], most[place]) for place in rest}
    current = _with_lists(answer, {p: rest[p][: keep[p]] for p in rest})
    text = write(current)

    def fitted_to(keep: dict[str, int], text: str, current: Any) -> Fitted:
        left_out = [
            LeftOut(place, keep[place], len(rest[place]) - keep[place])
            for place in rest
            if keep[place] < len(rest[place])
        ]
        fitted = Fitted(current, text, budget, left_out, texts_cut=texts_cut["cut"])
        if left_out:
            through = [skips.get(place, 0) + keep[place] for place in rest]
            fitted.cursor = encode_cursor(question, through, at)
        return fitted

    def cost(fitted: Fitted) -> int:
        """The tokens of the answer and what it says of its cut (a note, or a JSON object)."""
        said = fitted.note() if lines else json.dumps(fitted.data(), separators=(",", ":"))
        return estimate_tokens(fitted.text) + (estimate_tokens(said) + 2 if fitted.cut else 0)

    fitted = fitted_to(keep, text, current)
    while cost(fitted) < budget * 0.8 and any(keep[p] < most[p] for p in rest):
        grown = {p: min(most[p], keep[p] * 2 if keep[p] else 1) for p in rest}
        current = _with_lists(answer, {p: rest[p][: grown[p]] for p in rest})
        attempt = fitted_to(grown, write(current), current)
        if cost(attempt) > budget:
            break
        keep, fitted = grown, attempt
    while cost(fitted) > budget:
        longest = max((p for p in keep if keep[p] > 0), key=keep.__getitem__, default=None)
        if longest is None:
            break
        keep[longest] = min(keep[longest] - 1, keep[longest] * 3 // 4)
        current = _with_lists(answer, {p: rest[p][: keep[p]] for p in rest})
        fitted = fitted_to(keep, write(current), current)
    if lines and cost(fitted) > budget:
        fitted.cut_as_text = True
        fitted.text = _cut_text(fitted.text, budget - estimate_tokens(fitted.note()) - 2)
    return fitted


def compact_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encode_cursor(question: str, through: list[int], at: int = 0) -> str:
    """`cut.QUESTION.AT.N1.N2…`: the question it answers, the page's offset, and how far each
    list of the answer (in their order) has been shown."""
    return ".".join(["cut", question, str(at), *map(str, through)])


def is_budget_cursor(cursor: str | None) -> bool:
    return bool(cursor) and str(cursor).startswith("cut.")


def cursor_offset(cursor: str) -> int:
    """The offset of the page a cut answer's cursor goes on with."""
    return _parts(cursor)[1]


def decode_cursor(cursor: str, question: str, places: list[str]) -> dict[str, int]:
    """How far each list of the answer (at `places`) was shown, from a cursor `fit` gave for
    `question`."""
    asked, _at, through = _parts(cursor)
    if asked != question or len(through) != len(places):
        raise Invalid("the cursor is not one a cut answer to this question gave")
    return dict(zip(places, through, strict=True))


def _parts(cursor: str) -> tuple[str, int, list[int]]:
    parts = cursor.split(".")
    if not is_budget_cursor(cursor) or len(cursor) > CURSOR_LENGTH or len(parts) < 3:
        raise Invalid("the cursor is not one a cut answer gave")
    numbers = parts[2:]
    if not all(n.isdigit() and len(n) <= 9 for n in numbers):
        raise Invalid("the cursor is not one a cut answer gave")
    return parts[1], int(numbers[0]), [int(n) for n in numbers[1:]]


# ---------------------------------------------------------------- the lists of an answer

_DEPTH = 3  # how deep into an answer's dataclasses lists are looked for
_NOT_CUT = {"envelope"}  # what every answer carries: which commit, which files are stale


def _lists(answer: Any, prefix: str = "", depth: int = 0) -> dict[str, list]:
    """The lists an answer holds, by their place ("items", "context.callers"), as reached
    through its dataclass fields (not inside list items)."""
    if isinstance(answer, list):
        return {"items": answer} if not prefix else {}
    if not dataclasses.is_dataclass(answer) or isinstance(answer, type) or depth > _DEPTH:
        return {}
    found: dict[str, list] = {}
    for each in dataclasses.fields(answer):
        if each.name in _NOT_CUT:
            continue
        value = getattr(answer, each.name)
        place = f"{prefix}{each.name}"
        if isinstance(value, list):
            found[place] = value
        elif dataclasses.is_dataclass(value):
            found.update(_lists(value, place + ".", depth + 1))
    return found


def _with_lists(answer: Any, lists: dict[str, list]) -> Any:
    """A copy of `answer` whose lists at these places are replaced (the answer itself, which
    the answer cache may share, is left as it is)."""
    if isinstance(answer, list):
        return lists.get("items", answer)
    changes: dict[str, Any] = {}
    nested: dict[str, dict[str, list]] = {}
    for place, items in lists.items():
        head, _, tail = place.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = items
        else:
            changes[head] = items
    for head, inner in nested.items():
        changes[head] = _with_lists(getattr(answer, head), inner)
    return dataclasses.replace(answer, **changes)


def _materialised(answer: Any) -> Any:
    """The answer with the lists it streams (an export's items) read into lists, so they can
    be cut like any other."""
    if not dataclasses.is_dataclass(answer) or isinstance(answer, type):
        return answer
    streamed = {
        each.name: list(value)
        for each in dataclasses.fields(answer)
        if isinstance(value := getattr(answer, each.name), Iterator)
    }
    return dataclasses.replace(answer, **streamed) if streamed else answer


def _capped(value: Any, budget: int, counted: Counter) -> Any:
    """`value` with every text longer than a third of the budget (about `budget` characters)
    cut short and marked — or left out, for a field whose text cut short would be wrong
    (WHOLE_OR_NOTHING: a stored JSON report); `counted["cut"]` counts them."""
    if isinstance(value, str):
        if len(value) <= budget:
            return value
        counted["cut"] += 1
        return value[:budget] + f"… [{len(value) - budget:,} characters cut]"
    if isinstance(value, list):
        capped = [_capped(each, budget, counted) for each in value]
        return value if all(a is b for a, b in zip(capped, value, strict=True)) else capped
    if isinstance(value, dict):
        items = {key: _capped(each, budget, counted) for key, each in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for each in dataclasses.fields(value):
            if not each.init:
                continue
            old = getattr(value, each.name)
            if each.metadata.get(WHOLE_OR_NOTHING) and isinstance(old, str):
                new = "" if len(old) > budget else old  # left out, not cut (JSON, say)
                counted["cut"] += new is not old
            else:
                new = _capped(old, budget, counted)
            if new is not old:
                changes[each.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


def _cut_text(text: str, room: int) -> str:
    """The lines of `text` that fit in `room` tokens."""
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = estimate_tokens(line) + 1
        if used + cost > room:
            break
        kept.append(line)
        used += cost
    return "\n".join(kept)
