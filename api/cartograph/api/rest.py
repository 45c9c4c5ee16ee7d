"""REST routes (`/api/v1/…`), one per catalogue operation (cartograph.operations): the method and
path, the parameters (in the path, the query or a JSON body, with the operation's bounds), the
scope and the status all come from the declaration, and each answer is the operation's JSON
form (cartograph.render), the same data the CLI's `--json` prints — or, asked with `Accept:
text/plain`, the compact text the CLI and MCP print. Lists take `limit` and an
opaque `cursor`, and answer `next_cursor` (null on the last page). Errors are RFC 9457
`application/problem+json` (cartograph.api.app), their status from the error's kind.
"""

from __future__ import annotations

import base64
import inspect
import json
import re
from collections.abc import Callable
from typing import Annotated, Any

from cartograph.answering import fitted
from cartograph.auth import require
from cartograph.budget import CUT_KEY, CUT_SCHEMA, compact_json, cursor_offset, is_budget_cursor
from cartograph.errors import Invalid
from cartograph.model import ApiToken
from cartograph.operations import CATALOGUE, Operation, Param, Services
from cartograph.operations.annotations import annotation
from cartograph.render import json_form_type, json_lines, to_data
from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field, TypeAdapter, create_model

JSON = "application/json"

PREFIX = "/api/v1"
TAGS = {"read": "queries", "claims": "agents", "admin": "administration"}
CURSOR_LENGTH = 200
REQUEST = "_request"  # the keyword the request reaches an endpoint under (never a parameter)


def encode_cursor(offset: int | None) -> str | None:
    return None if offset is None else base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        if text.startswith("o:") and text[2:].isdigit():
            return int(text[2:])
    except (ValueError, UnicodeError):
        pass
    raise Invalid("the cursor is not one this API gave out")


def build_router(
    services: Callable[[], Services], caller: Callable[[Request], ApiToken | None]
) -> APIRouter:
    """The routes of every operation REST exposes; `services()` gives each request the
    store and the rest, `caller(request)` the caller's token (None on an open local
    server)."""

    def scoped(scope: str) -> Any:
        def check(request: Request) -> None:
            require(caller(request), scope)

        return Depends(check)

    router = APIRouter(prefix=PREFIX)
    # a `{symbol:path}` at the end takes any rest of the path: such routes go last
    ordered = sorted(
        ((op, op.rest) for op in CATALOGUE if op.rest is not None),
        key=lambda routed: routed[1].path.endswith(":path}"),
    )
    for op, rest in ordered:
        router.add_api_route(
            rest.path,
            endpoint(op, services, caller),
            methods=[rest.method],
            status_code=rest.status,
            name=op.name.replace("-", "_"),
            summary=op.help,
            description=op.text,
            tags=[TAGS[op.scope]],
            dependencies=[scoped(op.scope)],
            response_model=None,
            responses=responses(op),
        )
    return router


# ---------------------------------------------------------------- what the routes answer

COMPONENTS = "#/components/schemas/{model}"
PROBLEM = {
    "type": "object",
    "description": "RFC 9457: what was refused and why",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
    },
    "required": ["type", "title", "status", "detail"],
}


def responses(op: Operation) -> dict[int | str, dict[str, Any]]:
    """What the route answers, for OpenAPI: the answer's JSON form (from the answer type, as
    MCP's output schemas are; a page's cursor in place of its offset, and the `cut_to_budget` of an
    answer within a budget), its text, and problems."""
    rest = op.rest
    assert rest is not None
    answered: dict[str, Any] = {"description": op.help}
    if rest.status != 204:
        if rest.media_type:
            described = "one JSON object per line (a node or an edge)"
            content = {rest.media_type: {"schema": {"type": "string", "description": described}}}
        else:
            content = {
                JSON: {"schema": {"$ref": COMPONENTS.format(model=_answer_component(op))}},
                "text/plain": {"schema": {"type": "string"}},  # asked with Accept: text/plain
            }
        answered["content"] = content
    problem = {"application/problem+json": {"schema": {"$ref": COMPONENTS.format(model="Problem")}}}
    return {rest.status: answered, "4XX": {"description": "refused", "content": problem}}


_COMPONENTS: dict[str, dict[str, Any]] = {"Problem": PROBLEM, "Cut": CUT_SCHEMA}


def answer_components() -> dict[str, dict[str, Any]]:
    """The schemas the routes' answers refer to (OpenAPI's components)."""
    for op in CATALOGUE:
        if op.rest is not None and op.rest.status != 204 and not op.rest.media_type:
            _answer_component(op)
    return _COMPONENTS


def _answer_component(op: Operation) -> str:
    """The component an operation's JSON answer is, registered (with the types it holds)."""
    form = json_form_type(op.answer)
    schema = TypeAdapter(form).json_schema(ref_template=COMPONENTS, mode="serialization")
    for name, each in schema.pop("$defs", {}).items():
        _register(name, each)
    if schema.get("type") == "object":
        properties = schema.setdefault("properties", {})
        if op.paged:  # REST pages by cursor (`next_cursor`), not by offset
            properties.pop("next_offset", None)
            properties["next_cursor"] = {"type": ["string", "null"]}
            schema["required"] = [
                "next_cursor" if name == "next_offset" else name
                for name in schema.get("required", [])
            ]
        if op.budgeted:
            properties[CUT_KEY] = {"$ref": COMPONENTS.format(model="Cut")}
    schema.pop("title", None)
    return _register("".join(w.capitalize() for w in re.split(r"[-_]", op.name)) + "Answer", schema)


def _register(name: str, schema: dict[str, Any]) -> str:
    """`name`, or a name of its own when another schema holds it already."""
    candidate, number = name, 1
    while candidate in _COMPONENTS and _COMPONENTS[candidate] != schema:
        number += 1
        candidate = f"{name}{number}"
    _COMPONENTS[candidate] = schema
    return candidate


def endpoint(
    op: Operation,
    services: Callable[[], Services],
    caller: Callable[[Request], ApiToken | None],
) -> Callable[..., Any]:
    """A function whose signature is the operation's parameters as FastAPI reads them (path and
    query parameters, a body model), which runs the operation for the request's caller and
    answers its JSON form."""
    rest = op.rest
    assert rest is not None
    in_path = set(re.findall(r"{(\w+)", rest.path))
    parameters: list[inspect.Parameter] = []
    body_params: list[Param] = []
    for param in op.on("rest"):
        spelled = param.spelled("rest")
        if op.paged and param.name in ("offset", "cursor"):
            continue  # one cursor stands for the page and the rest of a cut answer
        if param.name in in_path:
            kind: Any = Path
        elif param.rest == "body":
            body_params.append(param)
            continue
        else:
            kind = Query
        default = inspect.Parameter.empty if param.required or kind is Path else param.default
        typed = annotation(param, spelled, kind, given=kind is Path)
        parameters.append(_keyword(spelled, typed, default))
    if op.paged:
        cursor = Annotated[str | None, Query(max_length=CURSOR_LENGTH)]
        parameters.append(_keyword("cursor", cursor, None))
    body_model = _body_model(op, body_params) if body_params else None
    if body_model is not None:
        optional = all(not p.required for p in body_params)
        typed = Annotated[body_model | None if optional else body_model, Body()]
        parameters.append(_keyword("body", typed, None if optional else inspect.Parameter.empty))

    def run(**given: Any) -> Any:
        request: Request = given.pop(REQUEST)
        values: dict[str, Any] = {}
        body: BaseModel | None = given.pop("body", None)
        for param in op.on("rest"):
            spelled = param.spelled("rest")
            if param in body_params:
                if body is not None:
                    values[param.name] = getattr(body, spelled)
            elif spelled in given:
                values[param.name] = given[spelled]
        if op.paged:
            cursor = values.pop("cursor", None)
            if is_budget_cursor(cursor):  # the rest of a cut answer: its page, further on
                values["offset"] = cursor_offset(cursor)
                values["cursor"] = cursor
            else:
                values["offset"] = decode_cursor(cursor)
        provided = services()
        provided.caller = caller(request)
        provided.session = getattr(request.state, "session", None)
        answer = op.run(provided, values, "rest")
        refused = rest.refusal(answer) if rest.refusal else None
        if refused is not None:
            raise refused
        if rest.status == 204:
            return Response(status_code=204)
        if rest.media_type:  # lines of JSON (an export), within the budget asked
            lines = fitted(op, answer, provided, values, "rest", "lines", _lines)
            headers = {"Cartograph-Cut": json.dumps(lines.data())} if lines.cut else None
            return Response(lines.text, media_type=rest.media_type, headers=headers)
        # text: what the CLI and MCP print (for hooks, curl); the JSON as Starlette writes it
        # (both once per cached answer: cartograph.query.answers), within the budget asked
        wants_text = _wants_text(request)
        form = "text" if wants_text else "json"
        written = fitted(
            op, answer, provided, values, "rest", form, None if wants_text else as_json
        )
        headers = {"Cartograph-Cut": json.dumps(written.data())} if written.cut else None
        if wants_text:
            return Response(
                written.text + "\n",
                status_code=rest.status,
                media_type="text/plain; charset=utf-8",
                headers=headers,
            )
        return Response(written.text, status_code=rest.status, media_type=JSON, headers=headers)

    def as_json(answer: Any) -> str:
        data = to_data(answer)
        if op.paged:
            data.pop("next_offset", None)
            data["next_cursor"] = encode_cursor(answer.next_offset)
        return compact_json(data)

    parameters.append(_keyword(REQUEST, Request, inspect.Parameter.empty))
    # what inspect.signature() (and so FastAPI) reads; set through the function's __dict__, as
    # `run.__signature__ = ...` does (the function type declares no such attribute)
    run.__dict__["__signature__"] = inspect.Signature(parameters)
    run.__name__ = op.name.replace("-", "_")
    run.__doc__ = op.text
    return run


def _lines(answer: Any) -> str:
    return "".join(json_lines(answer))


def _wants_text(request: Request) -> bool:
    """The client asked for text before JSON (`Accept: text/plain`)."""
    accept = request.headers.get("accept", "")
    return accept.split(",")[0].split(";")[0].strip().lower() == "text/plain"


def _keyword(name: str, typed: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=typed
    )


def _body_model(op: Operation, params: list[Param]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for param in params:
        spelled = param.spelled("rest")
        default = ... if param.required else param.default
        fields[spelled] = (annotation(param, spelled, Field), default)
    title = "".join(word.capitalize() for word in re.split(r"[-_]", op.name))
    return create_model(f"{title}Request", **fields)
