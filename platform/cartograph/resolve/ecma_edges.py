"""One TypeScript/JavaScript file's resolution: its symbols, the edge (or unresolved call)
each use of a name makes, decorators applied, INHERITS, imports, and the flow rows the flow
stage follows (`index/flows.py`; the row layout is `resolve/python_flows.py`'s)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.model import Unresolved, symbol_id
from cartograph.parsing.facts import (
    ECMA_BINDING_START,
    ECMA_BINDING_VALUE,
    ECMA_SCOPE_INFO,
    ECMA_SCOPE_KIND,
    ECMA_SCOPE_PARENT,
    ECMA_SCOPE_START,
    ECMA_SCOPE_START_BYTE,
)
from cartograph.resolve.core import EdgeSet, FileResolution, OverBudget, render
from cartograph.resolve.ecma import (
    GLOBALS,
    TYPE,
    VALUE,
    _dedupe,
    _package_name,
    _root,
    _symbols,
    _visible,
)
from cartograph.resolve.ecma_services import http_rows

if TYPE_CHECKING:
    from cartograph.resolve.ecma import EcmaProgram, _File


class EcmaFileResolver:
    """Resolves files of one `EcmaProgram`, one at a time (`resolve`)."""

    def __init__(self, program: EcmaProgram) -> None:
        self.program = program
        self.flows: list[list] = []  # the file being resolved: its flow rows
        self.over_budget = 0  # the file being resolved: references past a budget

    def _write_ref(
        self, f: _File, ids: list[str], ref: list, edges: EdgeSet, unresolved: list
    ) -> None:
        """The edge (or unresolved call) one use of a name writes."""
        scope, kind, expr, line, pos = ref
        src = ids[scope]
        if kind == "c" and expr == ["super"]:  # super(...) runs the base's constructor
            cls = self.program.class_scope(f, scope)
            bases = self.program.bases(f, cls, 0) if cls is not None else []
            ctor = self.program.constructor(*bases[0]) if bases else None
            if ctor is not None:
                edges.add("CALLS", src, self.program.symbol(*ctor), line, "super")
            return
        value, via = self.program.evaluate(f, scope, expr, pos, 0, TYPE if kind == "t" else VALUE)
        target = self.program.kind(value) if value is not None and value[0] == "def" else None
        if kind == "c" and value is None and expr[0] == "i":
            made = False
            for element, element_via in self.program.elements(f, scope, expr, pos, 0):
                if element[0] == "def" and self.program.kind(element) in ("function", "method"):
                    edges.add(
                        "CALLS", src, self.program.symbol(element[1], element[2]), line, element_via
                    )
                    made = True
            if made:
                return
        if kind == "c":
            self._call_flows(f, ids, scope, expr, pos, line, value)
        if kind in ("c", "n") and target in ("function", "method", "class"):
            self._argument_flows(f, ids, scope, value, pos)
        if kind == "c" and target in ("function", "method"):
            edges.add("CALLS", src, self.program.symbol(value[1], value[2]), line, via)
        elif kind == "n" and target == "class":
            edges.add("CALLS", src, self.program.symbol(value[1], value[2]), line, "constructor")
            cf = self.program.file(value[1])
            ctor = self.program.constructor(cf, value[2]) if cf is not None else None
            if ctor is not None:
                edges.add("CALLS", src, self.program.symbol(*ctor), line, "constructor")
        elif kind in ("c", "n"):
            external = value is not None and value[0] == "ext"
            if (value is None and _root(expr) not in GLOBALS) or external:
                name = render(expr) if kind == "c" else f"new {render(expr)}"
                why = "external" if external else "unknown-value"
                unresolved.append(
                    Unresolved(src, name, line, value[1] if external else "", reason=why)
                )
        elif target is not None and target != "object":
            if kind == "r" and target in ("interface", "type", "enum"):
                return  # a type is not a callback
            edges.add("REFERENCES", src, self.program.symbol(value[1], value[2]), line, via)

    # ------------------------------------------------------------ flows (index/flows.py)
    def _parameter(self, f: _File, scope: int, name: str, pos: int) -> tuple[int, str] | None:
        """(function scope, name) when `name` is a named function's parameter there."""
        current = scope
        while current > 0:
            rows = f.bindings.get((current, name))
            if rows:
                row = _visible(rows, pos)
                if row is None or row[ECMA_BINDING_VALUE][0] != "param":
                    return None
                if row[ECMA_BINDING_START] is not None:
                    return None  # an anonymous callback's parameter: not a symbol's
                return current, name
            current = f.scopes[current][ECMA_SCOPE_PARENT]
        return None

    def _call_flows(
        self, f: _File, ids: list, scope: int, expr: list, pos: int, line: int, value
    ) -> None:
        """A call of a parameter (`cb()`). Dispatch to overrides is Python's rule only: no
        `self` rows for `this.m()`."""
        if value is None and expr[0] == "n":
            found = self._parameter(f, scope, expr[1], pos)
            if found is not None:
                self.flows.append(["call", ids[found[0]], found[1], ids[scope], line, "v"])

    def _argument_flows(self, f: _File, ids: list, scope: int, callee: tuple, pos: int) -> None:
        """What a call passes to a function's parameters (functions, methods, classes), and the
        caller's own parameters passed on."""
        passed = f.arguments.get(pos)
        if not passed:
            return
        tf = self.program.file(callee[1])
        if tf is None:
            return
        target = callee[2]
        if tf.scopes[target][ECMA_SCOPE_KIND] == "class":
            ctor = self.program.constructor(tf, target)
            if ctor is None:
                return
            tf, target = self.program.file(ctor[0]) or tf, ctor[1]
        params = tf.scopes[target][ECMA_SCOPE_INFO].get("params") or []
        target_id = self.program.symbol(tf.path, target)
        for index, argument in passed:
            if index >= len(params):
                continue
            name = params[index][0]
            if argument[0] == "n":
                own = self._parameter(f, scope, argument[1], pos)
                if own is not None:
                    self.flows.append(["pass", ids[own[0]], own[1], target_id, name])
                    continue
            found = self.program.evaluate(f, scope, argument, pos)[0]
            if (
                found is not None
                and found[0] == "def"
                and self.program.kind(found) in ("function", "method", "class")
            ):
                self.flows.append(
                    ["arg", target_id, name, self.program.symbol(found[1], found[2]), "v"]
                )

    def _class_flows(self, f: _File, ids: list) -> None:
        for index, row in enumerate(f.scopes):
            if row[ECMA_SCOPE_KIND] != "class":
                continue
            bases = [
                self.program.symbol(bf.path, bscope)
                for bf, bscope in self.program.bases(f, index, 0)
            ]
            methods = sorted(
                name
                for name, child in f.children.get(index, {}).items()
                if f.scopes[child][ECMA_SCOPE_KIND] == "method"
            )
            self.flows.append(["class", ids[index], bases, methods])

    def _apply_decorator(
        self, f: _File, ids: list, index: int, dec: list, value: tuple, line: int, edges: EdgeSet
    ) -> None:
        """Applying a decorator runs where the decorated class or method is defined: a call
        of the decorator (or of what a factory returned) from there; a class decorator
        receives the class (its first parameter)."""
        applied = value if dec[0] != "c" else self.program.call_result(value, "decorator", 0)[0]
        if (
            applied is None
            or applied[0] != "def"
            or self.program.kind(applied) not in ("function", "method")
        ):
            return
        parent = max(f.scopes[index][ECMA_SCOPE_PARENT], 0)
        target = self.program.symbol(applied[1], applied[2])
        edges.add("CALLS", ids[parent], target, line, "decorator")
        if f.scopes[index][ECMA_SCOPE_KIND] == "class":
            af = self.program.file(applied[1])
            params = af.scopes[applied[2]][ECMA_SCOPE_INFO].get("params") if af else None
            if params:
                self.flows.append(["arg", target, params[0][0], ids[index], "v"])

    # ------------------------------------------------------------ one file
    def resolve(self, path: str) -> FileResolution:
        with self.program.memo.recording() as recorded:
            f = self.program.file(path)
            if f is None:
                return FileResolution(path, path, [], [], [], set())
            self.flows = []
            self.over_budget = 0
            symbols, edges, unresolved, imports = self._resolve(f)
            http = http_rows(self.program, f)
        deps = recorded.deps - {path}
        resolution = FileResolution(path, path, symbols, edges, unresolved, deps, imports)
        resolution.flows = sorted({repr(row): row for row in self.flows}.values(), key=repr)
        resolution.http = http
        resolution.over_budget = self.over_budget
        return resolution

    def _resolve(self, f: _File) -> tuple[list, list, list, list]:
        repo, path = self.program.repo, f.path
        ids = [symbol_id(repo, path, f.qualname(i)) for i in range(len(f.scopes))]
        symbols = _symbols(repo, f, ids)
        edges = EdgeSet()
        unresolved: list[Unresolved] = []

        with self.program.memo.budget(self.program.memo.file_budget):
            for ref in f.facts["refs"]:
                try:
                    with self.program.memo.budget(self.program.memo.reference_budget):
                        self._write_ref(f, ids, ref, edges, unresolved)
                except OverBudget:  # its work is past a budget: unknown, never a hang
                    self.over_budget += 1
                    scope, kind, expr, line, _pos = ref
                    if kind == "c":
                        name = render(expr)
                        unresolved.append(Unresolved(ids[scope], name, line, "", reason="budget"))
        self._class_flows(f, ids)
        for index, row in enumerate(f.scopes):
            line = row[ECMA_SCOPE_START]
            parent = row[ECMA_SCOPE_PARENT]
            for dec in row[ECMA_SCOPE_INFO].get("dec") or []:
                named = dec[1] if dec[0] == "c" else dec  # `@Get(":id")`: Get
                value, via = self.program.evaluate(f, parent, named, row[ECMA_SCOPE_START_BYTE])
                if (
                    value is not None
                    and value[0] == "def"
                    and self.program.kind(value) in ("function", "method")
                ):
                    target = self.program.symbol(value[1], value[2])
                    edges.add("REFERENCES", ids[index], target, line, via)
                    self._apply_decorator(f, ids, index, dec, value, line, edges)
            if row[ECMA_SCOPE_KIND] in ("class", "interface"):
                for bf, bscope, via, order in self.program.bases_with_via(f, index, 0):
                    base = self.program.symbol(bf.path, bscope)
                    edges.add("INHERITS", ids[index], base, line, via, order=order)
        imports = []
        for source, names, _line, _kind in f.facts["imports"]:
            imported, external = self.program.target(path, source)
            if imported is not None and imported.startswith("/"):  # another repository's
                imports.append(("package", _package_name(source)[0], list(names)))
            elif imported is not None:
                imports.append(("file", imported, list(names)))
            elif external:
                imports.append(("package", external, list(names)))
        return symbols, edges.edges(), unresolved, _dedupe(imports)
