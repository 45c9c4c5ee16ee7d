"""Resolution of the by-name tier (Go, Java, Kotlin, C#, Rust, Ruby, PHP, C, C++).

The facts of `cartograph.parsing.tags` become symbols, CALLS and INHERITS edges, unresolved
calls and import links, by names — never by types. This engine holds the rules every such
language shares; what differs is asked of the language's rules module (`resolve/go.py`,
`jvm.py`, `csharp.py`, `rust.py`, `ruby.py`, `php.py`, `cfamily.py`: a `Rules` subclass, see
there). The rules, in the order they are tried for one call site (a rule that finds two or
more candidates stops the search: nothing is guessed):

- `new X()`, `X{}`, `X.new`, Kotlin/C++/Rust `X(...)`: the class X and its constructors —
  via "import" (0.9) when X was found through an import (or, for Java and Kotlin, in the
  same package), else "name" (0.5).
- Go `pkg.F()` where `pkg` is an import of a directory of this repository (through the
  nearest go.mod): the exported top-level F of that package, via "import". Rust paths
  (`crate::a::f`, `super::f`, `m::f`, `use`d names) follow the module files (`a.rs`,
  `a/mod.rs`) from the crate root (Cargo.toml's src/), via "import".
- `Type.m()`, `Type::m()` where Type is a class found as for `new`: its member m (or an
  inherited one), with the class's via. C++ `ns::f()` and PHP `ns\\f()`: by qualified name.
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
read (cached lookups replay theirs, through the core's memo), so a file is re-resolved when
one of them changes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from importlib import import_module

from cartograph import languages
from cartograph.model import SymbolRow, Unresolved, located, symbol_id
from cartograph.parsing.facts import (
    TAGS_DEF_DECL,
    TAGS_DEF_DOC,
    TAGS_DEF_END,
    TAGS_DEF_EXPORTED,
    TAGS_DEF_KIND,
    TAGS_DEF_MEMBER,
    TAGS_DEF_NAME,
    TAGS_DEF_NS,
    TAGS_DEF_PARENT,
    TAGS_DEF_QUALNAME,
    TAGS_DEF_SIGNATURE,
    TAGS_DEF_START,
)
from cartograph.parsing.tags import CLASS_KINDS, normalize_type
from cartograph.resolve.core import (
    NAME_CONFIDENCE,
    PACKAGE_DEP,
    EdgeSet,
    FileResolution,
    ForeignCode,
    Memo,
    module_symbol,
)
from cartograph.resolve.family import Sources

WEAK = 0.3  # a method name defined once in the package, called on an unknown receiver
MAX_BASE_DEPTH = 6
CALLABLE = frozenset({"function", "method"})
TYPE_KINDS = CLASS_KINDS | {"type"}
_TYPE_PATH = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|\\)[A-Za-z_][\w]*)*$")


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


class Unit:
    """One file's facts with the indexes the resolver needs, and its language's rules."""

    __slots__ = ("by_name", "by_qual", "canonical", "defs", "facts", "package", "path", "rules")

    def __init__(self, path: str, facts: dict, rules: Rules) -> None:
        self.path = path
        self.facts = facts
        self.rules = rules
        self.package = facts.get("package", "")
        self.defs: list[list] = facts.get("defs", [])
        # a qualname defined twice in a file is one symbol: its first definition with a body
        self.by_qual: dict[str, int] = {}
        for i, row in enumerate(self.defs):
            qual = row[TAGS_DEF_QUALNAME]
            known = self.by_qual.get(qual)
            if known is None or (self.defs[known][TAGS_DEF_DECL] and not row[TAGS_DEF_DECL]):
                self.by_qual[qual] = i
        self.canonical = [self.by_qual[row[TAGS_DEF_QUALNAME]] for row in self.defs]
        self.by_name: dict[str, list[int]] = {}
        for i in self.by_qual.values():
            self.by_name.setdefault(self.defs[i][TAGS_DEF_NAME], []).append(i)

    def qual(self, i: int) -> str:
        return self.defs[i][TAGS_DEF_QUALNAME]

    def kind(self, i: int) -> str:
        return self.defs[i][TAGS_DEF_KIND]

    def parent(self, i: int) -> int:
        return self.defs[i][TAGS_DEF_PARENT]


Target = tuple[Unit, int]
# what naming a class finds: (the class or None, via, the external package it comes from)
ClassHit = tuple[Target | None, str, str]
NOT_FOUND: ClassHit = (None, "", "")


class Group:
    """Definitions of several files (a directory or a package), by name and by qualname."""

    __slots__ = ("by_name", "by_qual", "paths", "units")

    def __init__(self, units: list[Unit]) -> None:
        self.units = units
        self.paths = [u.path for u in units]
        self.by_name: dict[str, list[Target]] = {}
        self.by_qual: dict[str, list[Target]] = {}
        for unit in units:
            for i in set(unit.canonical):
                row = unit.defs[i]
                self.by_name.setdefault(row[TAGS_DEF_NAME], []).append((unit, i))
                self.by_qual.setdefault(row[TAGS_DEF_QUALNAME], []).append((unit, i))


def unique(candidates: Iterable[Target], partial: bool = False) -> tuple[Target | None, int]:
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
        known_decl = known[0].defs[known[1]][TAGS_DEF_DECL]
        decl = unit.defs[i][TAGS_DEF_DECL]
        if known_decl and not decl:
            by_qual[qual] = (unit, i)
        elif not known_decl and not decl and not (partial and unit.kind(i) in CLASS_KINDS):
            count += 1  # two bodies: build variants or a real clash
    if count != 1 or len(by_qual) != 1:
        return None, max(count, len(by_qual))
    return next(iter(by_qual.values())), 1


def folder(path: str) -> str:
    return posixpath.dirname(path)


def stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def ends_with(qual: str, written: str) -> bool:
    return qual == written or qual.endswith("." + written)


def group_of_path(path: str) -> str:
    """The rules module a file's language uses: files of one share packages."""
    language = languages.EXTENSIONS.get(posixpath.splitext(path)[1].lower(), "")
    return languages.BY_NAME[language].rules if language else ""


class Site:
    """One call site being resolved: what it binds to, or why it stays unresolved."""

    __slots__ = ("builtin", "edges", "line", "rules", "src", "unresolved", "written")

    def __init__(
        self,
        rules: Rules,
        src: str,
        line: int,
        edges: EdgeSet,
        unresolved: list,
        written: str,
        builtin: bool,
    ) -> None:
        self.rules = rules
        self.src = src
        self.line = line
        self.edges = edges
        self.unresolved = unresolved
        self.written = written
        self.builtin = builtin  # a bare call of one of the language's own functions

    def bind(self, target: Target, via: str, confidence: float | None = None) -> None:
        unit, i = target
        dst = symbol_id(*located(self.rules.program.repo, unit.path), unit.qual(i))
        self.edges.add("CALLS", self.src, dst, self.line, via, confidence)

    def construct(self, target: Target, via: str) -> None:
        """A call of the class and of its constructors (named by the calling language)."""
        self.bind(target, via)
        cls_unit, cls = target
        for ctor in self.rules.constructor_names(cls_unit.defs[cls][TAGS_DEF_NAME]):
            found, _ = self.rules.program.member(target, ctor, inherit=False)
            if found is not None:
                self.bind(found, via)

    def call(self, target: Target, via: str) -> None:
        """A call of what a name denotes: a class is constructed, anything else bound."""
        if target[0].kind(target[1]) in CLASS_KINDS:
            self.construct(target, via)
        else:
            self.bind(target, via)

    def miss(self, external: str = "") -> None:
        if not self.builtin:  # the language's own function, unless the repository defines one
            why = "external" if external else "unknown-value"
            self.unresolved.append(
                Unresolved(self.src, self.written, self.line, external, reason=why)
            )


class Rules:
    """What one language of the by-name tier decides; the engine asks, in the order of the
    module docstring. The defaults are those of a language with no classes, packages or
    imports of its own; each rules module overrides what its language has."""

    # receivers that mean the enclosing class's instance (`this`, `self`)
    this_names: frozenset[str] = frozenset()
    super_names: frozenset[str] = frozenset()  # receivers that mean its base (`super`)
    builtins: frozenset[str] = frozenset()  # the language's own functions (never unresolved)
    implicit_this = False  # a bare call may be a member of the enclosing class
    constructor_calls = False  # `Foo(...)` builds a Foo
    type_calls = True  # `Type.m()` / `ns::f()` name a class or a namespace
    members_elsewhere = False  # a class's methods may be defined in other files of the package
    prefers_definition = False  # a member declared in a class body is defined elsewhere (C++)
    file_private_unexported = False  # an unexported top-level function is private to its file
    partial_classes = False  # a class may be declared in several files (C# partial)
    same_package_via = "name"  # the via of a class found in the same file or package
    namespace_function_via = "name"  # the via of a function found by its qualified path
    constructor_method = ""  # the method that constructs an instance (Ruby `X.new`)

    def __init__(self, program: GenericProgram, language: str) -> None:
        self.program = program
        self.language = language
        registered = languages.BY_NAME.get(language)
        self.group = registered.rules if registered is not None else ""

    # ---------------------------------------------------------------- classes
    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        """The methods a construction of a class calls, by the class's name."""
        return ()

    def package_group(self, unit: Unit) -> Group:
        """The files of `unit`'s package (by default: its directory)."""
        return self.program.dir_group(folder(unit.path), self.group)

    def class_files(self, name: str) -> list[str]:
        """Files named after a class by the language's convention."""
        return []

    def qualified_class(self, unit: Unit, qualifier: str, name: str) -> ClassHit | None:
        """A class written with a qualifier the language resolves before anything else
        (Go `pkg.T`); None: no opinion."""
        return None

    def imported_class(self, unit: Unit, written: str) -> ClassHit | None:
        """A class named through an import, when the same file has none of that name."""
        return None

    def same_package_classes(
        self, unit: Unit, written: str, context: int, candidates: list[Target]
    ) -> list[Target]:
        """The classes of the same package (other files) that `written` may name."""
        return candidates

    def fallback_class(self, unit: Unit, written: str) -> ClassHit | None:
        """A class found neither in the file, through an import, nor in the package."""
        return None

    # ---------------------------------------------------------------- calls
    def receiver_names(self, unit: Unit, source: int) -> frozenset[str] | set[str]:
        """Receivers that mean the enclosing class's instance in the function `source`."""
        return self.this_names

    def imported_call(self, unit: Unit, receiver: str, name: str, site: Site) -> bool:
        """`receiver.name()` through an import of the language's own kind (Go `pkg.F()`);
        True when it is settled (bound or left unresolved)."""
        return False

    def namespace_call(self, text: str | None, name: str) -> bool:
        """The callee as written names a namespace's function, never a class (PHP `ns\\f`)."""
        return False

    def imported_bare_call(self, unit: Unit, name: str, site: Site) -> bool:
        """A bare `name()` bound by an import (Java static imports, Rust `use`); True when
        it is settled."""
        return False

    def beyond_package(self, unit: Unit, name: str, free: Callable[[Unit, int, bool], bool]):
        """A bare call found neither in the file nor in its package: elsewhere (C: beside
        the headers it includes), or None."""
        return None

    def namespace_function(self, unit: Unit, path: str, name: str) -> Target | None:
        """`path::name()` not found in the package by its qualname."""
        return None

    def opaque_receiver(self, unit: Unit, receiver: str) -> bool:
        """A receiver whose methods must not be guessed by name (an imported class)."""
        return False

    # ---------------------------------------------------------------- outside the repository
    def external_of(self, unit: Unit, head: str) -> str:
        """The package an imported name comes from, when it is not in the repository."""
        return ""

    def external_module(self, unit: Unit, head: str) -> str:
        """The external module a qualified path `head::…` names (Rust crates)."""
        return ""

    def http_rows(
        self, unit: Unit, target_id: Callable[[Target], str], source_id: Callable[[int], str]
    ) -> list[list]:
        """The file's HTTP routes, routers, mounts and requests (`cartograph.resolve.http`
        rows); `target_id` names a definition, `source_id` the symbol code at a definition
        runs in. None by default."""
        return []

    def import_links(self, unit: Unit) -> list[tuple[str, str, list[str]]]:
        """IMPORTS targets: ("file", path, names) in the repository, ("package", name,
        names) outside. By default every import is a package."""
        links = ImportLinks()
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            links.add("package", path, [alias] if alias else [])
        return links.items()


class ImportLinks:
    """IMPORTS targets of one file, each once, with the names imported through it."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], list[str]] = {}

    def add(self, kind: str, target: str, names: list[str]) -> None:
        entry = self.found.setdefault((kind, target), [])
        for name in names:
            if name not in entry:
                entry.append(name)

    def items(self) -> list[tuple[str, str, list[str]]]:
        return [(kind, target, names) for (kind, target), names in self.found.items()]


class GenericProgram:
    """Resolves the files of the by-name tier languages of one repository.

    paths: every file of a by-name tier language in the repository ('/'-separated,
    relative). load(path): the facts `cartograph.parsing.tags.extract` made of it, None when
    unreadable; called lazily, once per path. read_text(path): a repository file's text
    (go.mod, Cargo.toml), None when missing.
    """

    def __init__(
        self,
        repo: str,
        paths: Iterable[str],
        load: Callable[[str], dict | None],
        read_text: Callable[[str], str | None],
        foreign: ForeignCode | None = None,
    ) -> None:
        self.repo = repo
        self.foreign = foreign  # other repositories' packages (foreign paths start with "/")
        self.paths = sorted(set(paths))
        self.path_set = set(self.paths)
        self.load = load
        self.read_text = read_text
        self.by_dir: dict[str, list[str]] = {}
        self.by_basename: dict[str, list[str]] = {}
        for path in self.paths:
            self.by_dir.setdefault(folder(path), []).append(path)
            self.by_basename.setdefault(posixpath.basename(path), []).append(path)
        self._suffix_dirs: dict[str, list[str]] | None = None
        self._units: dict[str, Unit | None] = {}
        self._rules: dict[str, Rules] = {}
        self.memo = Memo()

    @classmethod
    def for_sources(cls, sources: Sources) -> GenericProgram:
        return cls(
            sources.repo,
            sources.paths("generic"),
            sources.facts,
            sources.read_text,
            sources.foreign,
        )

    def loaded(self) -> int:
        return len(self._units)

    def forget(self) -> None:
        """Drop the loaded files and every computation (between two files); the languages'
        rules keep what they read of the build files."""
        self._units = {}
        self.memo = Memo()

    # ---------------------------------------------------------------- loading and groups

    def rules(self, language: str) -> Rules:
        """The rules of a language (one instance per run: they keep their own caches)."""
        found = self._rules.get(language)
        if found is None:
            module = languages.rules_module(language)
            rules_class = import_module(module).RULES[language] if module else Rules
            found = self._rules[language] = rules_class(self, language)
        return found

    def unit(self, path: str) -> Unit | None:
        """A file's facts (loaded once); reading them makes the file a dependency."""
        known = path in self.path_set or (path.startswith("/") and self.foreign is not None)
        if path not in self._units:
            facts = self.load(path) if known else None
            if facts:
                language = facts.get("dialect") or facts.get("language") or ""
                self._units[path] = Unit(path, facts, self.rules(language))
            else:
                self._units[path] = None
        if known:
            self.memo.consulted.add(path)
        return self._units[path]

    def foreign_package(self, package: str) -> list[str]:
        """The files (foreign paths) of a named package (Java, Kotlin) another repository
        provides; the package's names are recorded as looked up outside, found or not."""
        if self.foreign is None:
            return []
        parts = package.split(".")
        for k in range(2, len(parts) + 1):
            self.memo.consulted.add(PACKAGE_DEP + ".".join(parts[:k]))
        return self.foreign.jvm_package(package)

    def files_in(self, directory: str) -> list[str]:
        """The files directly in a folder, of this repository or (a foreign folder) another's."""
        if directory.startswith("/"):
            return self.foreign.files_in(directory) if self.foreign is not None else []
        return self.by_dir.get(directory, [])

    def group(
        self, key: tuple, paths: Callable[[], Iterable[str]], keep: Callable[[Unit], bool]
    ) -> Group:
        """The definitions of some files, computed once; each file read is a dependency."""

        def compute() -> Group:
            units = [u for u in (self.unit(p) for p in paths()) if u is not None and keep(u)]
            return Group(units)

        return self.memo.cached(("group", *key), compute, None)

    def dir_group(self, directory: str, group: str) -> Group:
        """The files of a directory whose languages share a rules module."""
        return self.group(
            ("dir", directory, group),
            lambda: [p for p in self.by_dir.get(directory, ()) if group_of_path(p) == group],
            lambda u: True,
        )

    def dirs_ending(self, key: str) -> list[str]:
        """Directories whose path ends with `key` (lower case, '/'-separated)."""
        if self._suffix_dirs is None:
            index: dict[str, list[str]] = {}
            for directory in self.by_dir:
                segments = [s.lower() for s in directory.split("/") if s]
                for k in range(1, min(len(segments), 8) + 1):
                    index.setdefault("/".join(segments[-k:]), []).append(directory)
            self._suffix_dirs = index
        return self._suffix_dirs.get(key, [])

    # ---------------------------------------------------------------- classes

    def _visible(self, unit: Unit, candidates: list[int], context: int) -> list[int]:
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

    def resolve_class(self, unit: Unit, text: str, context: int = -1) -> ClassHit:
        """(class, via, external package) for a class name as written in `unit`."""
        rules = unit.rules
        written = normalize_type(text)
        if not written:
            return NOT_FOUND
        qualifier, _, name = written.rpartition(".")
        if qualifier:
            hit = rules.qualified_class(unit, qualifier, name)
            if hit is not None:
                return hit

        # the same file: a class of that name (or path), the lexically closest
        local = [
            i
            for i in unit.by_name.get(name, ())
            if unit.kind(i) in TYPE_KINDS and (not qualifier or ends_with(unit.qual(i), written))
        ]
        local = self._visible(unit, local, context)
        if len(local) == 1:
            return (unit, local[0]), rules.same_package_via, ""
        if len(local) > 1:
            return NOT_FOUND

        hit = rules.imported_class(unit, written)
        if hit is not None:
            return hit

        # the same package
        found, count = self._same_package_class(unit, written, context)
        if found is not None:
            return found, rules.same_package_via, ""
        if count > 1:
            return NOT_FOUND

        hit = rules.fallback_class(unit, written)
        return hit if hit is not None else NOT_FOUND

    def _same_package_class(
        self, unit: Unit, written: str, context: int
    ) -> tuple[Target | None, int]:
        rules = unit.rules
        name = written.rpartition(".")[2]
        group = rules.package_group(unit)
        candidates = [
            t
            for t in group.by_name.get(name, ())
            if t[0] is not unit
            and t[0].kind(t[1]) in TYPE_KINDS
            and ends_with(t[0].qual(t[1]), written)
        ]
        candidates = rules.same_package_classes(unit, written, context, candidates)
        return unique(candidates, rules.partial_classes)

    def member(
        self, target: Target, name: str, inherit: bool = True, _seen: set | None = None
    ) -> tuple[Target | None, int]:
        """The member `name` of a class (its own, else inherited), and the candidate count."""
        unit, index = target
        rules = unit.rules
        qual = f"{unit.qual(index)}.{name}"
        i = unit.by_qual.get(qual)
        if i is not None and unit.defs[i][TAGS_DEF_DECL] and rules.prefers_definition:
            # a declaration in a class body: prefer the definition (in a source file beside)
            found, _ = unique([(unit, i), *rules.package_group(unit).by_qual.get(qual, ())])
            return found or (unit, i), 1
        if i is not None:
            return (unit, i), 1
        if rules.members_elsewhere:
            # methods declared elsewhere in the package (Go, Rust impls, C++ out of line,
            # C# partial classes, Ruby reopened classes)
            found, count = unique(rules.package_group(unit).by_qual.get(qual, ()))
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

    def class_by_qual(self, unit: Unit, qual: str) -> Target | None:
        i = unit.by_qual.get(qual)
        if i is not None and unit.kind(i) in TYPE_KINDS:
            return unit, i
        found, _ = unique(
            t
            for t in unit.rules.package_group(unit).by_qual.get(qual, ())
            if t[0].kind(t[1]) in TYPE_KINDS
        )
        return found

    # ---------------------------------------------------------------- one file

    def resolve_file(self, path: str) -> FileResolution:
        with self.memo.recording() as recorded:
            unit = self.unit(path)
            if unit is None:
                return FileResolution(path, path, [], [], [], set(), [])
            symbols, edges, unresolved = self._resolve(unit)
            imports = unit.rules.import_links(unit)
            module_id = symbols[0].id

            def source_id(enclosing: int) -> str:
                source = self._source(unit, enclosing)
                return self._id((unit, source)) if source >= 0 else module_id

            http = unit.rules.http_rows(unit, self._id, source_id)
        resolution = FileResolution(
            path=path,
            module=path,
            symbols=symbols,
            edges=sorted(edges.edges(), key=lambda e: (e.type, e.src, e.dst)),
            unresolved=unresolved,
            deps=recorded.deps - {path},
            imports=imports,
        )
        resolution.http = http
        return resolution

    def _resolve(self, unit: Unit) -> tuple[list[SymbolRow], EdgeSet, list[Unresolved]]:
        path, facts, defs = unit.path, unit.facts, unit.defs
        symbols = [module_symbol(self.repo, path, facts.get("lines", 1))]
        module_id = symbols[0].id
        # a definition named like the module (`main` in main.c) is the module symbol
        ids = [symbol_id(self.repo, path, row[TAGS_DEF_QUALNAME]) for row in defs]
        for i, row in enumerate(defs):
            if unit.canonical[i] != i or ids[i] == module_id:
                continue
            parent = row[TAGS_DEF_PARENT]
            start = row[TAGS_DEF_START]
            symbols.append(
                SymbolRow(
                    id=ids[i],
                    repo=self.repo,
                    path=path,
                    name=row[TAGS_DEF_NAME],
                    qualname=row[TAGS_DEF_QUALNAME],
                    kind=row[TAGS_DEF_KIND],
                    start_line=start,
                    end_line=max(row[TAGS_DEF_END], start),
                    signature=row[TAGS_DEF_SIGNATURE],
                    doc=row[TAGS_DEF_DOC],
                    exported=bool(row[TAGS_DEF_EXPORTED]),
                    parent=ids[parent] if parent >= 0 else module_id,
                )
            )

        edges = EdgeSet(NAME_CONFIDENCE, sorted_lines=True)
        unresolved: list[Unresolved] = []
        for call in facts.get("calls", ()):
            self._resolve_call(unit, call, ids, module_id, edges, unresolved)
        orders: dict[int, int] = {}
        for owner, base, line in facts.get("bases", ()):
            order = orders[owner] = orders.get(owner, 0) + 1  # its place among the class's bases
            target, via, external = self.resolve_class(unit, base, owner)
            if target is not None and target != (unit, owner):
                edges.add("INHERITS", ids[owner], self._id(target), line, via, order=order)
            elif target is None:
                why = "external" if external else "unknown-value"
                unresolved.append(Unresolved(ids[owner], base, line, external, "base", why))
        return symbols, edges, unresolved

    def _id(self, target: Target) -> str:
        unit, i = target
        return symbol_id(*located(self.repo, unit.path), unit.qual(i))

    def _source(self, unit: Unit, enclosing: int) -> int:
        """The innermost function or method holding a call (-1: the file level)."""
        i = enclosing
        while i >= 0 and unit.kind(i) not in CALLABLE:
            i = unit.parent(i)
        return i

    def _enclosing_classes(self, unit: Unit, enclosing: int) -> list[Target]:
        """The classes around a call, innermost first (a Go/Rust/C++ method's owner type
        counts even when it is defined in another file)."""
        out: list[Target] = []
        i = enclosing
        owner_checked = False
        while i >= 0:
            row = unit.defs[i]
            kind = row[TAGS_DEF_KIND]
            if kind in CLASS_KINDS:
                out.append((unit, i))
            elif kind == "method" and not owner_checked:
                owner_checked = True
                parent = row[TAGS_DEF_PARENT]
                if parent < 0 or unit.kind(parent) not in CLASS_KINDS:
                    owner = self.class_by_qual(unit, row[TAGS_DEF_QUALNAME].rpartition(".")[0])
                    if owner is not None:
                        out.append(owner)
            i = row[TAGS_DEF_PARENT]
        return out

    def _resolve_call(self, unit, call, ids, module_id, edges, unresolved) -> None:
        name, recv, line, enclosing, kind, text = call
        rules = unit.rules
        source = self._source(unit, enclosing)
        src = ids[source] if source >= 0 else module_id
        builtin = recv is None and kind == "call" and name in rules.builtins
        site = Site(rules, src, line, edges, unresolved, text or name, builtin)

        classes = self._enclosing_classes(unit, enclosing)
        if kind == "new" and name in ("self", "static", "Self") and recv is None:
            if classes:
                site.construct(classes[0], "name")
            else:
                site.miss()
            return
        if kind == "new":
            target, via, external = self.resolve_class(
                unit, f"{recv}.{name}" if recv else name, enclosing
            )
            if target is not None and target[0].kind(target[1]) in TYPE_KINDS:
                site.construct(target, via)
            else:
                site.miss(external)
            return

        if recv is None or recv in rules.receiver_names(unit, source):
            if classes and (recv is not None or rules.implicit_this):
                for cls in classes if recv is None else classes[:1]:
                    found, count = self.member(cls, name)
                    if found is not None:
                        site.bind(found, "name")
                        return
                    if count > 1:
                        site.miss()
                        return
                if recv is not None:
                    site.miss()
                    return
            if recv is not None:
                site.miss()
                return
            self._bare_call(unit, name, source, enclosing, site)
            return

        if recv in rules.super_names:
            for cls_unit, cls_index in classes[:1]:
                for owner, base, _line in cls_unit.facts.get("bases", ()):
                    if owner != cls_index:
                        continue
                    base_target, _via, _ext = self.resolve_class(cls_unit, base, cls_index)
                    if base_target is None:
                        continue
                    found, _count = self.member(base_target, name)
                    if found is not None:
                        site.bind(found, "name")
                        return
            site.miss()
            return

        if rules.imported_call(unit, recv, name, site):
            return

        # `Type.m()` / `Type::m()` / `ns::f()`
        path = normalize_type(recv)
        head = path.split(".", 1)[0]
        scoped = text is not None and text.endswith(("::" + name, "\\" + name))
        if rules.type_calls and _TYPE_PATH.match(path):
            last = path.rpartition(".")[2]
            typeish = last[:1].isupper()
            if typeish or scoped:
                namespace_call = rules.namespace_call(text, name)
                target, via, external = NOT_FOUND
                if not namespace_call:
                    target, via, external = self.resolve_class(unit, path, enclosing)
                if target is not None:
                    if name == rules.constructor_method:
                        site.construct(target, via)
                        return
                    found, _count = self.member(target, name)
                    if found is not None:
                        site.bind(found, via)
                    else:
                        site.miss()
                    return
                if not typeish or namespace_call:
                    found = self._namespace_function(unit, path, name)
                    if found is not None:
                        site.bind(found, rules.namespace_function_via)
                        return
                site.miss(
                    external or rules.external_of(unit, head) or rules.external_module(unit, head)
                )
                return

        external = rules.external_of(unit, normalize_type(recv).split(".", 1)[0])
        if external or rules.opaque_receiver(unit, recv):
            site.miss(external)
            return
        # any other receiver: the one method of that name in the package
        group = rules.package_group(unit)
        found, _count = unique(
            t for t in group.by_name.get(name, ()) if t[0].kind(t[1]) == "method"
        )
        if found is not None:
            site.bind(found, "name", WEAK)
        else:
            site.miss()

    def _bare_call(self, unit: Unit, name: str, source: int, enclosing: int, site: Site) -> None:
        rules = unit.rules
        if rules.imported_bare_call(unit, name, site):
            return
        kinds = {"function"} | (CLASS_KINDS if rules.constructor_calls else set())
        ancestors = set()
        i = enclosing
        while i >= 0:
            ancestors.add(i)
            i = unit.parent(i)
        private_unexported = rules.file_private_unexported

        def free(candidate: Unit, i: int, same_file: bool) -> bool:
            row = candidate.defs[i]
            if row[TAGS_DEF_KIND] not in kinds or row[TAGS_DEF_MEMBER]:
                return False
            parent = row[TAGS_DEF_PARENT]
            if same_file:
                return parent < 0 or parent in ancestors
            # e.g. a C `static` function is private to its file
            return parent < 0 and (not private_unexported or bool(row[TAGS_DEF_EXPORTED]))

        local = [i for i in unit.by_name.get(name, ()) if free(unit, i, True)]
        local = self._visible(unit, local, enclosing)
        target: Target | None = None
        if len(local) == 1:
            target = (unit, local[0])
        elif len(local) > 1:
            site.miss()
            return
        else:
            group = rules.package_group(unit)
            target, count = unique(
                t for t in group.by_name.get(name, ()) if t[0] is not unit and free(*t, False)
            )
            if target is None and count > 1:
                site.miss()
                return
            if target is None:
                target = rules.beyond_package(unit, name, free)
        if target is None and rules.constructor_calls and name[:1].isupper():
            cls, via, external = self.resolve_class(unit, name, enclosing)
            if cls is not None:
                site.construct(cls, via)
                return
            site.miss(external)
            return
        if target is None:
            site.miss(rules.external_of(unit, name))
            return
        if target[0].kind(target[1]) in CLASS_KINDS:
            site.construct(target, rules.same_package_via)
        else:
            site.bind(target, "name")

    def _namespace_function(self, unit: Unit, path: str, name: str) -> Target | None:
        """C++ `ns::f()`, Rust `module::f()`, PHP `ns\\f()`: a function by qualified path."""
        qual = f"{path}.{name}"
        i = unit.by_qual.get(qual)
        if i is not None and unit.kind(i) == "function":
            return unit, i
        group = unit.rules.package_group(unit)
        found, _ = unique(t for t in group.by_qual.get(qual, ()) if t[0].kind(t[1]) == "function")
        if found is not None:
            return found
        return unit.rules.namespace_function(unit, path, name)


class NamedPackageRules(Rules):
    """Languages whose files declare a package or namespace (Java, Kotlin, C#, PHP) and
    import classes by their full name (`a.b.Foo`, `a.b.*`)."""

    class_file_suffixes: tuple[str, ...] = ()  # `Foo.java`: a file named after its class
    shortest_tail = 2  # package paths matched by their tails down to this many segments
    always_tails = False  # match tails even when the whole package path is found
    usings_name_namespaces = False  # a plain import names a namespace (C# `using A.B;`)
    namespaces_per_definition = False  # each definition has its own namespace (C# blocks)

    def package_group(self, unit: Unit) -> Group:
        if unit.package:
            return self.named_package(unit.package, folder(unit.path))
        return super().package_group(unit)

    def named_package(self, package: str, directory: str = "") -> Group:
        """The files of a package: in the directories its path names, and in `directory`."""
        program, group = self.program, self.group

        def paths() -> list[str]:
            dirs = set(self.package_dirs(package.split(".")))
            if directory:
                dirs.add(directory)
            found = sorted(
                p for d in dirs for p in program.by_dir.get(d, ()) if group_of_path(p) == group
            )
            if not found and not directory:  # not the repository's: another's, if indexed
                found = [p for p in program.foreign_package(package) if group_of_path(p) == group]
            return found

        if self.namespaces_per_definition:  # keep every file, filter by definition later
            return program.group(("ns", group, package, directory), paths, lambda u: True)
        return program.group(
            ("pkg", group, package, directory), paths, lambda u: u.package == package
        )

    def package_dirs(self, parts: list[str]) -> list[str]:
        """Directories whose path ends with the package's path (or a shorter tail of it:
        layouts often drop the common prefix)."""
        lowered = [p.lower() for p in parts]
        found = list(self.program.dirs_ending("/".join(lowered)))
        if self.always_tails or not found:
            for k in range(len(lowered) - 1, self.shortest_tail - 1, -1):
                found.extend(self.program.dirs_ending("/".join(lowered[-k:])))
        return found

    def class_files(self, name: str) -> list[str]:
        by_basename = self.program.by_basename
        return [
            p for suffix in self.class_file_suffixes for p in by_basename.get(name + suffix, [])
        ]

    def namespaces(self, unit: Unit, context: int) -> set[str]:
        """The namespaces a definition sees its package's classes in."""
        return {unit.defs[context][TAGS_DEF_NS] if context >= 0 else unit.package}

    def find_fqn(self, fqn: str, partial: bool = False) -> Target | None:
        """A definition by its full qualname (`a.b.Foo`, `a.b.Foo.bar`) in the repository."""
        program = self.program
        parts = fqn.split(".")
        candidates: list[Target] = []
        seen: set[str] = set()
        # files named after a class of the path (Foo.java for a.b.Foo.bar)
        for segment in parts[1:]:
            if not segment[:1].isupper():
                continue
            for path in self.class_files(segment):
                if path in seen:
                    continue
                seen.add(path)
                other = program.unit(path)
                if other is not None and fqn in other.by_qual:
                    candidates.append((other, other.by_qual[fqn]))
        if not candidates:
            # the package's files: a Kotlin top-level function, a class in a file of
            # another name (C#, PHP); the package is the path less one or two segments
            for k in (len(parts) - 1, len(parts) - 2):
                if k < 1:
                    break
                group = self.named_package(".".join(parts[:k]))
                candidates.extend(group.by_qual.get(fqn, ()))
                if candidates:
                    break
        found, _ = unique(candidates, partial)
        return found

    def imported_class(self, unit: Unit, written: str) -> ClassHit | None:
        head = written.split(".", 1)[0]
        external = ""
        for path, alias, _line, flags in unit.facts.get("imports", ()):
            if flags in ("static", "function"):
                continue
            local_name = alias or path.rpartition(".")[2]
            if local_name == "*" or local_name != head:
                continue
            fqn = path if head == written else path + written[len(head) :]
            found = self.find_fqn(fqn, self.partial_classes)
            if found is not None:
                return found, "import", ""
            external = path.rpartition(".")[0] or path
        if external:
            return None, "", external
        if "." in written:
            found = self.find_fqn(written, self.partial_classes)
            if found is not None:
                return found, "import", ""
        return None

    def same_package_classes(
        self, unit: Unit, written: str, context: int, candidates: list[Target]
    ) -> list[Target]:
        quals = {f"{ns}.{written}" if ns else written for ns in self.namespaces(unit, context)}
        candidates = [t for t in candidates if t[0].qual(t[1]) in quals]
        if not candidates:
            name = written.rpartition(".")[2]
            for path in self.class_files(name):
                other = self.program.unit(path)
                if other is None or other is unit:
                    continue
                candidates.extend(
                    (other, i)
                    for i in other.by_name.get(name, ())
                    if other.kind(i) in TYPE_KINDS and other.qual(i) in quals
                )
        return candidates

    def fallback_class(self, unit: Unit, written: str) -> ClassHit | None:
        """Wildcard imports (`a.b.*`) and, in C#, the namespaces of `using` directives."""
        hits = []
        for path, alias, _line, flags in unit.facts.get("imports", ()):
            if flags == "static" or alias:
                continue
            if path.endswith(".*"):
                package = path[:-2]
            elif self.usings_name_namespaces:
                package = path
            else:
                continue
            found = self.find_fqn(f"{package}.{written}", self.partial_classes)
            if found is not None:
                hits.append(found)
        target, count = unique(hits, self.partial_classes)
        if target is not None:
            return target, "import", ""
        if count > 1:
            return NOT_FOUND
        return None

    def imported_name(self, unit: Unit, name: str) -> bool:
        return any(
            (alias or path.rpartition(".")[2]) == name
            for path, alias, _line, _flags in unit.facts.get("imports", ())
        )

    def external_of(self, unit: Unit, head: str) -> str:
        for path, alias, _line, flags in unit.facts.get("imports", ()):
            local = alias or path.rpartition(".")[2]
            if local == head and flags != "static" and self.find_fqn(path) is None:
                return path.rpartition(".")[0] or path
        return ""

    def class_import_links(self, unit: Unit) -> list[tuple[str, str, list[str]]]:
        """IMPORTS of classes by their full name: the file that defines the class, else the
        package (`a.b` of `a.b.Foo`), with the imported name."""
        links = ImportLinks()
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            target = self.find_fqn(path) if not path.endswith(".*") else None
            if target is not None:
                links.add("file", target[0].path, [alias or path.rpartition(".")[2]])
            else:
                package, _, last = path.rpartition(".")
                names = [alias] if alias else []
                links.add("package", package or path, [alias or last] if package else names)
        return links.items()
