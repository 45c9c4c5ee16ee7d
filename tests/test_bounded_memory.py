"""A run holds a bounded number of files' facts: between two files, the resolver forgets
every loaded module, and all it computed from them, once more than its limit are loaded
(`cartograph.index.resolve.MODULE_LIMIT`). Forgetting must not change a single answer: a
run that forgets after nearly every file writes the same graph as one that never does, on
one core and on several (where each forked worker forgets on its own, and a Neo4j run's
workers hand every batch back as it is done). The tests of answers run on both stores; what a
forget frees is the resolver's own memory, checked on SQLite."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest
from cartograph.index import index_repository
from cartograph.index import resolve as resolve_stage
from indexing_support import differences, snapshot, write_tree
from test_mixed_languages import MIXED

STYLES = {
    "web/styles/tokens.css": ":root { --brand: #c00; --gap: 4px; }\n",
    "web/styles/button.css": ".button { color: var(--brand); margin: var(--gap); }\n",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """This project's own Python package (a real, densely cross-referenced codebase) beside
    TypeScript, JavaScript, Go and stylesheets."""
    root = tmp_path_factory.mktemp("bounded") / "work"
    shutil.copytree(
        Path(resolve_stage.__file__).parents[1],  # the cartograph package
        root / "cartograph",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    write_tree(root, {**MIXED, **STYLES})
    return root


def test_forgetting_between_files_changes_no_answer(stores, tree, monkeypatch):
    store = stores.open()
    index_repository(store, tree, name="kept", workers=1, history=False)
    kept = snapshot(store, "kept")
    assert len(kept["edges"]) > 1000  # a graph worth comparing

    forgotten = []
    keep_bounded = resolve_stage.Resolver._keep_bounded

    def forget_after_every_file(self):
        forgotten.append(self.loaded())
        keep_bounded(self)  # what it would do anyway (it may raise the limit)
        self.forget()

    with monkeypatch.context() as patched:
        patched.setattr(resolve_stage.Resolver, "_keep_bounded", forget_after_every_file)
        index_repository(store, tree, name="forgetful", workers=1, history=False)
    assert len(forgotten) > 100 and max(forgotten) > 10  # files, each consulting others
    problems = differences(
        snapshot(store, "forgetful", as_repo="kept"), kept, ("forgetting", "keeping")
    )
    assert not problems, "forgetting loaded modules changed the graph\n" + "\n".join(problems)

    # the limit itself, in forked workers (a Neo4j run's hand back every batch as it is done)
    monkeypatch.setattr(resolve_stage, "MODULE_LIMIT", 2)
    index_repository(store, tree, name="limited", workers=2, history=False)
    problems = differences(
        snapshot(store, "limited", as_repo="kept"), kept, ("2 workers, limit 2", "keeping")
    )
    assert not problems, "forgetting in forked workers changed the graph\n" + "\n".join(problems)


def test_what_a_forget_drops_is_freed_though_the_collector_is_off(tree, tmp_path, monkeypatch):
    """An index runs with the cycle collector off: what a forget drops (every family's loaded
    files and what was computed from them) must be freed by reference counting right then, not
    held in reference cycles until the run ends (Home Assistant's workers grew to 940 MB, by
    the facts of every file they resolved, while a file's resolver and its flow rows referred
    to each other)."""
    from cartograph.store import open_store

    cycles: list[list[str]] = []
    forget = resolve_stage.Resolver.forget

    def forget_and_look_for_cycles(self):
        forget(self)
        assert not gc.isenabled()  # as in a real run
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            cycles.append(
                sorted({type(o).__qualname__ for o in gc.garbage if _ours(type(o).__module__)})
            )
        finally:
            gc.garbage.clear()
            gc.set_debug(0)

    monkeypatch.setattr(resolve_stage, "MODULE_LIMIT", 20)
    monkeypatch.setattr(resolve_stage.Resolver, "forget", forget_and_look_for_cycles)
    store = open_store(f"sqlite:///{tmp_path / 'graph.db'}")
    index_repository(store, tree, name="freed", workers=1, history=False)
    assert len(cycles) > 3, cycles
    assert not any(cycles), f"held in cycles after a forget: {cycles}"


def _ours(module: str) -> bool:
    return module == "cartograph" or module.startswith("cartograph.")


def test_an_index_on_another_thread_leaves_the_servers_collector_on(tmp_path):
    """The cycle collector is one switch for the whole process: an index on the main thread
    (the CLI, a Celery worker) runs with it off and turns it back on; one on another thread
    (the API's jobs without a broker) leaves it on for the requests the server answers
    meanwhile, and after (a small index parses in its own process: it used to turn the
    collector off there for good)."""
    import threading

    from cartograph.store import open_store

    write_tree(
        tmp_path / "work",
        {"app.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"},
    )
    store = open_store(f"sqlite:///{tmp_path / 'graph.db'}")
    seen: dict[str, set[bool]] = {"main": set(), "thread": set()}

    def index(name: str) -> None:
        index_repository(
            store, tmp_path / "work", name=name, workers=1, history=False,
            progress=lambda _message: seen[name].add(gc.isenabled()),
        )  # fmt: skip

    assert gc.isenabled()
    index("main")
    assert seen["main"] == {False} and gc.isenabled()
    worker = threading.Thread(target=index, args=("thread",))
    worker.start()
    worker.join()
    assert seen["thread"] == {True} and gc.isenabled()
