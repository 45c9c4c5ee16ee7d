"""Resolution of the generic tier (Go, Java, Kotlin, C#, Rust, Ruby, PHP, C, C++).

The facts of `cartograph.parsing.tags` become symbols, CALLS and INHERITS edges, unresolved
calls and import links, by names — never by types. The rules, in the order they are tried for
one call site (a rule that finds two or more candidates stops the search: nothing is guessed):

- `new X()`, `X{}`, `X.new`, Kotlin/C++/Rust `X(...)`: the class X and its constructors —
  via "import" (0.9) when X was found through an import (or, for Java and Kotlin, in the
  same package), else "name" (0.5).
- Go `pkg.F()` where `pkg` is an import of a directory of this repository (through the
  nearest go.mod): the exported top-level F of that package, via "import". Rust paths
  (`crate::a::f`, `super::f`, `m::f`, `use`d names) follow the module files (`a.rs`,
  `a/mod.rs`) from the crate root (Cargo.toml's src/), via "import".
- `Type.m()`, `Type::m()` where Type is a class found as for `new`: its member m (or an
  inherited one), with the class's via. C++ `ns::f()` and PHP `ns\f()`: by qualified name.
- bare `f()` (and `this.f()`, `self.f()`, `$this->f()`, the Go receiver): a member of the
  enclosing class (inherited ones too; Java, C#, Kotlin, C++ and Ruby allow it bare), then a
  function of the same file, then of the same package — via "name". Java static imports and
  Kotlin function imports bind via "import"; C also looks beside the headers it includes.
- `super.m()`, `base.m()`, `parent::m()`: m in a base of the enclosing class.
- any other receiver, unless it is an import or a class name: the one method of that name in
  the file's package (WEAK, 0.3); two or more, or none, leave the call unresolved.

"Package" is the directory for Go (same `package` clause), Rust, Ruby, C and C++; the declared
package or namespace for Java, Kotlin, C# and PHP, found in the file's own directory, in the
directories whose path ends with the package's path, and in files named after a class
(`Foo.java`, `Foo.cs`, `Foo.php`, `foo.rb`). `deps` lists every other file whose facts were
read (cached lookups replay theirs), so a file is re-resolved when one of them changes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from cartograph.model import Edge, SymbolRow, Unresolved, symbol_id
from cartograph.parsing.tags import CLASS_KINDS, SUFFIXES, normalize_type
from cartograph.resolve.python import FileResolution

CONFIDENCE = {"import": 0.9, "name": 0.5}
WEAK = 0.3  # a method name defined once in the package, called on an unknown receiver
MAX_BASE_DEPTH = 6

FAMILY = {
    "go": "go",
    "java": "jvm",
    "kotlin": "jvm",
    "csharp": "csharp",
    "rust": "rust",
    "ruby": "ruby",
    "php": "php",
    "c": "c",
    "cpp": "c",
}
THIS = {
    "java": {"this"},
    "kotlin": {"this"},
    "csharp": {"this"},
    "rust": {"self", "Self"},
    "ruby": {"self"},
    "php": {"$this", "self", "static"},
    "cpp": {"this", "(*this)"},
}
SUPER = {"java": {"super"}, "kotlin": {"super"}, "csharp": {"base"}, "php": {"parent"}}
IMPLICIT_THIS = frozenset({"java", "kotlin", "csharp", "cpp", "ruby"})
CONSTRUCTOR_CALLS = frozenset({"kotlin", "cpp", "rust"})  # `Foo(...)` builds a Foo
NAMED_PACKAGES = frozenset({"java", "kotlin", "csharp", "php"})
CLASS_FILES = {"java": ".java", "csharp": ".cs", "php": ".php", "kotlin": ".kt", "ruby": ".rb"}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# bare calls of these names are the language's own: no edge and no unresolved call, unless
# the repository defines a function of that name
BUILTINS = {
    "go": _words(
        "append cap clear close complex copy delete imag len make max min new panic print "
        "println real recover"
    ),
    "ruby": _words(
        "require require_relative load include extend prepend attr_reader attr_writer "
        "attr_accessor private protected public module_function private_constant "
        "private_class_method puts print p pp raise fail format sprintf lambda proc loop "
        "block_given? catch throw sleep rand freeze"
    ),
    "cpp": _words("static_cast dynamic_cast const_cast reinterpret_cast"),
    "kotlin": _words(
        "println print require requireNotNull check checkNotNull error lazy run let "
        "apply also with repeat listOf mutableListOf setOf mutableSetOf mapOf mutableMapOf "
        "arrayOf emptyList emptyMap emptySet listOfNotNull to"
    ),
}
RUST_LOCAL = frozenset({"crate", "self", "super"})
CALLABLE = frozenset({"function", "method"})
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_TYPE_PATH = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|\\)[A-Za-z_][\w]*)*$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _constructor_names(language: str, class_name: str) -> tuple[str, ...]:
    if language in ("java", "csharp", "cpp"):
        return (class_name,)
    if language == "php":
        return ("__construct",)
    if language == "ruby":
        return ("initialize",)
    return ()


class _Unit:
    """One file's facts with the indexes the resolver needs."""

    __slots__ = (
        "by_name",
        "by_qual",
        "canonical",
        "defs",
        "facts",
        "language",
        "package",
        "path",
    )

    def __init__(self, path: str, facts: dict) -> None:
        self.path = path
        self.facts = facts
        self.language = facts.get("dialect") or facts.get("language") or ""
        if self.language == "cpp" and facts.get("language") == "c":
            self.language = "cpp"
        self.package = facts.get("package", "")
        self.defs: list[list] = facts.get("defs", [])
        # a qualname defined twice in a file is one symbol: its first definition with a body
        self.by_qual: dict[str, int] = {}
        for i, row in enumerate(self.defs):
            known = self.by_qual.get(row[2])
            if known is None or (self.defs[known][11] and not row[11]):
                self.by_qual[row[2]] = i
        self.canonical = [self.by_qual[row[2]] for row in self.defs]
        self.by_name: dict[str, list[int]] = {}
        for i in self.by_qual.values():
            self.by_name.setdefault(self.defs[i][1], []).append(i)

    def qual(self, i: int) -> str:
        return self.defs[i][2]

    def kind(self, i: int) -> str:
        return self.defs[i][0]


Target = tuple[_Unit, int]


class _Group:
    """Definitions of several files (a directory or a package), by name and by qualname."""

    __slots__ = ("by_name", "by_qual", "consulted", "paths", "units")

    def __init__(self, units: list[_Unit], consulted: list[str]) -> None:
        self.units = units
        self.paths = [u.path for u in units]
        self.consulted = consulted  # every file read to decide membership
        self.by_name: dict[str, list[Target]] = {}
        self.by_qual: dict[str, list[Target]] = {}
        for unit in units:
            for i in set(unit.canonical):
                row = unit.defs[i]
                self.by_name.setdefault(row[1], []).append((unit, i))
                self.by_qual.setdefault(row[2], []).append((unit, i))


def _unique(candidates: Iterable[Target], partial: bool = False) -> tuple[Target | None, int]:
    """The one definition among candidates (the same qualname in two files is one candidate
    when one of them is a declaration, or for C# partial classes), and how many there were."""
    by_qual: dict[str, Target] = {}
    count = 0
    for unit, i in candidates:
        qual = unit.qual(i)
        known = by_qual.get(qual)
        if known is None:
            by_qual[qual] = (unit, i)
            count += 1
            continue
        known_decl = known[0].defs[known[1]][11]
        decl = unit.defs[i][11]
        if known_decl and not decl:
            by_qual[qual] = (unit, i)
        elif not known_decl and not decl and not (partial and unit.kind(i) in CLASS_KINDS):
            count += 1  # two bodies: build variants or a real clash
    if count != 1 or len(by_qual) != 1:
        return None, max(count, len(by_qual))
    return next(iter(by_qual.values())), 1


def _dir(path: str) -> str:
    return posixpath.dirname(path)


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


class GenericProgram:
    """Resolves the files of the generic-tier languages of one repository.

    paths: every file of a generic-tier language in the repository ('/'-separated, relative).
    load(path): the facts `cartograph.parsing.tags.extract` made of it, None when unreadable;
    called lazily, once per path. read_text(path): a repository file's text (go.mod), None
    when missing.
    """

    def __init__(
        self,
        repo: str,
        paths: Iterable[str],
        load: Callable[[str], dict | None],
        read_text: Callable[[str], str | None],
    ) -> None:
        self.repo = repo
        self.paths = sorted(set(paths))
        self.path_set = set(self.paths)
        self.load = load
        self.read_text = read_text
        self.by_dir: dict[str, list[str]] = {}
        self.by_basename: dict[str, list[str]] = {}
        for path in self.paths:
            self.by_dir.setdefault(_dir(path), []).append(path)
            self.by_basename.setdefault(posixpath.basename(path), []).append(path)
        self._suffix_dirs: dict[str, list[str]] | None = None
        self._units: dict[str, _Unit | None] = {}
        self._groups: dict[tuple, _Group] = {}
        self._memos: dict[tuple, tuple[object, frozenset[str]]] = {}
        self._gomod: dict[str, tuple[str, str] | None] = {}
        self._crate_roots: dict[str, str | None] = {}
        self._deps: set[str] = set()

    # ---------------------------------------------------------------- loading and groups

    def _unit(self, path: str) -> _Unit | None:
        """A file's facts (loaded once); reading them makes the file a dependency."""
        if path not in self._units:
            facts = self.load(path) if path in self.path_set else None
            self._units[path] = _Unit(path, facts) if facts else None
        if path in self.path_set:
            self._deps.add(path)
        return self._units[path]

    def _memo(self, key: tuple, compute: Callable[[], object]) -> object:
        """A cached computation; a later use records the files it consulted as dependencies."""
        hit = self._memos.get(key)
        if hit is None:
            outer = self._deps
            self._deps = set()
            try:
                value = compute()
            finally:
                consulted = self._deps
                self._deps = outer | consulted
            self._memos[key] = (value, frozenset(consulted))
            return value
        self._deps |= hit[1]
        return hit[0]

    def _group(
        self, key: tuple, paths: Callable[[], Iterable[str]], keep: Callable[[_Unit], bool]
    ) -> _Group:
        group = self._groups.get(key)
        if group is None:
            listed = list(paths())
            units = [u for u in (self._unit(p) for p in listed) if u is not None and keep(u)]
            group = self._groups[key] = _Group(units, listed)
        self._deps.update(group.consulted)
        return group

    def _dir_group(self, directory: str, family: str) -> _Group:
        return self._group(
            ("dir", directory, family),
            lambda: [p for p in self.by_dir.get(directory, ()) if _family_of(p) == family],
            lambda u: True,
        )

    def _package_group(self, unit: _Unit) -> _Group:
        """The files of `unit`'s package (see the module docstring)."""
        language = unit.language
        family = FAMILY.get(language, language)
        directory = _dir(unit.path)
        if language == "go":
            package = unit.package
            return self._group(
                ("go", directory, package),
                lambda: [p for p in self.by_dir.get(directory, ()) if p.endswith(".go")],
                lambda u: u.package == package,
            )
        if language in NAMED_PACKAGES and unit.package:
            return self._named_package(family, unit.package, directory)
        return self._dir_group(directory, family)

    def _named_package(self, family: str, package: str, directory: str = "") -> _Group:
        def paths() -> list[str]:
            dirs = set(self._dirs_ending(package.split("."), family))
            if directory:
                dirs.add(directory)
            return sorted(
                p for d in dirs for p in self.by_dir.get(d, ()) if _family_of(p) == family
            )

        if family == "csharp":  # namespaces are per definition: keep every file, filter later
            return self._group(("ns", family, package, directory), paths, lambda u: True)
        return self._group(
            ("pkg", family, package, directory), paths, lambda u: u.package == package
        )

    def _dirs_ending(self, parts: list[str], family: str) -> list[str]:
        """Directories whose path ends with the package's path (Kotlin and C# also: a shorter
        tail of it, as their layouts often drop the common prefix)."""
        if self._suffix_dirs is None:
            index: dict[str, list[str]] = {}
            for directory in self.by_dir:
                segments = [s.lower() for s in directory.split("/") if s]
                for k in range(1, min(len(segments), 8) + 1):
                    index.setdefault("/".join(segments[-k:]), []).append(directory)
            self._suffix_dirs = index
        lowered = [p.lower() for p in parts]
        found = list(self._suffix_dirs.get("/".join(lowered), ()))
        if family in ("csharp", "php") or (family == "jvm" and not found):
            shortest = 1 if family == "csharp" else 2
            for k in range(len(lowered) - 1, shortest - 1, -1):
                found.extend(self._suffix_dirs.get("/".join(lowered[-k:]), ()))
            if family == "csharp":  # `Company.Product/` project folders
                found.extend(self._suffix_dirs.get(".".join(lowered), ()))
        return found

    def _class_files(self, family: str, name: str) -> list[str]:
        """Files named after a class by the language's convention."""
        if family == "jvm":
            return self.by_basename.get(name + ".java", []) + self.by_basename.get(name + ".kt", [])
        if family == "ruby":
            return self.by_basename.get(_snake(name) + ".rb", [])
        suffix = CLASS_FILES.get(family)
        return self.by_basename.get(name + suffix, []) if suffix else []

    # ---------------------------------------------------------------- Go packages

    def _go_module(self, directory: str) -> tuple[str, str] | None:
        """(module root directory, module path) of the nearest go.mod above `directory`."""
        if directory in self._gomod:
            return self._gomod[directory]
        text = self.read_text(posixpath.join(directory, "go.mod") if directory else "go.mod")
        found = None
        if text is not None:
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("module "):
                    found = (directory, line[7:].strip().strip('"'))
                    break
        elif directory:
            found = self._go_module(_dir(directory))
        self._gomod[directory] = found
        return found

    def _go_import_dir(self, unit: _Unit, path: str) -> str | None:
        module = self._go_module(_dir(unit.path))
        if module is not None:
            root, module_path = module
            if path == module_path:
                rel = root
            elif path.startswith(module_path + "/"):
                rel = (
                    posixpath.join(root, path[len(module_path) + 1 :])
                    if root
                    else path[len(module_path) + 1 :]
                )
            else:
                return None
            return rel if rel in self.by_dir else None
        if "." not in path.split("/", 1)[0]:
            return None  # the standard library
        segments = path.split("/")
        for k in range(len(segments) - 1, 1, -1):  # GOPATH layout: a tail of the import path
            tail = "/".join(segments[-k:])
            if tail in self.by_dir:
                return tail
        return None

    def _go_group(self, directory: str) -> _Group:
        return self._group(
            ("goimp", directory),
            lambda: [
                p
                for p in self.by_dir.get(directory, ())
                if p.endswith(".go") and not p.endswith("_test.go")
            ],
            lambda u: True,
        )

    def _go_imports(self, unit: _Unit) -> dict[str, tuple[str, str | None]]:
        """Local name → (import path, directory in the repo or None)."""
        return self._memo(("goimports", unit.path), lambda: self._compute_go_imports(unit))

    def _compute_go_imports(self, unit: _Unit) -> dict[str, tuple[str, str | None]]:
        out: dict[str, tuple[str, str | None]] = {}
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            if alias in ("_", "."):
                continue
            directory = self._go_import_dir(unit, path)
            name = alias
            if not name and directory is not None:
                group = self._go_group(directory)
                name = next((u.package for u in group.units if u.package), None)
            if not name:
                name = _go_default_name(path)
            out[name] = (path, directory)
        return out

    # ---------------------------------------------------------------- classes

    def _visible(self, unit: _Unit, candidates: list[int], context: int) -> list[int]:
        """Among same-named definitions of one file, the ones lexically closest to context."""
        if len(candidates) <= 1 or context < 0:
            return candidates
        scope = unit.qual(context)
        best: list[int] = []
        best_len = -1
        for i in candidates:
            prefix = unit.qual(i).rpartition(".")[0]
            if prefix and not (scope == prefix or scope.startswith(prefix + ".")):
                continue
            if len(prefix) > best_len:
                best, best_len = [i], len(prefix)
            elif len(prefix) == best_len:
                best.append(i)
        return best or candidates

    def resolve_class(
        self, unit: _Unit, text: str, context: int = -1
    ) -> tuple[Target | None, str, str]:
        """(class, via, external package) for a class name as written in `unit`."""
        language = unit.language
        family = FAMILY.get(language, language)
        written = normalize_type(text)
        if not written:
            return None, "", ""
        qualifier, _, name = written.rpartition(".")
        partial = family == "csharp"
        java_like = family == "jvm"
        via_same = "import" if java_like else "name"

        if language == "go" and qualifier:
            imported = self._go_imports(unit).get(qualifier)
            if imported is None:
                return None, "", ""
            import_path, directory = imported
            if directory is None:
                return None, "", import_path
            group = self._go_group(directory)
            kinds = CLASS_KINDS | {"type"}
            found, _ = _unique(t for t in group.by_name.get(name, ()) if _go_exported_top(t, kinds))
            return found, "import", ""

        # the same file: a class of that name (or path), the lexically closest
        local = [
            i
            for i in unit.by_name.get(name, ())
            if unit.kind(i) in CLASS_KINDS | {"type"}
            and (not qualifier or _ends_with(unit.qual(i), written))
        ]
        local = self._visible(unit, local, context)
        if len(local) == 1:
            return (unit, local[0]), via_same, ""
        if len(local) > 1:
            return None, "", ""

        if language == "rust":
            segments = written.split(".")
            if qualifier or self._rust_expand(unit, segments) != segments:
                found = self._rust_item(unit, segments, CLASS_KINDS | {"type"})
                if found is not None:
                    return found, "import", ""

        # imports naming the class (Java, Kotlin, C#, PHP)
        imports = unit.facts.get("imports", ())
        head = written.split(".", 1)[0]
        external = ""
        if language in NAMED_PACKAGES:
            for path, alias, _line, flags in imports:
                if flags in ("static", "function"):
                    continue
                local_name = alias or path.rpartition(".")[2]
                if local_name == "*" or local_name != head:
                    continue
                fqn = path if head == written else path + written[len(head) :]
                found = self._find_fqn(family, fqn, partial)
                if found is not None:
                    return found, "import", ""
                external = path.rpartition(".")[0] or path
            if external:
                return None, "", external
            if qualifier:
                found = self._find_fqn(family, written, partial)
                if found is not None:
                    return found, "import", ""

        # the same package
        found, count = self._same_package_class_count(unit, written, context)
        if found is not None:
            return found, via_same, ""
        if count > 1:
            return None, "", ""

        # wildcard imports and C# namespace usings
        if language in NAMED_PACKAGES:
            hits = []
            for path, alias, _line, flags in imports:
                if flags == "static" or alias:
                    continue
                if path.endswith(".*"):
                    package = path[:-2]
                elif language == "csharp":
                    package = path
                else:
                    continue
                found = self._find_fqn(family, f"{package}.{written}", partial)
                if found is not None:
                    hits.append(found)
            target, count = _unique(hits, partial)
            if target is not None:
                return target, "import", ""
            if count > 1:
                return None, "", ""
        # files named after the class anywhere (Ruby: constants are global)
        if family == "ruby":
            candidates = []
            for path in self._class_files(family, name):
                other = self._unit(path)
                if other is not None:
                    candidates.extend(
                        (other, i)
                        for i in other.by_name.get(name, ())
                        if other.kind(i) in CLASS_KINDS and _ends_with(other.qual(i), written)
                    )
            target, _ = _unique(candidates)
            if target is not None:
                return target, "name", ""
        return None, "", ""

    def _same_package_class_count(
        self, unit: _Unit, written: str, context: int
    ) -> tuple[Target | None, int]:
        family = FAMILY.get(unit.language, unit.language)
        name = written.rpartition(".")[2]
        group = self._package_group(unit)
        candidates = [
            t
            for t in group.by_name.get(name, ())
            if t[0] is not unit
            and t[0].kind(t[1]) in CLASS_KINDS | {"type"}
            and _ends_with(t[0].qual(t[1]), written)
        ]
        if unit.language in NAMED_PACKAGES:
            quals = {f"{ns}.{written}" if ns else written for ns in self._namespaces(unit, context)}
            candidates = [t for t in candidates if t[0].qual(t[1]) in quals]
        if family in ("jvm", "csharp", "php") and not candidates:
            for path in self._class_files(family, name):
                other = self._unit(path)
                if other is None or other is unit:
                    continue
                quals = {
                    f"{ns}.{written}" if ns else written for ns in self._namespaces(unit, context)
                }
                candidates.extend(
                    (other, i)
                    for i in other.by_name.get(name, ())
                    if other.kind(i) in CLASS_KINDS | {"type"} and other.qual(i) in quals
                )
        return _unique(candidates, family == "csharp")

    def _namespaces(self, unit: _Unit, context: int) -> set[str]:
        """The namespace a definition is declared in, and (C#) the ones enclosing it."""
        ns = unit.defs[context][9] if context >= 0 else unit.package
        if unit.language != "csharp":
            return {ns}
        out = {ns}
        while "." in ns:
            ns = ns.rpartition(".")[0]
            out.add(ns)
        return out

    def _find_fqn(self, family: str, fqn: str, partial: bool = False) -> Target | None:
        """A definition by its full qualname (`a.b.Foo`, `a.b.Foo.bar`) in the repository."""
        parts = fqn.split(".")
        candidates: list[Target] = []
        seen: set[str] = set()
        # files named after a class of the path (Foo.java for a.b.Foo.bar)
        for segment in parts[1:]:
            if not segment[:1].isupper():
                continue
            for path in self._class_files(family, segment):
                if path in seen:
                    continue
                seen.add(path)
                other = self._unit(path)
                if other is not None and fqn in other.by_qual:
                    candidates.append((other, other.by_qual[fqn]))
        if not candidates:
            # the package's files: a Kotlin top-level function, a class in a file of
            # another name (C#, PHP); the package is the path less one or two segments
            for k in (len(parts) - 1, len(parts) - 2):
                if k < 1:
                    break
                group = self._named_package(family, ".".join(parts[:k]))
                candidates.extend(group.by_qual.get(fqn, ()))
                if candidates:
                    break
        found, _ = _unique(candidates, partial)
        return found

    def member(
        self, target: Target, name: str, inherit: bool = True, _seen: set | None = None
    ) -> tuple[Target | None, int]:
        """The member `name` of a class (its own, else inherited), and the candidate count."""
        unit, index = target
        qual = f"{unit.qual(index)}.{name}"
        i = unit.by_qual.get(qual)
        language = unit.language
        if i is not None and unit.defs[i][11] and language in ("c", "cpp"):
            # a declaration in a class body: prefer the definition (in a source file beside)
            found, _ = _unique([(unit, i), *self._package_group(unit).by_qual.get(qual, ())])
            return found or (unit, i), 1
        if i is not None:
            return (unit, i), 1
        if language in ("go", "rust", "cpp", "c", "csharp", "kotlin", "ruby"):
            # methods declared elsewhere in the package (Go, Rust impls, C++ out of line,
            # C# partial classes, Ruby reopened classes)
            found, count = _unique(self._package_group(unit).by_qual.get(qual, ()))
            if found is not None or count > 1:
                return found, count
        if not inherit:
            return None, 0
        seen = _seen if _seen is not None else set()
        key = (unit.path, index)
        if key in seen or len(seen) > MAX_BASE_DEPTH:
            return None, 0
        seen.add(key)
        for owner, base, _line in unit.facts.get("bases", ()):
            if owner != index:
                continue
            base_target, _via, _ext = self.resolve_class(unit, base, index)
            if base_target is None:
                continue
            found, count = self.member(base_target, name, True, seen)
            if found is not None or count > 1:
                return found, count
        return None, 0

    def _class_by_qual(self, unit: _Unit, qual: str) -> Target | None:
        i = unit.by_qual.get(qual)
        if i is not None and unit.kind(i) in CLASS_KINDS | {"type"}:
            return unit, i
        found, _ = _unique(
            t
            for t in self._package_group(unit).by_qual.get(qual, ())
            if t[0].kind(t[1]) in CLASS_KINDS | {"type"}
        )
        return found

    # ---------------------------------------------------------------- one file

    def resolve_file(self, path: str) -> FileResolution:
        self._deps = set()
        unit = self._unit(path)
        module_qual = posixpath.splitext(path)[0]
        module_id = symbol_id(self.repo, path, module_qual)
        if unit is None:
            return FileResolution(path, path, [], [], [], set(), [])
        facts = unit.facts
        defs = unit.defs
        # a definition named like the module (`main` in main.c) is the module symbol
        ids = [symbol_id(self.repo, path, row[2]) for row in defs]
        symbols = [
            SymbolRow(
                id=module_id,
                repo=self.repo,
                path=path,
                name=posixpath.basename(module_qual),
                qualname=module_qual,
                kind="module",
                start_line=1,
                end_line=max(facts.get("lines", 1), 1),
                signature="",
                doc="",
                exported=True,
                parent=None,
            )
        ]
        for i, row in enumerate(defs):
            if unit.canonical[i] != i or ids[i] == module_id:
                continue
            parent = ids[row[3]] if row[3] >= 0 else module_id
            symbols.append(
                SymbolRow(
                    id=ids[i],
                    repo=self.repo,
                    path=path,
                    name=row[1],
                    qualname=row[2],
                    kind=row[0],
                    start_line=row[4],
                    end_line=max(row[5], row[4]),
                    signature=row[6],
                    doc=row[7],
                    exported=bool(row[8]),
                    parent=parent,
                )
            )

        edges: dict[tuple[str, str, str], Edge] = {}
        unresolved: list[Unresolved] = []
        for call in facts.get("calls", ()):
            self._resolve_call(unit, call, ids, module_id, edges, unresolved)
        for owner, base, line in facts.get("bases", ()):
            target, via, external = self.resolve_class(unit, base, owner)
            if target is not None and target != (unit, owner):
                _add_edge(edges, "INHERITS", ids[owner], self._id(target), line, via)
            elif target is None:
                unresolved.append(Unresolved(ids[owner], base, line, external, "base"))
        imports = self._imports(unit)
        deps = self._deps - {path}
        return FileResolution(
            path=path,
            module=path,
            symbols=symbols,
            edges=sorted(edges.values(), key=lambda e: (e.type, e.src, e.dst)),
            unresolved=unresolved,
            deps=deps,
            imports=imports,
        )

    def _id(self, target: Target) -> str:
        unit, i = target
        return symbol_id(self.repo, unit.path, unit.qual(i))

    def _source(self, unit: _Unit, enclosing: int) -> int:
        """The innermost function or method holding a call (-1: the file level)."""
        i = enclosing
        while i >= 0 and unit.kind(i) not in CALLABLE:
            i = unit.defs[i][3]
        return i

    def _enclosing_classes(self, unit: _Unit, enclosing: int) -> list[Target]:
        """The classes around a call, innermost first (a Go/Rust/C++ method's owner type
        counts even when it is defined in another file)."""
        out: list[Target] = []
        i = enclosing
        owner_checked = False
        while i >= 0:
            row = unit.defs[i]
            if row[0] in CLASS_KINDS:
                out.append((unit, i))
            elif row[0] == "method" and not owner_checked:
                owner_checked = True
                parent = row[3]
                if parent < 0 or unit.kind(parent) not in CLASS_KINDS:
                    owner = self._class_by_qual(unit, row[2].rpartition(".")[0])
                    if owner is not None:
                        out.append(owner)
            i = row[3]
        return out

    def _resolve_call(self, unit, call, ids, module_id, edges, unresolved) -> None:
        name, recv, line, enclosing, kind, text = call
        language = unit.language
        family = FAMILY.get(language, language)
        source = self._source(unit, enclosing)
        src = ids[source] if source >= 0 else module_id
        written = text or name

        def bind(target: Target, via: str, confidence: float | None = None) -> None:
            _add_edge(edges, "CALLS", src, self._id(target), line, via, confidence)

        def construct(target: Target, via: str) -> None:
            bind(target, via)
            cls_unit, cls = target
            for ctor in _constructor_names(language, cls_unit.defs[cls][1]):
                found, _ = self.member(target, ctor, inherit=False)
                if found is not None:
                    bind(found, via)

        def miss(external: str = "") -> None:
            if recv is None and kind == "call" and name in BUILTINS.get(language, ()):
                return  # the language's own function, unless the repository defines one
            unresolved.append(Unresolved(src, written, line, external))

        classes = self._enclosing_classes(unit, enclosing)
        if kind == "new" and name in ("self", "static", "Self") and recv is None:
            if classes:
                construct(classes[0], "name")
            else:
                miss()
            return
        if kind == "new":
            target, via, external = self.resolve_class(
                unit, f"{recv}.{name}" if recv else name, enclosing
            )
            if target is not None and target[0].kind(target[1]) in CLASS_KINDS | {"type"}:
                construct(target, via)
            else:
                miss(external)
            return

        this = set(THIS.get(language, ()))
        if language == "go" and source >= 0 and unit.defs[source][12]:
            this.add(unit.defs[source][12])

        if recv is None or recv in this:
            if classes and (recv is not None or language in IMPLICIT_THIS):
                for cls in classes if recv is None else classes[:1]:
                    found, count = self.member(cls, name)
                    if found is not None:
                        bind(found, "name")
                        return
                    if count > 1:
                        miss()
                        return
                if recv is not None:
                    miss()
                    return
            if recv is not None:
                miss()
                return
            self._bare_call(unit, name, source, enclosing, bind, construct, miss)
            return

        if recv in SUPER.get(language, ()):
            for cls in classes[:1]:
                cls_unit, cls_index = cls
                for owner, base, _line in cls_unit.facts.get("bases", ()):
                    if owner != cls_index:
                        continue
                    base_target, _via, _ext = self.resolve_class(cls_unit, base, cls_index)
                    if base_target is None:
                        continue
                    found, _count = self.member(base_target, name)
                    if found is not None:
                        bind(found, "name")
                        return
            miss()
            return

        # Go: `pkg.F()` through an import
        if language == "go" and _IDENTIFIER.fullmatch(recv):
            imported = self._go_imports(unit).get(recv)
            if imported is not None:
                import_path, directory = imported
                if directory is None:
                    miss(import_path)
                    return
                group = self._go_group(directory)
                found, _ = _unique(
                    t for t in group.by_name.get(name, ()) if _go_exported_top(t, CALLABLE)
                )
                if found is not None:
                    bind(found, "import")
                else:
                    miss()
                return

        # `Type.m()` / `Type::m()` / `ns::f()`
        path = normalize_type(recv)
        head = path.split(".", 1)[0]
        scoped = text is not None and text.endswith(("::" + name, "\\" + name))
        if language != "go" and _TYPE_PATH.match(path):
            last = path.rpartition(".")[2]
            typeish = last[:1].isupper()
            if typeish or scoped:
                php_function = language == "php" and text.endswith("\\" + name)
                target, via, external = (None, "", "")
                if not php_function:
                    target, via, external = self.resolve_class(unit, path, enclosing)
                if target is not None:
                    if language == "ruby" and name == "new":
                        construct(target, via)
                        return
                    found, _count = self.member(target, name)
                    if found is not None:
                        bind(found, via)
                    else:
                        miss()
                    return
                if not typeish or php_function:
                    found = self._namespace_function(unit, path, name)
                    if found is not None:
                        bind(found, "import" if language == "rust" else "name")
                        return
                miss(external or self._external_of(unit, head) or self._crate_of(unit, head))
                return

        external = self._external_of(unit, normalize_type(recv).split(".", 1)[0])
        if external or (family == "jvm" and self._imported_name(unit, recv)):
            miss(external)
            return
        # any other receiver: the one method of that name in the package
        group = self._package_group(unit)
        found, _count = _unique(
            t for t in group.by_name.get(name, ()) if t[0].kind(t[1]) == "method"
        )
        if found is not None:
            bind(found, "name", WEAK)
        else:
            miss()

    def _bare_call(self, unit, name, source, enclosing, bind, construct, miss) -> None:
        language = unit.language
        family = FAMILY.get(language, language)
        imports = unit.facts.get("imports", ())
        # Java static imports, Kotlin function imports
        if family == "jvm":
            for path, alias, _line, flags in imports:
                local = alias or path.rpartition(".")[2]
                if local == name and (flags == "static" or language == "kotlin"):
                    found = self._find_fqn(family, path)
                    if found is not None:
                        if found[0].kind(found[1]) in CLASS_KINDS:
                            construct(found, "import")
                        else:
                            bind(found, "import")
                        return
                elif flags == "static" and path.endswith(".*"):
                    cls = self._find_fqn(family, path[:-2])
                    if cls is not None:
                        found, _ = self.member(cls, name)
                        if found is not None:
                            bind(found, "import")
                            return
        if language == "rust":
            segments = self._rust_expand(unit, [name])
            if len(segments) > 1:
                found = self._rust_item(unit, segments, CALLABLE | CLASS_KINDS)
                if found is not None:
                    if found[0].kind(found[1]) in CLASS_KINDS:
                        construct(found, "import")
                    else:
                        bind(found, "import")
                    return
                crate = segments[0]
                if crate not in RUST_LOCAL:
                    miss(crate)
                    return
        kinds = {"function"} | (CLASS_KINDS if language in CONSTRUCTOR_CALLS else set())
        ancestors = set()
        i = enclosing
        while i >= 0:
            ancestors.add(i)
            i = unit.defs[i][3]

        def free(candidate: _Unit, i: int, same_file: bool) -> bool:
            row = candidate.defs[i]
            if row[0] not in kinds or row[10]:
                return False
            if same_file:
                return row[3] < 0 or row[3] in ancestors
            # a C `static` function is private to its file
            return row[3] < 0 and (family != "c" or bool(row[8]))

        local = [i for i in unit.by_name.get(name, ()) if free(unit, i, True)]
        local = self._visible(unit, local, enclosing)
        target: Target | None = None
        if len(local) == 1:
            target = (unit, local[0])
        elif len(local) > 1:
            miss()
            return
        else:
            group = self._package_group(unit)
            target, count = _unique(
                t for t in group.by_name.get(name, ()) if t[0] is not unit and free(*t, False)
            )
            if target is None and count > 1:
                miss()
                return
            if target is None and family == "c":
                target = self._via_includes(unit, name, free)
        if target is None and language in CONSTRUCTOR_CALLS and name[:1].isupper():
            cls, via, external = self.resolve_class(unit, name, enclosing)
            if cls is not None:
                construct(cls, via)
                return
            miss(external)
            return
        if target is None:
            miss(self._external_of(unit, name))
            return
        if target[0].kind(target[1]) in CLASS_KINDS:
            construct(target, "import" if family == "jvm" else "name")
        else:
            bind(target, "name")

    def _via_includes(self, unit: _Unit, name: str, free) -> Target | None:
        """C/C++: a function of the directory of a header the file includes."""
        own = _dir(unit.path)
        candidates: list[Target] = []
        dirs: set[str] = set()
        for path, _alias, _line, flags in unit.facts.get("imports", ()):
            if flags != "local":
                continue
            header = self._find_include(unit.path, path)
            if header is not None and _dir(header) != own:
                dirs.add(_dir(header))
        for directory in sorted(dirs):
            group = self._dir_group(directory, "c")
            candidates.extend(t for t in group.by_name.get(name, ()) if free(*t, False))
        found, _ = _unique(candidates)
        return found

    def _namespace_function(self, unit: _Unit, path: str, name: str) -> Target | None:
        """C++ `ns::f()`, Rust `module::f()`, PHP `ns\\f()`: a function by qualified path."""
        qual = f"{path}.{name}"
        i = unit.by_qual.get(qual)
        if i is not None and unit.kind(i) == "function":
            return unit, i
        group = self._package_group(unit)
        found, _ = _unique(t for t in group.by_qual.get(qual, ()) if t[0].kind(t[1]) == "function")
        if found is not None:
            return found
        if unit.language == "rust":
            return self._rust_item(unit, [*path.split("."), name], CALLABLE)
        if unit.language == "php":
            # `ns\f()` is relative to the file's namespace, `\ns\f()` absolute
            for fqn in (f"{unit.package}.{qual}" if unit.package else qual, qual):
                found = self._find_fqn("php", fqn)
                if found is not None and found[0].kind(found[1]) == "function":
                    return found
        return None

    # ---------------------------------------------------------------- Rust modules

    def _rust_item(
        self, unit: _Unit, segments: list[str], kinds: frozenset[str] | set[str]
    ) -> Target | None:
        """A Rust path (`crate::a::b::f`, `self::m::T`, `super::g`, `util::h`, a `use`d
        name first) → the item, through the module files (`a.rs`, `a/mod.rs`)."""
        segments = self._rust_expand(unit, segments)
        if len(segments) < 2:
            return None
        start = self._rust_start(unit, segments[0])
        if start is None:
            return None
        file, subdir, i = start
        while i < len(segments) - 1:
            for candidate in (f"{subdir}/{segments[i]}.rs", f"{subdir}/{segments[i]}/mod.rs"):
                candidate = candidate.lstrip("/")
                if candidate in self.path_set:
                    file, subdir = candidate, f"{subdir}/{segments[i]}".lstrip("/")
                    break
            else:
                break
            i += 1
        other = self._unit(file)
        if other is None:
            return None
        index = other.by_qual.get(".".join(segments[i:]))
        if index is None or other.kind(index) not in kinds:
            return None
        return other, index

    def _rust_expand(self, unit: _Unit, segments: list[str]) -> list[str]:
        """A path whose first segment is a `use`d name, written out in full."""
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            used = path.split("::")
            if used[-1] != "*" and (alias or used[-1]) == segments[0]:
                return [*used, *segments[1:]]
        return segments

    def _rust_start(self, unit: _Unit, head: str) -> tuple[str, str, int] | None:
        """(module file, its submodule directory, segments consumed) a path starts from."""
        file = unit.path
        subdir = _rust_subdir(file)
        if head == "self":
            return file, subdir, 1
        if head == "super":
            parent = _dir(subdir)
            for candidate in (
                f"{parent}.rs",
                f"{parent}/mod.rs",
                f"{parent}/lib.rs",
                f"{parent}/main.rs",
            ):
                candidate = candidate.lstrip("/")
                if candidate in self.path_set:
                    return candidate, parent, 1
            return None
        if head == "crate":
            root = self._rust_crate_root(_dir(file))
            if root is None:
                return None
            return root, _dir(root), 1
        return file, subdir, 0

    def _rust_crate_root(self, directory: str) -> str | None:
        """lib.rs or main.rs of the crate a directory belongs to (Cargo.toml's src/)."""
        if directory in self._crate_roots:
            return self._crate_roots[directory]
        found = None
        probe = directory
        while True:
            manifest = posixpath.join(probe, "Cargo.toml") if probe else "Cargo.toml"
            if self.read_text(manifest) is not None:
                src = posixpath.join(probe, "src") if probe else "src"
                for name in ("lib.rs", "main.rs"):
                    if f"{src}/{name}" in self.path_set:
                        found = f"{src}/{name}"
                        break
                break
            if not probe:
                break
            probe = _dir(probe)
        if found is None:  # no manifest: the nearest lib.rs / main.rs above
            probe = directory
            while found is None:
                for name in ("lib.rs", "main.rs"):
                    candidate = posixpath.join(probe, name) if probe else name
                    if candidate in self.path_set:
                        found = candidate
                        break
                if not probe:
                    break
                probe = _dir(probe)
        self._crate_roots[directory] = found
        return found

    def _imported_name(self, unit: _Unit, name: str) -> bool:
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            if (alias or path.rpartition(".")[2]) == name:
                return True
        return False

    def _external_of(self, unit: _Unit, head: str) -> str:
        """The package an imported name comes from, when it is not in the repository."""
        language = unit.language
        if language == "go":
            imported = self._go_imports(unit).get(head)
            return imported[0] if imported and imported[1] is None else ""
        for path, alias, _line, flags in unit.facts.get("imports", ()):
            if language == "rust":
                segments = path.split("::")
                local = alias or segments[-1]
                if local == head and segments[0] not in RUST_LOCAL:
                    return segments[0]
                continue
            if language in ("c", "cpp", "ruby"):
                continue
            local = alias or path.rpartition(".")[2]
            if (
                local == head
                and flags != "static"
                and self._find_fqn(FAMILY.get(language, language), path) is None
            ):
                return path.rpartition(".")[0] or path
        if language == "cpp" and head == "std":
            return "std"
        return ""

    def _crate_of(self, unit: _Unit, head: str) -> str:
        """Rust: the crate a path `head::…` names, unless a module of this crate has that
        name."""
        if unit.language == "rust" and head[:1].islower() and head not in RUST_LOCAL:
            own = _dir(unit.path)
            local = (
                posixpath.join(own, head + ".rs"),
                posixpath.join(own, head, "mod.rs"),
                posixpath.join(own, _stem(unit.path), head + ".rs"),
            )
            if not any(p in self.path_set for p in local) and not any(
                q.startswith(head + ".") for q in unit.by_qual
            ):
                return head
        return ""

    def _find_include(self, source: str, header: str) -> str | None:
        for candidate in (posixpath.normpath(posixpath.join(_dir(source), header)), header):
            if candidate in self.path_set:
                return candidate
        matches = [
            p
            for p in self.by_basename.get(posixpath.basename(header), ())
            if p.endswith("/" + header)
        ]
        return matches[0] if len(matches) == 1 else None

    def _imports(self, unit: _Unit) -> list[tuple[str, str, list[str]]]:
        language = unit.language
        family = FAMILY.get(language, language)
        found: dict[tuple[str, str], list[str]] = {}

        def add(kind: str, target: str, names: list[str]) -> None:
            entry = found.setdefault((kind, target), [])
            for name in names:
                if name not in entry:
                    entry.append(name)

        for path, alias, _line, flags in unit.facts.get("imports", ()):
            names = [alias] if alias else []
            if family == "jvm" or language == "php":
                fqn = path[:-2] if path.endswith(".*") else path
                target = self._find_fqn(family, fqn) if not path.endswith(".*") else None
                if target is not None:
                    add("file", target[0].path, [alias or path.rpartition(".")[2]])
                else:
                    package, _, last = path.rpartition(".")
                    add("package", package or path, [alias or last] if package else names)
            elif language in ("c", "cpp"):
                header = self._find_include(unit.path, path) if flags == "local" else None
                if header is not None:
                    add("file", header, [])
                else:
                    add("package", path, [])
            elif language == "ruby":
                target = None
                if flags == "relative":
                    base = posixpath.normpath(posixpath.join(_dir(unit.path), path))
                    target = base if base in self.path_set else base + ".rb"
                else:
                    for candidate in (path + ".rb", f"lib/{path}.rb"):
                        if candidate in self.path_set:
                            target = candidate
                            break
                if target in self.path_set:
                    add("file", target, [])
                else:
                    add("package", path, [])
            else:
                add("package", path, names)
        return [(kind, target, names) for (kind, target), names in found.items()]


def _rust_subdir(path: str) -> str:
    """The directory a Rust module file's submodules live in."""
    if posixpath.basename(path) in ("lib.rs", "main.rs", "mod.rs"):
        return _dir(path)
    return posixpath.splitext(path)[0]


def _family_of(path: str) -> str:
    language = SUFFIXES.get(posixpath.splitext(path)[1].lower(), "")
    return FAMILY.get(language, language)


def _ends_with(qual: str, written: str) -> bool:
    return qual == written or qual.endswith("." + written)


def _go_exported_top(target: Target, kinds: frozenset[str] | set[str]) -> bool:
    unit, i = target
    row = unit.defs[i]
    return row[0] in kinds and not row[10] and row[3] < 0 and bool(row[8])


def _go_default_name(path: str) -> str:
    segments = [s for s in path.split("/") if s]
    name = segments[-1] if segments else path
    if re.fullmatch(r"v\d+", name) and len(segments) > 1:
        name = segments[-2]
    name = re.sub(r"\.v\d+$", "", name)
    name = name.removeprefix("go-").removesuffix("-go")
    return name.replace("-", "_").replace(".", "_")


def _add_edge(
    edges: dict,
    etype: str,
    src: str,
    dst: str,
    line: int,
    via: str,
    confidence: float | None = None,
) -> None:
    confidence = CONFIDENCE.get(via, 0.5) if confidence is None else confidence
    key = (etype, src, dst)
    edge = edges.get(key)
    if edge is None:
        edges[key] = Edge(etype, src, dst, [line], 1, via, confidence)
        return
    edge.count += 1
    if line not in edge.lines:
        edge.lines.append(line)
        edge.lines.sort()
    if confidence > edge.confidence:
        edge.via, edge.confidence = via, confidence
