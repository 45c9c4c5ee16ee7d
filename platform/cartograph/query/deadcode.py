"""Dead code: functions, methods and classes nothing reaches — with an honest third verdict.

Verdicts:
- `live`: something calls, references or subclasses it, or it is an entry point (tests and
  fixtures, `__main__`, framework registrations by decorator, dunder methods, names exported by
  `__all__`, console scripts, overrides of a live base method or of an external base class);
- `unknown`: nothing in the graph reaches it, but a call the resolver could not bind has the
  same name (`obj.process()` on an untyped `obj`), or it is a property (read as an attribute,
  which is not tracked), or a decorator from outside the repository may register it, or it is
  a method named as the built-in types' and io's (`readable`, `keys`: the standard library
  calls them on objects handed to it), or its class looks its methods up with a computed
  `getattr(self, …)`, or a `getattr(x, "visit_" + …)` prefix starts its name, or its class
  derives from a class of another repository (whose code may call it), or its name is written
  elsewhere in the repository's source (a string, a comment, a use the graph did not bind);
- `dead`: none of the above. A plugin hook implementation (a function named as a `@hookspec`
  declares) is `live`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from cartograph.errors import Invalid
from cartograph.indexedfiles import files_here
from cartograph.model import Repo, SymbolRow, computed_lookup
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, QueryError, check_repo, clamp
from cartograph.resolve.values import PROTOCOL_METHOD_NAMES
from cartograph.store.interfaces import Store
from cartograph.sync import default_data_dir

VERDICTS = ("dead", "unknown", "live")
# what can be dead, and the uses that keep it alive (from another symbol)
CANDIDATE_KINDS = ("function", "method", "class")
USE_EDGES = ("CALLS", "REFERENCES", "INHERITS", "ROUTES_TO", "HTTP_CALLS")
SOURCE_CHUNK = 500  # files read (from git) at a time when looking for names written elsewhere
# decorators that register a function with a framework (the function is called from outside)
FRAMEWORK_DECORATORS = frozenset(
    {
        "route",
        "get",
        "post",
        "put",
        "patch",
        "delete",
        "head",
        "options",
        "websocket",
        "api_route",
        "command",
        "group",
        "fixture",
        "task",
        "shared_task",
        "periodic_task",
        "receiver",
        "register",
        "hookimpl",
        "hookspec",
        "validator",
        "field_validator",
        "model_validator",
        "root_validator",
        "listens_for",
        "on_event",
        "middleware",
        "exception_handler",
        "api_view",
        "action",
        "subscriber",
        "handler",
        "callback",
        "connect",
        "signal",
        "cli",
        "main",
        "entrypoint",
        "job",
        "cron",
        "schedule",
        "before_request",
        "after_request",
        "teardown_request",
        "errorhandler",
        "context_processor",
        "template_filter",
        "template_tag",
        "filter",
        "simple_tag",
        "inclusion_tag",
        "setter",
        "deleter",
        "overload",
        "login_required",
        "csrf_exempt",
        "require_http_methods",
    }
)
PROPERTY_DECORATORS = frozenset({"property", "cached_property", "functools.cached_property"})
# wrappers that neither register nor hide a function
PLAIN_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "abstractmethod",
        "wraps",
        "lru_cache",
        "cache",
        "functools.wraps",
        "functools.lru_cache",
        "functools.cache",
        "contextmanager",
        "asynccontextmanager",
        "contextlib.contextmanager",
        "total_ordering",
        "dataclass",
        "dataclasses.dataclass",
        "override",
        "typing.override",
        "final",
        "typing.final",
        "abc.abstractmethod",
        "singledispatch",
        "functools.singledispatch",
        "deprecated",
    }
)
UNITTEST_HOOKS = frozenset(
    {
        "setUp",
        "tearDown",
        "setUpClass",
        "tearDownClass",
        "setUpModule",
        "tearDownModule",
        "setUpTestData",
        "asyncSetUp",
        "asyncTearDown",
        "addCleanup",
        "runTest",
    }
)
_CALL_SUFFIX = re.compile(r"\(.*$")


@dataclass(slots=True)
class DeadCodeItem:
    symbol: SymbolRow
    verdict: str
    reason: str


@dataclass(slots=True)
class DeadCodeReport:
    repo: str
    items: list[DeadCodeItem]
    counts: dict[str, int]  # verdict → number of symbols
    offset: int
    next_offset: int | None
    envelope: Envelope = field(default_factory=Envelope)


@cacheable
def dead_code(
    store: Store,
    repo: str,
    path_prefix: str = "",
    verdicts: list[str] | None = None,
    limit: int | None = 50,
    offset: int = 0,
    include_tests: bool = False,
) -> DeadCodeReport:
    """Classify every function, method and class of `repo` (under `path_prefix`)."""
    repo_row = check_repo(store, repo)
    if repo_row is None:
        raise QueryError("dead code needs a repository name")
    wanted = verdicts or ["dead"]
    for verdict in wanted:
        if verdict not in VERDICTS:
            raise QueryError(f"unknown verdict {verdict!r}; verdicts are {', '.join(VERDICTS)}")
    limit = clamp(limit, 50)
    offset = max(0, int(offset))
    classified = classify(store, repo_row, path_prefix)
    test_paths = {p for p, record in store.graph.files(repo).items() if record.is_test}
    if not include_tests:
        classified = [c for c in classified if c.symbol.path not in test_paths]
    counts = {v: sum(1 for c in classified if c.verdict == v) for v in VERDICTS}
    selected = [c for c in classified if c.verdict in wanted]
    page = selected[offset : offset + limit]
    next_offset = offset + limit if len(selected) > offset + limit else None
    envelope = Freshness(store).envelope([c.symbol for c in page], [repo])
    return DeadCodeReport(repo, page, counts, offset, next_offset, envelope)


def classify(store: Store, repo_row: Repo, path_prefix: str) -> list[DeadCodeItem]:
    repo = repo_row.name
    candidates = store.graph.dead_code_candidates(repo, path_prefix, CANDIDATE_KINDS, USE_EDGES)
    files = store.graph.files(repo)
    unresolved_tails = {_tail(name) for name in store.graph.unresolved_names(repo, "call")}
    unresolved_tails.discard("")
    looked_up = _looked_up(store, repo)
    hook_names = {
        s.name
        for s, _ in candidates
        if any(_decorator_name(d).rpartition(".")[2] == "hookspec" for d in s.decorators)
    }
    external_base_classes = {u.src for u in _unresolved_bases(store, candidates)}
    scripts = _entry_point_targets(store, repo)
    methods_by_class: dict[str, dict[str, tuple[SymbolRow, int]]] = {}
    for symbol, incoming in candidates:
        if symbol.kind == "method" and symbol.parent:
            methods_by_class.setdefault(symbol.parent, {})[symbol.name] = (symbol, incoming)
    class_ids = [s.id for s, _ in candidates if s.kind == "class"]
    bases_of: dict[str, list[str]] = {}
    for row in store.graph.edges_of(class_ids, "out", ["INHERITS"]):
        bases_of.setdefault(row.edge.src, []).append(row.edge.dst)

    def ancestors(class_id: str) -> list[str]:
        order, todo, seen = [], list(bases_of.get(class_id, [])), {class_id}
        while todo:
            current = todo.pop(0)
            if current in seen:
                continue
            seen.add(current)
            order.append(current)
            todo.extend(bases_of.get(current, []))
        return order

    results: list[DeadCodeItem] = []
    for symbol, incoming in candidates:
        record = files.get(symbol.path)
        is_test = bool(record and record.is_test)
        verdict, reason = _rules(symbol, incoming, is_test, scripts)
        if verdict is None and symbol.kind == "method" and symbol.parent:
            lineage = ancestors(symbol.parent)
            for base_id in lineage:
                base_method = methods_by_class.get(base_id, {}).get(symbol.name)
                if base_method is not None and (
                    base_method[1] > 0 or _rules(base_method[0], base_method[1], False, scripts)[0]
                ):
                    verdict, reason = "live", f"overrides {base_method[0].qualname}"
                    break
            if verdict is None and any(
                c in external_base_classes for c in [symbol.parent, *lineage]
            ):
                verdict, reason = "live", "may override a method of an external base class"
            elsewhere = [b for b in lineage if not b.startswith(f"{repo}:")]
            if verdict is None and elsewhere:
                base_repo, _, base = elsewhere[0].partition(":")
                verdict = "unknown"
                reason = (
                    f"its class derives from {base.rpartition('#')[2]} of {base_repo}, whose "
                    "code may call it"
                )
        if verdict is None and symbol.name in hook_names:
            verdict, reason = "live", f"implements the plugin hook {symbol.name}"
        if verdict is None and symbol.kind == "method" and symbol.name in PROTOCOL_METHOD_NAMES:
            verdict = "unknown"
            reason = (
                f"named as a method of the built-in types or io ({symbol.name!r}): the standard "
                "library calls it on objects handed to it"
            )
        if verdict is None:
            why = looked_up.reason(symbol)
            if why:
                verdict, reason = "unknown", why
        if verdict is None and symbol.kind == "class" and symbol.id in external_base_classes:
            verdict = "unknown"
            reason = (
                "subclasses an external class, whose framework may find it (registry, metaclass)"
            )
        if verdict is None and symbol.name in unresolved_tails:
            verdict = "unknown"
            reason = f"an unresolved call named {symbol.name!r} may reach it"
        if verdict is None and any(
            d.split("(")[0] in PROPERTY_DECORATORS for d in symbol.decorators
        ):
            verdict, reason = "unknown", "a property: attribute reads are not tracked"
        if verdict is None:
            external = [
                d
                for d in symbol.decorators
                if _decorator_name(d) not in PLAIN_DECORATORS | PROPERTY_DECORATORS
            ]
            if external:
                verdict = "unknown"
                reason = f"decorated by {external[0]}, which may register it"
        if verdict is None:
            verdict, reason = "dead", "nothing calls, references or subclasses it"
        results.append(DeadCodeItem(symbol, verdict, reason))
    dead = [item for item in results if item.verdict == "dead"]
    named = _named_elsewhere(store, repo_row, files, {item.symbol.name for item in dead})
    if named:
        for item in dead:
            if item.symbol.name in named:
                item.verdict = "unknown"
                item.reason = (
                    f"{item.symbol.name!r} is written elsewhere in the source (a string, a "
                    "comment, or a use the graph did not bind)"
                )
    return results


@dataclass(slots=True)
class _LookedUp:
    """Methods found by a computed name: the classes whose own code calls `getattr(self, …)`
    with a name made at run time, and the literal prefixes of `getattr(x, "visit_" + …)`."""

    classes: set[str]
    prefixes: set[str]

    def reason(self, symbol: SymbolRow) -> str:
        if symbol.kind == "method" and symbol.parent in self.classes:
            return "its class looks methods up by a computed name (getattr(self, …))"
        prefix = next((p for p in self.prefixes if symbol.name.startswith(p)), None)
        if prefix is not None:
            return f"a getattr with a name starting {prefix!r} may find it"
        return ""


def _looked_up(store: Store, repo: str) -> _LookedUp:
    found = _LookedUp(set(), set())
    for end in store.graph.open_ends(repo):
        if end.kind != "call" or end.reason != "computed-name":
            continue
        lookup = computed_lookup(end.name)
        if lookup is None:
            continue
        looked_in, prefix = lookup
        if prefix:
            found.prefixes.add(prefix)
        elif looked_in in ("self", "cls"):
            found.classes.add(end.src.rpartition(".")[0])
    return found


def _named_elsewhere(store: Store, record: Repo, files: dict, names: set[str]) -> set[str]:
    """The names written in the repository's Python source more often than they are defined
    there (`def name`, `class name`), its files as this host has them (`files_here`: the work
    tree's, else the indexed commit's from this host's mirror); none when they cannot be read
    here."""
    if not names:
        return set()
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    written = re.compile(rf"\b({alternatives})\b")
    defined = re.compile(rf"\b(?:def|class)\s+({alternatives})\b")
    uses: Counter[str] = Counter()
    definitions: Counter[str] = Counter()
    paths = [path for path in files if path.endswith((".py", ".pyi"))]
    for start in range(0, len(paths), SOURCE_CHUNK):
        chunk = paths[start : start + SOURCE_CHUNK]
        try:
            found, _ = files_here(store, record, chunk, default_data_dir())
        except Invalid:
            return set()
        for data in found.values():
            if data is None:
                continue
            text = data.decode("utf-8", "replace")
            uses.update(written.findall(text))
            definitions.update(defined.findall(text))
    return {name for name in names if uses[name] > definitions[name]}


def _rules(symbol: SymbolRow, incoming: int, is_test: bool, scripts: set[str]) -> tuple:
    """Verdicts that need nothing but the symbol itself (and its incoming edge count)."""
    name = symbol.name
    if incoming > 0:
        return "live", f"{incoming} incoming call/reference/subclass edge(s)"
    if name.startswith("__") and name.endswith("__"):
        return "live", "dunder method, called by Python itself"
    if symbol.qualname in scripts:
        return "live", "console-script entry point"
    if symbol.path.endswith("__main__.py"):
        return "live", "defined in __main__.py"
    if is_test:
        if name.startswith("test") or name.startswith("Test") or name in UNITTEST_HOOKS:
            return "live", "test collected by the test runner"
        if name.startswith("pytest_"):
            return "live", "pytest hook"
    for decorator in symbol.decorators:
        called_on_object = "." in decorator.split("(")[0] and "(" in decorator
        if (
            _decorator_name(decorator).rpartition(".")[2] in FRAMEWORK_DECORATORS
            or called_on_object
        ):
            return "live", f"registered by @{decorator}"
    return None, ""


def _decorator_name(decorator: str) -> str:
    return _CALL_SUFFIX.sub("", decorator).strip()


def _tail(name: str) -> str:
    return _CALL_SUFFIX.sub("", name).rpartition(".")[2]


def _unresolved_bases(store: Store, candidates: list[tuple[SymbolRow, int]]):
    classes = [s.id for s, _ in candidates if s.kind == "class"]
    return [u for u in store.graph.unresolved_of(classes) if u.kind == "base"]


def _entry_point_targets(store: Store, repo: str) -> set[str]:
    """Qualnames the repository's entry points name (scripts and plugins: run by name)."""
    manifest = store.repos.manifests().get(repo)
    if manifest is None:
        return set()
    return {f"{module}.{attribute}" if attribute else module
            for module, attribute in manifest.entry_point_targets()}  # fmt: skip
