"""Runtime recall: of the calls a project's own test suite makes between the project's
functions, how many the graph holds as CALLS edges — per direction, with the misses by kind.

    python -m benchmark.runtime_recall [--project click,flask,pytest,markdown]
        [--pycg PATH] [--force] [--write]

Projects (`benchmark.faults.PROJECTS`): the sdist copied once to a git tree with a virtualenv
beside it where the project is installed with its pinned test requirements (`faults.prepare`);
`Project.suite` is what runs its whole suite (`python -m pytest …`, `python -m unittest
discover tests`). The *library* is the project's package folder (`Project.package`); every
other file of the tree is *tests* (test modules, conftest, test apps and helpers).

**Trace** (`benchmark.tracing`): the suite runs once under `sys.setprofile` and
`threading.setprofile`, from the runner's start (collection, imports, fixtures and tests) to
its exit, recording each (caller, callee) pair of frames whose code is in the tree; a caller is
found through frames of code outside the tree (the standard library, pluggy, werkzeug), which
makes the pair *mediated*. A generator's resumptions are not calls; child processes are not
traced. The trace is cached at ~/.cache/cartograph/faults/<project>-<version>/trace-<F>.json
with the suite's own run time (untraced, the same command, run just before: the better of two
runs when the first took under a minute, as the first reads a cold disk cache) and the traced
run's (`--force` traces again).

**Mapping** a traced code to the graph's symbol (the tree indexed into a fresh SQLite store by
`index_repository`, history off): the file's module symbol, then `co_qualname` with its
`<locals>` parts removed (`outer.<locals>.inner` → `outer.inner`, as the graph names nested
defs) under the module's qualname; when no symbol has that name, the symbol of the same name in
that file whose `def` line is at or up to 30 lines below `co_firstlineno` (a decorated def's
code starts at its first decorator). Then, by kind of code:

- `<module>` code as a caller is the module symbol; as a callee (a module body run by an
  import) the pair is *not compared* (an import is not a call): row "module body".
- a class body as a caller is the class symbol (decorators and calls in the body); as a callee
  (a class body run where the class is defined) the pair is *not compared*: row "class body".
- lambdas, comprehensions and generator expressions are not symbols (the contract of
  tests/resolution_values/README.md and `benchmark.pycg`): as a caller the code is its
  enclosing symbol; a pair whose callee is one becomes a pair to each function that code
  called (through nested ones); a pair that folds onto its own caller is *not compared*, and
  neither is a lambda that called nothing of the tree.
- two codes of one symbol (a property's getter calling its setter) make no pair; a function
  calling itself is a pair like any other.
- code that cannot be mapped — a file the graph does not hold, code compiled from a file that
  is not Python (a Jinja template), a def whose name and line match no symbol — is counted
  per reason and direction as *unmapped*, never dropped silently.

**Implicit calls.** The interpreter's calls are runtime pairs like the others: a construction
`C(...)` runs `C.__init__` (inherited or not), and the graph writes a CALLS edge to the class
and one to the `__init__` it reaches (via `constructor`), so the pair is held by the second;
the CALLS edge to the class has no runtime pair of its own. `with`, `for`, `[]`, operators,
properties and descriptors are held when the graph wrote the edge (via `protocol`,
`property`); `__getattr__`, `__repr__` called by f-strings, `__hash__` by dicts and the
like are misses of the kind "implicit dunder".

**The runner's calls into the suite** are not compared: pytest's suite runs on the tree's own
pytest, so its runner (library) calling the suite's test functions, fixtures, xunit
setup/teardown and conftest hooks is a library→tests pair that no other project has (their
runner is outside the tree); the count is reported as its own row.

**Held**: the graph has a CALLS edge (any via) from the caller's symbol to the callee's.
Recall per direction — library→library, tests→library, tests→tests, library→tests — and
overall, over distinct (caller symbol, callee symbol) pairs; beside it the share held when a
REFERENCES edge counts too.

**Misses by kind**, decided from the callee and the call site (the caller's instruction at the
call, `co_positions`; a statement positioned as a whole, such as an assert pytest rewrote, is
read for its calls), the first rule that applies:

1. the callee is a pytest fixture; 2. a pytest hook implementation (`pytest_*`, called through
pluggy: `config.hook.pytest_x(...)`); 3. an implicit dunder the site does not call by name
(grouped: context manager, iteration and containers, `__getattr__` and attribute hooks,
descriptors, construction hooks such as `__init_subclass__`, conversions and operators,
`__call__`, finalizer); 4. a property read or assigned; 5. a decorator applied (the site is a
def's decorator expression: `@cli.command()` applying what the factory returned); 6. every
entry came through code outside the tree: "called back by code outside the tree", by the
package or standard-library module of the outside function that called it (pluggy, click,
werkzeug, contextlib…). Then by the site's expression: 7. a call naming the callee —
`super().name(...)`, or "the site names the callee; the receiver is not bound", the detail
saying how the receiver was bound (a parameter, annotated or not, a fixture value, a tuple
unpacking, a loop variable, a local assigned from a call, an attribute of self, a decorated
def — what its decorator returned…); 8. no call at the site: a generator made elsewhere and
first iterated here, or an implicit call at other syntax; 9. `getattr(...)` dispatch; 10. an
`__init__` the graph did not reach (`cls(...)`, `type(self)(...)`); 11. library→tests: the
library calls a test's callback; 12. the callee is named among the arguments of a call the site
makes into C code (a direct pair whose site calls something else went through no Python
frame): "handed to C code that calls it back" (`re.sub(callback, …)`, `map(f, …)`); 13. the
callee is a closure (a decorator's wrapper, a returned function) called under another name;
14. a builtin calling back (`next`, `str`, `sorted`'s
key…); 15. a base class outside the tree calling back (`super().__init__(...)` of an io
wrapper calling `readable`); 16. a call through a value (parameter, attribute, container),
with how the callable was bound; else "unknown".

The report (`results/runtime-recall-<date>.md/.json`, with `--write`) has each project's
numbers, the not-compared and unmapped rows, the held pairs by via, the misses by kind with
details and three examples each, and PyCG's micro-benchmark (`benchmark.pycg`, `--pycg` a
checkout of github.com/vitsalis/PyCG) measured in the same run.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmark.corpora import CORPORA
from benchmark.faults import PROJECTS, _git, _test_env, home, prepare
from benchmark.report import run_facts, write_report
from benchmark.tracing import Trace, trace_run

TRACE_FORMAT = 4  # of the cached trace; a different one is traced again
TRACE_TIMEOUT = 3600.0
PLAIN_ONCE = 60.0  # a suite run alone longer than this is timed once, a shorter one twice
DECORATOR_SPAN = 30  # lines from a code's first line (its first decorator) to its `def`
LIBRARY, TESTS = "library", "tests"
DIRECTIONS = ("library→library", "tests→library", "tests→tests", "library→tests")
TARGETS = {"overall": 0.90, "library→library": 0.95, "library→tests": 0.80}
EXAMPLES = 3

# not compared (pairs that are no call of a symbol)
MODULE_BODY = "a module body run by an import"
CLASS_BODY = "a class body run where the class is defined"
EMPTY_ANONYMOUS = "a lambda or comprehension that called nothing of the tree"
FOLDED = "folded onto its own caller (a lambda's or comprehension's enclosing symbol, a property's getter and setter)"
RUNNER = "the suite's own runner calling the suite (tests, fixtures, xunit setup, conftest hooks)"

XUNIT = {
    "setup_module", "teardown_module", "setup_function", "teardown_function", "setup_class",
    "teardown_class", "setup_method", "teardown_method", "setUp", "tearDown", "setUpClass",
    "tearDownClass", "setUpModule", "tearDownModule", "setup", "teardown",
}  # fmt: skip
DUNDER_GROUPS = {
    "context manager": {"__enter__", "__exit__", "__aenter__", "__aexit__"},
    "iteration and containers": {
        "__iter__", "__next__", "__aiter__", "__anext__", "__getitem__", "__setitem__",
        "__delitem__", "__len__", "__contains__", "__reversed__", "__missing__", "__await__",
    },
    "__getattr__ and attribute hooks": {
        "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dir__",
    },
    "descriptors": {"__get__", "__set__", "__delete__", "__set_name__"},
    "construction hooks": {
        "__new__", "__init_subclass__", "__post_init__", "__class_getitem__", "__prepare__",
        "__instancecheck__", "__subclasscheck__", "__copy__", "__deepcopy__", "__reduce__",
        "__reduce_ex__", "__getstate__", "__setstate__", "__getnewargs__", "__getnewargs_ex__",
    },
    "__call__": {"__call__"},
    "finalizer": {"__del__"},
}  # fmt: skip
BUILTINS = frozenset(dir(builtins))
PROPERTY_DECORATORS = ("property", "cached_property", ".setter", ".deleter", ".getter")


# ---------------------------------------------------------------- the trace


def suite_trace(name: str, force: bool = False) -> tuple[Trace, dict]:
    """The trace of project `name`'s whole suite (cached beside its tree), and facts of the
    runs: the suite untraced (seconds, exit status) and the traced run."""
    tree = prepare(name)
    project = PROJECTS[name]
    cache = home(name) / f"trace-{TRACE_FORMAT}.json"
    commit = _git(tree, "rev-parse", "HEAD")
    if cache.exists() and not force:
        data = json.loads(cache.read_text())
        if data.get("commit") == commit and data.get("suite") == list(project.suite):
            return Trace(**data["trace"]), data["facts"]
    env = _test_env(tree.parent, None)
    python = tree.parent / "venv" / "bin" / "python"
    runs = []
    while len(runs) < 2:  # a short suite twice: the first run reads a cold disk cache
        started = time.perf_counter()
        plain = subprocess.run(
            [str(python), "-m", *project.suite],
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TRACE_TIMEOUT,
            check=False,
        )
        runs.append(round(time.perf_counter() - started, 1))
        if runs[0] > PLAIN_ONCE:
            break
    plain_seconds = min(runs)
    print(f"{name}: suite alone {runs} s (exit {plain.returncode})", file=sys.stderr)
    trace = trace_run(python, tree, list(project.suite), env, TRACE_TIMEOUT)
    print(f"{name}: traced in {trace.seconds} s (exit {trace.status})", file=sys.stderr)
    facts = {
        "suite": " ".join(["python", "-m", *project.suite]),
        "suite_seconds": plain_seconds,
        "suite_runs": runs,
        "suite_status": plain.returncode,
        "suite_tail": (plain.stdout + plain.stderr).decode("utf-8", "replace")[-300:],
        "trace_seconds": trace.seconds,
        "trace_status": trace.status,
        "profile_reinstalled": trace.reinstalled,
        "entries_from_foreign_code": sum(count for _, count in trace.foreign),
    }
    data = {
        "format": TRACE_FORMAT,
        "commit": commit,
        "suite": list(project.suite),
        "facts": facts,
        "trace": asdict(trace),
    }
    cache.write_text(json.dumps(data) + "\n")
    return trace, facts


# ---------------------------------------------------------------- the graph's symbols


@dataclass(frozen=True)
class Symbol:
    id: str
    path: str
    name: str
    rel: str  # the qualname inside its module ("" for the module): "Class.method"
    kind: str
    line: int
    decorators: tuple[str, ...] = ()


class Symbols:
    """The graph's symbols of one repository, as the mapping reads them."""

    def __init__(self, rows: Iterable[Symbol]):
        self.by_id: dict[str, Symbol] = {}
        self.modules: dict[str, str] = {}
        self.by_rel: dict[tuple[str, str], str] = {}
        self.by_name: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
        self.decorated_names: set[str] = set()
        for row in rows:
            self.by_id[row.id] = row
            if row.kind == "module":
                self.modules[row.path] = row.id
            else:
                self.by_rel[(row.path, row.rel)] = row.id
                self.by_name[(row.path, row.name)].append((row.line, row.id))
                if row.decorators:
                    self.decorated_names.add(row.name)

    @classmethod
    def from_export(cls, items: Iterable[dict]) -> Symbols:
        nodes = [i for i in items if i["type"] == "node" and i["label"] == "Symbol"]
        modules = {n["path"]: n["qualname"] for n in nodes if n["kind"] == "module"}
        rows = []
        for n in nodes:
            prefix = modules.get(n["path"], "")
            qualname = n["qualname"]
            if n["kind"] == "module":
                rel = ""
            elif prefix and qualname.startswith(prefix + "."):
                rel = qualname[len(prefix) + 1 :]
            else:
                rel = qualname
            rows.append(
                Symbol(
                    n["id"], n["path"], n["name"], rel, n["kind"], int(n["start_line"] or 0),
                    tuple(n.get("decorators") or ()),
                )
            )  # fmt: skip
        return cls(rows)


def node_symbol(node: list, symbols: Symbols) -> tuple[str | None, str]:
    """The graph symbol a traced code stands for as a caller, and how it was found; (None,
    the reason) when it cannot be mapped. A node is [path, qualname, firstlineno, kind, …]."""
    path, qualname, line, kind = node[0], node[1], node[2], node[3]
    if not path.endswith(".py"):
        return None, "code compiled from a file that is not Python source (a template)"
    module = symbols.modules.get(path)
    if module is None:
        return None, "a file the graph does not hold"
    if kind == "module":
        return module, "module"
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    while parts and parts[-1].startswith("<"):  # a lambda or comprehension: its enclosing
        parts.pop()
    if not parts:
        return module, "enclosing"
    if any(part.startswith("<") for part in parts):
        return None, "a def inside a lambda or comprehension"
    found = symbols.by_rel.get((path, ".".join(parts)))
    if found is not None:
        return found, "enclosing" if kind == "anonymous" else "qualname"
    if kind != "anonymous":
        near = [
            (def_line, sid)
            for def_line, sid in symbols.by_name.get((path, parts[-1]), [])
            if line <= def_line <= line + DECORATOR_SPAN
        ]
        if near:
            return min(near)[1], "line"
    return None, "no symbol of that name at that line"


def side(path: str, package: str) -> str:
    """Whether a file of the tree is the library (under the package folder, but for a test
    folder inside it: MkDocs' mkdocs/tests) or tests."""
    folder = package.rstrip("/")
    inside = _TESTS_INSIDE.get(folder)
    if inside and (path == inside or path.startswith(inside + "/")):
        return TESTS
    return LIBRARY if path == folder or path.startswith(folder + "/") else TESTS


# the test folder inside a project's package folder, by the package folder
_TESTS_INSIDE = {p.package: p.tests_inside for p in PROJECTS.values() if p.tests_inside}


def direction(src_path: str, dst_path: str, package: str) -> str:
    return f"{side(src_path, package)}→{side(dst_path, package)}"


# ---------------------------------------------------------------- runtime pairs → graph pairs


@dataclass
class Contribution:
    """One runtime pair behind a graph pair: caller and callee node, the anonymous code the
    callee was reached through (or None), entries, and the call sites."""

    caller: int
    callee: int
    through: int | None
    direct: int
    mediated: int
    sites: list[list]


@dataclass
class GraphPair:
    src: str
    dst: str
    direction: str
    contributions: list[Contribution] = field(default_factory=list)


@dataclass
class Mapped:
    pairs: dict[tuple[str, str], GraphPair]
    not_compared: Counter  # (reason, direction) → runtime pairs
    unmapped: Counter  # (reason, direction) → runtime pairs
    how: Counter  # how the nodes were mapped


def map_pairs(nodes: list[list], pairs: list[list], symbols: Symbols, package: str) -> Mapped:
    """The runtime pairs as pairs of graph symbols (see the module docstring)."""
    mapped = [node_symbol(node, symbols) for node in nodes]
    how = Counter(reason if sid else "unmapped" for sid, reason in mapped)
    out: dict[int, list[list]] = defaultdict(list)
    for pair in pairs:
        out[pair[0]].append(pair)

    def reached(anonymous: int) -> set[int]:
        """The functions an anonymous code called, through nested anonymous code."""
        found: set[int] = set()
        seen = {anonymous}
        stack = [anonymous]
        while stack:
            for pair in out[stack.pop()]:
                callee = pair[1]
                kind = nodes[callee][3]
                if kind == "anonymous" and callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
                elif kind == "function":
                    found.add(callee)
        return found

    def raw_direction(a: int, b: int) -> str:
        return direction(nodes[a][0], nodes[b][0], package)

    result: dict[tuple[str, str], GraphPair] = {}
    not_compared: Counter = Counter()
    unmapped: Counter = Counter()
    for caller, callee, direct, mediated, sites in pairs:
        kind = nodes[callee][3]
        if kind == "module":
            not_compared[(MODULE_BODY, raw_direction(caller, callee))] += 1
            continue
        if kind == "class":
            not_compared[(CLASS_BODY, raw_direction(caller, callee))] += 1
            continue
        through = callee if kind == "anonymous" else None
        targets = sorted(reached(callee)) if through is not None else [callee]
        if not targets:
            not_compared[(EMPTY_ANONYMOUS, raw_direction(caller, callee))] += 1
            continue
        src, why = mapped[caller]
        for target in targets:
            dst, why_dst = mapped[target]
            if src is None or dst is None:
                reason = f"caller: {why}" if src is None else f"callee: {why_dst}"
                unmapped[(reason, raw_direction(caller, target))] += 1
                continue
            if src == dst and caller != target:
                not_compared[(FOLDED, raw_direction(caller, target))] += 1
                continue
            key = (src, dst)
            if key not in result:
                src_path = symbols.by_id[src].path
                result[key] = GraphPair(
                    src, dst, direction(src_path, symbols.by_id[dst].path, package)
                )
            result[key].contributions.append(
                Contribution(caller, target, through, direct, mediated, sites)
            )
    return Mapped(result, not_compared, unmapped, how)


def is_suite_entry(symbol: Symbol, symbols: Symbols) -> bool:
    """A function of the tests a test runner calls: a test (`test*` at a module's level or a
    class's method), a fixture, an xunit setup/teardown, a conftest's `pytest_*` hook."""
    parts = symbol.rel.split(".")
    filename = symbol.path.rsplit("/", 1)[-1]
    if any("fixture" in decorator for decorator in symbol.decorators):
        return True
    if symbol.name in XUNIT:
        return True
    if filename == "conftest.py" and len(parts) == 1 and symbol.name.startswith("pytest_"):
        return True
    # any file of the tests may hold tests (pytest's own `python_files` adds testing/python/*.py)
    if not symbol.name.startswith("test"):
        return False
    if len(parts) == 1:
        return True
    # a test class's methods may come from a base of any name (CommonFSTests)
    parent = symbols.by_id.get(symbols.by_rel.get((symbol.path, parts[0]), ""))
    return len(parts) == 2 and parent is not None and parent.kind == "class"


# ---------------------------------------------------------------- the call sites


class Sources:
    """The tree's files, read and parsed once, for the call sites' text and bindings."""

    def __init__(self, root: Path):
        self.root = root
        self._lines: dict[str, list[bytes]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._decorators: dict[str, dict[tuple, ast.expr]] = {}

    def lines(self, path: str) -> list[bytes]:
        if path not in self._lines:
            try:
                self._lines[path] = (self.root / path).read_bytes().splitlines()
            except OSError:
                self._lines[path] = []
        return self._lines[path]

    def text(self, path: str, site: list) -> str:
        """The source of a site's expression (columns are UTF-8 byte offsets)."""
        line, end, col, end_col = site[:4]
        lines = self.lines(path)
        if line is None or end is None or not 0 < line <= end <= len(lines):
            return ""
        if col is None or end_col is None:
            return b"\n".join(lines[line - 1 : end]).decode("utf-8", "replace").strip()
        if line == end:
            chunk = lines[line - 1][col:end_col]
        else:
            chunk = b"\n".join(
                [lines[line - 1][col:], *lines[line : end - 1], lines[end - 1][:end_col]]
            )
        return chunk.decode("utf-8", "replace")

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(b"\n".join(self.lines(path)))
            except (SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def decorator_at(self, path: str, site: list) -> ast.expr | None:
        """The decorator expression of a def or class that a site's position is, if any
        (applying a decorator is positioned at its expression)."""
        if path not in self._decorators:
            found = {}
            module = self.tree(path)
            for node in ast.walk(module) if module is not None else ():
                for decorator in getattr(node, "decorator_list", []):
                    key = (
                        decorator.lineno,
                        decorator.end_lineno,
                        decorator.col_offset,
                        decorator.end_col_offset,
                    )
                    found[key] = decorator
            self._decorators[path] = found
        return self._decorators[path].get(tuple(site[:4]))

    def binding(self, path: str, line: int, name: str) -> str:
        """How `name` is bound where the code at `line` of `path` reads it."""
        module = self.tree(path)
        if module is None:
            return "unknown"
        scopes = _enclosing_functions(module, line)
        for depth, function in enumerate(scopes):
            args = function.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg == name:
                    if arg.annotation is not None:
                        return "an annotated parameter"
                    if isinstance(function, ast.Lambda):
                        return "a lambda's parameter"
                    if function.name.startswith("test") or _is_fixture(function):
                        return "a test's or fixture's parameter (a fixture value)"
                    return "a parameter without annotation"
            for arg in (args.vararg, args.kwarg):
                if arg is not None and arg.arg == name:
                    return "a *args or **kwargs parameter"
            found = _local_binding(function, name)
            if found:
                return found if depth == 0 else f"an enclosing function's: {found}"
        for statement in module.body:
            found = _statement_binding(statement, name, module_level=True)
            if found:
                return found
        return "a builtin or a name bound nowhere in the file"


def _enclosing_functions(module: ast.Module, line: int) -> list:
    """The functions (and lambdas) around `line`, innermost first."""
    found = []
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            if first <= line <= (node.end_lineno or node.lineno):
                found.append(node)
    return sorted(found, key=lambda node: node.lineno, reverse=True)


def _is_fixture(function: ast.AST) -> bool:
    return any("fixture" in ast.unparse(d) for d in getattr(function, "decorator_list", []))


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _local_binding(function: ast.AST, name: str) -> str:
    if isinstance(function, ast.Lambda):
        return ""
    for node in _own_nodes(function):
        found = _statement_binding(node, name, module_level=False)
        if found:
            return found
    return ""


def _own_nodes(function: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function's body; a def or class inside it, not its body."""
    stack = list(getattr(function, "body", []))[::-1]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(list(ast.iter_child_nodes(node))[::-1])


def _statement_binding(node: ast.AST, name: str, module_level: bool) -> str:
    where = "a module global" if module_level else "a local"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            if (alias.asname or alias.name.split(".")[0]) == name:
                return "an imported name" if module_level else "a name imported in the function"
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if node.name == name:
            if node.decorator_list:
                return "a decorated def or class (what its decorator returned)"
            return (
                "a def or class of the file" if module_level else "a def or class of the function"
            )
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name:
                value = node.value
                if isinstance(value, ast.Call):
                    return f"{where} assigned from a call"
                return f"{where} assigned"
            if isinstance(target, (ast.Tuple, ast.List)) and name in _names(target):
                return f"{where} unpacked from a tuple"
    elif isinstance(node, ast.AnnAssign):
        if isinstance(node.target, ast.Name) and node.target.id == name:
            return f"{where} with an annotation"
    elif isinstance(node, (ast.For, ast.AsyncFor)) and name in _names(node.target):
        return "a loop variable"
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None and name in _names(item.optional_vars):
                return "a with target"
    elif isinstance(node, ast.comprehension) and name in _names(node.target):
        return "a comprehension variable"
    elif isinstance(node, ast.NamedExpr) and node.target.id == name:
        return f"{where} assigned by :="
    elif isinstance(node, ast.ExceptHandler) and node.name == name:
        return "an exception caught"
    elif isinstance(node, ast.Global) and name in node.names:
        return "a module global"
    return ""


def _parse_expression(text: str) -> ast.expr | None:
    for candidate in (text, f"({text})"):
        try:
            return ast.parse(candidate.strip(), mode="eval").body
        except SyntaxError:
            continue
    return None


def _argument_names(call: ast.Call) -> set[str]:
    """The names and attribute names a call's arguments mention."""
    found: set[str] = set()
    for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
        for node in ast.walk(argument):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
    return found


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _is_super(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _receiver(value: ast.expr, sources: Sources, path: str, line: int) -> str:
    """How the receiver of `value.m(...)` came to be."""
    if isinstance(value, ast.Name):
        if value.id in ("self", "cls"):
            return "receiver: self or cls"
        return "receiver: " + sources.binding(path, line, value.id)
    if isinstance(value, ast.Attribute):
        inner = value.value
        if isinstance(inner, ast.Name) and inner.id in ("self", "cls"):
            return "receiver: an attribute of self"
        return "receiver: an attribute of another object"
    if isinstance(value, ast.Call):
        return "receiver: the result of a call"
    if isinstance(value, ast.Subscript):
        return "receiver: an element of a container"
    return f"receiver: {type(value).__name__}"


def _callable_shape(func: ast.expr, sources: Sources, path: str, line: int) -> str:
    """What a call site calls, when it is not the callee's own name."""
    if isinstance(func, ast.Name):
        return "a name: " + sources.binding(path, line, func.id)
    if isinstance(func, ast.Attribute):
        return _receiver(func.value, sources, path, line)
    if isinstance(func, ast.Subscript):
        return "an element of a container"
    if isinstance(func, ast.Call):
        return "the result of a call"
    return type(func).__name__


# ---------------------------------------------------------------- misses by kind


def _dunder_group(name: str) -> str | None:
    if not (name.startswith("__") and name.endswith("__")) or name == "__init__":
        return None
    for group, names in DUNDER_GROUPS.items():
        if name in names:
            return group
    return "conversions and operators"


def _mediator(site: list) -> str:
    """The package (or standard-library module) of the outside function that called the
    callee."""
    inner = site[5] or site[4]
    path = inner.rsplit(":", 1)[0]
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if path.startswith("<frozen "):
        return "the standard library: " + path.removeprefix("<frozen ").split(">")[0]
    if "/lib/python3" in path:
        rest = path.split("/lib/python3", 1)[1].split("/", 2)
        module = rest[1].removesuffix(".py") if len(rest) > 1 else path
        return f"the standard library: {module}"
    return path


def classify(
    pair: GraphPair, nodes: list[list], symbols: Symbols, sources: Sources
) -> tuple[str, str, str]:
    """(kind, detail, example) of a pair the graph misses (rules in the module docstring)."""
    callee = symbols.by_id[pair.dst]
    name = callee.name
    named_first = sorted(pair.contributions, key=lambda c: (c.through is not None, c.caller))
    direct = [(c, site) for c in named_first for site in c.sites if not site[4]]
    mediated = [(c, site) for c in named_first for site in c.sites if site[4]]
    contribution, site = (direct or mediated)[0]
    path = nodes[contribution.caller][0]
    text = sources.text(path, site)
    line = site[0] or 0
    example = f"{_short(pair.src)} → {_short(pair.dst)} at {path}:{line} `{_clip(text)}`" + (
        f" (through {_mediator(site)})" if site[4] else ""
    )
    parsed = _parse_site(text) if text else None
    call = _call_naming(parsed, name) if parsed is not None else None
    names_it = call is not None
    if call is None and isinstance(parsed, ast.Call):
        call = parsed
    elif call is None and isinstance(parsed, (ast.Assert, ast.Expr, ast.Assign, ast.Return)):
        # a statement positioned as a whole (pytest rewrites asserts): its first call
        call = next((n for n in ast.walk(parsed) if isinstance(n, ast.Call)), None)

    if any("fixture" in decorator for decorator in callee.decorators):
        return "a pytest fixture called by pytest", name, example
    if name.startswith("pytest_"):
        return "a pytest hook called through pluggy", "direct" if direct else "mediated", example
    group = _dunder_group(name)
    if group and not names_it:
        return f"implicit dunder: {group}", name, example
    if not names_it and any(d.endswith(PROPERTY_DECORATORS) for d in callee.decorators):
        if isinstance(parsed, ast.Attribute):
            detail = _receiver(parsed.value, sources, path, line)
        elif isinstance(parsed, ast.Call) or not direct:
            detail = "read inside a call the site makes into code outside the tree"
        else:
            detail = f"other syntax ({type(parsed).__name__})"
        return "a property read or assigned", detail, example
    decorator = sources.decorator_at(path, site)
    if decorator is not None and not names_it:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        shape = _callable_shape(target, sources, path, line)
        if "<locals>" in nodes[contribution.callee][1] and (
            _called_name(target) in symbols.decorated_names
        ):  # `@app.route(...)`, `@app.before_request`: a decorated method's wrapper runs
            detail = "a decorated method's wrapper: " + shape
        elif isinstance(decorator, ast.Call):
            detail = "what a factory returned: " + shape
        else:
            detail = "a decorator named: " + shape
        return "a decorator applied", detail, example
    if not direct:
        return "called back by code outside the tree", _mediator(site), example
    if parsed is None:
        return "unknown", "the site's text does not parse", example
    if names_it and call is not None:
        func = call.func
        if isinstance(func, ast.Attribute) and _is_super(func.value):
            return "a super() call", name, example
        if isinstance(func, ast.Attribute):
            detail = _receiver(func.value, sources, path, line)
        else:
            detail = "a bare name: " + sources.binding(path, line, name)
        return "the site names the callee; the receiver is not bound", detail, example
    if call is None:
        if nodes[contribution.callee][4]:
            kind = "a generator made elsewhere, first iterated here"
            return kind, type(parsed).__name__, example
        return "an implicit call at other syntax", type(parsed).__name__, example
    func = call.func
    if "getattr(" in ast.unparse(func):
        return "getattr dispatch", name, example
    if name == "__init__":
        shape = _callable_shape(func, sources, path, line)
        return "a construction the graph did not resolve", shape, example
    if pair.direction == "library→tests":
        shape = _callable_shape(func, sources, path, line)
        return "the library calls a test's callback", shape, example
    if name in _argument_names(call):  # `re.sub(callback, …)`, `map(f, …)`, `sorted(key=f)`
        called = _called_name(func) or type(func).__name__
        return "handed to C code that calls it back", called, example
    if "<locals>" in nodes[contribution.callee][1]:
        called = _called_name(func)
        detail = (
            "the site calls a decorated function"
            if called in symbols.decorated_names
            else "the site calls a returned or stored closure"
        )
        return "a decorator's wrapper or a closure, called under another name", detail, example
    if isinstance(func, ast.Name) and func.id in BUILTINS:
        return "called back by a builtin", func.id, example
    if isinstance(func, ast.Attribute) and _is_super(func.value):
        return "called back by a base class outside the tree", f"super().{func.attr}", example
    shape = _callable_shape(func, sources, path, line)
    return "a call through a value (parameter, attribute, container)", shape, example


def _parse_site(text: str) -> ast.AST | None:
    """A site's text as an expression, or as the statement it starts (a `for` or `with`
    statement, or an assert that pytest rewrote, is positioned as a whole)."""
    for candidate in (text.strip(), f"({text.strip()})"):
        try:
            return ast.parse(candidate, mode="eval").body
        except SyntaxError:
            continue
    first = text.strip()
    for candidate in (first, first.split("\n", 1)[0] + " pass" if first.endswith(":") else first):
        try:
            body = ast.parse(textwrap.dedent(candidate)).body
        except SyntaxError:
            continue
        if body:
            return body[0]
    header = first.split("\n", 1)[0]
    if header.rstrip().endswith(":"):
        try:
            return ast.parse(header + " pass").body[0]
        except SyntaxError:
            return None
    return None


def _call_naming(parsed: ast.AST, name: str) -> ast.Call | None:
    """The call in a site that names `name` (`x.name(...)`, `name(...)`), if any."""
    for node in ast.walk(parsed):
        if isinstance(node, ast.Call) and _called_name(node.func) == name:
            return node
    return None


def _short(symbol_id: str) -> str:
    return symbol_id.rsplit("#", 1)[-1]


def _clip(text: str, width: int = 90) -> str:
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# ---------------------------------------------------------------- one project


def measure(name: str, force: bool = False) -> dict:
    project = PROJECTS[name]
    trace, facts = suite_trace(name, force)
    return {
        "project": f"{name}-{CORPORA[name]}",
        "library": project.package,
        **facts,
        **analyse(prepare(name), name, project.package, trace),
    }


def analyse(tree: Path, name: str, package: str, trace: Trace) -> dict:
    """Index `tree` into a fresh SQLite store and compare the trace's pairs with its graph."""
    from cartograph.index import index_repository
    from cartograph.store.sqlite import open_sqlite

    with tempfile.TemporaryDirectory(prefix="cartograph-recall-") as scratch:
        store = open_sqlite(Path(scratch) / "graph.db")
        try:
            started = time.perf_counter()
            index_repository(store, tree, name=name, workers=2, history=False)
            index_seconds = round(time.perf_counter() - started, 1)
            symbols = Symbols.from_export(store.graph.export(name))
            edges = store.graph.edge_list(name, ["CALLS", "REFERENCES"])
        finally:
            store.close()
    calls: dict[tuple[str, str], str] = {}
    references: set[tuple[str, str]] = set()
    for src, dst, kind, via, _confidence in edges:
        if kind == "CALLS":
            calls[(src, dst)] = via
        else:
            references.add((src, dst))
    mapped = map_pairs(trace.nodes, trace.pairs, symbols, package)
    return {
        "index_seconds": index_seconds,
        "traced_codes": len(trace.nodes),
        "runtime_pairs": len(trace.pairs),
        "mapped_by": dict(mapped.how),
        **compare(mapped, calls, references, trace.nodes, symbols, Sources(tree)),
    }


def compare(
    mapped: Mapped,
    calls: dict[tuple[str, str], str],
    references: set[tuple[str, str]],
    nodes: list[list],
    symbols: Symbols,
    sources: Sources,
) -> dict:
    """Recall per direction, the rows not compared and unmapped, and the misses by kind."""
    rows = {d: Counter() for d in DIRECTIONS}
    vias: Counter = Counter()
    not_compared = Counter({reason: 0 for reason, _ in mapped.not_compared})
    for (reason, _direction), count in mapped.not_compared.items():
        not_compared[reason] += count
    runner = 0
    misses: dict[str, dict] = {}
    for key in sorted(mapped.pairs):
        pair = mapped.pairs[key]
        if pair.direction == "library→tests" and is_suite_entry(symbols.by_id[pair.dst], symbols):
            runner += 1
            continue
        row = rows[pair.direction]
        row["pairs"] += 1
        if key in calls:
            row["held"] += 1
            vias[calls[key]] += 1
            continue
        if key in references:
            row["references"] += 1
        kind, detail, example = classify(pair, nodes, symbols, sources)
        entry = misses.setdefault(
            kind, {"count": 0, "by_direction": Counter(), "details": Counter(), "examples": {}}
        )
        entry["count"] += 1
        entry["by_direction"][pair.direction] += 1
        entry["details"][detail] += 1
        entry["examples"].setdefault(detail, []).append(example)
    if runner:
        not_compared[RUNNER] = runner
    total = sum(rows.values(), Counter())
    directions = {d: _rates(rows[d]) for d in DIRECTIONS}
    directions["overall"] = _rates(total)
    unmapped: dict[str, dict[str, int]] = defaultdict(dict)
    for (reason, where), count in sorted(mapped.unmapped.items()):
        unmapped[reason][where] = count
    return {
        "directions": directions,
        "held_by_via": dict(vias.most_common()),
        "not_compared": dict(not_compared.most_common()),
        "unmapped": dict(unmapped),
        "unmapped_total": sum(mapped.unmapped.values()),
        "misses": {
            kind: {
                "count": entry["count"],
                "by_direction": dict(entry["by_direction"]),
                "details": dict(entry["details"].most_common()),
                "examples": _examples(entry),
            }
            for kind, entry in sorted(misses.items(), key=lambda item: -item[1]["count"])
        },
    }


def _rates(row: Counter) -> dict:
    pairs, held = row["pairs"], row["held"]
    return {
        "pairs": pairs,
        "held": held,
        "recall": round(held / pairs, 4) if pairs else None,
        "recall_with_references": round((held + row["references"]) / pairs, 4) if pairs else None,
    }


def _examples(entry: dict) -> list[str]:
    """Three examples: one of each of the most frequent details first."""
    chosen: list[str] = []
    details = [detail for detail, _ in entry["details"].most_common()]
    for round_ in range(EXAMPLES):
        for detail in details:
            examples = entry["examples"][detail]
            if round_ < len(examples) and len(chosen) < EXAMPLES:
                chosen.append(examples[round_])
    return chosen


# ---------------------------------------------------------------- the report


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def to_markdown(report: dict) -> str:
    lines = [
        f"# Runtime recall — {report['date'][:10]}",
        "",
        f"Commit {report['commit']} · {report['machine']}. Each project's own suite run once "
        "under a profile hook (benchmark/tracing.py); the (caller, callee) pairs of the tree's "
        "functions mapped to the graph's symbols (the tree indexed into a fresh SQLite store) "
        "and compared with its CALLS edges (any via). Rules: benchmark/runtime_recall.py.",
        "",
        "| project | suite | pairs | overall | library→library | tests→library | tests→tests "
        "| library→tests | unmapped runtime pairs | suite s | traced s | index s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["projects"]:
        d = row["directions"]
        lines.append(
            f"| {row['project']} | `{row['suite']}` | {d['overall']['pairs']} | "
            f"{_pct(d['overall']['recall'])} | "
            + " | ".join(_pct(d[name]["recall"]) for name in DIRECTIONS)
            + f" | {row['unmapped_total']} | {row['suite_seconds']} | {row['trace_seconds']} | "
            f"{row['index_seconds']} |"
        )
    lines += ["", "Targets (issue 38): " + ", ".join(f"{k} ≥ {v:.0%}" for k, v in TARGETS.items())
              + " on every project; PyCG precision ≥ 98 %, recall ≥ 95 %.", ""]  # fmt: skip
    for row in report["projects"]:
        verdicts = []
        for key, floor in TARGETS.items():
            value = row["directions"][key]["recall"]
            verdicts.append(
                f"{key} {_pct(value)} {'met' if value and value >= floor else 'NOT met'}"
            )
        lines.append(f"- {row['project']}: " + "; ".join(verdicts))
    if report.get("pycg"):
        summary = report["pycg"]["summary"]["ALL"]
        lines += [
            "",
            f"## PyCG micro-benchmark (same commit): precision {summary['precision']:.1%}, "
            f"recall {summary['recall']:.1%}",
            "",
            report["pycg_markdown"].rstrip(),
        ]
    else:
        lines += ["", "PyCG's micro-benchmark was not measured (no `--pycg`)."]
    lines += ["", "## Misses by kind, all projects", ""]
    kinds = Counter()
    for row in report["projects"]:
        for kind, entry in row["misses"].items():
            kinds[kind] += entry["count"]
    names = [row["project"] for row in report["projects"]]
    lines += ["| kind | " + " | ".join(names) + " | all |", "|---|" + "---:|" * (len(names) + 1)]
    for kind, count in kinds.most_common():
        cells = [str(row["misses"].get(kind, {}).get("count", 0)) for row in report["projects"]]
        lines.append(f"| {kind} | " + " | ".join(cells) + f" | {count} |")
    for row in report["projects"]:
        lines += _project_markdown(row)
    return "\n".join(lines) + "\n"


def _project_markdown(row: dict) -> list[str]:
    lines = [
        "",
        f"## {row['project']}",
        "",
        f"Library: `{row['library']}/`, tests: the rest of the tree. Suite `{row['suite']}`: "
        f"{row['suite_seconds']} s alone (exit {row['suite_status']}), {row['trace_seconds']} s "
        f"traced (exit {row['trace_status']}); {row['traced_codes']} codes, "
        f"{row['runtime_pairs']} runtime pairs; index {row['index_seconds']} s. Codes mapped: "
        + ", ".join(f"{k} {v}" for k, v in sorted(row["mapped_by"].items()))
        + ". Calls into the tree from code outside it and outside the installed libraries (files "
        f"the tests write to a temporary folder and run), not compared: "
        f"{row['entries_from_foreign_code']}; the profile function found unset (a test "
        f"recursing to the limit) and put back: {row['profile_reinstalled']} times.",
        "",
        "| direction | pairs | held (CALLS) | recall | with REFERENCES |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, d in row["directions"].items():
        lines.append(
            f"| {name} | {d['pairs']} | {d['held']} | {_pct(d['recall'])} | "
            f"{_pct(d['recall_with_references'])} |"
        )
    lines += ["", "Not compared (runtime pairs; graph pairs for the runner row):", ""]
    lines += [f"- {reason}: {count}" for reason, count in row["not_compared"].items()]
    lines += ["", f"Unmapped runtime pairs: {row['unmapped_total']}", ""]
    for reason, where in row["unmapped"].items():
        lines.append(f"- {reason}: " + ", ".join(f"{d} {n}" for d, n in where.items()))
    lines += ["", "Held pairs by via: " + ", ".join(f"{v} {n}" for v, n in row["held_by_via"].items()), ""]  # fmt: skip
    misses = sum(entry["count"] for entry in row["misses"].values())
    lines += [f"### Misses by kind ({misses})", ""]
    for kind, entry in row["misses"].items():
        details = list(entry["details"].items())
        shown = ", ".join(f"{d} {n}" for d, n in details[:5])
        more = f", {len(details) - 5} more" if len(details) > 5 else ""
        directions = ", ".join(f"{d} {n}" for d, n in entry["by_direction"].items())
        lines.append(f"- **{kind}**: {entry['count']} ({directions}). Details: {shown}{more}.")
        lines += [f"  - {example}" for example in entry["examples"]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--project", default="click,flask,pytest,markdown,mkdocs", help="comma-separated"
    )
    parser.add_argument("--pycg", type=Path, help="a PyCG checkout or git directory")
    parser.add_argument("--force", action="store_true", help="trace the suites again")
    parser.add_argument("--write", action="store_true", help="also write benchmark/results/")
    args = parser.parse_args(argv)
    report: dict = {**run_facts(), "projects": []}
    for name in args.project.split(","):
        report["projects"].append(measure(name, args.force))
        print(f"{name}: done", file=sys.stderr)
    if args.pycg:
        from benchmark import pycg

        result = pycg.measure(args.pycg)
        report["pycg"] = {"summary": result["summary"], "set_apart": result["set_apart"]}
        report["pycg_markdown"] = pycg.to_markdown(result)
    write_report("runtime-recall", report, to_markdown(report), write=args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
