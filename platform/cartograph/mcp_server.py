"""The MCP server: the catalogue's operations as tools for coding agents (stdio here; HTTP in
api/). One tool per operation, its arguments from the operation's parameters (the same names,
defaults and bounds as the CLI's and REST's).

A server lists the tools of its profiles (`cartograph mcp --profile`, the HTTP gateway's
setting or `?profile=`; PROFILES): by default `agent`, what an investigating and editing agent
needs, in a dozen tools; a token lists only the tools its scopes allow. Schemas are published
compact (no generated titles, no repeated prose).

Every tool answers with compact text (what an agent reads best; JSON with `as_json=true`), cut
to `max_tokens` (AGENT_MAX_TOKENS by default; cartograph.budget) with a cursor for the rest.
Tools outside the `agent` profile also answer structured content, described by the tool's output
schema (the answer's own fields, from its dataclass); the `agent` profile's tools leave both
out: their text is what the agent reads, and their schemas would cost an agent more to load
than all its other tools together. Every answer names the indexed commit and the files changed
since. Each tool carries annotations from its declaration (read-only, destructive, idempotent,
open-world). The index summary of each repository is also a resource
(`cartograph://repos/{repo}/summary`) and the prompt `start_here`.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_origin

from cartograph.answering import run_fitted
from cartograph.auth import may_use, require
from cartograph.budget import AGENT_MAX_TOKENS, CUT_KEY, CUT_SCHEMA, Fitted
from cartograph.errors import CartographError, Invalid
from cartograph.operations import CATALOGUE, Operation, Services
from cartograph.operations.annotations import annotation
from cartograph.operations.base import PROFILES
from cartograph.render import json_form_type, to_data
from cartograph.store import open_store
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from pydantic import RootModel

if TYPE_CHECKING:
    from cartograph.jobs import JobRunner
    from cartograph.model import ApiToken
    from cartograph.store.interfaces import Store

INSTRUCTIONS = """\
Cartograph holds a pre-computed code graph of the repositories it indexed: symbols (modules,
classes, functions, methods), who calls whom (resolved through imports, re-exports, self,
annotations, constructors and inheritance), references (callbacks, decorators, types) and
inheritance. Use it to find where to look before you grep: locate for a task's text,
search_symbols for a name or concept, get_context for one symbol, find_callers before changing
a signature, impact before a merge. The graph says where to look; open the file before you edit
it. Answers name the indexed commit and list files changed on disk since; long answers are cut
to max_tokens and say how to get the rest (cursor)."""


def profile_names(text: str | None) -> frozenset[str]:
    """The profiles a comma-separated list names (`all`: every one; empty: the default)."""
    names = {name.strip() for name in (text or "").split(",") if name.strip()}
    if not names:
        return frozenset(DEFAULT_PROFILES)
    if "all" in names:
        return frozenset(PROFILES)
    unknown = names - set(PROFILES)
    if unknown:
        raise Invalid(f"no MCP profile {sorted(unknown)[0]!r}: one of {', '.join(PROFILES)} or all")
    return frozenset(names)


DEFAULT_PROFILES = ("agent",)


def build_server(
    store_url: str | None = None,
    caller: Callable[[], ApiToken | None] | None = None,
    stores: Callable[[], Store] | None = None,
    runner: JobRunner | None = None,
    data_dir: Path | None = None,
    session: Callable[[], int | None] | None = None,
    profiles: Iterable[str] = DEFAULT_PROFILES,
    asked_profiles: Callable[[], frozenset[str] | None] | None = None,
) -> MCPServer:
    """An MCP server with Cartograph's tools over the store at `store_url`. `caller()` is the
    token of the call being served (the HTTP gateway's; over stdio there is none): every tool
    checks it carries the operation's scope (`read`, `claims` or `admin`), the listing shows
    only the tools it may call, and the team tools act in sessions only that token (or an
    admin) opened. `session()` is the agent session the call is made in (the gateway's
    X-Cartograph-Session header; a read's `session` argument says it too): reads see that
    session's overlay. `stores` gives each calling thread its store (the HTTP app's, shared
    with REST and GraphQL); without it, one store is opened and tool calls take turns on it.
    `runner` queues sync jobs (the server's); without it, the broker CARTOGRAPH_BROKER names,
    else syncs run in the call. `profiles` are the tool sets listed (PROFILES);
    `asked_profiles()` those a call asks for instead (the gateway's `?profile=`)."""
    offered = frozenset(profiles)
    lock: threading.Lock | contextlib.nullcontext = (
        threading.Lock() if stores is None else contextlib.nullcontext()
    )
    opened: dict[str, Store] = {}

    def own_store() -> Store:
        if "store" not in opened:
            opened["store"] = open_store(store_url)
        return opened["store"]

    def services(token: ApiToken | None) -> Services:
        store = stores() if stores else own_store()
        made_in = session() if session is not None else None
        return Services(store, runner=runner, data_dir=data_dir, caller=token, session=made_in)

    def call(op: Operation, values: dict[str, Any], form: str) -> Fitted:
        try:
            token = caller() if caller is not None else None
            require(token, op.scope)
            with lock:
                provided = services(token)
                if provided.runner is None and {"runner", "job_state"} & set(op.services):
                    from cartograph.plugins import configured_job_runner

                    provided.runner = configured_job_runner()
                return run_fitted(op, provided, values, "mcp", form)
        except CartographError as exc:  # said to the agent as a tool error
            raise ToolError(str(exc)) from exc

    def offered_now() -> set[str]:
        """The tools of the profiles this call asks for (else the server's)."""
        asked = asked_profiles() if asked_profiles is not None else None
        return {names[op.name] for op in tools if op.mcp_profile in (asked or offered)}

    def allowed_now() -> set[str]:
        """Those of them the call's token may use (its scopes)."""
        token = caller() if caller is not None else None
        return {names[op.name] for op in tools if may_use(token, op.scope)} & offered_now()

    from cartograph.admin import load_answer_types

    load_answer_types()
    # over the gateway a call may ask for any profile, so every tool is there to be listed
    shown = frozenset(PROFILES) if asked_profiles is not None else offered
    tools = [op for op in CATALOGUE if op.mcp is not None and op.mcp_profile in shown]
    names = {op.name: op.mcp or op.name for op in tools}
    server = ProfiledServer("cartograph", offered_now, allowed_now, instructions=INSTRUCTIONS)
    for op in tools:
        server.add_tool(
            tool_function(op, call),
            name=op.mcp,
            description=op.text,
            annotations=tool_annotations(op),
        )
    add_summary(server, lambda: services(caller() if caller is not None else None).store, lock)
    return server


class ProfiledServer(MCPServer):
    """An MCPServer that lists a call's tools only (those of its profiles its token may use),
    with compact schemas, and refuses a tool outside its profiles (one the token may not use
    is refused by the tool, naming the scope it lacks)."""

    def __init__(
        self,
        name: str,
        offered: Callable[[], set[str]],
        allowed: Callable[[], set[str]],
        **settings: Any,
    ) -> None:
        super().__init__(name, **settings)
        self._offered = offered
        self._allowed = allowed
        self._compact: dict[str, MCPTool] = {}

    async def list_tools(self) -> list[MCPTool]:
        allowed = self._allowed()
        tools = []
        for tool in await super().list_tools():
            if tool.name not in allowed:
                continue
            if tool.name not in self._compact:
                output = compact_schema(tool.output_schema) if tool.output_schema else None
                budgeted = "max_tokens" in tool.input_schema.get("properties", {})
                if output is not None and budgeted and "properties" in output:
                    output["properties"][CUT_KEY] = CUT_SCHEMA  # a cut answer says so
                self._compact[tool.name] = tool.model_copy(
                    update={
                        "input_schema": compact_schema(tool.input_schema),
                        "output_schema": output,
                    }
                )
            tools.append(self._compact[tool.name])
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name not in self._offered():
            raise ToolError(f"Unknown tool: {name} (not in this server's profiles)")
        return await super().call_tool(name, arguments, context)


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema as small as it can honestly be: no generated titles, no null defaults,
    no definitions' prose (the tool's description says what matters), `anyOf [X, null]` as a
    type list, and the root's own definition not repeated under `$defs`."""
    compact = _compact_node(schema)
    defs = compact.get("$defs")
    if defs:
        text = json.dumps({k: v for k, v in compact.items() if k != "$defs"})
        for name in list(defs):
            if defs[name].get("properties") == compact.get("properties"):
                others = json.dumps({k: v for k, v in defs.items() if k != name})
                if f'"#/$defs/{name}"' not in text + others:
                    del defs[name]
        if not defs:
            del compact["$defs"]
    return compact


def _compact_node(node: Any, is_properties: bool = False) -> Any:
    if isinstance(node, list):
        return [_compact_node(each) for each in node]
    if not isinstance(node, dict):
        return node
    if is_properties:  # property names, not schema keywords
        return {name: _compact_node(each) for name, each in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if (key == "title" and isinstance(value, str)) or (key == "default" and value is None):
            continue  # a generated title; null, what an argument left out is anyway
        if key == "$defs":
            out[key] = {
                name: {k: v for k, v in _compact_node(each).items() if k != "description"}
                for name, each in value.items()
            }
        elif key == "properties":
            out[key] = _compact_node(value, is_properties=True)
        else:
            out[key] = _compact_node(value)
    choices = out.get("anyOf")
    if isinstance(choices, list) and len(choices) == 2 and {"type": "null"} in choices:
        (other,) = [each for each in choices if each != {"type": "null"}]
        if isinstance(other.get("type"), str) and "$ref" not in other:
            del out["anyOf"]
            out.update({k: v for k, v in other.items() if k != "type"})
            out["type"] = [other["type"], "null"]
    return out


def tool_annotations(op: Operation) -> ToolAnnotations:
    """What a call does, from the declaration. Whether it destroys or may be repeated is said
    of tools that change something only (MCP reads those hints only when a tool is not
    read-only)."""
    changes = not op.changes_nothing
    return ToolAnnotations(
        title=op.help,
        read_only_hint=op.changes_nothing,
        destructive_hint=op.destructive if changes else None,
        idempotent_hint=op.repeatable if changes else None,
        open_world_hint=op.open_world,
    )


def add_summary(server: MCPServer, store_of: Callable[[], Store], lock: Any) -> None:
    """The index summary of a repository (what is indexed, how fresh, who claims what, which
    tools to use): a resource per repository and a prompt that starts a task with it."""
    from cartograph.hooks.summary import index_summary

    def summary(repo: str) -> str:
        with lock:
            store = store_of()
            record = store.repos.get_repo(repo)
            root = Path(record.root) if record is not None and record.root else None
            return index_summary(store, repo, root)

    @server.resource(
        "cartograph://repos/{repo}/summary",
        name="repository summary",
        description="What is indexed of a repository, how fresh it is, who claims what, and "
        "which tools to reach for.",
        mime_type="text/plain",
    )
    def repository_summary(repo: str) -> str:
        return summary(repo)

    @server.prompt(
        name="start_here",
        description="Start a task with the index summary of a repository and, given the task, "
        "the likely locations.",
    )
    def start_here(repo: str, task: str = "") -> str:
        text = summary(repo)
        if task:
            from cartograph.query.locate import locate, locations_text

            with lock:
                found = locate(store_of(), task, repo)
            if found.locations:
                text += "\n\n" + locations_text(found)
            text += f"\n\nThe task: {task}"
        return text


def tool_function(
    op: Operation, call: Callable[[Operation, dict[str, Any], str], Fitted]
) -> Callable:
    """A function whose signature is the operation's parameters (pydantic-annotated with their
    bounds; a read's `max_tokens` defaults to AGENT_MAX_TOKENS) and `as_json`; the MCP SDK
    builds the tool's input schema from it. Outside the `agent` profile it answers structured
    content too, and its return annotation gives the tool's output schema."""

    form = json_form_type(op.answer)  # what the answer's JSON looks like
    wrapped = get_origin(form) is list  # a list is published as {"result": [...]}
    structured = op.mcp_profile != "agent"

    def tool(**arguments: Any) -> CallToolResult:
        as_json = arguments.pop("as_json", False)
        fitted = call(op, arguments, "json" if as_json else "text")
        content: list[Any] = [TextContent(type="text", text=fitted.text)]
        if as_json and fitted.cut and fitted.text.startswith("["):  # a list has no room for it
            content.insert(0, TextContent(type="text", text=fitted.note()))
        if not structured:
            return CallToolResult(content=content)
        data = to_data(fitted.answer)
        if fitted.cut and isinstance(data, dict):
            data = {**data, CUT_KEY: fitted.data()}
        return CallToolResult(
            content=content, structured_content={"result": data} if wrapped else data
        )

    parameters = []
    for param in op.on("mcp"):
        if param.name == "max_tokens":
            param = replace(param, default=AGENT_MAX_TOKENS)
        parameters.append(
            inspect.Parameter(
                param.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if param.required else param.default,
                annotation=annotation(param, param.name),
            )
        )
    parameters.append(
        inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=bool)
    )
    # what inspect.signature() (and so the MCP SDK) reads; set through the function's
    # __dict__, as `tool.__signature__ = ...` does (the function type declares no such attribute)
    # the output schema: a list as the SDK wraps it, an answer's dataclass as a root model (the
    # SDK would read a slotted dataclass's defaults as descriptors)
    published = form if wrapped else RootModel[form]  # type: ignore[valid-type]
    returns = Annotated[CallToolResult, published] if structured else CallToolResult
    tool.__dict__["__signature__"] = inspect.Signature(parameters, return_annotation=returns)
    tool.__name__ = op.mcp or op.name
    tool.__doc__ = op.text
    return tool


def run_stdio(store_url: str | None = None, profiles: str | None = None) -> None:
    build_server(store_url, profiles=profile_names(profiles)).run("stdio")
