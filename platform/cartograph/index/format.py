"""The index format: a digest of everything that decides what an index run writes. A repository
indexed under another format is rebuilt once, so no answer mixes two versions' rules.

What goes in is derived, not listed by hand (a hand-kept list left out the standard library's
reach, the services parsers and resolvers, and the interpreter):
- the source of every `cartograph` module the index pipeline imports, followed through every
  `import` and `from … import` anywhere in a file, and of the modules the language registry
  names and imports by name (each family's parser and resolver, the by-name tier's rules
  modules) or starts by name (the standard library's reader process). Left out: `cartograph.history`
  (mining keeps its own state) and `cartograph.store` (a store that changes what it keeps
  says so with a schema migration);
- the parsers' query files (`parsing/queries/**/*.scm`);
- the Python version that runs it (the standard library's source is read for what it calls
  back: `resolve/standard.py`), and the versions of tree-sitter and of every grammar wheel.
"""

from __future__ import annotations

import hashlib
import re
import sys
from importlib import metadata
from pathlib import Path

from cartograph import languages
from cartograph.resolve.standard_answers import PROCESS_MODULE

PACKAGE = Path(__file__).resolve().parent.parent  # platform/cartograph
ROOT_MODULE = "cartograph.index.pipeline"
LEFT_OUT = ("cartograph.history", "cartograph.store")
# `import cartograph.x`, `from cartograph.x import a, b` (or a parenthesised list)
IMPORT = re.compile(
    rb"^[ \t]*(?:import[ \t]+(cartograph[\w.]*)|from[ \t]+(cartograph[\w.]*)[ \t]+import[ \t]+"
    rb"(\([^)]*\)|[^\n]*))",
    re.MULTILINE,
)


def _module_file(name: str) -> Path | None:
    """The file of a `cartograph` module of this package (None: not a module here — a name
    imported from one, or a module of another package root)."""
    parts = name.split(".")[1:]
    if not parts:
        return None
    for candidate in (
        PACKAGE.joinpath(*parts).with_suffix(".py"),
        PACKAGE.joinpath(*parts, "__init__.py"),
    ):
        if candidate.is_file():
            return candidate
    return None


def _imported(path: Path) -> set[str]:
    """The `cartograph` module names a file imports, anywhere in it (what `from m import n`
    names may be a module too: `from cartograph.resolve import core`)."""
    found: set[str] = set()
    for module, package, names in IMPORT.findall(path.read_bytes()):
        if module:
            found.add(module.decode())
            continue
        found.add(package.decode())
        for name in re.findall(rb"\w+", names.split(b"#")[0] if b"(" not in names else names):
            found.add(f"{package.decode()}.{name.decode()}")
    return found


def format_sources() -> tuple[str, ...]:
    """The sources the digest reads, as paths relative to platform/cartograph."""
    pending = [ROOT_MODULE]
    # what the registry imports by name: each family's parser and resolver, the by-name
    # tier's rules modules
    pending += [family.parser for family in languages.FAMILY_LIST]
    pending += [family.resolver.partition(":")[0] for family in languages.FAMILY_LIST]
    pending += sorted({languages.rules_module(name) for name in languages.names("generic")})
    pending.append(PROCESS_MODULE)  # started by name: the standard library's reader
    files: set[Path] = set()
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name.startswith(LEFT_OUT):
            continue
        seen.add(name)
        path = _module_file(name)
        if path is None or path in files:
            continue
        files.add(path)
        pending.extend(_imported(path))
    files.update((PACKAGE / "parsing" / "queries").rglob("*.scm"))
    return tuple(sorted(str(path.relative_to(PACKAGE)) for path in files))


def runtime_versions() -> tuple[str, ...]:
    """The Python version and the tree-sitter libraries' (name==version)."""
    wheels = {"tree-sitter"} | {
        languages.BY_NAME[name].grammar[0].replace("_", "-")
        for name in languages.BY_NAME
        if languages.BY_NAME[name].grammar[0]
    }
    versions = [f"python=={sys.version_info.major}.{sys.version_info.minor}"]
    for wheel in sorted(wheels):
        try:
            versions.append(f"{wheel}=={metadata.version(wheel)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{wheel}==?")
    return tuple(versions)


def index_format(sources: tuple[str, ...], versions: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for part in sources:
        digest.update(part.encode() + b"\0" + (PACKAGE / part).read_bytes() + b"\0")
    for version in versions:
        digest.update(version.encode() + b"\0")
    return f"2-{digest.hexdigest()[:16]}"


INDEX_FORMAT_SOURCES = format_sources()
INDEX_FORMAT = index_format(INDEX_FORMAT_SOURCES, runtime_versions())
