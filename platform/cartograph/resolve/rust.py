"""Rust's rules for the by-name tier (see cartograph.resolve.generic).

A package is a directory; paths (`crate::a::f`, `self::m::T`, `super::g`, `util::h`, a
`use`d name first) follow the module files (`a.rs`, `a/mod.rs`) from the crate root (lib.rs
or main.rs under the nearest Cargo.toml's src/), via "import". `Foo(...)` builds a Foo (a
tuple struct); `impl` blocks may be in any file of the package. A path that starts with
another crate's name is external.
"""

from __future__ import annotations

import posixpath

from cartograph.parsing.tags import CLASS_KINDS
from cartograph.resolve.generic import (
    CALLABLE,
    TYPE_KINDS,
    ClassHit,
    Rules,
    Site,
    Target,
    Unit,
    folder,
    stem,
)

LOCAL = frozenset({"crate", "self", "super"})  # path heads that stay in this crate


class RustRules(Rules):
    this_names = frozenset({"self", "Self"})
    constructor_calls = True
    members_elsewhere = True
    namespace_function_via = "import"

    def __init__(self, program, language: str) -> None:
        super().__init__(program, language)
        self._crate_roots: dict[str, str | None] = {}

    def imported_class(self, unit: Unit, written: str) -> ClassHit | None:
        segments = written.split(".")
        if "." in written or self.expand(unit, segments) != segments:
            found = self.item(unit, segments, TYPE_KINDS)
            if found is not None:
                return found, "import", ""
        return None

    def imported_bare_call(self, unit: Unit, name: str, site: Site) -> bool:
        segments = self.expand(unit, [name])
        if len(segments) <= 1:
            return False
        found = self.item(unit, segments, CALLABLE | CLASS_KINDS)
        if found is not None:
            site.call(found, "import")
            return True
        crate = segments[0]
        if crate not in LOCAL:
            site.miss(crate)
            return True
        return False

    def namespace_function(self, unit: Unit, path: str, name: str) -> Target | None:
        return self.item(unit, [*path.split("."), name], CALLABLE)

    def external_of(self, unit: Unit, head: str) -> str:
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            segments = path.split("::")
            local = alias or segments[-1]
            if local == head and segments[0] not in LOCAL:
                return segments[0]
        return ""

    def external_module(self, unit: Unit, head: str) -> str:
        """The crate a path `head::…` names, unless a module of this crate has that name."""
        if head[:1].islower() and head not in LOCAL:
            own = folder(unit.path)
            local = (
                posixpath.join(own, head + ".rs"),
                posixpath.join(own, head, "mod.rs"),
                posixpath.join(own, stem(unit.path), head + ".rs"),
            )
            path_set = self.program.path_set
            if not any(p in path_set for p in local) and not any(
                q.startswith(head + ".") for q in unit.by_qual
            ):
                return head
        return ""

    # ---------------------------------------------------------------- modules
    def item(
        self, unit: Unit, segments: list[str], kinds: frozenset[str] | set[str]
    ) -> Target | None:
        """A path (`crate::a::b::f`, `self::m::T`, `super::g`, `util::h`, a `use`d name
        first) → the item, through the module files (`a.rs`, `a/mod.rs`)."""
        segments = self.expand(unit, segments)
        if len(segments) < 2:
            return None
        start = self.start(unit, segments[0])
        if start is None:
            return None
        path_set = self.program.path_set
        file, subdir, i = start
        while i < len(segments) - 1:
            for candidate in (f"{subdir}/{segments[i]}.rs", f"{subdir}/{segments[i]}/mod.rs"):
                candidate = candidate.lstrip("/")
                if candidate in path_set:
                    file, subdir = candidate, f"{subdir}/{segments[i]}".lstrip("/")
                    break
            else:
                break
            i += 1
        other = self.program.unit(file)
        if other is None:
            return None
        index = other.by_qual.get(".".join(segments[i:]))
        if index is None or other.kind(index) not in kinds:
            return None
        return other, index

    def expand(self, unit: Unit, segments: list[str]) -> list[str]:
        """A path whose first segment is a `use`d name, written out in full."""
        for path, alias, _line, _flags in unit.facts.get("imports", ()):
            used = path.split("::")
            if used[-1] != "*" and (alias or used[-1]) == segments[0]:
                return [*used, *segments[1:]]
        return segments

    def start(self, unit: Unit, head: str) -> tuple[str, str, int] | None:
        """(module file, its submodule directory, segments consumed) a path starts from."""
        path_set = self.program.path_set
        file = unit.path
        subdir = submodule_dir(file)
        if head == "self":
            return file, subdir, 1
        if head == "super":
            parent = folder(subdir)
            for candidate in (
                f"{parent}.rs",
                f"{parent}/mod.rs",
                f"{parent}/lib.rs",
                f"{parent}/main.rs",
            ):
                candidate = candidate.lstrip("/")
                if candidate in path_set:
                    return candidate, parent, 1
            return None
        if head == "crate":
            root = self.crate_root(folder(file))
            if root is None:
                return None
            return root, folder(root), 1
        return file, subdir, 0

    def crate_root(self, directory: str) -> str | None:
        """lib.rs or main.rs of the crate a directory belongs to (Cargo.toml's src/)."""
        if directory in self._crate_roots:
            return self._crate_roots[directory]
        path_set = self.program.path_set
        found = None
        probe = directory
        while True:
            manifest = posixpath.join(probe, "Cargo.toml") if probe else "Cargo.toml"
            if self.program.read_text(manifest) is not None:
                src = posixpath.join(probe, "src") if probe else "src"
                for name in ("lib.rs", "main.rs"):
                    if f"{src}/{name}" in path_set:
                        found = f"{src}/{name}"
                        break
                break
            if not probe:
                break
            probe = folder(probe)
        if found is None:  # no manifest: the nearest lib.rs / main.rs above
            probe = directory
            while found is None:
                for name in ("lib.rs", "main.rs"):
                    candidate = posixpath.join(probe, name) if probe else name
                    if candidate in path_set:
                        found = candidate
                        break
                if not probe:
                    break
                probe = folder(probe)
        self._crate_roots[directory] = found
        return found


def submodule_dir(path: str) -> str:
    """The directory a module file's submodules live in."""
    if posixpath.basename(path) in ("lib.rs", "main.rs", "mod.rs"):
        return folder(path)
    return posixpath.splitext(path)[0]


RULES = {"rust": RustRules}
