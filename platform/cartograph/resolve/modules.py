"""Module names for the Python files of a repository (see docs/resolution.md, "Symbols").

A file's *primary* name names its symbols; *aliases* only help imports resolve (a test runner
that puts `src/acme` on `sys.path` lets `billing.invoice` import what is primarily
`acme.billing.invoice`). Aliases claimed by two files are dropped.
"""

from __future__ import annotations

import configparser
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field

from cartograph.configfiles import Unreadable, load_toml

SOURCE_DIR_NAMES = ("src", "lib", "python")
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
PACKAGING_FILES = ("pyproject.toml", "setup.cfg")  # the ones whose settings are read
PYTHON_SUFFIXES = (".py", ".pyi")


# an alias starting with this is the digest of the configuration a file was resolved under
# (tsconfig.json, package.json, go.mod): when it changes, the file is resolved again
CONFIG_ALIAS = "~cfg:"


def file_module(path: str) -> str:
    """The module name of a file outside Python's module system: its path, marked so that it
    never equals a dotted Python name."""
    return f"//{path}"


@dataclass(frozen=True, slots=True)
class ModuleName:
    name: str
    is_package: bool
    aliases: tuple[str, ...] = ()


@dataclass(slots=True)
class ModuleMap:
    by_path: dict[str, ModuleName] = field(default_factory=dict)
    by_name: dict[str, str] = field(default_factory=dict)  # primary names and unique aliases

    def path_of(self, module: str) -> str | None:
        return self.by_name.get(module)


def _split(path: str) -> tuple[str, str]:
    """(folder, file name) of a '/'-separated relative path; the root folder is ""."""
    folder, _, name = path.rpartition("/")
    return folder, name


def declared_package_roots(project_files: Mapping[str, bytes]) -> dict[str, tuple[str, ...]]:
    """The folders a project's packaging settings put on the import path, each with the
    package its files are named under (() for top-level names): `pyproject.toml`'s
    `[tool.setuptools] package-dir` and `packages.find.where`, Poetry's `packages` (`from`),
    Hatch's wheel `packages`, and `setup.cfg`'s `[options] package_dir` and
    `[options.packages.find] where`. A file that does not parse declares nothing."""
    roots: dict[str, tuple[str, ...]] = {}

    def declare(project: str, folder: object, package: str = "") -> None:
        if not isinstance(folder, str):
            return
        joined = posixpath.normpath(posixpath.join(project, folder.strip()))
        if joined == ".":
            joined = ""
        if joined.startswith(".."):
            return  # outside the repository
        parts = tuple(p for p in package.strip().split(".") if p)
        if all(part.isidentifier() for part in parts):
            roots.setdefault(joined, parts)

    for path, data in sorted(project_files.items()):
        project, name = _split(path)
        if name == "pyproject.toml":
            try:
                config = load_toml(data.decode("utf-8"))
            except (UnicodeDecodeError, Unreadable):
                continue  # said in the index run's notes (manifests.read_manifest)
            tool = _table(config, "tool")
            setuptools = _table(tool, "setuptools")
            for package, folder in _table(setuptools, "package-dir").items():
                declare(project, folder, package)
            found = _table(_table(setuptools, "packages"), "find")
            for folder in _list(found.get("where")):
                declare(project, folder)
            for entry in _list(_table(tool, "poetry").get("packages")):
                if isinstance(entry, dict):
                    declare(project, entry.get("from", ""))
            wheel = _table(_table(_table(_table(tool, "hatch"), "build"), "targets"), "wheel")
            for package_path in _list(wheel.get("packages")):
                if isinstance(package_path, str):
                    declare(project, posixpath.dirname(package_path.rstrip("/")))
        elif name == "setup.cfg":
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(data.decode("utf-8"))
            except (UnicodeDecodeError, configparser.Error):
                continue
            for line in parser.get("options", "package_dir", fallback="").splitlines():
                package, equals, folder = line.partition("=")
                if equals:
                    declare(project, folder, package)
            where = parser.get("options.packages.find", "where", fallback="")
            for folder in where.split():
                declare(project, folder)
    return roots


def _table(container: object, key: str) -> dict:
    found = container.get(key) if isinstance(container, dict) else None
    return found if isinstance(found, dict) else {}


def _list(value: object) -> list:
    if isinstance(value, str):
        return [value]
    return value if isinstance(value, list) else []


def source_roots(all_paths: set[str]) -> set[str]:
    """Folders that sit on sys.path: the repo root, src-like folders, project folders."""
    roots = {""}
    for path in all_paths:
        folder, name = _split(path)
        if name in PROJECT_FILES:
            roots.add(folder)
            roots.add(f"{folder}/src" if folder else "src")
    for root in list(roots):
        for name in SOURCE_DIR_NAMES:
            roots.add(f"{root}/{name}" if root else name)
    return roots


def compute_module_map(
    python_paths: list[str],
    all_paths: set[str],
    declared: Mapping[str, tuple[str, ...]] | None = None,
) -> ModuleMap:
    """Name every Python file; `all_paths` are every discovered file (for __init__ and roots);
    `declared`: the package roots of the packaging settings (`declared_package_roots`), which
    name the files under them as Python imports them."""
    declared = declared or {}
    roots = source_roots(all_paths) | set(declared)
    package_dirs = {
        folder for folder, name in map(_split, all_paths) if name in ("__init__.py", "__init__.pyi")
    }
    named: dict[str, ModuleName] = {}
    for path in sorted(python_paths):
        directory, filename = _split(path)
        stem = filename.rsplit(".", 1)[0]
        is_package = stem == "__init__"
        parts: list[str] = [] if is_package else [stem]
        # climb the chain of regular packages
        current = directory
        while current and current in package_dirs:
            current, name = _split(current)
            parts.append(name)
        names: list[list[str]] = [list(reversed(parts))]
        # then namespace folders up to the nearest source root
        namespace = list(parts)
        while current not in roots and current:
            parent, name = _split(current)
            if not name.isidentifier():
                break
            namespace.append(name)
            current = parent
            names.append(list(reversed(namespace)))
        if current in roots and len(names) > 1:
            primary = names[-1]
            aliases = [n for n in names[:-1] if n]
        else:
            primary = names[0]
            aliases = [n for n in names[1:] if n]
        prefix = declared.get(current) if current in roots else None
        if prefix:  # a folder mapped to a package: `"acme.api" = "api/acme/api"`
            primary = [*prefix, *primary]
        if not primary or any(not part or "." in part for part in primary):
            continue
        # a file like migrations/0001_initial.py is not importable by an import statement but
        # is still a module (importlib finds it): it keeps its name, and has no aliases
        alias_names = tuple(".".join(a) for a in aliases if all(part.isidentifier() for part in a))
        named[path] = ModuleName(".".join(primary), is_package, alias_names)
    return module_map(named)


def module_map(named: dict[str, ModuleName]) -> ModuleMap:
    """Index named files by name: primary names first (a .py beats its .pyi stub), then the
    aliases that only one file claims."""
    result = ModuleMap(by_path=dict(named))
    alias_claims: dict[str, list[str]] = {}
    for path, module in sorted(named.items()):
        for alias in module.aliases:
            if alias.startswith(CONFIG_ALIAS):
                continue  # a configuration digest, not a name (see index.pipeline.module_names)
            alias_claims.setdefault(alias, []).append(path)
    for path, module in sorted(named.items(), key=lambda kv: (kv[0].endswith(".pyi"), kv[0])):
        result.by_name.setdefault(module.name, path)
    for alias, paths in alias_claims.items():
        if len(paths) == 1 and alias not in result.by_name:
            result.by_name[alias] = paths[0]
    return result
