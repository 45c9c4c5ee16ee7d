"""Ruby's rules for the by-name tier (see cartograph.resolve.generic).

A package is a directory. Constants are global: a class not found in the file or its
directory is looked for in the files named after it (`FooBar` in `foo_bar.rb`) anywhere.
`X.new` constructs (running `initialize`), a bare call may be a method of the enclosing
class, and classes may be reopened in other files. `require`/`require_relative` are the
IMPORTS, to the required file when it is in the repository.
"""

from __future__ import annotations

import posixpath
import re

from cartograph.parsing.tags import CLASS_KINDS
from cartograph.resolve.generic import (
    ClassHit,
    ImportLinks,
    Rules,
    Target,
    Unit,
    ends_with,
    folder,
    unique,
    words,
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class RubyRules(Rules):
    this_names = frozenset({"self"})
    builtins = words(
        "require require_relative load include extend prepend attr_reader attr_writer "
        "attr_accessor private protected public module_function private_constant "
        "private_class_method puts print p pp raise fail format sprintf lambda proc loop "
        "block_given? catch throw sleep rand freeze"
    )
    implicit_this = True
    members_elsewhere = True
    constructor_method = "new"

    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        return ("initialize",)

    def class_files(self, name: str) -> list[str]:
        return self.program.by_basename.get(snake(name) + ".rb", [])

    def fallback_class(self, unit: Unit, written: str) -> ClassHit | None:
        name = written.rpartition(".")[2]
        candidates: list[Target] = []
        for path in self.class_files(name):
            other = self.program.unit(path)
            if other is not None:
                candidates.extend(
                    (other, i)
                    for i in other.by_name.get(name, ())
                    if other.kind(i) in CLASS_KINDS and ends_with(other.qual(i), written)
                )
        target, _ = unique(candidates)
        return (target, "name", "") if target is not None else None

    def import_links(self, unit: Unit) -> list[tuple[str, str, list[str]]]:
        path_set = self.program.path_set
        links = ImportLinks()
        for path, _alias, _line, flags in unit.facts.get("imports", ()):
            target = None
            if flags == "relative":
                base = posixpath.normpath(posixpath.join(folder(unit.path), path))
                target = base if base in path_set else base + ".rb"
            else:
                for candidate in (path + ".rb", f"lib/{path}.rb"):
                    if candidate in path_set:
                        target = candidate
                        break
            if target in path_set:
                links.add("file", target, [])
            else:
                links.add("package", path, [])
        return links.items()


def snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


RULES = {"ruby": RubyRules}
