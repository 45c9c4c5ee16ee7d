"""GraphQL fields made from catalogue operations: one field per operation whose `graphql` names
a field of Query that is not written by hand (`stats`, `deadCode`, `services`, `team`, …).

Each takes the operation's parameters as arguments (spelled for GraphQL, with their defaults;
the same checks run) and answers the operation's answer as the `JSON` scalar, in the shape
REST answers it (`render.to_data`), cut to `maxTokens` when asked (cartograph.budget). They need the operation's scope, run it through
`Operation.run` (so the answer cache and the session's overlay apply as everywhere else), on
the execution's worker thread (cartograph.api.graphql.Router). The dashboard reads them; the
hand-written fields are for walking the graph (a symbol's callers' callers), these for one
answer at a time.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import strawberry
from cartograph.answering import fitted
from cartograph.auth import require
from cartograph.operations import CATALOGUE, Operation, Services
from cartograph.render import to_data
from strawberry.scalars import JSON
from strawberry.types import Info
from strawberry.types.field import StrawberryField

BUDGET = ("max_tokens", "cursor")


def camel(name: str) -> str:
    first, *rest = name.replace("-", "_").split("_")
    return first + "".join(word.capitalize() for word in rest)


def _answer_field(op: Operation) -> StrawberryField:
    # the session comes with the request; a budget (`maxTokens`, `cursor`) is asked here
    params = {
        p.spelled("graphql"): p for p in op.on("graphql") if not p.to_services or p.name in BUDGET
    }

    async def resolve(info: Info, **given: Any) -> JSON:
        require(info.context["caller"], op.scope)
        values = {params[name].name: value for name, value in given.items()}
        store = info.context["shared_store"]()
        services = Services(store, caller=info.context["caller"], session=info.context["session"])
        answer = op.run(services, values, "graphql")  # the execution's own thread
        if not values.get("max_tokens") and not values.get("cursor"):
            return to_data(answer)
        return json.loads(fitted(op, answer, services, values, "graphql", "json").text)

    parameters = [
        inspect.Parameter("info", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Info)
    ]
    annotations: dict[str, Any] = {"info": Info, "return": JSON}
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
    resolve.__dict__["__signature__"] = inspect.Signature(parameters, return_annotation=JSON)
    resolve.__annotations__ = annotations
    resolve.__name__ = camel(op.name)
    return strawberry.field(resolver=resolve, description=op.text)


def answer_fields(written: type) -> dict[str, StrawberryField]:
    """The generated Query fields: those the catalogue names and `written` does not define."""
    return {
        camel(op.graphql): _answer_field(op)
        for op in CATALOGUE
        if op.graphql and "." not in op.graphql and not hasattr(written, camel(op.graphql))
    }
