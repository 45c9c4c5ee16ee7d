"""C#'s rules for the by-name tier (see cartograph.resolve.generic).

Namespaces are per definition (block namespaces nest, a file may hold several), so a
namespace's files are all kept and filtered by qualname; a definition sees the classes of its
namespace and of the enclosing ones, and `using A.B;` opens a namespace. A class may be
`partial` (declared in several files: one class), and its methods may be in any file of the
namespace. Project folders are often named after the namespace (`Company.Product/`). A
`using` is an IMPORTS link to a package (the namespace), as for any language by default.
"""

from __future__ import annotations

from cartograph.parsing.facts import TAGS_DEF_NS
from cartograph.resolve.generic import NamedPackageRules, Unit


class CSharpRules(NamedPackageRules):
    this_names = frozenset({"this"})
    super_names = frozenset({"base"})
    implicit_this = True
    members_elsewhere = True
    partial_classes = True
    class_file_suffixes = (".cs",)
    shortest_tail = 1
    always_tails = True
    usings_name_namespaces = True
    namespaces_per_definition = True

    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        return (class_name,)

    def package_dirs(self, parts: list[str]) -> list[str]:
        found = super().package_dirs(parts)
        # `Company.Product/` project folders
        found.extend(self.program.dirs_ending(".".join(p.lower() for p in parts)))
        return found

    def namespaces(self, unit: Unit, context: int) -> set[str]:
        """The namespace a definition is declared in, and the ones enclosing it."""
        ns = unit.defs[context][TAGS_DEF_NS] if context >= 0 else unit.package
        out = {ns}
        while "." in ns:
            ns = ns.rpartition(".")[0]
            out.add(ns)
        return out


RULES = {"csharp": CSharpRules}
