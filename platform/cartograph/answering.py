"""An operation's answer as a surface gives it: run through the catalogue, written as text
(what the CLI and MCP print) or JSON, within the budget the call asks for (`max_tokens`,
`cursor`; cartograph.budget). Every surface — the CLI, MCP, REST, GraphQL — answers through
here, so an answer is cut, noted and continued the same way everywhere."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from cartograph.budget import CUT_KEY, Fitted, compact_json, fit
from cartograph.operations import Operation, Services
from cartograph.query.answers import rendered
from cartograph.render import render, shown_in_text, to_data


def run_fitted(
    op: Operation,
    services: Services,
    values: Mapping[str, Any],
    surface: str,
    form: str,
    write: Callable[[Any], str] | None = None,
) -> Fitted:
    """Run `op`, and write its answer within the budget the values give (see `fitted`)."""
    return fitted(op, op.run(services, values, surface), services, values, surface, form, write)


def fitted(
    op: Operation,
    answer: Any,
    services: Services,
    values: Mapping[str, Any],
    surface: str,
    form: str,
    write: Callable[[Any], str] | None = None,
    variant: str = "",
) -> Fitted:
    """The answer `op` gave for these values written in `form` — "text", "json" (compact) or
    "lines" (JSON lines), by `write` when the surface writes its own (`variant` says which
    writing it is when it writes part of the answer: GraphQL's selection) — within the budget
    they give (whole when the operation takes none). A cut answer's text starts with its note;
    its JSON carries a `cut_to_budget` object (CUT_KEY). Whole answers are written once per
    cached answer (cartograph.query.answers)."""
    if write is None:
        if form == "text":
            write = lambda each: render(each, op.answer).rstrip("\n")  # noqa: E731
        else:
            write = lambda each: compact_json(to_data(each))  # noqa: E731
    writer = write
    max_tokens, cursor, question, at = None, None, "", 0
    if op.budgeted:
        bound = op.bind(values, surface)
        asked = json.dumps(op.asked(bound), sort_keys=True, default=str)
        question = hashlib.sha1(f"{op.name} {asked}".encode()).hexdigest()[:10]
        max_tokens, cursor, at = services.max_tokens, services.cursor, bound.get("offset") or 0
    answered = fit(
        answer,
        lambda each: rendered(each, f"{surface}-{form}-{variant}", lambda: writer(each)),
        max_tokens,
        cursor,
        question,
        lines=form == "text",
        at=at,
        shown=shown_in_text(answer) if form == "text" else None,
    )
    if answered.cut:
        if form == "text":
            answered.text = f"{answered.note()}\n{answered.text}"
        elif form == "json":
            data = json.loads(answered.text)
            if isinstance(data, dict):
                data[CUT_KEY] = answered.data()
                answered.text = compact_json(data)
    return answered
