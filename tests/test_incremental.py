"""Incremental indexing: after any change, the graph equals a from-scratch index of the tree.
Every test runs on both stores (SQLite and a real Neo4j server)."""

from __future__ import annotations

import random

import pytest
from cartograph.index import index_repository
from cartograph.query.common import symbols_named
from indexing_support import (
    REPO,
    Workspace,
    assert_same_as_fresh,
    calls,
    commit_all,
    git,
    git_init,
    qualnames,
    snapshot,
    symbol_ids,
    write,
    write_tree,
)


@pytest.fixture
def make(tmp_path, stores):
    def factory(files: dict[str, str], use_git: bool = True) -> Workspace:
        return Workspace(tmp_path, stores, files, use_git)

    return factory  # `stores` closes the stores


BASIC = {
    "b.py": (
        "def keep():\n    return 1\n\n\ndef drop():\n    return 2\n\n\n"
        "class Widget:\n    def render(self):\n        return keep()\n"
    ),
    "a.py": (
        "from b import Widget, drop, keep\n\n\n"
        "def run():\n    keep()\n    drop()\n    Widget().render()\n"
    ),
    "c.py": "import b\n\n\ndef go():\n    return b.keep()\n",
}


# ---------------------------------------------------------------- nothing changed


def test_unchanged_repository_parses_nothing_and_keeps_the_same_graph(make):
    ws = make(BASIC)
    first = ws.index()
    assert first.parsed == 3
    before = snapshot(ws.store, REPO)

    again = ws.index()
    assert again.parsed == 0
    assert again.unchanged == 3
    assert again.reresolved == 0
    assert again.deleted == 0
    assert snapshot(ws.store, REPO) == before

    # touching files (new mtime, same bytes) is still no change
    for name in BASIC:
        ws.write(name, BASIC[name])
    touched = ws.index()
    assert touched.parsed == 0
    assert touched.unchanged == 3
    assert snapshot(ws.store, REPO) == before
    # and the new mtimes were recorded: the next run does not even hash them
    assert ws.index().parsed == 0


def test_indexed_commit_follows_head(make):
    ws = make(BASIC)
    first = ws.index()
    assert first.indexed_sha == git(ws.root, "rev-parse", "HEAD").strip()
    assert not first.dirty
    ws.write("c.py", "import b\n\n\ndef go():\n    return b.drop()\n")
    dirty = ws.index()
    assert dirty.dirty
    head = commit_all(ws.root, "second")
    clean = ws.index()
    assert clean.indexed_sha == head
    assert not clean.dirty
    assert ws.store.repos.get_repo(REPO).indexed_sha == head


def test_a_run_on_named_files_asks_git_whether_the_tree_is_dirty(make):
    """Naming the edited files (an agent's hook, a push's sync) parses them, which says
    nothing about whether the work tree is clean: git does (issue 37: every push-synced
    repository showed "uncommitted changes")."""
    ws = make(BASIC)
    ws.index()
    ws.write("c.py", "import b\n\n\ndef go():\n    return b.drop()\n")
    commit_all(ws.root, "committed edit")
    committed = ws.index(files=["c.py"])
    assert committed.parsed == 1 and not committed.dirty
    assert not ws.store.repos.get_repo(REPO).dirty

    ws.write("c.py", "import b\n\n\ndef go():\n    return b.keep()\n")
    uncommitted = ws.index(files=["c.py"])
    assert uncommitted.dirty and ws.store.repos.get_repo(REPO).dirty

    # another file's edit makes the tree dirty, even when the named one is committed (that
    # file is not looked at: the graph keeps its indexed version)
    commit_all(ws.root, "c")
    ws.write("a.py", BASIC["a.py"] + "\n# note\n")
    assert ws.index(check=False, files=["c.py"]).dirty
    commit_all(ws.root, "a")
    assert not ws.index(files=["a.py"]).dirty


# ---------------------------------------------------------------- editing a file


def test_editing_one_file_reparses_only_it_and_keeps_incoming_edges(make):
    ws = make(BASIC)
    ws.index()
    assert ("a.run", "b.keep") in ws.calls()
    assert ("a.run", "b.drop") in ws.calls()
    assert ("c.go", "b.keep") in ws.calls()
    keep_id = "repo:b.py#b.keep"
    assert keep_id in symbol_ids(ws.store, REPO)

    # drop() goes away, added() appears, keep() moves down by three lines
    ws.write(
        "b.py",
        "# a comment\n# another\n\n"
        "def keep():\n    return 1\n\n\ndef added():\n    return keep()\n\n\n"
        "class Widget:\n    def render(self):\n        return added()\n",
    )
    result = ws.index()
    assert result.parsed == 1
    assert result.unchanged == 2

    names = ws.qualnames()
    assert "b.added" in names
    assert "b.drop" not in names
    (keep,) = [s for s in symbols_named(ws.store.graph, "b.keep", REPO, 10)]
    assert keep.id == keep_id
    assert keep.start_line == 4

    edges = ws.calls()
    # edges from files that did not change, into a function that still exists, survive
    assert ("a.run", "b.keep") in edges
    assert ("c.go", "b.keep") in edges
    assert ("a.run", "b.Widget.render") in edges
    # the edge into the deleted function is gone; the edited file's own edges are new
    assert ("a.run", "b.drop") not in edges
    assert ("b.Widget.render", "b.keep") not in edges
    assert ("b.Widget.render", "b.added") in edges
    assert ("b.added", "b.keep") in edges
    incoming = {row.edge.src for row in ws.store.graph.edges_of([keep_id], "in", ["CALLS"])}
    assert incoming == {"repo:a.py#a.run", "repo:c.py#c.go", "repo:b.py#b.added"}
    assert ("a.py", "drop") in ws.unresolved()


def test_renamed_function_drops_the_callers_edge_until_the_caller_is_fixed(make):
    ws = make(
        {
            "b.py": "def old_name():\n    return 1\n\n\ndef other():\n    return 2\n",
            "a.py": (
                "from b import old_name, other\n\n\ndef run():\n    old_name()\n    other()\n"
            ),
            "d.py": "import b\n\n\ndef via_module():\n    b.old_name()\n",
            "unrelated.py": "def alone():\n    return 0\n",
        }
    )
    ws.index()
    assert {("a.run", "b.old_name"), ("a.run", "b.other"), ("d.via_module", "b.old_name")} <= (
        ws.calls()
    )

    ws.write("b.py", "def new_name():\n    return 1\n\n\ndef other():\n    return 2\n")
    result = ws.index()
    assert result.parsed == 1
    # a.py and d.py did not change but looked b up: they are re-resolved
    assert result.reresolved >= 2
    edges = ws.calls()
    assert ("a.run", "b.old_name") not in edges
    assert ("d.via_module", "b.old_name") not in edges
    assert ("a.run", "b.other") in edges
    assert "b.old_name" not in ws.qualnames()

    ws.write("a.py", "from b import new_name, other\n\n\ndef run():\n    new_name()\n    other()\n")
    result = ws.index()
    assert result.parsed == 1
    assert ("a.run", "b.new_name") in ws.calls()
    assert ("a.run", "b.other") in ws.calls()
    assert ("d.via_module", "b.new_name") not in ws.calls()

    ws.write("d.py", "import b\n\n\ndef via_module():\n    b.new_name()\n")
    ws.index()
    assert ("d.via_module", "b.new_name") in ws.calls()


def test_missing_module_added_later_resolves_the_importer_without_editing_it(make):
    ws = make(
        {
            "app.py": (
                "from tools.helpers import assist\nimport late\n\n\n"
                "def main():\n    assist()\n    late.run()\n"
            ),
            "tools/__init__.py": "",
        }
    )
    ws.index()
    assert ws.calls() == set()
    assert {("app.py", "assist"), ("app.py", "late.run")} <= ws.unresolved()

    ws.write("tools/helpers.py", "def assist():\n    return 1\n")
    result = ws.index()
    assert result.parsed == 1
    assert result.reresolved >= 1
    assert ("app.main", "tools.helpers.assist") in ws.calls()
    assert ("app.py", "assist") not in ws.unresolved()

    ws.write("late.py", "def run():\n    return 2\n")
    result = ws.index()
    assert result.parsed == 1
    assert result.reresolved >= 1
    assert ("app.main", "late.run") in ws.calls()

    # and back: removing the module makes the call unresolved again
    ws.remove("tools/helpers.py")
    result = ws.index()
    assert result.deleted == 1
    assert ("app.main", "tools.helpers.assist") not in ws.calls()
    assert ("app.py", "assist") in ws.unresolved()


# ---------------------------------------------------------------- deleting and moving files


def test_deleting_a_file_removes_its_symbols_and_the_edges_into_them(make):
    ws = make(BASIC)
    ws.index()
    ws.remove("b.py")
    result = ws.index()
    assert result.deleted == 1
    assert result.parsed == 0
    assert set(ws.store.graph.files(REPO)) == {"a.py", "c.py"}
    assert not any(q.startswith("b") for q in ws.qualnames())
    assert not any(dst.startswith("b.") for _, dst in ws.calls())
    assert not any(":b.py#" in sid for sid in symbol_ids(ws.store, REPO))
    dangling = ws.store.graph.edges_of(["repo:b.py#b.keep"], "in", ["CALLS", "REFERENCES"])
    assert dangling == []
    assert {("a.py", "keep"), ("c.py", "b.keep")} <= ws.unresolved()


def test_git_mv_moves_symbols_to_the_new_path(make):
    ws = make(BASIC)
    ws.index()
    (ws.root / "lib").mkdir()
    git(ws.root, "mv", "b.py", "lib/b.py")  # lib/ is a source root: still module `b`
    result = ws.index()
    assert result.deleted == 1
    assert set(ws.store.graph.files(REPO)) == {"a.py", "c.py", "lib/b.py"}
    ids = symbol_ids(ws.store, REPO)
    assert "repo:lib/b.py#b.keep" in ids
    assert "repo:b.py#b.keep" not in ids
    assert ws.store.graph.files(REPO)["lib/b.py"].module == "b"
    incoming = {
        r.edge.src for r in ws.store.graph.edges_of(["repo:lib/b.py#b.keep"], "in", ["CALLS"])
    }
    assert {"repo:a.py#a.run", "repo:c.py#c.go"} <= incoming

    git(ws.root, "mv", "lib/b.py", "renamed.py")  # a new module name: importers lose it
    ws.index()
    assert "renamed.keep" in ws.qualnames()
    assert "b.keep" not in ws.qualnames()
    assert ("a.run", "renamed.keep") not in ws.calls()
    assert ("a.py", "keep") in ws.unresolved()
    commit_all(ws.root, "moves")
    ws.index()


def test_adding_init_py_turns_a_folder_into_a_package_and_renames_its_modules(make):
    ws = make(
        {
            "lib/util.py": "def helper():\n    return 1\n",
            "lib/more.py": "from util import helper\n\n\ndef more():\n    return helper()\n",
            "app.py": (
                "import lib.util\nfrom util import helper\n\n\n"
                "def by_package():\n    return lib.util.helper()\n\n\n"
                "def by_root():\n    return helper()\n"
            ),
        }
    )
    ws.index()
    assert {"util", "util.helper", "more.more"} <= ws.qualnames()
    assert ("app.by_root", "util.helper") in ws.calls()
    assert ("more.more", "util.helper") in ws.calls()

    ws.write("lib/__init__.py", "")
    result = ws.index()
    assert result.parsed == 1  # only the new file; the moved modules keep their facts
    names = ws.qualnames()
    assert {"lib", "lib.util", "lib.util.helper", "lib.more.more"} <= names
    assert "util.helper" not in names
    assert ws.store.graph.files(REPO)["lib/util.py"].module == "lib.util"
    edges = ws.calls()
    assert ("app.by_package", "lib.util.helper") in edges
    assert ("app.by_root", "util.helper") not in edges
    assert ("app.by_root", "lib.util.helper") not in edges

    ws.remove("lib/__init__.py")
    ws.index()
    assert "util.helper" in ws.qualnames()
    assert "lib.util.helper" not in ws.qualnames()
    assert ("app.by_root", "util.helper") in ws.calls()


# ---------------------------------------------------------------- re-exports


def test_reexported_function_moving_to_another_module_updates_the_importer(make):
    ws = make(
        {
            "pkg/__init__.py": "from pkg.impl import f\n",
            "pkg/impl.py": "def f():\n    return 1\n",
            "app.py": "from pkg import f\n\n\ndef main():\n    return f()\n",
        }
    )
    ws.index()
    assert ("app.main", "pkg.impl.f") in ws.calls()

    # f moves to pkg/other.py and __init__ re-exports it from there; app.py is untouched
    ws.write("pkg/other.py", "def f():\n    return 2\n")
    ws.write("pkg/impl.py", "def g():\n    return 1\n")
    ws.write("pkg/__init__.py", "from pkg.other import f\n")
    result = ws.index()
    assert result.parsed == 3
    assert result.reresolved >= 1
    edges = ws.calls()
    assert ("app.main", "pkg.other.f") in edges
    assert ("app.main", "pkg.impl.f") not in edges


def test_reexport_chain_through_an_unchanged_init(make):
    ws = make(
        {
            "pkg/__init__.py": "from .impl import *\n",
            "pkg/impl.py": "__all__ = ['f']\n\n\ndef f():\n    return 1\n",
            "pkg/other.py": "def f():\n    return 2\n",
            "app.py": "from pkg import f\n\n\ndef main():\n    return f()\n",
        }
    )
    ws.index()
    assert ("app.main", "pkg.impl.f") in ws.calls()

    # only impl.py changes: f now comes from other.py, re-exported by impl
    ws.write("pkg/impl.py", "from pkg.other import f\n\n__all__ = ['f']\n")
    result = ws.index()
    assert result.parsed == 1
    assert result.reresolved >= 1  # app.py (and __init__) did not change
    edges = ws.calls()
    assert ("app.main", "pkg.other.f") in edges
    assert ("app.main", "pkg.impl.f") not in edges

    # impl stops exporting f: the call no longer resolves
    ws.write("pkg/impl.py", "__all__ = []\n")
    ws.index()
    assert not any(src == "app.main" for src, _ in ws.calls())
    assert ("app.py", "f") in ws.unresolved()

    # a new module in the chain: impl re-exports from a deeper module that appears later
    ws.write("pkg/impl.py", "from pkg.deep.leaf import f\n\n__all__ = ['f']\n")
    ws.index()
    assert ("app.py", "f") in ws.unresolved()
    ws.write("pkg/deep/__init__.py", "")
    ws.write("pkg/deep/leaf.py", "def f():\n    return 3\n")
    ws.index()
    assert ("app.main", "pkg.deep.leaf.f") in ws.calls()


def test_base_class_in_another_module_gaining_a_method(make):
    ws = make(
        {
            "base.py": "class Base:\n    def start(self):\n        return 1\n",
            "child.py": (
                "from base import Base\n\n\nclass Child(Base):\n"
                "    def run(self):\n        self.start()\n        return self.stop()\n"
            ),
        }
    )
    ws.index()
    assert ("child.Child.run", "base.Base.start") in ws.calls()
    assert ("child.py", "self.stop") in ws.unresolved()

    ws.write(
        "base.py",
        "class Base:\n    def start(self):\n        return 1\n\n"
        "    def stop(self):\n        return 0\n",
    )
    result = ws.index()
    assert result.parsed == 1
    assert result.reresolved >= 1
    assert ("child.Child.run", "base.Base.stop") in ws.calls()

    # the base class is renamed away: the subclass loses both edges
    ws.write("base.py", "class Other:\n    def start(self):\n        return 1\n")
    ws.index()
    assert not any(dst.startswith("base.Base") for _, dst in ws.calls())


# ---------------------------------------------------------------- many steps


def test_a_long_sequence_of_random_edits_always_matches_a_fresh_index(make):
    """Seeded random edits (add, change, delete, move, toggle __init__.py) on a small repo."""
    rng = random.Random(20240611)
    modules = ["m0", "m1", "m2", "pkg.m3", "pkg.m4", "pkg.sub.m5"]
    functions = ["alpha", "beta", "gamma"]

    def path_of(module: str) -> str:
        return module.replace(".", "/") + ".py"

    def source(module: str) -> str:
        lines = []
        imports = rng.sample(modules, 2)
        for target in imports:
            lines.append(f"import {target}")
        lines.append("from pkg import exported")
        for name in rng.sample(functions, rng.randint(1, 3)):
            lines.append(f"\n\ndef {name}():")
            for target in imports:
                lines.append(f"    {target}.{rng.choice(functions)}()")
            lines.append("    exported()")
        return "\n".join(lines) + "\n"

    files = {path_of(m): source(m) for m in modules}
    files["pkg/__init__.py"] = "from pkg.m3 import alpha as exported\n"
    files["pkg/sub/__init__.py"] = ""
    ws = make(files)
    ws.index()
    assert ws.calls()

    for _step in range(12):
        action = rng.choice(["edit", "edit", "delete", "add", "init", "reexport"])
        present = sorted(p for p in (ws.root).rglob("*.py") if ".git" not in p.parts)
        rel_present = [str(p.relative_to(ws.root)) for p in present]
        if action == "edit":
            module = rng.choice(modules)
            ws.write(path_of(module), source(module))
        elif action == "delete":
            candidates = [p for p in rel_present if not p.endswith("__init__.py")]
            if candidates:
                ws.remove(rng.choice(candidates))
        elif action == "add":
            module = rng.choice(modules)
            ws.write(path_of(module), source(module))
        elif action == "init":
            init = "pkg/sub/__init__.py"
            if init in rel_present:
                ws.remove(init)
            else:
                ws.write(init, "")
        else:
            ws.write(
                "pkg/__init__.py",
                f"from {rng.choice(modules)} import {rng.choice(functions)} as exported\n",
            )
        if rng.random() < 0.3:
            commit_all(ws.root, f"step {_step}")
        ws.index()  # compares with a fresh index every time


# ---------------------------------------------------------------- several repositories


def test_two_repositories_in_one_store_stay_apart(tmp_path, stores):
    store = stores.open("shared")
    one = git_init(tmp_path / "one")
    write_tree(one, {"util.py": "def helper():\n    return 1\n", "main.py": BASIC["c.py"]})
    write_tree(one, {"b.py": BASIC["b.py"]})
    commit_all(one)
    two = git_init(tmp_path / "two")
    write_tree(
        two,
        {
            "util.py": "def helper():\n    return 2\n\n\ndef only_two():\n    return helper()\n",
            "app.py": "from util import helper\n\n\ndef run():\n    helper()\n",
        },
    )
    commit_all(two)

    index_repository(store, one, name="one", workers=1)
    index_repository(store, two, name="two", workers=1)
    assert {r.name for r in store.repos.list_repos()} == {"one", "two"}
    assert set(store.graph.files("one")) == {"util.py", "main.py", "b.py"}
    assert set(store.graph.files("two")) == {"util.py", "app.py"}
    assert "util.only_two" not in qualnames(store, "one")
    assert "util.only_two" in qualnames(store, "two")
    assert all(s.repo == "one" for s in symbols_named(store.graph, "util.helper", "one", 10))
    assert {s.id for s in symbols_named(store.graph, "util.helper", None, 10)} == {
        "one:util.py#util.helper",
        "two:util.py#util.helper",
    }
    assert calls(store, "two") == {("app.run", "util.helper"), ("util.only_two", "util.helper")}
    assert ("c.go", "b.keep") not in calls(store, "two")
    before_one = snapshot(store, "one")
    assert_same_as_fresh(store, one, "one")
    assert_same_as_fresh(store, two, "two")

    # re-index `two` after changes: `one` is not touched at all (not even its time stamp)
    one_row = store.repos.get_repo("one")
    write(two, "util.py", "def renamed():\n    return 2\n")
    (two / "app.py").unlink()
    write(two, "extra.py", "from util import renamed\n\n\ndef x():\n    renamed()\n")
    result = index_repository(store, two, name="two", workers=1)
    assert result.deleted == 1
    assert store.repos.get_repo("one") == one_row
    assert snapshot(store, "one") == before_one
    assert_same_as_fresh(store, one, "one")
    assert_same_as_fresh(store, two, "two")
    assert calls(store, "two") == {("extra.x", "util.renamed")}

    # the same tree under two names: independent copies
    index_repository(store, one, name="one-copy", workers=1)
    copy_ids = {sid.split(":", 1)[1] for sid in symbol_ids(store, "one-copy")}
    assert copy_ids == {sid.split(":", 1)[1] for sid in symbol_ids(store, "one")}
    store.repos.delete_repo("one-copy")
    assert snapshot(store, "one") == before_one
    assert {r.name for r in store.repos.list_repos()} == {"one", "two"}


# ---------------------------------------------------------------- IMPORTS of submodules


SUBMODULE = {
    "pkg/__init__.py": "",
    "pkg/sub.py": "def f():\n    return 1\n",
    "app.py": "from pkg import sub\n",
}


def test_editing_an_importer_keeps_its_imports_edge_to_the_submodule(make):
    ws = make(SUBMODULE)
    ws.index()
    assert ("app.py", "file", "pkg/sub.py", ["sub"]) in ws.store.graph.import_links(REPO)

    ws.write("app.py", "from pkg import sub\n# edited\n")
    ws.index(check=False)
    links = ws.store.graph.import_links(REPO)
    assert ("app.py", "file", "pkg/sub.py", ["sub"]) in links, links
    assert_same_as_fresh(ws.store, ws.root, REPO)


def test_deleting_a_submodule_removes_the_imports_edge_to_it(make):
    ws = make(SUBMODULE)
    ws.index()
    ws.remove("pkg/sub.py")
    result = ws.index(check=False)
    assert result.deleted == 1
    links = ws.store.graph.import_links(REPO)
    assert not any(target == "pkg/sub.py" for _path, _kind, target, _names in links), links
    assert_same_as_fresh(ws.store, ws.root, REPO)


# ---------------------------------------------------------------- determinism

DETERMINISM = {
    "base.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n",
    "app.py": (
        "from base import *\n"
        "from base import alpha as first\n"
        "from base import beta as second\n"
        "import base\n\n\n"
        "class Handlers:\n"
        "    callback = first\n"
        "    callback = second\n\n"
        "    def go(self):\n        return self.callback()\n\n\n"
        "HANDLER = first\n"
        "HANDLER = second\n"
    ),
}


def test_indexing_the_same_tree_twice_gives_the_same_graph(tmp_path, stores):
    """A fresh index is reproducible: "incremental == fresh" depends on it. (SQLite: a new
    file each run; Neo4j: the repository deleted after each run.)"""
    root = write_tree(tmp_path / "repo", DETERMINISM)
    snapshots = []
    first_lines = set()
    for run in range(12):
        store = stores.open(f"run-{run}")
        index_repository(store, root, name=REPO, workers=1)
        snapshots.append(snapshot(store, REPO))
        lines = {
            s.qualname: s.start_line
            for s in store.graph.symbols_in_files(REPO, ["app.py"])["app.py"]
        }
        first_lines.add((lines["app.Handlers.callback"], lines["app.HANDLER"]))
        store.repos.delete_repo(REPO)
        assert store.repos.list_repos() == []
    differing = [
        (run, part, sorted(snap[part] ^ snapshots[0][part])[:4])
        for run, snap in enumerate(snapshots)
        for part in snap
        if snap[part] != snapshots[0][part]
    ]
    assert not differing, differing[:3]
    # docs/resolution.md: a name defined twice in one scope is one symbol; the first
    # definition gives it its lines
    assert first_lines == {(8, 15)}


# ---------------------------------------------------------------- paths that share a prefix


def test_files_whose_paths_share_a_prefix_are_replaced_independently(make):
    """`mod.py` and its stub `mod.pyi`, folders named `tools#2` and `price$`: editing one
    file replaces exactly that file's symbols and edges."""
    ws = make(
        {
            "mod.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n",
            "mod.pyi": "def f() -> int: ...\ndef g() -> int: ...\n",
            "tools#2/job.py": "from mod import f\n\n\ndef run():\n    return f()\n",
            "tools#2/job_extra.py": "from mod import g\n\n\ndef run():\n    return g()\n",
            "price$/calc.py": "from mod import g\n\n\ndef total():\n    return g()\n",
        }
    )
    ws.index()
    paths = {s.path for s in symbols_named(ws.store.graph, "f", REPO, 10)}
    assert paths == {"mod.py", "mod.pyi"}
    callers = {r.edge.src for r in ws.store.graph.edges_of(["repo:mod.py#mod.g"], "in", ["CALLS"])}
    assert callers == {
        "repo:mod.py#mod.f",
        "repo:tools#2/job_extra.py#job_extra.run",
        "repo:price$/calc.py#calc.total",
    }

    ws.write("tools#2/job.py", "from mod import g\n\n\ndef run():\n    return g()\n")
    ws.index()
    ws.write("mod.py", "def f():\n    return 0\n\n\ndef g():\n    return f()\n")
    ws.index()
    callers = {r.edge.src for r in ws.store.graph.edges_of(["repo:mod.py#mod.g"], "in", ["CALLS"])}
    assert callers == {
        "repo:tools#2/job.py#job.run",
        "repo:tools#2/job_extra.py#job_extra.run",
        "repo:price$/calc.py#calc.total",
    }
    assert {s.path for s in symbols_named(ws.store.graph, "f", REPO, 10)} == {"mod.py", "mod.pyi"}
    ws.remove("tools#2/job.py")
    ws.index()
    assert "tools#2/job.py" not in ws.store.graph.files(REPO)


# ---------------------------------------------------------------- source roots


def test_adding_a_pyproject_toml_renames_modules_and_reresolves_their_importers(make):
    """A folder with a pyproject.toml is a source root: `proj/tool.py` stops being
    `proj.tool` and becomes `tool`; files that imported `proj.tool` must be re-resolved."""
    ws = make(
        {
            "proj/tool.py": "class Service:\n    def send(self):\n        return 1\n",
            "app.py": "from proj.tool import Service\n\n\ndef use():\n    Service().send()\n",
        }
    )
    ws.index()
    assert ("app.use", "proj.tool.Service.send") in ws.calls()

    ws.write("proj/pyproject.toml", "[project]\nname = 'proj'\n")
    result = ws.index(check=False)
    assert "tool.Service" in ws.qualnames()
    assert "proj.tool.Service" not in ws.qualnames()
    dangling = [
        row.edge.dst
        for row in ws.store.graph.edges_of(["repo:app.py#app.use"], "out", ["CALLS"])
        if row.other is None
    ]
    assert dangling == [], f"edges to symbols that no longer exist: {dangling}"
    assert result.reresolved >= 1  # app.py consulted `proj.tool`
    assert_same_as_fresh(ws.store, ws.root, REPO)

    ws.remove("proj/pyproject.toml")
    ws.index()
    assert ("app.use", "proj.tool.Service.send") in ws.calls()


# ---------------------------------------------------------------- cycles


STAR_CYCLE = {
    "app.py": "class Client:\n    pass\n",
    "p.py": "from q import *\n\n__all__ = ['Client']\n",
    "q.py": "from app import Client\nfrom p import *\n",
    "a_first.py": "from q import Client\n\n\ndef one():\n    Client()\n",
    "user.py": "from p import Client\n\n\ndef u():\n    Client()\n",
}
FROM_CYCLE = {
    "app.py": "class Client:\n    pass\n",
    "p.py": "from q import Client\n",
    "q.py": "from app import Client\nfrom p import Client\n",
    "a_first.py": "from q import Client\n\n\ndef one():\n    Client()\n",
    "user.py": "from p import Client\n\n\ndef u():\n    Client()\n",
}


@pytest.mark.parametrize("files", [STAR_CYCLE, FROM_CYCLE], ids=["star-imports", "from-imports"])
def test_names_through_an_import_cycle_do_not_depend_on_resolution_order(make, files):
    """`p` and `q` import each other. A fresh index resolves `a_first.py` (which asks `q`
    first) before `user.py` (which asks `p`); an incremental run that only re-resolves
    user.py asks `p` first. The graph must not depend on that order."""
    ws = make(files)
    ws.index(check=False)
    assert ("a_first.one", "app.Client") in ws.calls()
    fresh_calls = ws.calls()

    ws.write("user.py", files["user.py"] + "# edited\n")
    ws.index(check=False)
    assert ws.calls() == fresh_calls
    assert_same_as_fresh(ws.store, ws.root, REPO)


def test_star_import_cycle_resolves_like_python(make):
    """In Python `p.Client` is `app.Client` whichever of p, q is imported first."""
    ws = make(STAR_CYCLE)
    ws.index()
    assert ("user.u", "app.Client") in ws.calls()
    assert ("a_first.one", "app.Client") in ws.calls()


# ---------------------------------------------------------------- edits that look local


MODELS = "class Client:\n    def send(self):\n        pass\n\n\nclass Server:\n    def send(self):\n        pass\n"


@pytest.mark.parametrize(
    ("before", "after", "edge_before", "edge_after"),
    [
        pytest.param(
            "class Holder:\n    def __init__(self):\n        self.conn = Client()\n",
            "class Holder:\n    def __init__(self):\n        self.conn = Server()\n",
            "models.Client.send",
            "models.Server.send",
            id="attribute-set-in-a-method-body",
        ),
        pytest.param(
            "class Holder:\n    def connect(self):\n        c = Client()\n        self.conn = c\n",
            "class Holder:\n    def connect(self):\n        c = Server()\n        self.conn = c\n",
            "models.Client.send",
            "models.Server.send",
            id="attribute-set-through-a-local",
        ),
        pytest.param(
            "class Holder:\n    conn = Client()\n",
            "class Holder:\n    conn = Server()\n",
            "models.Client.send",
            "models.Server.send",
            id="class-attribute",
        ),
        pytest.param(
            "class Holder:\n    conn: Client\n",
            "class Holder:\n    conn: Server\n",
            "models.Client.send",
            "models.Server.send",
            id="annotated-class-attribute",
        ),
        pytest.param(
            "class Holder:\n    def __init__(self, conn: Client):\n        self.conn = conn\n",
            "class Holder:\n    def __init__(self, conn: Server):\n        self.conn = conn\n",
            "models.Client.send",
            "models.Server.send",
            id="attribute-from-an-annotated-parameter",
        ),
        pytest.param(
            "class Holder:\n    @property\n    def conn(self):\n        return Client()\n",
            "class Holder:\n    @property\n    def conn(self):\n        return Server()\n",
            "models.Client.send",
            "models.Server.send",
            id="inferred-return-of-a-property",
        ),
        pytest.param(
            "import models\n\n\nclass Holder:\n    @property\n    def conn(self):\n"
            "        return models.Client()\n",
            "import models\n\n\nclass Holder:\n    @property\n    def conn(self):\n"
            "        return models.Server()\n",
            "models.Client.send",
            "models.Server.send",
            id="inferred-return-through-a-module",
        ),
    ],
)
def test_edits_in_one_file_that_change_what_its_importers_resolve(
    make, before, after, edge_before, edge_after
):
    header = "from models import Client, Server\n\n\n"
    ws = make(
        {
            "models.py": MODELS,
            "b.py": header + before,
            "a.py": "from b import Holder\n\n\ndef use(h: Holder):\n    h.conn.send()\n",
        }
    )
    ws.index()
    assert ("a.use", edge_before) in ws.calls()
    ws.write("b.py", header + after)
    ws.index()
    assert ("a.use", edge_after) in ws.calls()


def test_moving_a_def_below_a_star_import_changes_which_one_importers_get(make):
    """Python binds in order: a `def f` after `from other import *` wins over the star
    import's `f`, one before it loses. Moving the def changes no name and no signature."""
    ws = make(
        {
            "other.py": "def f():\n    return 'other'\n",
            "b.py": "def f():\n    return 'b'\n\n\nfrom other import *\n",
            "a.py": "from b import f\n\n\ndef use():\n    f()\n",
        }
    )
    ws.index()
    assert ws.calls() == {("a.use", "other.f")}
    ws.write("b.py", "from other import *\n\n\ndef f():\n    return 'b'\n")
    ws.index(check=False)
    assert ws.calls() == {("a.use", "b.f")}
    assert_same_as_fresh(ws.store, ws.root, REPO)


def test_short_module_alias_appears_and_disappears_with_init_py(make):
    """Without `pkg/__init__.py`, `pkg/m2.py` can also be imported as `m2` (a test runner
    that puts pkg/ on sys.path); with it, only as `pkg.m2`. Importers of `m2` follow."""
    ws = make(
        {
            "pkg/__init__.py": "",
            "pkg/m2.py": "def f():\n    return 1\n",
            "app.py": "from m2 import f\n\n\ndef main():\n    f()\n",
        }
    )
    ws.index()
    assert ws.calls() == set()

    ws.remove("pkg/__init__.py")
    ws.index()
    assert ws.calls() == {("app.main", "pkg.m2.f")}

    ws.write("pkg/__init__.py", "")
    ws.index(check=False)
    assert ws.calls() == set()
    assert_same_as_fresh(ws.store, ws.root, REPO)


# ---------------------------------------------------------------- a look at named files only


def test_reindexing_named_files_equals_a_full_look(make):
    """`files=[...]` (what an agent just edited) gives the graph a full look gives; a named
    file that adds, deletes or renames a module falls back to the full look."""
    ws = make(
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import helper\n\n\ndef run():\n    return helper()\n",
            "pkg/b.py": "def helper():\n    return 1\n",
        }
    )
    ws.index()
    ws.write("pkg/b.py", "def helper():\n    return 2\n\n\ndef extra():\n    return helper()\n")
    result = index_repository(ws.store, ws.root, name=REPO, workers=1, files=["pkg/b.py"])
    assert result.parsed == 1 and result.unchanged == 2
    assert ("pkg.b.extra", "pkg.b.helper") in ws.calls()
    assert_same_as_fresh(ws.store, ws.root, REPO)

    # renaming the function a's call binds to: a is re-resolved, though only b was named
    ws.write("pkg/b.py", "def helper2():\n    return 2\n")
    result = index_repository(ws.store, ws.root, name=REPO, workers=1, files=["pkg/b.py"])
    assert result.reresolved == 1 and ("pkg.a.run", "pkg.b.helper") not in ws.calls()
    assert_same_as_fresh(ws.store, ws.root, REPO)

    # a new module named: the whole tree is listed
    ws.write("pkg/c.py", "from pkg.b import helper2\n\n\ndef go():\n    return helper2()\n")
    ws.remove("pkg/a.py")
    result = index_repository(ws.store, ws.root, name=REPO, workers=1, files=["pkg/c.py"])
    assert result.deleted == 1 and ("pkg.c.go", "pkg.b.helper2") in ws.calls()
    assert_same_as_fresh(ws.store, ws.root, REPO)


# ---------------------------------------------------------------- definitions appended


APPENDED_BASE = {
    "lib.py": (
        "import os\n\nLIMIT = int(os.environ.get('LIMIT', '3'))\nNAMES = ['a', 'K']\n\n\n"
        "def a():\n    return 1\n\n\nclass K:\n    def m(self):\n        return 2\n"
    ),
    "uses_a.py": "from lib import a\n\n\ndef f():\n    a()\n",
    "uses_k.py": "import lib\n\n\ndef g():\n    lib.K().m()\n",
    "star.py": "from lib import *\n\n\ndef h():\n    b()\n",
    "wrapper.py": "import lib\n\n\ndef make() -> 'lib.B':\n    return lib.B()\n",
    "via.py": "from wrapper import make\n\n\ndef w():\n    make().go()\n",
}
APPENDED = "\n\ndef b():\n    return 3\n\n\nclass B:\n    def go(self):\n        return 4\n"


def test_appending_definitions_reresolves_only_the_files_that_can_name_them(make):
    """A module that only gains definitions at its end: of its importers, only those that
    name a new definition (star.py, wrapper.py), or consulted a module that does (via.py,
    through what `make` returns), can resolve differently; uses_a.py and uses_k.py are not
    re-resolved, and the graph equals a fresh index."""
    ws = make(APPENDED_BASE)
    ws.index()
    before = ws.calls()
    assert ("star.h", "lib.b") not in before and ("via.w", "lib.B.go") not in before
    ws.write("lib.py", APPENDED_BASE["lib.py"] + APPENDED)
    result = ws.index()
    assert (result.parsed, result.reresolved) == (1, 3)
    after = ws.calls()
    assert {("star.h", "lib.b"), ("via.w", "lib.B.go"), ("uses_a.f", "lib.a")} <= after


def test_a_definition_appended_that_redefines_a_name_reaches_its_users(make):
    """`def a` appended again: the later definition wins, so `uses_a.f` now calls it."""
    ws = make(APPENDED_BASE)
    ws.index()
    ws.write("lib.py", APPENDED_BASE["lib.py"] + "\n\ndef a():\n    return K()\n")
    result = ws.index()
    assert result.reresolved >= 1 and ("uses_a.f", "lib.a") in ws.calls()


def test_appended_definitions_a_module_already_used_by_name_reach_their_users(make):
    """`lib.make_b()` returned `B()` before `B` existed; appending `class B` changes what
    callers of `make_b` reach, though they never name `B` (lib.py names it)."""
    files = {
        **APPENDED_BASE,
        "lib.py": APPENDED_BASE["lib.py"] + "\n\ndef make_b():\n    return B()\n",
        "caller.py": "import lib\n\n\ndef c():\n    lib.make_b().go()\n",
    }
    ws = make(files)
    ws.index()
    assert ("caller.c", "lib.B.go") not in ws.calls()
    ws.write("lib.py", files["lib.py"] + "\n\nclass B:\n    def go(self):\n        return 4\n")
    ws.index()
    assert ("caller.c", "lib.B.go") in ws.calls()


def test_random_appends_and_uses_always_match_a_fresh_index(make):
    """Seeded: definitions appended to modules, and importers that call names that exist,
    do not exist yet, or come through another module's function or a star import."""
    rng = random.Random(20261202)
    modules = ["m0", "m1", "m2", "pkg.m3"]
    defined: dict[str, list[str]] = {m: ["base"] for m in modules}
    text = {m: "def base():\n    return 0\n" for m in modules}
    files = {m.replace(".", "/") + ".py": text[m] for m in modules}
    files["pkg/__init__.py"] = ""
    files["user.py"] = "def use():\n    pass\n"
    ws = make(files)
    ws.index()
    for counter in range(1, 15):
        module = rng.choice(modules)
        path = module.replace(".", "/") + ".py"
        if rng.random() < 0.6:  # append a definition calling into another module
            other = rng.choice([m for m in modules if m != module])
            name = f"f{counter}"
            future = f"f{counter + rng.randint(1, 4)}"
            called = rng.choice([*defined[other], future])
            body = f"    import {other}\n    return {other}.{called}()\n"
            if rng.random() < 0.3:
                text[module] += f"\n\nclass C{counter}:\n    def {name}(self):\n{body}"
                defined[module].append(f"C{counter}")
            else:
                text[module] += f"\n\ndef {name}():\n{body}"
                defined[module].append(name)
            ws.write(path, text[module])
        else:  # the user names something, present or not yet
            target = rng.choice(modules)
            name = rng.choice([*defined[target], f"f{counter + rng.randint(1, 4)}"])
            style = rng.choice(["import", "star", "from"])
            if style == "import":
                user = f"import {target}\n\n\ndef use():\n    {target}.{name}()\n"
            elif style == "star":
                user = f"from {target} import *\n\n\ndef use():\n    {name}()\n"
            else:
                user = f"from {target} import {name}\n\n\ndef use():\n    {name}()\n"
            ws.write("user.py", user)
        ws.index()  # compares with a fresh index every time


HUB = {
    "base.py": "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
    # a hub module (like django.db.models): a star import, then its own names
    "hub.py": "from base import *\n\n\ndef own():\n    return a()\n",
    "uses_own.py": "import hub\n\n\ndef f():\n    hub.own()\n",
    "uses_a.py": "from hub import a\n\n\ndef g():\n    a()\n",
    "uses_new.py": "import hub\n\n\ndef h():\n    hub.new()\n",
    "uses_b.py": "from hub import b\n\n\ndef k():\n    b()\n",
    "other.py": "def a():\n    return 6\n\n\ndef b():\n    return 7\n",
}


def test_a_name_bound_after_a_star_import_is_its_own(make):
    """In a module with a star import, a definition appended after it changes only the
    lookups of its name: of hub's three importers only uses_new.py is re-resolved (it was
    every importer when a star made the whole module wide). A definition that shadows a
    name the star gave, and one bound before the star, still reach their users; the graph
    equals a fresh index each time."""
    ws = make(HUB)
    ws.index()
    appended = HUB["hub.py"] + "\n\ndef new():\n    return 3\n"
    ws.write("hub.py", appended)
    result = ws.index()
    assert (result.parsed, result.reresolved) == (1, 1)
    assert ("uses_new.h", "hub.new") in ws.calls()

    shadowing = appended + "\n\ndef a():\n    return 4\n"  # `a` was the star's
    ws.write("hub.py", shadowing)
    result = ws.index()
    # uses_a.py names `a`, uses_own.py names `own`, which returns what `a` returns
    assert (result.parsed, result.reresolved) == (1, 2)
    assert ("uses_a.g", "hub.a") in ws.calls() and ("uses_a.g", "base.a") not in ws.calls()

    above = "def b():\n    return 5\n\n\n" + shadowing  # bound before the star: the star's
    ws.write("hub.py", above)
    result = ws.index()
    assert (result.parsed, result.reresolved) == (1, 4)  # module-wide
    assert ("uses_b.k", "base.b") in ws.calls()

    ws.write("hub.py", above.replace("from base import *", "from other import *"))
    result = ws.index()  # the star gives another module's names: module-wide
    assert (result.parsed, result.reresolved) == (1, 4)
    assert ("uses_b.k", "other.b") in ws.calls()


def test_random_edits_of_a_module_with_a_star_import_match_a_fresh_index(make):
    """Seeded: definitions appended to a hub that star-imports a base module, some new, some
    shadowing the star's names, some rebinding a name above the star; definitions appended to
    the base (the star gives more); users naming hub's names by attribute, from-import or a
    star import of the hub. The graph equals a fresh index after every step, and narrowing
    happened (a definition appended to the hub re-resolved fewer files than import it)."""
    rng = random.Random(20261204)
    base_names, hub_names = ["a", "b"], ["own"]
    text = {"base.py": HUB["base.py"], "hub.py": HUB["hub.py"]}
    users = {f"user{i}.py": "import hub\n\n\ndef use():\n    hub.own()\n" for i in range(4)}
    ws = make({**text, **users})
    ws.index()
    narrowed = 0
    for counter in range(1, 25):
        roll, appended = rng.random(), False
        name = rng.choice([f"n{counter}", *base_names, *hub_names])
        if roll < 0.4:  # the hub binds a name after its star import
            called = rng.choice([*base_names, *hub_names, f"n{counter + 2}"])
            text["hub.py"] += f"\n\ndef {name}():\n    return {called}()\n"
            hub_names.append(name)
            ws.write("hub.py", text["hub.py"])
            appended = True
        elif roll < 0.5:  # ... or above it
            text["hub.py"] = f"def {name}():\n    return 0\n\n\n" + text["hub.py"]
            ws.write("hub.py", text["hub.py"])
        elif roll < 0.7:  # the base gives the star one more name
            fresh = f"n{counter}"
            text["base.py"] += f"\n\ndef {fresh}():\n    return 1\n"
            base_names.append(fresh)
            ws.write("base.py", text["base.py"])
        else:  # a user names something of the hub's, present or not yet
            user = rng.choice(sorted(users))
            style = rng.choice(["import", "from", "star"])
            if style == "import":
                users[user] = f"import hub\n\n\ndef use():\n    hub.{name}()\n"
            elif style == "from":
                users[user] = f"from hub import {name}\n\n\ndef use():\n    {name}()\n"
            else:
                users[user] = f"from hub import *\n\n\ndef use():\n    {name}()\n"
            ws.write(user, users[user])
        result = ws.index()  # compares with a fresh index every time
        narrowed += appended and result.reresolved < len(users)
    assert narrowed >= 3


def test_a_file_edited_and_not_indexed_yet_is_judged_by_what_is_indexed(make):
    """star.py no longer names `b` on disk, but its indexed version does (only lib.py is
    named to the run): appending `b` to lib.py still re-resolves star.py's indexed facts."""
    ws = make(APPENDED_BASE)
    ws.index()
    ws.write("star.py", "from lib import *\n\n\ndef h():\n    pass\n")
    ws.write("lib.py", APPENDED_BASE["lib.py"] + APPENDED)
    result = ws.index(check=False, files=["lib.py"])
    assert result.parsed == 1
    assert ("star.h", "lib.b") in ws.calls()


# ---------------------------------------------------------------- top-level names changed

CHANGED_BASE = {
    "lib.py": (
        "def helper():\n    return 1\n\n\n"
        "def make():\n    return Thing()\n\n\n"
        "class Thing:\n    def go(self):\n        return helper()\n\n\n"
        "def plain(x):\n    return x\n"
    ),
    "uses_helper.py": "from lib import helper\n\n\ndef f():\n    helper()\n",
    "uses_plain.py": "import lib\n\n\ndef g():\n    lib.plain(1)\n",
    "uses_make.py": "from lib import make\n\n\ndef h():\n    make().go()\n",
    "unrelated.py": "import lib\n\n\ndef u():\n    return lib\n",
}


def test_a_changed_function_reresolves_only_the_files_that_can_name_it(make):
    """`plain` now returns a `Thing`: of lib's four importers only uses_plain.py names it;
    the others are not re-resolved, and the graph equals a fresh index."""
    ws = make(CHANGED_BASE)
    ws.index()
    changed = CHANGED_BASE["lib.py"].replace("    return x\n", "    return Thing()\n")
    ws.write("lib.py", changed)
    ws.write("uses_plain.py", "import lib\n\n\ndef g():\n    lib.plain(1).go()\n")
    result = ws.index()
    assert (result.parsed, result.reresolved) == (2, 0)
    assert ("uses_plain.g", "lib.Thing.go") in ws.calls()

    # the same change seen from an untouched importer: only it is re-resolved
    ws.write("lib.py", CHANGED_BASE["lib.py"])
    result = ws.index()
    assert (result.parsed, result.reresolved) == (1, 1)
    assert ("uses_plain.g", "lib.Thing.go") not in ws.calls()


def test_a_removed_function_and_a_changed_class_reach_every_file_that_uses_them(make):
    """Removing `helper` re-resolves its importer (its call is unresolved now); a method
    added to `Thing` reaches uses_make.py, which never names Thing but uses `make`, whose
    module names it."""
    ws = make(CHANGED_BASE)
    ws.index()
    removed = CHANGED_BASE["lib.py"].replace("def helper():\n    return 1\n\n\n", "")
    removed = removed.replace("return helper()", "return 2")
    ws.write("lib.py", removed)
    result = ws.index()
    assert result.reresolved >= 1 and ("uses_helper.f", "lib.helper") not in ws.calls()

    ws.write("uses_make.py", "from lib import make\n\n\ndef h():\n    make().stop()\n")
    ws.index()
    assert ("uses_make.h", "lib.Thing.stop") not in ws.calls()
    grown = removed.replace(
        "        return 2\n", "        return 2\n\n    def stop(self):\n        return 3\n"
    )
    ws.write("lib.py", grown)
    ws.index()
    assert ("uses_make.h", "lib.Thing.stop") in ws.calls()


def test_a_definition_inserted_above_others_changes_only_its_own_name(make):
    """A function inserted at the top renumbers every scope below it; only files naming the
    new function are re-resolved (none here)."""
    ws = make(CHANGED_BASE)
    ws.index()
    ws.write("lib.py", "def first():\n    return 0\n\n\n" + CHANGED_BASE["lib.py"])
    result = ws.index()
    assert (result.parsed, result.reresolved) == (1, 0)


def test_module_wide_changes_still_reresolve_every_importer(make):
    """A module `__getattr__`, a decorated definition or a star import may change what any
    name of the module means: every file that consulted it is re-resolved, though each
    addition also brings a new name no importer mentions."""
    ws = make(CHANGED_BASE)
    ws.index()
    extra = "\n\ndef extra():\n    return 1\n"
    for addition in (
        "\n\ndef __getattr__(name):\n    return None\n",
        "\n\n@staticmethod\ndef cached():\n    return 1\n",
        "\n\nfrom os.path import *\n",
    ):
        ws.write("lib.py", CHANGED_BASE["lib.py"] + addition + extra)
        assert ws.index().reresolved == 4, addition
        ws.write("lib.py", CHANGED_BASE["lib.py"])
        ws.index()
    # the new name alone: no importer mentions it
    ws.write("lib.py", CHANGED_BASE["lib.py"] + extra)
    assert ws.index().reresolved == 0


def test_random_name_changes_and_uses_always_match_a_fresh_index(make):
    """Seeded: one top-level name at a time added, removed or changed (a function's return,
    a class's base or methods, a module-level alias or constant, an import) in three modules,
    while importers use them through `from` imports with aliases, module attributes,
    re-exports, star imports, subclasses, what another module's function returns, and pytest
    fixtures."""
    rng = random.Random(20261204)
    modules = ["m0", "m1", "pkg.m2"]
    names = ["alpha", "beta", "Gamma", "Delta", "CONST", "alias", "imported"]
    methods = ["run", "stop", "size"]

    def definition(module: str, name: str) -> str:
        other = rng.choice([m for m in modules if m != module])
        if name in ("alpha", "beta"):
            returns = rng.choice(["Gamma()", "Delta()", "1", "imported.alpha()", "alias()"])
            return f"def {name}(x=None):\n    return {returns}"
        if name in ("Gamma", "Delta"):
            base = rng.choice(["", "(Gamma)", "(Delta)", "(imported.Gamma)"])
            base = "" if base == f"({name})" else base
            body = "".join(
                f"    def {m}(self):\n        return {rng.choice(['alpha()', '0', 'self'])}\n"
                for m in rng.sample(methods, rng.randint(1, 3))
            )
            return f"class {name}{base}:\n{body}"
        if name == "CONST":
            return f"CONST = {rng.choice(['1', 'alpha', 'Gamma'])}"
        if name == "alias":
            return f"alias = {rng.choice(['alpha', 'beta', 'Gamma', 'Delta'])}"
        return f"import {other} as imported"

    defined = {m: {n: definition(m, n) for n in rng.sample(names, 4)} for m in modules}

    def module_text(module: str) -> str:
        ordered = sorted(defined[module].items(), key=lambda item: item[0] != "imported")
        return "\n\n\n".join(text for _name, text in ordered) + "\n"

    def user_text() -> str:
        target = rng.choice(modules)
        name = rng.choice(names)
        method = rng.choice(methods)
        style = rng.choice(["from", "alias", "attr", "star", "reexport", "subclass", "via"])
        if style == "from":
            return f"from {target} import {name}\n\n\ndef use():\n    {name}().{method}()\n"
        if style == "alias":
            return f"from {target} import {name} as n\n\n\ndef use():\n    n().{method}()\n"
        if style == "attr":
            return f"import {target}\n\n\ndef use():\n    {target}.{name}().{method}()\n"
        if style == "star":
            return f"from {target} import *\n\n\ndef use():\n    {name}().{method}()\n"
        if style == "reexport":
            return f"from pkg import exported\n\n\ndef use():\n    exported().{method}()\n"
        if style == "subclass":
            return (
                f"import {target}\n\n\nclass Mine({target}.{name}):\n"
                f"    def own(self):\n        return self.{method}()\n"
            )
        return f"from {target} import beta\n\n\ndef use():\n    beta().{method}()\n"

    files = {m.replace(".", "/") + ".py": module_text(m) for m in modules}
    files["pkg/__init__.py"] = f"from pkg.m2 import {rng.choice(names)} as exported\n"
    for user in ("user.py", "other_user.py", "third_user.py"):
        files[user] = user_text()
    files["conftest.py"] = (
        "import pytest\nimport m0\n\n\n@pytest.fixture\ndef thing():\n    return m0.alpha()\n"
    )
    files["test_use.py"] = "def test_thing(thing):\n    thing.run()\n"
    ws = make(files)
    ws.index()
    narrowed = 0
    for step in range(40):
        action = rng.choice(["name"] * 5 + ["user", "reexport"])
        if action == "name":
            module = rng.choice(modules)
            name = rng.choice(names)
            if name in defined[module] and rng.random() < 0.3:
                del defined[module][name]
            else:
                defined[module][name] = definition(module, name)
            ws.write(module.replace(".", "/") + ".py", module_text(module))
        elif action == "user":
            ws.write(rng.choice(["user.py", "other_user.py", "third_user.py"]), user_text())
        else:
            ws.write("pkg/__init__.py", f"from pkg.m2 import {rng.choice(names)} as exported\n")
        if step % 5 == 4:
            commit_all(ws.root, f"step {step}")
        result = ws.index()  # compares with a fresh index every time
        narrowed += action == "name" and result.parsed == 1 and result.reresolved < 3
    assert narrowed >= 10  # the narrowing was exercised, not only the module-wide rule


def test_a_binding_moved_past_its_reader_with_another_change_reaches_the_users(make):
    """`handler = pick` reads `pick` where it stands: moving it below the second binding of
    `pick` changes what `handler` holds though neither part changed, and the same edit adds a
    name no user mentions; the order of the module's bindings keeps users re-resolved."""
    classes = (
        "class A:\n    def run(self):\n        return 1\n\n\n"
        "class B:\n    def run(self):\n        return 2\n\n\n"
    )
    ws = make(
        {
            "lib.py": classes + "pick = A\nhandler = pick\npick = B\n",
            "user.py": "from lib import handler\n\n\ndef use():\n    handler().run()\n",
        }
    )
    ws.index()
    assert ("user.use", "lib.A.run") in ws.calls()
    ws.write(
        "lib.py", classes + "pick = A\npick = B\nhandler = pick\n\n\ndef more():\n    return 1\n"
    )
    ws.index()  # compares with a fresh index
    assert ("user.use", "lib.B.run") in ws.calls()


def test_a_changed_name_stored_in_a_module_container_reaches_its_users(make):
    """`HANDLERS.append(Impl)` at module level (a container store: part of what no one name
    owns): a method added to Impl reaches the file that calls it on the container's elements,
    though that file never names Impl."""
    impl = "class Impl:\n    def run(self):\n        return 1\n"
    registry = "\n\nHANDLERS = []\nHANDLERS.append(Impl)\n"
    ws = make(
        {
            "lib.py": impl + registry,
            "user.py": (
                "from lib import HANDLERS\n\n\ndef use():\n    for handler in HANDLERS:\n"
                "        handler().stop()\n"
            ),
        }
    )
    ws.index()
    assert ("user.use", "lib.Impl.stop") not in ws.calls()
    ws.write("lib.py", impl + "\n    def stop(self):\n        return 2\n" + registry)
    ws.index()  # compares with a fresh index
    assert ("user.use", "lib.Impl.stop") in ws.calls()
