"""Stylesheets: a design system's shared definitions as symbols, and their uses as edges.

Every definition of a CSS custom property, SCSS variable or Less variable is a `variable`
symbol of its file (the second definition of a name in one file is `name~2`, …), with its
value as the signature and its selector as the doc. A use is a REFERENCES edge from the using
file's module symbol to the definitions it can mean:

1. the file's own definitions of the name (`scope`);
2. those of the stylesheets it imports (`@import`, `@use`, `@forward`; relative paths, SCSS
   partials and index files, `~package/…` and `package/…` paths into another indexed
   repository), transitively (`import`);
3. a custom property only — custom properties are global at run time and inherited down the
   document, SCSS and Less variables are lexical —: also every definition in the repository
   and in the stylesheets of the repositories it depends on (their manifests say so), across
   repositories (`name`).

A SCSS or Less use binds to the nearest definitions (the file's own, else its imports'); a
custom property to every definition the page may have loaded: which one applies is the
cascade's decision (a theme's `[data-theme=dark]` override and `:root` are both reached).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from cartograph.model import SymbolRow, foreign_path, located, symbol_id
from cartograph.resolve.core import (
    PACKAGE_DEP,
    EdgeSet,
    FileResolution,
    ForeignCode,
    Memo,
    module_symbol,
)
from cartograph.resolve.family import Sources

STYLES_DEP = "~styles"  # a name a file consulted every stylesheet of its repository for
MAX_IMPORT_DEPTH = 20
PARTIAL_SUFFIXES = (".scss", ".sass", ".css", ".less")


def definition_qualnames(facts: dict) -> list[str]:
    """The qualname of each definition of a file, in order: the name, then `name~2`, …"""
    seen: dict[str, int] = {}
    names = []
    for name, *_rest in facts.get("defs", ()):
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}~{seen[name]}")
    return names


class StylesProgram:
    """Resolves the stylesheets of one repository."""

    def __init__(
        self,
        repo: str,
        paths: Iterable[str],
        load: Callable[[str], dict | None],
        foreign: ForeignCode | None = None,
    ) -> None:
        self.repo = repo
        self.paths = set(paths)
        self.load = load
        self.foreign = foreign
        self.memo = Memo()
        self._facts: dict[str, dict | None] = {}
        self._by_name: dict[str, list[tuple[str, str]]] | None = None

    @classmethod
    def for_sources(cls, sources: Sources) -> StylesProgram:
        return cls(sources.repo, sources.paths("styles"), sources.facts, sources.foreign)

    def loaded(self) -> int:
        return len(self._facts)

    def forget(self) -> None:
        """Drop the loaded stylesheets and every computation (between two files); the index
        of custom properties stays."""
        self._facts = {}
        self.memo = Memo()

    def facts(self, path: str) -> dict | None:
        """A stylesheet's facts (a dependency, found or not)."""
        self.memo.consulted.add(path)
        return self._read(path)

    def _read(self, path: str) -> dict | None:
        if path not in self._facts:
            known = path in self.paths or (path.startswith("/") and self.foreign is not None)
            facts = self.load(path) if known else None
            self._facts[path] = facts if facts and "defs" in facts else None
        return self._facts[path]

    # ---------------------------------------------------------------- one file
    def resolve_file(self, path: str) -> FileResolution:
        with self.memo.recording() as recorded:
            facts = self.facts(path)
            if facts is None:
                return FileResolution(path, path, [], [], [], set())
            symbols = self._symbols(path, facts)
            module_id = symbols[0].id
            edges = EdgeSet()
            for name, line in facts["uses"]:
                for target, qualname, via in self.definitions(path, name):
                    target_repo, target_path = located(self.repo, target)
                    edges.add(
                        "REFERENCES",
                        module_id,
                        symbol_id(target_repo, target_path, qualname),
                        line,
                        via,
                    )
            imports: list[tuple[str, str, list[str]]] = []
            for spec, _line in facts["imports"]:
                found = self.imported(path, spec)
                if found is not None and found.startswith("/"):
                    imports.append(("package", _package(spec), []))
                elif found is not None:
                    imports.append(("file", found, []))
        deps = recorded.deps - {path}
        return FileResolution(path, path, symbols, edges.edges(), [], deps, _unique(imports))

    def _symbols(self, path: str, facts: dict) -> list[SymbolRow]:
        rows = [module_symbol(self.repo, path, facts.get("lines", 1))]
        module_id = rows[0].id
        for (name, line, value, selector), qual in zip(
            facts["defs"], definition_qualnames(facts), strict=True
        ):
            rows.append(
                SymbolRow(
                    id=symbol_id(self.repo, path, qual),
                    repo=self.repo,
                    path=path,
                    name=name,
                    qualname=qual,
                    kind="variable",
                    start_line=line,
                    end_line=line,
                    signature=f"{name}: {value}",
                    doc=selector,
                    exported=True,
                    parent=module_id,
                )
            )
        return rows

    # ---------------------------------------------------------------- lookups
    def definitions(self, path: str, name: str) -> list[tuple[str, str, str]]:
        """(file, qualname, via) of every definition a use of `name` in `path` can mean: for
        a SCSS or Less variable, the nearest (the file's own, else its imports'); for a custom
        property, every definition the page may have loaded — the file's, its imports', the
        repository's and those of the packages the repository depends on."""
        own = self._in_file(path, name, "scope")
        if own and not name.startswith("--"):
            return own
        imported = self._through_imports(path, name)
        if not name.startswith("--"):
            return imported
        found = {(p, q): via for p, q, via in [*imported, *own]}  # the closer rule wins
        self.memo.consulted.add(STYLES_DEP)
        for p, q in self._repository_index().get(name, ()):
            found.setdefault((p, q), "name")
        if self.foreign is not None:
            for package in self.foreign.declared_packages("npm"):
                self.memo.consulted.add(PACKAGE_DEP + package)  # a provider indexed later
            for provider in self.foreign.style_providers():
                self.memo.consulted.add(foreign_path(provider, STYLES_DEP))
            for p, q in self.foreign.style_definitions(name):
                found.setdefault((p, q), "name")
        return [(p, q, via) for (p, q), via in found.items()]

    def _in_file(self, path: str, name: str, via: str) -> list[tuple[str, str, str]]:
        facts = self.facts(path)
        if facts is None:
            return []
        return [
            (path, qual, via)
            for (defined, *_rest), qual in zip(
                facts["defs"], definition_qualnames(facts), strict=True
            )
            if defined == name
        ]

    def _through_imports(self, path: str, name: str) -> list[tuple[str, str, str]]:
        """The definitions in the nearest level of `path`'s imports that has any."""
        for level in self._import_levels(path):
            found = [hit for target in level for hit in self._in_file(target, name, "import")]
            if found:
                return found
        return []

    def _import_levels(self, path: str) -> list[list[str]]:
        """The stylesheets `path` imports, level by level (its imports, theirs, …), once per
        file (the memo keeps what they consulted)."""

        def compute() -> list[list[str]]:
            seen = {path}
            levels: list[list[str]] = []
            frontier = [path]
            for _depth in range(MAX_IMPORT_DEPTH):
                following = []
                for current in frontier:
                    facts = self.facts(current)
                    for spec, _line in facts["imports"] if facts else ():
                        target = self.imported(current, spec)
                        if target is not None and target not in seen:
                            seen.add(target)
                            following.append(target)
                if not following:
                    break
                levels.append(following)
                frontier = following
            return levels

        return self.memo.cached(("style-imports", path), compute)

    def imported(self, importer: str, spec: str) -> str | None:
        """The stylesheet an import names, in this repository or another (a foreign path)."""
        if ":" in spec or spec.startswith(("http:", "https:", "//", "url(")):
            return None  # sass:math, a URL
        if spec.startswith("~") or not spec.startswith((".", "/")):
            package = _package(spec.lstrip("~"))
            if package and self.foreign is not None:
                self.memo.consulted.add(PACKAGE_DEP + package)  # provided now or later
            if package:
                offered = self.foreign.npm_package(package) if self.foreign else None
                if offered is not None:
                    rest = spec.lstrip("~")[len(package) :].lstrip("/")
                    hit = self._probe(posixpath.join(offered[0], rest) if rest else offered[0])
                    if hit is not None:
                        return hit
            if spec.startswith("~"):
                return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if not importer.startswith("/"):
            base = base.lstrip("/")
        return self._probe(base)

    def _probe(self, base: str) -> str | None:
        folder, stem = posixpath.split(base)
        candidates = [base]
        for suffix in PARTIAL_SUFFIXES:
            candidates += [f"{base}{suffix}", posixpath.join(folder, f"_{stem}{suffix}")]
            candidates += [
                posixpath.join(base, f"_index{suffix}"),
                posixpath.join(base, f"index{suffix}"),
            ]
        for candidate in candidates:
            if candidate in self.paths or (
                candidate.startswith("/")
                and self.foreign is not None
                and self.foreign.has(candidate)
            ):
                return candidate
        return None

    def _repository_index(self) -> dict[str, list[tuple[str, str]]]:
        """Custom property name → (file, qualname) of its definitions in the repository."""
        if self._by_name is None:
            index: dict[str, list[tuple[str, str]]] = {}
            for path in sorted(self.paths):  # the STYLES_DEP dependency stands for them all
                facts = self._read(path)
                if facts is None:
                    continue
                for (name, *_rest), qual in zip(
                    facts["defs"], definition_qualnames(facts), strict=True
                ):
                    if name.startswith("--"):
                        index.setdefault(name, []).append((path, qual))
            self._by_name = index
        return self._by_name


def _package(spec: str) -> str:
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def _unique(imports: list) -> list:
    seen: dict[tuple[str, str], list] = {}
    for kind, target, names in imports:
        seen.setdefault((kind, target), names)
    return [(kind, target, names) for (kind, target), names in seen.items()]
