"""The interface every family of languages resolves through, and what a run gives it.

A family (`languages.Family`: Python, TypeScript/JavaScript, the by-name tier, stylesheets,
OpenAPI documents) names its resolver class; the index makes one per run and family when the
run first resolves a file of it (`family_resolver`), hands it the run's `Sources`, and asks
it for each file's `FileResolution`. Between two files it may be told to `forget` what it
loaded (the run's memory stays bounded: `index.resolve.Resolver`); a resolver's answers never
depend on what it was asked before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Protocol

from cartograph import languages
from cartograph.resolve.core import FileResolution, ForeignCode
from cartograph.resolve.modules import ModuleMap
from cartograph.testlayout import DEFAULT_LAYOUT, TestLayout


@dataclass(slots=True)
class Sources:
    """What one run's resolvers read: its files' facts, the work tree's other files and the
    other repositories."""

    repo: str
    names: ModuleMap  # every indexed file's module name (Python's rules; a path for the others)
    facts: Callable[[str], dict | None]  # a file's facts: this run's parse, else stored
    read_text: Callable[[str], str | None]  # a file of the work tree (settings: tsconfig.json)
    all_paths: set[str]  # every path of the tree, indexed or not
    foreign: ForeignCode | None = None  # the other repositories a resolution may bind into
    tests: TestLayout = DEFAULT_LAYOUT  # which files are test code (the runners' settings)
    _by_family: dict[str, list[str]] | None = field(default=None, repr=False)

    def paths(self, family: str) -> list[str]:
        """The indexed files of a family, in the module map's order."""
        if self._by_family is None:
            grouped: dict[str, list[str]] = {}
            for path in self.names.by_path:
                found = languages.family_of(path)
                if found is not None:
                    grouped.setdefault(found.name, []).append(path)
            self._by_family = grouped
        return self._by_family.get(family, [])


class FamilyResolver(Protocol):
    """Resolves one repository's files of one family for one run."""

    @classmethod
    def for_sources(cls, sources: Sources) -> FamilyResolver:
        """The resolver of a run (`sources.paths(family)` are its files)."""
        ...

    def resolve_file(self, path: str) -> FileResolution | None:
        """A file's symbols, edges, unresolved calls, imports and dependencies (None: the file
        has no module name to resolve under)."""
        ...

    # A resolver may also define `http_rows(path) -> list[list] | None`: the file's HTTP rows
    # as `resolve_file(path).http` has them, found without resolving the rest of the file
    # (`index.resolve.Resolver.http_rows` resolves the whole file for the others).

    def loaded(self) -> int:
        """Files whose facts it holds now."""
        ...

    def forget(self) -> None:
        """Drop every loaded file and every computation made from them."""
        ...


def family_resolver(family: languages.Family, sources: Sources) -> FamilyResolver:
    module, _, name = family.resolver.partition(":")
    resolver_class: type[FamilyResolver] = getattr(import_module(module), name)
    return resolver_class.for_sources(sources)
