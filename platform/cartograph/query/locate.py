"""locate: the text of a task or bug report → where to look (functions and methods with their
lines, their files, the tests that exercise them), ranked without a language model.

How (docs/agents.md has the measurements behind each choice):

1. The words of the text (`identifiers.split_words`), less stop words — English ones and the
   words reports are written in ("fixed", "issue", "when", "should") — and less numbers. The
   title (the first line, or the first sentence) counts twice.
2. BM25 over the symbols' names (name, qualified name, path and docstring) and, on its own, over
   their bodies (identifiers, strings and comments of the lines each holds: `symbol_bodies`),
   summed with weights; a word with an ending is matched by its stem as a prefix. Words that
   occur in the bodies of more than COMMON_BODY symbols tell nothing and are left out; the
   candidates come from the title's words and the MATCH_WORDS rarest others (a long report's
   many common words would have each match score most of a large repository's bodies), the
   title's words repeated so that they count twice.
3. Tests, examples, documentation code and vendored copies of other projects never fill the
   list (their names repeat the report's words); tests are found for the functions instead, as
   callers in test files.
4. A method gains a share of its class's score (the report names the class). The best RERANK
   are ranked again by their score times the share of the text's words (weighted by rarity)
   each holds, to the power COVERAGE_POWER: a function holding most of a report's words beats
   one holding one of them many times.
5. A top hit that is a thin wrapper (a few lines, one call) gets the function it wraps on its
   own line.
6. What the text names in code (`query.tasktext`): the functions of the frames of a traceback
   it quotes, the innermost the most, and the names it writes as code gain a share of the best
   score. A text over READ_LIMIT characters is read up to it, then only its lines naming code.
   Files rank by their best location.
7. A confidence from how much of the text the best locations hold and how many words it has;
   below MIN_CONFIDENCE the map is empty — an empty map beats a wrong one.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from cartograph.identifiers import split_words
from cartograph.model import SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, check_repo
from cartograph.query.ranking import (
    COMMON_BODY,
    COMMON_TERM,
    body_counts,
    content_words,
    rare_words,
    word_term,
    word_terms,
)
from cartograph.query.tasktext import code_names, frames, readable
from cartograph.store.interfaces import (
    BODY_FIELDS,
    SYMBOL_TEXT_FIELDS,
    GraphReader,
    Store,
    Term,
    TextMatch,
)
from cartograph.testlayout import TestLayouts
from cartograph.turns import heavy_turn

CODE_KINDS = ("function", "method")  # what the map lists
LISTED_OUTSIDE = ("examples/", "example/", "docs/", "doc/", "benchmarks/", "benchmark/")
# copies of other projects a repository carries: a fix to the project is not made there
VENDORED = frozenset(
    {"_vendor", "vendor", "vendored", "_vendored", "third_party", "thirdparty", "node_modules"}
)
POOL = 300  # symbols asked of each text match
NAME_WEIGHT = 1.0  # BM25 over names (name 10, qualname 5, context 1 inside)
BODY_WEIGHT = 2.0  # BM25 over bodies
CLASS_GAIN = 0.2  # share of a class's score its methods gain (the report names the class)
FRAME_GAIN = 2.0  # share of the best text score the innermost frame of a quoted traceback gains
NAME_GAIN = 0.5  # share of the best text score a function the text names as code gains
AMBIGUOUS = 5  # a name written as code that this many functions bear names none of them
PHRASE_GAIN = 0.5  # share of the best score the functions whose bodies hold a named phrase gain
PHRASE_HOLDERS = 8  # a phrase more functions hold names none of them
PHRASE_POOL = 100  # bodies asked for a phrase (tests, examples and vendored copies among them)
NAME_COMMON = COMMON_TERM  # a word in more symbols' names and contexts is not matched there
MATCH_WORDS = 16  # the rarest words of a text that choose the candidates (the rest still weigh)
RERANK = 30  # best locations ranked again by how many of the text's words they hold
COVERAGE_POWER = 1.5
WALK_FROM = 5  # best matches looked at for thin wrappers
WALK_DEPTH = 2
WRAPPER_LINES = 6  # a function this short that makes one call wraps it
MIN_CONFIDENCE = 25  # percent; below it nothing is shown
NAMED_CONFIDENCE = 0.5  # at least this when the map leads with a function the text names
MAX_LOCATIONS = 10
MAX_TESTS = 5


@dataclass(slots=True)
class Location:
    symbol: SymbolRow
    score: float
    why: str = "text"  # "text", or "wrapped by NAME" (a thin wrapper's one callee)
    tests: list[SymbolRow] = field(default_factory=list)
    coverage: float = 0.0  # the share of the text's words (weighted by rarity) it holds


@dataclass(slots=True)
class FileScore:
    repo: str
    path: str
    score: float


@dataclass(slots=True)
class LocationMap:
    """Where to look for a task: at most `limit` locations, best first, the files they are in
    and the tests that reach them; empty when the confidence is below `min_confidence`."""

    text: str
    words: list[str]
    confidence: float
    locations: list[Location]
    files: list[FileScore]
    tests: list[SymbolRow]
    withheld: int = 0  # locations left out because the confidence was too low
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class Ranking:
    """Everything `locate` ranked, before the cut (the benchmark grades this)."""

    words: list[str]
    functions: list[Location]
    files: list[FileScore]
    confidence: float


def local_name(symbol: SymbolRow) -> str:
    """The qualified name without the module its path already says (`Flask.wsgi_app` for
    `flask.app.Flask.wsgi_app` in src/flask/app.py)."""
    stem = symbol.path.rsplit(".", 1)[0].split("/")
    if stem[-1] in ("__init__", "index", "mod"):
        stem.pop()
    parts = symbol.qualname.split(".")
    for size in range(min(len(stem), len(parts) - 1), 0, -1):
        if parts[:size] == stem[-size:]:
            return ".".join(parts[size:])
    return symbol.qualname


def query_words(text: str) -> tuple[list[str], list[str]]:
    """(every word, the title's words) of a task's text, without stop words or numbers."""
    return content_words(text), content_words(_title(text))


def _title(text: str) -> str:
    stripped = text.strip()
    first_line = stripped.split("\n", 1)[0]
    sentence = re.split(r"(?<=[.!?])\s", first_line, maxsplit=1)[0]
    return sentence


def rank(store: Store, text: str, repo: str | None = None) -> Ranking:
    """Every candidate location for `text`, scored (see the module's steps)."""
    graph = store.graph
    text = readable(text)
    words, title = query_words(text)
    if not words:
        return Ranking([], [], [], 0.0)
    counts = body_counts(graph, words)
    kept = rare_words(counts)
    title_kept = [w for w in dict.fromkeys(title) if w in kept]
    rows: dict[str, SymbolRow] = {}
    scores: dict[str, float] = defaultdict(float)
    library = LibraryFiles(store.test_layouts())
    # the candidates come from the title's words and the text's MATCH_WORDS rarest (a long
    # report's common words would have every match score thousands of bodies); every word
    # still weighs in the coverage below
    held_words = sorted((w for w in kept if counts[w]), key=counts.__getitem__)
    unheld = [w for w in kept if not counts[w]]  # in no body: free there, maybe in names
    matched = list(dict.fromkeys([*title_kept, *unheld, *held_words[:MATCH_WORDS]]))
    in_names = graph.term_counts([word_term(w) for w in matched], NAME_COMMON + 1)
    # a word in most symbols' names or modules (`twisted` in Twisted) ranks nothing by them
    name_words = [w for w in matched if in_names[word_term(w)] <= NAME_COMMON]
    for fields, weight, field_words in (
        (SYMBOL_TEXT_FIELDS, NAME_WEIGHT, name_words),
        (BODY_FIELDS, BODY_WEIGHT, matched),
    ):
        title_words = [w for w in title_kept if w in field_words]
        # one match: the title's terms repeated, so they count twice in its BM25
        terms = (*word_terms(field_words), *word_terms(title_words))
        if not terms:
            continue
        for row, score in graph.match_symbols(
            TextMatch(terms, "any", fields), repo, None, POOL, True
        ):
            rows[row.id] = row
            scores[row.id] += weight * score
    for sid, row in rows.items():  # a method of a class the text names
        if row.kind == "method" and row.parent in scores and rows[row.parent].kind == "class":
            scores[sid] += CLASS_GAIN * scores[row.parent]
    named = _named(graph, library, text, repo, rows)
    candidates = {
        sid: Location(rows[sid], scores.get(sid, 0.0))
        for sid in scores.keys() | named.keys()
        if rows[sid].kind in CODE_KINDS and library.hold(rows[sid])
    }
    _walk_callees(graph, library, candidates, rows)
    functions = sorted(candidates.values(), key=lambda loc: (-loc.score, loc.symbol.id))
    held = _by_coverage(graph, functions, {w: counts[w] for w in kept})
    functions = _with_named(functions, named)
    files = _file_scores(library, functions, rows, scores)
    confidence = _confidence(functions, sum(held.values()), len(held))
    if functions and functions[0].symbol.id in named:  # a frame or a name the text writes
        confidence = max(confidence, NAMED_CONFIDENCE)
    return Ranking(kept, functions, files, confidence)


def _named(
    graph: GraphReader,
    library: LibraryFiles,
    text: str,
    repo: str | None,
    rows: dict[str, SymbolRow],
) -> dict[str, float]:
    """The functions the text names in code, each with the share of the best score it gains
    (`_with_named`): the frames of a traceback it quotes (the innermost the most), the names
    it writes as code (`Flask.run`, `url_for()`), shared among the functions that bear them,
    and — for a name no function bears, such as a message (`invalid-name`), an option
    (`--no-binary`) or a setting (`install_command`) — the few functions whose bodies hold
    it, its words in a row (`_holders`). Their rows are added to `rows`."""
    gains: dict[str, float] = defaultdict(float)
    quoted = frames(text)
    written = code_names(text)
    wanted = [frame.function for frame in quoted] + [n.rpartition(".")[2] for n in written]
    bearing = graph.symbols_by_each("name", wanted, repo, 50)  # one read for every name
    for depth, frame in enumerate(quoted, start=1):
        for row in bearing[frame.function]:
            if row.kind in CODE_KINDS and _same_file(frame.path, row.path):
                rows[row.id] = row
                gains[row.id] = max(gains[row.id], FRAME_GAIN * depth / len(quoted))
    framed = {frame.function for frame in quoted}
    unborne: list[str] = []  # names no function bears: the functions holding them, below
    for name in written:
        owner, _, last = name.rpartition(".")
        if last in framed:
            continue
        bearers = [
            row
            for row in bearing[last]
            if row.kind in CODE_KINDS and (not owner or _owned_by(row, owner))
        ]
        if not bearers and not owner:
            unborne.append(last)
        if len(bearers) >= AMBIGUOUS:
            continue
        for row in bearers:
            rows[row.id] = row
            gains[row.id] += NAME_GAIN / len(bearers)
    for holders in _holders(graph, library, unborne, repo):
        for row in holders:
            rows[row.id] = row
            gains[row.id] += PHRASE_GAIN / len(holders)
    return gains


def _holders(
    graph: GraphReader, library: LibraryFiles, names: list[str], repo: str | None
) -> list[list[SymbolRow]]:
    """For each name of two words or more (`invalid-name`: "invalid name", as
    `add_message("invalid-name")` is indexed), the library functions whose bodies hold it, when
    at most PHRASE_HOLDERS do (none for a commoner one); one read for all of them."""
    phrases = [words for words in map(split_words, names) if len(words) >= 2]
    matches = [TextMatch((Term(" ".join(words)),), "any", BODY_FIELDS) for words in phrases]
    found_each = graph.match_symbols_each(matches, repo, list(CODE_KINDS), PHRASE_POOL, False)
    answers = []
    for found in found_each:
        holders = [row for row, _score in found if library.hold(row)]
        fits = len(found) < PHRASE_POOL and len(holders) <= PHRASE_HOLDERS
        answers.append(holders if fits else [])
    return answers


def _with_named(ranked: list[Location], named: dict[str, float]) -> list[Location]:
    """The ranking with each named function's gain added, as a share of the best score the
    words gave: the text names it whether or not its words are in it."""
    if not named or not ranked:
        return ranked
    top = max(ranked[0].score, 1e-9)
    floor = min(loc.score for loc in ranked[:RERANK])
    for place, loc in enumerate(ranked):
        if place >= RERANK:  # not ranked again by coverage: never above those that were
            loc.score = min(loc.score, floor)
        loc.score += named.get(loc.symbol.id, 0.0) * top
    return sorted(ranked, key=lambda loc: -loc.score)  # stable: ties keep their order


def _same_file(written: str, indexed: str) -> bool:
    """Whether a path a traceback wrote (absolute, from an installed copy, or relative) is
    this indexed file: their last parts agree, two of them at least when both have two."""
    theirs, ours = written.split("/"), indexed.split("/")
    need = min(2, len(theirs), len(ours))
    return theirs[-need:] == ours[-need:]


def _owned_by(row: SymbolRow, owner: str) -> bool:
    """`Flask.run` names flask's `Flask.run`, `flask.helpers.url_for` names `url_for` (the
    written owner ends the symbol's qualified name), and `app.run` names `App.run`."""
    parent = row.qualname.rpartition(".")[0]
    if parent == owner or parent.endswith("." + owner):
        return True
    # `invoice.total()`: an instance named after its class
    return "." not in owner and parent.rpartition(".")[2].lower() == owner.lower()


def _by_coverage(
    graph: GraphReader, ranked: list[Location], counts: dict[str, int]
) -> dict[str, float]:
    """The best RERANK locations ranked again (in place), their scores times the share of the
    text's words (weighted by rarity) each holds: a function that holds most of a report's
    words beats one that holds one of them many times. The words any of them holds, with
    their shares of the text's weight."""
    head = ranked[:RERANK]
    if not head or COVERAGE_POWER == 0:
        return {}
    texts = graph.search_texts(loc.symbol.id for loc in head)
    weights = {
        w: max(0.1, math.log(1 + (COMMON_BODY - n + 0.5) / (n + 0.5))) for w, n in counts.items()
    }
    total = sum(weights.values()) or 1.0
    terms = {w: word_term(w) for w in weights}
    held: dict[str, float] = {}
    for loc in head:
        text = texts.get(loc.symbol.id, "")
        words = [w for w in weights if terms[w].held_by(text)]
        share = sum(weights[w] for w in words) / total
        held.update((w, weights[w] / total) for w in words)
        loc.coverage = round(share, 3)
        loc.score *= share**COVERAGE_POWER
    head.sort(key=lambda loc: (-loc.score, loc.symbol.id))
    ranked[:RERANK] = head
    return held


class LibraryFiles:
    """Which files hold library code: not tests (as the repository's runners see them),
    examples, documentation, benchmarks or vendored copies of other projects. Each file is
    judged once (a ranking asks of thousands of symbols in a few hundred files)."""

    def __init__(self, layouts: TestLayouts) -> None:
        self.layouts = layouts
        self._judged: dict[tuple[str, str], bool] = {}

    def hold(self, symbol: SymbolRow) -> bool:
        key = (symbol.repo, symbol.path)
        verdict = self._judged.get(key)
        if verdict is None:
            verdict = self._judged[key] = self._judge(*key)
        return verdict

    def _judge(self, repo: str, path: str) -> bool:
        if path.startswith(LISTED_OUTSIDE) or not VENDORED.isdisjoint(path.split("/")[:-1]):
            return False
        return not self.layouts.is_test_file(repo, path)


def _walk_callees(
    graph: GraphReader,
    library: LibraryFiles,
    candidates: dict[str, Location],
    rows: dict[str, SymbolRow],
) -> None:
    """A thin wrapper among the best matches (a few lines, one call) gets the function it
    wraps on its own line, two levels down at most. (Giving every matching callee a share of
    its caller's score was measured and made the ranking worse: docs/agents.md.)"""
    frontier = sorted(candidates.values(), key=lambda loc: -loc.score)[:WALK_FROM]
    for _level in range(WALK_DEPTH):
        ids = [loc.symbol.id for loc in frontier]
        if not ids:
            return
        callees: dict[str, list[SymbolRow]] = defaultdict(list)
        for row in graph.edges_of(ids, "out", ["CALLS"]):
            if row.other is not None:
                callees[row.edge.src].append(row.other)
        wrapped_now = []
        for caller in frontier:
            called = [
                s
                for s in callees.get(caller.symbol.id, [])
                if s.kind in CODE_KINDS and library.hold(s) and s.id != caller.symbol.id
            ]
            span = caller.symbol.end_line - caller.symbol.start_line + 1
            if len(called) != 1 or span > WRAPPER_LINES or called[0].id in candidates:
                continue
            callee = called[0]
            rows.setdefault(callee.id, callee)
            wrapped = Location(callee, caller.score * 0.9, f"wrapped by {caller.symbol.name}")
            candidates[callee.id] = wrapped
            wrapped_now.append(wrapped)
        frontier = wrapped_now


def _file_scores(
    library: LibraryFiles,
    functions: list[Location],
    rows: dict[str, SymbolRow],
    scores: dict[str, float],
) -> list[FileScore]:
    """Files in the order of their best location (ranked as the list ranks them), then the
    files only other symbols matched (classes, modules), by those symbols' scores."""
    ranked: dict[tuple[str, str], FileScore] = {}
    for place, loc in enumerate(functions):
        key = (loc.symbol.repo, loc.symbol.path)
        if key not in ranked:
            ranked[key] = FileScore(*key, round(1.0 / (1 + place), 4))
    rest: dict[tuple[str, str], float] = defaultdict(float)
    for sid, row in rows.items():
        key = (row.repo, row.path)
        if key not in ranked and library.hold(row) and scores.get(sid, 0.0) > 0:
            rest[key] = max(rest[key], scores[sid])
    others = sorted(rest.items(), key=lambda item: (-item[1], item[0]))
    return list(ranked.values()) + [FileScore(repo, path, 0.0) for (repo, path), _ in others]


def _confidence(functions: list[Location], reach: float, held_words: int) -> float:
    """0..1: the geometric mean of how much of the text the best location holds (the largest
    coverage among the first three) and how much of it the best locations hold together
    (`reach`), times how many of its words the code holds at all (one: nothing; three: 0.5;
    eight: 0.9). Off-topic text ("thanks, ship it", "what is the capital of France?") shares
    few words with the code; a long report shares many, though no one function holds most."""
    if not functions:
        return 0.0
    best = max(loc.coverage for loc in functions[:3])
    enough = 1 - math.exp(-(held_words - 1) / 3) if held_words else 0.0
    return round(max(0.0, min(1.0, math.sqrt(best * reach) * enough)), 2)


@cacheable
def locate(
    store: Store,
    text: str,
    repo: str | None = None,
    limit: int = 5,
    min_confidence: int = MIN_CONFIDENCE,
) -> LocationMap:
    """The likely locations for a task's `text` (at most `limit`), the tests that exercise them
    and a confidence (0..1); empty when the confidence is below `min_confidence` percent.
    Ranked in one of the process's turns for heavy questions (`turns.heavy_turn`)."""
    check_repo(store, repo)
    with heavy_turn():
        ranking = rank(store, text, repo)
    chosen = ranking.functions[: min(limit, MAX_LOCATIONS)]
    if ranking.confidence * 100 < min_confidence:
        withheld, chosen = len(chosen), []
    else:
        withheld = 0
    tests = _tests_of(store.graph, store.test_layouts(), chosen)
    shown_files = {(loc.symbol.repo, loc.symbol.path) for loc in chosen}
    files = [f for f in ranking.files if (f.repo, f.path) in shown_files][:limit]
    envelope = Freshness(store).envelope([loc.symbol for loc in chosen], [repo] if repo else None)
    all_tests = list({t.id: t for loc in chosen for t in loc.tests}.values())[:MAX_TESTS]
    return LocationMap(
        text,
        ranking.words,
        ranking.confidence,
        chosen,
        files,
        all_tests if tests else [],
        withheld,
        envelope,
    )


def _tests_of(graph: GraphReader, layouts: TestLayouts, locations: list[Location]) -> bool:
    """Each location's tests: its callers in test files, or its callers' (two levels, through
    library code). True when any was found. Not impact's walk (`tests_reaching`): that reads the
    repository's whole edge list first, seconds on Django, and a map answers in milliseconds."""
    if not locations:
        return False
    found = False
    frontier = {loc.symbol.id: loc for loc in locations}
    reached: dict[str, list[Location]] = {sid: [loc] for sid, loc in frontier.items()}
    for _level in range(2):
        if not reached:
            break
        next_reached: dict[str, list[Location]] = defaultdict(list)
        for row in graph.edges_of(list(reached), "in", ["CALLS", "REFERENCES"]):
            caller = row.other
            if caller is None:
                continue
            for loc in reached.get(row.edge.dst, []):
                if layouts.is_test(caller):
                    if len(loc.tests) < 3 and all(t.id != caller.id for t in loc.tests):
                        loc.tests.append(caller)
                        found = True
                elif not loc.tests and len(next_reached) < 50:
                    next_reached[caller.id].append(loc)
        reached = {
            sid: locs for sid, locs in next_reached.items() if any(not x.tests for x in locs)
        }
    return found


def locations_text(found: LocationMap, header: str = "") -> str:
    """At most ~200 tokens: one line per location (path:lines, name, why), then the tests;
    `header` (the indexed commits) first when given."""
    out = [header] if header else []
    if not found.locations:
        if found.withheld:
            out.append(
                f"no confident location (confidence {found.confidence:.2f}); "
                "try `search` with names from the task"
            )
        else:
            out.append("no location matches the words of this text")
        return "\n".join(out)
    words = " ".join(found.words[:8])
    out.append(f"likely locations (confidence {found.confidence:.2f}; words: {words}):")
    stale = set(found.envelope.stale)
    across = len(found.envelope.repos) > 1
    for loc in found.locations:
        s = loc.symbol
        where = f"{s.repo}:{s.path}" if across else s.path
        mark = " [stale]" if f"{s.repo}:{s.path}" in stale else ""
        why = f"  ({loc.why})" if loc.why != "text" else ""
        out.append(f"  {where}:{s.start_line}-{s.end_line}  {local_name(s)}{why}{mark}")
    if found.tests:
        out.append("tests: " + ", ".join(f"{t.path}::{local_name(t)}" for t in found.tests))
    return "\n".join(out)
