"""Will break, graded by running the suite: change a real function's signature, run the
project's suite, and compare `impact`'s "will break" with the callers whose calls actually
failed.

    python -m benchmark.signatures [--project click,flask,markdown] [--count 30] [--no-write]

For each project of `benchmark.faults` (its tree, virtualenv and outcomes plugin), functions of
the package that the clean suite calls from at least one function of the tree are sampled
(seeded) and changed one at a time, one of three ways:

- *remove*: the last parameter goes; the body gets `name = <its default>` (or None) as its
  first statement, so the body still runs — only how callers bind changes;
- *keyword-only*: the last positional parameter becomes keyword-only (`*` before it);
- *reorder*: the first two positional parameters swap places (with their defaults, when both
  have one or neither has).

The suite runs with the change, under a second plugin that records each failing test's
traceback entries (file, line). A caller *failed* when, in some failing test's traceback, its
frame is the one right above the changed function's frame, or, the call never having bound
(a TypeError raised in the caller), the innermost frame is its call of the function. Callers are
graph symbols: the innermost function around the frame's line.

`impact --patch <the change>` is asked on the clean index; its "will break" entries for the
changed function are the prediction (`certainty` breaks, or check). The *universe* is the
callers the clean suite saw calling the function (the runtime-recall trace): precision is
over the sure breaks among them (a caller no test runs cannot be confirmed either way),
recall over the callers that failed (sure breaks and checks both count as found). Targets
(issue 39): precision ≥ 0.9, recall ≥ 0.95.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.corpora import CORPORA
from benchmark.faults import (
    PLUGIN,
    PROJECTS,
    PYTEST_ARGS,
    Project,
    _git,
    _test_env,
    git_diff,
    prepare,
)
from benchmark.report import run_facts, write_report
from benchmark.runtime_recall import Symbols, map_pairs, suite_trace

DEFAULT_PROJECTS = ("click", "flask", "markdown", "mkdocs")
KINDS = ("remove", "keyword-only", "reorder")
CALLERS_PLUGIN = "_cartograph_failed_callers"
RUN_TIMEOUT = 600
TARGETS = {"precision": 0.9, "recall": 0.95}

# A pytest plugin: a tracer of exception events only (no line events) that records each frame
# whose call of the changed function failed — the frame an exception leaves the function into,
# or the frame a TypeError naming it is raised in when the call did not bind — as JSON lines
# {"file", "line", "qualname"}. Recorded where it happens, so an exception a test runner
# catches later (click's CliRunner) still counts.
CALLERS_SOURCE = '''\
"""Written by benchmark/signatures.py: the callers whose call of a function failed."""

import json
import os
import sys
import threading

_spec = os.environ.get("CARTOGRAPH_CALLEE", "")
_stream = None
_raised = {}  # id(exception) -> whether it is on its way out of the function


def _callee(code, path, name, first, last):
    return code.co_name == name and code.co_filename.endswith(path) and first <= code.co_firstlineno <= last


def _record(frame):
    code = frame.f_code
    _stream.write(json.dumps({"file": code.co_filename, "line": frame.f_lineno,
                              "qualname": code.co_qualname}) + "\\n")


def pytest_configure(config):
    global _stream
    if not _spec or not os.environ.get("CARTOGRAPH_CALLERS"):
        return
    path, name, first, last = _spec.split("|")
    first, last = int(first), int(last)
    _stream = open(os.environ["CARTOGRAPH_CALLERS"], "a", buffering=1, encoding="utf-8")

    def local(frame, event, arg):
        if event != "exception":
            return local
        exception = arg[1]
        key = id(exception)
        if _callee(frame.f_code, path, name, first, last):
            _raised[key] = True
        elif _raised.get(key):
            _raised[key] = False
            _record(frame)
        elif (key not in _raised and isinstance(exception, TypeError)
              and f"{name}()" in str(exception) and arg[2] is not None
              and arg[2].tb_frame is frame and arg[2].tb_next is None):
            _raised[key] = False
            _record(frame)
        return local

    def start(frame, event, arg):
        frame.f_trace_lines = False
        return local

    sys.settrace(start)
    threading.settrace(start)


def pytest_unconfigure(config):
    sys.settrace(None)
    if _stream is not None:
        _stream.close()
'''


@dataclass
class Mutation:
    path: str
    qualname: str  # within its module (`Class.method`)
    name: str
    kind: str
    line: int  # the def's line
    text: str  # the file with the change
    span: tuple[int, int] = (0, 0)  # the changed function's lines in `text`


@dataclass
class Graded:
    mutation: str
    kind: str
    universe: int
    failed: list[str] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    true_breaks: int = 0
    found: int = 0


# ---------------------------------------------------------------- changing a signature


def _functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                found.append((qualname, child))
                visit(child, f"{qualname}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found


def _own_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> int:
    """How many leading parameters are the bound self/cls."""
    arguments = function.args.posonlyargs + function.args.args
    if is_method and arguments and arguments[0].arg in ("self", "cls"):
        return 1
    return 0


def mutate(text: str, path: str, qualname: str, kind: str) -> Mutation | None:
    """The file `text` with the signature of `qualname` changed (None: not possible)."""
    tree = ast.parse(text)
    found = dict(_functions(tree))
    function = found.get(qualname)
    if function is None or not function.body or function.body[0].lineno == function.lineno:
        return None
    if any(isinstance(d, ast.Name | ast.Attribute) and "overload" in ast.unparse(d)
           for d in function.decorator_list):  # fmt: skip
        return None
    is_method = _is_method(tree, qualname)
    skip = _own_parameters(function, is_method)
    arguments = function.args
    positional = (arguments.posonlyargs + arguments.args)[skip:]
    defaults = [None] * (len(arguments.posonlyargs + arguments.args) - len(arguments.defaults))
    defaults = (defaults + list(arguments.defaults))[skip:]
    new_body_line: str | None = None
    if kind == "remove":
        if arguments.kwonlyargs:
            gone = arguments.kwonlyargs[-1]
            default = arguments.kw_defaults[-1]
            arguments.kwonlyargs = arguments.kwonlyargs[:-1]
            arguments.kw_defaults = arguments.kw_defaults[:-1]
        elif positional:
            gone = positional[-1]
            default = defaults[-1]
            if gone in arguments.args:
                arguments.args.remove(gone)
            else:
                arguments.posonlyargs.remove(gone)
            if default is not None:
                arguments.defaults = arguments.defaults[:-1]
        else:
            return None
        value = ast.unparse(default) if default is not None else "None"
        new_body_line = f"{gone.arg} = {value}"
    elif kind == "keyword-only":
        if arguments.vararg is not None or not arguments.args[skip:]:
            return None
        last = arguments.args[-1]
        if last in arguments.args[:skip]:
            return None
        has_default = len(arguments.defaults) > 0
        arguments.args = arguments.args[:-1]
        arguments.kwonlyargs = [last, *arguments.kwonlyargs]
        if has_default:
            arguments.kw_defaults = [arguments.defaults[-1], *arguments.kw_defaults]
            arguments.defaults = arguments.defaults[:-1]
        else:
            arguments.kw_defaults = [None, *arguments.kw_defaults]
    elif kind == "reorder":
        own = arguments.args[skip:]
        if len(own) < 2 or arguments.posonlyargs:
            return None
        first, second = own[0], own[1]
        index = arguments.args.index(first)
        without = len(arguments.args) - len(arguments.defaults)
        if (index < without) != (index + 1 < without):
            return None  # one has a default, the other not
        arguments.args[index], arguments.args[index + 1] = second, first
        if index >= without:
            at = index - without
            arguments.defaults[at], arguments.defaults[at + 1] = (
                arguments.defaults[at + 1],
                arguments.defaults[at],
            )
    else:
        raise ValueError(kind)
    lines = text.splitlines(keepends=True)
    header_start = function.lineno - 1
    header_end = function.body[0].lineno - 1  # the body's first statement (a docstring too)
    indent = lines[header_start][: len(lines[header_start]) - len(lines[header_start].lstrip())]
    returns = f" -> {ast.unparse(function.returns)}" if function.returns else ""
    prefix = "async def" if isinstance(function, ast.AsyncFunctionDef) else "def"
    header = f"{indent}{prefix} {function.name}({ast.unparse(arguments)}){returns}:\n"
    # comments between the header and the body would go with it: keep the lines as they were
    between = [line for line in lines[header_start:header_end] if line.strip().startswith("#")]
    body_indent = " " * function.body[0].col_offset
    inserted = [f"{body_indent}{new_body_line}\n"] if new_body_line else []
    changed = [*lines[:header_start], header, *between, *inserted, *lines[header_end:]]
    result = "".join(changed)
    try:
        compile(result, path, "exec")
    except SyntaxError:
        return None
    end = function.end_lineno or function.lineno
    shift = (1 + len(between) + len(inserted)) - (header_end - header_start)
    # a decorated function's code starts at its first decorator
    first = min([function.lineno] + [d.lineno for d in function.decorator_list])
    return Mutation(path, qualname, function.name, kind, function.lineno, result,
                    (first, end + shift))  # fmt: skip


def _is_method(tree: ast.AST, qualname: str) -> bool:
    owner = qualname.rpartition(".")[0]
    if not owner:
        return False
    node: ast.AST = tree
    for part in owner.split("."):
        child = next(
            (c for c in ast.iter_child_nodes(node)
             if isinstance(c, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
             and c.name == part),
            None,
        )  # fmt: skip
        if child is None:
            return False
        node = child
    return isinstance(node, ast.ClassDef)


# ---------------------------------------------------------------- running and reading


def _callers_plugin(base: Path) -> None:
    plugin = base / "plugin" / f"{CALLERS_PLUGIN}.py"
    plugin.parent.mkdir(exist_ok=True)
    if not plugin.exists() or plugin.read_text() != CALLERS_SOURCE:
        plugin.write_text(CALLERS_SOURCE)


def run_suite(tree: Path, mutation: Mutation, project: Project) -> tuple[list[dict], float]:
    """The frames whose call of the changed function failed in one run of the suite, and the
    run's seconds."""
    base = tree.parent
    start, end = mutation.span
    with tempfile.TemporaryDirectory(prefix="cartograph-signatures-") as scratch:
        callers = Path(scratch) / "callers.jsonl"
        args = [str(base / "venv" / "bin" / "python"), "-m", "pytest", *PYTEST_ARGS,
                "-p", PLUGIN, "-p", CALLERS_PLUGIN, *project.pytest_args]  # fmt: skip
        env = {
            **_test_env(base, None),
            "CARTOGRAPH_CALLERS": str(callers),
            "CARTOGRAPH_CALLEE": f"{mutation.path}|{mutation.name}|{start}|{end}",
        }
        started = time.perf_counter()
        subprocess.run(args, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=RUN_TIMEOUT, check=False)  # fmt: skip
        seconds = time.perf_counter() - started
        text = callers.read_text() if callers.exists() else ""
    return [json.loads(line) for line in text.splitlines()], seconds


def failed_callers(rows: list[dict], tree: Path, modules: dict[str, str], repo: str) -> set[str]:
    """The graph symbols of the frames the tracer recorded."""
    found = set()
    for row in rows:
        try:
            path = Path(row["file"]).resolve().relative_to(tree.resolve()).as_posix()
        except ValueError:
            continue  # outside the tree
        module = modules.get(path)
        if module is None:
            continue
        parts = [p for p in row["qualname"].split(".") if p != "<locals>"]
        while parts and parts[-1].startswith("<"):  # a comprehension or lambda: its encloser
            parts.pop()
        if not parts:
            found.add(f"{repo}:{path}#{module}")
        elif not any(p.startswith("<") for p in parts):
            found.add(f"{repo}:{path}#{module}.{'.'.join(parts)}")
    return found


# ---------------------------------------------------------------- one project


def evaluate(name: str, count: int, seed: int) -> dict:
    from cartograph.impact.report import impact
    from cartograph.index import index_repository
    from cartograph.store.sqlite import open_sqlite

    project = PROJECTS[name]
    tree = prepare(name)
    _callers_plugin(tree.parent)
    trace, _facts = suite_trace(name)
    rows: list[Graded] = []
    with tempfile.TemporaryDirectory(prefix="cartograph-signatures-") as scratch:
        store = open_sqlite(Path(scratch) / "graph.db")
        try:
            index_repository(store, tree, name=name, workers=2, history=False)
            symbols = Symbols.from_export(store.graph.export(name))
            modules = {p: r.module for p, r in store.graph.files(name).items() if r.module}
            mapped = map_pairs(trace.nodes, trace.pairs, symbols, project.package)
            ran_by: dict[str, set[str]] = defaultdict(set)
            for src, dst in mapped.pairs:
                ran_by[dst].add(src)
            chosen = _sample(tree, project, modules, name, ran_by, count, seed)
            for mutation in chosen:
                target_id = f"{name}:{mutation.path}#{modules[mutation.path]}.{mutation.qualname}"
                file = tree / mutation.path
                clean = file.read_text("utf-8")
                try:
                    file.write_text(mutation.text, "utf-8")
                    failures, _seconds = run_suite(tree, mutation, project)
                finally:
                    file.write_text(clean, "utf-8")
                if _git(tree, "status", "--porcelain", "--untracked-files=no"):
                    raise RuntimeError(f"{tree} is not clean after restoring {mutation.path}")
                universe = ran_by[target_id]
                failed = failed_callers(failures, tree, modules, name) & universe
                diff = git_diff(mutation.path, clean, mutation.text)
                answer = impact(store, name, patch=diff, limit=1)
                predicted = [b for b in answer.will_break if b.target == target_id]
                breaks = {b.caller.id for b in predicted if b.certainty == "breaks"} & universe
                checks = {b.caller.id for b in predicted if b.certainty == "check"} & universe
                rows.append(
                    Graded(
                        f"{mutation.path}:{mutation.qualname}", mutation.kind, len(universe),
                        sorted(failed), sorted(breaks), sorted(checks),
                        len(breaks & failed), len(failed & (breaks | checks)),
                    )
                )  # fmt: skip
                print(f"{name} {mutation.kind} {mutation.qualname}: failed {len(failed)}, "
                      f"breaks {len(breaks)}, checks {len(checks)}", file=sys.stderr)  # fmt: skip
        finally:
            store.close()
    return {
        "project": f"{name}-{CORPORA[name]}",
        "mutations": len(rows),
        "by_kind": {kind: _scores([r for r in rows if r.kind == kind]) for kind in KINDS},
        "all": _scores(rows),
        "rows": [r.__dict__ for r in rows],
    }


def _sample(
    tree: Path,
    project: Project,
    modules: dict[str, str],
    repo: str,
    ran_by: dict[str, set[str]],
    count: int,
    seed: int,
) -> list[Mutation]:
    """`count` changes, kinds in turn, of functions the clean suite calls."""
    pool: dict[str, list[Mutation]] = {kind: [] for kind in KINDS}
    inside = project.tests_inside
    for file in sorted((tree / project.package).rglob("*.py")):
        path = file.relative_to(tree).as_posix()
        if path not in modules or (inside and path.startswith(inside + "/")):
            continue
        text = file.read_text("utf-8")
        for qualname, _function in _functions(ast.parse(text)):
            if not ran_by.get(f"{repo}:{path}#{modules[path]}.{qualname}"):
                continue
            for kind in KINDS:
                changed = mutate(text, path, qualname, kind)
                if changed is not None and changed.text != text:
                    pool[kind].append(changed)
    rng = random.Random(f"signatures-{repo}-{seed}")
    for kind in KINDS:
        rng.shuffle(pool[kind])
    chosen: list[Mutation] = []
    while len(chosen) < count and any(pool.values()):
        for kind in KINDS:
            if pool[kind] and len(chosen) < count:
                chosen.append(pool[kind].pop())
    return chosen


def _scores(rows: list[Graded]) -> dict:
    breaks = sum(len(r.breaks) for r in rows)
    true = sum(r.true_breaks for r in rows)
    failed = sum(len(r.failed) for r in rows)
    found = sum(r.found for r in rows)
    return {
        "mutations": len(rows),
        "failed_callers": failed,
        "predicted_breaks": breaks,
        "checks": sum(len(r.checks) for r in rows),
        "precision": round(true / breaks, 4) if breaks else None,
        "recall": round(found / failed, 4) if failed else None,
    }


def to_markdown(results: list[dict], facts: dict) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    out = [
        "# Will break, graded by running the suite",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}",
        "",
        textwrap.fill(
            "Real functions' signatures changed one at a time (a parameter removed, made "
            "keyword-only, or two reordered); the suite run with each; `impact`'s will-break "
            "for the function against the callers whose calls failed, among the callers the "
            "clean suite saw calling it. Precision over sure breaks, recall over failed callers "
            "(sure breaks and checks). Targets: precision ≥ 90 %, recall ≥ 95 %.",
            100,
        ),
        "",
        "| project | kind | mutations | failed callers | sure breaks | checks | precision | recall |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        for kind, score in [*result["by_kind"].items(), ("all", result["all"])]:
            out.append(
                f"| {result['project']} | {kind} | {score['mutations']} | "
                f"{score['failed_callers']} | {score['predicted_breaks']} | {score['checks']} | "
                f"{pct(score['precision'])} | {pct(score['recall'])} |"
            )
    for result in results:
        misses = [r for r in result["rows"] if set(r["failed"]) - set(r["breaks"]) - set(r["checks"])
                  or set(r["breaks"]) - set(r["failed"])]  # fmt: skip
        if misses:
            out += ["", f"## {result['project']}: where they differ", ""]
            for row in misses[:20]:
                missed = sorted(set(row["failed"]) - set(row["breaks"]) - set(row["checks"]))
                extra = sorted(set(row["breaks"]) - set(row["failed"]))
                out.append(
                    f"- {row['kind']} `{row['mutation']}`: missed "
                    f"{', '.join(m.rpartition('#')[2] for m in missed) or '-'}; "
                    f"broke nothing the suite saw: "
                    f"{', '.join(m.rpartition('#')[2] for m in extra) or '-'}"
                )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=",".join(DEFAULT_PROJECTS))
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = [evaluate(name, args.count, args.seed) for name in args.project.split(",")]
    facts = run_facts()
    report = {"date": facts["date"], "facts": facts, "targets": TARGETS, "results": results}
    path = write_report("signatures", report, to_markdown(results, facts), write=not args.no_write)
    print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
