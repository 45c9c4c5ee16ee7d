"""Module names for the Python files of a repository (see docs/resolution.md, "Symbols").

A file's *primary* name names its symbols; *aliases* only help imports resolve (a test runner
that puts `src/acme` on `sys.path` lets `billing.invoice` import what is primarily
`acme.billing.invoice`). Aliases claimed by two files are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SOURCE_DIR_NAMES = ("src", "lib", "python")
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
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


def compute_module_map(python_paths: list[str], all_paths: set[str]) -> ModuleMap:
    """Name every Python file; `all_paths` are every discovered file (for __init__ and roots)."""
    roots = source_roots(all_paths)
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
