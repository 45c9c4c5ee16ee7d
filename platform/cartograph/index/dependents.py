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
from cartograph.parsing import decode_facts
from cartograph.parsing.python import (
    FACTS_VERSION,
    WIDE,
    changed_parts,
    interface_parts,
    interface_words,
)
from cartograph.resolve.modules import ModuleMap
from cartograph.store.interfaces import FileState, Store


@dataclass(slots=True)
class DependencyPlan:
    dependents: set[str] = field(default_factory=set)  # stored files to re-resolve
    # names to mark pending before the first write (this run's changes and what an interrupted
    # run left pending), so a run killed midway is completed by the next; empty: none
    pending: set[str] = field(default_factory=set)


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
    `besides` (whose edit changed only some of their top-level names: `name_changes`) are left
    out of the interface changes."""
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
    for path in paths:
        family = languages.family_of(path)
        if family is None:
            continue
        # a file appearing in or leaving a folder changes what same-package names mean there
        if family.folder_scoped:
            names.add(folder_name(path))
        # a stylesheet's custom properties are global: its definitions change any other's uses
        if family.global_dependency:
            names.add(family.global_dependency)
    return names


@dataclass(slots=True)
class NameChanges:
    """Python files whose interface changed only in the parts of some top-level names
    (`parsing.python.interface_parts`: functions and classes added, removed or changed,
    module-level names bound anew), whose module kept its names."""

    modules: dict[str, set[str]] = field(default_factory=dict)  # path → its module names
    names: set[str] = field(default_factory=set)  # the top-level names whose part changed
    # path → the parts of its interface that did not change, each with its identifiers
    # (`parsing.python.interface_words`): where a lookup through the module may go on to
    words: dict[str, dict[str, set[str]]] = field(default_factory=dict)


# changed modules whose names are compared at the most: past that (a branch switched, a large
# merge) the changed names spread too far to narrow, and reading them would cost more
MAX_NARROWED = 50


def name_changes(
    store: Store,
    repo: str,
    states: Mapping[str, FileState],
    fresh: Mapping[str, Parsed],
    old: ModuleMap,
    new: ModuleMap,
) -> NameChanges:
    """The changed Python files whose edit changed only some top-level names of their module
    (compared with their stored facts), and those names."""
    candidates = []
    for path, parsed in fresh.items():
        state = states.get(path)
        module = new.by_path.get(path)
        if state is None or module is None or state.interface == parsed.interface:
            continue
        if parsed.source.language != "python" or old.by_path.get(path) != module:
            continue
        if any(old.by_name.get(n) != new.by_name.get(n) for n in (module.name, *module.aliases)):
            continue
        candidates.append((path, parsed, module))
    found = NameChanges()
    if not candidates or len(candidates) > MAX_NARROWED:
        return found
    stored = store.index.load_facts(repo, [path for path, _, _ in candidates])
    for path, parsed, module in candidates:
        before = decode_facts(stored.get(path, b""))
        facts = parsed.facts  # decoded on each access
        if before is None or before.get("v") != facts.get("v"):
            continue
        after = interface_parts(facts)
        names = changed_parts(interface_parts(before), after)
        if not names:  # WIDE changed, or nothing a name owns (the module-wide rule applies)
            continue
        found.modules[path] = {module.name, *module.aliases}
        found.names |= names
        found.words[path] = {
            part: words for part, words in interface_words(after).items() if part not in names
        }
    return found


def mentioning(
    root: Path,
    paths: Iterable[str],
    names: set[str],
    as_indexed: Callable[[str, os.stat_result], bool],
) -> set[str]:
    """The files among `paths` whose text holds one of `names` as a word (strings and
    comments too: more is only slower). A file that may differ from what is indexed
    (`as_indexed` false for its size and mtime), a symlink or one that cannot be read counts
    as mentioning: only whether a file is re-resolved depends on what is read here."""
    wanted = {name.encode() for name in names}
    words = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(wanted)) + rb")\b")
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
        if any(name in data for name in wanted) and words.search(data):
            found.add(path)
    return found


def plan_dependents(
    store: Store,
    repo: str,
    states: Mapping[str, FileState],
    names: set[str],
    fresh: Mapping[str, Parsed],
    present: set[str],
    narrowed: NameChanges | None = None,
    tree: tuple[Path, ModuleMap] | None = None,
) -> DependencyPlan:
    """The stored files (present after the run, not parsed in it) that consulted a changed
    name or one an interrupted run left pending. A first index has nothing stored: none.

    The files of `narrowed` changed only some top-level names of their modules (`names` leaves
    them out: see `changed_names(besides=…)`): of the files that consulted them, only those that
    mention one of those names, themselves or through a module they consulted, are
    re-resolved (`tree`: the work tree's root and its module map). A module name `names` holds too (another file
    of that name changed, or it moved) is not narrowed."""
    if not states:
        return DependencyPlan()
    names = names | store.index.pending(repo)
    if narrowed is None or not narrowed.modules or tree is None:
        if not names:
            return DependencyPlan()
        dependents = store.index.dependents(repo, names) - set(fresh)
        return DependencyPlan(dependents & present, names)
    modules = set().union(*narrowed.modules.values()) - names
    dependents = store.index.dependents(repo, names) - set(fresh)
    candidates = store.index.dependents(repo, modules) - set(fresh) - dependents
    if candidates:
        dependents |= _readers(store, repo, candidates, narrowed, tree, states, fresh)
    # marked pending all the same: a run stopped before it wrote the readers is completed by
    # the next one, which re-resolves every file that consulted these modules
    return DependencyPlan(dependents & present, names | modules)


def _readers(
    store: Store,
    repo: str,
    candidates: set[str],
    narrowed: NameChanges,
    tree: tuple[Path, ModuleMap],
    states: Mapping[str, FileState],
    fresh: Mapping[str, Parsed],
) -> set[str]:
    """Of `candidates`, the files that can reach a changed name: those whose text holds one
    of the names that lead to it, or that consulted a module through whose module-wide part
    (`WIDE`) one may be reached.

    The names that lead to a changed name are found to a fixed point: the changed names, and
    the name of every interface part (of any module: a re-export, a function returning an
    instance of a changed class) whose identifiers hold one of them. Every Python file of the
    repository is read for the names (the parsed ones as they are, the others when their size
    and mtime are those indexed); the stored facts of those whose text holds one are read for
    their parts (a changed module's are its parts that did not change). A resolution reaches
    a module's rows only through its interface, and a part only by looking its name up."""
    root, modules = tree

    def as_indexed(path: str, status: os.stat_result) -> bool:
        if path in fresh:
            return True
        state = states.get(path)
        return state is not None and (state.size, state.mtime_ns) == (
            status.st_size,
            status.st_mtime_ns,
        )

    python = [
        path
        for path in modules.by_path
        if (family := languages.family_of(path)) is not None
        and family.dotted_modules
        and path not in narrowed.modules
    ]
    leading = set(narrowed.names)
    parts: dict[str, dict[str, set[str]] | None] = dict(narrowed.words)  # None: unreadable
    wide: set[str] = set()  # files through whose module-wide part a changed name is reached
    consulting: set[str] = set()  # the stored files that consulted those
    named_in: set[str] = set()
    new_names = set(leading)
    while True:
        named_in |= mentioning(root, python, new_names, as_indexed)
        if candidates <= named_in | consulting:
            return candidates  # every one is re-resolved already: no need to read further
        unread = sorted(named_in - parts.keys())
        if len(parts) + len(unread) > MAX_INTERFACES_READ or len(leading) > MAX_LEADING:
            return candidates  # spread too far to be worth following: the module-wide rule
        parts.update(_interface_words(store, repo, unread, fresh))
        grown: set[str] = set()
        wide_before = len(wide)
        for path, words_by_part in parts.items():
            if words_by_part is None:
                wide.add(path)
                continue
            for part, words in words_by_part.items():
                if words & leading:
                    if part == WIDE:
                        wide.add(path)
                    else:
                        grown.add(part)
        if len(wide) > wide_before:
            consulting = _consulting(store, repo, wide, modules)
        new_names = grown - leading
        if not new_names:
            break
        leading |= new_names
    return candidates & (named_in | consulting)


# how far the names leading to a change are followed before the module-wide rule is cheaper
MAX_INTERFACES_READ = 100  # files whose facts are read for their parts
MAX_LEADING = 48  # names


def _consulting(store: Store, repo: str, paths: set[str], modules: ModuleMap) -> set[str]:
    """The stored files that consulted the modules of these paths."""
    names = {
        name
        for path in paths
        if (module := modules.by_path.get(path)) is not None
        for name in (module.name, *module.aliases)
    }
    return store.index.dependents(repo, names) if names else set()


def _interface_words(
    store: Store, repo: str, paths: list[str], fresh: Mapping[str, Parsed]
) -> dict[str, dict[str, set[str]] | None]:
    """The identifiers of each interface part of these Python files (None: not readable as
    facts of this version)."""
    stored = store.index.load_facts(repo, [p for p in paths if p not in fresh]) if paths else {}
    found: dict[str, dict[str, set[str]] | None] = {}
    for path in paths:
        facts = fresh[path].facts if path in fresh else decode_facts(stored.get(path, b""))
        if facts is None or facts.get("v") != FACTS_VERSION:
            found[path] = None
        else:
            found[path] = interface_words(interface_parts(facts))
    return found


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
