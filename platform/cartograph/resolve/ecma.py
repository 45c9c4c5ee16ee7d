"""TypeScript/JavaScript resolution: facts of `cartograph.parsing.ecma` → symbols and edges.

Module specifiers resolve like TypeScript's `bundler`/`node16` resolution: relative paths with
extension and `index` probing (an import of `./x.js` finds `x.ts`), `tsconfig.json`/
`jsconfig.json` `baseUrl` and `paths` (following `extends`), and the repository's own
packages (`package.json` `name` with `exports`/`types`/`module`/`main`, workspaces of a
monorepo). Anything else is an external package: calls into it stay unresolved.

Values are followed through imports, re-export chains and barrels (ESM and CommonJS), `this`
with `extends`, `super`, `new`, type annotations (parameters, variables, fields, return types,
constructor parameter properties), and object literals bound to names. Nothing is guessed: a
receiver whose type is unknown leaves the call unresolved.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from cartograph.configfiles import Unreadable, load_json
from cartograph.model import SymbolRow, located, symbol_id
from cartograph.parsing.ecma import TYPE_SPACE_KINDS
from cartograph.parsing.facts import (
    ECMA_BINDING_END,
    ECMA_BINDING_NAME,
    ECMA_BINDING_SCOPE,
    ECMA_BINDING_START,
    ECMA_BINDING_VALUE,
    ECMA_MEMBER_CLASS,
    ECMA_MEMBER_NAME,
    ECMA_MEMBER_SCOPE,
    ECMA_SCOPE_DOC,
    ECMA_SCOPE_END,
    ECMA_SCOPE_EXPORTED,
    ECMA_SCOPE_INFO,
    ECMA_SCOPE_KIND,
    ECMA_SCOPE_NAME,
    ECMA_SCOPE_PARENT,
    ECMA_SCOPE_QUALNAME,
    ECMA_SCOPE_SIGNATURE,
    ECMA_SCOPE_START,
    ECMA_SCOPE_START_BYTE,
)
from cartograph.resolve.core import (
    PACKAGE_DEP,
    FileResolution,
    ForeignCode,
    Memo,
    render,
)
from cartograph.resolve.family import Sources
from cartograph.resolve.mro import depth_first

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
# probing order for an extensionless specifier (a .d.ts only when nothing else exists)
PROBE = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")
# an import written with a JavaScript extension finds the TypeScript source (TS ESM style)
JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
WRAPPER_TYPES = frozenset({"Promise", "PromiseLike", "Readonly", "Awaited", "NonNullable"})
GLOBALS = frozenset(
    {
        "console", "JSON", "Math", "Object", "Array", "Promise", "String", "Number", "Boolean",
        "Date", "RegExp", "Error", "TypeError", "Map", "Set", "WeakMap", "WeakSet", "Symbol",
        "Reflect", "Proxy", "parseInt", "parseFloat", "isNaN", "isFinite", "setTimeout",
        "setInterval", "clearTimeout", "clearInterval", "setImmediate", "queueMicrotask",
        "require", "process", "Buffer", "globalThis", "window", "document", "fetch", "eval",
        "encodeURIComponent", "decodeURIComponent", "encodeURI", "decodeURI", "structuredClone",
        "BigInt", "Intl", "URL", "URLSearchParams", "AbortController", "TextEncoder",
        "TextDecoder", "describe", "it", "test", "expect", "beforeEach", "afterEach",
        "beforeAll", "afterAll", "jest", "module", "exports", "arguments", "undefined",
    }
)  # fmt: skip
MAX_DEPTH = 40
MAX_UNION = 6
END = 1 << 60  # a position after every binding of a file
# the two spaces a name is looked up in: a value (a call, `new`, a value used) or a type (an
# annotation, `implements`); declarations only of the other space are left out when a name has
# both (`type OK` and `const OK`: parsing.ecma.TYPE_SPACE_KINDS)
VALUE, TYPE = "value", "type"
VALUE_ONLY_KINDS = frozenset({"function", "method", "object"})


def module_qualname(path: str) -> str:
    """The module symbol's qualname: the path without its extension."""
    for suffix in DECLARATION_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    stem, dot, ext = path.rpartition(".")
    return stem if dot and "/" not in ext else path


def _json(text: str | None) -> dict:
    """A JSON config file, tolerating the comments and trailing commas tsconfig allows ({}
    when it cannot be read: the index run says why, `configfiles.unreadable_configs`)."""
    if not text:
        return {}
    try:
        value = load_json(text, lenient=True)
    except Unreadable:
        return {}
    return value if isinstance(value, dict) else {}


class Modules:
    """Where a module specifier leads, from one importing file: a repository file, an external
    package, or nowhere. Shared by every file of a run (results are cached with the paths they
    looked at, which become the importing file's dependencies)."""

    def __init__(
        self,
        files: set[str],
        all_paths: set[str],
        read_text: Callable[[str], str | None],
        foreign: ForeignCode | None = None,
    ) -> None:
        self.files = files
        self.foreign = foreign  # other repositories' packages (foreign paths start with "/")
        self.all_paths = all_paths
        self.config_files = {p for p in all_paths if posixpath.basename(p) in CONFIG_NAMES}
        self.read_text = read_text
        self._configs: dict[str, dict | None] = {}
        self._nearest: dict[str, str | None] = {}
        self._cache: dict[tuple[str, str], tuple[str | None, str | None, tuple[str, ...]]] = {}
        self._packages: dict[str, tuple[str, dict]] | None = None

    def resolve(self, importer: str, spec: str) -> tuple[str | None, str | None, tuple[str, ...]]:
        """(repository file, external package, paths looked at)."""
        directory = posixpath.dirname(importer)
        key = (directory, spec)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._resolve(directory, spec)
        return found

    def _resolve(self, directory: str, spec: str) -> tuple[str | None, str | None, tuple]:
        probed: list[str] = []
        foreign_dir = directory.startswith("/")  # in a file of another repository
        if spec.startswith((".", "/")):
            base = posixpath.normpath(posixpath.join(directory, spec))
            if not foreign_dir:
                base = base.lstrip("/")
            if base == ".":  # `require("../..")` up to the repository's root
                base = ""
            return self._probe(base, probed), None, tuple(probed)
        config = None if foreign_dir else self._config_for(directory)
        if config is not None:
            paths, paths_folder, base_url = config
            for pattern, targets in paths:
                star = _match(pattern, spec)
                if star is None:
                    continue
                for target in targets:
                    candidate = posixpath.normpath(
                        posixpath.join(paths_folder, target.replace("*", star, 1))
                    )
                    hit = self._probe(candidate, probed)
                    if hit:
                        return hit, None, tuple(probed)
            if base_url is not None:
                hit = self._probe(posixpath.normpath(posixpath.join(base_url, spec)), probed)
                if hit:
                    return hit, None, tuple(probed)
        name, subpath = _package_name(spec)
        package = self.packages().get(name)
        if package is not None:
            folder, manifest = package
            hit = self._package_entry(folder, manifest, subpath, probed)
            if hit:
                return hit, None, tuple(probed)
        elif self.foreign is not None:
            probed.append(PACKAGE_DEP + name)  # provided elsewhere, now or later
            offered = self.foreign.npm_package(name)
            if offered is not None:
                hit = self._package_entry(offered[0], offered[1], subpath, probed)
                if hit:
                    return hit, None, tuple(probed)
        return None, name, tuple(probed)

    def _probe(self, base: str, probed: list[str]) -> str | None:
        files: set[str] | _ForeignFiles = self.files
        if base.startswith("/") and self.foreign is not None:
            files = _ForeignFiles(self.foreign)
        ext = posixpath.splitext(base)[1]
        if ext in EXTENSIONS:
            stem = base[: -len(ext)]
            for alt in JS_TO_TS.get(ext, ()):
                probed.append(stem + alt)
                if stem + alt in files:
                    return stem + alt
            probed.append(base)
            if base in files:
                return base
        for suffix in PROBE:
            probed.append(base + suffix)
            if base + suffix in files:
                return base + suffix
        for suffix in PROBE:
            candidate = f"{base}/index{suffix}" if base else f"index{suffix}"
            probed.append(candidate)
            if candidate in files:
                return candidate
        return None

    def _config_for(self, directory: str) -> tuple[list, str, str | None] | None:
        """([(pattern, targets)] longest prefix first, the folder `paths` targets are relative
        to, the baseUrl folder or None) of the nearest tsconfig/jsconfig."""
        if directory not in self._nearest:
            path = None
            current = directory
            while path is None:
                for name in CONFIG_NAMES:
                    candidate = f"{current}/{name}" if current else name
                    if candidate in self.config_files:
                        path = candidate
                        break
                if not current:
                    break
                current = posixpath.dirname(current)
            self._nearest[directory] = path
        path = self._nearest[directory]
        if path is None:
            return None
        options = self._compiler_options(path, 0)
        base_url = options.get("baseUrl")
        base_folder = (
            _clean(posixpath.normpath(posixpath.join(base_url[1], base_url[0])))
            if base_url
            else None
        )
        mapping, paths_folder = options.get("paths") or ({}, "")
        if base_folder is not None:
            paths_folder = base_folder
        ordered = sorted(
            ((p, t) for p, t in mapping.items() if isinstance(t, list)),
            key=lambda item: -len(item[0].split("*")[0]),
        )
        return ordered, paths_folder, base_folder

    def _compiler_options(self, path: str, depth: int) -> dict:
        """compilerOptions with `extends` applied; baseUrl and paths carry the folder they are
        relative to (the config that declares them)."""
        if depth > 8 or path not in self.all_paths:
            return {}
        config = self._configs.get(path)
        if config is None:
            config = self._configs[path] = _json(self.read_text(path))
        options: dict = {}
        parent = config.get("extends")
        folder = posixpath.dirname(path)
        for base in [parent] if isinstance(parent, str) else parent or []:
            if not isinstance(base, str) or not base.startswith("."):
                continue
            target = posixpath.normpath(posixpath.join(folder, base))
            if not target.endswith(".json"):
                target += ".json"
            options.update(self._compiler_options(target, depth + 1))
        own = config.get("compilerOptions") or {}
        if isinstance(own.get("baseUrl"), str):
            options["baseUrl"] = (own["baseUrl"], folder)
        if isinstance(own.get("paths"), dict):
            options["paths"] = (own["paths"], folder)
        return options

    def packages(self) -> dict[str, tuple[str, dict]]:
        """The repository's own packages by name: (folder, package.json)."""
        if self._packages is None:
            self._packages = {}
            for path in sorted(self.all_paths):
                if posixpath.basename(path) != "package.json" or "node_modules/" in path:
                    continue
                manifest = _json(self.read_text(path))
                name = manifest.get("name")
                if isinstance(name, str) and name not in self._packages:
                    self._packages[name] = (posixpath.dirname(path), manifest)
        return self._packages

    def _package_entry(self, folder: str, manifest: dict, subpath: str, probed: list) -> str | None:
        exports = manifest.get("exports")
        key = "." + (f"/{subpath}" if subpath else "")
        targets: list[str] = []
        if isinstance(exports, str) and not subpath:
            targets.append(exports)
        elif isinstance(exports, dict):
            entry = exports.get(key)
            if entry is None and not any(k.startswith(".") for k in exports) and not subpath:
                entry = exports  # conditions only
            if entry is None:
                for pattern, value in exports.items():
                    star = _match(pattern, key)
                    if star is not None and isinstance(value, str):
                        targets.append(value.replace("*", star, 1))
            targets += _conditions(entry)
        if not subpath:
            for field in ("types", "typings", "module", "main"):
                if isinstance(manifest.get(field), str):
                    targets.append(manifest[field])
            targets += ["src/index", "index"]
        else:
            targets += [f"src/{subpath}", subpath]
        for target in targets:
            base = posixpath.normpath(posixpath.join(folder, target))
            hit = self._probe(base, probed)
            if hit:
                return hit
            # a built entry (dist/index.js) whose source is in the repository (src/index.ts)
            for built in ("dist/", "lib/", "build/", "out/"):
                rel = posixpath.relpath(base, folder) if folder else base
                if rel.startswith(built):
                    source = posixpath.join(folder, "src", rel[len(built) :])
                    hit = self._probe(posixpath.splitext(source)[0], probed)
                    if hit:
                        return hit
        return None


class _ForeignFiles:
    """Membership of foreign paths, for probing a provider's files."""

    __slots__ = ("foreign",)

    def __init__(self, foreign: ForeignCode) -> None:
        self.foreign = foreign

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.foreign.has(path)


def _conditions(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, list):
        return [t for item in entry for t in _conditions(item)]
    if isinstance(entry, dict):
        found: list[str] = []
        for condition in ("types", "import", "module", "default", "require", "node"):
            if condition in entry:
                found += _conditions(entry[condition])
        return found
    return []


def _clean(folder: str) -> str:
    return "" if folder in (".", "./") else folder


def _match(pattern: str, spec: str) -> str | None:
    """The part of `spec` a `paths`/`exports` pattern's `*` stands for ('' for an exact match)."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    head, _, tail = pattern.partition("*")
    if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
        return spec[len(head) : len(spec) - len(tail)]
    return None


def _package_name(spec: str) -> tuple[str, str]:
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2]), "/".join(parts[2:])
    return parts[0], "/".join(parts[1:])


class _File:
    """One file's facts with the indexes resolution needs."""

    def __init__(self, path: str, facts: dict) -> None:
        self.path = path
        self.facts = facts
        self.scopes = facts["scopes"]
        self.bindings: dict[tuple[int, str], list] = {}
        for row in facts["bindings"]:
            key = (row[ECMA_BINDING_SCOPE], row[ECMA_BINDING_NAME])
            self.bindings.setdefault(key, []).append(row)
        self.children: dict[int, dict[str, int]] = {}
        for index, scope in enumerate(self.scopes):
            if index:
                named = self.children.setdefault(scope[ECMA_SCOPE_PARENT], {})
                named.setdefault(scope[ECMA_SCOPE_NAME], index)
        self.members: dict[int, dict[str, list]] = {}
        for row in facts["members"]:
            by_name = self.members.setdefault(row[ECMA_MEMBER_CLASS], {})
            by_name.setdefault(row[ECMA_MEMBER_NAME], []).append(row)
        self.arguments: dict[int, list] = {
            pos: passed for pos, passed in facts.get("arguments", ())
        }
        self.exports: dict[str, object] = {}
        for exported, local in facts["exports"]:
            self.exports.setdefault(exported, local)
        self.module_name = module_qualname(path)

    def qualname(self, scope: int) -> str:
        return self.scopes[scope][ECMA_SCOPE_QUALNAME] if scope else self.module_name


class EcmaProgram:
    """Resolves the TypeScript/JavaScript files of one repository."""

    def __init__(
        self,
        repo: str,
        paths: Iterable[str],
        load: Callable[[str], dict | None],
        read_text: Callable[[str], str | None],
        all_paths: set[str],
        foreign: ForeignCode | None = None,
    ) -> None:
        self.repo = repo
        self.paths = set(paths)
        self.load = load
        self.modules = Modules(self.paths, all_paths, read_text, foreign)
        self._files: dict[str, _File | None] = {}
        # computations shared by every file of the run, with the files they consulted (a file
        # that uses a result depends on them too)
        self.memo = Memo()

    @classmethod
    def for_sources(cls, sources: Sources) -> EcmaProgram:
        return cls(
            sources.repo,
            sources.paths("ecma"),
            sources.facts,
            sources.read_text,
            sources.all_paths,
            sources.foreign,
        )

    def loaded(self) -> int:
        return len(self._files)

    def forget(self) -> None:
        """Drop the loaded files and every computation (between two files)."""
        self._files = {}
        self.memo = Memo()

    # ------------------------------------------------------------ files and modules
    def file(self, path: str) -> _File | None:
        """A file's facts (a dependency, found or not)."""
        self.memo.consulted.add(path)
        if path not in self._files:
            facts = self.load(path)
            self._files[path] = _File(path, facts) if facts and "scopes" in facts else None
        return self._files[path]

    def target(self, importer: str, spec: str) -> tuple[str | None, str | None]:
        path, external, probed = self.modules.resolve(importer, spec)
        self.memo.consulted.update(probed)
        return path, external

    # ------------------------------------------------------------ values
    # a value: ("def", path, scope) | ("inst", path, scope) | ("mod", path) | ("ext", package)
    # | ("this", path, class scope) | ("super", path, class scope); with it, the via.

    def lookup(
        self, f: _File, scope: int, name: str, pos: int, depth: int = 0, space: str = VALUE
    ) -> tuple:
        """What `name` is bound to in `scope` (or an enclosing one): in the value space (a
        call, `new`, a value used) or the type space (an annotation), which differ where a
        type alias or interface shares its name with a value."""
        current = scope
        while current >= 0:
            rows = f.bindings.get((current, name))
            if rows:
                row = _visible(self._in_space(f, rows, space), pos)
                if row is not None:
                    binding = row[ECMA_BINDING_VALUE]
                    return self.binding_value(f, current, binding, pos, depth + 1, space)
            current = f.scopes[current][ECMA_SCOPE_PARENT] if current else -1
        return (None, None)

    def _in_space(self, f: _File, rows: list, space: str) -> list:
        """The bindings of a name that belong to `space` (a declaration of the other space
        left out), or all of them when none does."""
        other = VALUE_ONLY_KINDS if space == TYPE else TYPE_SPACE_KINDS
        kept = [
            row
            for row in rows
            if row[ECMA_BINDING_VALUE][0] != "def"
            or f.scopes[row[ECMA_BINDING_VALUE][1]][ECMA_SCOPE_KIND] not in other
        ]
        return kept or rows

    def binding_value(
        self, f: _File, scope: int, binding: list, pos: int, depth: int, space: str = VALUE
    ) -> tuple:
        if depth > MAX_DEPTH:
            return (None, None)
        tag = binding[0]
        if tag == "def":
            return ("def", f.path, binding[1]), "scope"
        if tag == "imp":
            source, imported = binding[1], binding[2]
            path, external = self.target(f.path, source)
            if path is None:
                return (("ext", external), "import") if external else (None, None)
            if imported == "*":
                return ("mod", path), "import"
            value = self.export_value(path, imported, depth + 1, space)
            return (value, "import") if value is not None else (None, None)
        if tag == "req":
            path, external = self.target(f.path, binding[1])
            if path is None:
                return (("ext", external), "import") if external else (None, None)
            if binding[2] is None:
                return self.module_value(path, depth + 1), "import"
            value = self.export_value(path, binding[2], depth + 1, space)
            return (value, "import") if value is not None else (None, None)
        if tag == "param":
            return self.type_value(f, scope, binding[1], pos, "annotation", depth + 1)
        if tag == "val":
            if binding[2] is not None:
                typed = self.type_value(f, scope, binding[2], pos, "annotation", depth + 1)
                if typed[0] is not None:
                    return typed
            return self.evaluate(f, scope, binding[1], pos, depth + 1)
        return (None, None)

    def export_value(self, path: str, name: str, depth: int, space: str = VALUE) -> tuple | None:
        key = ("export", path, name, space)
        # a cycle of re-exports ends with nothing
        return self.memo.cached(key, lambda: self._export_value(path, name, depth, space), None)

    def _export_value(self, path: str, name: str, depth: int, space: str) -> tuple | None:
        f = self.file(path)
        if f is None or depth > MAX_DEPTH:
            return None
        local = f.exports.get(name)
        if local is not None:
            return self._local_export(f, local, depth, space)
        for source, imported, exported in f.facts["reexports"]:
            if exported != name:
                continue
            target, _external = self.target(path, source)
            if target is None:
                return None
            if imported == "*":
                return ("mod", target)
            return self.export_value(target, imported, depth + 1, space)
        if name != "default":
            for source, imported, exported in f.facts["reexports"]:
                if imported == "*" and exported == "*":
                    target, _external = self.target(path, source)
                    if target is not None:
                        value = self.export_value(target, name, depth + 1, space)
                        if value is not None:
                            return value
        whole = self.module_value(path, depth + 1)
        if whole is not None and whole[0] != "mod":
            if name == "default":
                return whole
            return self.attribute(whole, "import", name, depth + 1)[0]
        return None

    def _local_export(self, f: _File, local: object, depth: int, space: str) -> tuple | None:
        if isinstance(local, str) and local.startswith("="):
            return ("def", f.path, int(local[1:]))
        if isinstance(local, str):
            return self.lookup(f, 0, local, END, depth + 1, space)[0]
        if isinstance(local, list) and local and local[0] == "expr":
            return self.evaluate(f, 0, local[1], END, depth + 1)[0]
        return None

    def module_value(self, path: str, depth: int) -> tuple | None:
        """What `require(path)` gives: `module.exports = x`, else the module's namespace."""
        f = self.file(path)
        if f is None or depth > MAX_DEPTH:
            return ("mod", path) if f is None else None
        value = f.facts.get("module_value")
        if isinstance(value, str):
            if value.startswith("="):
                return ("def", path, int(value[1:]))
            return self.lookup(f, 0, value, END, depth + 1)[0]
        for source, imported, exported in f.facts["reexports"]:
            if imported == "*" and exported == "=":
                target, _external = self.target(path, source)
                if target is not None:
                    return self.module_value(target, depth + 1)
        return ("mod", path)

    def evaluate(
        self, f: _File, scope: int, expr: list | None, pos: int, depth: int = 0, space: str = VALUE
    ) -> tuple:
        """What an expression is; `space` TYPE: what a type's name (`X`, `ns.X`) names."""
        if expr is None or depth > MAX_DEPTH:
            return (None, None)
        tag = expr[0]
        if tag == "n":
            return self.lookup(f, scope, expr[1], pos, depth + 1, space)
        if tag == "this":
            cls = self.class_scope(f, scope)
            if cls is None:
                return (None, None)
            row = f.scopes[scope]
            static = row[ECMA_SCOPE_KIND] == "method" and row[ECMA_SCOPE_INFO].get("static")
            return (("def", f.path, cls) if static else ("this", f.path, cls)), "self"
        if tag == "super":
            cls = self.class_scope(f, scope)
            return (("super", f.path, cls), "super") if cls is not None else (None, None)
        if tag == "a":
            base, via = self.evaluate(f, scope, expr[1], pos, depth + 1)
            if base is None:
                return (None, None)
            return self.attribute(base, via, expr[2], depth + 1, space)
        if tag == "c":
            func, via = self.evaluate(f, scope, expr[1], pos, depth + 1)
            if func is not None and func[0] == "ext":
                return func, via  # what an external library returns stays external
            return self.call_result(func, via, depth + 1)
        if tag == "new":
            cls, _via = self.evaluate(f, scope, expr[1], pos, depth + 1)
            if cls is not None and cls[0] == "ext":
                return cls, "import"
            if cls is not None and cls[0] == "def" and self.kind(cls) == "class":
                return ("inst", cls[1], cls[2]), "constructor"
            return (None, None)
        if tag == "cast":
            return self.type_value(f, scope, expr[1], pos, "annotation", depth + 1)
        if tag == "i":
            found = self.elements(f, scope, expr, pos, depth + 1)
            return found[0] if len(found) == 1 else (None, None)
        return (None, None)

    def elements(self, f: _File, scope: int, expr: list, pos: int, depth: int) -> list:
        """What `table[key]` may hold, for an object literal bound to a name: the method or
        property of a literal key, every one for another key (via container)."""
        base, _via = self.evaluate(f, scope, expr[1], pos, depth + 1)
        if base is None or base[0] != "def" or self.kind(base) != "object":
            return []
        of = self.file(base[1])
        if of is None:
            return []
        key = expr[2] if len(expr) > 2 else None
        found = []
        for name, child in of.children.get(base[2], {}).items():
            if key is None or name == key:
                found.append((("def", of.path, child), "container"))
        parent = of.scopes[base[2]][ECMA_SCOPE_PARENT]
        for name, value in of.scopes[base[2]][ECMA_SCOPE_INFO].get("props", ()):
            if key is None or name == key:
                held = self.evaluate(of, parent, value, END, depth + 1)[0]
                if held is not None:
                    found.append((held, "container"))
        return list(dict.fromkeys(found))

    def kind(self, value: tuple) -> str | None:
        if value[0] not in ("def", "inst"):
            return None
        f = self.file(value[1])
        return f.scopes[value[2]][ECMA_SCOPE_KIND] if f is not None else None

    def class_scope(self, f: _File, scope: int) -> int | None:
        """The class `this` means in `scope` (arrow functions see their enclosing `this`)."""
        current = scope
        while current > 0:
            row = f.scopes[current]
            parent, kind = row[ECMA_SCOPE_PARENT], row[ECMA_SCOPE_KIND]
            if kind == "class":
                return current  # a field initializer
            if kind == "method":
                return parent if f.scopes[parent][ECMA_SCOPE_KIND] == "class" else None
            if kind == "function" and not row[ECMA_SCOPE_INFO].get("arrow"):
                return None  # a `function` has its own `this`
            current = parent
        return None

    def type_value(
        self, f: _File, scope: int, typ: list | None, pos: int, via: str, depth: int
    ) -> tuple:
        """An instance of what a type annotation names."""
        if typ is None or depth > MAX_DEPTH:
            return (None, None)
        tag = typ[0]
        if tag == "g":
            base = typ[1]
            if base and base[0] == "n" and base[1] in WRAPPER_TYPES and typ[2]:
                return self.type_value(f, scope, typ[2][0], pos, via, depth + 1)
            return self.type_value(f, scope, base, pos, via, depth + 1)
        if tag == "u":
            if len(typ[1]) > MAX_UNION:
                return (None, None)  # a wide union (a sum type) names no single receiver
            found = {
                value
                for value in (
                    self.type_value(f, scope, alt, pos, via, depth + 1)[0] for alt in typ[1]
                )
                if value is not None
            }
            return (found.pop(), via) if len(found) == 1 else (None, None)
        if tag in ("n", "a"):
            value, _how = self.evaluate(f, scope, typ, pos, depth + 1, TYPE)
            if value is None or value[0] != "def":
                return (None, None)
            kind = self.kind(value)
            if kind in ("class", "interface"):
                return ("inst", value[1], value[2]), via
            if kind == "type":
                return self.alias_value(value[1], value[2], depth + 1), via
            return (None, None)
        return (None, None)

    def alias_value(self, path: str, scope: int, depth: int) -> tuple | None:
        """What a type alias stands for (an instance type, or nothing), computed once."""
        key = ("alias", path, scope)

        def compute() -> tuple | None:
            target = self.file(path)
            if target is None:
                return None
            alias = target.scopes[scope][ECMA_SCOPE_INFO].get("value")
            return self.type_value(target, 0, alias, END, "annotation", depth)[0]

        # an alias that refers to itself stands for nothing
        return self.memo.cached(key, compute, None)

    def attribute(
        self, base: tuple, via: str | None, name: str, depth: int, space: str = VALUE
    ) -> tuple:
        if depth > MAX_DEPTH:
            return (None, None)
        tag = base[0]
        if tag == "ext":
            return base, via
        if tag == "mod":
            value = self.export_value(base[1], name, depth + 1, space)
            return (value, via) if value is not None else (None, None)
        f = self.file(base[1])
        if f is None:
            return (None, None)
        kind = f.scopes[base[2]][ECMA_SCOPE_KIND]
        if tag == "def":
            if kind == "object":
                child = f.children.get(base[2], {}).get(name)
                if child is not None:
                    return ("def", f.path, child), via
                for key, value in f.scopes[base[2]][ECMA_SCOPE_INFO].get("props", ()):
                    if key == name:
                        return self.evaluate(
                            f, f.scopes[base[2]][ECMA_SCOPE_PARENT], value, END, depth + 1
                        )
                return (None, None)
            if kind == "class":  # a static member
                return self.member(f, base[2], name, via, "inheritance", depth + 1, static=True)
            return (None, None)
        if tag == "inst":
            return self.member(f, base[2], name, via, via, depth + 1)
        if tag == "this":
            return self.member(f, base[2], name, "self", "inheritance", depth + 1)
        if tag == "super":
            bases = self.bases(f, base[2], depth + 1)
            for bf, bscope in bases[:1]:
                return self.member(bf, bscope, name, "super", "super", depth + 1)
        return (None, None)

    def member(
        self,
        f: _File,
        cls: int,
        name: str,
        own_via: str | None,
        base_via: str | None,
        depth: int,
        static: bool = False,
    ) -> tuple:
        """A method (or what a field holds) on a class or interface, its bases searched in
        order; methods found on a base are reached `via` base_via."""
        for index, (cf, cscope) in enumerate(self.linearization(f, cls, depth + 1)):
            via = own_via if index == 0 else base_via
            child = cf.children.get(cscope, {}).get(name)
            if child is not None and cf.scopes[child][ECMA_SCOPE_KIND] == "method":
                info = cf.scopes[child][ECMA_SCOPE_INFO]
                if info.get("accessor"):
                    return self.call_result(("def", cf.path, child), via, depth + 1)
                return ("def", cf.path, child), via
            if static:
                continue
            for row in cf.members.get(cscope, {}).get(name, []):
                value = self.member_value(cf, row, depth + 1)
                if value[0] is not None:
                    return value
        return (None, None)

    def member_value(self, f: _File, row: list, depth: int) -> tuple:
        """What `this.name` holds, from a field declaration, a parameter property or an
        assignment in a method."""
        cls, _name, value, typ, how = row[:5]
        if typ is not None:
            found = self.type_value(
                f, cls, typ, END, how if how != "field" else "annotation", depth + 1
            )
            if found[0] is not None:
                return found
        if value is not None:
            scope = row[ECMA_MEMBER_SCOPE] if len(row) > ECMA_MEMBER_SCOPE else cls
            found, via = self.evaluate(f, scope, value, END, depth + 1)
            if found is not None and found[0] == "inst":
                return found, via
        return (None, None)

    def linearization(self, f: _File, cls: int, depth: int) -> list[tuple[_File, int]]:
        key = ("mro", f.path, cls)
        return self.memo.cached(key, lambda: self._linearization(f, cls, depth), [(f, cls)])

    def _linearization(self, f: _File, cls: int, depth: int) -> list[tuple[_File, int]]:
        """The class, then each base's own linearization in turn (not C3: `extends` first,
        then the implemented interfaces, depth first)."""
        bases = self.bases(f, cls, depth + 1)
        lines = [self.linearization(bf, bscope, depth + 1) for bf, bscope in bases]
        return depth_first((f, cls), bases, lines)

    def bases(self, f: _File, cls: int, depth: int) -> list[tuple[_File, int]]:
        return [(bf, bscope) for bf, bscope, _via, _order in self.bases_with_via(f, cls, depth)]

    def bases_with_via(self, f: _File, cls: int, depth: int) -> list[tuple[_File, int, str, int]]:
        """Direct bases in the repository: `extends` first, then implemented interfaces; each
        with its via and its place among the declared bases (1 = first)."""
        row = f.scopes[cls]
        info = row[ECMA_SCOPE_INFO]
        found: list[tuple[_File, int, str, int]] = []
        start = row[ECMA_SCOPE_START_BYTE]
        wanted = {"class"} if row[ECMA_SCOPE_KIND] == "class" else {"class", "interface"}
        written = [info.get("ext")] + [_type_expr(t) for t in info.get("impl") or []]
        order = 0
        for index, expr in enumerate(written):
            if expr is None:
                continue
            order += 1
            space = VALUE if index == 0 and row[ECMA_SCOPE_KIND] == "class" else TYPE
            value, via = self.evaluate(f, row[ECMA_SCOPE_PARENT], expr, start, depth + 1, space)
            kinds = wanted if index == 0 else {"class", "interface"}
            if value is not None and value[0] == "def" and self.kind(value) in kinds:
                target = self.file(value[1])
                if target is not None:
                    found.append((target, value[2], via or "scope", order))
        return found

    def call_result(self, func: tuple | None, via: str | None, depth: int) -> tuple:
        if func is None or func[0] != "def" or depth > MAX_DEPTH:
            return (None, None)
        f = self.file(func[1])
        if f is None:
            return (None, None)
        row = f.scopes[func[2]]
        if row[ECMA_SCOPE_KIND] not in ("function", "method"):
            return (None, None)
        returns = row[ECMA_SCOPE_INFO].get("ret")
        if returns is None:
            return self.inferred_return(f, func[2], depth + 1)
        typed = self.type_value(f, func[2], returns, END, "return", depth + 1)
        if typed[0] is None and _type_names_function(returns):
            return self.inferred_return(f, func[2], depth + 1)  # `(): () => void`
        return typed

    def inferred_return(self, f: _File, scope: int, depth: int) -> tuple:
        """An unannotated function's result, when every `return` gives the same function,
        class or instance (`return inner`, `return new Foo()`)."""
        values = set()
        for returned_scope, expr, pos in f.facts.get("returns", ()):
            if returned_scope != scope:
                continue
            value = self.evaluate(f, scope, expr, pos, depth + 1)[0]
            if value is None or value[0] not in ("def", "inst"):
                return (None, None)
            values.add(value)
        if len(values) != 1:
            return (None, None)
        return next(iter(values)), "return"

    def constructor(self, f: _File, cls: int) -> tuple[str, int] | None:
        for cf, cscope in self.linearization(f, cls, 0):
            if cf.scopes[cscope][ECMA_SCOPE_KIND] != "class":
                continue
            child = cf.children.get(cscope, {}).get("constructor")
            if child is not None:
                return cf.path, child
        return None

    def symbol(self, path: str, scope: int) -> str:
        f = self.file(path)
        assert f is not None  # a path a value or a base names: its file was read
        return symbol_id(*located(self.repo, path), f.qualname(scope))

    def resolve_file(self, path: str) -> FileResolution:
        """Symbols, edges, unresolved calls and flow rows of one file (`ecma_edges`)."""
        from cartograph.resolve.ecma_edges import EcmaFileResolver

        return EcmaFileResolver(self).resolve(path)


def _dedupe(imports: list) -> list:
    merged: dict[tuple[str, str], list[str]] = {}
    for kind, target, names in imports:
        bucket = merged.setdefault((kind, target), [])
        bucket.extend(n for n in names if n not in bucket)
    return [(kind, target, names) for (kind, target), names in merged.items()]


def _visible(rows: list, pos: int) -> list | None:
    """The binding in effect at `pos`: a ranged one (a callback's parameter) that contains it,
    else the last unranged or already-assigned one."""
    best = None
    for row in rows:
        start, end = row[ECMA_BINDING_START], row[ECMA_BINDING_END]
        if start is not None and end is not None:
            if start <= pos < end:
                return row
            continue
        if start is not None and start > pos:
            continue
        if best is None or (start or -1) >= (best[ECMA_BINDING_START] or -1):
            best = row
    if best is None:
        # a name used before its (function-level) assignment: hoisting / a later assignment
        unranged = [r for r in rows if r[ECMA_BINDING_END] is None]
        best = unranged[0] if unranged else None
    return best


def _type_names_function(typ: list | None) -> bool:
    """A return annotation that is a function type (`() => void`, `Function`): the parser
    keeps it as text, or as the name Function."""
    return typ is not None and (typ[0] == "?" or typ == ["n", "Function"])


def _type_expr(typ: list | None) -> list | None:
    if typ is None:
        return None
    if typ[0] == "g":
        return _type_expr(typ[1])
    return typ if typ[0] in ("n", "a") else None


def _root(expr: list | None) -> str | None:
    while expr is not None and expr[0] in ("a", "c"):
        expr = expr[1]
    if expr is not None and expr[0] == "n":
        return expr[1]
    return None


def _symbols(repo: str, f: _File, ids: list[str]) -> list[SymbolRow]:
    exported_names = {local for local in f.exports.values() if isinstance(local, str)}
    exported_names |= set(f.exports)
    rows: list[SymbolRow] = []
    seen: dict[str, int] = {}  # id → its row
    kinds = {"object": "variable"}
    for index, row in enumerate(f.scopes):
        if ids[index] in seen:  # overloads (a method's signatures and its implementation),
            # merged interfaces: one symbol, from the first one's start to the last one's end
            merged = rows[seen[ids[index]]]
            merged.start_line = min(merged.start_line, row[ECMA_SCOPE_START])
            merged.end_line = max(merged.end_line, row[ECMA_SCOPE_END])
            continue
        seen[ids[index]] = len(rows)
        kind = kinds.get(row[ECMA_SCOPE_KIND], row[ECMA_SCOPE_KIND])
        parent, name = row[ECMA_SCOPE_PARENT], row[ECMA_SCOPE_NAME]
        if index == 0:
            exported = True
        elif parent == 0:
            exported = (
                bool(row[ECMA_SCOPE_EXPORTED])
                or name in exported_names
                or f.facts.get("module_value") == name
            )
        else:
            exported = rows_exported(f, parent, exported_names) and not name.startswith("#")
        decorators = [render(d) for d in row[ECMA_SCOPE_INFO].get("dec") or []]
        rows.append(
            SymbolRow(
                id=ids[index],
                repo=repo,
                path=f.path,
                name=name if index else posixpath.basename(f.module_name),
                qualname=f.qualname(index),
                kind="module" if index == 0 else kind,
                start_line=row[ECMA_SCOPE_START],
                end_line=row[ECMA_SCOPE_END],
                signature=row[ECMA_SCOPE_SIGNATURE],
                doc=row[ECMA_SCOPE_DOC],
                exported=exported,
                parent=ids[parent] if index else None,
                decorators=decorators,
            )
        )
    return rows


def rows_exported(f: _File, scope: int, exported_names: set[str]) -> bool:
    row = f.scopes[scope]
    if scope == 0:
        return True
    parent = row[ECMA_SCOPE_PARENT]
    if (
        row[ECMA_SCOPE_KIND] in ("function", "method")
        and parent != 0
        and f.scopes[parent][ECMA_SCOPE_KIND] not in ("class", "object")
    ):
        return False
    if parent == 0:
        return bool(row[ECMA_SCOPE_EXPORTED]) or row[ECMA_SCOPE_NAME] in exported_names
    return rows_exported(f, parent, exported_names)
