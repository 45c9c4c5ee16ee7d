"""The standard library's source as the computing process reads it (`standard_reading.py`):
which file defines a class or a function and with which module globals, a function's `def`
parsed, and the strings the standard library's own code may keep in an instance's attribute
(`state_names`). Runs in the computing process only (`standard_process.py`), which imports
the modules it reads."""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import sys
import textwrap
import tokenize
import types
from dataclasses import dataclass, field
from functools import cache


def class_source(owner: type) -> str | None:
    """The source file of the module whose code defines a class (`collections.abc.Mapping`'s
    is `_collections_abc.py`, whatever its `__module__` says); None for a class of C."""
    for value in vars(owner).values():
        value = getattr(value, "__func__", getattr(value, "fget", value))
        if isinstance(value, types.FunctionType):
            return function_source(value)
    module = sys.modules.get(owner.__module__)
    filename = getattr(module, "__file__", None)
    if isinstance(filename, str) and filename.endswith(".py"):
        SOURCE_GLOBALS.setdefault(filename, vars(module))
        return filename
    return None


def function_source(function: types.FunctionType) -> str | None:
    """The file of a function's code; a frozen standard module's (`<frozen
    _collections_abc>`) is its module's `__file__`. Its globals are remembered for it."""
    filename = function.__code__.co_filename
    if filename.startswith("<frozen ") and filename.endswith(">"):
        module = sys.modules.get(filename[len("<frozen ") : -1])
        filename = getattr(module, "__file__", None) or ""
    if not filename.endswith(".py"):
        return None
    SOURCE_GLOBALS.setdefault(filename, function.__globals__)
    return filename


# a source file's module globals (the module that ran it)
SOURCE_GLOBALS: dict[str, dict] = {}


def definition_of(function: types.FunctionType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The syntax tree of a function's `def`, read from its file (inspect finds none for a
    frozen standard module's, `_collections_abc`'s)."""
    filename = function_source(function)
    if filename is None:
        return None
    lines = linecache.getlines(filename)
    start = function.__code__.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    try:
        block = inspect.getblock(lines[start:])
        tree = ast.parse(textwrap.dedent("".join(block)))
    except (SyntaxError, IndentationError, tokenize.TokenError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return node if node.name == function.__name__ else None


@cache
def _source_tree(filename: str) -> ast.Module | None:
    try:
        return ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None


# methods of a container that give its elements (or keys)
CONTAINER_READS = frozenset({"get", "pop", "setdefault", "items", "values", "keys", "copy"})


class Unknown(Exception):
    """The reach of the definition being read cannot be known."""


@dataclass
class Strings:
    """The strings an expression or an attribute may hold (`names`), with the attributes of
    the instance they were taken from (`state`) and the functions whose parameters are
    stored there (`feeds`)."""

    names: set[str] = field(default_factory=set)
    state: set[str] = field(default_factory=set)
    feeds: set[str] = field(default_factory=set)

    def add(self, other: Strings) -> Strings:
        self.names |= other.names
        self.state |= other.state
        self.feeds |= other.feeds
        return self

    def copy(self) -> Strings:
        return Strings(set(self.names), set(self.state), set(self.feeds))


def constant_names(value: object) -> set[str]:
    """The strings a module-level value holds (a string, a container of them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {v for v in (*value, *value.values()) if isinstance(v, str)}
    if isinstance(value, (tuple, list, set, frozenset)):
        return {v for v in value if isinstance(v, str)}
    return set()


# ---------------------------------------------------------------- names kept in state
@cache
def state_names(sources: tuple[str, ...], attribute: str) -> Strings | None:
    """The strings the code of the files `sources` may keep in an instance's attribute `attribute` (or in
    its elements), for `getattr(self, self.attribute[...])`: what it assigns to `x.attribute`,
    `x.attribute[k]`, `setattr(x, "attribute", v)`, hands to `x.attribute.<method>(...)`, and
    a class body's `attribute = ...` (any `x`: more strings, never fewer). A parameter stored
    there gives the arguments the modules' calls of its function pass, and its default:
    `addTypeEqualityFunc(self, typeobj, function)` stores `function`, and `TestCase.__init__`
    calls `self.addTypeEqualityFunc(dict, 'assertDictEqual')`. An element of another
    attribute gives that attribute's strings; a module constant, the strings it holds; an
    empty container, a number or a function, none. None when one of them is computed
    (composed, returned by a call, unpacked from `*args`): any name. What a repository passes
    to such a method is not seen (the one assumption of `standard_reading.method_reach`), nor a
    container of strings filled through an alias (`names = self.attribute;
    names.append(...)`)."""
    indexes = []
    for filename in sources:
        index = _source_index(filename)
        if index is None:
            return None
        indexes.append(index)
    try:
        return _StateNames(indexes).of(attribute)
    except Unknown:
        return None


@dataclass(eq=False)
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef | None  # None: a class body
    globals: dict
    positional: list[str] = field(default_factory=list)
    keyword_only: set[str] = field(default_factory=set)
    varargs: set[str] = field(default_factory=set)
    defaults: dict[str, ast.AST] = field(default_factory=dict)
    assigned: dict[str, list[ast.AST]] = field(default_factory=dict)
    bound: bool = False  # a method called as `x.name(...)`: its first parameter is x


@dataclass
class _ModuleIndex:
    # attribute name → (stored value, the function it is stored in); "*": setattr(x, name, v)
    stores: dict[str, list[tuple[ast.AST, _Function]]] = field(default_factory=dict)
    # function name → (call, the function it is made in)
    calls: dict[str, list[tuple[ast.Call, _Function]]] = field(default_factory=dict)
    functions: dict[str, list[_Function]] = field(default_factory=dict)


@cache
def _source_index(filename: str) -> _ModuleIndex | None:
    tree = _source_tree(filename)
    if tree is None or filename not in SOURCE_GLOBALS:
        return None
    index = _ModuleIndex()
    _index_scope(tree.body, _Function(None, SOURCE_GLOBALS[filename]), index, in_class=False)
    return index


def _index_scope(body: list[ast.stmt], scope: _Function, index: _ModuleIndex, in_class: bool):
    """Record the stores, calls and functions of one scope's statements (nested scopes get
    their own `_Function`)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d)
            function = _function_of(node, scope.globals, in_class)
            index.functions.setdefault(node.name, []).append(function)
            _index_scope(node.body, function, index, in_class=False)
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(node.bases)
            stack.extend(node.decorator_list)
            body_scope = _Function(None, scope.globals)
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Name):
                            index.stores.setdefault(target.id, []).append(
                                (statement.value, body_scope)
                            )
            _index_scope(node.body, body_scope, index, in_class=True)
            continue
        if isinstance(node, ast.Lambda):
            stack.append(node.body)  # its parameters are not followed: calls in it are kept
            continue
        _index_node(node, scope, index)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _function_of(node, globals_: dict, in_class: bool) -> _Function:
    args = node.args
    function = _Function(node, globals_)
    function.positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    function.keyword_only = {a.arg for a in args.kwonlyargs}
    function.varargs = {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    with_default = function.positional[len(function.positional) - len(args.defaults) :]
    function.defaults.update(zip(with_default, args.defaults, strict=True))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            function.defaults[arg.arg] = default
    decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    function.bound = in_class and "staticmethod" not in decorators
    return function


def _index_node(node: ast.AST, scope: _Function, index: _ModuleIndex) -> None:
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value: ast.AST | None = node if isinstance(node, ast.AugAssign) else node.value
        if value is None:
            return
        for target in targets:
            _bind_local(scope, target, value)
            stored = target
            while isinstance(stored, ast.Subscript):
                stored = stored.value
            if isinstance(stored, ast.Attribute):
                index.stores.setdefault(stored.attr, []).append((value, scope))
    elif isinstance(node, ast.NamedExpr):
        _bind_local(scope, node.target, node.value)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        _bind_local(scope, node.target, node.iter)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        _bind_local(scope, node.optional_vars, node)
    elif isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name is not None:
            index.calls.setdefault(name, []).append((node, scope))
        if isinstance(func, ast.Attribute):
            stored = func.value
            while isinstance(stored, ast.Subscript):
                stored = stored.value
            if isinstance(stored, ast.Attribute) and func.attr not in NOT_ADDING:
                # `x.attribute.append(v)`, `x.attribute.update(d)` (any method but those
                # known to add nothing)
                for argument in (*node.args, *(k.value for k in node.keywords)):
                    index.stores.setdefault(stored.attr, []).append((argument, scope))
        elif name == "setattr" and len(node.args) == 3:
            named = node.args[1]
            key = named.value if isinstance(named, ast.Constant) else "*"
            index.stores.setdefault(str(key), []).append((node.args[2], scope))


def _bind_local(scope: _Function, target: ast.AST, value: ast.AST) -> None:
    if isinstance(target, ast.Name):
        scope.assigned.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_local(
                scope, element.value if isinstance(element, ast.Starred) else element, value
            )


NOT_ADDING = CONTAINER_READS | {"popitem", "remove", "discard", "clear", "index", "count"}
NOT_ADDING |= {"sort", "reverse", "__getitem__", "__contains__", "__len__", "__iter__"}
NOT_ADDING |= {"startswith", "endswith", "split", "join", "format", "strip", "lower", "upper"}
EMPTY_CONTAINERS = frozenset({"dict", "list", "set", "tuple", "frozenset", "OrderedDict"})
EMPTY_CONTAINERS |= {"defaultdict", "deque", "ChainMap", "object"}


class _StateNames:
    def __init__(self, indexes: list[_ModuleIndex]) -> None:
        self.indexes = indexes
        self.seen: set[tuple] = set()

    def of(self, attribute: str) -> Strings:
        if ("attr", attribute) in self.seen:
            return Strings()
        self.seen.add(("attr", attribute))
        found = Strings(state={attribute})
        for index in self.indexes:
            for value, scope in (*index.stores.get(attribute, ()), *index.stores.get("*", ())):
                found.add(self.feed(value, scope))
        return found

    def feed(self, value: ast.AST, scope: _Function) -> Strings:
        if isinstance(value, ast.Constant):
            return Strings({value.value} if isinstance(value.value, str) else set())
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            return self._union(value.elts, scope)
        if isinstance(value, ast.Dict):
            return self._union([k for k in value.keys if k is not None] + value.values, scope)
        if isinstance(value, (ast.Lambda, ast.Compare)):
            return Strings()  # a function, a bool
        if isinstance(value, ast.Name):
            return self._name(value.id, scope)
        if isinstance(value, ast.Attribute):
            owner = _dotted(value.value, scope.globals)
            if owner is not None:
                return Strings(constant_names(getattr(owner, value.attr, None)))
            return self.of(value.attr)
        if isinstance(value, ast.Subscript):
            return self.feed(value.value, scope)
        if isinstance(value, ast.IfExp):
            return self.feed(value.body, scope).add(self.feed(value.orelse, scope))
        if isinstance(value, ast.BoolOp):
            return self._union(value.values, scope)
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in CONTAINER_READS:
                return self.feed(func.value, scope)
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in EMPTY_CONTAINERS and not value.args and not value.keywords:
                return Strings()
        raise Unknown  # computed: any name

    def _union(self, values: list, scope: _Function) -> Strings:
        found = Strings()
        for value in values:
            found.add(self.feed(value, scope))
        return found

    def _name(self, name: str, scope: _Function) -> Strings:
        key = ("name", id(scope), name)
        if key in self.seen:
            return Strings()
        self.seen.add(key)
        if name in scope.varargs:
            raise Unknown
        if name in scope.positional or name in scope.keyword_only:
            return self._parameter(scope, name)
        if name in scope.assigned:
            return self._union(scope.assigned[name], scope)
        return Strings(constant_names(scope.globals.get(name, getattr(builtins, name, None))))

    def _parameter(self, scope: _Function, name: str) -> Strings:
        """What the modules' calls of the function pass for its parameter `name`."""
        assert scope.node is not None
        found = Strings(feeds={scope.node.name})
        if name in scope.defaults:
            found.add(self.feed(scope.defaults[name], scope))
        at = scope.positional.index(name) if name in scope.positional else None
        for index in self.indexes:
            for call, caller in index.calls.get(scope.node.name, ()):
                if any(isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords
                ):
                    raise Unknown  # `f(*args)`: any argument
                if at is not None:
                    shift = 1 if scope.bound and isinstance(call.func, ast.Attribute) else 0
                    if 0 <= at - shift < len(call.args):
                        found.add(self.feed(call.args[at - shift], caller))
                for keyword in call.keywords:
                    if keyword.arg == name:
                        found.add(self.feed(keyword.value, caller))
        return found


def _dotted(node: ast.AST, globals_: dict) -> object:
    """The module-level object a name or dotted name stands for (None: not one)."""
    if isinstance(node, ast.Name):
        return globals_.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, globals_)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None
