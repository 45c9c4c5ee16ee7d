"""Stage 3, the dependency plan: changed interfaces and module names → the stored files to
re-resolve (those whose last resolution consulted one of those names, recorded as `deps`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cartograph import languages
from cartograph.index.parse import Parsed
from cartograph.parsing import interface_hash
from cartograph.parsing.python import without_trailing_definitions
from cartograph.resolve.modules import ModuleMap
from cartograph.resolve.styles import STYLES_DEP
from cartograph.store.interfaces import FileState, Store


@dataclass(slots=True)
class DependencyPlan:
    dependents: set[str] = field(default_factory=set)  # stored files to re-resolve
    # names to mark pending before the first write (this run's changes and what an interrupted
    # run left pending), so a run killed midway is completed by the next; empty: none
    pending: set[str] = field(default_factory=set)


def family_of_path(path: str) -> str | None:
    language = languages.language_of(path)
    return languages.family(language) if language else None


def folder_name(path: str) -> str:
    """A pseudo module name for a folder: files of a generic-tier language depend on the set
    of files in their package's folder."""
    return f"~dir:{path.rpartition('/')[0]}"


def changed_names(
    old: ModuleMap,
    new: ModuleMap,
    states: Mapping[str, FileState],
    fresh: Mapping[str, Parsed],
    deleted: Iterable[str],
    besides: Iterable[str] = (),
) -> set[str]:
    """The names whose meaning changed: those of files whose interface changed (files whose
    interface is unchanged — an edit inside a function body — do not change what their
    dependents resolve to), whose own module name changed, or that were deleted; names that
    moved to another file; and the folders a generic-tier file appeared in or left. The files
    `besides` (whose edit only appended definitions) are left out of the interface changes."""
    left_out = set(besides)
    interface_changed = [
        path
        for path, parsed in fresh.items()
        if (path not in states or states[path].interface != parsed.interface)
        and path not in left_out
    ]
    # a file whose own name changed (packaging settings, an __init__.py added above it) has
    # new symbol ids: what resolved to it, even through a name that still finds it, changes
    renamed = [
        path
        for path, module in new.by_path.items()
        if (before := old.by_path.get(path)) is not None and before.name != module.name
    ]
    paths = [*interface_changed, *renamed, *deleted]
    names = _changed_module_names(old, new, paths)
    # a file appearing in or leaving a folder changes what same-package names mean there
    names |= {folder_name(path) for path in paths if family_of_path(path) == "generic"}
    # a custom property is global: a stylesheet's definitions can change any other's uses
    if any(family_of_path(path) == "styles" for path in paths):
        names.add(STYLES_DEP)
    return names


MAX_APPENDED = 20  # top-level definitions an edit may have appended, tried last first


@dataclass(slots=True)
class Appended:
    """Python files whose interface changed only by top-level functions and classes added
    after every other definition (`parsing.python.without_trailing_definitions`)."""

    modules: dict[str, set[str]] = field(default_factory=dict)  # path → its module names
    names: set[str] = field(default_factory=set)  # the names those definitions bind


def appended_definitions(
    states: Mapping[str, FileState], fresh: Mapping[str, Parsed], old: ModuleMap, new: ModuleMap
) -> Appended:
    """The changed Python files whose edit only appended definitions to their module (which
    kept its names, and whose names still mean this file)."""
    found = Appended()
    for path, parsed in fresh.items():
        state = states.get(path)
        module = new.by_path.get(path)
        if state is None or module is None or state.interface == parsed.interface:
            continue
        if parsed.source.language != "python" or old.by_path.get(path) != module:
            continue
        if any(old.by_name.get(n) != new.by_name.get(n) for n in (module.name, *module.aliases)):
            continue
        for count in range(1, MAX_APPENDED + 1):
            trimmed = without_trailing_definitions(parsed.facts, count)
            if trimmed is None:
                break
            before, names = trimmed
            if interface_hash("python", before) == state.interface:
                found.modules[path] = {module.name, *module.aliases}
                found.names |= names
                break
    return found


def mentioning(
    root: Path,
    paths: Iterable[str],
    names: set[str],
    own: set[str],
    as_indexed: Callable[[str, os.stat_result], bool],
) -> set[str]:
    """The files among `paths` whose text holds one of `names` as a word (strings and
    comments too: more is only slower), besides, in the files of `own`, the `def` and
    `class` lines at column 0 that define them. A file that may differ from what is indexed
    (`as_indexed` false for its size and mtime), a symlink or one that cannot be read counts
    as mentioning: only whether a file is re-resolved depends on what is read here."""
    wanted = {name.encode() for name in names}
    words = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(wanted)) + rb")\b")
    definition = re.compile(rb"^(?:async[ \t]+)?def[ \t]+(\w+)|^class[ \t]+(\w+)", re.MULTILINE)
    found = set()
    for path in paths:
        try:
            descriptor = os.open(os.path.join(root, path), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            found.add(path)
            continue
        with os.fdopen(descriptor, "rb") as handle:
            if not as_indexed(path, os.fstat(descriptor)):
                found.add(path)
                continue
            data = handle.read()
        if not any(name in data for name in wanted):
            continue
        count = len(words.findall(data))
        if count and path in own:
            count -= sum(1 for m in definition.finditer(data) if (m[1] or m[2]) in wanted)
        if count > 0:
            found.add(path)
    return found


def plan_dependents(
    store: Store,
    repo: str,
    states: Mapping[str, FileState],
    names: set[str],
    fresh: Mapping[str, Parsed],
    present: set[str],
    appended: Appended | None = None,
    tree: tuple[Path, ModuleMap] | None = None,
) -> DependencyPlan:
    """The stored files (present after the run, not parsed in it) that consulted a changed
    name or one an interrupted run left pending. A first index has nothing stored: none.

    The files of `appended` only added names to their modules (`names` leaves them out: see
    `changed_names(besides=…)`): of the files that consulted them, only those that mention one
    of those names, themselves or through a module they consulted, are re-resolved (`tree`:
    the work tree's root and its module map). A module name `names` holds too (another file
    of that name changed, or it moved) is not narrowed."""
    if not states:
        return DependencyPlan()
    names = names | store.index.pending(repo)
    if appended is None or not appended.modules or tree is None:
        if not names:
            return DependencyPlan()
        dependents = store.index.dependents(repo, names) - set(fresh)
        return DependencyPlan(dependents & present, names)
    narrowed = set().union(*appended.modules.values()) - names
    dependents = store.index.dependents(repo, names) - set(fresh)
    candidates = store.index.dependents(repo, narrowed) - set(fresh) - dependents
    if candidates:
        dependents |= _readers(store, repo, candidates, appended, tree, states, fresh)
    # marked pending all the same: a run stopped before it wrote the readers is completed by
    # the next one, which re-resolves every file that consulted these modules
    return DependencyPlan(dependents & present, names | narrowed)


def _readers(
    store: Store,
    repo: str,
    candidates: set[str],
    appended: Appended,
    tree: tuple[Path, ModuleMap],
    states: Mapping[str, FileState],
    fresh: Mapping[str, Parsed],
) -> set[str]:
    """Of `candidates`, the files that mention an appended name, or consulted a module whose
    file mentions one (every Python file of the repository is read: the parsed ones as they
    are, the others when their size and mtime are those indexed)."""
    root, modules = tree

    def as_indexed(path: str, status: os.stat_result) -> bool:
        if path in fresh:
            return True
        state = states.get(path)
        return state is not None and (state.size, state.mtime_ns) == (
            status.st_size,
            status.st_mtime_ns,
        )

    python = [path for path in modules.by_path if family_of_path(path) == "python"]
    named_in = mentioning(root, python, appended.names, set(appended.modules), as_indexed)
    if not named_in:
        return set()
    through = {
        name
        for path in named_in
        if (module := modules.by_path.get(path)) is not None
        for name in (module.name, *module.aliases)
    }
    return candidates & (named_in | store.index.dependents(repo, through))


def _changed_module_names(old: ModuleMap, new: ModuleMap, paths: list[str]) -> set[str]:
    """Module names whose meaning changed: names of changed files, and names that moved."""
    names: set[str] = set()
    for path in paths:
        for mapping in (old, new):
            module = mapping.by_path.get(path)
            if module is not None:
                names.add(module.name)
                names.update(module.aliases)
    for name in set(old.by_name) | set(new.by_name):
        if old.by_name.get(name) != new.by_name.get(name):
            names.add(name)
    return names
