"""The MCP server: the query library as tools for coding agents (stdio here; HTTP in api/).

Every tool answers with compact text by default (what an agent reads best) or JSON
(`as_json=true`); every answer names the indexed commit and the files changed since.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any

from cartograph.index import IndexingError
from cartograph.query import QueryError, render, to_json
from cartograph.store import StoreError, open_store
from cartograph.store.interfaces import Store
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

INSTRUCTIONS = """\
Cartograph holds a pre-computed code graph of the repositories it indexed: symbols (modules,
classes, functions, methods), who calls whom (resolved through imports, re-exports, self,
annotations, constructors and inheritance), references (callbacks, decorators, types) and
inheritance. Use it to find where to look before you grep: search_symbols for a name or concept,
get_context for one symbol, find_callers before changing a signature, trace_calls to see what a
change reaches. The graph says where to look; open the file before you edit it. Answers name the
indexed commit and list files changed on disk since; call index_repository after editing files
to refresh them (it is incremental and fast)."""

GRAPH_SCHEMA = """\
Nodes
- Repo {name, root, indexed_sha, indexed_at}
- File {id=repo:path, repo, path, language, sha256, lines, is_test}
- Symbol {id=repo:path#qualname, repo, path, name, qualname, kind, start_line, end_line,
  signature, doc, exported, decorators}; kind: module | class | function | method | variable;
  qualname follows Python (pkg.mod.Class.method; pkg.mod.outer.inner; module code = pkg.mod)
- Package {name, ecosystem} — what a repo provides and what files import from outside
Edges
- (Repo)-[:CONTAINS]->(File)-[:DEFINES]->(Symbol); (Symbol)-[:HAS_MEMBER]->(Symbol)
- (Symbol)-[:CALLS {lines, count, via, confidence}]->(Symbol)
- (Symbol)-[:REFERENCES {lines, count, via, confidence}]->(Symbol): used, not called
  (callbacks, decorators, type annotations, __all__ exports)
- (Symbol)-[:INHERITS]->(Symbol); (File)-[:IMPORTS {names}]->(File | Package)
- (Repo)-[:PROVIDES]->(Package)
- (Person {email, name, bot})-[:AUTHORED]->(Commit {sha, repo, message, at})
- (Commit)-[:TOUCHED {added, deleted}]->(File); (Commit)-[:TOUCHED {lines}]->(Symbol)
- (File)-[:CO_CHANGES {count, weight}]->(File), and the same between symbols
- (AgentSession {id, agent, task})-[:READ|EDITED]->(File); Claim {repo, path, session, intent,
  since, expires_at}; (Lesson {text, about})-[:ABOUT]->(File | Symbol)
via: scope | import | self | inheritance | super | constructor | annotation | return |
injection | export — how the target was found (docs/resolution.md).
Calls the resolver cannot prove (dynamic dispatch, getattr, untyped values, external
libraries) are not edges: they are listed as unresolved calls of their symbol."""


def build_server(
    store_url: str | None = None,
    authorize: Callable[[str], None] | None = None,
    stores: Callable[[], Store] | None = None,
) -> MCPServer:
    """An MCP server with Cartograph's tools over the store at `store_url`. `authorize(scope)`
    is asked before every tool runs (the HTTP gateway checks the caller's token; stdio has
    none): `read` for queries, `claims` for the team tools, `admin` for indexing. `stores`
    gives each calling thread its store (the HTTP app's, shared with REST and GraphQL);
    without it, one store is opened and tool calls take turns on it."""
    server = MCPServer("cartograph", instructions=INSTRUCTIONS)

    def allowed(scope: str) -> None:
        if authorize is None:
            return
        try:
            authorize(scope)
        except Exception as exc:  # Forbidden: said to the agent as a tool error
            raise ToolError(str(exc)) from exc

    lock: threading.Lock | contextlib.nullcontext = (
        threading.Lock() if stores is None else contextlib.nullcontext()
    )
    state: dict[str, Store] = {}

    def own_store() -> Store:
        if "store" not in state:
            state["store"] = open_store(store_url)
        return state["store"]

    store = stores or own_store

    def answer(fn: Callable[[Store], Any], as_json: bool) -> str:
        allowed("read")
        with lock:
            try:
                result = fn(store())
            except (QueryError, IndexingError, StoreError) as exc:
                raise ToolError(str(exc)) from exc
        return to_json(result) if as_json else render(result)

    @server.tool()
    def search_symbols(
        query: str,
        repo: str | None = None,
        kind: str | None = None,
        limit: int = 20,
        offset: int = 0,
        as_json: bool = False,
    ) -> str:
        """Find symbols by name or concept ("where is X?"): exact names first, then ranked text
        matches over identifiers split into words (useBaseCart ~ "base cart"), qualified names,
        paths and docstrings. kind: module, class, function, method or variable (comma-separated).
        Returns locations (path:line) to open; page with offset."""
        from cartograph.query import search

        kinds = [k.strip() for k in kind.split(",")] if kind else None
        return answer(lambda s: search(s, query, repo, kinds, limit, offset), as_json)

    @server.tool()
    def get_context(symbol: str, repo: str | None = None, as_json: bool = False) -> str:
        """Everything about one symbol: location, signature, docstring, its class and members,
        bases, subclasses, overrides, the first callers and callees, and its unresolved calls.
        symbol: a name, a qualified name (pkg.mod.Class.method) or an id (repo:path#qualname).
        The graph says where to look; open the file before editing it."""
        from cartograph.query import context

        return answer(lambda s: context(s, symbol, repo), as_json)

    @server.tool()
    def find_callers(
        symbol: str,
        repo: str | None = None,
        limit: int = 50,
        offset: int = 0,
        include_references: bool = False,
        as_json: bool = False,
    ) -> str:
        """Who calls this symbol ("what breaks if I change it?"), with call-site lines and how
        each call was resolved. include_references adds callbacks, decorators and type uses."""
        from cartograph.query import callers

        return answer(
            lambda s: callers(
                s,
                symbol,
                repo=repo,
                limit=limit,
                offset=offset,
                include_references=include_references,
            ),
            as_json,
        )

    @server.tool()
    def trace_calls(
        symbol: str,
        direction: str = "out",
        depth: int = 3,
        repo: str | None = None,
        fanout: int = 20,
        as_json: bool = False,
    ) -> str:
        """The call tree of a symbol: direction "out" = what it reaches (callees, recursively),
        "in" = what reaches it (callers, recursively). Cycle-safe; depth up to 10."""
        from cartograph.query import trace

        return answer(lambda s: trace(s, symbol, direction, depth, repo, fanout), as_json)

    @server.tool()
    def find_path(
        source: str,
        target: str,
        repo: str | None = None,
        max_depth: int = 8,
        as_json: bool = False,
    ) -> str:
        """The shortest chain of calls from source to target ("how does A end up in B?")."""
        from cartograph.query import path

        return answer(lambda s: path(s, source, target, repo, max_depth), as_json)

    @server.tool()
    def find_dead_code(
        repo: str | None = None,
        path_prefix: str = "",
        verdicts: str = "dead",
        limit: int = 50,
        offset: int = 0,
        as_json: bool = False,
    ) -> str:
        """Functions, methods and classes nothing reaches. Verdicts: dead; unknown (an
        unresolved call of the same name, a property, or an external decorator may reach it);
        live. Entry points (tests, __main__, framework decorators, dunders, __all__, overrides)
        count as live. Check before deleting: dynamic uses are invisible to any static graph."""
        from cartograph.query import dead_code
        from cartograph.query.common import pick_repo

        wanted = [v.strip() for v in verdicts.split(",") if v.strip()]
        return answer(
            lambda s: dead_code(
                s, pick_repo(s, repo, os.getcwd()), path_prefix, wanted, limit, offset
            ),
            as_json,
        )

    @server.tool()
    def get_overview(repo: str | None = None, as_json: bool = False) -> str:
        """The shape of a repository: packages with sizes, which package imports which, the
        external packages it uses, and the most-called symbols. A good first call on a new repo."""
        from cartograph.query import overview
        from cartograph.query.common import pick_repo

        return answer(lambda s: overview(s, pick_repo(s, repo, os.getcwd())), as_json)

    @server.tool()
    def history(
        target: str,
        repo: str | None = None,
        limit: int = 20,
        offset: int = 0,
        as_json: bool = False,
    ) -> str:
        """The latest commits that changed a file (a path) or a symbol, newest first, with
        authors and messages: "why is it like this?"."""
        from cartograph.query.history import history as run

        return answer(lambda s: run(s, target, repo, limit, offset), as_json)

    @server.tool()
    def co_changes(
        target: str,
        repo: str | None = None,
        limit: int = 20,
        min_count: int = 2,
        as_json: bool = False,
    ) -> str:
        """Files (for a path) or symbols (for a symbol) that usually change in the same commits,
        with counts and weights: what else to look at when changing this."""
        from cartograph.query.history import co_changes as run

        return answer(lambda s: run(s, target, repo, limit, min_count), as_json)

    @server.tool()
    def owners(target: str, repo: str | None = None, limit: int = 10, as_json: bool = False) -> str:
        """Who changed a file, a folder or a symbol most (recent work weighing more), and what
        CODEOWNERS says: whom to ask or to request a review from."""
        from cartograph.query.history import owners as run

        return answer(lambda s: run(s, target, repo, limit), as_json)

    @server.tool()
    def explain(symbol: str, repo: str | None = None, as_json: bool = False) -> str:
        """One call for "who wrote this and what depends on it": a symbol's context (location,
        signature, callers, callees) plus its last commits, owners and co-change partners."""
        from cartograph.query.history import explain as run

        return answer(lambda s: run(s, symbol, repo), as_json)

    @server.tool()
    def get_schema() -> str:
        """The graph's node and edge types, their properties and what `via` means."""
        allowed("read")
        return GRAPH_SCHEMA

    @server.tool()
    def index_repository(
        path: str = ".", name: str | None = None, files: list[str] | None = None
    ) -> str:
        """Index a repository folder, or re-index it after edits (incremental: only changed files
        are parsed, and the files that depend on them are re-resolved). After editing, pass the
        edited files (relative to path) in `files` for the fastest refresh. Returns a summary."""
        from cartograph.index import index_repository as run_index
        from cartograph.query import stats

        allowed("admin")  # it reads a folder of the machine the server runs on
        with lock:
            try:
                result = run_index(store(), path, name, files=files)
                summary = stats(store(), result.repo)
            except (QueryError, IndexingError, StoreError) as exc:
                raise ToolError(str(exc)) from exc
        head = (
            f"indexed {result.repo} ({result.files} files: {result.parsed} parsed, "
            f"{result.unchanged} unchanged, {result.deleted} deleted, {result.reresolved} "
            f"re-resolved, {result.skipped} skipped) in {result.total_seconds:.2f} s\n"
        )
        return head + render(summary)

    add_agent_tools(server, store, lock, allowed)
    return server


def add_agent_tools(
    server: MCPServer,
    store: Callable[[], Store],
    lock: threading.Lock | contextlib.nullcontext,
    allowed: Callable[[str], None],
) -> None:
    """The team tools: sessions, file claims, lessons (see cartograph.agents.sessions)."""
    from cartograph.agents import sessions as agents

    def call(fn: Callable[[Store], Any]) -> Any:
        allowed("claims")
        with lock:
            try:
                return fn(store())
            except (agents.AgentError, StoreError) as exc:
                raise ToolError(str(exc)) from exc

    def claim_text(result: agents.ClaimResult, as_json: bool) -> str:
        return to_json(result) if as_json else result.message

    @server.tool()
    def start_session(agent: str, task: str, as_json: bool = False) -> str:
        """Start a work session before editing a shared repository: `agent` names you (e.g.
        alice-laptop), `task` says what you are doing. Returns the session id the other team
        tools take. Call heartbeat now and then (a session silent for 15 minutes expires)."""
        session = call(lambda g: agents.start_session(g, agent, task))
        return to_json(session) if as_json else f"session {session.id} started for {agent}"

    @server.tool()
    def heartbeat(session: int) -> str:
        """Keep a session (and its claims) alive."""
        found = call(lambda g: agents.heartbeat(g, session))
        return f"session {found.id} alive (last seen {found.last_seen})"

    @server.tool()
    def claim_file(
        session: int, repo: str, path: str, intent: str = "edit", as_json: bool = False
    ) -> str:
        """Claim a file before editing it, so no other agent edits it blind. Exactly one of
        several claimers wins; if another session holds it, the answer says who, for which task
        and since when — work on something else or wait. Re-claiming renews your claim."""
        return claim_text(call(lambda g: agents.claim(g, session, repo, path, intent)), as_json)

    @server.tool()
    def release_file(session: int, repo: str, path: str) -> str:
        """Release your claim on a file when you are done with it."""
        released = call(lambda g: agents.release(g, session, repo, path))
        return f"released {path}" if released else f"you held no claim on {path}"

    @server.tool()
    def list_claims(repo: str | None = None, as_json: bool = False) -> str:
        """Files currently claimed (by whom, for what, since and until when)."""
        found = call(lambda g: agents.claims(g, repo))
        if as_json:
            return to_json(found)
        lines = [
            f"{c.repo}:{c.path}  {c.intent} by session {c.session} of {c.agent} "
            f"(task: {c.task}) since {c.since}, until {c.expires_at}"
            for c in found
        ]
        return "\n".join(lines) or "no file is claimed"

    @server.tool()
    def check_edit(session: int, repo: str, path: str, as_json: bool = False) -> str:
        """May this session edit the file now? No when another live session holds it."""
        return claim_text(call(lambda g: agents.check_edit(g, session, repo, path)), as_json)

    @server.tool()
    def remember(
        session: int, text: str, about: list[str] | None = None, kind: str = "lesson"
    ) -> str:
        """Leave a lesson for the next agent (e.g. the test command of a package, a trap to
        avoid), about paths, folders (ending in /) or symbol ids (repo:path#qualname)."""
        lesson = call(lambda g: agents.remember(g, session, text, about or [], kind))
        return (
            f"lesson {lesson.id} stored about {', '.join(lesson.about) or 'nothing in particular'}"
        )

    @server.tool()
    def recall(
        about: list[str] | None = None, text: str = "", limit: int = 20, as_json: bool = False
    ) -> str:
        """Lessons other agents left about these paths, folders or symbols (or with these
        words), newest first. Read them before working on a file."""
        found = call(lambda g: agents.recall(g, about, text, limit))
        if as_json:
            return to_json(found)
        return (
            "\n".join(
                f"[{x.at} {x.agent}, about {', '.join(x.about) or '-'}] {x.text}" for x in found
            )
            or "no lessons"
        )


def run_stdio(store_url: str | None = None) -> None:
    build_server(store_url).run("stdio")
