"""pytest: a test, or a fixture, gets the fixtures its parameters name — a module-level fixture
of its own module, else of the nearest `conftest.py` above it —; it calls each (via
`fixture`), and a parameter holds what its fixture returns or yields. A parameter
`@pytest.mark.parametrize` gives values holds them (when every case gives the same kind of
value), and the objects its cases build count as the test's own calls (the test exercises
them, though pytest builds them when it collects the module)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cartograph.parsing.facts import (
    BINDING_VALUE,
    SCOPE_DECORATORS,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
    SCOPE_START,
)
from cartograph.resolve.core import Found
from cartograph.resolve.values import Class, Value, union_of

if TYPE_CHECKING:
    from cartograph.resolve.core import EdgeSet
    from cartograph.resolve.python import ModuleFacts, Program

_FIXTURE_NAME = re.compile(r"""\bname\s*=\s*(['"])([A-Za-z_][A-Za-z0-9_]*)\1""")


class PytestPlugin:
    def parameter_value(
        self, program: Program, mod: ModuleFacts, scope: int, row: list
    ) -> Found | None:
        binding = row[BINDING_VALUE]
        if binding[2] is not None or binding[3] is not None or not takes_fixtures(mod, scope):
            return None  # annotated, or with a default: not a fixture request
        given = parametrized(program, mod, scope).get(row[1])
        if given is not None:  # one of the cases' values, whichever runs
            value = union_of([found.value for found in given])
            return Found(value, given[0].via) if value is not None else None
        fixture = self.fixture(program, mod, row[1])
        if fixture is None:
            return None
        value = fixture_value(program, *fixture)
        return Found(value, "fixture") if value is not None else None

    def module_edges(self, program: Program, mod: ModuleFacts, edges: EdgeSet) -> None:
        """A test (or fixture) calls the fixtures its parameters request, and builds the
        objects of its parametrize cases."""
        if not is_test_module(mod):
            return
        for scope, built, line in _built_in_cases(program, mod):
            edges.add("CALLS", mod.symbol_ids[scope], built, line, "constructor")
        for scope, row in enumerate(mod.scopes):
            if row[SCOPE_KIND] != "function" or not takes_fixtures(mod, scope):
                continue
            for name, rows in mod.bindings(scope).items():
                binding = rows[0][BINDING_VALUE]
                if binding[0] != "param" or binding[2] is not None or binding[3] is not None:
                    continue
                if binding[4] or (name == mod.first_param(scope) and mod.kind(scope) == "method"):
                    continue
                fixture = self.fixture(program, mod, name)
                if fixture is not None and fixture != (mod, scope):
                    target = fixture[0].symbol_ids[fixture[1]]
                    edges.add("CALLS", mod.symbol_ids[scope], target, row[SCOPE_START], "fixture")

    def fixture(self, program: Program, mod: ModuleFacts, name: str) -> tuple | None:
        """The fixture a test parameter named `name` requests: (module, scope)."""
        for candidate in (mod, *conftests(program, mod)):
            scope = fixtures_of(program, candidate).get(name)
            if scope is not None:
                return candidate, scope
        return None


def parametrized(program: Program, mod: ModuleFacts, scope: int) -> dict[str, list[Found]]:
    """The values `@pytest.mark.parametrize` gives a test's parameters: name → the Found of
    each of its cases that evaluates to something known."""

    def compute() -> dict[str, list[Found]]:
        found: dict[str, list[Found]] = {}
        parent = max(mod.scopes[scope][SCOPE_PARENT], 0)
        for decorated, names, cases, pos in mod.facts.get("parametrize", ()):
            if decorated != scope:
                continue
            for case in cases:
                for name, expr in zip(names, case, strict=True):
                    value = program.evaluate(mod, parent, expr, pos)
                    if value.value is not None:
                        found.setdefault(name, []).append(value)
        return found

    return program.memo.cached(("parametrized", mod.path, scope), compute, {})


def _built_in_cases(program: Program, mod: ModuleFacts) -> list[tuple[int, str, int]]:
    """(test scope, what a parametrize case builds — a repository class, its `__init__` —,
    line) for each object a test's cases construct."""
    built: list[tuple[int, str, int]] = []
    for scope, _names, cases, pos in mod.facts.get("parametrize", ()):
        line = mod.scopes[scope][SCOPE_START]
        parent = max(mod.scopes[scope][SCOPE_PARENT], 0)
        for case in cases:
            for expr in case:
                if expr is None or expr[0] != "c":
                    continue
                callee = program.evaluate(mod, parent, expr[1], pos).value
                if not isinstance(callee, Class):
                    continue
                built.append((scope, callee.symbol_id, line))
                init = program.classes.method(callee, "__init__", instance=False)
                if init is not None:
                    built.append((scope, init.symbol_id, line))
    return built


def fixtures_of(program: Program, mod: ModuleFacts) -> dict[str, int]:
    """A module's module-level fixtures, by the name tests request them with: the function's,
    or the decorator's `name="..."`; the last definition of a name wins."""

    def compute() -> dict[str, int]:
        found: dict[str, int] = {}
        for scope, row in enumerate(mod.scopes):
            if scope and row[SCOPE_PARENT] == 0 and row[SCOPE_KIND] == "function":
                named = fixture_name(row)
                if named is not None:
                    found[named] = scope
        return found

    return program.memo.cached(("fixtures", mod.path, mod.repo), compute, {})


def conftests(program: Program, mod: ModuleFacts) -> list[ModuleFacts]:
    """The `conftest.py` files of the test's folder and the folders above it, nearest first,
    as pytest finds them: by path (by module name when only names are known)."""
    if program.path_loader is None or mod.repo != program.repo:
        return _conftests_by_name(program, mod)
    found = []
    folder = mod.path.rpartition("/")[0]
    while True:
        path = f"{folder}/conftest.py" if folder else "conftest.py"
        conftest = program.path_loader(path)
        if conftest is not None and conftest is not mod:
            program.memo.consulted.add(conftest.name)
            found.append(conftest)
        if not folder:
            return found
        folder = folder.rpartition("/")[0]


def _conftests_by_name(program: Program, mod: ModuleFacts) -> list[ModuleFacts]:
    package = mod.name if mod.is_package else mod.name.rpartition(".")[0]
    found = []
    while True:
        conftest = program.module(f"{package}.conftest" if package else "conftest")
        if conftest is not None and conftest is not mod:
            found.append(conftest)
        if not package:
            return found
        package = package.rpartition(".")[0]


def fixture_value(program: Program, mod: ModuleFacts, scope: int) -> Value | None:
    """What a fixture gives the tests that request it: what it yields, or returns (a
    generator fixture's own call result is a generator, not what the test gets)."""
    if not mod.yields_of(scope):
        return program.returns(mod, scope).value
    values = {
        value
        for pos, expr in mod.yields_of(scope)
        for value in [program.evaluate(mod, scope, expr, pos).value]
        if value is not None
    }
    return next(iter(values)) if len(values) == 1 else None


def is_test_module(mod: ModuleFacts) -> bool:
    """Test code as the repository's pytest settings say (`python_files`, `testpaths`)."""
    return mod.is_test


def is_fixture(row: list) -> bool:
    return any(d.partition("(")[0].rpartition(".")[2] == "fixture" for d in row[SCOPE_DECORATORS])


def fixture_name(row: list) -> str | None:
    """The name a fixture is requested by (None: not a fixture)."""
    for decorator in row[SCOPE_DECORATORS]:
        head, _, arguments = decorator.partition("(")
        if head.rpartition(".")[2] == "fixture":
            given = _FIXTURE_NAME.search(arguments)
            return given.group(2) if given else row[SCOPE_NAME]
    return None


def takes_fixtures(mod: ModuleFacts, scope: int) -> bool:
    """A pytest test (`test_*` in a test module, or a `test_*` method of a `Test*` class) or a
    fixture: its parameters request fixtures by name."""
    if not is_test_module(mod):
        return False
    row = mod.scopes[scope]
    if is_fixture(row):
        return True
    if not row[SCOPE_NAME].startswith("test"):
        return False
    parent = row[SCOPE_PARENT]
    if parent == 0:
        return True
    parent_row = mod.scopes[parent]
    return parent_row[SCOPE_KIND] == "class" and parent_row[SCOPE_NAME].startswith("Test")
