"""Stage 1, the plan: stored file states + discovered files → what to parse, what is unchanged,
renamed, touched or deleted. Pure: no store, no file system (the caller reads the files this
stage says must be read, and hands in what it found).

A file whose size and mtime match its stored state is unchanged without being read; any other
file is read and compared by content (sha256). A file keeps its stored facts while its content
is the same; when the names it is known by (its module name and aliases) changed, it is
*renamed*: rewritten from those facts, not parsed again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from cartograph.discover import SourceFile
from cartograph.model import Skipped
from cartograph.resolve.modules import ModuleMap, ModuleName, module_map
from cartograph.store.interfaces import FileState
from cartograph.testlayout import is_conventional_test_path


@dataclass(slots=True)
class FilePlan:
    """What a run does with each file."""

    parse: list[tuple[SourceFile, str]] = field(default_factory=list)  # (file, sha256)
    renamed: list[tuple[SourceFile, str]] = field(default_factory=list)  # same content, new names
    touched: list[SourceFile] = field(default_factory=list)  # same content, new size or mtime
    unchanged: int = 0  # (touched files included)
    skipped: list[Skipped] = field(default_factory=list)  # the given ones, then the unreadable
    present: set[str] = field(default_factory=set)  # the indexed files after the run
    deleted: list[str] = field(default_factory=list)  # stored files no longer present, sorted


def is_rebuild(stored_format: str | None, index_format: str) -> bool:
    """A repository never indexed (no stored format), or indexed by another version of the
    parser or resolver, is indexed from scratch: every file parsed, nothing stored kept."""
    return stored_format is None or stored_format != index_format


def to_read(states: Mapping[str, FileState], files: Iterable[SourceFile]) -> list[SourceFile]:
    """The files whose content must be read: new ones, and those whose size or mtime differ
    from their stored state."""
    return [
        source
        for source in files
        if (state := states.get(source.path)) is None
        or (state.size, state.mtime_ns) != (source.size, source.mtime_ns)
    ]


def stored_module_map(states: Mapping[str, FileState]) -> ModuleMap:
    """The module names the stored files were resolved under."""
    return module_map(
        {
            path: ModuleName(
                state.module,
                path.endswith(("__init__.py", "__init__.pyi")),
                tuple(state.aliases.split()),
            )
            for path, state in states.items()
            if state.module
        }
    )


def plan_files(
    states: Mapping[str, FileState],
    files: list[SourceFile],
    names: ModuleMap,
    digests: Mapping[str, str],
    unreadable: Mapping[str, str],
    *,
    skipped: Iterable[Skipped] = (),
    partial: bool = False,
    is_test: Callable[[str], bool] = is_conventional_test_path,
) -> FilePlan:
    """Decide for every discovered file. `names`: the module names the files have now;
    `digests` (sha256) and `unreadable` (the reason) cover the files `to_read` named;
    `skipped`: files already known to be skipped (discovery's, or those stored when only
    named files are looked at: `partial`, where a stored file not named is unchanged);
    `is_test`: whether a file is test code (a file whose answer changed is rewritten)."""
    plan = FilePlan(skipped=list(skipped))
    for source in files:
        state = states.get(source.path)
        module = names.by_path.get(source.path)
        # the names a file is known by (module and aliases): when they change, the file is
        # rewritten (its symbol ids, and the aliases later runs compare against)
        known_as = (module.name, " ".join(module.aliases)) if module else ("", "")
        same_names = (
            state is not None
            and (state.module, state.aliases) == known_as
            and state.is_test == is_test(source.path)
        )
        if state is not None and (state.size, state.mtime_ns) == (source.size, source.mtime_ns):
            if same_names:
                plan.unchanged += 1
            else:
                plan.renamed.append((source, state.sha256))
            continue
        if source.path in unreadable:
            plan.skipped.append(Skipped(source.path, unreadable[source.path], source.size))
            continue
        sha = digests[source.path]
        if state is not None and state.sha256 == sha:
            if same_names:
                plan.unchanged += 1
                plan.touched.append(source)
            else:
                plan.renamed.append((source, sha))
            continue
        plan.parse.append((source, sha))
    if partial:
        plan.unchanged += len(states) - len(files)
    listed = set(states) if partial else {f.path for f in files}
    plan.present = listed - {s.path for s in plan.skipped}
    plan.deleted = sorted(set(states) - plan.present)
    return plan
