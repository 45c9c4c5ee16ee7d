"""Python resolution: facts of every module → symbols, CALLS/REFERENCES/INHERITS/IMPORTS edges.

The rules are written down in docs/resolution.md; tests/resolution pins each with a fixture.

Values the evaluator works with (tuples, compared by identity of their module object):
  ("mod", module)             a module object
  ("cls", module, scope)      a class            ("fn", module, scope)   a function or method
  ("inst", module, scope)     an instance of a class
  ("seq", element, key)       a container whose element (and key) value is known
  ("tuple", (value, ...))     a fixed tuple's positions (an annotation `tuple[A, B]`)
  ("union", (value, ...))     one of several values (`A | B`, parametrize cases of two kinds):
                              an attribute or a call of it is each member's (`union_of`)
  ("ext", top_module)         something that comes from outside the repository
  ("builtin",)                a builtin name: never an edge, never unresolved
  ("super", module, scope, instance_kind)  `super()` inside class `scope`
Every evaluation returns (value, via) or (None, None).

The memo, dependency tracking (every module name consulted, found or not), the edge set and
the result type are the core's (`cartograph.resolve.core`); the method resolution order is
`cartograph.resolve.mro`'s C3; this module holds Python's rules.
"""

from __future__ import annotations

import builtins
import marshal
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cartograph import languages
from cartograph.discover import is_test_path
from cartograph.model import SymbolRow, Unresolved, located
from cartograph.parsing.facts import (
    ATTR_NAME,
    ATTR_OBJECT,
    ATTR_POS,
    ATTR_SCOPE,
    ATTR_TYPE,
    ATTR_VALUE,
    BINDING_NAME,
    BINDING_POS,
    BINDING_SCOPE,
    BINDING_UNTIL,
    BINDING_VALUE,
    REF_EXPR,
    REF_KIND,
    REF_LINE,
    REF_POS,
    REF_SOURCE,
    REF_TEXT,
    SCOPE_BASES,
    SCOPE_BODY,
    SCOPE_DECORATORS,
    SCOPE_DOC,
    SCOPE_END,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
    SCOPE_QUALNAME,
    SCOPE_RETURNS,
    SCOPE_SIGNATURE,
    SCOPE_START,
    chained_calls,
)
from cartograph.resolve.core import (
    UNKNOWN,
    EdgeSet,
    FileResolution,
    Memo,
    OverBudget,
    render,
)
from cartograph.resolve.family import Sources
from cartograph.resolve.mro import c3
from cartograph.resolve.plugins import PLUGINS
from cartograph.resolve.services import http_rows
from cartograph.resolve.standard import Reach, standard_class_members, standard_method_reach
from cartograph.resolve.values import alternatives, union_of

BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__path__",
    "__loader__",
    "__builtins__",
    "__package__",
    "reveal_type",
    "__debug__",
}
STDLIB = frozenset(sys.stdlib_module_names)
EXTENSIONS = languages.BY_NAME["python"].extensions
ELEMENT_GENERICS = frozenset(
    {
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Iterator",
        "Collection",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "AbstractSet",
        "MutableSet",
        "deque",
        "Deque",
        "Generator",
        "AsyncIterator",
        "AsyncIterable",
        "AsyncGenerator",
        "Reversible",
        "KeysView",
        "ValuesView",
    }
)
MAPPING_GENERICS = frozenset(
    {
        "dict",
        "Dict",
        "Mapping",
        "MutableMapping",
        "DefaultDict",
        "defaultdict",
        "OrderedDict",
        "ChainMap",
    }
)
WRAPPER_GENERICS = frozenset(
    {
        "Optional",
        "Annotated",
        "Final",
        "ClassVar",
        "Required",
        "NotRequired",
        "ReadOnly",
        "Awaitable",
        "TypeGuard",
    }
)
CLASS_FIRST_PARAM = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})

BUILTIN_VALUE = ("builtin",)
# a name a plugin manager may call (pluggy's hooks are `project_event`): public, with an "_"
_HOOKABLE = re.compile(r"[a-z][a-z0-9]*_[A-Za-z0-9_]+\Z")
# the plugins that implement each hook (resolve.plugins.PythonPlugin)
PARAMETER_PLUGINS = tuple(p for p in PLUGINS if hasattr(p, "parameter_value"))
MODULE_PLUGINS = tuple(p for p in PLUGINS if hasattr(p, "module_edges"))


class ModuleFacts:
    """One module's facts plus the indexes the evaluator needs, built on first use."""

    __slots__ = (
        "_arguments",
        "_bindings",
        "_callable_params",
        "_decorations",
        "_firstparam",
        "_returns",
        "_stores",
        "facts",
        "is_package",
        "limited",  # (scope, name) with a binding valid in a range only (comprehension, lambda)
        "name",
        "path",
        "repo",
        "symbol_ids",
    )

    def __init__(self, name: str, path: str, is_package: bool, facts: dict, repo: str) -> None:
        self.name = name
        self.path = path  # in its repository (which is another one for a provider's module)
        self.repo = repo
        self.is_package = is_package
        self.facts = facts
        self._bindings: list[dict[str, list]] | None = None
        self._firstparam: dict[int, str] | None = None
        self._arguments: dict[tuple[int, int], list] | None = None
        self._decorations: dict[int, list] | None = None
        self._callable_params: dict[int, frozenset[str]] | None = None
        self._stores: dict[str, list] | None = None
        self._returns: dict[int, list[tuple[int, list]]] | None = None
        self.symbol_ids = _symbol_ids(repo, path, name, facts)

    @property
    def scopes(self) -> list:
        return self.facts["scopes"]

    def bindings(self, scope: int) -> dict[str, list]:
        if self._bindings is None:
            tables: list[dict[str, list]] = [{} for _ in self.facts["scopes"]]
            limited: set[tuple[int, str]] = set()
            for row in self.facts["bindings"]:
                tables[row[BINDING_SCOPE]].setdefault(row[BINDING_NAME], []).append(row)
                if row[BINDING_UNTIL] is not None:
                    limited.add((row[BINDING_SCOPE], row[BINDING_NAME]))
            self._bindings = tables
            self.limited = limited
        return self._bindings[scope]

    def first_param(self, scope: int) -> str | None:
        if self._firstparam is None:
            firsts: dict[int, str] = {}
            for row in self.facts["bindings"]:
                binding = row[BINDING_VALUE]
                if binding[0] == "param" and binding[1] == 0 and not binding[4]:
                    firsts[row[BINDING_SCOPE]] = row[BINDING_NAME]
            self._firstparam = firsts
        return self._firstparam.get(scope)

    def qualname(self, scope: int) -> str:
        rel = self.facts["scopes"][scope][SCOPE_QUALNAME]
        return f"{self.name}.{rel}" if rel else self.name

    def kind(self, scope: int) -> str:
        scopes = self.facts["scopes"]
        row = scopes[scope]
        parent = row[SCOPE_PARENT]
        if row[SCOPE_KIND] == "function" and parent >= 0 and scopes[parent][SCOPE_KIND] == "class":
            return "method"
        return row[SCOPE_KIND]

    def decorators(self, scope: int) -> list[str]:
        return self.facts["scopes"][scope][SCOPE_DECORATORS]

    def arguments(self, pos: int, callee: list) -> list:
        """The arguments that may pass callable values of the call at `pos` whose callee is
        `callee` (a chained call, `f(a)(b)`, starts where its `f(a)` does)."""
        if self._arguments is None:
            self._arguments = {
                (at, calls): passed for at, passed, calls in self.facts.get("arguments", ())
            }
        return self._arguments.get((pos, chained_calls(callee)), [])

    def stores_into(self, name: str) -> list:
        """The stores rows whose container is the plain name `name`."""
        if self._stores is None:
            by_name: dict[str, list] = {}
            for row in self.facts.get("stores", ()):
                base = row[1]
                if base[0] == "n":
                    by_name.setdefault(base[1], []).append(row)
            self._stores = by_name
        return self._stores.get(name, [])

    def returns_of(self, scope: int) -> list[tuple[int, list]]:
        """The `return` statements of one function, as (position, expression), in order (one
        pass over the module's returns, not one per function asked about)."""
        if self._returns is None:
            by_scope: dict[int, list[tuple[int, list]]] = {}
            for returned_scope, pos, expr in self.facts.get("returns", ()):
                by_scope.setdefault(returned_scope, []).append((pos, expr))
            self._returns = by_scope
        return self._returns.get(scope, [])

    def callable_params(self) -> dict[int, frozenset[str]]:
        """The parameters each function uses as callables (calls, iterates, passes on,
        stores): `parsing.python._callable_params`."""
        if self._callable_params is None:
            self._callable_params = {
                scope: frozenset(names) for scope, names in self.facts.get("callable_params", ())
            }
        return self._callable_params

    def decorations(self) -> dict[int, list]:
        """Each decorated scope's decorator expressions, top to bottom: [(pos, expr)]."""
        if self._decorations is None:
            found: dict[int, list] = {}
            for ref in self.facts["refs"]:
                if ref[REF_KIND] == "a":
                    found.setdefault(ref[REF_TEXT], []).append((ref[REF_POS], ref[REF_EXPR]))
            self._decorations = found
        return self._decorations


def _symbol_ids(repo: str, path: str, module: str, facts: dict) -> list[str]:
    """Symbol id per scope; a qualname defined twice in a file maps to its first definition."""
    ids: list[str] = []
    for row in facts["scopes"]:
        rel = row[SCOPE_QUALNAME]
        qualname = f"{module}.{rel}" if rel else module
        ids.append(f"{repo}:{path}#{qualname}")
    return ids


@dataclass(slots=True)
class ClassInfo:
    module: ModuleFacts
    scope: int
    linearization: list[tuple[ModuleFacts, int]]
    # top-level modules of the bases outside the repository, of this class or its ancestors
    # ("" when a base's origin is unknown, e.g. a class built by a function call)
    external_bases: list[str]
    direct_external: list[str]  # bases of this class itself that are outside the repository
    # the attribute names of the external bases, of this class or its ancestors (what code
    # outside the repository can call back by name); None when one of them is not known (a
    # base outside the standard library)
    external_members: frozenset[str] | None
    # those bases as (top-level module, base as written) for `standard_method_reach`, of this
    # class and its ancestors; None when external_members is
    standard_bases: tuple[tuple[str, str], ...] | None
    # resolved direct bases: (module, scope, via, order among the declared bases, 1 = first)
    bases: list[tuple[ModuleFacts, int, str, int]]


def absolute_module(importer: str, is_package: bool, level: int, module: str) -> str | None:
    """The absolute name `from <level dots><module> import` means inside module `importer`
    (None when the dots climb above the top package)."""
    if level == 0:
        return module
    package = importer if is_package else importer.rpartition(".")[0]
    for _ in range(level - 1):
        if not package:
            return None
        package = package.rpartition(".")[0]
    if not package:
        return module or None
    return f"{package}.{module}" if module else package


class Program:
    """The symbol table of one repository: modules by name, loaded eagerly or on demand."""

    def __init__(
        self,
        repo: str,
        modules: dict[str, ModuleFacts],
        loader: Callable[[str], ModuleFacts | None] | None = None,
        path_loader: Callable[[str], ModuleFacts | None] | None = None,
    ) -> None:
        self.repo = repo
        self.modules = modules
        self.loader = loader
        # a module by its file's path: two files of one repository can have one module name
        # (`tests/conftest.py` beside `examples/app/tests/conftest.py`)
        self.path_loader = path_loader
        self._missing: set[str] = set()
        self.memo = Memo()
        self._file_cache: dict[tuple, tuple] = {}
        self._flows: list[list] = []  # the file being resolved: its flow rows
        self._callables_depth = 0

    def forget(self) -> None:
        """Drop the loaded modules and every computation (between two files: see
        `index.resolve.Resolver.forget`)."""
        self.modules = {}
        self._missing = set()
        self.memo = Memo()
        self._file_cache = {}

    def module(self, name: str) -> ModuleFacts | None:
        """The module of that name (a dependency, found or not)."""
        self.memo.consulted.add(name)
        found = self.modules.get(name)
        if found is None and self.loader is not None and name not in self._missing:
            found = self.loader(name)
            if found is None:
                self._missing.add(name)
            else:
                self.modules[name] = found
        return found

    # ------------------------------------------------------------ modules
    def resolve_relative(self, mod: ModuleFacts, level: int, module: str) -> str | None:
        return absolute_module(mod.name, mod.is_package, level, module)

    def import_module_value(self, name: str) -> tuple:
        found = self.module(name)
        if found is not None:
            return ("mod", found), "import"
        top = name.split(".")[0]
        return ("ext", top), "import"

    def module_member(self, mod: ModuleFacts, name: str) -> tuple:
        return self.memo.cached(("member", mod.path, name), lambda: self._module_member(mod, name))

    def _module_member(self, mod: ModuleFacts, name: str) -> tuple:
        rows = self.module_rows(mod, name)
        if rows:
            value = self._final_binding(mod, 0, rows)
            if value[0] is not None:
                return _imported(value)
        sub = self.module(f"{mod.name}.{name}")
        if sub is not None:
            return ("mod", sub), "import"
        return UNKNOWN

    def module_rows(self, mod: ModuleFacts, name: str) -> list | None:
        """Module-level bindings of `name`, star imports that export it included, by position."""
        rows = mod.bindings(0).get(name)
        stars = mod.facts["stars"]
        if not stars:
            return rows
        merged = list(rows or ())
        for scope, level, module, pos in stars:
            if scope != 0:
                continue
            target_name = self.resolve_relative(mod, level, module)
            target = self.module(target_name) if target_name else None
            if target is not None and target is not mod and name in self.exports(target):
                merged.append([0, name, pos, ["star", target.name], None])
        if not merged:
            return None
        merged.sort(key=lambda r: r[BINDING_POS])
        return merged

    def exports(self, mod: ModuleFacts) -> frozenset[str]:
        """Names `from mod import *` binds: its `__all__` (literal or composed from other
        modules' `__all__`), else its public module-level names."""
        return self.memo.cached(("exports", mod.path), lambda: self._exports_of(mod), frozenset())

    def _exports_of(self, mod: ModuleFacts) -> frozenset[str]:
        listed = mod.facts.get("all")
        if listed is not None:
            return frozenset(listed)
        parts = mod.facts.get("all_parts")
        if parts is None:
            return frozenset(n for n in mod.bindings(0) if not n.startswith("_"))
        names: set[str] = set()
        for kind, value in parts:
            if kind == "lit":
                names.update(value)
            else:
                names.update(self._all_of(mod, value))
        return frozenset(names)

    def _all_of(self, mod: ModuleFacts, expr: list) -> frozenset[str]:
        """The names of another module's `__all__` used in this one's: `base.__all__`, or a
        name imported as `from base import __all__ as base_all`."""
        if expr[0] == "a" and expr[2] == "__all__":
            owner = self.evaluate(mod, 0, expr[1], 1 << 62)[0]
            return (
                self.exports(owner[1]) if owner is not None and owner[0] == "mod" else frozenset()
            )
        if expr[0] == "n":
            for row in reversed(mod.bindings(0).get(expr[1], ())):
                binding = row[BINDING_VALUE]
                if binding[0] == "from" and binding[3] == "__all__":
                    source = self.resolve_relative(mod, binding[1], binding[2])
                    owner = self.module(source) if source else None
                    return self.exports(owner) if owner is not None else frozenset()
        return frozenset()

    # ------------------------------------------------------------ names and bindings
    def lookup(self, mod: ModuleFacts, scope: int, name: str, pos: int) -> tuple:
        """Python's LEGB lookup of `name` used at byte `pos` in `scope`."""
        found = self.visible_rows(mod, scope, name, pos)
        if found is not None:
            where, live, same_scope = found
            if same_scope:
                return self._binding_at(mod, where, live, pos)
            return self._final_binding(mod, where, live)
        if name in BUILTINS:
            return BUILTIN_VALUE, None
        return UNKNOWN

    def visible_rows(self, mod: ModuleFacts, scope: int, name: str, pos: int) -> tuple | None:
        """The bindings of `name` a use at `pos` in `scope` sees, by Python's scoping (local,
        enclosing functions but not class bodies, `global`/`nonlocal`, module, star imports):
        (the scope binding it, its rows live at `pos`, whether that is the use's own scope),
        or None when no scope binds it."""
        scopes = mod.scopes
        current = scope
        same_scope = True
        while current >= 0:
            kind = scopes[current][SCOPE_KIND]
            if same_scope or kind != "class":
                rows = mod.bindings(current).get(name) if current else self.module_rows(mod, name)
                if rows:
                    marker = rows[0][BINDING_VALUE][0]
                    if marker == "global":
                        current = 0
                        same_scope = False
                        continue
                    if marker != "nonlocal":
                        live = rows
                        if (current, name) in mod.limited:
                            live = [
                                r
                                for r in rows
                                if r[BINDING_UNTIL] is None
                                or r[BINDING_POS] <= pos < r[BINDING_UNTIL]
                            ]
                        if live:
                            return current, live, same_scope
            if current == 0:
                break
            current = scopes[current][SCOPE_PARENT]
            same_scope = False
        return None

    def _binding_at(self, mod: ModuleFacts, scope: int, rows: list, pos: int) -> tuple:
        """The latest binding before `pos`; with none before it (a loop), the first after.

        A literal (`x = None`, a number, a container display) never hides an earlier binding.
        """
        if rows[-1][BINDING_POS] <= pos:
            index = len(rows)
        else:
            index = bisect_right([r[BINDING_POS] for r in rows], pos)
        for row in reversed(rows[:index]):
            if _is_literal(row):
                continue
            return self.binding_value(mod, scope, row)
        return self._first_resolving(mod, scope, rows[index:])

    def _final_binding(self, mod: ModuleFacts, scope: int, rows: list) -> tuple:
        """The value a name holds once its scope has run: its last binding that resolves."""
        return self._first_resolving(mod, scope, reversed(rows))

    def _first_resolving(self, mod: ModuleFacts, scope: int, rows: Iterable[list]) -> tuple:
        for row in rows:
            if _is_literal(row):
                continue
            value = self.binding_value(mod, scope, row)
            if value[0] is not None:
                return value
        return UNKNOWN

    def binding_value(self, mod: ModuleFacts, scope: int, row: list) -> tuple:
        binding = row[BINDING_VALUE]
        kind = binding[0]
        if kind == "def":
            target = binding[1]
            if mod.scopes[target][SCOPE_KIND] == "class":
                return ("cls", mod, target), "scope"
            return ("fn", mod, target), "scope"
        if kind == "imp":
            return self.import_module_value(binding[1])
        if kind == "from":
            return self._from_import(mod, binding[1], binding[2], binding[3])
        if kind == "star":
            target = self.module(binding[1])
            return self.module_member(target, row[BINDING_NAME]) if target is not None else UNKNOWN
        if kind in ("val", "ann", "for", "param", "exc", "with", "unpack"):
            key = ("binding", mod.path, scope, row[BINDING_NAME], row[BINDING_POS], kind)
            return self.memo.cached(key, lambda: self._typed_binding(mod, scope, row))
        return UNKNOWN

    def _from_import(self, mod: ModuleFacts, level: int, module: str, name: str) -> tuple:
        base_name = self.resolve_relative(mod, level, module)
        if base_name is None:
            return UNKNOWN
        base = self.module(base_name)
        if base is None:
            sub = self.module(f"{base_name}.{name}")
            if sub is not None:
                return ("mod", sub), "import"
            return ("ext", base_name.split(".")[0]), "import"
        return self.module_member(base, name)

    def _typed_binding(self, mod: ModuleFacts, scope: int, row: list) -> tuple:
        binding = row[BINDING_VALUE]
        kind = binding[0]
        pos = row[BINDING_POS] - 1  # the value is read before the name is bound (`x = x.next()`)
        if kind == "val":
            value = binding[1]
            if value is not None and value[0] == "box":  # a container named here: its
                box = ("box", mod, scope, row[BINDING_NAME], marshal.dumps(value[1]))
                return box, "container"  # stores (`c[k] = f`, `.append(f)`) count too
            return self.evaluate(mod, scope, value, pos)
        if kind == "unpack":
            found = self.unpacked(mod, scope, binding[1], binding[2], pos)
            return found[0] if len(found) == 1 else UNKNOWN
        if kind == "ann":
            typed = self.evaluate_type(mod, scope, binding[1])
            if typed[0] is not None:
                return typed
            return self.evaluate(mod, scope, binding[2], pos)
        if kind == "exc":
            caught = self.evaluate(mod, scope, binding[1], pos)[0]
            if caught is not None and caught[0] == "cls":
                return ("inst", caught[1], caught[2]), "annotation"
            return UNKNOWN
        if kind == "with":  # what the manager's `__enter__` returns (each member's, a union)
            manager = self.evaluate(mod, scope, binding[1], pos)[0]
            entered = []
            for member in alternatives(manager) if manager is not None else ():
                if member[0] != "inst":
                    return UNKNOWN
                enter = self.class_member(member[1], member[2], "__enter__")
                if enter is None or enter[0][0] != "fn":
                    continue  # this member is no context manager: not the one that runs
                value = self.returns(enter[0][1], enter[0][2])[0]
                if value is None:
                    return UNKNOWN
                entered.append(value)
            value = union_of(entered)
            return (value, "return") if value is not None else UNKNOWN
        if kind == "for":
            iterable = self.evaluate(mod, scope, binding[1], pos)
            value = iterable[0]
            if value is not None and value[0] == "seq":
                element = value[2] if value[2] is not None else value[1]
                if element is not None:
                    return element, iterable[1]
            if value is not None and value[0] == "box":
                found = self.elements(value, None)
                return found[0] if len(found) == 1 else UNKNOWN
            return UNKNOWN
        # parameters
        _, index, annotation, _default, star = binding
        if star:
            return UNKNOWN
        row_scope = mod.scopes[scope]
        parent = row_scope[SCOPE_PARENT]
        if (
            index == 0
            and parent >= 0
            and mod.scopes[parent][SCOPE_KIND] == "class"
            and row_scope[SCOPE_KIND] == "function"
        ):
            decorators = row_scope[SCOPE_DECORATORS]
            if "staticmethod" not in decorators:
                if "classmethod" in decorators or row_scope[SCOPE_NAME] in CLASS_FIRST_PARAM:
                    return ("cls", mod, parent), "self"
                return ("inst", mod, parent), "self"
        header_scope = parent if parent >= 0 else 0
        if annotation is not None:
            typed = self.evaluate_type(mod, header_scope, annotation)
            if typed[0] is not None:
                return typed
        for plugin in PARAMETER_PLUGINS:  # a framework's convention (a fixture, an injection)
            found = plugin.parameter_value(self, mod, scope, row)
            if found is not None:
                return found
        return UNKNOWN

    # ------------------------------------------------------------ expressions
    def evaluate(self, mod: ModuleFacts, scope: int, expr: list | None, pos: int) -> tuple:
        if expr is None:
            return UNKNOWN
        kind = expr[0]
        if kind == "n":
            return self.lookup(mod, scope, expr[1], pos)
        if kind == "a":
            base = self.evaluate(mod, scope, expr[1], pos)
            if base[0] is None:
                return UNKNOWN
            return self.attribute(base[0], base[1], expr[2])
        if kind == "c":
            func = expr[1]
            if func[0] == "n" and func[1] == "super":
                return self._super(mod, scope, expr[2], pos)
            if func[0] == "a":
                receiver = self.evaluate(mod, scope, func[1], pos)
                if receiver[0] is None:
                    return UNKNOWN
                callee = self.attribute(receiver[0], receiver[1], func[2])
                bound = receiver[0]
                if (
                    callee[0] is not None
                    and callee[0][0] == "fn"
                    and bound[0] in ("cls", "inst")
                    and _returns_self(callee[0][1].scopes[callee[0][2]])
                ):
                    # `-> Self` on the class the method was called on (a subclass too)
                    return ("inst", bound[1], bound[2]), "return"
                passed = self._passed_through(mod, scope, expr, callee[0], pos)
                return passed if passed is not None else self.call_result(callee[0], callee[1])
            callee = self.evaluate(mod, scope, func, pos)
            if callee[0] == BUILTIN_VALUE and func == ["n", "type"] and expr[2] is not None:
                instance = self.evaluate(mod, scope, expr[2], pos)  # type(self) is its class
                if instance[0] is not None and instance[0][0] == "inst":
                    return ("cls", instance[0][1], instance[0][2]), instance[1]
                return UNKNOWN
            passed = self._passed_through(mod, scope, expr, callee[0], pos)
            return passed if passed is not None else self.call_result(callee[0], callee[1])
        if kind == "i":
            base = self.evaluate(mod, scope, expr[1], pos)
            value = base[0]
            if value is not None and value[0] == "seq" and value[1] is not None:
                return value[1], base[1]
            if value is not None and value[0] == "tuple":
                index = expr[2] if len(expr) > 2 else None
                if isinstance(index, int) and -len(value[1]) <= index < len(value[1]):
                    item = value[1][index]
                    return (item, base[1]) if item is not None else UNKNOWN
                return UNKNOWN
            if value is not None and value[0] == "box":
                found = self.elements(value, expr[2] if len(expr) > 2 else None)
                return found[0] if len(found) == 1 else UNKNOWN
            return UNKNOWN
        if kind == "box":
            return ("box", mod, scope, None, marshal.dumps(expr[1])), "container"
        if kind == "lam":
            return ("lam", mod, scope, marshal.dumps(expr[1])), "lambda"
        if kind == "op":
            operand = self.evaluate(mod, scope, expr[1], pos)[0]
            if operand is not None and operand[0] == "inst":
                method = self.class_member(operand[1], operand[2], expr[2])
                if method is not None and method[0][0] == "fn":
                    returned = self.returns(method[0][1], method[0][2])
                    if returned[0] is not None:
                        return returned[0], "protocol"
            return UNKNOWN
        return UNKNOWN

    # ------------------------------------------------------------ flows between functions
    def _parameter(
        self, mod: ModuleFacts, scope: int, name: str, pos: int, starred: bool = False
    ) -> tuple | None:
        """(function scope, parameter name) when `name` at `pos` is a parameter of the
        enclosing function or of a function around it (a closure), not rebound before; a
        `*args` parameter only when `starred` (its elements are what callers pass)."""
        found = self.live_binding(mod, scope, name, pos)
        if found is None:
            return None
        where, row = found
        binding = row[BINDING_VALUE]
        if binding[0] != "param" and where > 0:
            # rebound in the function (`if isinstance(cb, Command): cb = cb.callback`): the
            # parameter's values still reach here (flow-insensitive, as every binding counts)
            params = [
                r for r in mod.bindings(where).get(name, ()) if r[BINDING_VALUE][0] == "param"
            ]
            if params:
                row = params[0]
                binding = row[BINDING_VALUE]
        if binding[0] != "param" or where <= 0:
            return None
        if binding[4] and (binding[4] != "*" or not starred):
            return None
        return where, row[BINDING_NAME]

    def _parameter_call(self, mod, scope, expr, pos, source_id: str, line: int) -> bool:
        """A call of a parameter's value (`callback()`), of an element of it (`for f in fns:
        f()`, `table[k]()`): a flow row the flow stage turns into CALLS to what callers pass."""
        mode = "v"
        target = None
        if expr[0] == "n":
            target = self._parameter(mod, scope, expr[1], pos)
            if target is None:
                found = self.live_binding(mod, scope, expr[1], pos)
                if found is not None and found[1][BINDING_VALUE][0] == "for":
                    iterated = found[1][BINDING_VALUE][1]
                    if iterated is not None and iterated[0] == "n":
                        at = found[1][BINDING_POS]
                        target = self._parameter(mod, found[0], iterated[1], at, starred=True)
                        mode = "e"
        elif expr[0] == "i" and expr[1][0] == "n":
            target = self._parameter(mod, scope, expr[1][1], pos, starred=True)
            mode = "e"
        if target is None:
            return self._container_call(mod, scope, expr, pos, source_id, line)
        owner, name = target
        self._flows.append(["call", mod.symbol_ids[owner], name, source_id, line, mode])
        return True

    # containers the flow stage fills: what a function stores from its parameters into a
    # module-level or instance-attribute container, called through it elsewhere
    def container_key(self, mod: ModuleFacts, scope: int, base: list, pos: int) -> str | None:
        """The flow stage's key of the container an expression names: a display bound to a
        name (`REGISTRY`, from any module that imports it), or an attribute of an instance of
        a repository class (`self.commands`: keyed by the class that assigns the attribute);
        `c.setdefault(k, [])` and `c.get(k, [])` name the lists held in `c`."""
        if base[0] == "c" and base[1][0] == "a" and base[1][2] in CONTAINER_GETTERS:
            base = base[1][1]
        if base[0] == "a":
            owner = self._evaluate_ref(mod, scope, base[1], pos)[0]
            if owner is None or owner[0] != "inst":
                return None
            holder = self._attribute_holder(owner[1], owner[2], base[2])
            return f"{holder[0].symbol_ids[holder[1]]}::{base[2]}"
        value = self._evaluate_ref(mod, scope, base, pos)[0]
        if value is None or value[0] != "box" or value[3] is None:
            return None
        return f"{value[1].symbol_ids[value[2]]}::{value[3]}"

    def _assigned_attribute(self, mod: ModuleFacts, scope: int, expr: list, pos: int) -> bool:
        """Whether `obj.name` is an attribute some method of obj's class or its bases assigns
        (`self.name = ...`), not a name nothing binds."""
        owner = self._evaluate_ref(mod, scope, expr[1], pos)[0]
        if owner is None or owner[0] != "inst":
            return False
        holder = self._attribute_holder(owner[1], owner[2], expr[2])
        return any(
            row[ATTR_NAME] == expr[2]
            and holder[0].scopes[row[ATTR_SCOPE]][SCOPE_PARENT] == holder[1]
            for row in holder[0].facts["attrs"]
        )

    def _attribute_holder(self, mod: ModuleFacts, scope: int, name: str) -> tuple:
        """The class in the MRO whose methods assign `self.name` (or whose body binds it);
        the class itself when none does."""

        def compute() -> tuple:
            info = self.class_info(mod, scope)
            for owner_mod, owner_scope in info.linearization if info is not None else ():
                if name in owner_mod.bindings(owner_scope):
                    return owner_mod, owner_scope
                for row in owner_mod.facts["attrs"]:
                    method = row[ATTR_SCOPE]
                    if (
                        row[ATTR_NAME] == name
                        and owner_mod.scopes[method][SCOPE_PARENT] == owner_scope
                    ):
                        return owner_mod, owner_scope
            return mod, scope

        return self.memo.cached(("holder", mod.path, scope, name), compute, (mod, scope))

    def _container_call(self, mod, scope, expr, pos, source_id: str, line: int) -> bool:
        """A call through a container (`self.commands[name]()`, `REGISTRY[k]()`, `for f in
        self.hooks: f()`, `handler = self.table.get(k); handler()`): a call row on its key."""
        base = None
        literal = None
        if expr[0] == "i":
            base, literal = expr[1], expr[2] if len(expr) > 2 else None
        elif expr[0] == "c" and expr[1][0] == "a" and expr[1][2] in CONTAINER_GETTERS:
            base, literal = expr[1][1], expr[3] if len(expr) > 3 else None
        elif expr[0] == "n":
            found = self.live_binding(mod, scope, expr[1], pos)
            if found is not None:
                binding = found[1][BINDING_VALUE]
                held = binding[1] if binding[0] in ("for", "val") else None
                if held is not None and (binding[0] == "for" or held[0] in ("i", "c")):
                    if binding[0] == "for":
                        return self._container_rows(
                            mod, found[0], held, None, found[1][BINDING_POS], source_id, line
                        )
                    return self._container_call(
                        mod, found[0], held, found[1][BINDING_POS], source_id, line
                    )
            return False
        elif expr[0] == "a":  # `self.callback()`: what the attribute was given
            if not self._assigned_attribute(mod, scope, expr, pos):
                return False  # a method the class does not have, not an attribute it holds
            base = expr
        elif expr[0] == "c" and expr[2] is not None and self._gives_back(mod, scope, expr, pos):
            # `self.ensure_sync(self.view_functions[k])()`: the argument, given back, is called
            return self._parameter_call(mod, scope, expr[2], pos, source_id, line)
        if base is None:
            return False
        return self._container_rows(mod, scope, base, literal, pos, source_id, line)

    def _gives_back(self, mod, scope, call: list, pos: int) -> bool:
        """Whether the function `call` calls may return its first argument as it is
        (`def ensure_sync(self, func): ... return func`; a bound method's `self` skipped)."""
        callee = self._evaluate_ref(mod, scope, call[1], pos)[0]
        if callee is None or callee[0] != "fn":
            return False
        fmod, fscope = callee[1], callee[2]
        params = [p[1] for p in self._signature_of(fmod, fscope) if not p[2]]
        parent = fmod.scopes[fscope][SCOPE_PARENT]
        in_class = parent >= 0 and fmod.scopes[parent][SCOPE_KIND] == "class"
        if in_class and "staticmethod" not in fmod.scopes[fscope][SCOPE_DECORATORS]:
            params = params[1:]
        return bool(params) and any(e == ["n", params[0]] for _pos, e in fmod.returns_of(fscope))

    def _container_rows(self, mod, scope, base, literal, pos, source_id: str, line: int) -> bool:
        key = self.container_key(mod, scope, base, pos)
        if key is None:
            return False
        if literal is not None:
            key = f"{key}[{literal!r}]"
        self._flows.append(["call", key, "*", source_id, line, "v"])
        return True

    def _store_flows(self, mod: ModuleFacts, flows: list) -> None:
        """What each function stores into a container the flow stage follows: its parameters'
        values (`self.commands[name] = func`), and, for instance-attribute containers (which a
        file's own resolution does not follow), the functions and classes stored."""
        for scope, base, literal, value, pos, spread in mod.facts.get("stores", ()):
            if spread or value is None:
                continue
            key = self.container_key(mod, scope, base, pos)
            if key is None:
                continue
            keys = [key] if literal is None else [key, f"{key}[{literal!r}]"]
            if value[0] == "n":
                parameter = self._parameter(mod, scope, value[1], pos)
                if parameter is not None:
                    owner, name = parameter
                    flows.extend(["pass", mod.symbol_ids[owner], name, k, "*"] for k in keys)
                    continue
            if base[0] != "a":
                continue  # a module-level display's own stores: its file resolves them
            found = self._evaluate_ref(mod, scope, value, pos)[0]
            if found is not None and found[0] in ("fn", "cls"):
                flows.extend(["arg", k, "*", found[1].symbol_ids[found[2]], "v"] for k in keys)
        for scope, obj, attr, pos, value, _typ in mod.facts["attrs"]:
            # `self.callback = callback`: what callers pass is what the attribute holds
            if value is None or value[0] != "n" or obj != mod.first_param(scope):
                continue
            parameter = self._parameter(mod, scope, value[1], pos)
            key = self.container_key(mod, scope, ["a", ["n", obj], attr], pos)
            if parameter is not None and key is not None:
                owner, name = parameter
                flows.append(["pass", mod.symbol_ids[owner], name, key, "*"])

    def _receiver_flows(self, mod, scope, expr, pos, source_id: str, line: int) -> None:
        """`self.m()` / `cls.m()` in a method: may reach the overrides of m in the subclasses
        of the method's class (the flow stage's dispatch rule)."""
        if expr[0] != "a" or expr[1][0] != "n" or scope <= 0:
            return
        row = mod.scopes[scope]
        parent = row[SCOPE_PARENT]
        if row[SCOPE_KIND] != "function" or parent < 0 or mod.scopes[parent][SCOPE_KIND] != "class":
            return
        if expr[1][1] != mod.first_param(scope) or "staticmethod" in row[SCOPE_DECORATORS]:
            return
        self._flows.append(["self", source_id, mod.symbol_ids[parent], expr[2], line])

    def _hook_flows(self, expr: list, source_id: str, line: int) -> bool:
        """`config.hook.pytest_x(...)`, `item.ihook.pytest_x(...)`, `pm.hook.x(...)`: a plugin
        manager's hook, which calls every implementation registered for that name (the flow
        stage's hook rule binds the functions and methods of that name)."""
        if expr[0] != "a" or not _HOOKABLE.match(expr[2]):
            return False
        relay = expr[1]
        if relay not in (["n", "hook"], ["n", "ihook"]) and not (
            relay[0] == "a" and relay[2] in ("hook", "ihook")
        ):
            return False
        self._flows.append(["hook", source_id, expr[2], line])
        return True

    def _getattr_flows(self, mod, scope, expr, pos, source_id: str, line: int) -> None:
        """`getattr(obj, "visit_" + kind)(...)` on an instance or class of the repository: may
        reach every method of that class, its bases and its subclasses whose name has that
        prefix (the flow stage's getattr rule)."""
        if expr[0] != "c" or expr[1] != ["n", "getattr"] or len(expr) < 4 or expr[2] is None:
            return
        prefix = expr[3]
        if not isinstance(prefix, str) or not prefix.endswith("*") or len(prefix) < 2:
            return
        receiver = self._evaluate_ref(mod, scope, expr[2], pos)[0]
        if receiver is None or receiver[0] not in ("inst", "cls"):
            return
        cls_id = receiver[1].symbol_ids[receiver[2]]
        self._flows.append(["getattr", source_id, cls_id, prefix[:-1], line])

    def _signature_of(self, mod: ModuleFacts, scope: int) -> list:
        """A function's parameters in order: [(index, name, star)]."""

        def compute() -> list:
            params = []
            for name, rows in mod.bindings(scope).items():
                binding = rows[0][BINDING_VALUE]
                if binding[0] == "param":
                    params.append((binding[1], name, binding[4]))
            return sorted(params)

        return self.memo.cached(("signature", mod.path, scope), compute, [])

    def _argument_flows(self, mod, scope, expr, callee: tuple, pos: int, source_id: str) -> None:
        """What a call passes to the parameters a function uses as callables: functions,
        classes, lambdas and the elements of displays ("arg" rows), and the caller's own
        parameters ("pass" rows)."""
        passed = mod.arguments(pos, expr)
        if not passed:
            return
        target = callee
        if callee[0] == "cls":
            init = self.class_member(callee[1], callee[2], "__init__", instance=False)
            if init is None or init[0][0] != "fn":
                return
            target = init[0]
        tmod, tscope = target[1], target[2]
        wanted = tmod.callable_params().get(tscope)
        if not wanted:
            return  # the callee never calls, iterates, passes on or stores a parameter
        params = self._signature_of(tmod, tscope)
        bound = callee[0] == "cls"
        if expr[0] == "a" and not bound:
            base = self._evaluate_ref(mod, scope, expr[1], pos)[0]
            decorators = tmod.decorators(tscope)
            if base is not None and base[0] in ("inst", "super"):
                bound = "staticmethod" not in decorators
            elif base is not None and base[0] == "cls":
                bound = "classmethod" in decorators
        target_id = tmod.symbol_ids[tscope]
        positional = [p for p in params if not p[2]]
        by_name = {p[1] for p in positional}
        star = next((p for p in params if p[2] == "*"), None)
        offset = 1 if bound else 0
        for slot, value in passed:
            element = False
            if isinstance(slot, str):
                name = slot if slot in by_name else None
            else:
                index = slot + offset
                name = positional[index][1] if index < len(positional) else None
                if star is not None and index >= star[0]:  # collected by `*args`
                    name, element = star[1], True
            if name is not None and name in wanted:
                self._value_flows(mod, scope, value, pos, target_id, name, element)

    def _value_flows(
        self, mod, scope, value: list, pos: int, target_id: str, name: str, element: bool = False
    ) -> None:
        flows = self._flows
        if element:  # one of the `*args` a call passes: an element of the parameter
            found = self._evaluate_ref(mod, scope, value, pos)[0]
            if found is not None and found[0] in ("fn", "cls"):
                flows.append(["arg", target_id, name, found[1].symbol_ids[found[2]], "e"])
            return
        if value[0] == "n":
            parameter = self._parameter(mod, scope, value[1], pos)
            if parameter is not None:
                owner, own = parameter
                flows.append(["pass", mod.symbol_ids[owner], own, target_id, name])
                return
        found = self._evaluate_ref(mod, scope, value, pos)[0]
        if found is None:
            if value[0] == "a":  # `ctx.invoke(self.callback)`: what the attribute was given
                key = self.container_key(mod, scope, value, pos)
                if key is not None:
                    flows.append(["pass", key, "*", target_id, name])
            return
        if found[0] in ("fn", "cls"):
            flows.append(["arg", target_id, name, found[1].symbol_ids[found[2]], "v"])
        elif found[0] == "box":
            for item, _via in self.elements(found, None):
                if item[0] in ("fn", "cls"):
                    flows.append(["arg", target_id, name, item[1].symbol_ids[item[2]], "e"])
        elif found[0] == "lam":
            _, lmod, lscope, calls = found
            for callee, at in marshal.loads(calls):
                called = self.evaluate(lmod, lscope, callee, at)[0]
                if called is not None and called[0] in ("fn", "cls"):
                    flows.append(["arg", target_id, name, called[1].symbol_ids[called[2]], "l"])

    def decorated_value(self, mod: ModuleFacts, scope: int) -> tuple:
        """What a decorated name holds once its decorators ran (innermost first): the wrapper
        a decorator returns, an instance a class decorator makes; the function itself when a
        decorator returns its argument or is not known."""
        return self._decorations_applied(mod, scope)[1]

    def _decorations_applied(self, mod: ModuleFacts, scope: int) -> tuple[list, tuple]:
        """Each decorator of a definition, innermost first, with what it receives — the
        definition, or what the decorator below returned — and what the name holds at the
        end: ([(decorator values, received)], final value)."""

        def compute() -> tuple[list, tuple]:
            kind = "cls" if mod.scopes[scope][SCOPE_KIND] == "class" else "fn"
            value: tuple = (kind, mod, scope)
            parent = mod.scopes[scope][SCOPE_PARENT]
            steps = []
            for pos, applied in reversed(mod.decorations().get(scope, ())):
                decorators = self.callables(mod, parent, applied, pos)
                steps.append((decorators, value))
                if len(decorators) != 1:
                    continue
                decorator = decorators[0][0]
                if decorator[0] == "cls":
                    value = ("inst", decorator[1], decorator[2])
                elif decorator[0] == "fn" and not self._returns_argument(
                    decorator[1], decorator[2]
                ):
                    results = self.returned(decorator[1], decorator[2])
                    if len(results) == 1 and results[0][0] in ("fn", "inst"):
                        value = results[0]
            return steps, value

        return self.memo.cached(("decorated", mod.path, scope), compute, ([], (None,)))

    def _returns_argument(self, mod: ModuleFacts, scope: int) -> bool:
        first = next((p[1] for p in self._signature_of(mod, scope) if not p[2]), None)
        return first is not None and any(
            expr == ["n", first] for _pos, expr in mod.returns_of(scope)
        )

    def _definition_flows(self, mod: ModuleFacts, flows: list) -> None:
        """Flows a module's definitions make: each decorator receives what it decorates (the
        function, or what the decorator below it returned); a parameter's default value is
        passed to it; and each class's indexed bases and own methods (for dispatch)."""
        ids = mod.symbol_ids
        for scope in mod.decorations():
            for decorators, received in self._decorations_applied(mod, scope)[0]:
                if received[0] not in ("fn", "cls"):
                    continue
                for decorator, _via in decorators:
                    if decorator[0] != "fn":
                        continue
                    params = [p for p in self._signature_of(decorator[1], decorator[2]) if not p[2]]
                    if params:  # "d": the wrapper it returns calls it back ("wrapped")
                        target = decorator[1].symbol_ids[decorator[2]]
                        flows.append(
                            ["arg", target, params[0][1], received[1].symbol_ids[received[2]], "d"]
                        )
        for scope, row in enumerate(mod.scopes):
            kind = row[SCOPE_KIND]
            if kind == "function":
                wanted = mod.callable_params().get(scope)
                if not wanted:
                    continue  # a default value matters only to a parameter used as a callable
                parent = row[SCOPE_PARENT]
                header = parent if parent >= 0 else 0
                for name in sorted(wanted):
                    binding = mod.bindings(scope)[name][0][BINDING_VALUE]
                    default = binding[3] if binding[0] == "param" else None
                    if default is not None and default[0] in ("n", "a"):
                        found = self.evaluate(mod, header, default, row[SCOPE_BODY])[0]
                        if found is not None and found[0] in ("fn", "cls"):
                            flows.append(
                                ["arg", ids[scope], name, found[1].symbol_ids[found[2]], "v"]
                            )
            elif kind == "class":
                info = self.class_info(mod, scope)
                bases = [b[0].symbol_ids[b[1]] for b in info.bases] if info is not None else []
                methods = sorted(
                    name
                    for name, rows in mod.bindings(scope).items()
                    if any(
                        r[BINDING_VALUE][0] == "def"
                        and mod.scopes[r[BINDING_VALUE][1]][SCOPE_KIND] == "function"
                        for r in rows
                    )
                )
                flows.append(["class", ids[scope], bases, methods])
        # the module's functions a plugin manager may call by name (pluggy's hooks): public
        # names with an underscore (`pytest_runtest_setup`), hook specifications left out
        hookable = sorted(
            row[SCOPE_NAME]
            for row in mod.scopes[1:]
            if row[SCOPE_KIND] == "function"
            and row[SCOPE_PARENT] == 0
            and _HOOKABLE.match(row[SCOPE_NAME])
            and not any(d.partition("(")[0].endswith("hookspec") for d in row[SCOPE_DECORATORS])
        )
        if hookable:
            flows.append(["functions", ids[0], hookable])

    # ------------------------------------------------------------ values that flow
    def callables(
        self, mod: ModuleFacts, scope: int, expr: list | None, pos: int, evaluated: bool = False
    ) -> list:
        """Every value a callee expression may hold: (value, via) pairs, for the call sites
        `evaluate` cannot pin to one value — an element of a container (by a literal key, or
        any element), a name bound by a `for` over a container or by unpacking, a function
        that returns one of several functions. `evaluated`: `evaluate` already found nothing.
        A cycle answers nothing where it closes; a chain deeper than MAX_CALLABLES_DEPTH
        answers nothing past it (and is not cached)."""
        if self._callables_depth >= MAX_CALLABLES_DEPTH:
            self.memo.cut()
            return []
        key = ("callables", mod.path, scope, marshal.dumps(expr), pos, evaluated)
        self._callables_depth += 1
        try:
            # once per run: a container whose elements come from itself (`tree[n] = tree[m]`
            # in a loop over `tree`) is a cycle, cut where it closes (not after 12 levels of
            # every element again: exponential)
            found = self.memo.cached(
                key, lambda: self._callables(mod, scope, expr, pos, evaluated), []
            )
            return list(found)
        finally:
            self._callables_depth -= 1

    def _callables(
        self, mod: ModuleFacts, scope: int, expr: list | None, pos: int, evaluated: bool
    ) -> list:
        if expr is None or expr[0] not in ("n", "i", "c", "box", "lam", "op", "a"):
            return []
        if not evaluated:
            single = self.evaluate(mod, scope, expr, pos)
            if single[0] is not None:
                return [] if single[0][0] == "box" else [single]
        kind = expr[0]
        if kind == "n":
            found = self.live_binding(mod, scope, expr[1], pos)
            if found is None:
                return []
            where, row = found
            binding = row[BINDING_VALUE]
            if binding[0] == "val":
                if binding[1] is None or binding[1][0] not in ("n", "i", "c"):
                    return []
                return self.callables(mod, where, binding[1], row[BINDING_POS] - 1)
            if binding[0] == "for":
                return [
                    element
                    for box in self.containers(mod, where, binding[1], row[BINDING_POS] - 1)
                    for element in self.elements(box, None)
                ]
            if binding[0] == "unpack":
                return self.unpacked(mod, where, binding[1], binding[2], row[BINDING_POS] - 1)
            return []
        if kind == "i":
            literal = expr[2] if len(expr) > 2 else None
            return [
                element
                for box in self.containers(mod, scope, expr[1], pos)
                for element in self.elements(box, literal)
            ]
        if kind == "c":
            func = expr[1]
            if func[0] == "a" and func[2] in CONTAINER_GETTERS:
                literal = expr[3] if len(expr) > 3 else None
                boxes = self.containers(mod, scope, func[1], pos)
                if boxes:
                    return [e for box in boxes for e in self.elements(box, literal)]
            results: list = []
            for callee, _via in self.callables(mod, scope, func, pos):
                if callee[0] == "fn":
                    results.extend(
                        (value, "return") for value in self.returned(callee[1], callee[2])
                    )
                elif callee[0] == "cls":
                    results.append((("inst", callee[1], callee[2]), "constructor"))
            return _distinct(results)
        return []

    def containers(self, mod: ModuleFacts, scope: int, expr: list | None, pos: int) -> list:
        """The containers (box or typed sequence values) an expression is: one it evaluates
        to, or the containers a name bound by unpacking holds (`head, *rest = f, g, h`)."""
        single = self.evaluate(mod, scope, expr, pos)[0]
        if single is not None:
            return [single] if single[0] in ("box", "seq") else []
        if expr is not None and expr[0] == "n":
            found = self.live_binding(mod, scope, expr[1], pos)
            if found is not None and found[1][BINDING_VALUE][0] == "unpack":
                where, row = found
                binding = row[BINDING_VALUE]
                unpacked = self.unpacked(
                    mod, where, binding[1], binding[2], row[BINDING_POS] - 1, boxes=True
                )
                return [v for v, _ in unpacked if v[0] in ("box", "seq")]
        return []

    def elements(self, box: tuple, literal: str | int | None) -> list:
        """(value, "container") for each element of a container that a subscript with this
        literal key (None: any key) may reach: its display's items and what was stored in it."""
        if box[0] == "seq":
            element = box[1]
            return [(element, "container")] if element is not None else []
        _, mod, scope, name, items = box
        # once per run and container, whatever the key: a container whose elements are made
        # from its own elements (`reps.append(reps[0].with_differentials(1))`) is a cycle, cut
        # where it closes; followed again from every element and every key, it was
        # exponential in the number of stores
        key = ("elements", mod.path, scope, name, items)
        keyed = self.memo.cached(key, lambda: self._elements(box), [])
        return _distinct(
            [
                (value, "container")
                for stored_key, value in keyed
                if literal is None or stored_key is None or stored_key == literal
            ]
        )

    def _elements(self, box: tuple) -> list:
        """(key or None, value) of every element of a display container and what was stored
        in it."""
        _, mod, scope, name, items = box
        entries = [(k, e) for k, e in marshal.loads(items)]
        if name is not None:
            stored = self._stored(mod, scope, name)
            if stored:
                # `d["a"] = g` after `d = {"a": f}` replaces what the display put there
                replaced = {k for k, _e in stored if isinstance(k, str)}
                entries = [(k, e) for k, e in entries if k not in replaced] + stored
        results = []
        for key, expr in entries:
            if expr is not None and expr[0] == "box":
                results.append((key, ("box", mod, scope, None, marshal.dumps(expr[1]))))
                continue
            for value, _via in self.callables(mod, scope, expr, 1 << 62):
                results.append((key, value))
        return results

    def _stored(self, mod: ModuleFacts, scope: int, name: str) -> list:
        """(key, expr) stored into the container `name` of `scope`: `c[k] = f`, `.append(f)`,
        `.setdefault(k, f)`, and the items of a display passed to `.update`/`.extend`."""
        entries = []
        for where, _base, key, value, _pos, spread in mod.stores_into(name):
            if where != scope and (scope != 0 or name in mod.bindings(where)):
                continue
            if not spread:
                entries.append((key, value))
            elif value[0] == "box":
                entries.extend((k, e) for k, e in value[1])
        return entries

    def unpacked(
        self, mod: ModuleFacts, scope: int, value: list, path: list, pos: int, boxes: bool = False
    ) -> list:
        """What `a, (b, *c) = value` binds a name to, following its path into a display
        (`a, b = f, g`) or into a value typed as a fixed tuple (`a, b = pair()` where `pair`
        returns `tuple[A, B]`); unpacking any other value binds nothing known."""
        if value is None:
            return []
        if value[0] != "box":
            return self._unpacked_tuple(mod, scope, value, path, pos)
        current: list = [("expr", value)]
        for step in path:
            following: list = []
            for kind, item in current:
                items = None
                if kind == "expr" and item is not None and item[0] == "box":
                    items = item[1]
                elif kind == "value" and item[0] == "box" and item[3] is None:
                    items = marshal.loads(item[4])
                if items is None:
                    continue
                if isinstance(step, int):
                    if step < len(items):
                        following.append(("expr", items[step][1]))
                else:
                    _, start, after = step
                    tail = items[start : len(items) - after]
                    rest = ("box", mod, scope, None, marshal.dumps(tail))
                    following.append(("value", rest))
            current = following
        results: list = []
        for kind, item in current:
            if kind == "value":
                if boxes:
                    results.append((item, "container"))
            elif item is not None and item[0] == "box":
                if boxes:
                    results.append((("box", mod, scope, None, marshal.dumps(item[1])), "container"))
            else:
                results.extend((v, "container") for v, _ in self.callables(mod, scope, item, pos))
        return _distinct(results)

    def _unpacked_tuple(self, mod: ModuleFacts, scope: int, value: list, path: list, pos: int):
        """Unpacking a value typed as a fixed tuple: the positions of the path (a starred
        target binds nothing known)."""
        found, via = self.evaluate(mod, scope, value, pos)
        for step in path:
            if found is None or found[0] != "tuple" or not isinstance(step, int):
                return []
            found = found[1][step] if step < len(found[1]) else None
        return [(found, via)] if found is not None else []

    def live_binding(self, mod: ModuleFacts, scope: int, name: str, pos: int) -> tuple | None:
        """(scope, row) of the binding of `name` a use at `pos` sees — in its own scope the
        latest before `pos` (else the first after it: a loop), in an outer one the last —
        literals left out; None when there is none."""
        found = self.visible_rows(mod, scope, name, pos)
        if found is None:
            return None
        where, live, same_scope = found
        usable = [r for r in live if not _is_literal(r)]
        if not usable:
            return None
        if not same_scope:
            return where, usable[-1]
        before = [r for r in usable if r[BINDING_POS] <= pos]
        return where, before[-1] if before else usable[0]

    def returned(self, mod: ModuleFacts, scope: int) -> list:
        """Every value a function may return (a function, a closure, a bound method, an
        instance), one per distinct result of its `return` statements."""

        def compute() -> list:
            single = self.returns(mod, scope)
            if single[0] is not None and single[0] != ("ext", "typing"):
                return [single[0]]  # (`-> Callable[...]` names no function: its returns do)
            values = []
            for pos, expr in mod.returns_of(scope):
                value = self.evaluate(mod, scope, expr, pos)[0]
                if value is not None and value[0] in RETURNED_KINDS:
                    values.append(value)
            return list(dict.fromkeys(values))

        return self.memo.cached(("returned", mod.path, scope), compute, [])

    def _super(self, mod: ModuleFacts, scope: int, first_arg: list | None, pos: int) -> tuple:
        scopes = mod.scopes
        if first_arg is not None:
            named = self.evaluate(mod, scope, first_arg, pos)
            if named[0] is not None and named[0][0] == "cls":
                return ("super", named[0][1], named[0][2], "inst"), "super"
            return UNKNOWN
        current = scope
        while current > 0 and scopes[current][SCOPE_KIND] != "function":
            current = scopes[current][SCOPE_PARENT]
        if current <= 0:
            return UNKNOWN
        parent = scopes[current][SCOPE_PARENT]
        if parent < 0 or scopes[parent][SCOPE_KIND] != "class":
            return UNKNOWN
        decorators = scopes[current][SCOPE_DECORATORS]
        flavour = "cls" if "classmethod" in decorators else "inst"
        return ("super", mod, parent, flavour), "super"

    def _passed_through(self, mod, scope, expr: list, callee, pos: int) -> tuple | None:
        """The result of a standard function that gives back (a type of) its argument:
        `typing.cast(Foo, value)` is a Foo, or the value itself when `Foo` is a type variable
        or not known; `functools.update_wrapper(wrapper, wrapped)` is the wrapper. None for
        any other call."""
        name = _last_name(expr[1])
        if callee == ("ext", "typing") and name == "cast":
            cast = self.evaluate_type(mod, scope, expr[2]) if expr[2] is not None else UNKNOWN
            if cast[0] in (None, ("ext", "typing")) and len(expr) > 4:
                cast = self.evaluate(mod, scope, expr[4], pos)
            return cast if cast[0] is not None else None
        if callee == ("ext", "functools") and name == "update_wrapper" and expr[2] is not None:
            return self.evaluate(mod, scope, expr[2], pos)
        return None

    def call_result(self, value: tuple | None, via: str | None) -> tuple:
        if value is None:
            return UNKNOWN
        kind = value[0]
        if kind == "union":
            each = [self.call_result(member, via) for member in value[1]]
            known = [f for f in each if f[0] is not None]
            return (union_of([v for v, _ in known]), known[0][1]) if known else UNKNOWN
        if kind == "cls":
            return ("inst", value[1], value[2]), "constructor"
        if kind == "fn":
            returned = self.returns(value[1], value[2])
            return (returned[0], "return") if returned[0] is not None else UNKNOWN
        if kind == "inst":
            call = self.class_member(value[1], value[2], "__call__")
            if call is not None and call[0][0] == "fn":
                returned = self.returns(call[0][1], call[0][2])
                return (returned[0], "return") if returned[0] is not None else UNKNOWN
            return UNKNOWN
        if kind == "ext":
            return value, via
        return UNKNOWN

    def returns(self, mod: ModuleFacts, scope: int) -> tuple:
        def compute() -> tuple:
            row = mod.scopes[scope]
            annotation = row[SCOPE_RETURNS]
            if annotation is None:
                return self._inferred_return(mod, scope)
            parent = row[SCOPE_PARENT]
            header = parent if parent >= 0 else 0
            if (
                annotation[0] == "n"
                and annotation[1] == "Self"
                and parent >= 0
                and mod.scopes[parent][SCOPE_KIND] == "class"
            ):
                return ("inst", mod, parent), "annotation"
            return self.evaluate_type(mod, header, annotation)

        return self.memo.cached(("returns", mod.path, scope), compute)

    def _inferred_return(self, mod: ModuleFacts, scope: int) -> tuple:
        """An unannotated function's result, when every `return` gives the same value
        (`return self`, `return cls(...)`, `return Foo(...)`, `return inner`, `h = make();
        return h`). The local bindings a returned value is made of are part of the module's
        interface (`parsing.python.interface_of`), so an edit to them re-resolves the files
        that depend on what the function returns, and other body edits do not."""
        values = set()
        found = None
        for pos, expr in mod.returns_of(scope):
            value = self.evaluate(mod, scope, expr, pos)
            if value[0] is None or value[0][0] not in RETURNED_KINDS:
                return UNKNOWN
            values.add(value[0])
            found = value
        if found is None or len(values) != 1:
            return UNKNOWN
        return found[0], "return"

    def attribute(self, base: tuple, via: str | None, name: str) -> tuple:
        kind = base[0]
        if kind == "union":
            each = [self.attribute(member, via, name) for member in base[1]]
            known = [f for f in each if f[0] is not None]
            return (union_of([v for v, _ in known]), known[0][1]) if known else UNKNOWN
        if kind == "mod":
            return self.module_member(base[1], name)
        if kind in ("cls", "inst"):
            if name == "__class__" and kind == "inst":
                return ("cls", base[1], base[2]), via
            found = self.class_member(base[1], base[2], name, instance=kind == "inst")
            if found is None:
                # not defined in the repository: it may come from an external base class
                info = self.class_info(base[1], base[2])
                origins = [m for m in (info.external_bases if info else ()) if m]
                return (("ext", origins[0]), via) if origins else UNKNOWN
            value, owner, member_via = found
            if value[0] == "fn" and _is_property(value[1].scopes[value[2]]):
                # reading a property runs its getter: the value is what the getter returns
                if kind != "inst":
                    return value, via  # on the class: the property object itself
                returned = self.returns(value[1], value[2])
                return (returned[0], "return") if returned[0] is not None else UNKNOWN
            if via == "self":
                if value[0] == "fn" or member_via is None:
                    same = owner == (base[1].name, base[2])
                    return value, "self" if same else "inheritance"
                return value, member_via
            if value[0] == "fn" or member_via is None:
                return value, via
            return value, member_via
        if kind == "super":
            found = self.class_member(
                base[1], base[2], name, instance=base[3] == "inst", skip_self=True
            )
            if found is None:
                return UNKNOWN
            return found[0], "super"
        if kind == "ext":
            return base, via
        if kind == "fn" and base[1].decorators(base[2]):
            # a decorated name holds what its decorators made: `@command() def hello` is a
            # Command, so `hello.invoke` is Command.invoke
            made = self.decorated_value(base[1], base[2])
            if made[0] == "inst":
                return self.attribute(made, "decorator", name)
        return UNKNOWN

    # ------------------------------------------------------------ types
    def evaluate_type(self, mod: ModuleFacts, scope: int, annotation: list | None) -> tuple:
        """An annotation → the value it describes (an instance, a class for type[X], ...)."""
        if annotation is None:
            return UNKNOWN
        kind = annotation[0]
        if kind in ("n", "a"):
            found = self.evaluate(mod, scope, annotation, 1 << 62)
            value = found[0]
            if value is not None and value[0] == "cls":
                return ("inst", value[1], value[2]), "annotation"
            return UNKNOWN
        if kind == "u":
            alternatives = [a for a in annotation[1] if a is not None and a[0] != "none"]
            if len(alternatives) == 1:
                return self.evaluate_type(mod, scope, alternatives[0])
            typed = [self.evaluate_type(mod, scope, a)[0] for a in alternatives]
            if typed and all(t is not None for t in typed):  # every alternative known
                return union_of(typed), "annotation"
            return UNKNOWN
        if kind == "g":
            base = annotation[1]
            args = annotation[2]
            generic = base[1] if base[0] == "n" else base[2] if base[0] == "a" else ""
            found = self.evaluate(mod, scope, base, 1 << 62)
            if found[0] is not None and found[0][0] == "cls":
                return ("inst", found[0][1], found[0][2]), "annotation"
            if generic in WRAPPER_GENERICS and args:
                return self.evaluate_type(mod, scope, args[0])
            if generic == "Union":
                return self.evaluate_type(mod, scope, ["u", args])
            if generic in ("Type", "type") and args:
                inner = self.evaluate_type(mod, scope, args[0])
                if inner[0] is not None and inner[0][0] == "inst":
                    return ("cls", inner[0][1], inner[0][2]), "annotation"
                return UNKNOWN
            if generic in ELEMENT_GENERICS and args:
                element = self.evaluate_type(mod, scope, args[0])[0]
                return (("seq", element, None), "annotation") if element is not None else UNKNOWN
            if generic in ("tuple", "Tuple") and len(args) == 2 and args[1] is None:
                element = self.evaluate_type(mod, scope, args[0])[0]
                return (("seq", element, None), "annotation") if element is not None else UNKNOWN
            if generic in ("tuple", "Tuple") and args and None not in args:
                # a fixed tuple (`-> tuple[str, Command | None, list[str]]`): each position's
                # value, for unpacking (`name, cmd, rest = resolve(...)`) and `[literal]`
                items = tuple(self.evaluate_type(mod, scope, arg)[0] for arg in args)
                if any(item is not None for item in items):
                    return ("tuple", items), "annotation"
                return UNKNOWN
            if generic in MAPPING_GENERICS and len(args) == 2:
                key = self.evaluate_type(mod, scope, args[0])[0]
                element = self.evaluate_type(mod, scope, args[1])[0]
                if element is None and key is None:
                    return UNKNOWN
                return ("seq", element, key), "annotation"
            if generic == "Coroutine" and len(args) == 3:
                return self.evaluate_type(mod, scope, args[2])
            return UNKNOWN
        return UNKNOWN

    def type_names(self, annotation: list | None) -> Iterable[list]:
        """Every name or dotted name inside an annotation (for REFERENCES)."""
        if annotation is None:
            return
        kind = annotation[0]
        if kind in ("n", "a"):
            yield annotation
        elif kind == "u":
            for alternative in annotation[1]:
                yield from self.type_names(alternative)
        elif kind == "g":
            yield annotation[1]
            for arg in annotation[2]:
                yield from self.type_names(arg)

    # ------------------------------------------------------------ classes
    def class_info(self, mod: ModuleFacts, scope: int) -> ClassInfo | None:
        return self.memo.cached(
            ("class", mod.path, scope), lambda: self._class_info(mod, scope), None
        )

    def _class_info(self, mod: ModuleFacts, scope: int) -> ClassInfo:
        row = mod.scopes[scope]
        parent = row[SCOPE_PARENT]
        header = parent if parent >= 0 else 0
        bases: list[tuple[ModuleFacts, int, str, int]] = []
        external: list[str] = []
        direct_external: list[str] = []
        base_mros: list[list[tuple[ModuleFacts, int]] | None] = []
        members: set[str] | None = set()
        standard: list[tuple[str, str]] | None = []
        for order, base in enumerate(row[SCOPE_BASES], 1):
            value, via = self.evaluate(mod, header, base, row[SCOPE_BODY])
            known: frozenset[str] | None = frozenset()
            known_bases: tuple[tuple[str, str], ...] | None = ()
            if value is not None and value[0] == "cls":
                if (value[1].path, value[2]) == (mod.path, scope):
                    continue
                bases.append((value[1], value[2], via or "scope", order))
                info = self.class_info(value[1], value[2])
                base_mros.append(info.linearization if info is not None else None)
                if info is not None:
                    external.extend(info.external_bases)
                    known = info.external_members
                    known_bases = info.standard_bases
            elif value != BUILTIN_VALUE:
                written = render(base)
                direct_external.append(written)
                top = value[1] if value is not None and value[0] == "ext" else ""
                external.append(top)
                known = standard_class_members(top, written) if top else None
                known_bases = ((top, written),) if known is not None else None
            members = None if members is None or known is None else members | known
            if standard is not None and known_bases is not None:
                standard.extend(b for b in known_bases if b not in standard)
            else:
                standard = None
        mro = c3((mod, scope), [(b[0], b[1]) for b in bases], base_mros)
        frozen = None if members is None else frozenset(members)
        standard_bases = None if standard is None or frozen is None else tuple(standard)
        return ClassInfo(mod, scope, mro, external, direct_external, frozen, standard_bases, bases)

    def class_member(
        self,
        mod: ModuleFacts,
        scope: int,
        name: str,
        instance: bool = True,
        skip_self: bool = False,
    ) -> tuple | None:
        """Find `name` on a class: (value, (owner module name, owner scope), via) or None."""
        key = ("cmember", mod.path, scope, name, instance, skip_self)
        return self.memo.cached(
            key, lambda: self._class_member(mod, scope, name, instance, skip_self), None
        )

    def _class_member(self, mod, scope, name, instance, skip_self):
        info = self.class_info(mod, scope)
        if info is None:
            return None
        mro = info.linearization[1:] if skip_self else info.linearization
        for owner_mod, owner_scope in mro:
            rows = owner_mod.bindings(owner_scope).get(name)
            if not rows:
                continue
            for row in reversed(rows):
                binding = row[BINDING_VALUE]
                if binding[0] == "def":
                    target = binding[1]
                    kind = "cls" if owner_mod.scopes[target][SCOPE_KIND] == "class" else "fn"
                    return (kind, owner_mod, target), (owner_mod.name, owner_scope), None
            for row in reversed(rows):
                value = self.binding_value(owner_mod, owner_scope, row)
                if value[0] is not None:
                    resolved = value[0]
                    if row[BINDING_VALUE][0] == "ann" and resolved[0] == "inst" and not instance:
                        continue
                    return resolved, (owner_mod.name, owner_scope), value[1]
        if instance:
            for owner_mod, owner_scope in mro:
                found = self.instance_attribute(owner_mod, owner_scope, name)
                if found[0] is not None:
                    return found[0], (owner_mod.name, owner_scope), found[1]
        return None

    def instance_attribute(self, mod: ModuleFacts, scope: int, name: str) -> tuple:
        """Type of `self.name` assigned in a method of this class (annotation beats value)."""

        def compute() -> tuple:
            candidates = []
            for row in mod.facts["attrs"]:
                method = row[ATTR_SCOPE]
                if row[ATTR_NAME] != name or mod.scopes[method][SCOPE_PARENT] != scope:
                    continue
                if mod.first_param(method) != row[ATTR_OBJECT]:
                    continue
                candidates.append(row)
            # annotations first, then __init__, then the rest; later assignments win inside each
            candidates.sort(
                key=lambda r: (
                    r[ATTR_TYPE] is not None,
                    mod.scopes[r[ATTR_SCOPE]][SCOPE_NAME] == "__init__",
                    r[ATTR_POS],
                )
            )
            for row in reversed(candidates):
                method = row[ATTR_SCOPE]
                if row[ATTR_TYPE] is not None:
                    typed = self.evaluate_type(mod, method, row[ATTR_TYPE])
                    if typed[0] is not None:
                        return typed
                value = self.evaluate(mod, method, row[ATTR_VALUE], row[ATTR_POS])
                if value[0] is not None and value[0][0] in ("inst", "seq", "fn", "cls"):
                    return value
            return UNKNOWN

        return self.memo.cached(("iattr", mod.path, scope, name), compute)

    # ------------------------------------------------------------ a file
    def resolve_file(self, mod: ModuleFacts) -> FileResolution:
        """Symbols, edges and unresolved calls of one module."""
        with self.memo.recording() as recorded:
            symbols = _symbols(self.repo, mod)
            edges = EdgeSet()
            unresolved: list[Unresolved] = []
            ids = mod.symbol_ids
            self._file_cache = {}
            flows: list[list] = []
            self._flows = flows
            over_budget = 0
            with self.memo.budget(self.memo.file_budget):
                for ref in mod.facts["refs"]:
                    try:
                        with self.memo.budget(self.memo.reference_budget):
                            self._resolve_ref(mod, ref, ids, edges, unresolved)
                        continue
                    except RecursionError:  # generated code beyond any sensible depth
                        reason = "too-deep"
                    except OverBudget:  # its work is past a budget: unknown, never a hang
                        over_budget += 1
                        reason = "budget"
                    text = ref[REF_TEXT] if isinstance(ref[REF_TEXT], str) else "?"
                    source = ids[ref[REF_SOURCE]]
                    unresolved.append(Unresolved(source, text, ref[REF_LINE], "", reason=reason))
            with self.memo.budget(self.memo.file_budget):
                try:
                    self._definition_flows(mod, flows)
                    self._store_flows(mod, flows)
                except OverBudget:
                    over_budget += 1
            for scope, row in enumerate(mod.scopes):
                if row[SCOPE_KIND] == "class":
                    try:
                        with self.memo.budget(self.memo.reference_budget):
                            self._class_edges(mod, scope, edges, unresolved)
                    except OverBudget:
                        over_budget += 1
            for plugin in MODULE_PLUGINS:
                plugin.module_edges(self, mod, edges)
            self._exports(mod, edges)
            imports = self._imports(mod)
            http = http_rows(self, mod)
        deps = recorded.deps
        deps.discard(mod.name)
        resolution = FileResolution(
            mod.path, mod.name, symbols, edges.edges(), unresolved, deps, imports
        )
        resolution.flows = sorted({marshal.dumps(row): row for row in flows}.values())
        resolution.http = http
        resolution.over_budget = over_budget
        return resolution

    def _class_edges(self, mod: ModuleFacts, scope: int, edges: EdgeSet, unresolved) -> None:
        """A class's INHERITS edges, its external bases, and the names set on it."""
        info = self.class_info(mod, scope)
        if info is None:
            return
        ids = mod.symbol_ids
        line = mod.scopes[scope][SCOPE_START]
        for base_mod, base_scope, via, order in info.bases:
            target = base_mod.symbol_ids[base_scope]
            edges.add("INHERITS", ids[scope], target, line, via, order=order)
        for base in info.direct_external:
            if base not in BUILTINS:
                unresolved.append(Unresolved(ids[scope], base, line, "", "base", "external"))
        self._set_names(mod, scope, edges)

    def _evaluate_ref(self, mod: ModuleFacts, scope: int, expr: list, pos: int) -> tuple:
        """evaluate(), remembered within one file for expressions whose meaning cannot depend
        on where they stand: their first name is a parameter or comes from an outer scope
        (`self.client.get`, an imported function) — the same call repeats a lot in a file."""
        root = _root_name(expr)
        if root is None or scope == 0:
            return self.evaluate(mod, scope, expr, pos)
        rows = mod.bindings(scope).get(root)
        if rows and any(r[BINDING_VALUE][0] != "param" for r in rows):
            return self.evaluate(mod, scope, expr, pos)
        if expr[0] == "n":
            key: tuple = (scope, expr[1])
        elif expr[0] == "a" and expr[1][0] == "n":  # `self.x`: the common shape, no encoding
            key = (scope, expr[1][1], expr[2])
        else:
            key = (scope, marshal.dumps(expr))
        found = self._file_cache.get(key)
        if found is None:
            found = self._file_cache[key] = self.evaluate(mod, scope, expr, pos)
        return found

    def _resolve_ref(self, mod, ref, ids, edges: EdgeSet, unresolved) -> None:
        lookup, source, kind, expr, pos, line, text = ref
        source_id = ids[source]
        if kind == "c":
            if expr is None:
                unresolved.append(Unresolved(source_id, text or "?", line, "", reason="unparsed"))
                return
            if expr[0] == "n" and expr[1] == "super":
                return
            self._receiver_flows(mod, lookup, expr, pos, source_id, line)
            value, via = self._evaluate_ref(mod, lookup, expr, pos)
            if value is None or value[0] == "box":
                targets = self.callables(mod, lookup, expr, pos, evaluated=value is None)
                made = [self._call_edges(t, v, source_id, line, edges) for t, v in targets]
                if not any(made):
                    # a parameter's value is known to the flow stage only (what callers pass),
                    # and so are the subclasses whose methods a computed getattr may find:
                    # the call is still unresolved here
                    self._getattr_flows(mod, lookup, expr, pos, source_id, line)
                    if self._hook_flows(expr, source_id, line):
                        reason = "plugin-hook"
                    elif self._parameter_call(mod, lookup, expr, pos, source_id, line):
                        reason = "parameter"
                    else:
                        reason = _unknown_callee(expr)
                    name = text or render(expr)
                    unresolved.append(Unresolved(source_id, name, line, "", reason=reason))
                return
            vkind = value[0]
            if vkind == "union":  # one of several: each member's call
                if any(member[0] == "ext" for member in value[1]):
                    # `cb: Command | Callable[..., V]`: any callable too, what callers pass
                    self._parameter_call(mod, lookup, expr, pos, source_id, line)
                if not self._call_edges(value, via, source_id, line, edges):
                    name = text or render(expr)
                    unresolved.append(Unresolved(source_id, name, line, "", reason="not-callable"))
                return
            if vkind in ("fn", "cls"):
                self._argument_flows(mod, lookup, expr, value, pos, source_id)
                decorated = (
                    self.decorated_value(value[1], value[2])
                    if value[1].decorators(value[2])
                    else value
                )
                if decorated != value:
                    # the call runs the decorator's wrapper (CALLS), which calls the function
                    # back ("wrapped", the flow stage); the name binds it to the function too
                    # (model.CALLING_REFERENCE_VIAS), so the function's callers are the code
                    # that names it, not every caller of a wrapper shared by many functions
                    self._call_edges(decorated, "decorator", source_id, line, edges)
                    target = value[1].symbol_ids[value[2]]
                    edges.add("REFERENCES", source_id, target, line, "decorated")
                    return
            if vkind == "lam":
                self._call_edges(value, via, source_id, line, edges)
                return
            if vkind == "fn":
                edges.add("CALLS", source_id, value[1].symbol_ids[value[2]], line, via)
            elif vkind == "cls":
                edges.add("CALLS", source_id, value[1].symbol_ids[value[2]], line, "constructor")
                init = self.class_member(value[1], value[2], "__init__", instance=False)
                if init is not None and init[0][0] == "fn":
                    target = init[0]
                    edges.add(
                        "CALLS", source_id, target[1].symbol_ids[target[2]], line, "constructor"
                    )
                elif self._has_external_base(value[1], value[2]):  # an external __init__
                    self._external_callbacks(
                        mod, lookup, expr, pos, source_id, line, edges, constructed=value
                    )
            elif vkind == "inst":
                call = self.class_member(value[1], value[2], "__call__")
                if call is not None and call[0][0] == "fn":
                    target = call[0]
                    edges.add("CALLS", source_id, target[1].symbol_ids[target[2]], line, via)
                else:
                    name = text or render(expr)
                    unresolved.append(Unresolved(source_id, name, line, "", reason="not-callable"))
            elif vkind == "ext" and value[1] == "typing":
                # typed `Callable[...]` (a parameter, an attribute): what it was given
                if self._parameter_call(mod, lookup, expr, pos, source_id, line):
                    reason = "parameter"
                else:
                    reason = "unknown-value"
                unresolved.append(
                    Unresolved(source_id, text or render(expr), line, "", reason=reason)
                )
            elif vkind == "ext":
                self._external_callbacks(mod, lookup, expr, pos, source_id, line, edges)
                name = text or render(expr)
                unresolved.append(Unresolved(source_id, name, line, value[1], reason="external"))
            elif vkind != "builtin":
                name = text or render(expr)
                unresolved.append(Unresolved(source_id, name, line, "", reason="unknown-value"))
            return
        if kind == "a":  # a decorator applied where the `def` stands
            for target, _via in self.callables(mod, lookup, expr, pos):
                if target[0] in ("fn", "cls", "inst"):
                    self._call_edges(target, "decorator", source_id, line, edges)
            return
        if kind == "o":
            self._protocol(mod, lookup, expr, pos, text, source_id, line, edges)
            return
        if kind in ("p", "s", "e"):
            self._attribute_access(mod, lookup, kind, expr, pos, source_id, line, edges)
            return
        if kind == "t":
            for name in self.type_names(expr):
                value, via = self.evaluate(mod, lookup, name, 1 << 62)
                if value is not None and value[0] in ("cls", "fn"):
                    edges.add("REFERENCES", source_id, value[1].symbol_ids[value[2]], line, via)
            return
        if expr is None:  # a value the parser keeps no expression of: nothing to bind
            return
        if expr[0] == "a":  # the receiver once: a property read, or what the attribute holds
            base, base_via = self._evaluate_ref(mod, lookup, expr[1], pos)
            if base is None:
                return
            getters = self._accessors_of(base, "p", expr[2])
            if getters:  # reading a property calls its getter: not a use
                for getter in getters:
                    edges.add("CALLS", source_id, getter[1].symbol_ids[getter[2]], line, "property")
                return
            value, via = self.attribute(base, base_via, expr[2])
        else:
            value, via = self._evaluate_ref(mod, lookup, expr, pos)
        if value is not None and value[0] in ("cls", "fn"):
            edges.add("REFERENCES", source_id, value[1].symbol_ids[value[2]], line, via)

    def _external_callbacks(
        self,
        mod,
        scope,
        expr: list,
        pos: int,
        source_id: str,
        line: int,
        edges: EdgeSet,
        constructed: tuple | None = None,
    ) -> None:
        """Code outside the repository may call back what a call hands it (via `callback`).
        An instance handed over may be called: REFERENCES to its `__call__` (like a function
        handed over, which is a REFERENCES of its own: the caller does not call it). A method a
        repository class inherits from an external base (`client.get()` on a subclass of an
        external client) runs code that may call the class's own methods, overrides of what
        the base calls (a template method calling `self.open()`): CALLS to those of them the
        base's code can reach. When every external base is a class of the standard library,
        that is what the inherited method may look up on its instance, read from the source
        of the Python that indexes (`standard_method_reach`: `self.assertEqual()` in a
        `unittest.TestCase` may reach the class's `fail`, never its `setUpClass`, which the
        test runner calls), or when that cannot be known each method named like a member of
        the bases (`setUp`, not `test_login`); else, or when the class hands the base names
        of its own to look up (`_keeps_names`), each method the class defines but its tests
        (`test*` methods of a test file: a runner finds them by their names, which no base
        knows). A class whose `__init__` is external (`constructed`) is called back only
        where the reach of that `__init__` is known (`BaseRequestHandler.__init__` calls
        `setup`, `handle`, `finish`)."""
        for _slot, argument in mod.arguments(pos, expr):
            found = self._evaluate_ref(mod, scope, argument, pos)[0]
            if found is not None and found[0] == "inst":
                call = self.class_member(found[1], found[2], "__call__")
                if call is not None and call[0][0] == "fn":
                    target = call[0][1].symbol_ids[call[0][2]]
                    edges.add("REFERENCES", source_id, target, line, "callback")
        if constructed is not None:
            receiver: tuple | None = ("inst", constructed[1], constructed[2])
            method = "__init__"
        elif expr[0] == "a":
            receiver = self._evaluate_ref(mod, scope, expr[1], pos)[0]
            method = expr[2]
        else:
            return
        if receiver is None or receiver[0] != "inst":
            return
        info = self.class_info(receiver[1], receiver[2])
        if info is None or not info.external_bases:
            return
        overridable = info.external_members  # None: any name the class defines
        reach = None
        if info.standard_bases is not None:
            reach = standard_method_reach(info.standard_bases, method)
        if reach is not None and self._keeps_names(info, reach):
            # the repository's own names where the base looks names up: any of its methods
            overridable = None
        elif reach is not None:
            # what the method may look up on the instance: `__missing__` too, which the base
            # does not define but `UserDict.get` calls
            overridable = reach.looked_up
        elif constructed is not None:
            return  # what an external constructor calls back is not known: nothing claimed
        for owner_mod, owner_scope in info.linearization:
            in_tests = is_test_path(owner_mod.path)
            for name, rows in owner_mod.bindings(owner_scope).items():
                if name in CALLBACK_SKIPPED:
                    continue
                # a name the base only sets on the instance: a property's setter runs
                only_set = overridable is not None and name not in overridable
                if only_set and (reach is None or name not in reach.stored):
                    continue
                if in_tests and name.startswith("test"):
                    continue  # a test: its name is its author's, no base knows it (runners find it)
                for row in rows:
                    binding = row[BINDING_VALUE]
                    if (
                        binding[0] == "def"
                        and owner_mod.scopes[binding[1]][SCOPE_KIND] == "function"
                        and (not only_set or _is_property(owner_mod.scopes[binding[1]]))
                    ):
                        target = owner_mod.symbol_ids[binding[1]]
                        edges.add("CALLS", source_id, target, line, "callback")

    def _keeps_names(self, info: ClassInfo, reach: Reach) -> bool:
        """Whether the reach took the strings of an attribute of the instance for names the
        base looks up (`reach.state`: `assertEqual` reads `_type_equality_funcs`), and a
        repository class of the order sets that attribute, or calls the function that stores
        its parameter there (`reach.feeds`: `self.addTypeEqualityFunc(Money,
        'assertMoneyEqual')`): then the names may be the repository's own, any of them."""
        if not reach.state:
            return False
        for owner_mod, owner_scope in info.linearization:
            sets, calls = self._attribute_uses(owner_mod, owner_scope)
            if sets & reach.state or calls & reach.feeds:
                return True
        return False

    def _attribute_uses(
        self, mod: ModuleFacts, scope: int
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The names a class binds in its body or sets on `self` in its methods, and the
        attribute names its methods call (`x.name(...)`)."""

        def compute() -> tuple[frozenset[str], frozenset[str]]:
            sets = set(mod.bindings(scope))
            for row in mod.facts["attrs"]:
                method = row[ATTR_SCOPE]
                if mod.scopes[method][SCOPE_PARENT] == scope and (
                    mod.first_param(method) == row[ATTR_OBJECT]
                ):
                    sets.add(row[ATTR_NAME])
            calls = set()
            for ref in mod.facts["refs"]:
                expr = ref[REF_EXPR]
                if (
                    ref[REF_KIND] == "c"
                    and expr is not None
                    and expr[0] == "a"
                    and mod.scopes[ref[REF_SOURCE]][SCOPE_PARENT] == scope
                ):
                    calls.add(expr[2])
            return frozenset(sets), frozenset(calls)

        return self.memo.cached(("attribute uses", mod.path, scope), compute)

    def _has_external_base(self, mod: ModuleFacts, scope: int) -> bool:
        info = self.class_info(mod, scope)
        return info is not None and bool(info.external_bases)

    def _call_edges(
        self, value: tuple, via: str | None, source_id: str, line: int, edges: EdgeSet
    ) -> bool:
        """The CALLS a call of `value` makes: a function; a class and its `__init__`; an
        instance's `__call__`; what a lambda's body calls. False when it makes none."""
        kind = value[0]
        if kind == "union":
            calls = [self._call_edges(member, via, source_id, line, edges) for member in value[1]]
            return any(calls)
        if kind == "fn":
            edges.add("CALLS", source_id, value[1].symbol_ids[value[2]], line, via)
            return True
        if kind == "cls":
            class_via = via if via in ("decorator", "protocol", "container") else "constructor"
            edges.add("CALLS", source_id, value[1].symbol_ids[value[2]], line, class_via)
            init = self.class_member(value[1], value[2], "__init__", instance=False)
            if init is not None and init[0][0] == "fn":
                target = init[0]
                edges.add("CALLS", source_id, target[1].symbol_ids[target[2]], line, class_via)
            return True
        if kind == "inst":
            call = self.class_member(value[1], value[2], "__call__")
            if call is not None and call[0][0] == "fn":
                target = call[0]
                edges.add("CALLS", source_id, target[1].symbol_ids[target[2]], line, via)
                return True
            return False
        if kind == "lam":
            _, lmod, lscope, calls = value
            made = False
            for callee, pos in marshal.loads(calls):
                found = self.evaluate(lmod, lscope, callee, pos)[0]
                if found is not None and found[0] in ("fn", "cls"):
                    made = self._call_edges(found, "lambda", source_id, line, edges) or made
            return made
        return False

    def _protocol(self, mod, scope, expr, pos, dunder: str, source_id, line, edges) -> None:
        """Syntax calling a dunder method of the operand's class: `for` (`__iter__`, then the
        iterator's `__next__`; `__getitem__` without `__iter__`), `with`, `[]`, operators,
        `in`, `len()`…, and a bare `raise Err` (the class is instantiated)."""
        builtin, _, method = dunder.rpartition(":")
        if builtin and self.lookup(mod, scope, builtin, pos)[0] != BUILTIN_VALUE:
            return  # `len` shadowed by something else
        value = self._evaluate_ref(mod, scope, expr, pos)[0]
        for member in alternatives(value) if value is not None else ():
            self._protocol_call(member, method, source_id, line, edges)

    def _protocol_call(self, value: tuple, method: str, source_id, line, edges) -> None:
        """The dunder `method` (or "raise") syntax runs on `value`, one value (not a union)."""
        if method == "raise":
            if value[0] == "cls":
                self._call_edges(value, "protocol", source_id, line, edges)
            return
        if value[0] != "inst":
            return
        found = self.class_member(value[1], value[2], method)
        if found is None and method == "__iter__":
            found = self.class_member(value[1], value[2], "__getitem__")
        if found is None or found[0][0] != "fn":
            return
        target = found[0]
        edges.add("CALLS", source_id, target[1].symbol_ids[target[2]], line, "protocol")
        if method == "__iter__" and target[1].scopes[target[2]][SCOPE_NAME] == "__iter__":
            iterator = self.returns(target[1], target[2])[0]
            if iterator is not None and iterator[0] == "inst":
                step = self.class_member(iterator[1], iterator[2], "__next__")
                if step is not None and step[0][0] == "fn":
                    nxt = step[0]
                    edges.add("CALLS", source_id, nxt[1].symbol_ids[nxt[2]], line, "protocol")

    def _accessors_of(self, base: tuple, kind: str, name: str) -> list[tuple]:
        """The functions an attribute read ("p"), assignment ("s") or `del` ("e") of `name`
        on `base` runs: a property's (getter, setter and deleter are one symbol) or a
        descriptor's `__get__`, `__set__`, `__delete__` (a class attribute holding an instance
        of such a class); one per member of a union that has one."""
        found = (self._accessor_of(member, kind, name) for member in alternatives(base))
        return [target for target in found if target is not None]

    def _accessor_of(self, base: tuple, kind: str, name: str) -> tuple | None:
        if base[0] != "inst":
            return None
        found = self.class_member(base[1], base[2], name, instance=False)
        if found is None:
            return None
        value = found[0]
        if value[0] == "fn":
            return value if _is_property(value[1].scopes[value[2]]) else None
        if value[0] == "inst" and found[2] != "annotation":
            method = self.class_member(value[1], value[2], DESCRIPTOR_METHODS[kind])
            if method is not None and method[0][0] == "fn":
                return method[0]
        return None

    def _attribute_access(self, mod, scope, kind, expr, pos, source_id, line, edges) -> None:
        base = self._evaluate_ref(mod, scope, expr[1], pos)[0]
        for target in self._accessors_of(base, kind, expr[2]) if base is not None else ():
            edges.add("CALLS", source_id, target[1].symbol_ids[target[2]], line, "property")

    def _set_names(self, mod: ModuleFacts, scope: int, edges: EdgeSet) -> None:
        """A class attribute holding an instance whose class has `__set_name__`: creating the
        class calls it."""
        for rows in mod.bindings(scope).values():
            for row in rows:
                binding = row[BINDING_VALUE]
                if binding[0] != "val" or binding[1] is None or binding[1][0] != "c":
                    continue
                value = self.binding_value(mod, scope, row)[0]
                if value is None or value[0] != "inst":
                    continue
                hook = self.class_member(value[1], value[2], "__set_name__")
                if hook is not None and hook[0][0] == "fn":
                    target = hook[0]
                    line = mod.scopes[scope][SCOPE_START]
                    edges.add(
                        "CALLS",
                        mod.symbol_ids[scope],
                        target[1].symbol_ids[target[2]],
                        line,
                        "protocol",
                    )

    def _exports(self, mod: ModuleFacts, edges: EdgeSet) -> None:
        """A module's public interface as REFERENCES (via export) from the module: the names of
        a static `__all__`; without one, in a package `__init__`, its public from-imports
        (`from .core import Command`: the package re-exports it)."""
        listed = mod.facts.get("all")
        if listed is None and mod.facts.get("all_parts") is not None:
            listed = sorted(self.exports(mod))
        exported: list[tuple[str, int]] = []
        if listed:
            line = mod.facts.get("all_line") or 1
            exported = [(name, line) for name in listed]
        elif mod.is_package and listed is None:
            lines: dict[tuple[int, str, str], int] = {}  # (level, module, name) → line
            for scope, line, level, module, names, _typing in mod.facts["imports"]:
                if scope == 0:
                    for name in names:
                        lines.setdefault((level, module, name), line)
            for name, rows in mod.bindings(0).items():
                if name.startswith("_"):
                    continue
                for row in rows:
                    binding = row[BINDING_VALUE]
                    if binding[0] == "from":
                        exported.append((name, lines.get(tuple(binding[1:4]), 1)))
                        break
        for name, line in exported:
            value = self.module_member(mod, name)[0]
            if value is not None and value[0] in ("cls", "fn"):
                target = value[1].symbol_ids[value[2]]
                edges.add("REFERENCES", mod.symbol_ids[0], target, line, "export")

    def _imports(self, mod: ModuleFacts) -> list[tuple[str, str, list[str]]]:
        """IMPORTS targets: ("file", path, names) inside the repo, ("package", top, names) outside."""
        found: dict[tuple[str, str], list[str]] = {}
        for _scope, _line, level, module, names, _typing in mod.facts["imports"]:
            target = self.resolve_relative(mod, level, module)
            if target is None:
                continue
            found_mod = self.module(target)
            if found_mod is not None and found_mod.repo != self.repo:
                # a module another repository provides: the link is to its package
                entry = found.setdefault(("package", target.split(".")[0]), [])
                entry.extend(name for name in names if name not in entry)
                continue
            if found_mod is not None:
                entry = found.setdefault(("file", found_mod.path), [])
                for name in names:
                    sub = self.module(f"{target}.{name}") if name != "*" else None
                    if sub is not None:
                        found.setdefault(("file", sub.path), []).append(name)
                    elif name not in entry:
                        entry.append(name)
                continue
            if level == 0 or not target:
                top = target.split(".")[0]
                if top and top not in STDLIB and not self.module(top):
                    entry = found.setdefault(("package", top), [])
                    for name in names:
                        if name not in entry:
                            entry.append(name)
            # a relative import that does not resolve: broken import, nothing to link
        found.pop(("file", mod.path), None)
        return [(kind, target, names) for (kind, target), names in found.items()]


def _imported(value: tuple) -> tuple:
    """A value reached through an import: functions, classes and modules are found `via`
    import; an instance keeps the rule that typed it (`default = Client()` → constructor)."""
    if value[0] is not None and value[0][0] in ("inst", "seq"):
        return value
    return value[0], "import"


CONTAINER_GETTERS = frozenset({"get", "pop", "setdefault"})
MAX_CALLABLES_DEPTH = 12
# methods an external base never calls back: the constructor ran already
CALLBACK_SKIPPED = frozenset({"__init__", "__new__", "__init_subclass__", "__class_getitem__"})
DESCRIPTOR_METHODS = {"p": "__get__", "s": "__set__", "e": "__delete__"}
RETURNED_KINDS = frozenset({"inst", "cls", "fn", "seq", "box", "lam", "tuple"})


def _unknown_callee(expr: list) -> str:
    """Why a callee no value was found for is unknown: a name computed at run time
    (`getattr(obj, name)(...)`), or a value of unknown type."""
    if expr[0] == "c" and expr[1] == ["n", "getattr"]:
        return "computed-name"
    return "unknown-value"


def _distinct(pairs: list) -> list:
    """(value, via) pairs, the first via of each value."""
    seen: dict = {}
    for value, via in pairs:
        if value is not None and value not in seen:
            seen[value] = via
    return list(seen.items())


def _is_literal(row: list) -> bool:
    binding = row[BINDING_VALUE]
    return binding[0] == "val" and binding[1] is None


PROPERTY_DECORATORS = frozenset({"property", "cached_property"})


ACCESSOR_DECORATORS = frozenset({"setter", "getter", "deleter"})


def _is_property(row: list) -> bool:
    """A `@property` / `cached_property` getter, or its `@name.setter` / `.deleter`."""
    for decorator in row[SCOPE_DECORATORS]:
        owner, _, last = decorator.rpartition(".")
        if last in PROPERTY_DECORATORS or (owner and last in ACCESSOR_DECORATORS):
            return True
    return False


def _returns_self(row: list) -> bool:
    annotation = row[SCOPE_RETURNS]
    return annotation is not None and _last_name(annotation) == "Self" and annotation[0] in "na"


def _root_name(expr: list | None) -> str | None:
    """The name an expression starts from (`self` in `self.a.b()`), or None."""
    while expr is not None and expr[0] in ("a", "c", "i"):
        expr = expr[1]
    return expr[1] if expr is not None and expr[0] == "n" else None


def _last_name(expr: list) -> str:
    return expr[1] if expr[0] == "n" else expr[2] if expr[0] == "a" else ""


def _is_overload(row: list) -> bool:
    return any(d.rpartition(".")[2] == "overload" for d in row[SCOPE_DECORATORS])


def module_symbols(repo: str, mod: ModuleFacts) -> list[SymbolRow]:
    """A module's symbols, from its own facts alone (what its resolution writes as symbols)."""
    return _symbols(repo, mod)


def _symbols(repo: str, mod: ModuleFacts) -> list[SymbolRow]:
    facts = mod.facts
    scopes = facts["scopes"]
    ids = mod.symbol_ids
    all_names = facts.get("all")
    rows: list[SymbolRow] = []
    # a qualname defined more than once is one symbol: the first definition that is not an
    # @overload stub gives it its lines and signature
    representative: dict[str, int] = {}
    for index, row in enumerate(scopes):
        current = representative.get(ids[index])
        if current is None or (_is_overload(scopes[current]) and not _is_overload(row)):
            representative[ids[index]] = index
    seen: set[str] = set()
    exported_scope: list[bool] = []
    for index, row in enumerate(scopes):
        symbol_id = ids[index]
        if index == 0:
            exported_scope.append(True)
        else:
            parent = row[SCOPE_PARENT]
            name = row[SCOPE_NAME]
            parent_kind = scopes[parent][SCOPE_KIND]
            public = not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
            if parent == 0 and all_names is not None:
                public = name in all_names
            exported_scope.append(public and exported_scope[parent] and parent_kind != "function")
        if symbol_id in seen or representative[symbol_id] != index:
            continue
        seen.add(symbol_id)
        kind = mod.kind(index)
        name = row[SCOPE_NAME] if index else mod.name.rpartition(".")[2]
        parent_id = ids[row[SCOPE_PARENT]] if index else None
        rows.append(
            SymbolRow(
                id=symbol_id,
                repo=repo,
                path=mod.path,
                name=name,
                qualname=mod.qualname(index),
                kind=kind,
                start_line=row[SCOPE_START],
                end_line=row[SCOPE_END],
                signature=row[SCOPE_SIGNATURE],
                doc=row[SCOPE_DOC],
                exported=exported_scope[index],
                parent=parent_id,
                decorators=list(row[SCOPE_DECORATORS]),
            )
        )
    for scope, name, start, end, text in facts["variables"]:
        parent_rel = scopes[scope][SCOPE_QUALNAME]
        rel = f"{parent_rel}.{name}" if parent_rel else name
        qualname = f"{mod.name}.{rel}"
        symbol_id = f"{repo}:{mod.path}#{qualname}"
        if symbol_id in seen:
            continue
        seen.add(symbol_id)
        public = not name.startswith("_")
        if scope == 0 and all_names is not None:
            public = name in all_names
        rows.append(
            SymbolRow(
                id=symbol_id,
                repo=repo,
                path=mod.path,
                name=name,
                qualname=qualname,
                kind="variable",
                start_line=start,
                end_line=end,
                signature=text,
                doc="",
                exported=public and exported_scope[scope],
                parent=ids[scope],
                decorators=[],
            )
        )
    return rows


class PythonFamily:
    """Python's `resolve.family.FamilyResolver`: a `Program` over one run's modules, loaded by
    name or by path from the run's `Sources` (this repository's by its module map, another
    repository's through `Sources.foreign`) and kept until `forget`."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        names = sources.names
        self._modules: dict[str, ModuleFacts] = {}  # this repository's, by path
        self._foreign: dict[str, ModuleFacts | None] = {}  # another repository's, by foreign path
        self.local_tops = {name.split(".")[0] for name in names.by_name}
        self.program = Program(sources.repo, {}, self._load_module, self._load_path)

    @classmethod
    def for_sources(cls, sources: Sources) -> PythonFamily:
        return cls(sources)

    def _load_path(self, path: str) -> ModuleFacts | None:
        module = self.sources.names.by_path.get(path)
        if module is None or not path.endswith(EXTENSIONS):
            return None
        if path not in self._modules:
            facts = self.sources.facts(path)
            if facts is None:
                return None
            self._modules[path] = ModuleFacts(
                module.name, path, module.is_package, facts, self.sources.repo
            )
        return self._modules[path]

    def _load_module(self, name: str) -> ModuleFacts | None:
        path = self.sources.names.by_name.get(name)
        if path is not None:
            return self._load_path(path)
        if self.sources.foreign is not None and name.split(".")[0] not in self.local_tops:
            return self._foreign_module(name)
        return None

    def _foreign_module(self, name: str) -> ModuleFacts | None:
        """A module another repository provides, read from its stored facts."""
        assert self.sources.foreign is not None
        found = self.sources.foreign.python_module(name)
        if found is None:
            return None
        path, repo, is_package = found
        if path not in self._foreign:
            facts = self.sources.facts(path)  # a foreign path: the provider's stored facts
            self._foreign[path] = (
                None
                if facts is None
                else ModuleFacts(name, located(repo, path)[1], is_package, facts, repo)
            )
        return self._foreign[path]

    def resolve_file(self, path: str) -> FileResolution | None:
        module = self.sources.names.by_path.get(path)
        if module is None:
            return None
        mod = self.program.module(module.name)
        if mod is None or mod.path != path:  # another file of the same module name
            facts = self.sources.facts(path)
            if facts is None:
                return None
            mod = ModuleFacts(module.name, path, module.is_package, facts, self.sources.repo)
        return self.program.resolve_file(mod)

    def loaded(self) -> int:
        return len(self._modules) + len(self._foreign)

    def forget(self) -> None:
        self._modules.clear()
        self._foreign.clear()
        self.program.forget()
