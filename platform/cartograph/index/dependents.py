"""Stage 3, the dependency plan: changed interfaces and module names → the stored files to
re-resolve (those whose last resolution consulted one of those names, recorded as `deps`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cartograph import languages
from cartograph.index.parse import Parsed
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
) -> set[str]:
    """The names whose meaning changed: those of files whose interface changed (files whose
    interface is unchanged — an edit inside a function body — do not change what their
    dependents resolve to), whose own module name changed, or that were deleted; names that
    moved to another file; and the folders a generic-tier file appeared in or left."""
    interface_changed = [
        path
        for path, parsed in fresh.items()
        if path not in states or states[path].interface != parsed.interface
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


def plan_dependents(
    store: Store,
    repo: str,
    states: Mapping[str, FileState],
    names: set[str],
    fresh: Mapping[str, Parsed],
    present: set[str],
) -> DependencyPlan:
    """The stored files (present after the run, not parsed in it) that consulted a changed
    name or one an interrupted run left pending. A first index has nothing stored: none."""
    if not states:
        return DependencyPlan()
    names = names | store.index.pending(repo)
    if not names:
        return DependencyPlan()
    dependents = store.index.dependents(repo, names) - set(fresh)
    return DependencyPlan(dependents & present, names)


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
