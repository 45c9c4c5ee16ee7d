"""Go's rules for the by-name tier (see cartograph.resolve.generic).

A package is the files of one directory with the same `package` clause; `pkg.F()` and
`pkg.T` go through the file's imports of directories of this repository, found through the
nearest go.mod (or a GOPATH-like tail of the import path). A method's receiver name means
its instance; methods may be defined in any file of the package.
"""

from __future__ import annotations

import posixpath
import re

from cartograph.parsing.facts import (
    TAGS_DEF_EXPORTED,
    TAGS_DEF_KIND,
    TAGS_DEF_MEMBER,
    TAGS_DEF_PARENT,
    TAGS_DEF_SELF,
)
from cartograph.resolve.core import PACKAGE_DEP
from cartograph.resolve.generic import (
    CALLABLE,
    TYPE_KINDS,
    ClassHit,
    Group,
    Rules,
    Site,
    Target,
    Unit,
    folder,
    unique,
    words,
)

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Go imports: local name → (import path, directory in the repository or None)
GoImports = dict[str, tuple[str, str | None]]


class GoRules(Rules):
    builtins = words(
        "append cap clear close complex copy delete imag len make max min new panic print "
        "println real recover"
    )
    type_calls = False  # `x.f()` is a package's function or a method, never `Type.m()`
    members_elsewhere = True

    def __init__(self, program, language: str) -> None:
        super().__init__(program, language)
        self._modules: dict[str, tuple[str, str] | None] = {}

    def package_group(self, unit: Unit) -> Group:
        directory = folder(unit.path)
        package = unit.package
        return self.program.group(
            ("go", directory, package),
            lambda: [p for p in self.program.files_in(directory) if p.endswith(".go")],
            lambda u: u.package == package,
        )

    def receiver_names(self, unit: Unit, source: int) -> frozenset[str] | set[str]:
        receiver = unit.defs[source][TAGS_DEF_SELF] if source >= 0 else None
        return {receiver} if receiver else self.this_names

    def qualified_class(self, unit: Unit, qualifier: str, name: str) -> ClassHit | None:
        imported = self.imports(unit).get(qualifier)
        if imported is None:
            return None, "", ""
        import_path, directory = imported
        if directory is None:
            return None, "", import_path
        group = self.imported_group(directory)
        found, _ = unique(t for t in group.by_name.get(name, ()) if exported_top(t, TYPE_KINDS))
        return found, "import", ""

    def imported_call(self, unit: Unit, receiver: str, name: str, site: Site) -> bool:
        if not _IDENTIFIER.fullmatch(receiver):
            return False
        imported = self.imports(unit).get(receiver)
        if imported is None:
            return False
        import_path, directory = imported
        if directory is None:
            site.miss(import_path)
            return True
        group = self.imported_group(directory)
        found, _ = unique(t for t in group.by_name.get(name, ()) if exported_top(t, CALLABLE))
        if found is not None:
            site.bind(found, "import")
        else:
            site.miss()
        return True

    def http_rows(self, unit: Unit, target_id, source_id) -> list[list]:
        from cartograph.resolve.go_services import http_rows

        return http_rows(self, unit, target_id, source_id)

    def external_of(self, unit: Unit, head: str) -> str:
        imported = self.imports(unit).get(head)
        return imported[0] if imported and imported[1] is None else ""

    # ---------------------------------------------------------------- packages
    def module(self, directory: str) -> tuple[str, str] | None:
        """(module root directory, module path) of the nearest go.mod above `directory`."""
        if directory in self._modules:
            return self._modules[directory]
        foreign = self.program.foreign
        if directory.startswith("/"):  # a provider's folder: its module is in its manifest
            self._modules[directory] = foreign.go_module(directory) if foreign else None
            return self._modules[directory]
        text = self.program.read_text(
            posixpath.join(directory, "go.mod") if directory else "go.mod"
        )
        found = None
        if text is not None:
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("module "):
                    found = (directory, line[7:].strip().strip('"'))
                    break
        elif directory:
            found = self.module(folder(directory))
        self._modules[directory] = found
        return found

    def import_dir(self, unit: Unit, path: str) -> str | None:
        """The directory of the repository an import path names (None: outside it)."""
        by_dir = self.program.by_dir
        module = self.module(folder(unit.path))
        if module is not None:
            rel = _inside(module, path)
            if rel is not None:
                return rel if self.program.files_in(rel) else None
            foreign = self.program.foreign
            if foreign is None or "." not in path.split("/", 1)[0]:
                return None  # no other repositories, or the standard library
            segments = path.split("/")
            for k in range(1, len(segments) + 1):  # a module providing it, now or later
                self.program.memo.consulted.add(PACKAGE_DEP + "/".join(segments[:k]))
            provider = foreign.go_module(path)
            if provider is None:
                return None
            rel = _inside(provider, path)
            return rel if rel is not None and self.program.files_in(rel) else None
        if "." not in path.split("/", 1)[0]:
            return None  # the standard library
        segments = path.split("/")
        for k in range(len(segments) - 1, 1, -1):  # GOPATH layout: a tail of the import path
            tail = "/".join(segments[-k:])
            if tail in by_dir:
                return tail
        return None

    def imported_group(self, directory: str) -> Group:
        """The files of an imported package (tests left out)."""
        return self.program.group(
            ("goimp", directory),
            lambda: [
                p
                for p in self.program.files_in(directory)
                if p.endswith(".go") and not p.endswith("_test.go")
            ],
            lambda u: True,
        )

    def imports(self, unit: Unit) -> GoImports:
        """Local name → (import path, directory in the repo or None)."""
        return self.program.memo.cached(("goimports", unit.path), lambda: self._imports(unit))

    def _imports(self, unit: Unit) -> GoImports:
        out: GoImports = {}
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            if alias in ("_", "."):
                continue
            directory = self.import_dir(unit, path)
            name = alias
            if not name and directory is not None:
                group = self.imported_group(directory)
                name = next((u.package for u in group.units if u.package), None)
            if not name:
                name = default_name(path)
            out[name] = (path, directory)
        return out


def _inside(module: tuple[str, str], path: str) -> str | None:
    """The folder an import path names inside a module (root folder, module path)."""
    root, module_path = module
    if path == module_path:
        return root
    if path.startswith(module_path + "/"):
        rest = path[len(module_path) + 1 :]
        return posixpath.join(root, rest) if root else rest
    return None


def exported_top(target: Target, kinds: frozenset[str] | set[str]) -> bool:
    """An exported definition at the top level of its package, of one of `kinds`."""
    unit, i = target
    row = unit.defs[i]
    return (
        row[TAGS_DEF_KIND] in kinds
        and not row[TAGS_DEF_MEMBER]
        and row[TAGS_DEF_PARENT] < 0
        and bool(row[TAGS_DEF_EXPORTED])
    )


def default_name(path: str) -> str:
    """The name an import binds without an alias, when the package is not in the repository:
    the last segment of its path, without a version (`v2`, `.v3`) or `go-` affixes."""
    segments = [s for s in path.split("/") if s]
    name = segments[-1] if segments else path
    if re.fullmatch(r"v\d+", name) and len(segments) > 1:
        name = segments[-2]
    name = re.sub(r"\.v\d+$", "", name)
    name = name.removeprefix("go-").removesuffix("-go")
    return name.replace("-", "_").replace(".", "_")


RULES = {"go": GoRules}
