"""The MCP server: the catalogue's operations as tools for coding agents (stdio here; HTTP in
api/). One tool per operation, its arguments from the operation's parameters (the same names,
defaults and bounds as the CLI's and REST's).

Every tool answers with compact text (what an agent reads best; JSON with `as_json=true`) and
the same answer as structured content, described by the tool's output schema (the answer's
own fields, from its dataclass); every answer names the indexed commit and the files changed
since. Each tool carries annotations from its declaration (read-only, destructive, idempotent,
open-world). The index summary of each repository is also a resource
(`cartograph://repos/{repo}/summary`) and the prompt `start_here`.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_origin

from cartograph.auth import require
from cartograph.errors import CartographError
from cartograph.operations import CATALOGUE, Operation, Services
from cartograph.operations.annotations import annotation
from cartograph.query.answers import rendered
from cartograph.render import json_form_type, render, to_data, to_json
from cartograph.store import open_store
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import RootModel

if TYPE_CHECKING:
    from cartograph.jobs import JobRunner
    from cartograph.model import ApiToken
    from cartograph.store.interfaces import Store

INSTRUCTIONS = """\
Cartograph holds a pre-computed code graph of the repositories it indexed: symbols (modules,
classes, functions, methods), who calls whom (resolved through imports, re-exports, self,
annotations, constructors and inheritance), references (callbacks, decorators, types) and
inheritance. Use it to find where to look before you grep: search_symbols for a name or concept,
get_context for one symbol, find_callers before changing a signature, trace_calls to see what a
change reaches. The graph says where to look; open the file before you edit it. Answers name the
indexed commit and list files changed on disk since; call index_repository after editing files
to refresh them (it is incremental and fast)."""


def build_server(
    store_url: str | None = None,
    caller: Callable[[], ApiToken | None] | None = None,
    stores: Callable[[], Store] | None = None,
    runner: JobRunner | None = None,
    data_dir: Path | None = None,
    session: Callable[[], int | None] | None = None,
) -> MCPServer:
    """An MCP server with Cartograph's tools over the store at `store_url`. `caller()` is the
    token of the call being served (the HTTP gateway's; over stdio there is none): every tool
    checks it carries the operation's scope (`read`, `claims` or `admin`), and the team tools
    act in sessions only that token (or an admin) opened. `session()` is the agent session the
    call is made in (the gateway's X-Cartograph-Session header; a read's `session` argument
    says it too): reads see that session's overlay. `stores` gives each calling
    thread its store (the HTTP app's, shared with REST and GraphQL); without it, one store is
    opened and tool calls take turns on it. `runner` queues sync jobs (the server's); without
    it, the broker CARTOGRAPH_BROKER names, else syncs run in the call."""
    server = MCPServer("cartograph", instructions=INSTRUCTIONS)
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

    def call(op: Operation, values: dict[str, Any]) -> Any:
        try:
            token = caller() if caller is not None else None
            require(token, op.scope)
            with lock:
                provided = services(token)
                if provided.runner is None and {"runner", "job_state"} & set(op.services):
                    from cartograph.plugins import configured_job_runner

                    provided.runner = configured_job_runner()
                return op.run(provided, values, "mcp")
        except CartographError as exc:  # said to the agent as a tool error
            raise ToolError(str(exc)) from exc

    from cartograph.admin import load_answer_types

    load_answer_types()
    for op in CATALOGUE:
        if op.mcp is not None:
            server.add_tool(
                tool_function(op, call),
                name=op.mcp,
                description=op.text,
                annotations=tool_annotations(op),
            )
    add_summary(server, lambda: services(caller() if caller is not None else None).store, lock)
    return server


def tool_annotations(op: Operation) -> ToolAnnotations:
    return ToolAnnotations(
        title=op.help,
        read_only_hint=op.changes_nothing,
        destructive_hint=op.destructive if not op.changes_nothing else False,
        idempotent_hint=op.repeatable,
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


def tool_function(op: Operation, call: Callable[[Operation, dict[str, Any]], Any]) -> Callable:
    """A function whose signature is the operation's parameters (pydantic-annotated with their
    bounds) and `as_json`; the MCP SDK builds the tool's input schema from it."""

    form = json_form_type(op.answer)  # what the answer's JSON looks like
    wrapped = get_origin(form) is list  # a list is published as {"result": [...]}

    def tool(**arguments: Any) -> CallToolResult:
        as_json = arguments.pop("as_json", False)
        answer = call(op, arguments)
        # rendered once per cached answer (cartograph.query.answers)
        if as_json:
            text = rendered(answer, "json", lambda: to_json(answer))
        else:
            text = rendered(answer, "mcp-text", lambda: render(answer, op.answer).rstrip("\n"))
        data = rendered(answer, "data", lambda: to_data(answer))
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content={"result": data} if wrapped else data,
        )

    parameters = [
        inspect.Parameter(
            param.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if param.required else param.default,
            annotation=annotation(param, param.name),
        )
        for param in op.on("mcp")
    ]
    parameters.append(
        inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=bool)
    )
    # what inspect.signature() (and so the MCP SDK) reads; set through the function's
    # __dict__, as `tool.__signature__ = ...` does (the function type declares no such attribute)
    # the output schema: a list as the SDK wraps it, an answer's dataclass as a root model (the
    # SDK would read a slotted dataclass's defaults as descriptors)
    published = form if wrapped else RootModel[form]  # type: ignore[valid-type]
    tool.__dict__["__signature__"] = inspect.Signature(
        parameters, return_annotation=Annotated[CallToolResult, published]
    )
    tool.__name__ = op.mcp or op.name
    tool.__doc__ = op.text
    return tool


def run_stdio(store_url: str | None = None) -> None:
    build_server(store_url).run("stdio")
