"""The index plan (cartograph.index.plan) on its own: stored file states + discovered files →
what a run parses, keeps, rewrites from stored facts, touches and deletes. No store, no files."""

from __future__ import annotations

import sys

from cartograph.discover import SourceFile
from cartograph.index import INDEX_FORMAT, INDEX_FORMAT_SOURCES
from cartograph.index.format import PACKAGE, index_format, runtime_versions
from cartograph.index.plan import is_rebuild, plan_files, stored_module_map, to_read
from cartograph.model import Skipped
from cartograph.resolve.modules import ModuleName, module_map
from cartograph.store.interfaces import FileState


def sha(text: str) -> str:
    return text * 64 if len(text) == 1 else text


def state(module: str, digest: str = "a", size: int = 10, mtime: int = 1, aliases: str = ""):
    return FileState(sha(digest), size, mtime, module, "python", f"iface-{module}", aliases)


def source(path: str, size: int = 10, mtime: int = 1) -> SourceFile:
    return SourceFile(path, size, mtime, "python")


def names(**modules: str):
    """Module names by path (`a_py="a"` is a.py → module a)."""
    return module_map(
        {
            path.replace("__", "/").replace("_py", ".py"): ModuleName(name, False)
            for path, name in modules.items()
        }
    )


def plan(states, files, current, digests=None, unreadable=None, **kwargs):
    digests = {path: sha(d) for path, d in (digests or {}).items()}
    return plan_files(states, files, current, digests, unreadable or {}, **kwargs)


def test_a_first_index_reads_and_parses_every_file():
    files = [source("a.py"), source("b.py")]
    assert to_read({}, files) == files
    done = plan({}, files, names(a_py="a", b_py="b"), {"a.py": "a", "b.py": "b"})
    assert [(s.path, d) for s, d in done.parse] == [("a.py", sha("a")), ("b.py", sha("b"))]
    assert (done.unchanged, done.renamed, done.touched, done.deleted) == (0, [], [], [])
    assert done.present == {"a.py", "b.py"}


def test_a_file_with_the_same_size_and_mtime_is_unchanged_unread():
    states = {"a.py": state("a")}
    files = [source("a.py")]
    assert to_read(states, files) == []
    done = plan(states, files, names(a_py="a"))
    assert done.unchanged == 1
    assert (done.parse, done.touched, done.renamed, done.deleted) == ([], [], [], [])
    assert done.present == {"a.py"}


def test_a_file_with_a_new_mtime_and_the_same_content_is_touched_not_parsed():
    states = {"a.py": state("a", mtime=1)}
    files = [source("a.py", mtime=2)]
    assert to_read(states, files) == files
    done = plan(states, files, names(a_py="a"), {"a.py": "a"})
    assert done.parse == []
    assert done.unchanged == 1
    assert [s.path for s in done.touched] == ["a.py"]


def test_a_file_with_new_content_is_parsed():
    states = {"a.py": state("a", size=10)}
    files = [source("a.py", size=11)]
    done = plan(states, files, names(a_py="a"), {"a.py": "b"})
    assert [(s.path, d) for s, d in done.parse] == [("a.py", sha("b"))]
    assert (done.unchanged, done.touched, done.deleted) == (0, [], [])


def test_a_file_gone_from_the_tree_is_deleted():
    states = {"a.py": state("a"), "gone.py": state("gone"), "also/gone.py": state("also.gone")}
    done = plan(states, [source("a.py")], names(a_py="a"))
    assert done.deleted == ["also/gone.py", "gone.py"]
    assert done.present == {"a.py"}


def test_a_moved_file_is_a_new_file_and_a_deleted_one():
    """Same content under a new path: its symbols have new ids, so it is parsed again."""
    states = {"old.py": state("old", digest="a")}
    files = [source("new.py")]
    done = plan(states, files, names(new_py="new"), {"new.py": "a"})
    assert [s.path for s, _ in done.parse] == ["new.py"]
    assert done.deleted == ["old.py"]


def test_a_file_whose_module_name_changed_is_rewritten_from_its_stored_facts():
    """pkg/mod.py becomes pkg.mod when pkg/__init__.py appears: same content, new names."""
    states = {"pkg/mod.py": state("mod")}
    current = module_map({"pkg/mod.py": ModuleName("pkg.mod", False)})
    done = plan(states, [source("pkg/mod.py")], current)
    assert [(s.path, d) for s, d in done.renamed] == [("pkg/mod.py", sha("a"))]
    assert (done.parse, done.unchanged) == ([], 0)
    # the same, read because its mtime changed: the digest just read is the one kept
    touched = plan(states, [source("pkg/mod.py", mtime=5)], current, {"pkg/mod.py": "a"})
    assert [(s.path, d) for s, d in touched.renamed] == [("pkg/mod.py", sha("a"))]
    assert touched.touched == []


def test_new_aliases_rewrite_a_file_too():
    states = {"web/app.ts": state("//web/app.ts", aliases="~cfg:1")}
    current = module_map({"web/app.ts": ModuleName("//web/app.ts", False, ("~cfg:2",))})
    assert len(plan(states, [source("web/app.ts")], current).renamed) == 1
    same = module_map({"web/app.ts": ModuleName("//web/app.ts", False, ("~cfg:1",))})
    assert plan(states, [source("web/app.ts")], same).unchanged == 1


def test_an_unreadable_file_is_skipped_and_no_longer_present():
    states = {"a.py": state("a", mtime=1)}
    files = [source("a.py", mtime=2), source("b.py")]
    done = plan(
        states,
        files,
        names(a_py="a", b_py="b"),
        {},
        {"a.py": "unreadable: Permission denied", "b.py": "binary"},
        skipped=[Skipped("big.py", "too large", 10**9)],
    )
    assert done.skipped == [
        Skipped("big.py", "too large", 10**9),
        Skipped("a.py", "unreadable: Permission denied", 10),
        Skipped("b.py", "binary", 10),
    ]
    assert done.parse == []
    assert done.present == set()
    assert done.deleted == ["a.py"]


def test_named_files_only_leave_the_others_unchanged():
    """A partial look (files named by an agent or a push): stored files not named are
    unchanged and present; nothing is deleted for not being named."""
    states = {"a.py": state("a"), "b.py": state("b"), "c.py": state("c")}
    files = [source("a.py", size=12)]
    current = stored_module_map(states)
    done = plan(states, files, current, {"a.py": "z"}, partial=True)
    assert [s.path for s, _ in done.parse] == ["a.py"]
    assert done.unchanged == 2
    assert done.present == {"a.py", "b.py", "c.py"}
    assert done.deleted == []
    # a stored skipped file stays out of the present ones
    skipped = plan(
        states, files, current, {"a.py": "z"}, partial=True, skipped=[Skipped("c.py", "binary", 1)]
    )
    assert skipped.present == {"a.py", "b.py"}
    assert skipped.deleted == ["c.py"]


def test_a_new_or_changed_index_format_rebuilds_everything():
    assert is_rebuild(None, INDEX_FORMAT)  # never indexed
    assert is_rebuild("1-0000000000000000", INDEX_FORMAT)  # another parser or resolver
    assert not is_rebuild(INDEX_FORMAT, INDEX_FORMAT)
    # a rebuild plans with no stored states: every file is parsed, even one the old index had
    files = [source("a.py")]
    done = plan({}, files, names(a_py="a"), {"a.py": "a"})
    assert [s.path for s, _ in done.parse] == ["a.py"]


def test_the_stored_module_names_come_back_with_packages_and_aliases():
    states = {
        "pkg/__init__.py": state("pkg"),
        "pkg/mod.py": state("pkg.mod", aliases="mod"),
        "README.md": state(""),  # no module: not in the map
    }
    stored = stored_module_map(states)
    assert stored.by_path["pkg/__init__.py"] == ModuleName("pkg", True)
    assert stored.by_path["pkg/mod.py"] == ModuleName("pkg.mod", False, ("mod",))
    assert "README.md" not in stored.by_path
    assert stored.by_name["mod"] == "pkg/mod.py"


def test_the_index_format_reads_every_source_that_shapes_an_index():
    """Derived from what the pipeline imports (issue 38: a hand-kept list left out the
    standard library's reach, the services parsers and resolvers, and the interpreter)."""
    sources = set(INDEX_FORMAT_SOURCES)
    assert all((PACKAGE / part).is_file() for part in sources)
    for wanted in (
        "resolve/standard.py",
        "resolve/standard_reading.py",  # what the reader process computes, started by name
        "resolve/ecma_services.py",
        "resolve/go_services.py",
        "resolve/jvm_services.py",
        "resolve/openapi.py",
        "parsing/ecma_services.py",
        "parsing/go_services.py",
        "parsing/jvm_services.py",
        "resolve/go.py",  # a rules module the registry imports by name
        "discover.py",  # which files are indexed, and which are tests
        "parsing/queries/python.scm",
    ):
        assert wanted in sources, wanted
    assert not any(part.startswith(("history/", "store/", "query/")) for part in sources)


def test_the_index_format_changes_with_the_interpreter_and_the_grammars():
    versions = runtime_versions()
    assert versions[0] == f"python=={sys.version_info.major}.{sys.version_info.minor}"
    assert any(v.startswith("tree-sitter-python==") for v in versions)
    assert index_format(INDEX_FORMAT_SOURCES, versions) == INDEX_FORMAT
    other_python = ("python==3.99", *versions[1:])
    assert index_format(INDEX_FORMAT_SOURCES, other_python) != INDEX_FORMAT
