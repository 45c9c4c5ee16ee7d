"""Tests as runners name them: which symbols are tests, and the command line that runs exactly
the selected ones in each repository (pytest node ids, Django's runtests labels, `go test -run`,
the JavaScript runner the repository depends on, Maven's `-Dtest`)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from cartograph import languages
from cartograph.model import Manifest, SymbolRow

DJANGO_RUNNER = "tests/runtests.py"


@dataclass(slots=True)
class TestToRun:
    repo: str
    path: str
    qualname: str  # "" : the whole file (a runner selects files, not the tests in them)
    id: str  # the test's symbol id
    node: str  # how its runner names it: `tests/test_a.py::TestX::test_y`
    runner: str  # pytest, django, go, vitest, jest, mocha, ava, maven, files
    depth: int  # calls from the test to the changed code (0: the test itself changed)
    # "static" (a graph path), "import" (a path through module-level code its file, or a
    # module it imports, runs), "name" (a path through an open end of the graph: an unresolved
    # call naming what it reached), "coverage" (recorded), "changed", or several joined by "+"
    evidence: str
    reaches: str  # the changed symbol it reaches (its qualname)
    confidence: float = 1.0  # of its surest path to the change (1.0: changed, or recorded)


@dataclass(slots=True)
class TestCommand:
    repo: str
    runner: str  # pytest, django, go, vitest, jest, mocha, ava, maven, files
    command: str  # the line that runs exactly the selected tests, from the repository's root
    tests: int


def test_unit(symbol: SymbolRow, module: str) -> tuple[str, str]:
    """(qualname inside its file, id) of what a runner runs for a test symbol: the function
    itself, or its file for a language whose tests are anonymous. `module`: the file's module
    name (Python qualnames start with it)."""
    if symbol.kind == "module":
        return "", symbol.id
    return symbol.qualname.removeprefix(module + "."), symbol.id


def node_id(runner: str, path: str, qualname: str) -> str:
    if runner == "django":
        label = path.removeprefix("tests/").removesuffix(".py").replace("/", ".")
        return f"{label}.{qualname}" if qualname else label
    if runner == "pytest":
        return f"{path}::{qualname.replace('.', '::')}" if qualname else path
    if runner == "maven":
        stem = path.rpartition("/")[2].rpartition(".")[0]
        return f"{stem}#{qualname.rpartition('.')[2]}" if qualname else stem
    if runner == "go":
        return f"./{path.rpartition('/')[0] or '.'} {qualname}"
    return path


def runner_of(path: str, manifest: Manifest | None, repo_files: set[str]) -> str:
    """The runner of a test file: one its project's manifest depends on, of those its
    family's projects use (vitest, jest, …), else its language's or its family's own; a
    Django project's `tests/` run under Django's runner."""
    language = languages.BY_NAME.get(languages.language_of(path) or "")
    if language is None:
        return "files"
    family = languages.FAMILY[language.family]
    depends = {d.name for d in manifest.depends} if manifest else set()
    runner = next((r for r in family.test_runners if r in depends), "")
    runner = runner or language.test_runner or family.default_runner
    if runner == "pytest" and DJANGO_RUNNER in repo_files and path.startswith("tests/"):
        return "django"
    return runner


def commands(repo: str, runner: str, nodes: list[str]) -> TestCommand:
    """One command line running exactly `nodes` with `runner`."""
    quoted = [shlex.quote(n) for n in nodes]
    if runner == "pytest":
        line = "python -m pytest " + " ".join(quoted)
    elif runner == "django":
        line = f"python {DJANGO_RUNNER} " + " ".join(quoted)
    elif runner == "go":
        by_package: dict[str, list[str]] = {}
        for node in nodes:
            package, _, name = node.partition(" ")
            by_package.setdefault(package, []).append(re.escape(name))
        line = " && ".join(
            f"go test {shlex.quote(package)} -run {shlex.quote('^(' + '|'.join(names) + ')$')}"
            for package, names in sorted(by_package.items())
        )
    elif runner == "maven":
        line = "mvn test -Dtest=" + shlex.quote(",".join(nodes))
    elif runner == "vitest":
        line = "npx vitest run " + " ".join(quoted)
    elif runner in ("jest", "mocha", "ava"):
        line = f"npx {runner} " + " ".join(quoted)
    else:
        line = " ".join(quoted)
    return TestCommand(repo, runner, line, len(nodes))
