"""C's and C++'s rules for the by-name tier (see cartograph.resolve.generic).

A package is a directory (C and C++ files together: a `.h` may be either). An unexported
(`static`) function is private to its file; a bare call not found in the directory is looked
for beside the headers the file includes (`#include "x"`), which are also its IMPORTS. A
member declared in a class body is defined elsewhere (a source file beside): the definition
is the target. C++ adds classes: `this`, bare calls of members, `Foo(...)` and `new Foo`
running the constructor named after the class, and `std::` as an external namespace.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from cartograph.resolve.generic import ImportLinks, Rules, Target, Unit, folder, unique, words


class CRules(Rules):
    members_elsewhere = True
    prefers_definition = True
    file_private_unexported = True

    def beyond_package(
        self, unit: Unit, name: str, free: Callable[[Unit, int, bool], bool]
    ) -> Target | None:
        """A function of the directory of a header the file includes."""
        own = folder(unit.path)
        candidates: list[Target] = []
        dirs: set[str] = set()
        for path, _alias, _line, flags in unit.facts.get("imports", ()):
            if flags != "local":
                continue
            header = self.find_include(unit.path, path)
            if header is not None and folder(header) != own:
                dirs.add(folder(header))
        for directory in sorted(dirs):
            group = self.program.dir_group(directory, self.group)
            candidates.extend(t for t in group.by_name.get(name, ()) if free(*t, False))
        found, _ = unique(candidates)
        return found

    def find_include(self, source: str, header: str) -> str | None:
        """The repository file an `#include "header"` in `source` names."""
        path_set = self.program.path_set
        for candidate in (posixpath.normpath(posixpath.join(folder(source), header)), header):
            if candidate in path_set:
                return candidate
        matches = [
            p
            for p in self.program.by_basename.get(posixpath.basename(header), ())
            if p.endswith("/" + header)
        ]
        return matches[0] if len(matches) == 1 else None

    def import_links(self, unit: Unit) -> list[tuple[str, str, list[str]]]:
        links = ImportLinks()
        for path, _alias, _line, flags in unit.facts.get("imports", ()):
            header = self.find_include(unit.path, path) if flags == "local" else None
            if header is not None:
                links.add("file", header, [])
            else:
                links.add("package", path, [])
        return links.items()


class CppRules(CRules):
    this_names = frozenset({"this", "(*this)"})
    builtins = words("static_cast dynamic_cast const_cast reinterpret_cast")
    implicit_this = True
    constructor_calls = True

    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        return (class_name,)

    def external_of(self, unit: Unit, head: str) -> str:
        return "std" if head == "std" else ""


RULES = {"c": CRules, "cpp": CppRules}
