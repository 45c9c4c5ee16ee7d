"""GraphQL fields made from catalogue operations: one field per operation whose `graphql` names
a field of Query that is not written by hand (`stats`, `deadCode`, `services`, `team`, …).

Each takes the operation's parameters as arguments (spelled for GraphQL, with their defaults;
the same checks run) and answers the object type made from the operation's answer type
(cartograph.api.graphql_types: the fields of its JSON form, spelled in camelCase; a symbol is
the walkable `Symbol`). Asked `maxTokens` (or a `cursor`), the answer is cut to it
(cartograph.budget) and what was left out, with the cursor for the rest, is said in the
response's `extensions.cutToBudget`, by the field's place in the response ("deadCode", or an
alias). The fields need the operation's scope and run it through `Operation.run` (so the
answer cache and the session's overlay apply as everywhere else), on the execution's worker
thread (cartograph.api.graphql.Router). The dashboard reads them; the hand-written fields are
for walking the graph (a symbol's callers' callers), these for one answer at a time.
"""

from __future__ import annotations

import inspect
from typing import Any

import strawberry
from cartograph.answering import fitted
from cartograph.api.graphql_types import AnswerTypes
from cartograph.auth import require
from cartograph.budget import compact_json
from cartograph.operations import CATALOGUE, Operation, Services
from cartograph.render import json_form_type, to_data
from strawberry.types import Info
from strawberry.types.field import StrawberryField
from strawberry.types.nodes import SelectedField, Selection

BUDGET = ("max_tokens", "cursor")
CUTS = "cuts"  # the context's key: what was cut of each answer, by its place in the response


def camel(name: str) -> str:
    first, *rest = name.replace("-", "_").split("_")
    return first + "".join(word.capitalize() for word in rest)


def _answer_field(op: Operation, types: AnswerTypes) -> StrawberryField:
    # the session comes with the request; a budget (`maxTokens`, `cursor`) is asked here
    params = {
        p.spelled("graphql"): p for p in op.on("graphql") if not p.to_services or p.name in BUDGET
    }
    form = json_form_type(op.answer)
    returned = types.of(form)

    async def resolve(info: Info, **given: Any) -> Any:
        require(info.context["caller"], op.scope)
        values = {params[name].name: value for name, value in given.items()}
        store = info.context["shared_store"]()
        services = Services(store, caller=info.context["caller"], session=info.context["session"])
        answer = op.run(services, values, "graphql")  # the execution's own thread
        if values.get("max_tokens") or values.get("cursor"):
            # the budget counts what the query selects of the answer, written as JSON
            selected = _flat(info.selected_fields[0].selections)
            answered = fitted(
                op,
                answer,
                services,
                values,
                "graphql",
                "json",
                lambda each: compact_json(_selected(to_data(each), selected)),
                variant=_signature(selected),
            )
            if answered.cut:
                place = ".".join(str(key) for key in info.path.as_list())
                info.context.setdefault(CUTS, {})[place] = answered.data()
            answer = answered.answer
        # a form of its own (an export's items) is what the JSON form writes
        return types.value(answer if form is op.answer else to_data(answer), form)

    parameters = [
        inspect.Parameter("info", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Info)
    ]
    annotations: dict[str, Any] = {"info": Info, "return": returned}
    for name, param in params.items():
        python = param.value.python
        if not param.required and param.default is None:
            python = python | None
        default = inspect.Parameter.empty if param.required else param.default
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=python
            )
        )
        annotations[name] = python
    resolve.__dict__["__signature__"] = inspect.Signature(parameters, return_annotation=returned)
    resolve.__annotations__ = annotations
    resolve.__name__ = camel(op.name)
    return strawberry.field(resolver=resolve, description=op.text)


def answer_fields(written: type, types: AnswerTypes) -> dict[str, StrawberryField]:
    """The generated Query fields: those the catalogue names and `written` does not define,
    answering the object types `types` makes."""
    return {
        camel(op.graphql): _answer_field(op, types)
        for op in CATALOGUE
        if op.graphql and "." not in op.graphql and not hasattr(written, camel(op.graphql))
    }


def _flat(selections: list[Selection]) -> list[SelectedField]:
    """The fields a selection asks for, with its fragments' fields in their place."""
    fields: list[SelectedField] = []
    for each in selections:
        if isinstance(each, SelectedField):
            fields.append(each)
        else:  # a fragment, spread or inline
            fields.extend(_flat(each.selections))
    return fields


def _selected(data: Any, fields: list[SelectedField]) -> Any:
    """What of an answer's JSON form (snake_case keys) the query selects, by the names the
    response gives them."""
    if isinstance(data, list):
        return [_selected(each, fields) for each in data]
    if not isinstance(data, dict) or not fields:
        return data
    keys = {camel(key): key for key in data}
    return {
        field.alias or field.name: _selected(data[keys[field.name]], _flat(field.selections))
        for field in fields
        if field.name in keys
    }


def _signature(fields: list[SelectedField]) -> str:
    """The selection as a string: which writing of an answer is which (the answer cache keeps
    one per selection)."""
    return " ".join(
        f"{field.alias or ''}:{field.name}{{{_signature(_flat(field.selections))}}}"
        for field in fields
    )
