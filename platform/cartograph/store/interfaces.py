"""The store seams: one `Protocol` per concern, and the `Store` that `open_store` returns.

Each backend (`store/sqlite/`, `store/neo4j/`) implements every interface here and passes the
contract suite (`tests/contract/`, one file per interface, run on both). A backend holds
persistence and the translation of small descriptions (a `TextMatch` into FTS5 or Lucene); the
rules that decide — which search words are too common, whether a claim is free, what a
co-change weight is, which lessons apply to a path, what `stats` counts — live above the seam
(`query/`, `agents/`, `history/`), once.

Row types the interfaces exchange live here too; the graph's own vocabulary (symbols, edges,
files, commits, claims, …) is `cartograph.model`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from cartograph.errors import Unavailable
from cartograph.model import (
    AgentSession,
    ApiToken,
    Claim,
    CoChange,
    DerivedWrite,
    Edge,
    EdgeWrite,
    FileRecord,
    FileWrite,
    HistoryBatch,
    Lesson,
    Manifest,
    OverlayFile,
    Repo,
    Review,
    ServiceWrite,
    Skipped,
    SymbolRow,
    Touch,
    TrackedRepo,
    Unresolved,
)
from cartograph.testlayout import TestLayouts

_LAYOUTS: dict[str, tuple[int, TestLayouts]] = {}  # Store.test_layouts, by store url
_LAYOUTS_LOCK = threading.Lock()


class StoreError(Unavailable):
    """A store cannot be opened or used (bad URL, unreachable server, newer schema, ...)."""


# ---------------------------------------------------------------------------------- row types


@dataclass(slots=True)
class FileState:
    """What an index run compares a file on disk with."""

    sha256: str
    size: int
    mtime_ns: int
    module: str
    language: str
    interface: str  # parsing.interface_hash of its facts
    aliases: str  # space-separated module aliases it was resolved under
    resolution: str = ""  # digest of what its last resolution wrote (see FileRecord)
    flows: str = ""  # digest of its flow rows ("" when it has none; cartograph.index.flows)
    derived: bool = False  # the flow stage wrote derived edges starting in it
    http: bool = False  # its resolution found HTTP routes or requests (index.services)
    is_test: bool = False  # its record says it is test code (cartograph.testlayout)


@dataclass(slots=True)
class EdgeRow:
    """An edge seen from one end: `other` is the symbol at the far end (None if not indexed)."""

    edge: Edge
    other: SymbolRow | None


@dataclass(slots=True)
class TraceStep:
    depth: int
    edge: Edge
    parent: str  # the symbol id this step was reached from
    symbol: SymbolRow
    repeated: bool = False  # already shown higher in the tree (cycle or diamond)


# The text of a symbol a search can match, by field. Each backend weighs them for BM25 (name 10,
# qualname 5, context 1) and maps them to its own columns or properties.
SYMBOL_TEXT_FIELDS: tuple[str, ...] = ("name", "qualname", "context")
# The words of a symbol's body (identifiers, strings, comments; `index.resolve.symbol_bodies`):
# a field matched on its own (`TextMatch(fields=BODY_FIELDS)`), with a BM25 of its own, so a long
# body does not weigh down a match on a name; the query layer combines the two scores.
BODY_FIELDS: tuple[str, ...] = ("body",)


@dataclass(frozen=True, slots=True)
class Term:
    """One word of a text match (lower case, as `identifiers.split_words` gives it): matched
    whole, or as the start of longer words (`prefix`). Several words separated by one space are
    a phrase: matched when they stand in that order, one after the other (never a prefix)."""

    word: str
    prefix: bool = False

    def held_by(self, text: str) -> bool:
        """Whether `text` (a search text: words separated by spaces) holds this term."""
        if not self.prefix:
            return f" {self.word} " in f" {text} "
        return f" {self.word}" in f" {text}"


@dataclass(frozen=True, slots=True)
class TextMatch:
    """Which symbols a search matches: those whose text, in any of `fields`, holds all of the
    terms (`mode="all"`) or any of them (`"any"`). A term may be repeated: a ranked match
    counts it each time (BM25 sums over the query's terms), which is how a word weighs double.
    The query layer decides what to ask (`query/ranking.py`); a backend only translates it
    (FTS5 MATCH, a Lucene query)."""

    terms: tuple[Term, ...]
    mode: Literal["all", "any"] = "all"
    fields: tuple[str, ...] = SYMBOL_TEXT_FIELDS


@dataclass(slots=True)
class EdgeTally:
    """Outgoing CALLS/REFERENCES/INHERITS edges of a repository's symbols, grouped."""

    type: str
    via: str
    to_named: bool  # the target's name is the one `GraphReader.tallies` was asked about
    edges: int
    sites: int  # the sum of their `count`s (call sites)


@dataclass(slots=True)
class Tallies:
    """Raw counts over one repository's graph; `query.overview.stats` makes the numbers."""

    symbols: dict[str, int]  # kind → symbols
    languages: dict[str, tuple[int, int]]  # language → (files, lines)
    edges: list[EdgeTally]
    unresolved_calls: int
    unresolved_external: int  # of them, the calls on a receiver imported from outside
    imports: dict[str, int]  # target kind ("file", "package") → import links
    files_with_parse_errors: int
    unresolved_reasons: dict[str, int] = field(default_factory=dict)  # reason → calls


@dataclass(slots=True)
class StoredClaim:
    """A claim as stored, with the state of the session holding it (None when that session
    is gone), and its version: every write of the claim increments it, so a compare-and-set
    can tell whether anything changed since it was read."""

    claim: Claim
    version: int
    holder: AgentSession | None


@dataclass(slots=True)
class PairCount:
    """A co-change pair (`a < b`: paths for files, symbol ids for symbols) with how often the
    two changed together and how often each changed: what a weight is computed from."""

    a: str
    b: str
    count: int
    changes_a: int
    changes_b: int
    # the store's own handle on the pair (a row id, a relationship's element id), to write
    # its weight back without looking it up again; valid while the pairs do not change
    ref: object = None


@dataclass(slots=True)
class PairWeight:
    a: str
    b: str
    weight: float
    ref: object = None  # PairCount.ref, when the weight was computed from one


CoChangeLevel = Literal["file", "symbol"]
SymbolKey = Literal["id", "qualname", "name"]

# what every TrackingStore and TeamStore accepts, the same on every backend
TRACKED_FIELDS: tuple[str, ...] = tuple(TrackedRepo.__dataclass_fields__)
DELIVERY_DAYS = 7  # how long a webhook delivery id is remembered
ACTIVITY_KINDS = ("READ", "EDITED")


def check_tracked_fields(fields: Iterable[str]) -> None:
    """ValueError unless every name is an updatable field of a tracked repository."""
    names = set(fields)
    unknown = names - set(TRACKED_FIELDS) | ({"name"} & names)
    if unknown:
        raise ValueError(f"not a field of a tracked repository: {sorted(unknown)}")


def check_activity_kind(kind: str) -> None:
    if kind not in ACTIVITY_KINDS:
        raise ValueError(f"activity {kind!r}: READ or EDITED")


# --------------------------------------------------------------------------------- interfaces


class RepoCatalog(Protocol):
    """Repository records: the indexed commit, the index format, the history state."""

    def upsert_repo(self, repo: Repo) -> None:
        """Write a repository's record; the history fields (`mined_sha`, `codeowners`) are
        written by `HistoryStore.set_history_state` only."""
        ...

    def get_repo(self, name: str) -> Repo | None: ...
    def list_repos(self) -> list[Repo]: ...

    def set_manifest(self, manifest: Manifest) -> None:
        """Record a repository's package identity (replacing what it had)."""
        ...

    def manifests(self) -> dict[str, Manifest]:
        """Every repository's package identity, by repository."""
        ...

    def delete_repo(self, name: str) -> None:
        """Forget a repository: its record, graph, index bookkeeping and history — whatever
        of them is stored, with a record or without (what a first index killed midway leaves).
        Never its index lock (the caller may hold it: an index run rebuilding the repository)."""
        ...


class IndexWriter(Protocol):
    """What an index run reads back and writes: locks, file states, cached facts, per-file
    writes (each file in one transaction), dependencies, pending names, skipped files,
    provided packages."""

    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool:
        """Take the repository's index lock, unless another owner holds it unexpired (a holder
        known to be dead can be named in `replacing`)."""
        ...

    def index_lock_holder(self, repo: str) -> str | None: ...
    def refresh_index_lock(self, repo: str, owner: str, ttl: float) -> None: ...
    def release_index_lock(self, repo: str, owner: str) -> None: ...

    def file_states(self, repo: str) -> dict[str, FileState]: ...
    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]: ...

    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None:
        """Write files in one transaction: each file's rows replace what it had before (a
        backend may write only the difference, as Neo4j does; the graph is the same)."""
        ...

    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None:
        """Replace the outgoing edges (and unresolved calls, imports, deps) of files whose
        content did not change."""
        ...

    def delete_files(self, repo: str, paths: Iterable[str]) -> None: ...

    def finish_run(self, repo: str) -> None:
        """After an index run's last write: tidy what the run left (placeholders)."""
        ...

    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None:
        """Record new (path, size, mtime_ns) of files whose content did not change."""
        ...

    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None: ...
    def skipped(self, repo: str) -> list[Skipped]: ...
    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None: ...

    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]:
        """The paths whose last resolution consulted any of these module names."""
        ...

    def dependents_across(self, modules: Iterable[str], besides: str) -> dict[str, set[str]]:
        """By indexed repository (other than `besides`), the paths whose last resolution
        consulted any of these names (the names a resolution records for what it looked up in
        other repositories: cartograph.index.crossrepo)."""
        ...

    # the flow stage (cartograph.index.flows)
    def flow_states(
        self, repo: str, paths: Iterable[str] | None = None
    ) -> dict[str, tuple[bytes | None, bytes | None]]:
        """(flow rows, derived edges) of every file that has either (of these files only,
        when paths are given), by path."""
        ...

    def edge_keys(self, repo: str, paths: Iterable[str]) -> dict[str, set[tuple[str, str, str]]]:
        """(type, src, dst) of the stored edges starting in each of these files."""
        ...

    def write_derived(self, repo: str, writes: list[DerivedWrite]) -> None:
        """Replace the derived edges of these files, in one transaction. A file's own writes
        (`write_files`, `write_edges`) keep its derived edges (vias in DERIVED_VIAS)."""
        ...

    # the services stage (cartograph.index.services)
    def http_rows(self, repo: str) -> dict[str, bytes]:
        """The marshalled HTTP rows of every file of the repository that has some, by path."""
        ...

    def service_listings(self) -> dict[str, tuple[str, str]]:
        """Every repository's routes and HTTP_CALLS edges as its services stage last wrote
        them (two JSON texts), by repository."""
        ...

    def write_services(self, repo: str, write: ServiceWrite) -> None:
        """Replace the repository's route symbols and ROUTES_TO edges (unless `routes` is
        None) and its HTTP_CALLS edges, with its listings, in one transaction: what goes is
        what `gone_routes` and `gone_calls` name. A file's own writes keep its route symbols
        and the service edges starting in it."""
        ...

    # module names whose dependents still need re-resolving (survives an interrupted run)
    def add_pending(self, repo: str, modules: Iterable[str]) -> None: ...
    def pending(self, repo: str) -> set[str]: ...
    def clear_pending(self, repo: str) -> None: ...


class GraphReader(Protocol):
    """Reads of the code graph: symbols, edges, files, unresolved calls, text matches,
    traversals, tallies and the export."""

    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]: ...

    def symbols_by(
        self, field: SymbolKey, value: str, repo: str | None, limit: int
    ) -> list[SymbolRow]:
        """The symbols whose id, qualname or name is exactly `value` (of one repository),
        shortest qualname first, then by qualname, repository and path."""
        ...

    def symbols_by_each(
        self, field: SymbolKey, values: Sequence[str], repo: str | None, limit: int
    ) -> dict[str, list[SymbolRow]]:
        """`symbols_by` for each of `values` in one read: each value (once) → its symbols,
        ordered and cut as `symbols_by` orders and cuts them."""
        ...

    def term_counts(
        self, terms: Sequence[Term], cap: int, fields: tuple[str, ...] = SYMBOL_TEXT_FIELDS
    ) -> dict[Term, int]:
        """How many symbols (of every repository) each term matches, counted up to `cap`:
        enough to tell a common word from a rare one without counting thousands of rows."""
        ...

    def search_texts(self, ids: Iterable[str]) -> dict[str, str]:
        """The searchable text of each of `ids` as the full-text index holds it (name,
        qualname, context and body, identifier-split words separated by spaces): what a
        ranking reads to tell which words of a query a candidate holds."""
        ...

    def match_symbols(
        self,
        match: TextMatch,
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[tuple[SymbolRow, float]]:
        """The symbols `match` selects: `ranked`, by BM25 over the weighted fields (higher is
        better; ties by qualname), else shortest qualname first with score 0."""
        ...

    def match_symbols_each(
        self,
        matches: Sequence[TextMatch],
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[list[tuple[SymbolRow, float]]]:
        """`match_symbols` for each of `matches` in one read, their answers in their order."""
        ...

    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]:
        """The `types` edges into ("in") or out of ("out") each of `ids`, grouped by id and
        ordered by the far end's place (repo, path, line); a page when `limit` is given."""
        ...

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        """The number of `types` edges into ("in") or out of each of `ids` (0 included)."""
        ...

    def edge_list(self, repo: str, types: Iterable[str]) -> list[tuple[str, str, str, str, float]]:
        """(src, dst, type, via, confidence) of every `types` edge whose source is in `repo`, in
        no order: the whole graph of a repository for a walk held in memory (impact)."""
        ...

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]: ...
    def symbols_in_files(self, repo: str, paths: Iterable[str]) -> dict[str, list[SymbolRow]]:
        """The symbols of each file, by line then name (one read for them all)."""
        ...

    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        """(start, end, id) of the symbols of these kinds, by path (for history mining)."""
        ...

    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        """All files, the files at `paths`, or the files under the folder `under`."""
        ...

    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]: ...
    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]: ...

    def open_ends(self, repo: str) -> list[Unresolved]:
        """The repository's unresolved rows through which code the graph does not see may
        call its symbols (`model.is_open_end`): calls whose callee may be one of the indexed
        repositories' symbols (kind "call", every reason but "external"), calls of outside
        code that may run the repository's code (kind "call", reason "external",
        `model.opens_the_repository`: a process it starts, the entry points it loads), and
        base classes from outside (kind "base": the base's code may call the class's methods;
        `external`, the module it comes from)."""
        ...

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        """(path, unresolved) whose name contains `name`, ignoring case (Python's
        `str.lower` on both sides, the same on every store)."""
        ...

    def dead_code_candidates(
        self, repo: str, path_prefix: str, kinds: Sequence[str], types: Sequence[str]
    ) -> list[tuple[SymbolRow, int]]:
        """The symbols of these kinds under a path prefix (by path and line), each with how
        many `types` edges from other symbols point at it."""
        ...

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        """(path, target kind, target, names) of every IMPORTS link."""
        ...

    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]: ...

    def repo_links(self, repo: str) -> tuple[dict[str, int], dict[str, int]]:
        """The edges (calls, references, inheritance) crossing between this repository and
        others: (outgoing by the repository they reach, incoming by the one they come from)."""
        ...

    def tallies(self, repo: str, target_name: str) -> Tallies:
        """Raw counts of a repository's graph; edges are also split by whether their target
        is named `target_name` (a rule above decides what that is for)."""
        ...

    def export(self, repo: str) -> Iterator[dict]:
        """Every node and relationship of a repository, as `store.export.export_graph`
        writes them (nothing when the repository is unknown)."""
        ...

    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]:
        """A breadth-first tree of edges from `root` (`store.traversal.trace`)."""
        ...

    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        """A shortest path of edges, the one whose ids sort first (`store.traversal`)."""
        ...


class HistoryStore(Protocol):
    """Commits, people, touches, co-change counts and the weights computed above the seam
    (`history/cochange.py`)."""

    def write_history(self, repo: str, batch: HistoryBatch) -> None:
        """Commits mined together, in one transaction: change counts and pair counts add up."""
        ...

    def history_orphans(self, repo: str) -> tuple[set[str], set[str]]:
        """Paths and symbol ids that hold history but are no longer in the index."""
        ...

    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]:
        """The symbol ids holding history whose id names one of `paths`, by path."""
        ...

    def remap_history(
        self, repo: str, files: dict[str, str | None], symbols: dict[str, str | None]
    ) -> None:
        """Re-key history to other paths / symbol ids, all at once (None: forget it)."""
        ...

    def clear_history(self, repo: str) -> None: ...

    def pair_counts(
        self, repo: str, level: CoChangeLevel, keys: Iterable[str] | None = None
    ) -> list[PairCount]:
        """Every co-change pair of the repository (files or symbols), or the pairs that hold
        one of `keys`, with the change counts of both ends."""
        ...

    def set_pair_weights(self, repo: str, level: CoChangeLevel, weights: list[PairWeight]) -> None:
        """Store the weights of existing pairs (as `pair_counts` named them)."""
        ...

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None: ...
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]: ...
    def symbol_history(self, symbol: str, limit: int, offset: int = 0) -> list[Touch]: ...

    def touches_under(self, repo: str, folder: str) -> list[Touch]:
        """Every touch of the files under a folder ("": the whole repository), with its
        author, newest first."""
        ...

    def file_touches(self, repo: str, paths: Iterable[str]) -> dict[str, list[Touch]]:
        """Every touch of each file, with its author, newest first (one read for them all:
        an impact asks for each file it changes)."""
        ...

    def cochanges(
        self, repo: str, paths: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        """Each file's partners in at least `min_count` commits, the `limit` heaviest (by
        weight, count, name), by file (one read for them all)."""
        ...

    def symbol_cochanges(
        self, symbols: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        """`cochanges` of symbols, by symbol id."""
        ...

    def history_stats(self, repo: str) -> dict: ...


class TeamStore(Protocol):
    """Agent sessions, claims, activity and lessons. The store persists; `agents/` decides
    (when a claim is free, which lessons apply to a path)."""

    def create_session(self, agent: str, task: str, at: str, owner: str = "") -> AgentSession: ...
    def get_session(self, session_id: int) -> AgentSession | None: ...
    def touch_session(self, session_id: int, at: str) -> None: ...

    def live_sessions(self, seen_since: str) -> list[AgentSession]:
        """The sessions not ended and last seen at or after `seen_since`, newest seen first."""
        ...

    def end_session(self, session_id: int, at: str) -> None:
        """Mark the session ended and drop its claims and its overlay."""
        ...

    def put_overlay(
        self, session: int, repo: str, path: str, content: bytes | None, at: str
    ) -> OverlayFile:
        """Keep the session's version of a file (None: it deleted it), replacing an earlier."""
        ...

    def overlay_files(self, session: int) -> list[OverlayFile]:
        """The session's overlay, by repository and path (no contents)."""
        ...

    def overlay_contents(self, session: int) -> dict[tuple[str, str], bytes | None]:
        """(repo, path) → the session's version of each file of its overlay (None: gone)."""
        ...

    def drop_overlay(self, session: int) -> int:
        """Forget a session's overlay; how many files it held."""
        ...

    def drop_stale_overlays(self, seen_before: str) -> int:
        """Forget the overlays of the sessions that ended or were last seen before then."""
        ...

    def current_claim(self, repo: str, path: str) -> StoredClaim | None:
        """The claim stored for a path (active or not), with its holder's session."""
        ...

    def put_claim(self, claim: Claim, expected: int | None) -> bool:
        """Compare-and-set: write `claim` (its agent and task are not stored) only if the
        path's stored claim is still the one read — absent (`expected` None) or at version
        `expected` — in one atomic step. False, writing nothing, when it changed: of any
        number of concurrent writers that read the same state, exactly one succeeds."""
        ...

    def renew_claims(self, session: int, expires_at: str) -> int:
        """Move the expiry of the session's claims forward to `expires_at` (each a write: its
        version grows); how many were renewed."""
        ...

    def release_path(self, repo: str, path: str, session: int) -> bool:
        """Drop the session's claim on a path; False when it held none."""
        ...

    def claims(self, repo: str | None) -> list[StoredClaim]:
        """Every stored claim (of one repository), active or not, ordered by repo and path."""
        ...

    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool:
        """Record that a session read ("READ") or edited ("EDITED") a path — indexed or not:
        an agent reads and creates files the index does not hold yet. True when recorded
        (False only when there is no such session)."""
        ...

    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]:
        """(repo, path, kind, at) of what a session read and edited, oldest first."""
        ...

    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson: ...

    def find_lessons(self, keys: list[str], words: list[str], limit: int) -> list[Lesson]:
        """Lessons with an `about` entry equal to one of `keys` (any lesson when `keys` is
        empty) whose text holds every word (ignoring case); newest first."""
        ...


class TokenStore(Protocol):
    """API tokens: only the SHA-256 of a token is kept."""

    def add_token(self, name: str, scopes: tuple[str, ...], digest: str, at: str) -> ApiToken:
        """A new token; ValueError when the name is taken."""
        ...

    def token_by_hash(self, digest: str) -> ApiToken | None: ...
    def list_tokens(self) -> list[ApiToken]: ...
    def revoke_token(self, name: str, at: str) -> bool: ...


class TrackingStore(Protocol):
    """Tracked repositories (push-triggered sync) and the webhook deliveries seen."""

    def track_repo(self, tracked: TrackedRepo) -> None: ...
    def get_tracked(self, name: str) -> TrackedRepo | None: ...
    def tracked_repos(self) -> list[TrackedRepo]: ...
    def update_tracked(self, name: str, **fields: object) -> None: ...
    def untrack_repo(self, name: str) -> None: ...

    def record_delivery(self, repo: str, delivery_id: str) -> bool:
        """True the first time a repository's delivery id is seen (then False, for days)."""
        ...

    def forget_delivery(self, repo: str, delivery_id: str) -> None:
        """Forget a delivery id (its push could not be queued: a redelivery must be taken)."""
        ...


@dataclass(slots=True)
class Coverage:
    """Runtime evidence of which tests ran which code, imported from a coverage data file."""

    source: str  # the data file and when it was imported
    commit: str  # the repository's indexed commit then
    tests: dict[str, set[str]]  # code symbol id → ids of the test symbols that ran it


class ImpactStore(Protocol):
    """What impact keeps: the coverage evidence of a repository and the reports of its pull
    requests."""

    def set_coverage(
        self, repo: str, source: str, commit: str, pairs: Iterable[tuple[str, str]]
    ) -> int:
        """Replace the repository's coverage with these (test id, code symbol id) pairs; the
        number stored."""
        ...

    def covering_tests(self, repo: str, symbol_ids: Iterable[str]) -> Coverage | None:
        """The tests recorded running each of `symbol_ids` (None: no coverage imported)."""
        ...

    def put_review(self, review: Review) -> None:
        """Store a pull request's report, replacing the one of the same number."""
        ...

    def get_review(self, repo: str, number: int) -> Review | None: ...

    def reviews(self, repo: str, limit: int) -> list[Review]:
        """The newest reports of a repository's pull requests, newest first."""
        ...

    def forget_impact(self, repo: str) -> None:
        """Delete a repository's coverage and reports."""
        ...


class Connection(Protocol):
    """A backend's connection: what the `Store` offers besides its interfaces."""

    url: str  # with credentials: forked workers reopen the store from it
    # whether several processes may write one repository at once (SQLite serializes them;
    # Neo4j writers would contend for the locks of the same hub nodes)
    concurrent_writers: bool

    def close(self) -> None: ...
    def schema_version(self) -> int: ...

    def generation(self) -> int:
        """A counter every write that can change an answer bumps in its own transaction (the
        answer cache's key: cartograph.query.answers); one cheap read."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class Store:
    """One opened store, composed of one implementation of each interface over one
    connection. Pass the whole store, or only the interface a function needs."""

    connection: Connection
    repos: RepoCatalog
    index: IndexWriter
    graph: GraphReader
    history: HistoryStore
    team: TeamStore
    tokens: TokenStore
    tracking: TrackingStore
    impact: ImpactStore

    @property
    def url(self) -> str:
        return self.connection.url

    @property
    def concurrent_writers(self) -> bool:
        return self.connection.concurrent_writers

    def close(self) -> None:
        self.connection.close()

    def answering(self) -> Store:
        """This store for one answer: its repository records and manifests read once, for
        as long as the answer holds the returned store (they change only by writes, which
        an answer does not make; a write through it forgets what was read). An impact of a
        10-file change asked for its repository's record 15 times (Neo4j: 5 ms a read)."""
        if isinstance(self.repos, _ReadOnce):
            return self
        return replace(self, repos=_ReadOnce(self.repos))

    def test_layouts(self) -> TestLayouts:
        """Which files and symbols are tests in each repository (cartograph.testlayout), read
        from the manifests once per store generation (a manifest is written in a transaction
        that bumps it) and shared by the process's threads."""
        generation = self.generation()
        with _LAYOUTS_LOCK:
            known = _LAYOUTS.get(self.url)
        if known is not None and known[0] == generation:
            return known[1]
        layouts = TestLayouts({repo: m.tests for repo, m in self.repos.manifests().items()})
        with _LAYOUTS_LOCK:
            _LAYOUTS[self.url] = (generation, layouts)  # by store: its newest generation
        return layouts

    def schema_version(self) -> int:
        return self.connection.schema_version()

    def generation(self) -> int:
        return self.connection.generation()


class _ReadOnce:
    """A RepoCatalog whose reads are kept (`Store.answering`)."""

    def __init__(self, catalog: RepoCatalog) -> None:
        self._catalog = catalog
        self._repos: dict[str, Repo | None] = {}
        self._listed: list[Repo] | None = None
        self._manifests: dict[str, Manifest] | None = None

    def get_repo(self, name: str) -> Repo | None:
        if name not in self._repos:
            self._repos[name] = self._catalog.get_repo(name)
        return self._repos[name]

    def list_repos(self) -> list[Repo]:
        if self._listed is None:
            self._listed = self._catalog.list_repos()
        return list(self._listed)

    def manifests(self) -> dict[str, Manifest]:
        if self._manifests is None:
            self._manifests = self._catalog.manifests()
        return dict(self._manifests)

    def upsert_repo(self, repo: Repo) -> None:
        self._forget()
        self._catalog.upsert_repo(repo)

    def set_manifest(self, manifest: Manifest) -> None:
        self._forget()
        self._catalog.set_manifest(manifest)

    def delete_repo(self, name: str) -> None:
        self._forget()
        self._catalog.delete_repo(name)

    def _forget(self) -> None:
        self._repos, self._listed, self._manifests = {}, None, None
