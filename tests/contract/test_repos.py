"""RepoCatalog: repository records, and forgetting a repository whole."""

from __future__ import annotations

from cartograph.model import CommitRow, HistoryBatch, PersonRow, Repo, symbol_id
from cartograph.query.common import symbols_named

from contract.graphs import build, edge, file_write, module_symbol, sym


def test_records_are_written_read_and_listed_by_name(stores):
    store = stores.open()
    store.repos.upsert_repo(Repo("zeta", root="/src/zeta", indexed_sha="aaa"))
    store.repos.upsert_repo(Repo("alpha", url="https://example.org/alpha.git", dirty=True))
    assert [r.name for r in store.repos.list_repos()] == ["alpha", "zeta"]
    alpha = store.repos.get_repo("alpha")
    assert alpha == Repo("alpha", url="https://example.org/alpha.git", dirty=True)
    store.repos.upsert_repo(Repo("zeta", root="/src/zeta", indexed_sha="bbb", index_format="9"))
    assert store.repos.get_repo("zeta").indexed_sha == "bbb"
    assert store.repos.get_repo("zeta").index_format == "9"
    assert store.repos.get_repo("nobody") is None


def test_the_history_state_is_written_by_the_history_store_only(stores):
    store = stores.open()
    store.repos.upsert_repo(Repo("shop", indexed_sha="aaa"))
    store.history.set_history_state("shop", "aaa", "* @team\n")
    store.repos.upsert_repo(Repo("shop", indexed_sha="bbb"))  # a later index run
    row = store.repos.get_repo("shop")
    assert (row.indexed_sha, row.mined_sha, row.codeowners) == ("bbb", "aaa", "* @team\n")


def test_deleting_a_repository_forgets_its_graph_and_history_and_keeps_the_others(stores):
    store = stores.open()
    for repo in ("gone", "kept"):
        main = module_symbol(repo, "main.py")
        build(store, repo, [file_write(repo, "main.py", [main, sym(repo, "main.py", "main.f")])])
        store.history.write_history(
            repo,
            HistoryBatch(
                commits=[CommitRow("c1", "first", "2026-01-01T00:00:00Z", "a@x.org", 0, 1, 1)],
                people=[PersonRow("a@x.org", "A", False)],
                file_touches=[("c1", "main.py", 3, 0)],
            ),
        )
    store.repos.delete_repo("gone")
    assert store.repos.get_repo("gone") is None
    assert store.graph.files("gone") == {}
    assert symbols_named(store.graph, "main.f", "gone", 5) == []
    assert store.history.history_stats("gone")["commits"] == 0
    assert store.graph.export("gone") is not None and list(store.graph.export("gone")) == []
    assert set(store.graph.files("kept")) == {"main.py"}
    assert store.history.history_stats("kept")["commits"] == 1


def test_deleting_a_repository_keeps_its_index_lock(stores):
    """A run rebuilding a repository deletes its data under its own index lock: another run
    must still find the lock held (issue 12, item 2)."""
    store = stores.open()
    main = module_symbol("r", "main.py")
    build(store, "r", [file_write("r", "main.py", [main, sym("r", "main.py", "main.f")])])
    assert store.index.acquire_index_lock("r", "rebuilding-run", 300.0)
    store.repos.delete_repo("r")
    assert store.repos.get_repo("r") is None
    assert store.graph.files("r") == {}
    assert store.index.index_lock_holder("r") == "rebuilding-run"
    assert not store.index.acquire_index_lock("r", "another-run", 300.0)
    store.index.refresh_index_lock("r", "rebuilding-run", 300.0)  # still its own to refresh
    store.index.release_index_lock("r", "rebuilding-run")
    assert store.index.acquire_index_lock("r", "another-run", 300.0)


def test_deleting_a_repository_without_a_record_forgets_what_is_stored(stores):
    """What a first index killed before its record leaves: files, symbols, edges, deps."""
    store = stores.open()
    main = module_symbol("r", "main.py")
    f, g = sym("r", "main.py", "main.f"), sym("r", "main.py", "main.g", line=5)
    store.index.write_files(
        "r",
        [file_write("r", "main.py", [main, f, g], edges=[edge("CALLS", f, g)], deps=["x"])],
        replace=False,
    )
    record = store.repos.get_repo("r")  # Neo4j: the bare Repo node the File hangs from
    assert record is None or record.index_format == ""
    assert set(store.index.file_states("r")) == {"main.py"}
    store.repos.delete_repo("r")
    assert store.index.file_states("r") == {}
    assert store.index.dependents("r", ["x"]) == set()
    assert store.index.load_facts("r", ["main.py"]) == {}
    # written again as a first index writes, it is there once
    build(store, "r", [file_write("r", "main.py", [main, f, g], edges=[edge("CALLS", f, g)])])
    edges = [i for i in store.graph.export("r") if i["type"] == "edge" and i["label"] == "CALLS"]
    assert len(edges) == 1


def test_deleting_a_repository_whose_hub_has_more_relationships_than_one_batch(stores):
    """Neo4j deletes relationships in batches of 10,000 before the nodes (a hub's relationships
    at once overflowed a 2 GiB heap on Django): a hub with more than one batch of callers goes
    whole, and the other repository's hub stays."""
    store = stores.open()
    for repo, callers in (("gone", 10_050), ("kept", 3)):
        hub = sym(repo, "hub.py", "hub.assert_equal")
        files = [file_write(repo, "hub.py", [module_symbol(repo, "hub.py"), hub])]
        for start in range(0, callers, 1000):
            path = f"tests/test_{start}.py"
            numbers = range(start, min(start + 1000, callers))
            tests = [sym(repo, path, f"t{start}.test_{n}", line=n + 1) for n in numbers]
            files.append(
                file_write(
                    repo,
                    path,
                    [module_symbol(repo, path), *tests],
                    edges=[edge("CALLS", test, hub) for test in tests],
                )
            )
        build(store, repo, files)
    hub_id = symbol_id("gone", "hub.py", "hub.assert_equal")
    assert store.graph.edge_counts([hub_id], "in", ["CALLS"]) == {hub_id: 10_050}
    store.repos.delete_repo("gone")
    assert store.graph.files("gone") == {}
    assert list(store.graph.export("gone")) == []
    kept = [i for i in store.graph.export("kept") if i["type"] == "edge" and i["label"] == "CALLS"]
    assert len(kept) == 3
