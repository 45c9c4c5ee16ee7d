"""The walk graph impact reads (`impact.graph.RepoEdges`) as a mapped file (`impact.walkfile`):
the same callers, bases, tests, modules and open ends as the dictionaries it is made from, one
file per index state, and impact's answers the same either way."""

from __future__ import annotations

import subprocess
import threading

from cartograph.impact import graph, walkfile
from cartograph.impact.report import impact
from cartograph.index import index_repository
from cartograph.render import to_data
from cartograph.store import open_store
from sample_repo import make_sample_repo

FILES = {
    "app/__init__.py": "",
    "app/core.py": """
        import logging
        import subprocess


        class Base:
            def run(self, value):
                return self.step(value)

            def step(self, value):
                return value


        class Child(Base):
            def step(self, value):
                return helper(value) + 1


        class Loud(logging.Handler):
            def emit(self, record):
                return helper(record)


        def helper(value):
            return value


        def visit(node, kind):
            return getattr(node, "visit_" + kind)()


        def unknown(thing):
            return thing.frobnicate()


        def shell():
            return subprocess.run(["true"])
    """,
    "app/visitors.py": """
        from app.core import helper


        class Visitor:
            def visit_name(self):
                return helper(1)

            def frobnicate(self):
                return 2

            def __eq__(self, other):
                return helper(other)
    """,
    "tests/__init__.py": "",
    "tests/conftest.py": "from app.core import helper\n",
    "tests/test_core.py": """
        import subprocess
        import unittest

        from app.core import Child, helper, visit
        from app.visitors import Visitor


        class TestChild(unittest.TestCase):
            def setUp(self):
                self.child = Child()

            def test_run(self):
                assert self.child.run(1) == 2


        def test_visit():
            assert visit(Visitor(), "name") == 1


        def test_cli():
            subprocess.run(["python", "-m", "app"])


        def test_helper():
            def inner():
                return helper(3)

            assert inner() == 3
    """,
}


def callers_of(walk, symbol_id):
    """A symbol's callers in a mapped walk graph, by id, as RepoEdges holds them."""
    index = walk.index(symbol_id)
    steps = walk.caller_steps(index, 0) if index is not None else []
    return [(walk.text(src), via, weight) for src, via, weight in steps]


def bases_of(walk, cls):
    index = walk.index(cls)
    return [walk.text(base) for base in walk.base_indexes(index)] if index is not None else []


def open_calls_of(walk, name):
    return [(walk.text(src), why) for src, why in walk.open_steps(name)]


def _indexed(tmp_path, files=FILES):
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    root = make_sample_repo(tmp_path / "app", files)
    index_repository(open_store(url), root, "app")
    return url, root


def test_the_mapped_file_answers_what_the_dictionaries_hold(tmp_path):
    url, _root = _indexed(tmp_path)
    store = open_store(url)
    state = graph.index_state(store.index.file_states("app"))
    held = graph._load(store, "app", state)
    path = tmp_path / "app.walk"
    walkfile.write(held, path)
    mapped = walkfile.WalkFile(path).walk()

    assert held.callers and held.bases and held.test_functions and held.open_calls
    assert held.computed_calls and held.external_based and held.opaque_tests
    assert mapped.state == state
    for target, callers in held.callers.items():
        assert callers_of(mapped, target) == callers, target
    for cls, bases in held.bases.items():
        assert bases_of(mapped, cls) == bases
    assert set(mapped.test_functions) == held.test_functions
    assert len(mapped.test_functions) == len(held.test_functions)
    assert all(sid in mapped.modules for sid in held.modules)
    assert not any(sid in mapped.modules for sid in held.test_functions)
    for name, calls in held.open_calls.items():
        assert open_calls_of(mapped, name) == calls, name
    assert mapped.test_paths == held.test_paths
    assert mapped.computed_calls == held.computed_calls
    assert dict(mapped.external_based) == held.external_based
    assert mapped.opaque_tests == held.opaque_tests
    # what it does not hold, it answers as the dictionaries do
    assert callers_of(mapped, "app:nowhere.py#nothing") == []
    assert bases_of(mapped, "app:nowhere.py#nothing") == []
    assert open_calls_of(mapped, "no_such_name") == []
    assert "app:nowhere.py#nothing" not in mapped.test_functions
    # each id's class or module and last name, as numbers (what a walk reads of a node)
    method = mapped.index("app:app/core.py#app.core.Child.step")
    assert method is not None and mapped.member(method) == "step"
    assert mapped.text(mapped.owners[method]) == "app:app/core.py#app.core.Child"
    helper = mapped.index("app:app/core.py#app.core.helper")
    assert helper is not None and mapped.is_module(mapped.owners[helper])
    named = {mapped.member(at) for at in range(len(mapped.file.ids))}
    assert {"step", "run", "helper", "emit"} <= named


def test_impact_answers_the_same_from_the_file_and_from_memory(tmp_path, monkeypatch):
    url, root = _indexed(tmp_path)
    (root / "app/core.py").write_text(
        (root / "app/core.py").read_text().replace("return value\n", "return value * 1\n")
    )
    patch = subprocess.run(["git", "diff"], cwd=root, capture_output=True, text=True).stdout
    assert patch
    graph._CACHE.clear()
    from_file = to_data(impact(open_store(url), "app", patch=patch))
    walks = tmp_path / "graph.db.walks"
    assert len(list(walks.glob("*.walk"))) == 1  # one file, for the index state the walk read
    assert isinstance(graph._CACHE[(url, "app")], walkfile.WalkFile)
    monkeypatch.setenv("CARTOGRAPH_WALK_GRAPHS", "memory")
    graph._CACHE.clear()
    from_memory = to_data(impact(open_store(url), "app", patch=patch))
    assert graph._CACHE[(url, "app")].path is None  # the file's bytes, held by the process
    assert from_file == from_memory
    assert from_file["tests"], "the change reaches tests"
    graph._CACHE.clear()


def test_a_new_index_state_has_a_file_of_its_own_and_the_old_one_goes(tmp_path):
    url, root = _indexed(tmp_path)
    store = open_store(url)
    graph._CACHE.clear()
    graph.ReverseGraph(store).edges("app")
    walks = tmp_path / "graph.db.walks"
    (first,) = walks.glob("*.walk")
    (root / "app/extra.py").write_text(
        "from app.core import helper\n\n\ndef more():\n    return helper(2)\n"
    )
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "more"], check=True)
    index_repository(store, root, "app")
    edges = graph.ReverseGraph(open_store(url)).edges("app")
    (second,) = walks.glob("*.walk")
    assert second != first and not first.exists()
    assert any(
        src.endswith("#app.extra.more")
        for src, _via, _w in callers_of(edges, "app:app/core.py#app.core.helper")
    )
    graph._CACHE.clear()


def test_other_code_names_other_files(tmp_path):
    """A walk graph derived by other code (an upgrade, an edit) is never read: the file's name
    holds a digest of the library's modules."""
    library = tmp_path / "cartograph"
    (library / "impact").mkdir(parents=True)
    (library / "impact" / "graph.py").write_text("RULE = 1\n")
    digests = []
    for change in ("", "PREFIXES = ('test_',)\n", "PREFIXES = ('check_',)\n"):
        if change:
            (library / "testlayout.py").write_text(change)
        walkfile.derivation.cache_clear()  # read once a process: here, once a change
        digests.append(walkfile.derivation(library))
    assert len(set(digests)) == 3
    assert walkfile.derivation() in walkfile.file_name("app", "0" * 32)


def test_a_damaged_file_is_replaced_not_trusted(tmp_path):
    url, _root = _indexed(tmp_path)
    graph._CACHE.clear()
    graph.ReverseGraph(open_store(url)).edges("app")
    (written,) = (tmp_path / "graph.db.walks").glob("*.walk")
    written.write_bytes(b"not a walk graph")
    graph._CACHE.clear()
    edges = graph.ReverseGraph(open_store(url)).edges("app")
    assert edges is not None and edges.file.path is None  # read again from the store
    assert callers_of(edges, "app:app/core.py#app.core.helper")
    assert not written.exists()  # and the next process writes it anew
    graph._CACHE.clear()


def test_processes_of_a_host_build_a_file_once(tmp_path, monkeypatch):
    """Several processes (here threads, each with its own store) asking for a repository's
    missing walk graph at once: one writes it, the others map what it wrote."""
    url, _root = _indexed(tmp_path)
    writes = []
    real_write = walkfile.write

    def counted(edges, path):
        writes.append(path)
        real_write(edges, path)

    monkeypatch.setattr(walkfile, "write", counted)
    store = open_store(url)
    state = graph.index_state(store.index.file_states("app"))
    start = threading.Barrier(4)
    mapped = []

    def ask():
        mine = open_store(url)
        start.wait()
        mapped.append(graph._mapped(mine, "app", state))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(writes) == 1
    assert all(isinstance(found, walkfile.WalkFile) for found in mapped)


def test_writing_a_file_sweeps_what_no_one_will_read(tmp_path):
    """Files of other states of the repository, of repositories the store no longer holds,
    and a writer's leftovers (killed mid-write) go when a file is written; other
    repositories' current files stay."""
    url, _root = _indexed(tmp_path)
    store = open_store(url)
    index_repository(store, make_sample_repo(tmp_path / "lib", FILES), "lib")
    state = {name: graph.index_state(store.index.file_states(name)) for name in ("app", "lib")}
    walks = tmp_path / "graph.db.walks"
    graph._mapped(store, "lib", state["lib"])
    kept = walks / walkfile.file_name("lib", state["lib"])
    left = [
        walks / walkfile.file_name("app", "f" * 32),  # an older state
        walks / walkfile.file_name("gone", state["app"]),  # a repository removed since
        walks / f".{walkfile.file_name('app', state['app'])}.4242.tmp",  # a killed writer's
    ]
    for path in left:
        path.write_bytes(b"left")
    graph._mapped(store, "app", state["app"])
    assert (walks / walkfile.file_name("app", state["app"])).exists() and kept.exists()
    assert not any(path.exists() for path in left)
