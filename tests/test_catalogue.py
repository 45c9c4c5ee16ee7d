"""Every operation of the catalogue is reachable from the CLI, MCP and REST (and GraphQL where it
declares a field), with the same parameter names, defaults and bounds: read from the argparse
parser, the MCP tools' input schemas and the OpenAPI document, which are all derived from the
one declaration. Every answer type has a renderer."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import re
import typing

import pytest
from cartograph.api.app import Settings, create_app
from cartograph.api.graphql import schema as graphql_schema
from cartograph.budget import AGENT_MAX_TOKENS, CUT_KEY
from cartograph.cli import build_parser
from cartograph.hooks.routes import ROUTES as HOOK_ROUTES
from cartograph.mcp_server import build_server
from cartograph.operations import CATALOGUE, REQUIRED, Operation, Param, operation
from cartograph.operations.base import PROFILES
from cartograph.operations.values import Choice, TextList
from cartograph.render import _RENDERERS, json_form_type

OPERATIONS = [pytest.param(op, id=op.name) for op in CATALOGUE]


def test_names_are_unique_on_every_surface():
    for surface, name_of in (
        ("cli", lambda op: op.cli.words),
        ("mcp", lambda op: op.mcp),
        ("rest", lambda op: (op.rest.method, op.rest.path)),
    ):
        names = [name_of(op) for op in CATALOGUE]
        assert len(names) == len(set(names)), surface


@pytest.mark.parametrize("op", OPERATIONS)
def test_every_operation_is_on_every_surface_and_has_a_renderer(op: Operation):
    assert op.cli is not None and op.mcp is not None and op.rest is not None, op.name
    assert op.answer in _RENDERERS, f"{op.name}: no renderer for {op.answer}"


# ---------------------------------------------------------------- the CLI


def _command(words: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def _refused_by_cli(action: argparse.Action, text: str) -> bool:
    try:
        action.type(text)
    except argparse.ArgumentTypeError:
        return True
    return False


@pytest.mark.parametrize("op", OPERATIONS)
def test_the_cli_command(op: Operation):
    command = _command(op.cli.words)
    by_dest = {a.dest: a for a in command._actions}
    for param in op.on("cli"):
        action = by_dest[param.name]
        spelled = param.spelled("cli")
        if param.positional:
            assert action.option_strings == [], param.name
        else:
            assert spelled in action.option_strings, (param.name, action.option_strings)
        if param.is_flag:
            assert action.const is (not param.default) and action.default is param.default
            continue
        if param.required and not param.positional:
            assert action.required, param.name
        elif not param.required:
            default = action.default
            if isinstance(default, str) and action.type is not None:
                default = action.type(default)  # argparse converts string defaults too
            expected = None if param.default is None else param.parse(param.default)
            assert default == expected, param.name
        if isinstance(param.value, Choice):
            assert tuple(action.choices) == param.choices
        if param.maximum is not None:
            assert not _refused_by_cli(action, str(param.maximum))
            assert _refused_by_cli(action, str(param.maximum + 1)), param.name
        if param.minimum is not None:
            assert not _refused_by_cli(action, str(param.minimum))
            assert _refused_by_cli(action, str(param.minimum - 1)), param.name
    declared = {p.name for p in op.on("cli")}
    extra = {"help", "store", "json", "quiet", "output", "handler"}
    assert {a.dest for a in command._actions} - declared <= extra


def test_out_of_bounds_is_a_usage_error_on_the_cli(capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["trace", "f", "--depth", "11"])
    assert exit_.value.code == 2
    assert "`depth` is 1 to 10" in capsys.readouterr().err


# ---------------------------------------------------------------- MCP


@pytest.fixture(scope="module")
def mcp_tools(tmp_path_factory):
    server = build_server(
        f"sqlite:///{tmp_path_factory.mktemp('mcp') / 'graph.db'}", profiles=PROFILES
    )
    return {tool.name: tool for tool in asyncio.run(server.list_tools())}


def _constraint(schema: dict, key: str):
    """A JSON-schema keyword of a property, also inside `anyOf` (an optional value)."""
    if key in schema:
        return schema[key]
    for option in schema.get("anyOf", []):
        if key in option:
            return option[key]
    return None


def _check_schema(
    param: Param, schema: dict, required: bool, where: str, default: object = REQUIRED
) -> None:
    assert required == param.required, where
    if not param.required:
        assert schema.get("default") == (param.default if default is REQUIRED else default), where
    assert _constraint(schema, "minimum") == param.minimum, where
    assert _constraint(schema, "maximum") == param.maximum, where
    if isinstance(param.value, Choice):
        assert tuple(_constraint(schema, "enum")) == param.choices, where
    elif isinstance(param.value, TextList):
        assert _constraint(schema, "maxItems") == param.value.max_items, where
    elif param.value.python is str and param.choices is None:
        assert _constraint(schema, "maxLength") == param.value.max_length, where
    if param.value.pattern:
        assert _constraint(schema, "pattern") == param.value.pattern, where


@pytest.mark.parametrize("op", OPERATIONS)
def test_the_mcp_tool(op: Operation, mcp_tools):
    tool = mcp_tools[op.mcp]
    assert tool.description == op.text
    properties = tool.input_schema["properties"]
    required = set(tool.input_schema.get("required", []))
    assert set(properties) == {p.name for p in op.on("mcp")} | {"as_json"}
    # the agent profile's tools answer text (or JSON text) alone: no output schema; the
    # others' are the answer type's fields
    if op.mcp_profile == "agent":
        assert tool.output_schema is None
    else:
        budgeted = {CUT_KEY} if op.budgeted else set()
        assert set(tool.output_schema["properties"]) == _fields(op) | budgeted
    for param in op.on("mcp"):
        # agents get answers within a budget unless they ask for more
        default = AGENT_MAX_TOKENS if param.name == "max_tokens" else REQUIRED
        _check_schema(param, properties[param.name], param.name in required, param.name, default)


# ---------------------------------------------------------------- REST


@pytest.fixture(scope="module")
def openapi(tmp_path_factory):
    work = tmp_path_factory.mktemp("rest")
    settings = Settings(store_url=f"sqlite:///{work / 'graph.db'}", broker_url=None, data_dir=work)
    return create_app(settings).openapi()


def _resolve(document: dict, schema: dict) -> dict:
    for option in [schema, *schema.get("anyOf", [])]:
        if "$ref" in option:
            return document["components"]["schemas"][option["$ref"].rpartition("/")[2]]
    return schema


def _fields(op: Operation) -> set[str]:
    """The fields of an operation's JSON answer, from its type (the one source)."""
    form = json_form_type(op.answer)
    if typing.get_origin(form) is list:
        return {"result"}  # MCP wraps a list; REST answers the list itself
    if dataclasses.is_dataclass(form):
        fields = {f.name for f in dataclasses.fields(form)}
    else:
        fields = set(typing.get_type_hints(form))  # a TypedDict
    assert CUT_KEY not in fields, f"{op.name}: a field holds the name a cut answer's note has"
    return fields


def _rest_fields(op: Operation) -> set[str]:
    fields = _fields(op)
    if fields == {"result"}:
        return set()
    if op.paged:  # REST pages by cursor
        fields = (fields - {"next_offset"}) | {"next_cursor"}
    return fields | ({CUT_KEY} if op.budgeted else set())


def _properties(document: dict, schema: dict) -> dict:
    if schema.get("type") == "array":
        return {}
    return schema["properties"]


@pytest.mark.parametrize("op", OPERATIONS)
def test_the_rest_route(op: Operation, openapi):
    path = "/api/v1" + re.sub(r"{(\w+):path}", r"{\1}", op.rest.path)
    route = openapi["paths"][path][op.rest.method.lower()]
    assert str(op.rest.status) in route["responses"]
    answered = route["responses"][str(op.rest.status)]
    if op.rest.status == 204:
        assert "content" not in answered
    elif op.rest.media_type:
        assert op.rest.media_type in answered["content"]
    else:  # the answer's JSON form, described from the answer type as MCP's schema is
        schema = _resolve(openapi, answered["content"]["application/json"]["schema"])
        assert set(_properties(openapi, schema)) == _rest_fields(op), op.name
    given: dict[str, tuple[dict, bool, str]] = {
        p["name"]: (p["schema"], p.get("required", False), p["in"])
        for p in route.get("parameters", [])
    }
    if "requestBody" in route:
        body = route["requestBody"]
        model = _resolve(openapi, body["content"]["application/json"]["schema"])
        for name, schema in model["properties"].items():
            given[name] = (schema, name in model.get("required", []), "body")
    # one cursor stands for the offset of a page and the rest of a cut answer
    expected = {p.spelled("rest") for p in op.on("rest") if not (op.paged and p.name == "offset")}
    if op.paged:
        expected.add("cursor")
    assert set(given) == expected, op.name
    for param in op.on("rest"):
        if op.paged and param.name in ("offset", "cursor"):
            continue
        schema, required, where = given[param.spelled("rest")]
        if where == "path":
            assert required and "{" + param.name in op.rest.path
            continue
        assert where == param.rest, param.name
        _check_schema(param, schema, required, param.name)


# ---------------------------------------------------------------- GraphQL


def _graphql_field(name: str):
    type_name, _, field = name.rpartition(".")
    holder = graphql_schema._schema.get_type(type_name or "Query")
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), field)
    return holder.fields[camel]


# GraphQL fields that answer the walkable graph (a symbol's callers' callers in one query), not
# an operation's answer as it is
GRAPH_FIELDS = {
    "search", "symbol", "Symbol.callers", "Symbol.callees", "trace", "history", "claims",
    "repositories", "Repository.files",
}  # fmt: skip


@pytest.mark.parametrize("op", [o for o in OPERATIONS if o.values[0].graphql])
def test_the_graphql_field(op: Operation):
    field = _graphql_field(op.graphql)
    answered = field.type
    while hasattr(answered, "of_type"):
        answered = answered.of_type
    form = json_form_type(op.answer)
    if typing.get_origin(form) is list:  # a list answers a list of its items' type
        (form,) = typing.get_args(form)
    if answered.name == getattr(form, "__name__", None):  # the answer type, as GraphQL has it
        fields = (
            {f.name for f in dataclasses.fields(form)}
            if dataclasses.is_dataclass(form)
            else set(typing.get_type_hints(form))
        )
        camel = {re.sub(r"_(\w)", lambda m: m.group(1).upper(), name) for name in fields}
        # the walkable graph's types have the answer's fields and walks of their own
        walks = set(answered.fields) - camel if op.graphql in GRAPH_FIELDS else set()
        assert set(answered.fields) == camel | walks, op.name
    else:  # a field of the walkable graph: symbols whose callers have callers
        assert op.graphql in GRAPH_FIELDS, (op.name, answered.name)
    by_name = {p.spelled("graphql"): p for p in op.params}
    for name, argument in field.args.items():
        assert name in by_name, f"{op.graphql}({name}) is no parameter of {op.name}"
        param = by_name[name]
        if isinstance(param.value, Choice):
            assert str(argument.default_value.value) == param.default
        elif param.default is not REQUIRED:
            assert argument.default_value == param.default, name


def test_every_answer_type_is_one_graphql_type_of_its_own():
    """The object types made from answer types have their fields, and no two share a name with
    each other or with a type written by hand (GraphQL's names are one namespace)."""
    from cartograph.api import graphql

    made = graphql.ANSWERS.made()
    names = [each.__strawberry_definition__.name for each in made.values()]
    assert len(names) == len(set(names))
    for python, each in made.items():
        typed = graphql_schema._schema.get_type(each.__strawberry_definition__.name)
        hints = typing.get_type_hints(python)
        assert set(typed.fields) == {
            re.sub(r"_(\w)", lambda m: m.group(1).upper(), n) for n in hints
        }
    written = {
        value.__strawberry_definition__.name
        for value in vars(graphql).values()
        if hasattr(value, "__strawberry_definition__") and value not in made.values()
    }
    assert written - {"Query", "WrittenQuery"} <= graphql.ANSWERS.reserved


@pytest.mark.parametrize(
    "query, refusal",
    [
        ('{ search(query: "x", first: 101) { nextOffset } }', "`first` is 1 to 100"),
        ('{ search(query: "x", offset: -1) { nextOffset } }', "`offset` is 0 to 1000000"),
        ('{ trace(name: "x", depth: 11) { depth } }', "`depth` is 1 to 10"),
        ('{ trace(name: "x", fanout: 51) { depth } }', "`fanout` is 1 to 50"),
        ('{ history(target: "x", first: 0) { sha } }', "`first` is 1 to 100"),
    ],
)
def test_graphql_takes_its_bounds_from_the_operations(query, refusal):
    context = {"store": lambda: None, "loaders": None, "traces": 0, "caller": None}
    result = asyncio.run(graphql_schema.execute(query, context_value=context))
    assert result.errors and refusal in result.errors[0].message
    assert result.errors[0].extensions["kind"] == "invalid"


@pytest.mark.parametrize("name", sorted(HOOK_ROUTES))
def test_the_hooks_call_the_routes_the_catalogue_declares(name: str):
    op = operation(name)
    route = HOOK_ROUTES[name]
    assert (route.method, route.path) == (op.rest.method, op.rest.path)
    in_path = set(re.findall(r"{(\w+)", op.rest.path))
    declared = {
        p.spelled("rest"): "path" if p.name in in_path else p.rest
        for p in op.on("rest")
        if not (op.paged and p.name == "offset")
    }
    assert route.params == declared
