"""Ground truth for test selection: which tests of a real project notice a fault in a function.

For a project whose sdist ships its tests (flask 3.1.0, click 8.1.7, see `benchmark.corpora`),
the sdist is copied once to ~/.cache/cartograph/faults/<name>-<version>/tree, a git repository
with one commit of the clean tree (fixed author and date, so the same commit every time), and
its tests run in a virtualenv made once beside it (`venv/`: the project installed from the copy
with `pip install -e`, its test requirements pinned to the versions its own requirements files
name). The whole suite runs once on the clean tree; the tests that fail there are left out of
everything.

Faults: every function and method of the package sources (src/<package>/**/*.py) found with
`ast`, less the stubs (a body of only a docstring, `...` or `pass`; `@overload` and
`@abstractmethod`) and what is under `if TYPE_CHECKING:`, is a candidate; N of them are sampled
with a fixed seed, round-robin over the files (in a shuffled order) so they spread across the
package. Each gets `raise RuntimeError("cartograph fault")` as the first statement of its body
(after the docstring; a one-line `def f(): return x` is split onto lines), the whole suite runs
(per-run timeout 300 s, no `-x`), and the tests that passed on the clean tree but fail or error
now are the fault's ground truth; then the file is restored. A generator's (or an async
function's) raise only fires when it is iterated (awaited): such faults are marked. Faults no
test notices are kept with `failing == []`: they measure the code the suite never reaches.
Each fault also carries its unified diff (`diff --git a/p b/p`, `--- a/p`, `+++ b/p`, as git
writes it): that is what a selector is given.

A test module that no longer imports under a fault (pytest's collection error) counts all its
tests as errors; the runs use `--continue-on-collection-errors` so the other modules still run.
After the faults the clean suite runs once more: a test whose outcome changed is flaky and is
moved to `broken_on_clean` (and out of every fault's list).

Results are cached at ~/.cache/cartograph/faults/<name>-<version>/faults-<seed>-<N>.json
(`force` redoes them; an interrupted build resumes from faults-<seed>-<N>.partial.json).

    python -m benchmark.faults [--project flask,click] [--faults 80] [--seed 15] [--force]

`ground_truth(name)` returns the `GroundTruth`; `run_tests(truth, node_ids)` runs tests in the
project's virtualenv, for a selector's grading.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.report import run_facts, write_report

HOME = Path(os.environ.get("CARTOGRAPH_FAULTS", Path.home() / ".cache" / "cartograph" / "faults"))
RAISE = 'raise RuntimeError("cartograph fault")'
_RAISE_AST = ast.dump(ast.parse(RAISE).body[0])
RUN_TIMEOUT = 300.0
PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "--continue-on-collection-errors"]
PLUGIN = "_cartograph_outcomes"
FORMAT = 1  # of the cached JSON; a different one is rebuilt
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Cartograph Benchmark",
    "GIT_AUTHOR_EMAIL": "benchmark@cartograph.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "Cartograph Benchmark",
    "GIT_COMMITTER_EMAIL": "benchmark@cartograph.invalid",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
}


@dataclass(frozen=True)
class Project:
    name: str
    package: str  # the folder of the package sources, relative to the tree
    requirements: tuple[str, ...]  # besides the project itself (pinned: reproducible runs)
    # what runs the whole suite, as `python -m <suite...>` in the tree: the runtime-recall
    # benchmark's trace (the faults runs, on flask, click and markdown, use PYTEST_ARGS)
    suite: tuple[str, ...] = ("pytest", "-q", "-p", "no:cacheprovider")
    # what pytest needs besides PYTEST_ARGS to collect the suite the project's own runner runs
    # (the fault runs, coverage and the signature runs)
    pytest_args: tuple[str, ...] = ()
    tests_inside: str = ""  # the test folder below `package`, whose functions are not faulted


PROJECTS = {
    # flask's requirements/tests.txt (pytest, asgiref, python-dotenv) and, for its
    # dependencies, the releases current when 3.1.0 came out
    "flask": Project(
        "flask",
        "src/flask",
        (
            "pytest==8.3.3",
            "werkzeug==3.1.3",
            "jinja2==3.1.4",
            "itsdangerous==2.2.0",
            "click==8.1.7",
            "blinker==1.9.0",
            "asgiref==3.8.1",
            "python-dotenv==1.0.1",
        ),
    ),
    "click": Project("click", "src/click", ("pytest==7.4.0",)),  # its requirements/tests.txt
    # pytest's own suite runs on the tree's pytest (installed editable); its `dev` extra and,
    # for its dependencies, the releases current when 8.3.3 came out
    "pytest": Project(
        "pytest",
        "src",  # _pytest/, pytest/ and py.py
        (
            "iniconfig==2.0.0",
            "packaging==24.1",
            "pluggy==1.5.0",
            "argcomplete==3.5.0",
            "attrs==24.2.0",
            "hypothesis==6.112.1",
            "mock==5.1.0",
            "pygments==2.18.0",
            "requests==2.32.3",
            "setuptools==74.1.2",
            "xmlschema==3.4.2",
        ),
        ("pytest", "-q", "testing"),  # one test of its suite needs the cache plugin
    ),
    # Python-Markdown's suite is unittest, run as its tox.ini runs it; its `testing` extra is
    # pyyaml (the pygments tests skip unless PYGMENTS_VERSION names the installed release)
    # a unittest-style suite (unittest.TestCase throughout); its runtime-recall trace runs it
    # with unittest, the fault runs with pytest (which collects TestCase classes) to read each
    # test's outcome
    "markdown": Project(
        "markdown",
        "markdown",
        ("pyyaml==6.0.2", "pytest==8.3.3", "pytest-cov==5.0.0"),
        ("unittest", "discover", "tests"),
    ),
    # the plugin-based tool: MkDocs runs its plugins' and themes' event handlers by name
    # (`on_page_markdown`, …) through entry points; its suite is unittest, run by its
    # pyproject.toml's `python -m unittest discover -s mkdocs -p "*tests.py"` (pytest collects
    # the same TestCase classes given the file pattern); its dependencies pinned to the
    # releases current when 1.6.1 came out, babel for the i18n tests
    "mkdocs": Project(
        "mkdocs",
        "mkdocs",
        (
            "pytest==8.3.3",
            "click==8.1.7",
            "jinja2==3.1.4",
            "markupsafe==2.1.5",
            "markdown==3.7",
            "pyyaml==6.0.2",
            "watchdog==5.0.2",
            "ghp-import==2.1.0",
            "pyyaml-env-tag==0.1",
            "packaging==24.1",
            "mergedeep==1.3.4",
            "pathspec==0.12.1",
            "mkdocs-get-deps==0.2.0",
            "babel==2.16.0",
        ),
        ("unittest", "discover", "-s", "mkdocs", "-p", "*tests.py"),
        ("-o", "python_files=*tests.py", "mkdocs"),
        "mkdocs/tests",
    ),
}

# A pytest plugin (loaded with -p from the folder beside the venv): writes one JSON line per
# finished test ({"test": nodeid, "outcome": ...}) and per collection error ({"collect_error":
# nodeid}) to $CARTOGRAPH_OUTCOMES as it goes, so a run that times out still tells what it did;
# with $CARTOGRAPH_SELECT (a JSON list of node ids) it keeps only those tests.
PLUGIN_SOURCE = '''\
"""Written by benchmark/faults.py: every test's outcome, as JSON lines."""

import json
import os

_outcomes = {}
_stream = None


def pytest_configure(config):
    global _stream
    if os.environ.get("CARTOGRAPH_OUTCOMES"):
        _stream = open(os.environ["CARTOGRAPH_OUTCOMES"], "a", buffering=1, encoding="utf-8")


def pytest_unconfigure(config):
    if _stream is not None:
        _stream.close()


def pytest_collection_modifyitems(session, config, items):
    if not os.environ.get("CARTOGRAPH_SELECT"):
        return
    with open(os.environ["CARTOGRAPH_SELECT"], encoding="utf-8") as handle:
        wanted = set(json.load(handle))
    keep = [item for item in items if item.nodeid in wanted]
    dropped = [item for item in items if item.nodeid not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


def pytest_collectreport(report):
    if report.failed and _stream is not None:
        _stream.write(json.dumps({"collect_error": report.nodeid}) + "\\n")


def pytest_runtest_logreport(report):
    now = _outcomes.get(report.nodeid)
    if now in ("failed", "error"):
        return
    if report.failed:
        _outcomes[report.nodeid] = "failed" if report.when == "call" else "error"
    elif report.skipped:  # pytest.skip, skip marks and xfail
        _outcomes[report.nodeid] = "skipped"
    elif report.when == "call":
        _outcomes[report.nodeid] = "passed"


def pytest_runtest_logfinish(nodeid, location):
    if _stream is not None and nodeid in _outcomes:
        _stream.write(json.dumps({"test": nodeid, "outcome": _outcomes[nodeid]}) + "\\n")
'''


@dataclass
class Fault:
    project: str
    path: str  # relative to the tree
    qualname: str  # dotted within the module: "Class.method", "outer.inner"
    line: int  # of the `def`
    body_line: int  # of the statement the raise goes before (the first after the docstring)
    generator: bool  # the raise fires only when the generator is iterated
    failing: list[str]  # tests that passed on the clean tree and fail or error with the fault
    diff: str  # the fault as a unified diff, as git writes it
    seconds: float  # the suite run with the fault
    is_async: bool = False  # the raise fires only when the coroutine is awaited
    timed_out: bool = False  # the run was killed after RUN_TIMEOUT (failing: what had failed)


@dataclass
class GroundTruth:
    project: str
    version: str
    root: Path  # the clean tree (a git repository, one commit), left in place for indexing
    suite: list[str]  # every test collected on the clean tree, less broken_on_clean
    broken_on_clean: list[str]  # failed/errored on the clean tree, or flaky between two runs
    faults: list[Fault]
    stats: dict = field(default_factory=dict)  # timings and counts of the build

    @property
    def python(self) -> Path:
        """The interpreter of the project's virtualenv."""
        return self.root.parent / "venv" / "bin" / "python"


@dataclass(frozen=True)
class Target:
    """A function the fault can go into, and where its raise goes."""

    path: str
    qualname: str
    line: int
    body_line: int
    body_col: int  # byte offset of that statement in its line (ast's col_offset)
    first_line: int  # line and byte offset of the body's first statement (the docstring)
    first_col: int
    def_indent: str
    generator: bool
    is_async: bool


@dataclass
class Run:
    outcomes: dict[str, str]
    collect_errors: list[str]
    seconds: float
    returncode: int | None  # None: killed after the timeout
    output_tail: str


# ---------------------------------------------------------------- the tree and its virtualenv


def home(name: str) -> Path:
    return HOME / f"{name}-{CORPORA[name]}"


def prepare(name: str) -> Path:
    """The clean tree of `name` (copied and committed once) with its virtualenv ready."""
    project = PROJECTS[name]
    base = home(name)
    base.mkdir(parents=True, exist_ok=True)
    tree = base / "tree"
    if not (tree / ".git").is_dir() or _git(tree, "rev-parse", "--verify", "-q", "HEAD") is None:
        _make_tree(fetch(name), tree)
    else:
        dirty = _git(tree, "status", "--porcelain", "--untracked-files=no")
        if dirty:  # an interrupted fault run left a file changed
            print(f"restoring the clean tree of {name}:\n{dirty}", file=sys.stderr)
            _git(tree, "checkout", "-q", "--", ".")
    _make_venv(project, CORPORA[name], base / "venv", tree)
    plugin = base / "plugin" / f"{PLUGIN}.py"
    plugin.parent.mkdir(exist_ok=True)
    if not plugin.exists() or plugin.read_text() != PLUGIN_SOURCE:
        plugin.write_text(PLUGIN_SOURCE)
    return tree


def _git(tree: Path, *args: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(tree), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_IDENTITY},
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def _make_tree(source: Path, tree: Path) -> None:
    shutil.rmtree(tree, ignore_errors=True)
    # build metadata an sdist may ship (click's src/click.egg-info) is rewritten by the install
    shutil.copytree(source, tree, symlinks=True, ignore=shutil.ignore_patterns("*.egg-info"))
    env = {**os.environ, **GIT_IDENTITY}
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "commit.gpgsign=false", "commit", "-q", "-m", f"{source.name} (sdist)"],
    ):
        subprocess.run(["git", "-C", str(tree), *args], check=True, env=env)
    # what installing and testing leave behind is not a change of the tree
    exclude = tree / ".git" / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("__pycache__/\n*.pyc\n*.egg-info/\n.pytest_cache/\nbuild/\n")


def _make_venv(project: Project, version: str, venv: Path, tree: Path) -> None:
    wanted = json.dumps(
        {"tree": str(tree), "version": version, "requirements": project.requirements}
    )
    marker = venv / ".cartograph-ready"
    if marker.exists() and marker.read_text() == wanted:
        return
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # a project versioned by setuptools-scm (pytest) would take its version from the tree's
    # one-commit git repository (0.1.dev1) rather than the sdist's: name the release
    scm = f"SETUPTOOLS_SCM_PRETEND_VERSION_FOR_{project.name.upper().replace('-', '_')}"
    subprocess.run(
        [*pip, "-e", str(tree), *project.requirements],
        check=True,
        env={**os.environ, scm: version},
    )
    marker.write_text(wanted)


# ---------------------------------------------------------------- running tests


def _test_env(base: Path, extra: dict | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "PYTEST_", "FLASK_", "VIRTUAL_ENV", "CARTOGRAPH_"))
    }
    env.update(
        PATH=f"{base / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(base / "venv"),
        PYTHONPATH=str(base / "plugin"),
        PYTHONDONTWRITEBYTECODE="1",  # the faulted files leave no stale bytecode behind
        PYTHONHASHSEED="0",
    )
    extra = dict(extra or {})
    if extra.get("PYTHONPATH"):  # the outcomes plugin stays importable
        extra["PYTHONPATH"] += os.pathsep + env["PYTHONPATH"]
    env.update(extra)
    return env


def _pytest(
    project: Project,
    tree: Path,
    node_ids: Sequence[str] | None,
    expected: Sequence[str],
    extra_args: Sequence[str] = (),
    env: dict | None = None,
    timeout: float = RUN_TIMEOUT,
) -> Run:
    """Run pytest in the tree's virtualenv; a test of `expected` (or of `node_ids`) that did
    not report (its module failed to import, the run was killed) is an "error"."""
    base = tree.parent
    with tempfile.TemporaryDirectory(prefix="cartograph-faults-") as scratch:
        outcomes_file = Path(scratch) / "outcomes.jsonl"
        variables = {"CARTOGRAPH_OUTCOMES": str(outcomes_file)}
        args = [str(base / "venv" / "bin" / "python"), "-m", "pytest", *PYTEST_ARGS]
        args += ["-p", PLUGIN, *project.pytest_args, *extra_args]
        if node_ids is not None:
            select = Path(scratch) / "select.json"
            select.write_text(json.dumps(list(node_ids)))
            variables["CARTOGRAPH_SELECT"] = str(select)
            args += sorted({node.split("::", 1)[0] for node in node_ids})
            expected = node_ids
        started = time.perf_counter()
        process = subprocess.Popen(
            args,
            cwd=tree,
            env={**_test_env(base, env), **variables},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so a timeout kills what the tests started too
        )
        try:
            output, _ = process.communicate(timeout=timeout)
            returncode: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            returncode = None
        seconds = time.perf_counter() - started
        outcomes: dict[str, str] = {}
        collect_errors: list[str] = []
        if outcomes_file.exists():
            for line in outcomes_file.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if "collect_error" in row:
                    collect_errors.append(row["collect_error"])
                else:
                    outcomes[row["test"]] = row["outcome"]
    for node in expected:
        outcomes.setdefault(node, "error")
    tail = output.decode("utf-8", "replace")[-3000:]
    return Run(outcomes, collect_errors, round(seconds, 2), returncode, tail)


def run_tests(
    truth: GroundTruth,
    node_ids: list[str] | None,
    extra_args: Sequence[str] = (),
    env: dict | None = None,
) -> dict[str, str]:
    """Run the given tests (the whole suite when None) of the tree at `truth.root`, as it is
    now, in the project's virtualenv: node id -> "passed" / "failed" / "error" / "skipped".
    `env` adds to the tests' environment. A requested test that did not run (its module did
    not import, or the run passed RUN_TIMEOUT) is an "error"."""
    if node_ids is not None and not node_ids:
        return {}
    expected = [*truth.suite, *truth.broken_on_clean]
    return _pytest(
        PROJECTS[truth.project], truth.root, node_ids, expected, extra_args, env
    ).outcomes


# ---------------------------------------------------------------- the functions to fault


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_stub(body: list[ast.stmt]) -> bool:
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Pass):
            continue
        value = (
            stmt.value.value
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            else None
        )
        if value is Ellipsis or (index == 0 and isinstance(value, str)):
            continue
        return False
    return True


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call):
            decorator = decorator.func
        if isinstance(decorator, ast.Name):
            names.add(decorator.id)
        elif isinstance(decorator, ast.Attribute):
            names.add(decorator.attr)
    return names


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    todo: list[ast.AST] = list(node.body)
    while todo:
        child = todo.pop()
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(child))
    return False


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.scope: list[str] = []
        self.found: list[Target] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            live = node.orelse
        elif (
            isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and _is_type_checking(node.test.operand)
        ):
            live = node.body
        else:
            self.generic_visit(node)
            return
        for stmt in live:
            self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        stub = _is_stub(node.body) or _decorator_names(node) & {"overload", "abstractmethod"}
        if not stub:
            body = node.body
            docstring = (
                isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            )
            target = body[1] if docstring else body[0]
            def_line = self.lines[node.lineno - 1]
            self.found.append(
                Target(
                    path=self.path,
                    qualname=".".join([*self.scope, node.name]),
                    line=node.lineno,
                    body_line=min(
                        [target.lineno] + [d.lineno for d in getattr(target, "decorator_list", [])]
                    ),  # a decorated def or class starts at its first decorator
                    body_col=target.col_offset,
                    first_line=body[0].lineno,
                    first_col=body[0].col_offset,
                    def_indent=def_line[: len(def_line) - len(def_line.lstrip())],
                    generator=_is_generator(node),
                    is_async=isinstance(node, ast.AsyncFunctionDef),
                )
            )
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef


def candidates(tree: Path, package: str, tests_inside: str = "") -> list[Target]:
    """Every function of the package that a fault can go into, by path and line (none of the
    test folder `tests_inside`)."""
    found: list[Target] = []
    for file in sorted((tree / package).rglob("*.py")):
        path = file.relative_to(tree).as_posix()
        if tests_inside and (path + "/").startswith(tests_inside + "/"):
            continue
        text = file.read_text(encoding="utf-8")
        finder = _Finder(path, text.splitlines(keepends=True))
        finder.visit(ast.parse(text, filename=path))
        found += finder.found
    return sorted(found, key=lambda target: (target.path, target.line))


def insert_fault(text: str, target: Target) -> str:
    """`text` with the raise as the first statement of the target's body (after its docstring);
    a body on the `def` line (or after a docstring and `;`) is split onto lines. Raises
    ValueError when the result does not compile or the raise is not where it should be."""
    lines = text.splitlines(keepends=True)
    raw = lines[target.body_line - 1].encode("utf-8")
    before = raw[: target.body_col].decode("utf-8")
    if not before.strip():  # the statement starts its line: the raise goes on the line before
        lines.insert(target.body_line - 1, f"{before}{RAISE}\n")
    else:
        first_raw = lines[target.first_line - 1].encode("utf-8")
        one_line_suite = bool(first_raw[: target.first_col].decode("utf-8").strip())
        if one_line_suite:
            indent = target.def_indent + "    "
        else:
            first = lines[target.first_line - 1]
            indent = first[: len(first) - len(first.lstrip())]
        cuts = sorted({target.body_col} | ({target.first_col} if one_line_suite else set()))
        if one_line_suite and target.first_line != target.body_line:
            raise ValueError(f"{target.path}:{target.line}: a multi-line one-line suite")
        pieces = [
            raw[a:b].decode("utf-8") for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)
        ]
        head, middle, tail = pieces[0], pieces[1:-1], pieces[-1]
        replaced = [head.rstrip().rstrip(";").rstrip() + "\n"]
        replaced += [indent + piece.strip().rstrip(";").rstrip() + "\n" for piece in middle]
        replaced += [f"{indent}{RAISE}\n", indent + tail.lstrip()]
        lines[target.body_line - 1 : target.body_line] = replaced
    faulted = "".join(lines)
    try:
        module = ast.parse(faulted, filename=target.path)
    except SyntaxError as error:
        raise ValueError(f"{target.path}:{target.line}: does not compile: {error}") from None
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == target.line:
            statements = [s for s in node.body if isinstance(s, ast.Raise)]
            if statements and ast.dump(statements[0]) == _RAISE_AST:
                index = node.body.index(statements[0])
                if index == 0 or (index == 1 and _is_stub(node.body[:1])):
                    return faulted
    raise ValueError(f"{target.path}:{target.line}: the raise is not the body's first statement")


def git_diff(path: str, old: str, new: str) -> str:
    """The change of one file as `git diff` writes it (without the index line)."""
    out = [f"diff --git a/{path} b/{path}\n"]
    for line in difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    ):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def sample(targets: list[Target], count: int, rng: random.Random) -> list[Target]:
    """`count` targets, one file at a time round-robin (files and their functions shuffled)."""
    by_file: dict[str, list[Target]] = {}
    for target in targets:
        by_file.setdefault(target.path, []).append(target)
    files = sorted(by_file)
    rng.shuffle(files)
    for path in files:
        rng.shuffle(by_file[path])
    picked: list[Target] = []
    while len(picked) < min(count, len(targets)):
        for path in files:
            if by_file[path] and len(picked) < count:
                picked.append(by_file[path].pop())
    return sorted(picked, key=lambda target: (target.path, target.line))


# ---------------------------------------------------------------- the ground truth


def _cache_file(name: str, seed: int, count: int) -> Path:
    return home(name) / f"faults-{seed}-{count}.json"


def _load(data: dict, tree: Path) -> GroundTruth:
    return GroundTruth(
        project=data["project"],
        version=data["version"],
        root=tree,
        suite=data["suite"],
        broken_on_clean=data["broken_on_clean"],
        faults=[Fault(**fault) for fault in data["faults"]],
        stats=data["stats"],
    )


def ground_truth(name: str, faults: int = 80, seed: int = 15, force: bool = False) -> GroundTruth:
    """The ground truth of `faults` sampled faults of project `name` (cached). Prepares the
    tree and its virtualenv when missing, and puts back the clean version of any tracked file
    found changed there (what an interrupted run leaves)."""
    tree = prepare(name)
    cache = _cache_file(name, seed, faults)
    if cache.exists() and not force:
        data = json.loads(cache.read_text())
        if data.get("format") == FORMAT:
            return _load(data, tree)
    return _build(name, tree, faults, seed, force)


def _build(name: str, tree: Path, count: int, seed: int, force: bool) -> GroundTruth:
    project = PROJECTS[name]
    started = time.perf_counter()
    clean = _pytest(project, tree, None, ())
    # a collection error of the clean suite that is no test module (markdown imports unittest's
    # TestSuite into a test module, and another module turns warnings into errors: pytest's
    # "cannot collect TestSuite" warning is then an error) is no test either; a module that
    # cannot be imported is
    modules = [e for e in clean.collect_errors if "::" not in e]
    if clean.returncode not in (0, 1) or modules or not clean.outcomes:
        raise RuntimeError(f"the clean suite of {name} did not run:\n{clean.output_tail}")
    passed = sorted(node for node, outcome in clean.outcomes.items() if outcome == "passed")
    broken = sorted(
        node for node, outcome in clean.outcomes.items() if outcome in ("failed", "error")
    )
    collected = sorted(clean.outcomes)
    print(
        f"{name}: clean suite {len(collected)} tests ({len(passed)} passed, {len(broken)} "
        f"broken) in {clean.seconds:.1f} s",
        file=sys.stderr,
    )

    targets = candidates(tree, project.package, project.tests_inside)
    faultable: list[Target] = []
    texts: dict[str, str] = {}
    unfaultable: list[str] = []
    for target in targets:
        text = texts.setdefault(target.path, (tree / target.path).read_text(encoding="utf-8"))
        try:
            insert_fault(text, target)
        except ValueError as error:
            unfaultable.append(str(error))
            continue
        faultable.append(target)
    picked = sample(faultable, count, random.Random(f"{name}-{seed}"))

    partial = _cache_file(name, seed, count).with_suffix(".partial.json")
    done: dict[tuple[str, int], Fault] = {}
    if partial.exists() and not force:
        for row in json.loads(partial.read_text()).get("faults", []):
            done[(row["path"], row["line"])] = Fault(**row)
    results: list[Fault] = []
    expected = collected
    for number, target in enumerate(picked, 1):
        key = (target.path, target.line)
        if key in done:
            results.append(done[key])
            continue
        fault = _run_fault(name, tree, target, texts[target.path], expected, set(passed))
        results.append(fault)
        print(
            f"{name} [{number}/{len(picked)}] {target.path}:{target.line} {target.qualname}: "
            f"{len(fault.failing)} failing, {fault.seconds:.1f} s"
            + (" (timed out)" if fault.timed_out else ""),
            file=sys.stderr,
        )
        partial.write_text(json.dumps({"faults": [asdict(r) for r in results]}))

    again = _pytest(project, tree, None, collected)  # the tree restored, and which tests are flaky
    flaky = sorted(
        node
        for node in collected
        if (clean.outcomes[node] == "passed") != (again.outcomes.get(node) == "passed")
    )
    if flaky:
        print(f"{name}: flaky between the two clean runs: {flaky}", file=sys.stderr)
    left_out = set(broken) | set(flaky)
    for fault in results:
        fault.failing = [node for node in fault.failing if node not in left_out]
    stats = {
        "candidates": len(targets),
        "unfaultable": unfaultable,
        "files": len({target.path for target in targets}),
        "clean_outcomes": {
            outcome: sum(1 for o in clean.outcomes.values() if o == outcome)
            for outcome in ("passed", "failed", "error", "skipped")
        },
        "clean_seconds": clean.seconds,
        "clean_again_seconds": again.seconds,
        "flaky": flaky,
        "fault_seconds": round(sum(fault.seconds for fault in results), 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "requirements": list(project.requirements),
        "pytest_args": [*PYTEST_ARGS, *project.pytest_args],
        "seed": seed,
        "count": count,
        **run_facts(),
    }
    truth = GroundTruth(
        project=name,
        version=CORPORA[name],
        root=tree,
        suite=[node for node in collected if node not in left_out],
        broken_on_clean=sorted(left_out),
        faults=results,
        stats=stats,
    )
    data = {**asdict(truth), "root": str(tree), "format": FORMAT}
    _cache_file(name, seed, count).write_text(json.dumps(data, indent=1) + "\n")
    partial.unlink(missing_ok=True)
    return truth


def _run_fault(
    name: str, tree: Path, target: Target, text: str, expected: list[str], passed: set[str]
) -> Fault:
    file = tree / target.path
    original = file.read_bytes()
    faulted = insert_fault(text, target)
    try:
        file.write_text(faulted, encoding="utf-8")
        run = _pytest(PROJECTS[name], tree, None, expected)
    finally:
        file.write_bytes(original)
    if _git(tree, "status", "--porcelain", "--untracked-files=no"):
        raise RuntimeError(f"{tree} is not clean after restoring {target.path}")
    failing = sorted(
        node for node, outcome in run.outcomes.items() if node in passed and outcome != "passed"
    )
    return Fault(
        project=name,
        path=target.path,
        qualname=target.qualname,
        line=target.line,
        body_line=target.body_line,
        generator=target.generator,
        failing=failing,
        diff=git_diff(target.path, text, faulted),
        seconds=run.seconds,
        is_async=target.is_async,
        timed_out=run.returncode is None,
    )


# ---------------------------------------------------------------- the summary


def summary(truth: GroundTruth) -> dict:
    counts = [len(fault.failing) for fault in truth.faults]
    noticed = [count for count in counts if count]
    generators = [fault for fault in truth.faults if fault.generator or fault.is_async]
    runs = [fault.seconds for fault in truth.faults]
    return {
        "project": f"{truth.project}-{truth.version}",
        "suite": len(truth.suite),
        "broken_on_clean": len(truth.broken_on_clean),
        "candidates": truth.stats.get("candidates"),
        "faults": len(truth.faults),
        "noticed": len(noticed),
        "median_failing": statistics.median(counts) if counts else 0,
        "median_failing_noticed": statistics.median(noticed) if noticed else 0,
        "generator_or_async": len(generators),
        "generator_or_async_noticed": sum(1 for fault in generators if fault.failing),
        "timed_out": sum(1 for fault in truth.faults if fault.timed_out),
        "clean_seconds": truth.stats.get("clean_seconds"),
        "median_run_seconds": round(statistics.median(runs), 1) if runs else 0,
        "total_seconds": truth.stats.get("total_seconds"),
    }


def to_markdown(rows: list[dict], facts: dict) -> str:
    lines = [
        f"# Fault ground truth — {facts['date']}",
        "",
        f"Commit {facts['commit']} · {facts['machine']} · one `raise RuntimeError` per sampled "
        "function, the whole suite run each time (see benchmark/faults.py).",
        "",
        "| project | suite | broken | candidates | faults | noticed | median failing "
        "(noticed) | generator/async (noticed) | timed out | clean run s | median run s "
        "| total s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['project']} | {r['suite']} | {r['broken_on_clean']} | {r['candidates']} "
            f"| {r['faults']} | {r['noticed']} | {r['median_failing']} "
            f"({r['median_failing_noticed']}) | {r['generator_or_async']} "
            f"({r['generator_or_async_noticed']}) | {r['timed_out']} | {r['clean_seconds']} "
            f"| {r['median_run_seconds']} | {r['total_seconds']} |"
        )
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ground truth for test selection: faults")
    parser.add_argument("--project", default="flask,click", help="comma-separated")
    parser.add_argument("--faults", type=int, default=80, help="faults per project")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--force", action="store_true", help="redo the runs even when cached")
    parser.add_argument("--write", action="store_true", help="also write benchmark/results/")
    args = parser.parse_args(argv)
    rows = []
    for name in args.project.split(","):
        truth = ground_truth(name, args.faults, args.seed, args.force)
        print(f"{name}: {_cache_file(name, args.seed, args.faults)}", file=sys.stderr)
        rows.append(summary(truth))
    facts = run_facts()
    report = {**facts, "seed": args.seed, "faults_per_project": args.faults, "projects": rows}
    write_report("faults", report, to_markdown(rows, facts), write=args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
