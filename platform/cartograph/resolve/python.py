"""Python resolution: facts of every module → symbols, CALLS/REFERENCES/INHERITS/IMPORTS edges.

The rules are written down in docs/resolution.md; tests/resolution pins each with a fixture.

The resolver is one engine, `Program`, over the values of `resolve.values` (a module, a
class, an instance, a function, a container, a union, something external…, each with its
protocol). Its parts:
  python.py          the modules of a run, Python's names and bindings, expressions → values
  python_classes.py  classes: bases, linearization, what a name on a class or instance holds
  python_held.py     what names, containers and decorated definitions hold beyond one value
  python_edges.py    one file: the edges each reference makes, or why it is unresolved
  python_flows.py    one file: the flow rows the flow stage (`index.flows`) follows across files
  python_symbols.py  one module's symbols
  plugins/           what frameworks decide (pytest's fixtures, injection by default value)

The memo, dependency tracking (every module name consulted, found or not), the edge set and
the result type are the core's (`cartograph.resolve.core`); the method resolution order is
`cartograph.resolve.mro`'s C3.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Callable, Iterable

from cartograph import languages
from cartograph.model import located
from cartograph.parsing.facts import (
    BINDING_NAME,
    BINDING_POS,
    BINDING_SCOPE,
    BINDING_UNTIL,
    BINDING_VALUE,
    REF_EXPR,
    REF_KIND,
    REF_POS,
    REF_TEXT,
    SCOPE_DECORATORS,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
    SCOPE_QUALNAME,
    SCOPE_RETURNS,
    chained_calls,
)
from cartograph.resolve.core import UNKNOWN, FileResolution, Found, Memo
from cartograph.resolve.family import Sources
from cartograph.resolve.modules import ModuleName
from cartograph.resolve.plugins import PLUGINS
from cartograph.resolve.python_classes import ClassTable
from cartograph.resolve.python_edges import FileResolver
from cartograph.resolve.python_held import HeldValues
from cartograph.resolve.python_symbols import module_symbols
from cartograph.resolve.services import http_rows
from cartograph.resolve.values import (
    BUILTIN,
    BUILTINS,
    RETURNED_KINDS,
    STDLIB,
    TYPING,
    Box,
    Class,
    External,
    FixedTuple,
    Function,
    Instance,
    Lambda,
    Module,
    Returning,
    Sequence,
    Super,
    TypeVariable,
    Value,
    union_of,
)
from cartograph.testlayout import is_conventional_test_path

__all__ = ["BUILTINS", "STDLIB", "ModuleFacts", "Program", "PythonFamily", "module_symbols"]

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

# the plugins that give a parameter its value (resolve.plugins.PythonPlugin)
PARAMETER_PLUGINS = tuple(p for p in PLUGINS if hasattr(p, "parameter_value"))
ATTRIBUTE_PLUGINS = tuple(p for p in PLUGINS if hasattr(p, "decorated_attribute"))


class ModuleFacts:
    """One module's facts plus the indexes the evaluator needs, built on first use."""

    __slots__ = (
        "_arguments",
        "_bindings",
        "_callable_params",
        "_decorations",
        "_firstparam",
        "_holds",
        "_returns",
        "_stores",
        "_yields",
        "facts",
        "is_package",
        "is_test",  # test code, as the repository's runners see it (cartograph.testlayout)
        "limited",  # (scope, name) with a binding valid in a range only (comprehension, lambda)
        "name",
        "path",
        "repo",
        "symbol_ids",
    )

    def __init__(
        self, name: str, path: str, is_package: bool, facts: dict, repo: str, is_test: bool
    ) -> None:
        self.name = name
        self.path = path  # in its repository (which is another one for a provider's module)
        self.repo = repo
        self.is_package = is_package
        self.is_test = is_test
        self.facts = facts
        self._bindings: list[dict[str, list]] | None = None
        self._firstparam: dict[int, str] | None = None
        self._arguments: dict[tuple[int, int], list] | None = None
        self._decorations: dict[int, list] | None = None
        self._callable_params: dict[int, frozenset[str]] | None = None
        self._stores: dict[str, list] | None = None
        self._holds: dict[str, tuple[list | None, int, list[list]]] | None = None
        self._returns: dict[int, list[tuple[int, list]]] | None = None
        self._yields: dict[int, list[tuple[int, list]]] | None = None
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

    def holds(self) -> dict[str, tuple[list | None, int, list[list]]]:
        """What the objects bound at module level by a call hold (`parsing.facts` "holds"), by
        name: (the call's callee, its position, what its arguments name)."""
        if self._holds is None:
            self._holds = {
                name: (callee, pos, held) for name, callee, pos, held in self.facts.get("holds", ())
            }
        return self._holds

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

    def yields_of(self, scope: int) -> list[tuple[int, list]]:
        """The `yield` statements with a value of one function, as (position, expression)."""
        if self._yields is None:
            by_scope: dict[int, list[tuple[int, list]]] = {}
            for yielded_scope, pos, expr in self.facts.get("yields", ()):
                if expr is not None:
                    by_scope.setdefault(yielded_scope, []).append((pos, expr))
            self._yields = by_scope
        return self._yields.get(scope, [])

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
    """One resolution run's engine: the modules of a repository (and of its providers), loaded
    eagerly or on demand, and what Python's names and expressions in them evaluate to (values:
    `resolve.values`). What classes hold is `classes` (`python_classes.ClassTable`), what
    names, containers and decorated definitions hold when no single value says is `held`
    (`python_held.HeldValues`); a file's edges and flow rows are `python_edges.FileResolver`'s."""

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
        self.classes = ClassTable(self)
        self.held = HeldValues(self)

    def forget(self) -> None:
        """Drop the loaded modules and every computation (between two files: see
        `index.resolve.Resolver.forget`)."""
        self.modules = {}
        self._missing = set()
        self.memo = Memo()

    def resolve_file(self, mod: ModuleFacts) -> FileResolution:
        """Symbols, edges, unresolved calls and flow rows of one module."""
        return FileResolver(self, mod).resolve()

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

    def import_module_value(self, name: str) -> Found:
        found = self.module(name)
        if found is not None:
            return Found(Module(found), "import")
        return Found(External(name.split(".")[0]), "import")

    def module_member(self, mod: ModuleFacts, name: str) -> Found:
        return self.memo.cached(("member", mod.path, name), lambda: self._module_member(mod, name))

    def _module_member(self, mod: ModuleFacts, name: str) -> Found:
        rows = self.module_rows(mod, name)
        if rows:
            found = self._final_binding(mod, 0, rows)
            if found.value is not None:
                # a function, class or module is found via import; an instance keeps the
                # rule that typed it (`default = Client()` → constructor)
                if isinstance(found.value, (Instance, Sequence)):
                    return found
                return Found(found.value, "import")
        sub = self.module(f"{mod.name}.{name}")
        if sub is not None:
            return Found(Module(sub), "import")
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
            owner = self.evaluate(mod, 0, expr[1], 1 << 62).value
            return self.exports(owner.module) if isinstance(owner, Module) else frozenset()
        if expr[0] == "n":
            for row in reversed(mod.bindings(0).get(expr[1], ())):
                binding = row[BINDING_VALUE]
                if binding[0] == "from" and binding[3] == "__all__":
                    source = self.resolve_relative(mod, binding[1], binding[2])
                    found = self.module(source) if source else None
                    return self.exports(found) if found is not None else frozenset()
        return frozenset()

    # ------------------------------------------------------------ names and bindings
    def lookup(self, mod: ModuleFacts, scope: int, name: str, pos: int) -> Found:
        """Python's LEGB lookup of `name` used at byte `pos` in `scope`."""
        found = self.visible_rows(mod, scope, name, pos)
        if found is not None:
            where, live, same_scope = found
            if same_scope:
                return self._binding_at(mod, where, live, pos)
            return self._final_binding(mod, where, live)
        if name in BUILTINS:
            return Found(BUILTIN, None)
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

    def _binding_at(self, mod: ModuleFacts, scope: int, rows: list, pos: int) -> Found:
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

    def _final_binding(self, mod: ModuleFacts, scope: int, rows: list) -> Found:
        """The value a name holds once its scope has run: its last binding that resolves."""
        return self._first_resolving(mod, scope, reversed(rows))

    def _first_resolving(self, mod: ModuleFacts, scope: int, rows: Iterable[list]) -> Found:
        for row in rows:
            if _is_literal(row):
                continue
            found = self.binding_value(mod, scope, row)
            if found.value is not None:
                return found
        return UNKNOWN

    def binding_value(self, mod: ModuleFacts, scope: int, row: list) -> Found:
        binding = row[BINDING_VALUE]
        kind = binding[0]
        if kind == "def":
            target = binding[1]
            if mod.scopes[target][SCOPE_KIND] == "class":
                return Found(Class(mod, target), "scope")
            return Found(Function(mod, target), "scope")
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

    def _from_import(self, mod: ModuleFacts, level: int, module: str, name: str) -> Found:
        base_name = self.resolve_relative(mod, level, module)
        if base_name is None:
            return UNKNOWN
        base = self.module(base_name)
        if base is None:
            sub = self.module(f"{base_name}.{name}")
            if sub is not None:
                return Found(Module(sub), "import")
            return Found(External(base_name.split(".")[0]), "import")
        return self.module_member(base, name)

    def _typed_binding(self, mod: ModuleFacts, scope: int, row: list) -> Found:
        binding = row[BINDING_VALUE]
        kind = binding[0]
        pos = row[BINDING_POS] - 1  # the value is read before the name is bound (`x = x.next()`)
        if kind == "val":
            value = binding[1]
            if value is not None and value[0] == "box":  # a container named here: its
                box = Box.of(mod, scope, row[BINDING_NAME], value[1])
                return Found(box, "container")  # stores (`c[k] = f`, `.append(f)`) count too
            return self.evaluate(mod, scope, value, pos)
        if kind == "unpack":
            unpacked = self.held.unpacked(mod, scope, binding[1], binding[2], pos)
            return unpacked[0] if len(unpacked) == 1 else UNKNOWN
        if kind == "ann":
            typed = self.evaluate_type(mod, scope, binding[1])
            if typed.value is not None:
                return typed
            return self.evaluate(mod, scope, binding[2], pos)
        if kind == "exc":
            caught = self.evaluate(mod, scope, binding[1], pos).value
            if isinstance(caught, Class):
                return Found(Instance(caught.module, caught.scope), "annotation")
            return UNKNOWN
        if kind == "with":
            return self._entered(self.evaluate(mod, scope, binding[1], pos).value)
        if kind == "for":
            iterable = self.evaluate(mod, scope, binding[1], pos)
            if iterable.value is None:
                return UNKNOWN
            return iterable.value.iterated(self, iterable.via)
        return self._parameter_value(mod, scope, row)

    def _entered(self, manager: Value | None) -> Found:
        """What `with manager as name` binds: what the manager's `__enter__` returns (each
        member's, for a union; a member without `__enter__` is not the one that runs)."""
        entered = []
        for member in manager.alternatives() if manager is not None else ():
            if not isinstance(member, Instance):
                return UNKNOWN
            enter = self.classes.member(member.module, member.scope, "__enter__")
            if enter is None or not isinstance(enter.value, Function):
                continue
            value = self.returns(enter.value.module, enter.value.scope).value
            if value is None:
                return UNKNOWN
            entered.append(value)
        value = union_of(entered)
        return Found(value, "return") if value is not None else UNKNOWN

    def _parameter_value(self, mod: ModuleFacts, scope: int, row: list) -> Found:
        """A parameter: `self`/`cls` of a method, its annotation, else a plugin's convention
        (a fixture, an injection)."""
        _, index, annotation, _default, star = row[BINDING_VALUE]
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
                    return Found(Class(mod, parent), "self")
                return Found(Instance(mod, parent), "self")
        header_scope = parent if parent >= 0 else 0
        if annotation is not None and not self._generic_in(mod, header_scope, annotation):
            typed = self.evaluate_type(mod, header_scope, annotation)
            if typed.value is not None:
                return typed
        for plugin in PARAMETER_PLUGINS:
            found = plugin.parameter_value(self, mod, scope, row)
            if found is not None:
                return found
        return UNKNOWN

    def framework_attribute(self, function: Function, name: str) -> Found:
        """An attribute of a decorated function its decorators left as it is to the resolver:
        a framework's object when a plugin says so (a click command, a Celery task)."""
        for plugin in ATTRIBUTE_PLUGINS:
            found = plugin.decorated_attribute(self, function, name)
            if found is not None:
                return found
        return UNKNOWN

    def _generic_in(self, mod: ModuleFacts, scope: int, annotation: list | None) -> bool:
        """Whether an annotation names a type variable (`storage: type[T]`, `item: T`): a
        parameter so typed holds what its callers pass (the flow stage), any subclass of the
        bound, not the bound itself."""
        if annotation is None:
            return False
        kind = annotation[0]
        if kind in ("n", "a"):
            return isinstance(self.evaluate(mod, scope, annotation, 1 << 62).value, TypeVariable)
        if kind == "u":
            return any(self._generic_in(mod, scope, part) for part in annotation[1])
        if kind == "g":
            return any(self._generic_in(mod, scope, part) for part in annotation[2])
        return False

    def signature(self, mod: ModuleFacts, scope: int) -> list:
        """A function's parameters in order: [(index, name, star)]."""

        def compute() -> list:
            params = []
            for name, rows in mod.bindings(scope).items():
                binding = rows[0][BINDING_VALUE]
                if binding[0] == "param":
                    params.append((binding[1], name, binding[4]))
            return sorted(params)

        return self.memo.cached(("signature", mod.path, scope), compute, [])

    # ------------------------------------------------------------ expressions
    def evaluate(self, mod: ModuleFacts, scope: int, expr: list | None, pos: int) -> Found:
        """The value an expression holds at `pos` (the parser's expression rows:
        parsing/facts.py), with the rule that found it."""
        if expr is None:
            return UNKNOWN
        kind = expr[0]
        if kind == "n":
            return self.lookup(mod, scope, expr[1], pos)
        if kind == "a":
            base = self.evaluate(mod, scope, expr[1], pos)
            if base.value is None:
                return UNKNOWN
            return base.value.attribute(self, base.via, expr[2])
        if kind == "c":
            return self._call(mod, scope, expr, pos)
        if kind == "i":
            base = self.evaluate(mod, scope, expr[1], pos)
            if base.value is None:
                return UNKNOWN
            return base.value.subscript(self, base.via, expr[2] if len(expr) > 2 else None)
        if kind == "box":
            return Found(Box.of(mod, scope, None, expr[1]), "container")
        if kind == "lam":
            return Found(Lambda(mod, scope, marshal.dumps(expr[1])), "lambda")
        if kind == "tv":  # `TypeVar("T", bound=Base)`
            bound = self.evaluate_type(mod, scope, expr[1]).value
            return Found(TypeVariable(bound.cls if isinstance(bound, Instance) else None), None)
        if kind == "op":
            operand = self.evaluate(mod, scope, expr[1], pos).value
            if isinstance(operand, Instance):
                method = self.classes.method(operand, expr[2])
                if method is not None:
                    returned = self.returns(method.module, method.scope)
                    if returned.value is not None:
                        return Found(returned.value, "protocol")
            return UNKNOWN
        return UNKNOWN

    def _call(self, mod: ModuleFacts, scope: int, expr: list, pos: int) -> Found:
        """What a call expression returns."""
        func = expr[1]
        if func[0] == "n" and func[1] == "super":
            return self._super(mod, scope, expr[2], pos)
        if func[0] == "a" and func[2] == "__new__" and expr[2] is not None:
            # `object.__new__(self.__class__)`, `super().__new__(cls)`: an instance of that class
            made = self.evaluate(mod, scope, expr[2], pos).value
            if isinstance(made, Class):
                return Found(Instance(made.module, made.scope), "constructor")
        if func[0] == "a":
            receiver = self.evaluate(mod, scope, func[1], pos)
            if receiver.value is None:
                return UNKNOWN
            callee = receiver.value.attribute(self, receiver.via, func[2])
            bound = receiver.value
            if (
                isinstance(callee.value, Function)
                and isinstance(bound, (Class, Instance))
                and callee.value.returns_self()
            ):
                # `-> Self` on the class the method was called on (a subclass too)
                return Found(Instance(bound.module, bound.scope), "return")
        else:
            callee = self.evaluate(mod, scope, func, pos)
            if callee.value == BUILTIN and func == ["n", "type"] and expr[2] is not None:
                instance = self.evaluate(mod, scope, expr[2], pos)  # type(self) is its class
                if isinstance(instance.value, Instance):
                    return Found(instance.value.cls, instance.via)
                return UNKNOWN
        passed = self._passed_through(mod, scope, expr, callee.value, pos)
        if passed is not None:
            return passed
        if callee.value is None:
            return UNKNOWN
        result = callee.value.call_result(self, callee.via)
        if result.value is None and isinstance(callee.value, Function) and expr[2] is not None:
            function = callee.value
            bound = func[0] == "a" and function.module.kind(function.scope) == "method"
            bound = bound and "staticmethod" not in function.row[SCOPE_DECORATORS]
            if self.held.gives_back_argument(function, bound, every=True):
                # `def identity(a): return a`: the call is its argument
                return self.evaluate(mod, scope, expr[2], pos)
        return result

    def _super(self, mod: ModuleFacts, scope: int, first_arg: list | None, pos: int) -> Found:
        scopes = mod.scopes
        if first_arg is not None:
            named = self.evaluate(mod, scope, first_arg, pos).value
            if isinstance(named, Class):
                return Found(Super(named.module, named.scope, True), "super")
            return UNKNOWN
        current = scope
        while current > 0 and scopes[current][SCOPE_KIND] != "function":
            current = scopes[current][SCOPE_PARENT]
        if current <= 0:
            return UNKNOWN
        parent = scopes[current][SCOPE_PARENT]
        if parent < 0 or scopes[parent][SCOPE_KIND] != "class":
            return UNKNOWN
        on_instance = "classmethod" not in scopes[current][SCOPE_DECORATORS]
        return Found(Super(mod, parent, on_instance), "super")

    def _passed_through(self, mod, scope, expr: list, callee, pos: int) -> Found | None:
        """The result of a standard function that gives back (a type of) its argument:
        `typing.cast(Foo, value)` is a Foo, or the value itself when `Foo` is a type variable
        or not known; `functools.update_wrapper(wrapper, wrapped)` is the wrapper. None for
        any other call."""
        if not isinstance(callee, External):
            return None
        name = _last_name(expr[1])
        if callee.top == "typing" and name == "cast":
            cast = self.evaluate_type(mod, scope, expr[2]) if expr[2] is not None else UNKNOWN
            if cast.value in (None, TYPING) and len(expr) > 4:
                cast = self.evaluate(mod, scope, expr[4], pos)
            return cast if cast.value is not None else None
        if callee.top == "functools" and name == "update_wrapper" and expr[2] is not None:
            return self.evaluate(mod, scope, expr[2], pos)
        return None

    def returns(self, mod: ModuleFacts, scope: int) -> Found:
        """What a function returns: its annotation's value, else the one value every `return`
        gives."""

        def compute() -> Found:
            row = mod.scopes[scope]
            annotation = row[SCOPE_RETURNS]
            if annotation is None and mod.yields_of(scope):
                return self._generated(mod, scope)
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
                return Found(Instance(mod, parent), "annotation")
            return self.evaluate_type(mod, header, annotation)

        return self.memo.cached(("returns", mod.path, scope), compute)

    def _generated(self, mod: ModuleFacts, scope: int) -> Found:
        """What calling an unannotated generator function returns: a generator, a sequence
        whose element is what its `yield` statements give (each known, one of them)."""
        values = [self.evaluate(mod, scope, expr, pos).value for pos, expr in mod.yields_of(scope)]
        if any(value is None for value in values):
            return UNKNOWN
        element = union_of(values)
        return Found(Sequence(element, None), "return") if element is not None else UNKNOWN

    def _inferred_return(self, mod: ModuleFacts, scope: int) -> Found:
        """An unannotated function's result, when every `return` gives the same value
        (`return self`, `return cls(...)`, `return Foo(...)`, `return inner`, `h = make();
        return h`). The local bindings a returned value is made of are part of the module's
        interface (`parsing.python.interface_of`), so an edit to them re-resolves the files
        that depend on what the function returns, and other body edits do not."""
        values = set()
        found = None
        for pos, expr in mod.returns_of(scope):
            value = self.evaluate(mod, scope, expr, pos)
            if not isinstance(value.value, RETURNED_KINDS):
                return UNKNOWN
            values.add(value.value)
            found = value
        if found is None or len(values) != 1:
            return UNKNOWN
        return Found(found.value, "return")

    # ------------------------------------------------------------ types
    def evaluate_type(self, mod: ModuleFacts, scope: int, annotation: list | None) -> Found:
        """An annotation → the value it describes (an instance, a class for type[X], ...)."""
        if annotation is None:
            return UNKNOWN
        kind = annotation[0]
        if kind in ("n", "a"):
            value = self.evaluate(mod, scope, annotation, 1 << 62).value
            if isinstance(value, TypeVariable):  # an instance of its bound, if it has one
                value = value.bound
            if isinstance(value, Class):
                return Found(Instance(value.module, value.scope), "annotation")
            return UNKNOWN
        if kind == "u":
            alternatives = [a for a in annotation[1] if a is not None and a[0] != "none"]
            if len(alternatives) == 1:
                return self.evaluate_type(mod, scope, alternatives[0])
            typed = []
            for alternative in alternatives:
                value = self.evaluate_type(mod, scope, alternative).value
                if value is not None:
                    typed.append(value)
                elif not self._builtin_type(mod, scope, alternative):
                    return UNKNOWN  # an alternative not known: the value may be anything
            # a builtin type's methods are never the repository's: `str | TerminalRepr` calls
            # of the repository are TerminalRepr's
            return Found(union_of(typed), "annotation") if typed else UNKNOWN
        if kind == "g":
            return self._generic_type(mod, scope, annotation[1], annotation[2])
        return UNKNOWN

    def _builtin_type(self, mod: ModuleFacts, scope: int, annotation: list) -> bool:
        """Whether an annotation names a builtin type (`str`, `tuple[str, int]`)."""
        named = annotation[1] if annotation[0] == "g" else annotation
        return named[0] == "n" and self.lookup(mod, scope, named[1], 1 << 62).value == BUILTIN

    def _generic_type(self, mod: ModuleFacts, scope: int, base: list, args: list) -> Found:
        """`base[args]`: a generic class of the repository, a container of the typing module
        or the builtins (its element's value), a fixed tuple, `type[X]`, a wrapper
        (`Optional[X]`)."""
        generic = base[1] if base[0] == "n" else base[2] if base[0] == "a" else ""
        found = self.evaluate(mod, scope, base, 1 << 62).value
        if isinstance(found, Class):
            return Found(Instance(found.module, found.scope), "annotation")
        if generic in WRAPPER_GENERICS and args:
            return self.evaluate_type(mod, scope, args[0])
        if generic == "Union":
            return self.evaluate_type(mod, scope, ["u", args])
        if generic in ("Type", "type") and args:
            inner = self.evaluate_type(mod, scope, args[0]).value
            if isinstance(inner, Instance):
                return Found(inner.cls, "annotation")
            return UNKNOWN
        if generic in ELEMENT_GENERICS and args:
            element = self.evaluate_type(mod, scope, args[0]).value
            return Found(Sequence(element, None), "annotation") if element is not None else UNKNOWN
        if generic in ("tuple", "Tuple") and len(args) == 2 and args[1] is None:
            element = self.evaluate_type(mod, scope, args[0]).value
            return Found(Sequence(element, None), "annotation") if element is not None else UNKNOWN
        if generic in ("tuple", "Tuple") and args and None not in args:
            # a fixed tuple (`-> tuple[str, Command | None, list[str]]`): each position's
            # value, for unpacking (`name, cmd, rest = resolve(...)`) and `[literal]`
            items = tuple(self.evaluate_type(mod, scope, arg).value for arg in args)
            if any(item is not None for item in items):
                return Found(FixedTuple(items), "annotation")
            return UNKNOWN
        if generic in MAPPING_GENERICS and len(args) == 2:
            key = self.evaluate_type(mod, scope, args[0]).value
            element = self.evaluate_type(mod, scope, args[1]).value
            if element is None and key is None:
                return UNKNOWN
            return Found(Sequence(element, key), "annotation")
        if generic == "Coroutine" and len(args) == 3:
            return self.evaluate_type(mod, scope, args[2])
        if generic == "Callable" and len(args) == 2:  # `Callable[[A, B], R]`: calling gives R
            result = self.evaluate_type(mod, scope, args[1]).value
            return Found(Returning(result), "annotation") if result is not None else UNKNOWN
        return UNKNOWN


def _is_literal(row: list) -> bool:
    binding = row[BINDING_VALUE]
    return binding[0] == "val" and binding[1] is None


def _last_name(expr: list) -> str:
    return expr[1] if expr[0] == "n" else expr[2] if expr[0] == "a" else ""


def _is_overload(row: list) -> bool:
    return any(d.rpartition(".")[2] == "overload" for d in row[SCOPE_DECORATORS])


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
            found = self._own_module(path, module)
            if found is None:
                return None
            self._modules[path] = found
        return self._modules[path]

    def _own_module(self, path: str, module: ModuleName) -> ModuleFacts | None:
        """A file of this repository as a module (None: its facts are not at hand)."""
        facts = self.sources.facts(path)
        if facts is None:
            return None
        is_test = self.sources.tests.is_test_file(path)
        return ModuleFacts(module.name, path, module.is_package, facts, self.sources.repo, is_test)

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
            inside = located(repo, path)[1]
            self._foreign[path] = (
                None
                if facts is None
                else ModuleFacts(
                    name, inside, is_package, facts, repo, is_conventional_test_path(inside)
                )
            )
        return self._foreign[path]

    def resolve_file(self, path: str) -> FileResolution | None:
        mod = self._module_at(path)
        return self.program.resolve_file(mod) if mod is not None else None

    def http_rows(self, path: str) -> list[list] | None:
        """The file's HTTP rows (`resolve.services`): only the calls that may send a request
        or make a route are evaluated (a tenth of resolving the file)."""
        mod = self._module_at(path)
        if mod is None:
            return None
        with self.program.memo.recording():  # what it consulted is no dependency of anything
            return http_rows(self.program, mod)

    def _module_at(self, path: str) -> ModuleFacts | None:
        module = self.sources.names.by_path.get(path)
        if module is None:
            return None
        mod = self.program.module(module.name)
        if mod is None or mod.path != path:  # another file of the same module name
            mod = self._own_module(path, module)
        return mod

    def loaded(self) -> int:
        return len(self._modules) + len(self._foreign)

    def forget(self) -> None:
        self._modules.clear()
        self._foreign.clear()
        self.program.forget()
