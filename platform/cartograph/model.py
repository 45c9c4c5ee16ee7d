"""The graph's node and edge types, ids and vocabulary — the schema in one place.

docs/graph-schema.md documents the same schema for people writing Cypher or GraphQL; change
both together (and add a store migration).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, fields

from cartograph.testlayout import DEFAULT_LAYOUT, TestLayout

# 1: code graph; 2: git history; 3: tracked repositories; 4: resolution digests; 5: agents;
# 6: API tokens; 7: SQLite stores of early schema-1 builds repaired; 8: the base order on
# INHERITS edges, claim versions (compare-and-set); 9: sessions owned by the token that opened
# them, Neo4j claim keys as file ids; 10: each file's flow rows and derived edges (calls
# through values, the flow stage); 11: each repository's package identity (manifests);
# 15: HTTP routes (route symbols, ROUTES_TO and HTTP_CALLS edges), each file's HTTP rows;
# 18: the repository a field of Neo4j's full-text index (SQLite: nothing to do)
SCHEMA_VERSION = 18

SYMBOL_KINDS = (
    "module",
    "class",  # also structs, records, objects
    "interface",  # also traits, protocols
    "enum",
    "type",  # a type alias
    "function",
    "method",
    "variable",
    "route",  # an HTTP route (`GET /users/{id}`), declared where its decorator or URL entry is
)
EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPORTS", "ROUTES_TO", "HTTP_CALLS")
# the services stage's edges (cartograph.index.services): a route to its handler, a request
# to the route it reaches; a file's own resolution never writes them
SERVICE_EDGE_TYPES = ("ROUTES_TO", "HTTP_CALLS")
# edges implied by node properties; the SQLite store derives them, Neo4j stores them
STRUCTURAL_EDGES = ("CONTAINS", "DEFINES", "HAS_MEMBER", "PROVIDES")
VIAS = (
    "scope",
    "import",
    "self",
    "inheritance",
    "super",
    "constructor",
    "annotation",
    "return",
    "injection",
    "export",  # a name a package re-exports, or one listed in __all__
    "decorator",  # applying a decorator; a call of a decorated name reaching its wrapper
    "decorated",  # REFERENCES: a decorated function called by its name (through its wrapper)
    "protocol",  # syntax that calls a dunder method
    "property",  # reading or assigning a property or a descriptor's attribute
    "fixture",  # a pytest test calling the fixture a parameter requests
    "argument",  # the flow stage: a value reaching a parameter, called there
    "wrapped",  # the flow stage: a wrapper calling the function its decorator was given
    "lambda",  # a lambda value called elsewhere
    "container",  # an element of a container, called through it
    "dispatch",  # the flow stage: self.m() reaching the overrides in subclasses
    "getattr",  # the flow stage: methods a computed getattr's prefix may name
    "hook",  # the flow stage: a plugin hook's implementations, called by a plugin manager
    "callback",  # code outside the repository calling back what it was handed
    "framework",  # a framework running what the code registered with it (a click group's
    # subcommands, a Celery task's `.delay()`); REFERENCES: using the object a framework's
    # decorator made of a function (`cmd.make_context(...)`)
    "name",  # the by-name tier: bound by name alone
    "route",  # ROUTES_TO: a route's handler
    "http",  # HTTP_CALLS: the whole path template, on the service configured for the base URL
    "http_base",  # the whole path template, the base URL's service not known
    "http_prefix",  # the route's template ends the URL's path (a prefix in the base URL)
)


def file_id(repo: str, path: str) -> str:
    return f"{repo}:{path}"


def symbol_id(repo: str, path: str, qualname: str) -> str:
    return f"{repo}:{path}#{qualname}"


def foreign_path(repo: str, path: str) -> str:
    """How a resolution names a file of another repository it binds into (a provider's): a
    repository file's path never starts with "/"."""
    return f"/{repo}/{path}"


def located(repo: str, path: str) -> tuple[str, str]:
    """(repository, path) of a path as a resolution of `repo` names it (see foreign_path)."""
    if path.startswith("/"):
        owner, _, inside = path[1:].partition("/")
        return owner, inside
    return repo, path


def split_symbol_id(sid: str) -> tuple[str, str, str]:
    """`repo:path#qualname` → (repo, path, qualname). A path may hold `#` and `:`; a repository
    name holds neither, and a qualname never holds `#`."""
    head, _, qualname = sid.rpartition("#")
    repo, _, path = head.partition(":")
    return repo, path, qualname


@dataclass(slots=True)
class Repo:
    name: str
    root: str = ""  # local work tree the index was read from ("" when indexed from a mirror)
    url: str = ""
    default_branch: str = ""
    head_sha: str = ""
    indexed_sha: str = ""
    indexed_at: str = ""
    dirty: bool = False  # the work tree had uncommitted changes when indexed
    index_format: str = ""  # cartograph.index.INDEX_FORMAT that wrote it (internal)
    mined_sha: str = ""  # the last commit whose history is in the graph
    codeowners: str = ""  # the CODEOWNERS text at that commit
    # new at every index run that completes: a run resolving against this repository compares
    # it before and after, to tell whether it changed underneath (index.crossrepo.ProviderWatch)
    indexed_run: str = ""

    @property
    def id(self) -> str:
        return self.name


ECOSYSTEMS = ("pypi", "npm", "go", "maven", "cargo")


@dataclass(slots=True)
class Provided:
    """A package a repository provides: its name as others depend on it, and the names an
    import statement uses to reach it (Python's top-level packages, the npm name, the Go
    module path, Java package prefixes, the Rust crate)."""

    ecosystem: str  # one of ECOSYSTEMS
    name: str  # as a dependency names it (Python: normalized as PEP 503 says)
    version: str = ""
    manifest: str = ""  # the file that declares it
    imports: list[str] = field(default_factory=list)
    folder: str = ""  # where its files are ("" the repository's root)
    entry: dict = field(default_factory=dict)  # npm: exports, main, module, types, typings


@dataclass(slots=True)
class Dependency:
    """What a repository depends on, with the version its manifest requires and the one its
    lock file pins (either may be "")."""

    ecosystem: str
    name: str
    required: str = ""
    locked: str = ""
    manifest: str = ""
    scope: str = ""  # "", "dev", "optional", "peer", "test", "build"


@dataclass(slots=True)
class Manifest:
    """A repository's package identity: what it provides and depends on, and which repository
    it chose for an import name more than one repository provides (`.cartograph.toml`
    `[providers]`)."""

    repo: str
    provides: list[Provided] = field(default_factory=list)
    depends: list[Dependency] = field(default_factory=list)
    choices: dict[str, str] = field(default_factory=dict)  # import name → repository
    # a base URL its requests use (host, variable, setting, `env:NAME`) → the repository
    # serving it (`.cartograph.toml` `[services]`)
    services: dict[str, str] = field(default_factory=dict)
    # "path: reason" for each manifest that could not be read, or that says something that
    # cannot be followed (an invalid `.cartograph.toml` entry)
    notes: list[str] = field(default_factory=list)
    # which files, classes and functions are tests, as its runners' configuration says
    tests: TestLayout = DEFAULT_LAYOUT
    # the Python entry points it declares, by group ("console_scripts", "mkdocs.plugins"):
    # "module:attribute" or "module" (pyproject.toml, setup.cfg)
    entry_points: dict[str, list[str]] = field(default_factory=dict)

    def import_names(self, ecosystem: str | None = None) -> set[str]:
        return {
            name
            for p in self.provides
            if ecosystem is None or p.ecosystem == ecosystem
            for name in p.imports
        }

    def to_json(self) -> str:
        data = asdict(self)
        data["tests"] = self.tests.to_dict()
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        return cls(
            data["repo"],
            [Provided(**p) for p in data.get("provides", [])],
            [Dependency(**d) for d in data.get("depends", [])],
            dict(data.get("choices", {})),
            dict(data.get("services", {})),
            list(data.get("notes", [])),
            TestLayout.from_dict(data.get("tests")),
            {group: list(targets) for group, targets in data.get("entry_points", {}).items()},
        )

    def entry_point_targets(self, scripts: bool = True) -> list[tuple[str, str]]:
        """Every entry point's (module, attribute path) — ("pkg.cli", "main"), ("pkg.plugin",
        "") for a module — of every group, or of the plugin groups only (`scripts=False`)."""
        found = []
        for group, targets in sorted(self.entry_points.items()):
            if not scripts and group in SCRIPT_GROUPS:
                continue
            for target in targets:  # cleaned when read (manifests._entry_points)
                module, _, attribute = target.partition(":")
                found.append((module, attribute))
        return found


SCRIPT_GROUPS = frozenset({"console_scripts", "gui_scripts"})  # run as programs, not loaded


@dataclass(slots=True)
class ApiToken:
    """A bearer token of a person or an agent: only its SHA-256 is kept."""

    id: int
    name: str
    scopes: tuple[str, ...]
    hash: str
    created_at: str
    revoked_at: str = ""


@dataclass(slots=True)
class AgentSession:
    """An agent at work on a task (`start_session`); alive while it sends heartbeats."""

    id: int
    agent: str
    task: str
    started_at: str
    last_seen: str
    ended_at: str = ""
    # the name of the token that opened it ("" when opened without one: on this machine); only
    # that token, or an admin, may act in the session
    owner: str = ""


@dataclass(slots=True)
class OverlayFile:
    """A session's own version of a file it edited and has not pushed (`agents.overlay`):
    that session's queries see it in place of the shared graph's; `gone` when it deleted it."""

    session: int
    repo: str
    path: str
    sha256: str  # of the content ("" when gone)
    size: int
    at: str
    gone: bool = False


@dataclass(slots=True)
class Claim:
    """A session's hold on a path of a repository, with who holds it (for the others)."""

    repo: str
    path: str
    session: int
    intent: str
    since: str
    expires_at: str
    agent: str = ""
    task: str = ""


@dataclass(slots=True)
class Lesson:
    """What an agent learned, about paths, folders (ending in /) or symbol ids."""

    id: int
    text: str
    kind: str
    session: int
    agent: str
    at: str
    about: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TrackedRepo:
    """A repository kept fresh by pushes (`cartograph repo add`), with its last sync job."""

    name: str
    url: str
    branch: str = "main"
    secret: str = ""  # the webhook secret: HMAC key for GitHub/Gitea, token for GitLab and CI
    added_at: str = ""
    pushed_sha: str = ""  # the newest commit a push announced
    pushed_at: str = ""
    last_job_at: str = ""
    last_job_seconds: float = 0.0
    last_error: str = ""
    last_error_at: str = ""
    # where impact reports of its pull requests are posted ("" : nowhere; reviews are kept)
    forge: str = ""  # github, gitlab
    forge_url: str = (
        ""  # the API's base URL (https://api.github.com, https://gitlab.example/api/v4)
    )
    forge_project: str = ""  # owner/name (GitHub), the project's path or id (GitLab)
    forge_token: str = ""  # sealed at rest, like the webhook secret


WHOLE_OR_NOTHING = "whole or nothing"  # a field's text that cut short would be wrong (budget)


@dataclass(slots=True)
class Review:
    """The impact report of a pull request (GitLab: merge request) of a tracked repository,
    computed when its webhook announced the head; a newer head replaces it."""

    repo: str
    number: int
    head_sha: str
    base_ref: str = ""  # the branch it is to merge into
    base_sha: str = ""  # the merge base the head was compared against
    title: str = ""
    forge: str = ""  # github, gitlab
    computed_at: str = ""
    verdict: str = ""  # impact's verdict ("" while it could not be computed)
    # impact's JSON form; an answer within a budget leaves it out whole rather than cut it
    # (cut JSON is no JSON): cartograph.budget
    report: str = field(default="", metadata={WHOLE_OR_NOTHING: True})
    markdown: str = ""  # the comment posted (or to post)
    error: str = ""  # why the impact could not be computed
    posted_at: str = ""
    post_error: str = ""  # why posting to the forge failed (the report is kept regardless)
    comment_id: str = ""
    comment_url: str = ""


REVIEW_FIELDS = tuple(f.name for f in fields(Review))
# the largest pull-request number kept: GraphQL's Int (32-bit, signed) carries every number the
# graph holds to the dashboard; GitHub's and GitLab's numbers are far below it
MAX_PULL_REQUEST = 2**31 - 1


@dataclass(slots=True)
class FileRecord:
    repo: str
    path: str
    language: str
    sha256: str
    size: int
    mtime_ns: int
    lines: int
    is_test: bool
    module: str = ""  # the module name a Python file was resolved under
    parse_errors: int = 0
    interface: str = ""  # digest of what other files can observe of it (internal)
    aliases: str = ""  # other module names it can be imported by, space-separated (internal)
    resolution: str = ""  # digest of what its resolution wrote (edges, unresolved, imports, deps)

    @property
    def id(self) -> str:
        return file_id(self.repo, self.path)


@dataclass(slots=True)
class SymbolRow:
    id: str
    repo: str
    path: str
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    doc: str
    exported: bool
    parent: str | None
    decorators: list[str] = field(default_factory=list)


# a symbol's stored properties (SQLite columns, Neo4j node properties), in SymbolRow's order
SYMBOL_FIELDS = tuple(f.name for f in fields(SymbolRow))


@dataclass(slots=True)
class Edge:
    type: str
    src: str
    dst: str
    lines: list[int]
    count: int
    via: str
    confidence: float
    # INHERITS: the base's place among the class's declared bases (1 = first), so a method
    # resolution order can be computed from the graph alone; 0 on every other edge
    order: int = 0


@dataclass(slots=True)
class Unresolved:
    """A call the resolver could not bind: kept for search and statistics, never guessed, with
    why (`UNKNOWN_REASONS`), so an answer that meets it can say "unknown" and why rather than
    "nothing"."""

    src: str
    name: str
    line: int
    external: str  # top-level module when the receiver came from an import outside the repo
    kind: str = "call"  # "call", or "base": a base class outside the repository
    reason: str = ""  # one of UNKNOWN_REASONS ("" where a store holds none: an older index)


# why a call stays unresolved (Unresolved.reason)
UNKNOWN_REASONS = {
    "external": "the callee comes from a package outside the indexed repositories",
    "unknown-value": "the receiver's value is not known (a value of unknown type)",
    "parameter": "the callee is a parameter (or a method of one), or a container filled "
    "through parameters: what callers pass is bound by the flow stage",
    "computed-name": "the callee's name is computed (getattr with a name made at run time)",
    "not-callable": "the value called has no __call__ the graph knows",
    "plugin-hook": "a plugin hook: its implementations are registered at run time",
    "unparsed": "the parser could not read the callee",
    "budget": "resolving it went past the work budget of a reference or a file",
    "too-deep": "resolving it went past the depth of any sensible chain",
}

# calls of outside code that may run the repository's code where the graph cannot follow: a
# process it starts (`subprocess`), and the entry points it loads (the modules and objects its
# own manifest names, loaded by group): the store keeps them among the open ends
ENTRY_POINT_LOADERS = frozenset({"entry_points", "iter_entry_points", "load_entry_point"})
_ENTRY_POINT_MODULES = frozenset({"importlib", "importlib_metadata", "pkg_resources"})
OPENING_MODULES = frozenset({"subprocess", *_ENTRY_POINT_MODULES})


def opens_the_repository(external: str, name: str) -> bool:
    """Whether a call of outside code (`external`: its top-level module; `name` as written)
    may run the repository's code: starting a process, loading entry points."""
    if external == "subprocess":
        return True
    return external in _ENTRY_POINT_MODULES and name.rpartition(".")[2] in ENTRY_POINT_LOADERS


def is_open_end(row: Unresolved) -> bool:
    """Whether an unresolved row is a way code the graph does not see may call the
    repository's symbols (`GraphReader.open_ends`): a base class from outside, a call whose
    callee may be an indexed symbol (every reason but "external"), or a call of outside code
    that opens the repository."""
    return (
        row.kind == "base"
        or row.reason != "external"
        or opens_the_repository(row.external, row.name)
    )


_GETATTR = re.compile(r"""getattr\(\s*([A-Za-z_][\w.]*|[^,]+?)\s*,\s*(?:f?["']([A-Za-z_]\w*))?""")


def computed_lookup(text: str) -> tuple[str, str] | None:
    """What a getattr by a computed name (`computed-name`), as written, looks up: the object
    (`self`, `visitor`) and the literal start of the name ("visit_" in `getattr(self,
    "visit_" + kind)`; "" when the whole name is made at run time); None for other text."""
    found = _GETATTR.search(text)
    return (found.group(1).strip(), found.group(2) or "") if found else None


@dataclass(slots=True)
class ImportLink:
    """(File)-[:IMPORTS {names}]->(File | Package)."""

    target_kind: str  # "file" or "package"
    target: str  # a path in the same repo, or a package name
    names: list[str]


@dataclass(slots=True)
class Skipped:
    path: str
    reason: str
    size: int = 0


@dataclass(slots=True)
class FileWrite:
    """Everything written for one file in one transaction (replace semantics)."""

    record: FileRecord
    facts: bytes | None
    symbols: list[SymbolRow]
    edges: list[Edge]
    unresolved: list[Unresolved]
    imports: list[ImportLink]
    deps: list[str]
    flows: bytes | None = None  # its flow rows, marshalled (cartograph.index.flows)
    flows_digest: str = ""
    bodies: dict[str, str] = field(default_factory=dict)  # symbol id → its body text for search
    http: bytes | None = None  # its HTTP rows, marshalled (cartograph.resolve.http)


@dataclass(slots=True)
class EdgeWrite:
    """A re-resolution of an unchanged file: its outgoing edges are replaced, nothing else."""

    path: str
    edges: list[Edge]
    unresolved: list[Unresolved]
    imports: list[ImportLink]
    deps: list[str]
    resolution: str = ""  # digest of the above (FileRecord.resolution)
    flows: bytes | None = None  # its flow rows, marshalled (cartograph.index.flows)
    flows_digest: str = ""
    http: bytes | None = None  # its HTTP rows, marshalled (cartograph.resolve.http)


# the vias of the edges the flow stage writes (cartograph.index.flows): a file's own
# resolution never writes them, and rewriting a file keeps them
DERIVED_VIAS = ("argument", "wrapped", "dispatch", "getattr", "hook")
# REFERENCES that are calls made through another symbol: a decorated function called by its
# name runs its decorator's wrapper (the CALLS edge goes there), which calls it back ("wrapped");
# the name binds the call to the function too, so its callers are the code that names it
CALLING_REFERENCE_VIAS = ("decorated",)


@dataclass(slots=True)
class DerivedWrite:
    """The flow stage's edges starting in one file: the keys it wrote last time go, these
    come (the file's own resolution keeps its edges)."""

    path: str
    removed: list[tuple[str, str, str]]  # (type, src, dst)
    added: list[Edge]
    derived: bytes  # what is stored as the file's derived edges (index.flows.encode_derived)


@dataclass(slots=True)
class ServiceWrite:
    """The services stage's output for one repository, replacing what it wrote before: its
    route symbols with their ROUTES_TO edges (`routes` None: they stay as they are), and its
    requests' HTTP_CALLS edges: the `gone_calls` go, then the `calls` are written (a rematch
    writes only the functions it matched again). What goes is named by the listings written
    last time, so a write touches the repository's routes and requests only, never all its
    symbols."""

    routes: list[SymbolRow] | None
    route_edges: list[Edge]
    calls: list[Edge]
    listing: str  # its routes as every repository's matching reads them (index.services)
    calls_listing: str  # its HTTP_CALLS edges and how they were matched, as JSON
    # (index.services.CallsState: what the next write replaces and rematch reads)
    gone_routes: list[str] = field(default_factory=list)  # route ids written last time
    gone_calls: list[tuple[str, str]] = field(default_factory=list)  # (src, dst) written last


@dataclass(slots=True)
class CommitRow:
    sha: str
    message: str
    at: str  # ISO 8601, the author's date
    author: str  # email
    parents: int
    files: int  # files the commit changed (all of them, indexed or not)
    ordinal: int = 0  # position in history, counting up from the oldest mined commit


@dataclass(slots=True)
class PersonRow:
    email: str
    name: str
    bot: bool


@dataclass(slots=True)
class HistoryBatch:
    """Commits mined together, written in one transaction with what they add up to."""

    commits: list[CommitRow] = field(default_factory=list)
    people: list[PersonRow] = field(default_factory=list)
    file_touches: list[tuple[str, str, int, int]] = field(default_factory=list)  # sha, path, +, -
    symbol_touches: list[tuple[str, str, int]] = field(default_factory=list)  # sha, id, lines
    file_changes: Counter = field(default_factory=Counter)  # path → commits that count
    file_pairs: Counter = field(default_factory=Counter)  # (a, b), a < b → commits
    symbol_changes: Counter = field(default_factory=Counter)
    symbol_pairs: Counter = field(default_factory=Counter)

    def rows(self) -> int:
        """What writing the batch costs, in rows: its commits and touches."""
        return len(self.commits) + len(self.file_touches) + len(self.symbol_touches)

    def empty(self) -> bool:
        return not (self.rows() or self.people or self.file_changes or self.symbol_changes)

    def clear(self) -> None:
        for part in (self.commits, self.people, self.file_touches, self.symbol_touches):
            part.clear()
        for counts in (self.file_changes, self.file_pairs, self.symbol_changes, self.symbol_pairs):
            counts.clear()


@dataclass(slots=True)
class Touch:
    """A commit's change to a file or symbol, with who made it (for history and owners)."""

    sha: str
    at: str
    message: str
    author: str  # email
    name: str
    bot: bool
    target: str  # path or symbol id
    added: int
    deleted: int


@dataclass(slots=True)
class CoChange:
    other: str  # path or symbol id
    count: int
    weight: float
