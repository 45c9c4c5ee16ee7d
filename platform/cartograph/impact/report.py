"""`impact`: what a change reaches, in one answer — the symbols it changes, what will break
(in every repository), what may be affected, the tests to run with their command lines, the
owners to ask and the co-changes it is missing, and a summary to read first."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cartograph import languages
from cartograph.errors import Invalid
from cartograph.history.cochange import cochange_score
from cartograph.impact.arguments import CallShape, call_shapes, still_binds
from cartograph.impact.graph import NAME_VIA, NOT_DISPATCHED, ReverseGraph, called_name
from cartograph.impact.reach import (
    Reached,
    direct_dependents,
    walk_back,
)
from cartograph.impact.source import Change, change_between, change_from_patch, commits_of
from cartograph.impact.symbols import (
    ChangedFile,
    ChangedSymbol,
    Sides,
    changed_files,
    changed_symbols,
    parameters,
    resolve_sides,
)
from cartograph.impact.tests import (
    DJANGO_RUNNER,
    TestCommand,
    TestToRun,
    commands,
    node_id,
    runner_of,
    test_unit,
)
from cartograph.index.services import compose_routes, file_rows, with_changed_rows
from cartograph.indexedfiles import files_here
from cartograph.model import SymbolRow
from cartograph.query import answers as answer_cache
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, check_repo
from cartograph.query.history import HALF_LIFE_DAYS, Target, files_owners, target_owners
from cartograph.resolve.values import PROTOCOL_METHOD_NAMES
from cartograph.store.interfaces import Store
from cartograph.testlayout import TEST_NAME_PREFIXES
from cartograph.turns import heavy_turn

TIME_BUDGET = 30.0  # seconds: reading the changed files stops then (a partial answer, said)
MAX_AFFECTED = 200  # may-be-affected symbols listed at most
MAX_TESTS = 2000  # tests listed at most (the command lines hold them all)
MAX_OWNER_AREAS = 12
MAX_MISSING = 15
MIN_MISSING_COUNT = 3  # a pair seen fewer times is not evidence of a habit
MIN_MISSING_SCORE = 0.2
COCHANGE_READ = 200  # partners read per changed file, ranked here by score
SEEDED = ("removed", "signature", "body", "moved")  # changes whose callers are reached
# the least confidence (percent) of a test's surest path to the change for it to be a test to
# run; those below are listed apart as "possibly reached". The safe default is every test the
# walk reaches (its floor, reach.WALK_FLOOR): a floor of 15 missed every failing test of 12 of
# 72 faults more on flask, for 16 points less of its suite (benchmark/testselect.py measures
# every floor; the budget mode ranks within a share instead: docs/impact.md)
MIN_TEST_CONFIDENCE = 5


@dataclass(slots=True)
class Budget:
    """The time one impact may take (`seconds` from `started`, by `clock`), and what it left
    out when it ran out (said first in the answer's summary)."""

    seconds: float = field(default_factory=lambda: TIME_BUDGET)
    clock: Callable[[], float] = time.monotonic
    started: float | None = None  # default: the clock when it is made
    cut: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.started is None:
            self.started = self.clock()

    def over(self) -> bool:
        """Whether the time is up."""
        assert self.started is not None
        return self.clock() >= self.started + self.seconds

    def spent(self, left: str) -> bool:
        """Whether the budget ran out; if so, the work stops with only `left` done (said)."""
        if not self.over():
            return False
        self.cut.append(f"PARTIAL: the time budget of {self.seconds:g} s ran out: only {left}")
        return True


@dataclass(slots=True)
class Break:
    caller: SymbolRow
    target: str  # the changed symbol's id
    target_qualname: str
    change: str  # removed, moved, signature
    why: str
    lines: list[int]
    edge: str  # CALLS, REFERENCES, INHERITS, IMPORTS
    crosses: bool
    # "breaks", or "check": a signature change whose call here cannot be judged (it passes
    # arguments on with * or **, or its source is not at hand)
    certainty: str = "breaks"


@dataclass(slots=True)
class Affected:
    symbol: SymbolRow
    depth: int
    confidence: float
    via: str
    reaches: str  # the changed symbol's qualname
    crosses: bool


@dataclass(slots=True)
class AreaOwners:
    repo: str
    area: str  # a file or folder
    why: str  # "changed", "will break", "tests"
    owners: list[tuple[str, str, float]]  # (email, name, share)
    codeowners: list[str]


@dataclass(slots=True)
class MissingCoChange:
    repo: str
    name: str  # a path, or a symbol's qualname
    level: str  # "file" or "symbol"
    with_: str  # the changed file or symbol it usually changes with
    count: int
    weight: float
    score: float


@dataclass(slots=True)
class Impact:
    repo: str
    base: str
    head: str
    summary: list[str]
    # "breaking", "affects tests", "unknown" (no test is reached, and the walk met open ends of
    # the graph: `open_ends`), "no reach" (none is, and the graph is complete on the way),
    # "nothing indexed changed"
    verdict: str
    files: list[ChangedFile]
    changed: list[ChangedSymbol]
    will_break: list[Break]
    updated_callers: int  # callers of removed or changed symbols the change updates itself
    may_be_affected: list[Affected]
    affected_total: int
    affected_by_repo: dict[str, int]
    tests: list[TestToRun]
    tests_total: int
    test_commands: list[TestCommand]
    possible_tests: list[TestToRun]  # reached only through paths less sure than the floor
    owners: list[AreaOwners]
    missing: list[MissingCoChange]
    evidence: dict[str, str]  # which answer came from which evidence
    notes: list[str] = field(default_factory=list)
    # what the walk met that may call the code it reached without an edge saying so, by why
    # (`model.UNKNOWN_REASONS`, and "protocol": a dunder method syntax runs): the tests behind
    # them are selected by name ("name" evidence), never a "no reach"
    open_ends: dict[str, int] = field(default_factory=dict)
    # callers of a changed signature whose every call still binds to it (not in will_break)
    binding_callers: int = 0
    format: str = "text"  # how its text is written: "text" (for agents) or "markdown"
    envelope: Envelope = field(default_factory=Envelope)


def impact(
    store: Store,
    repo: str,
    base: str | None = None,
    head: str | None = None,
    patch: str | None = None,
    limit: int = 50,
    format: str = "text",
    min_confidence: int = MIN_TEST_CONFIDENCE,
    data_dir: Path | None = None,
    budget: int | None = None,
) -> Impact:
    """The impact of the change from `base` to `head` (refs of the repository's history), or
    of `patch` (a unified diff against the indexed commit). `base` may be a range, `A..B` or
    `A...B`, with no `head`: the change from A to B (either way against their merge base, as
    a pull request shows it; an empty side is HEAD, as in git). Tests to run: every test
    reached at least `min_confidence` percent sure (safe), or with a `budget`, the most likely
    within that percentage of the suite."""
    clock = Budget()  # reading and applying the patch counts too
    store = store.answering()
    check_repo(store, repo)
    if patch is not None and (base or head):
        raise Invalid("give either a patch or --base and --head, not both")
    base, head = _sides(base, head)
    if patch is not None:
        change = change_from_patch(store, repo, patch, data_dir)
    elif base and head:
        commits = commits_of(store, repo, base, head, data_dir)
        folder = str(data_dir) if data_dir is not None else None
        given = (repo, base, head, *commits, limit, format, min_confidence, folder, budget)
        return answer_cache.answer(store, _impact_of_commits, *given)
    else:
        raise Invalid("give the change: --base REF --head REF (or --base REF..REF), or a patch")
    found = impact_of(store, change, limit, min_confidence, clock, budget)
    found.format = format
    return found


def _sides(base: str | None, head: str | None) -> tuple[str | None, str | None]:
    """`--base A..B` (or `A...B`) as `--base A --head B`; a ref name never holds `..`."""
    if not base or ".." not in base:
        return base, head
    left, _dots, right = base.partition("...") if "..." in base else base.partition("..")
    if head:
        raise Invalid(
            f"--base {base!r} is a range, and --head is given too: give --base A --head B, "
            "or the range alone (--base A..B)"
        )
    if ".." in right or ".." in left or not (left or right):
        raise Invalid(f"--base {base!r} is not a range of two refs: give --base A..B")
    return left or "HEAD", right or "HEAD"


@cacheable
def _impact_of_commits(
    store: Store,
    repo: str,
    base: str,
    head: str,
    base_commit: str,
    head_commit: str,
    limit: int,
    format: str,
    min_confidence: int,
    data_dir: str | None,
    share: int | None,
) -> Impact:
    """The impact of the change between two commits (named `base` and `head`): what git
    holds of a commit never changes, so the answer cache keeps it while the store does not."""
    clock = Budget()
    folder = Path(data_dir) if data_dir is not None else None
    change = change_between(store, repo, base, head, folder, (base_commit, head_commit))
    found = impact_of(store, change, limit, min_confidence, clock, share)
    found.format = format
    return found


def impact_of(
    store: Store,
    change: Change,
    limit: int = 50,
    min_confidence: int = MIN_TEST_CONFIDENCE,
    budget: Budget | None = None,
    share: int | None = None,
) -> Impact:
    """The report of a change, within a time budget (default TIME_BUDGET seconds from now):
    the files not read when it runs out are left out, and the answer says so first (a partial
    answer, never a hang). With a `share` (percent), the tests to run are the most likely
    within that share of the repository's suite (`within_share`). Computed in one of the
    process's turns for heavy questions (`turns.heavy_turn`): the time waited for the turn is
    not the budget's."""
    budget = budget or Budget()
    with heavy_turn(budget.clock) as waited:
        assert budget.started is not None
        budget.started += waited
        return _report(store.answering(), change, limit, min_confidence, budget, share)


def _report(
    store: Store,
    change: Change,
    limit: int,
    min_confidence: int,
    budget: Budget,
    share: int | None,
) -> Impact:
    repo = change.repo
    files = changed_files(store, change)
    notes = list(change.notes)
    for changed_file in files:
        if changed_file.note:
            notes.append(f"{changed_file.path}: {changed_file.note}")
    if change.patch.empty:
        notes.insert(0, "the diff is empty: nothing changes")
    sides = resolve_sides(store, change, budget.over) if change.old or change.new else Sides()
    if sides.unread:
        unread = set(sides.unread)
        for changed_file in files:
            if changed_file.path in unread:
                changed_file.indexed, changed_file.note = False, "not read: the time budget ran out"
        first = ", ".join(sides.unread[:5]) + (", …" if len(sides.unread) > 5 else "")
        budget.cut.append(
            f"PARTIAL: the time budget of {budget.seconds:g} s ran out: {len(sides.unread):,} of "
            f"{len(files):,} changed files were not read, and their symbols, callers and tests "
            f"are not in this report (give fewer files): {first}"
        )
    changed = changed_symbols(change, sides)
    graph = ReverseGraph(store, {repo: sides.states} if sides.states else None)
    will_break, updated, binding = _will_break(store, graph, changed, sides, change)
    seeds_rows = [sides.old[c.id] for c in changed if c.change in SEEDED and c.id in sides.old]
    walk = walk_back(graph, seeds_rows)
    if walk.stopped:
        notes.append("the walk back from the change stopped at its size limit")
    qualname_of = {c.id: c.qualname for c in changed}
    reached = sorted(walk.reached.values(), key=lambda r: (r.depth, -r.confidence, r.id))
    test_rows = _test_rows(store, graph, reached)
    tests_reached = [r for r in reached if r.id in test_rows]
    others = [r for r in reached if r.id not in test_rows]
    shown = store.graph.get_symbols(r.id for r in others[: min(limit, MAX_AFFECTED)])
    affected = [
        Affected(shown[r.id], r.depth, round(r.confidence, 3), r.via,
                 qualname_of.get(r.changed, r.changed), r.crosses)
        for r in others[: min(limit, MAX_AFFECTED)]
        if r.id in shown
    ]  # fmt: skip
    by_repo: dict[str, int] = {}
    for near in others:
        repo_of = near.id.partition(":")[0]
        by_repo[repo_of] = by_repo.get(repo_of, 0) + 1
    edited_tests = [
        (symbol, item.qualname)
        for item in changed
        if item.change != "removed"
        and (symbol := sides.new.get(item.moved_to or item.id) or sides.new.get(item.id))
        is not None
        and graph.layouts.is_test(symbol)
    ]
    seeded = [c.id for c in changed if c.change in SEEDED]
    reached_tests, evidence = _tests(
        store, repo, edited_tests, tests_reached, test_rows, qualname_of, seeded
    )
    if share is None:
        floor = min_confidence / 100
        tests = [t for t in reached_tests if t.confidence >= floor]
        possible = [t for t in reached_tests if t.confidence < floor]
    else:
        suite = graph.suite_size(repo)
        tests, possible = within_share(reached_tests, share, suite)
        notes.append(
            f"budget {share} %: the {len(tests):,} most likely of {len(reached_tests):,} tests "
            f"reached, within {share} % of a suite of {suite:,} (the others: possibly reached)"
        )
    test_commands = _commands(tests)
    owners = _owners_to_ask(store, repo, files, will_break, tests, budget)
    missing = _missing(store, repo, files, changed, budget)
    sure_breaks = any(b.certainty == "breaks" for b in will_break)
    verdict = (
        "breaking" if sure_breaks
        else "unknown" if will_break  # callers to check, none sure to break
        else "affects tests" if tests
        else "unknown" if changed and walk.open_ends
        else "no reach" if changed
        else "nothing indexed changed"
    )  # fmt: skip
    answer = Impact(
        repo, change.base, change.head, [], verdict, files, changed, will_break, updated,
        affected, len(others), by_repo, tests[:MAX_TESTS],
        len(tests), test_commands, possible[:MAX_TESTS], owners, missing, evidence, notes,
        dict(sorted(walk.open_ends.items())), binding,
    )  # fmt: skip
    answer.summary = summarise(answer)
    if budget.cut:
        answer.summary[:0] = budget.cut
        answer_cache.not_kept()  # cut by the clock: asked again, it is computed again
    involved = [b.caller for b in will_break[:50]] + [a.symbol for a in answer.may_be_affected]
    answer.envelope = Freshness(store).envelope(involved, [repo], users_of=[repo])
    return answer


def _will_break(
    store: Store,
    graph: ReverseGraph,
    changed: list[ChangedSymbol],
    sides: Sides,
    change: Change,
) -> tuple[list[Break], int, int]:
    """Callers of removed and moved symbols and of signatures callers cannot keep — except
    those the change itself updates (their new version no longer needs the old one), and, for
    a signature, those whose every call still binds (`impact.arguments`); the breaks, how many
    callers the change updates, how many still bind."""
    for item in changed:
        if item.change == "removed" and item.kind == "method":
            inherited = _inherited_fallback(store, item, sides)
            if inherited:
                item.breaking, item.why = False, inherited
    breaking = [c for c in changed if c.breaking]
    dependents = direct_dependents(store, [c.id for c in breaking])
    for item in breaking:
        if item.change == "signature":
            # a call bound to a method this one overrides runs it on a subclass's instance
            dependents[item.id] = dependents.get(item.id, []) + _dispatched_calls(
                store, graph, item
            )
    sides.resolve_new(
        {
            row.other.path
            for rows in dependents.values()
            for row in rows
            if row.other.id in sides.old
        }
    )
    removed_ids = {c.id for c in changed if c.change == "removed"}
    found: list[Break] = []
    updated = binding = 0
    sources = _CallerSources(store, change, sides)
    for item in breaking:
        seen: set[str] = set()
        for row in dependents.get(item.id, []):
            caller: SymbolRow = row.other
            if caller.id in removed_ids or caller.id == item.id or caller.id in seen:
                continue
            seen.add(caller.id)
            if item.change == "signature" and (
                row.edge.type not in ("CALLS", "REFERENCES")
                or row.edge.via == "export"
                or (row.edge.type == "REFERENCES" and row.edge.via == "framework")
            ):
                # importing, re-exporting or subclassing keeps working, and so does using
                # what a framework made of the function (it calls the function its own way)
                continue
            judged = None
            if item.change == "signature" and row.edge.type == "CALLS":
                # its calls as the change leaves them: they bind (unaffected, or rewritten
                # with the change), fail, or cannot be told
                judged = _calls_bind(sources, caller, row.edge.lines, item, row.edge.via)
            touched = caller.id in sides.old
            if judged is True and touched and _rewritten(caller, item, row.edge.lines, sides):
                updated += 1
                continue
            if judged is True:
                binding += 1
                continue
            if judged is None and touched and not _still_needs(caller.id, item, sides):
                updated += 1
                continue
            why = {
                "removed": f"{item.qualname} is removed",
                "moved": f"{item.qualname} moved to {item.moved_to}",
                "signature": f"{item.qualname}: {item.why}",
            }[item.change]
            certainty = "breaks"
            if item.change == "signature" and row.edge.type == "CALLS" and judged is None:
                certainty = "check"
                why += " (its arguments here cannot be judged: check it)"
            crosses = caller.repo != item.repo
            found.append(
                Break(caller, item.id, item.qualname, item.change, why, row.edge.lines,
                      row.edge.type, crosses, certainty)
            )  # fmt: skip
        if item.change == "signature":
            for caller, lines in _open_calls_naming(store, graph, item, seen):
                if _calls_bind(sources, caller, lines, item, "") is True:
                    continue
                why = (
                    f"{item.qualname}: {item.why} (a call of {item.qualname.rpartition('.')[2]} "
                    "on a value the graph does not know: check it)"
                )
                found.append(Break(caller, item.id, item.qualname, item.change, why, lines,
                                   "CALLS", caller.repo != item.repo, "check"))  # fmt: skip
    found += _route_breaks(store, found, sides)
    found.sort(key=lambda b: (not b.crosses, b.caller.repo, b.caller.path, b.lines[:1]))
    return found, updated, binding


def _open_calls_naming(
    store: Store, graph: ReverseGraph, item: ChangedSymbol, seen: set[str]
) -> list[tuple[SymbolRow, list[int]]]:
    """The callers (not in `seen`) whose unresolved calls name the changed function
    (`processor.run(...)` on a value the graph does not know), with the lines; not for a name
    the built-in types' methods have too (`.get`: most likely theirs)."""
    name = item.qualname.rpartition(".")[2]
    if name in PROTOCOL_METHOD_NAMES or name.startswith("__"):
        return []
    sources = {
        src
        for src, via, why, _sure in graph.open_callers(item.id)
        if via == NAME_VIA and why != "computed-name"
    } - seen
    lines: dict[str, list[int]] = {}
    for call in store.graph.unresolved_of(sorted(sources)):
        if call.kind == "call" and called_name(call.name) == name:
            lines.setdefault(call.src, []).append(call.line)
    callers = store.graph.get_symbols(lines)
    return [(callers[src], sorted(set(at))) for src, at in lines.items() if src in callers]


def _dispatched_calls(store: Store, graph: ReverseGraph, item: ChangedSymbol) -> list:
    """The calls (EdgeRows) bound to the methods a changed method overrides."""
    owner, _, name = item.id.rpartition(".")
    if item.kind != "method" or name in NOT_DISPATCHED or "#" not in owner:
        return []
    bases = graph.ancestors(owner)
    methods = [s.id for s in store.graph.get_symbols(f"{b}.{name}" for b in bases).values()]
    return [
        row
        for row in store.graph.edges_of(methods, "in", ["CALLS"])
        if row.other is not None and row.other.id != item.id
    ]


class _CallerSources:
    """Callers as the change leaves them: in a file the change touches, its new version (every
    call of the function in the caller's new lines); elsewhere the file as indexed — from the
    work tree it was indexed from when that is on this host, else at the indexed commit (the
    calls at the edge's lines), read once each."""

    def __init__(self, store: Store, change: Change, sides: Sides) -> None:
        self.store = store
        self.new_files = change.new
        self.data_dir = change.data_dir
        self.sides = sides
        self.texts: dict[tuple[str, str], list[str] | None] = {}

    def caller(self, caller: SymbolRow, lines: list[int]) -> tuple[SymbolRow, list[int]] | None:
        """The caller and the lines of its calls as the change leaves them."""
        if caller.path not in self.new_files:
            return caller, lines
        after = self.sides.new.get(caller.id)
        if after is None:
            return None
        return after, list(range(after.start_line, after.end_line + 1))

    def lines(self, repo: str, path: str) -> list[str] | None:
        key = (repo, path)
        if key not in self.texts:
            if path in self.new_files:
                data = self.new_files[path]
            else:
                data = self._indexed(repo, path)
            self.texts[key] = data.decode("utf-8", "replace").splitlines() if data else None
        return self.texts[key]

    def _indexed(self, repo: str, path: str) -> bytes | None:
        record = self.store.repos.get_repo(repo)
        if record is None:
            return None
        try:
            return files_here(self.store, record, [path], self.data_dir)[0][path]
        except Invalid:
            return None


def _calls_bind(
    sources: _CallerSources, caller: SymbolRow, lines: list[int], item: ChangedSymbol, via: str
) -> bool | None:
    """Whether every call of the changed function at `lines` of `caller` binds to its new
    signature: True, False, or None when that cannot be told (not Python, its source not at
    hand, its call not found, or arguments passed on). A decorator is called with the
    function it decorates."""
    if languages.language_of(caller.path) != "python":
        return None
    old_parameters = parameters(item.old_signature)
    new_parameters = parameters(item.new_signature)
    if old_parameters is None or new_parameters is None:
        return None
    if via == "decorator":
        return still_binds(CallShape(1, (), False), old_parameters, new_parameters)
    located = sources.caller(caller, lines)
    if located is None or not lines:
        return None
    caller, lines = located
    text = sources.lines(caller.repo, caller.path)
    if text is None:
        return None
    owner, _, name = item.qualname.rpartition(".")
    if name == "__init__":
        name = owner.rpartition(".")[2]  # constructed by the class's name
    source = "\n".join(text[caller.start_line - 1 : caller.end_line])
    shapes = call_shapes(source, caller.start_line, lines, name)
    if not shapes or (caller.path not in sources.new_files and len(shapes) < len(set(lines))):
        return None  # a call not written as `name(...)` (an alias, a callback): not judged
    results = [still_binds(shape, old_parameters, new_parameters) for shape in shapes]
    if any(result is False for result in results):
        return False
    return None if any(result is None for result in results) else True


def _route_breaks(store: Store, found: list[Break], sides: Sides) -> list[Break]:
    """The requests a change leaves without their route: routes the change removes or moves
    (a new path, method or prefix: the new side's routes composed again from the changed
    files' HTTP rows and the stored others'), and routes whose handler breaks. Each request
    reaching one, in any indexed repository, breaks."""
    versions = sides.versions
    lost: dict[str, str] = {}  # route id → why
    if versions is not None:
        repo = versions.repo
        stored = file_rows(store, repo)
        # only files that had HTTP rows or whose new facts may make some (requests, routers,
        # an OpenAPI document's operations) are resolved again: the others' rows are none
        # either side (resolving every changed file was half of a 10-file impact's time)
        serving = {
            path
            for path, parsed in versions.fresh.items()
            if (facts := parsed.facts).get("http") or facts.get("routes")
        }
        touched = ((set(versions.fresh) | versions.gone) & set(stored)) | serving
        if touched:
            made = versions.http_rows(touched & set(versions.fresh))
            changed = {path: made.get(path) for path in touched}
            rows = with_changed_rows(stored, changed)
            tests = store.test_layouts().of(repo)
            after = {c.route.id for c in compose_routes(repo, rows, tests)}
            for composed in compose_routes(repo, stored, tests):
                if composed.route.id not in after:
                    name = composed.route.id.rpartition("#")[2]
                    lost[composed.route.id] = f"route {name} is removed or moved"
    for item in found:
        if item.caller.kind == "route" and item.edge == "ROUTES_TO":
            lost.setdefault(item.caller.id, f"{item.caller.name}: {item.why}")
    if not lost:
        return []
    breaks = []
    for row in store.graph.edges_of(sorted(lost), "in", ["HTTP_CALLS"]):
        if row.other is None:
            continue
        route = row.edge.dst
        breaks.append(
            Break(row.other, route, route.rpartition("#")[2], "removed", lost[route],
                  row.edge.lines, "HTTP_CALLS", row.other.repo != route.partition(":")[0])
        )  # fmt: skip
    return breaks


def _rewritten(caller: SymbolRow, item: ChangedSymbol, lines: list[int], sides: Sides) -> bool:
    """Whether the change rewrote a caller's calls of the changed symbol (every line of them,
    on the new side)."""
    after = sides.new.get(caller.id)
    if after is None:
        return False
    edited = sides.added_lines.get(after.path, set())
    new_lines = [
        line
        for edge in sides.new_edges.get(caller.id, [])
        if edge.dst == item.id
        for line in edge.lines
    ] or lines
    return bool(edited) and set(new_lines) <= edited


def _still_needs(caller_id: str, item: ChangedSymbol, sides: Sides) -> bool:
    """Whether the new version of a caller the change touches still calls the changed symbol
    the old way: it is gone too (then no), it calls the new place of a moved symbol (no), its
    calls of a changed signature are all on lines the change rewrote (no: updated with it), or
    it still names a removed symbol in a call the resolver cannot bind any more (yes)."""
    if caller_id not in sides.new:
        return False
    name = item.qualname.rpartition(".")[2]
    if item.change == "moved":
        return not any(e.dst == item.moved_to for e in sides.new_edges.get(caller_id, []))
    if item.change == "signature":  # still calls it, from lines the change left as they were
        path = sides.new[caller_id].path
        edited = sides.added_lines.get(path, set())
        return any(
            e.dst == item.id and not set(e.lines) <= edited
            for e in sides.new_edges.get(caller_id, [])
        )
    # a name the resolver can no longer bind, unless it now comes from outside (a local class
    # replaced by an import of a library's)
    return any(
        call.name.rpartition(".")[2] == name and not call.external
        for call in sides.new_unresolved.get(caller_id, [])
    ) or any(e.dst == item.id for e in sides.new_edges.get(caller_id, []))


def _inherited_fallback(store: Store, item: ChangedSymbol, sides: Sides) -> str:
    """Why callers of a removed method keep working ("" when they may not): its class stays,
    and a base class defines the same name (a base outside the repository may)."""
    class_id = item.id.rpartition(".")[0]
    if class_id not in sides.new or sides.new[class_id].kind != "class":
        return ""
    name = item.qualname.rpartition(".")[2]
    bases = [r.edge.dst for r in store.graph.edges_of([class_id], "out", ["INHERITS"])]
    for method in store.graph.members(bases, name) if bases else []:
        if method.kind == "method":
            return f"the inherited {method.qualname} remains"
    if any(u.kind == "base" for u in store.graph.unresolved_of([class_id])):
        return f"a base class outside the repository may define {name}"
    return ""


def _test_rows(store: Store, graph: ReverseGraph, reached: list[Reached]) -> dict[str, SymbolRow]:
    """The tests among the reached symbols. Python and Go tests are told by their id (a
    `test*`/`Test*` function of a test file, which the walk's graph lists); for other
    languages the symbols of test files are read and asked."""
    found: dict[str, SymbolRow] = {}
    unknown: list[str] = []
    test_language: dict[str, str | None] = {}  # by path: its language, None: not a test file
    test_name: dict[tuple[str, str, str], bool] = {}  # (repo, language, name): named as a test
    for step in reached:
        repo, _, rest = step.id.partition(":")
        path, _, qualname = rest.rpartition("#")
        if path not in test_language:
            test_language[path] = (
                (languages.language_of(path) or "")
                if graph.layouts.is_test_file(repo, path)
                else None
            )
        language = test_language[path]
        if language is None:
            continue
        if graph.is_generated_test_class(step.id):
            found[step.id] = SymbolRow(step.id, repo, path, qualname.rpartition(".")[2],
                                       qualname, "class", 0, 0, "", "", False, None)  # fmt: skip
        elif language in TEST_NAME_PREFIXES:
            name = qualname.rpartition(".")[2]
            key = (repo, language, name)
            if key not in test_name:
                test_name[key] = graph.layouts.of(repo).is_test_name(language, name)
            if test_name[key] and graph.is_test_function(step.id):
                found[step.id] = SymbolRow(step.id, repo, path, name, qualname, "function",
                                           0, 0, "", "", False, None)  # fmt: skip
        else:
            unknown.append(step.id)
    for symbol_id, symbol in store.graph.get_symbols(unknown).items():
        if graph.layouts.is_test(symbol):
            found[symbol_id] = symbol
    return found


def tests_reaching(
    store: Store,
    repo: str,
    symbols: list[SymbolRow],
    min_confidence: int = MIN_TEST_CONFIDENCE,
) -> tuple[list[TestToRun], list[TestCommand]]:
    """The tests to run when `symbols` change (the same walk and evidence as `impact`, from
    symbols instead of a diff: what an agent's edit touched), and the commands that run them;
    computed in one of the process's turns for heavy questions, as `impact_of`."""
    with heavy_turn():
        return _tests_reaching(store.answering(), repo, symbols, min_confidence)


def _tests_reaching(
    store: Store, repo: str, symbols: list[SymbolRow], min_confidence: int
) -> tuple[list[TestToRun], list[TestCommand]]:
    graph = ReverseGraph(store)
    walk = walk_back(graph, symbols)
    reached = sorted(walk.reached.values(), key=lambda r: (r.depth, -r.confidence, r.id))
    rows = _test_rows(store, graph, reached)
    found, _evidence = _tests(
        store,
        repo,
        [(s, s.qualname) for s in symbols if graph.layouts.is_test(s)],
        [r for r in reached if r.id in rows],
        rows,
        {s.id: s.qualname for s in symbols},
        [s.id for s in symbols],
    )
    tests = [t for t in found if t.confidence >= min_confidence / 100]
    tests.sort(key=lambda t: (t.depth, -t.confidence, t.node))
    return tests, _commands(tests)


def _tests(
    store: Store,
    repo: str,
    edited: list[tuple[SymbolRow, str]],
    reached: list[Reached],
    rows: dict[str, SymbolRow],
    qualname_of: dict[str, str],
    seeded: list[str],
) -> tuple[list[TestToRun], dict[str, str]]:
    """The tests that reach the changed code (`seeded`: statically, and by recorded coverage),
    and the tests the change adds or edits (`edited`, with the qualname they are listed
    under)."""
    found: dict[str, TestToRun] = {}
    manifests = store.repos.manifests()
    repo_files: dict[str, set[str]] = {}
    runners: dict[tuple[str, str], str] = {}  # by (repo, path)

    modules: dict[tuple[str, str], str] = {}
    by_repo: dict[str, set[str]] = {}
    for row in rows.values():
        by_repo.setdefault(row.repo, set()).add(row.path)
    for repo, paths in by_repo.items():  # the test files' module names, one read per repository
        for path, record in store.graph.files(repo, sorted(paths)).items():
            modules[(repo, path)] = record.module

    def module_of(symbol: SymbolRow) -> str:
        key = (symbol.repo, symbol.path)
        if key not in modules:
            record = store.graph.files(symbol.repo, [symbol.path]).get(symbol.path)
            modules[key] = record.module if record is not None else ""
        return modules[key]

    def add(
        symbol: SymbolRow, depth: int, evidence: str, reaches: str, confidence: float = 1.0
    ) -> None:
        qualname, unit_id = test_unit(symbol, module_of(symbol))
        known = found.get(unit_id)
        if known is not None:
            if evidence not in known.evidence.split("+"):
                known.evidence = "+".join(sorted({*known.evidence.split("+"), evidence}))
            known.depth = min(known.depth, depth)
            known.confidence = max(known.confidence, round(confidence, 3))
            return
        runner = runners.get((symbol.repo, symbol.path))
        if runner is None:
            if symbol.repo not in repo_files:
                repo_files[symbol.repo] = set(store.graph.files(symbol.repo, [DJANGO_RUNNER]))
            runner = runners[(symbol.repo, symbol.path)] = runner_of(
                symbol.path, manifests.get(symbol.repo), repo_files[symbol.repo]
            )
        found[unit_id] = TestToRun(
            symbol.repo, symbol.path, qualname, unit_id, node_id(runner, symbol.path, qualname),
            runner, depth, evidence, reaches, round(confidence, 3),
        )  # fmt: skip

    for symbol, qualname in edited:
        add(symbol, 0, "changed", qualname)
    for step in reached:
        reaches = qualname_of.get(step.changed, step.changed)
        add(rows[step.id], step.depth, step.evidence, reaches, step.confidence)
    evidence = {"tests": "static call graph (calls, callbacks, fixtures, dispatch)"}
    if any(step.by_import for step in reached):
        evidence["tests"] += "; imports of the module-level code it reached"
    if any(step.by_name for step in reached):
        evidence["tests"] += (
            "; by name where the graph is open (unresolved calls naming what it reached, "
            "methods run by syntax or by a base class from outside, tests starting a process)"
        )
    covered = store.impact.covering_tests(repo, seeded)
    if covered is not None:
        evidence["tests"] += " and recorded coverage (" + covered.source + ")"
        tests = store.graph.get_symbols({t for ts in covered.tests.values() for t in ts})
        for code_id, test_ids in covered.tests.items():
            for test_id in test_ids:
                covering = tests.get(test_id)
                if covering is not None:
                    add(covering, 1, "coverage", qualname_of.get(code_id, code_id))
    ordered = sorted(found.values(), key=lambda t: (t.repo, t.path, t.qualname))
    return ordered, evidence


def within_share(
    reached: list[TestToRun], share: int, suite: int
) -> tuple[list[TestToRun], list[TestToRun]]:
    """The tests to run within `share` percent of a suite of `suite` tests: the tests the
    change edits, then the surest, nearest first; and the rest (possibly reached)."""
    room = max(1, math.ceil(suite * share / 100)) if share > 0 else 0
    ranked = sorted(
        reached, key=lambda t: (t.evidence != "changed", -t.confidence, t.depth, t.node)
    )
    chosen = ranked[:room]
    kept = {id(t) for t in chosen}
    ordered = [t for t in reached if id(t) in kept]  # in the report's order (by path)
    return ordered, [t for t in reached if id(t) not in kept]


def _commands(tests: list[TestToRun]) -> list[TestCommand]:
    grouped: dict[tuple[str, str], list[str]] = {}
    for test in tests:
        grouped.setdefault((test.repo, test.runner), []).append(test.node)
    return [
        commands(repo, runner, sorted(dict.fromkeys(nodes)))
        for (repo, runner), nodes in sorted(grouped.items())
    ]


def _owners_to_ask(
    store: Store,
    repo: str,
    files: list[ChangedFile],
    will_break: list[Break],
    tests: list[TestToRun],
    budget: Budget | None = None,
) -> list[AreaOwners]:
    """Who knows the changed files, and — in other repositories — the code that will break
    (asked while the time budget lasts)."""
    areas: list[tuple[str, str, str, str]] = []  # (repo, kind, path, why)
    for item in files:
        if item.indexed and item.old_path:
            areas.append((repo, "file", item.old_path, "changed"))
    for broken in will_break:
        if broken.crosses:
            areas.append((broken.caller.repo, "file", broken.caller.path, "will break"))
    for test in tests:
        if test.repo != repo:
            areas.append((test.repo, "file", test.path, "tests"))
    # the history of the files asked first (most give owners), read at once per repository
    first = list(dict.fromkeys((area_repo, path) for area_repo, _k, path, _w in areas))
    asked: dict[str, list[str]] = {}
    for area_repo, path in first[: MAX_OWNER_AREAS * 2]:
        asked.setdefault(area_repo, []).append(path)
    owners = {
        (area_repo, answer.target.path): answer
        for area_repo, paths in asked.items()
        for answer in files_owners(store, area_repo, paths, 3, HALF_LIFE_DAYS)
    }
    seen: set[tuple[str, str]] = set()
    found: list[AreaOwners] = []
    for done, (area_repo, kind, path, why) in enumerate(areas):
        if (area_repo, path) in seen or len(found) >= MAX_OWNER_AREAS:
            continue
        if budget and budget.spent(f"owners were asked for {done:,} of {len(areas):,} files"):
            break
        seen.add((area_repo, path))
        answer = owners.get((area_repo, path)) or target_owners(
            store, Target(kind, area_repo, path), 3, HALF_LIFE_DAYS
        )
        people = [(o.email, o.name, o.share) for o in answer.owners if not o.bot]
        if people or answer.codeowners:
            found.append(AreaOwners(area_repo, path, why, people, answer.codeowners))
    return found


def _missing(
    store: Store,
    repo: str,
    files: list[ChangedFile],
    changed: list[ChangedSymbol],
    budget: Budget | None = None,
) -> list[MissingCoChange]:
    """Files (and symbols) that usually change with the changed ones but are not in the diff,
    ranked by a score that trusts a pair seen often over one seen twice (read while the time
    budget lasts)."""
    in_diff = {p for f in files for p in (f.path, f.old_path) if p}
    best: dict[tuple[str, str], MissingCoChange] = {}
    partners_of = store.history.cochanges(  # one read for every file
        repo,
        [item.old_path for item in files if item.old_path and item.indexed],
        MIN_MISSING_COUNT,
        COCHANGE_READ,
    )
    for done, item in enumerate(files):
        if not item.old_path or not item.indexed:
            continue
        if budget and budget.spent(f"co-changes were read for {done:,} of {len(files):,} files"):
            return sorted(best.values(), key=lambda m: (-m.score, -m.count, m.name))[:MAX_MISSING]
        for partner in partners_of[item.old_path]:
            if partner.other in in_diff:
                continue
            score = cochange_score(partner.count, partner.weight)
            key = ("file", partner.other)
            if score >= MIN_MISSING_SCORE and (key not in best or best[key].score < score):
                best[key] = MissingCoChange(repo, partner.other, "file", item.old_path,
                                            partner.count, partner.weight, score)  # fmt: skip
    changed_ids = {c.id for c in changed}
    asked = [c for c in changed if c.change in ("body", "signature")][:20]
    found = store.history.symbol_cochanges(
        [symbol.id for symbol in asked], MIN_MISSING_COUNT, COCHANGE_READ
    )
    symbols = store.graph.get_symbols(c.other for partners in found.values() for c in partners)
    for symbol in asked:
        for partner in found[symbol.id]:
            other = symbols.get(partner.other)
            if other is None or partner.other in changed_ids or other.path in in_diff:
                continue
            score = cochange_score(partner.count, partner.weight)
            key = ("symbol", other.id)
            if score >= MIN_MISSING_SCORE and (key not in best or best[key].score < score):
                best[key] = MissingCoChange(repo, f"{other.path}:{other.qualname}", "symbol",
                                            symbol.qualname, partner.count, partner.weight, score)  # fmt: skip
    ranked = sorted(best.values(), key=lambda m: (-m.score, -m.count, m.name))
    return ranked[:MAX_MISSING]


def summarise(answer: Impact) -> list[str]:
    """A few lines an agent or a reviewer reads first."""
    lines = []
    kinds: dict[str, int] = {}
    for item in answer.changed:
        kinds[item.change] = kinds.get(item.change, 0) + 1
    indexed = sum(1 for f in answer.files if f.indexed)
    detail = ", ".join(f"{n} {k}" for k, n in kinds.items())
    lines.append(
        f"{_count(len(answer.files), 'file')} changed ({indexed} indexed), "
        f"{_count(len(answer.changed), 'symbol')}" + (f": {detail}" if detail else "")
    )
    sure = [b for b in answer.will_break if b.certainty == "breaks"]
    checks = len(answer.will_break) - len(sure)
    if sure:
        repos = sorted({b.caller.repo for b in sure})
        lines.append(
            f"WILL BREAK: {_count(len(sure), 'caller')} in {len(repos)} "
            f"repositor{'y' if len(repos) == 1 else 'ies'} ({', '.join(repos)})"
            + (f"; {checks} more to check" if checks else "")
        )
    elif checks:
        lines.append(
            f"UNKNOWN whether {_count(checks, 'caller')} still work: their arguments cannot be "
            "judged (passed on with * or **, or not written as a plain call): check them"
        )
    if answer.binding_callers:
        lines.append(
            f"{_count(answer.binding_callers, 'caller')} of the changed signatures still "
            "bind (their arguments fit it): unaffected"
        )
    if not answer.will_break and answer.updated_callers:
        lines.append(f"no caller left broken ({answer.updated_callers} updated by the change)")
    if answer.affected_total:
        spread = ", ".join(f"{r} {n}" for r, n in sorted(answer.affected_by_repo.items()))
        lines.append(f"may be affected: {answer.affected_total} symbols ({spread})")
    if answer.tests_total:
        repos = sorted({t.repo for t in answer.tests})
        possibly = f" (and {len(answer.possible_tests)} possibly)" if answer.possible_tests else ""
        lines.append(f"tests to run: {answer.tests_total} in {', '.join(repos)}{possibly}")
    elif answer.changed and answer.open_ends:
        lines.append(
            "UNKNOWN whether a test reaches the changed code: the graph is open on the way "
            f"({_open_ends(answer.open_ends)}) and no test was found behind it"
        )
    elif answer.changed:
        lines.append("no test reaches the changed code (the graph is complete on the way)")
    if answer.owners:
        first = [o for area in answer.owners for o in area.owners][:3]
        names = sorted({name or email for email, name, _share in first})
        if names:
            lines.append("ask: " + ", ".join(names))
    if answer.missing:
        top = answer.missing[0]
        lines.append(
            f"usually changes with it, missing: {top.name} (together {top.count} times)"
            + (f" and {len(answer.missing) - 1} more" if len(answer.missing) > 1 else "")
        )
    return lines


def _open_ends(open_ends: dict[str, int]) -> str:
    """`{"parameter": 2, "protocol": 1}` → "2 calls on parameters, 1 dunder method run by
    syntax"."""
    said = {
        "protocol": ("dunder method run by syntax", "dunder methods run by syntax"),
        "parameter": ("call on a parameter", "calls on parameters"),
        "unknown-value": ("call on a value of unknown type", "calls on values of unknown type"),
        "computed-name": ("getattr call by a computed name", "getattr calls by computed names"),
        "plugin-hook": ("plugin hook call", "plugin hook calls"),
        "external-base": (
            "method a base class from outside may call",
            "methods base classes from outside may call",
        ),
        "subprocess": ("test starting a process", "tests starting a process"),
        "generated": (
            "test class whose tests are made at run time",
            "test classes whose tests are made at run time",
        ),
    }
    parts = []
    for reason, count in sorted(open_ends.items(), key=lambda item: (-item[1], item[0])):
        one, many = said.get(
            reason, (f"unresolved call ({reason})", f"unresolved calls ({reason})")
        )
        parts.append(f"{count} {one if count == 1 else many}")
    return ", ".join(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
