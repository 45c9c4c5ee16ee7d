"""Every operation, declared once: the CLI's commands, the MCP tools and the REST routes are
built from these declarations, and GraphQL takes its bounds from the same parameters.

To add an operation: write the library function and its answer dataclass, a renderer in
render.py, and one `Operation` below.
"""

from __future__ import annotations

from dataclasses import replace

from cartograph import admin, reviews, team
from cartograph.agents import overlay
from cartograph.agents import sessions as agents
from cartograph.agents.sessions import INTENTS, MAX_SESSION_ID, MAX_TEXT, ClaimResult
from cartograph.auth import SCOPES as TOKEN_SCOPES
from cartograph.budget import CURSOR_LENGTH, MAX_MAX_TOKENS, MIN_MAX_TOKENS
from cartograph.discover import DEFAULT_MAX_BYTES
from cartograph.errors import Conflict, NotFound
from cartograph.impact.evidence import CoverageImport, import_coverage
from cartograph.impact.report import MIN_TEST_CONFIDENCE, Impact, impact
from cartograph.impact.source import SymbolSource, symbol_source
from cartograph.model import (
    MAX_PULL_REQUEST,
    SYMBOL_KINDS,
    AgentSession,
    ApiToken,
    Claim,
    Lesson,
    OverlayFile,
    Repo,
    Review,
)
from cartograph.operations.base import Cli, Operation, Param, Rest
from cartograph.operations.values import (
    Choice,
    CommaList,
    CommitSha,
    Flag,
    Integer,
    PatchText,
    RepoName,
    RepoPath,
    SymbolRef,
    Target,
    Text,
    TextList,
)
from cartograph.query import (
    CallPath,
    Context,
    DeadCodeReport,
    NeighborPage,
    Overview,
    SearchResult,
    Stats,
    TokenReport,
    Trace,
    callees,
    callers,
    context,
    dead_code,
    design_tokens,
    overview,
    path,
    search,
    stats,
    trace,
)
from cartograph.query.deadcode import VERDICTS
from cartograph.query.history import CoChanges, Explanation, HistoryPage, Owners
from cartograph.query.history import co_changes as co_changes_of
from cartograph.query.history import explain as explain_symbol
from cartograph.query.history import history as history_of
from cartograph.query.history import owners as owners_of
from cartograph.query.hotspots import MIN_CLUSTER_COUNT, Hotspots, hotspots
from cartograph.query.listing import (
    FilePage,
    GraphExport,
    export_graph,
    list_files,
    list_repositories,
)
from cartograph.query.locate import MAX_LOCATIONS, MIN_CONFIDENCE, LocationMap, locate
from cartograph.query.schema import GraphSchema, graph_schema
from cartograph.query.services import ServiceMap, service_map
from cartograph.query.tasktext import MAX_TASK_TEXT
from cartograph.tracking import RepoStatus

# ---------------------------------------------------------------- bounds, declared once

PAGE_LIMIT = 100  # results in one page, on every surface (GraphQL's `first` too)
MAX_OFFSET = 1_000_000
TRACE_DEPTH = 10  # levels of a call tree
TRACE_FANOUT = 50  # children shown per node of a call tree
PATH_DEPTH = 20  # calls in a shortest path
MIN_COUNT = 1000  # shared commits a co-change partner needs, at most

# ---------------------------------------------------------------- parameters many share


def limit(default: int, help: str = "") -> Param:
    return Param(
        "limit",
        Integer(),
        default,
        help or f"page size (default {default})",
        minimum=1,
        maximum=PAGE_LIMIT,
        graphql="first",
    )


OFFSET = Param("offset", Integer(), 0, "skip this many results", minimum=0, maximum=MAX_OFFSET)
REPO = Param("repo", RepoName(), None, "only this repository")
PICKED_REPO = Param(
    "repo",
    RepoName(),
    None,
    "the repository (default: the one holding the current folder, or the only one)",
    picked=True,
    rest="path",
)
SYMBOL = Param(
    "symbol",
    SymbolRef(),
    help="name, qualified name or id repo:path#qualname",
    positional=True,
    rest="path",
    graphql="name",
    arg="name",
)
TARGET = Param("target", Target(), help="a file path or a symbol", positional=True, arg="text")
REFERENCES = Param(
    "include_references",
    Flag(),
    False,
    "include REFERENCES (callbacks, decorators, types)",
    cli="--references",
    rest_name="references",
    graphql="references",
)
SESSION = Param(
    "session",
    Integer(),
    help="the session's id (start_session gives it)",
    minimum=1,
    maximum=MAX_SESSION_ID,
    cli="--session",
    rest="body",
    arg="session_id",
)
TEAM_REPO = Param("repo", RepoName(), help="the repository", cli="--repo", rest="body")
TEAM_PATH = Param(
    "path", RepoPath(), help="a path inside the repository", positional=True, rest="body"
)
TRACKED_NAME = Param(
    "name", RepoName(max_length=100), help="the tracked repository", positional=True, rest="path"
)


def in_query(*params: Param) -> list[Param]:
    return [replace(p, rest="query") for p in params]


def in_path(param: Param) -> Param:
    return replace(param, rest="path", positional=True)


# ---------------------------------------------------------------- questions (scope `read`)

READ = [
    Operation(
        "search",
        search,
        SearchResult,
        "read",
        "find symbols by name or concept, ranked",
        (
            Param(
                "query",
                Text(max_length=500),
                help="a name, identifier or words",
                positional=True,
                rest_name="q",
                arg="text",
            ),
            REPO,
            Param(
                "kind",
                CommaList(choices=SYMBOL_KINDS, noun="kind"),
                None,
                "comma-separated: " + ",".join(SYMBOL_KINDS),
                graphql="kind",
                arg="kinds",
            ),
            limit(20),
            OFFSET,
        ),
        description='Find symbols by name or concept ("where is X?"): exact names first, then '
        'ranked text matches over identifiers split into words (useBaseCart ~ "base cart"), '
        "qualified names, paths and docstrings. Returns locations (path:line) to open.",
        cli=Cli(("search",)),
        mcp="search_symbols",
        profile="agent",
        rest=Rest("GET", "/search"),
        graphql="search",
    ),
    Operation(
        "locate",
        locate,
        LocationMap,
        "read",
        "where to look for a task: likely functions, their lines and tests, from its text",
        (
            Param(
                "text",
                Text(max_length=MAX_TASK_TEXT),
                help="the task or bug report, as written (the first line is its title)",
                positional=True,
                rest="body",
            ),
            replace(REPO, rest="body"),
            replace(limit(5, "locations listed (default 5)"), maximum=MAX_LOCATIONS, rest="body"),
            Param(
                "min_confidence",
                Integer(),
                MIN_CONFIDENCE,
                f"show nothing below this confidence, in percent (default {MIN_CONFIDENCE})",
                minimum=0,
                maximum=100,
                rest="body",
            ),
        ),
        description="Before you search: from a task or bug report's text, the functions and "
        "methods most likely to need the change (file and line range), the tests that exercise "
        "them and a confidence. Empty when it is not confident (then search by names).",
        cli=Cli(("locate",)),
        mcp="locate",
        profile="agent",
        rest=Rest("POST", "/locate"),
        graphql="locate",
    ),
    Operation(
        "context",
        context,
        Context,
        "read",
        "one symbol: location, signature, doc, members, callers, callees",
        (SYMBOL, REPO),
        description="Everything about one symbol: location, signature, docstring, its class and "
        "members, bases, subclasses, overrides, the first callers and callees, and its "
        "unresolved calls. The graph says where to look; open the file before editing it.",
        cli=Cli(("context",)),
        mcp="get_context",
        profile="agent",
        rest=Rest("GET", "/symbols/{symbol:path}"),
        graphql="symbol",
    ),
    Operation(
        "callers",
        callers,
        NeighborPage,
        "read",
        "who calls a symbol",
        (SYMBOL, REPO, REFERENCES, limit(20), OFFSET),
        description='Who calls this symbol ("what breaks if I change it?"), with call-site '
        "lines and how each call was resolved. include_references adds callbacks, decorators "
        "and type uses.",
        cli=Cli(("callers",)),
        mcp="find_callers",
        profile="agent",
        rest=Rest("GET", "/symbols/{symbol:path}/callers"),
        graphql="Symbol.callers",
    ),
    Operation(
        "callees",
        callees,
        NeighborPage,
        "read",
        "what a symbol calls",
        (SYMBOL, REPO, REFERENCES, limit(20), OFFSET),
        description="What this symbol calls, with call-site lines and how each call was "
        "resolved, and the calls the resolver could not bind. include_references adds "
        "callbacks, decorators and type uses.",
        cli=Cli(("callees",)),
        mcp="find_callees",
        profile="agent",
        rest=Rest("GET", "/symbols/{symbol:path}/callees"),
        graphql="Symbol.callees",
    ),
    Operation(
        "trace",
        trace,
        Trace,
        "read",
        "call tree from a symbol (out: what it reaches; in: what reaches it)",
        (
            SYMBOL,
            Param(
                "direction",
                Choice(choices=("in", "out")),
                "out",
                "out: what it reaches; in: what reaches it",
            ),
            Param("depth", Integer(), 3, "levels", minimum=1, maximum=TRACE_DEPTH),
            Param(
                "fanout", Integer(), 20, "children shown per node", minimum=1, maximum=TRACE_FANOUT
            ),
            REPO,
            REFERENCES,
        ),
        description='The call tree of a symbol: direction "out" = what it reaches (callees, '
        'recursively), "in" = what reaches it (callers, recursively).',
        cli=Cli(("trace",)),
        mcp="trace_calls",
        profile="agent",
        rest=Rest("GET", "/symbols/{symbol:path}/trace"),
        graphql="trace",
    ),
    Operation(
        "path",
        path,
        CallPath,
        "read",
        "shortest call path between two symbols",
        (
            Param("source", SymbolRef(), help="where the path starts", positional=True),
            Param("target", SymbolRef(), help="where it ends", positional=True),
            REPO,
            Param("max_depth", Integer(), 8, "calls at most", minimum=1, maximum=PATH_DEPTH),
            REFERENCES,
        ),
        description='The shortest chain of calls from source to target ("how does A end up in '
        'B?").',
        cli=Cli(("path",)),
        mcp="find_path",
        profile="agent",
        rest=Rest("GET", "/path"),
    ),
    Operation(
        "dead-code",
        dead_code,
        DeadCodeReport,
        "read",
        "functions, methods and classes nothing reaches",
        (
            PICKED_REPO,
            Param(
                "path_prefix",
                RepoPath(min_length=0, folder=True),
                "",
                "only under this path prefix",
                cli="--path",
            ),
            Param(
                "verdicts",
                CommaList(choices=VERDICTS, noun="verdict"),
                "dead",
                "comma-separated: " + ",".join(VERDICTS) + " (default: dead)",
                cli="--verdict",
                rest_name="verdict",
            ),
            Param("include_tests", Flag(), False, "also symbols of test files"),
            limit(50),
            OFFSET,
        ),
        description="Functions, methods and classes nothing reaches. Verdicts: dead; unknown (an "
        "unresolved call of the same name, a property, or an external decorator may reach it); "
        "live. Entry points (tests, __main__, framework decorators, dunders, __all__, overrides) "
        "count as live. Check before deleting: dynamic uses are invisible to any static graph.",
        cli=Cli(("dead-code",)),
        mcp="find_dead_code",
        rest=Rest("GET", "/repos/{repo}/dead-code"),
        graphql="deadCode",
    ),
    Operation(
        "services",
        service_map,
        ServiceMap,
        "read",
        "the HTTP routes a repository serves and the requests it sends",
        (PICKED_REPO, limit(50)),
        description="A repository as a service: each HTTP route it serves (method and path "
        "template with its routers' prefixes, its handler, how many requests of indexed code "
        "reach it) and each request it sends (requests, httpx, aiohttp, urllib), with the "
        "route of an indexed repository it reaches and how it was matched, or, unmatched, "
        "the base URL it goes to (map one to its repository in .cartograph.toml [services]).",
        cli=Cli(("services",)),
        mcp="list_services",
        rest=Rest("GET", "/repos/{repo}/services"),
        graphql="services",
    ),
    Operation(
        "design-tokens",
        design_tokens,
        TokenReport,
        "read",
        "CSS custom properties, SCSS and Less variables across repositories",
        (
            Param(
                "name",
                Text(min_length=0, max_length=200),
                "",
                "a token: color-primary (any of --color-primary, $color-primary, "
                "@color-primary) or one of them with its sigil",
                positional=True,
            ),
            REPO,
            limit(100),
        ),
        description="A design system's shared definitions across repositories: for a token "
        "name, every definition (file, line, value, selector) and the repositories using it; "
        "for a repository, every token it defines. Also: names another repository defines "
        "again (overrides), names defined twice, and values defined under several names.",
        cli=Cli(("design-tokens",)),
        mcp="find_design_tokens",
        rest=Rest("GET", "/design-tokens"),
    ),
    Operation(
        "hotspots",
        hotspots,
        Hotspots,
        "read",
        "files that change most and are called most, and groups that change together",
        (
            PICKED_REPO,
            limit(20),
            Param(
                "min_count",
                Integer(),
                MIN_CLUSTER_COUNT,
                f"commits a pair shares to join a cluster (default {MIN_CLUSTER_COUNT})",
                minimum=1,
                maximum=MIN_COUNT,
            ),
        ),
        description="Where risk concentrates in a repository: hot spots (files ranked by "
        "churn times fan-in: commits that touched them times calls into their symbols, "
        "with their top owners) and co-change clusters (groups of files that changed together "
        "at least min_count times).",
        cli=Cli(("hotspots",)),
        mcp="find_hotspots",
        rest=Rest("GET", "/repos/{repo}/hotspots"),
        graphql="hotspots",
    ),
    Operation(
        "overview",
        overview,
        Overview,
        "read",
        "packages, their imports, most-called symbols",
        (PICKED_REPO, replace(limit(15, "most-called symbols shown"), rest_name="top", arg="top")),
        description="The shape of a repository: packages with sizes, which package imports "
        "which, the external packages it uses, and the most-called symbols. A good first call "
        "on a new repo.",
        cli=Cli(("overview",)),
        mcp="get_overview",
        rest=Rest("GET", "/repos/{repo}/overview"),
        graphql="overview",
    ),
    Operation(
        "stats",
        stats,
        Stats,
        "read",
        "counts, skipped files, unresolved-call rate, stale files",
        (PICKED_REPO,),
        description="A repository's numbers: files and symbols by kind and language, edges, "
        "the unresolved-call rate, skipped files with their reasons, and the files changed on "
        "disk since they were indexed.",
        cli=Cli(("stats",)),
        mcp="get_stats",
        rest=Rest("GET", "/repos/{repo}/stats"),
        graphql="stats",
    ),
    Operation(
        "history",
        history_of,
        HistoryPage,
        "read",
        "the latest commits that changed a file or a symbol",
        (TARGET, REPO, limit(20), OFFSET),
        description="The latest commits that changed a file (a path) or a symbol, newest first, "
        'with authors and messages: "why is it like this?".',
        cli=Cli(("history",)),
        mcp="history",
        rest=Rest("GET", "/history"),
        graphql="history",
    ),
    Operation(
        "co-changes",
        co_changes_of,
        CoChanges,
        "read",
        "files or symbols that usually change together with this one",
        (
            TARGET,
            REPO,
            limit(20),
            Param(
                "min_count",
                Integer(),
                2,
                "shared commits needed (default 2)",
                minimum=1,
                maximum=MIN_COUNT,
            ),
        ),
        description="Files (for a path) or symbols (for a symbol) that usually change in the "
        "same commits, with counts and weights: what else to look at when changing this.",
        cli=Cli(("co-changes",)),
        mcp="co_changes",
        rest=Rest("GET", "/co-changes"),
        graphql="coChanges",
    ),
    Operation(
        "owners",
        owners_of,
        Owners,
        "read",
        "who knows a file, a folder or a symbol (recent work counts more)",
        (replace(TARGET, help="a file path, a folder or a symbol"), REPO, limit(10)),
        description="Who changed a file, a folder or a symbol most (recent work weighing more), "
        "and what CODEOWNERS says: whom to ask or to request a review from.",
        cli=Cli(("owners",)),
        mcp="owners",
        rest=Rest("GET", "/owners"),
        graphql="owners",
    ),
    Operation(
        "impact",
        impact,
        Impact,
        "read",
        "what a change reaches: what breaks, what may be affected, tests to run, owners",
        (
            PICKED_REPO,
            Param(
                "base",
                Text(max_length=250),
                None,
                "the old side: a ref or commit (or a range A..B, without --head)",
                rest="body",
            ),
            Param("head", Text(max_length=250), None, "the new side: a ref or commit", rest="body"),
            Param(
                "patch",
                PatchText(),
                None,
                "a unified diff against the indexed commit (CLI: a file, or - for stdin)",
                rest="body",
            ),
            replace(limit(50, "may-be-affected symbols listed (default 50)"), rest="body"),
            Param(
                "format",
                Choice(choices=("text", "markdown")),
                "text",
                "text for agents, or markdown for a pull-request comment",
                rest="body",
            ),
            Param(
                "min_confidence",
                Integer(),
                MIN_TEST_CONFIDENCE,
                f"a test to run reaches the change by a path this sure, in percent (default "
                f"{MIN_TEST_CONFIDENCE}); the others are listed as possibly reached",
                minimum=0,
                maximum=100,
                rest="body",
            ),
            Param(
                "budget",
                Integer(),
                None,
                "instead of every test that sure (safe), the most likely tests within this "
                "percentage of the suite, surest first (docs/impact.md: the miss rate of each)",
                minimum=0,
                maximum=100,
                rest="body",
            ),
        ),
        description="Before a merge: what a change reaches. Give base and head (refs, or base "
        "A..B alone) or a patch (a unified diff against the indexed commit). Answers the "
        "changed symbols, what will break (callers of removed symbols and changed signatures, "
        "in every repository), what may be affected (ranked), the tests to run with their "
        "command lines, owners to ask, and files that usually change with these.",
        services=("data_dir",),
        cli=Cli(("impact",)),
        mcp="impact",
        profile="agent",
        rest=Rest("POST", "/repos/{repo}/impact"),
        graphql="impact",
        sees_overlay=False,  # a change against the shared graph (a diff holds the session's edits)
    ),
    Operation(
        "review",
        reviews.get_review,
        Review,
        "read",
        "the impact report of a pull request (computed when its webhook announced the head)",
        (
            in_path(replace(TRACKED_NAME, name="repo", help="the tracked repository")),
            Param(
                "number",
                Integer(),
                help="the pull request's number (GitLab: the merge request's iid)",
                minimum=1,
                maximum=MAX_PULL_REQUEST,
                positional=True,
                rest="path",
            ),
        ),
        description="The stored impact report of a pull request of a tracked repository: its "
        "verdict, the Markdown posted (or to post) and the full report as JSON; and whether "
        "posting it to the forge failed.",
        cli=Cli(("review",)),
        mcp="pull_request_report",
        rest=Rest("GET", "/repos/{repo}/reviews/{number}"),
        sees_overlay=False,
    ),
    Operation(
        "reviews",
        reviews.list_reviews,
        list[Review],
        "read",
        "the newest pull-request impact reports of a tracked repository",
        (in_path(replace(TRACKED_NAME, name="repo", help="the tracked repository")), limit(20)),
        cli=Cli(("reviews",)),
        mcp="pull_request_reports",
        rest=Rest("GET", "/repos/{repo}/reviews"),
        sees_overlay=False,
    ),
    Operation(
        "explain",
        explain_symbol,
        Explanation,
        "read",
        "a symbol's context with its last commits, owners and co-change partners",
        (SYMBOL, REPO),
        description='One call for "who wrote this and what depends on it": a symbol\'s context '
        "(location, signature, callers, callees) plus its last commits, owners and co-change "
        "partners.",
        cli=Cli(("explain",)),
        mcp="explain",
        profile="agent",
        rest=Rest("GET", "/symbols/{symbol:path}/explain"),
        graphql="explain",
    ),
    Operation(
        "source",
        symbol_source,
        SymbolSource,
        "read",
        "a symbol's source lines, as indexed",
        (replace(SYMBOL, arg="symbol"), REPO),
        description="The lines of a symbol (at most 400): from the work tree it was indexed "
        "from, else from its history at the indexed commit. For reading one symbol without "
        "opening its file.",
        services=("data_dir",),
        cli=Cli(("source",)),
        mcp="get_source",
        rest=Rest("GET", "/symbols/{symbol:path}/source"),
        graphql="source",
    ),
    Operation(
        "export",
        export_graph,
        GraphExport,
        "read",
        "nodes and edges as JSON lines",
        (PICKED_REPO,),
        description="Every node and edge of a repository as JSON lines (one object per line).",
        cli=Cli(("export",), output_file=True),
        mcp="export_graph",
        rest=Rest("GET", "/repos/{repo}/export", media_type="application/x-ndjson"),
    ),
    Operation(
        "repos",
        list_repositories,
        list[Repo],
        "read",
        "list indexed repositories",
        description="The indexed repositories: name, indexed commit and when, and the folder "
        "each was read from.",
        cli=Cli(("repos",)),
        mcp="list_repos",
        rest=Rest("GET", "/indexed-repos"),
        graphql="repositories",
    ),
    Operation(
        "files",
        list_files,
        FilePage,
        "read",
        "a repository's indexed files (path, language, lines, is_test), by path",
        (
            PICKED_REPO,
            Param("under", RepoPath(folder=True), None, "only the files under this folder"),
            limit(100),
            OFFSET,
        ),
        cli=Cli(("files",)),
        mcp="list_files",
        rest=Rest("GET", "/repos/{repo}/files"),
        graphql="Repository.files",
    ),
    Operation(
        "schema",
        graph_schema,
        GraphSchema,
        "read",
        "the graph's node and edge types, their properties and what `via` means",
        cli=Cli(("schema",)),
        mcp="get_schema",
        rest=Rest("GET", "/schema"),
    ),
]

# ---------------------------------------------------------------- the team (scope `claims`)


def refused_claim(result: ClaimResult) -> Conflict | None:
    return None if result.granted else Conflict(result.message)


def no_claim_released(result: team.Release) -> NotFound | None:
    if result.released:
        return None
    return NotFound(f"session {result.session} holds no claim on {result.path}")


TEAM = [
    Operation(
        "session-start",
        agents.start_session,
        AgentSession,
        "claims",
        "start a work session (its id is what the other team commands take)",
        (
            Param(
                "agent",
                Text(max_length=200),
                help="who you are (alice-laptop)",
                cli="--agent",
                rest="body",
            ),
            Param(
                "task", Text(max_length=500), help="what you are doing", cli="--task", rest="body"
            ),
        ),
        description="Start a work session before editing a shared repository: `agent` names you "
        "(e.g. alice-laptop), `task` says what you are doing. Returns the session id the other "
        "team tools take. A session silent for 15 minutes expires (heartbeat keeps it alive).",
        services=("caller",),
        cli=Cli(("session", "start")),
        mcp="start_session",
        profile="agent",
        rest=Rest("POST", "/sessions", status=201),
    ),
    Operation(
        "session-heartbeat",
        agents.heartbeat,
        AgentSession,
        "claims",
        "keep a session (and its claims) alive",
        (in_path(SESSION),),
        description="Keep a session (and its claims) alive.",
        services=("caller",),
        cli=Cli(("session", "heartbeat")),
        mcp="heartbeat",
        rest=Rest("POST", "/sessions/{session}/heartbeat"),
        idempotent=True,
    ),
    Operation(
        "session-end",
        team.end_session,
        AgentSession,
        "claims",
        "end a session (its claims end with it)",
        (replace(in_path(SESSION), arg=None),),
        description="End your session when your work is done: its claims end with it.",
        services=("caller",),
        cli=Cli(("session", "end")),
        mcp="end_session",
        rest=Rest("DELETE", "/sessions/{session}", status=204),
        destructive=True,
        idempotent=True,
    ),
    Operation(
        "claim",
        agents.claim,
        ClaimResult,
        "claims",
        "claim a file before editing it (exactly one of several claimers wins)",
        (
            SESSION,
            TEAM_REPO,
            TEAM_PATH,
            Param("intent", Choice(choices=INTENTS), "edit", "what you will do", rest="body"),
        ),
        description="Claim a file before editing it, so no other agent edits it blind. Exactly "
        "one of several claimers wins; if another session holds it, the answer says who, for "
        "which task and since when — work on something else or wait. Re-claiming renews your "
        "claim.",
        services=("caller",),
        cli=Cli(("claim",)),
        mcp="claim_file",
        profile="agent",
        rest=Rest("POST", "/claims", refusal=refused_claim),
        idempotent=True,
    ),
    Operation(
        "release",
        team.release,
        team.Release,
        "claims",
        "release your claim on a file",
        tuple(in_query(replace(SESSION, arg=None), TEAM_REPO, TEAM_PATH)),
        description="Release your claim on a file when you are done with it.",
        services=("caller",),
        cli=Cli(("release",)),
        mcp="release_file",
        rest=Rest("DELETE", "/claims", status=204, refusal=no_claim_released),
        destructive=True,
        idempotent=True,
    ),
    Operation(
        "claims",
        agents.claims,
        list[Claim],
        "claims",
        "files currently claimed (by whom, for what, since and until when)",
        (REPO,),
        cli=Cli(("claims",)),
        mcp="list_claims",
        rest=Rest("GET", "/claims"),
        graphql="claims",
        read_only=True,
    ),
    Operation(
        "team",
        team.team_view,
        team.TeamView,
        "claims",
        "who is at work: live sessions, their claims and latest reads and edits, lessons",
        (
            REPO,
            replace(limit(20, "newest lessons shown"), name="lessons", graphql="lessons"),
        ),
        description="The team at a glance: every live agent session with what it claims and "
        "what it read and edited last (in one repository, or all), and the newest lessons.",
        cli=Cli(("team",)),
        mcp="team_at_work",
        rest=Rest("GET", "/team"),
        graphql="team",
        read_only=True,
    ),
    Operation(
        "check-edit",
        agents.check_edit,
        ClaimResult,
        "claims",
        "may this session edit the file now? (no when another live session holds it)",
        tuple(in_query(SESSION, TEAM_REPO, TEAM_PATH)),
        description="May this session edit the file now? No when another live session holds it.",
        services=("caller",),
        cli=Cli(("check-edit",)),
        mcp="check_edit",
        rest=Rest("GET", "/check-edit"),
        read_only=True,
    ),
    Operation(
        "activity",
        team.record_activity,
        team.Activity,
        "claims",
        "record that a session read or edited a file (its READ/EDITED trail)",
        (
            replace(SESSION, arg=None),
            TEAM_REPO,
            TEAM_PATH,
            Param(
                "kind",
                Choice(choices=team.ACTIVITY_KINDS),
                help="read or edit",
                cli="--kind",
                rest="body",
            ),
        ),
        description="Record that your session read or edited a file: other agents see the trail.",
        services=("caller",),
        cli=Cli(("activity",)),
        mcp="record_activity",
        rest=Rest("POST", "/activity", status=204),
    ),
    Operation(
        "overlay-edit",
        overlay.overlay_edit,
        OverlayFile,
        "claims",
        "keep your edited version of a file: your session's reads see it, no other's do",
        (
            in_path(SESSION),
            TEAM_REPO,
            TEAM_PATH,
            Param(
                "content",
                PatchText(max_length=DEFAULT_MAX_BYTES, describe="the file's text"),
                None,
                "the file's new text (CLI: a file, or - for stdin)",
                rest="body",
            ),
            Param("deleted", Flag(), False, "the edit removed the file", rest="body"),
        ),
        description="After editing a file of a shared repository, send its new text (or "
        "`deleted`): the edit is recorded (refused when another session holds the file) and "
        "your reads with `session` see your version, while other sessions see the shared "
        "graph. Dropped when your session ends.",
        services=("caller",),
        cli=Cli(("overlay", "edit")),
        mcp="overlay_edit",
        profile="agent",
        rest=Rest("POST", "/sessions/{session}/overlay", status=201),
        idempotent=True,
    ),
    Operation(
        "overlay",
        overlay.overlay_files,
        list[OverlayFile],
        "claims",
        "the files of your session's overlay (edited, not pushed)",
        (in_path(SESSION),),
        services=("caller",),
        cli=Cli(("overlay", "list")),
        mcp="overlay_files",
        rest=Rest("GET", "/sessions/{session}/overlay"),
        read_only=True,
    ),
    Operation(
        "overlay-drop",
        overlay.drop_overlay,
        overlay.OverlayDropped,
        "claims",
        "forget your session's overlay (its reads see the shared graph again)",
        (in_path(SESSION),),
        services=("caller",),
        cli=Cli(("overlay", "drop")),
        mcp="overlay_drop",
        rest=Rest("DELETE", "/sessions/{session}/overlay"),
        destructive=True,
        idempotent=True,
    ),
    Operation(
        "remember",
        agents.remember,
        Lesson,
        "claims",
        "leave a lesson for the next agent about paths, folders or symbols",
        (
            SESSION,
            Param(
                "text", Text(max_length=MAX_TEXT), help="the lesson", positional=True, rest="body"
            ),
            Param(
                "about",
                TextList(max_items=50),
                [],
                "paths, folders (ending in /) or symbol ids",
                rest="body",
            ),
            Param("kind", Text(max_length=40), "lesson", "what kind of note", rest="body"),
        ),
        description="Leave a lesson for the next agent (e.g. the test command of a package, a "
        "trap to avoid), about paths, folders (ending in /) or symbol ids (repo:path#qualname).",
        services=("caller",),
        cli=Cli(("remember",)),
        mcp="remember",
        rest=Rest("POST", "/lessons", status=201),
    ),
    Operation(
        "recall",
        agents.recall,
        list[Lesson],
        "claims",
        "lessons other agents left about paths, folders or symbols (or with these words)",
        (
            Param("about", TextList(max_items=50), None, "paths, folders or symbol ids"),
            Param("text", Text(min_length=0, max_length=500), "", "words the lesson holds"),
            limit(20),
        ),
        description="Lessons other agents left about these paths, folders or symbols (or with "
        "these words), newest first. Read them before working on a file.",
        cli=Cli(("recall",)),
        mcp="recall",
        rest=Rest("GET", "/lessons"),
        read_only=True,
    ),
]

# ---------------------------------------------------------------- administration (scope `admin`)

ADMIN = [
    Operation(
        "index",
        admin.index_folder,
        admin.IndexReport,
        "admin",
        "index a repository (incremental: only changed files are parsed)",
        (
            Param(
                "path", Text(), ".", "repository folder (default: .)", positional=True, rest="body"
            ),
            Param(
                "name",
                RepoName(),
                None,
                "repository name (default: the folder's name)",
                rest="body",
            ),
            Param(
                "files",
                TextList(max_items=10_000),
                None,
                "look only at these files (relative to PATH), e.g. the ones just edited",
                rest="body",
            ),
            Param(
                "max_bytes",
                Integer(),
                DEFAULT_MAX_BYTES,
                "skip larger files (default 1 MiB)",
                minimum=1,
                maximum=1 << 30,
                rest="body",
            ),
            Param(
                "history",
                Flag(),
                True,
                "do not mine git history after indexing",
                cli="--no-history",
                rest="body",
            ),
            Param(
                "remine",
                Flag(),
                False,
                "forget the mined history and mine all of it again",
                rest="body",
            ),
            Param(
                "workers",
                Integer(),
                None,
                "parser processes (default: CPU count)",
                minimum=1,
                maximum=256,
                surfaces=("cli",),
            ),
        ),
        description="Index a repository folder, or re-index it after edits (incremental: only "
        "changed files are parsed, and the files that depend on them are re-resolved). After "
        "editing, pass the edited files (relative to path) in `files` for the fastest refresh. "
        "Returns a summary.",
        services=("progress",),
        cli=Cli(("index",), progress=True),
        mcp="index_repository",
        rest=Rest("POST", "/index"),
        idempotent=True,
    ),
    Operation(
        "token-create",
        admin.issue_token,
        admin.IssuedToken,
        "admin",
        "create a token (shown once)",
        (
            Param("name", Text(max_length=100), help="who holds it", cli="--name", rest="body"),
            Param(
                "scopes",
                CommaList(choices=TOKEN_SCOPES, noun="scope"),
                "read",
                "comma-separated: read,claims,admin (default read)",
                rest="body",
            ),
        ),
        description="Create a bearer token for a person or an agent, with scopes (read, claims, "
        "admin); the token is in this answer only.",
        cli=Cli(("token", "create")),
        mcp="create_token",
        rest=Rest("POST", "/tokens", status=201),
    ),
    Operation(
        "token-list",
        admin.list_tokens,
        list[ApiToken],
        "admin",
        "tokens (never their secrets)",
        cli=Cli(("token", "list")),
        mcp="list_tokens",
        rest=Rest("GET", "/tokens"),
        read_only=True,
    ),
    Operation(
        "token-revoke",
        admin.revoke_token,
        admin.RevokedToken,
        "admin",
        "revoke a token",
        (
            Param(
                "name", Text(max_length=100), help="the token's name", positional=True, rest="path"
            ),
        ),
        cli=Cli(("token", "revoke")),
        mcp="revoke_token",
        rest=Rest("DELETE", "/tokens/{name}"),
        destructive=True,
        idempotent=True,
    ),
    Operation(
        "repo-add",
        admin.track,
        admin.NewTrackedRepo,
        "admin",
        "track a repository",
        (
            replace(TRACKED_NAME, help="its name in the graph", rest="body"),
            Param(
                "url",
                Text(max_length=2000),
                help="git URL the mirror is cloned from",
                cli="--url",
                rest="body",
            ),
            Param(
                "branch",
                Text(max_length=200),
                "main",
                "branch to follow (default main)",
                rest="body",
            ),
            Param(
                "secret",
                Text(min_length=16, max_length=200),
                None,
                "webhook secret (default: generated, printed once)",
                rest="body",
            ),
        ),
        description="Track a repository: pushes to its branch (webhooks) keep its graph "
        "fresh. The answer holds its webhook secret (shown only here) and webhook paths.",
        cli=Cli(("repo", "add")),
        mcp="track_repo",
        rest=Rest("POST", "/repos", status=201),
        open_world=True,
    ),
    Operation(
        "repo-list",
        admin.tracked_statuses,
        list[RepoStatus],
        "admin",
        "tracked repositories and their status",
        services=("job_state", "data_dir"),
        cli=Cli(("repo", "list")),
        mcp="list_tracked_repos",
        rest=Rest("GET", "/repos"),
        read_only=True,
        graphql="trackedRepositories",
    ),
    Operation(
        "repo-status",
        admin.tracked_status,
        RepoStatus,
        "admin",
        "branch, head and indexed commits, lag, queue depth, last error and job time",
        (TRACKED_NAME,),
        services=("job_state", "data_dir"),
        cli=Cli(("repo", "status")),
        mcp="tracked_repo_status",
        rest=Rest("GET", "/repos/{name}"),
        read_only=True,
    ),
    Operation(
        "repo-remove",
        admin.untrack,
        admin.UntrackedRepo,
        "admin",
        "stop tracking (also drops its mirror and graph unless the graph is kept)",
        (TRACKED_NAME, Param("keep_graph", Flag(), False, "keep the repository's graph")),
        services=("data_dir",),
        cli=Cli(("repo", "remove")),
        mcp="untrack_repo",
        rest=Rest("DELETE", "/repos/{name}", status=204),
        destructive=True,
        idempotent=True,
    ),
    Operation(
        "repo-forge",
        reviews.set_forge,
        reviews.ForgeSettings,
        "admin",
        "post pull-request impact reports to the forge (a comment and a commit status)",
        (
            TRACKED_NAME,
            Param(
                "forge",
                Choice(choices=("github", "gitlab", "none")),
                help="where to post (none: stop posting; reports are still kept)",
                cli="--forge",
                rest="body",
            ),
            Param(
                "project",
                Text(max_length=300),
                None,
                "owner/name on GitHub, the project's path or id on GitLab",
                rest="body",
            ),
            Param(
                "token", Text(max_length=500), None, "an API token allowed to comment", rest="body"
            ),
            Param(
                "url",
                Text(max_length=500),
                None,
                "the API's base URL (default https://api.github.com, https://gitlab.com/api/v4)",
                rest="body",
            ),
        ),
        description="Post the impact report of each pull request of a tracked repository to "
        "its forge: one comment edited in place on every new head, and a commit status "
        "(failure when something will break). The token is stored sealed and never shown.",
        cli=Cli(("repo", "forge")),
        mcp="set_repo_forge",
        rest=Rest("PUT", "/repos/{name}/forge"),
        idempotent=True,
    ),
    Operation(
        "coverage-import",
        import_coverage,
        CoverageImport,
        "admin",
        "import a coverage.py data file with per-test contexts as runtime evidence for impact",
        (
            PICKED_REPO,
            Param(
                "data_file",
                Text(max_length=4096),
                help="the .coverage file (pytest --cov --cov-context=test), on this machine",
                positional=True,
                rest="body",
            ),
        ),
        description="Replace a repository's runtime evidence with a coverage.py data file "
        "recorded with per-test contexts: impact then adds the tests recorded running the "
        "changed code to its tests to run, and says which came from which evidence. The file "
        "is read on the machine that serves the call.",
        cli=Cli(("coverage", "import")),
        mcp="import_coverage",
        rest=Rest("POST", "/repos/{repo}/coverage"),
        idempotent=True,
    ),
    Operation(
        "repo-sync",
        admin.sync_now,
        admin.SyncAnswer,
        "admin",
        "sync now (queued for the workers when a broker is set)",
        (
            TRACKED_NAME,
            Param(
                "sha",
                CommitSha(),
                None,
                "commit to index (default: the branch's head)",
                rest="body",
            ),
            Param(
                "workers",
                Integer(),
                None,
                "parser processes",
                minimum=1,
                maximum=256,
                surfaces=("cli",),
            ),
        ),
        description="Sync a tracked repository now: fetch, then index the branch's head (or the "
        "commit given). Queued for the workers when a job runner is configured.",
        services=("runner", "data_dir"),
        cli=Cli(("repo", "sync")),
        mcp="sync_repo",
        rest=Rest("POST", "/repos/{name}/sync", status=202),
        open_world=True,
        idempotent=True,
    ),
]

# the agent session a read is made in: its answer sees the session's overlay (its edits not
# yet pushed, `agents.overlay`); GraphQL and every HTTP surface also take the
# X-Cartograph-Session header
VIEW_SESSION = Param(
    "session",
    Integer(),
    None,
    "your session: see your unpushed edits",
    minimum=1,
    maximum=MAX_SESSION_ID,
    surfaces=("mcp", "rest"),
    to_services=True,
)


# a read's answer within a budget (cartograph.budget): cut to `max_tokens`, the rest a cursor
# away; agents (MCP) get AGENT_MAX_TOKENS unless they say otherwise, the other surfaces the
# whole answer
MAX_TOKENS = Param(
    "max_tokens",
    Integer(),
    None,
    "cut the answer to about this many tokens (it says what it left out)",
    minimum=MIN_MAX_TOKENS,
    maximum=MAX_MAX_TOKENS,
    to_services=True,
)
CURSOR = Param(
    "cursor",
    Text(max_length=CURSOR_LENGTH),
    None,
    "a cut answer's cursor: the rest of it",
    to_services=True,
)


def in_budget(op: Operation) -> Operation:
    """A read takes a budget."""
    if not op.changes_nothing:
        return op
    return replace(op, params=(*op.params, MAX_TOKENS, CURSOR))


def in_session(op: Operation) -> Operation:
    """A read that may be made in a session takes its id."""
    if not op.in_session_view or any(p.name == VIEW_SESSION.name for p in op.params):
        return op
    return replace(op, params=(*op.params, VIEW_SESSION))


CATALOGUE: tuple[Operation, ...] = tuple(in_budget(in_session(op)) for op in (*READ, *TEAM, *ADMIN))

# what a command group is for (`cartograph repo --help`)
COMMAND_GROUPS = {
    "repo": "repositories kept fresh by pushes (webhooks, sync jobs)",
    "token": "bearer tokens for people and agents (scopes)",
    "session": "agent work sessions: start, heartbeat, end",
    "overlay": "a session's own versions of the files it edited and has not pushed",
    "coverage": "runtime evidence of which tests run which code",
}

_BY_NAME = {op.name: op for op in CATALOGUE}
assert len(_BY_NAME) == len(CATALOGUE), "two operations share a name"


def operation(name: str) -> Operation:
    return _BY_NAME[name]
