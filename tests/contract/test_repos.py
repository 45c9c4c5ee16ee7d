"""RepoCatalog: repository records, and forgetting a repository whole."""

from __future__ import annotations

from cartograph.model import CommitRow, HistoryBatch, PersonRow, Repo
from cartograph.query.common import symbols_named

from contract.graphs import build, file_write, module_symbol, sym


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
