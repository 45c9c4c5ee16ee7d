"""IndexWriter: index locks, file states, cached facts, per-file writes, deps, pending names,
skipped files, packages — and the base order on INHERITS edges, stored and read back."""

from __future__ import annotations

from cartograph.model import EdgeWrite, ImportLink, Skipped, Unresolved

from contract.graphs import build, edge, file_write, module_symbol, sym


def test_the_index_lock_is_held_by_one_owner_until_released_or_expired(stores):
    store = stores.open()
    index = store.index
    assert index.index_lock_holder("r") is None
    assert index.acquire_index_lock("r", "run-1", 300.0)
    assert index.acquire_index_lock("r", "run-1", 300.0)  # its own lock again
    assert not index.acquire_index_lock("r", "run-2", 300.0)
    assert index.index_lock_holder("r") == "run-1"
    assert index.acquire_index_lock("other", "run-2", 300.0)  # locks are per repository
    assert index.acquire_index_lock("r", "run-3", 300.0, replacing="run-1")  # a dead holder
    assert index.index_lock_holder("r") == "run-3"
    index.release_index_lock("r", "run-1")  # not the holder: nothing happens
    assert index.index_lock_holder("r") == "run-3"
    index.refresh_index_lock("r", "run-3", -1.0)  # expired now
    assert index.index_lock_holder("r") is None
    assert index.acquire_index_lock("r", "run-4", 300.0)
    index.release_index_lock("r", "run-4")
    assert index.index_lock_holder("r") is None


def test_written_files_come_back_as_states_facts_and_graph(stores):
    store = stores.open()
    mod = module_symbol("r", "pkg/a.py")
    f = sym("r", "pkg/a.py", "pkg.a.f", line=3, parent=mod.id)
    g = sym("r", "pkg/a.py", "pkg.a.g", line=7, parent=mod.id)
    write = file_write(
        "r",
        "pkg/a.py",
        [mod, f, g],
        edges=[edge("CALLS", f, g)],
        unresolved=[Unresolved(f.id, "requests.get", 4, "requests")],
        imports=[ImportLink("package", "requests", ["get"])],
        deps=["requests", "pkg.b"],
        facts=b"\x00facts",
    )
    build(store, "r", [write])
    state = store.index.file_states("r")["pkg/a.py"]
    assert (state.sha256, state.size, state.mtime_ns, state.module, state.language) == (
        "0" * 64,
        100,
        1,
        "pkg.a",
        "python",
    )
    assert (state.interface, state.resolution) == ("iface-pkg/a.py", "resolved-pkg/a.py")
    assert store.index.load_facts("r", ["pkg/a.py", "missing.py"]) == {"pkg/a.py": b"\x00facts"}
    assert store.index.dependents("r", ["pkg.b"]) == {"pkg/a.py"}
    assert store.index.dependents("r", ["nothing"]) == set()
    assert [s.qualname for s in store.graph.symbols_in_files("r", ["pkg/a.py"])["pkg/a.py"]] == [
        "pkg.a",
        "pkg.a.f",
        "pkg.a.g",
    ]
    assert [s.qualname for s in store.graph.members([mod.id])] == ["pkg.a.f", "pkg.a.g"]
    assert [r.edge.dst for r in store.graph.edges_of([f.id], "out", ["CALLS"])] == [g.id]
    assert store.graph.import_links("r") == [("pkg/a.py", "package", "requests", ["get"])]
    assert [u.name for u in store.graph.unresolved_of([f.id])] == ["requests.get"]


def test_a_file_written_again_replaces_its_rows_and_keeps_incoming_edges(stores):
    store = stores.open()
    a_f = sym("r", "a.py", "a.f")
    b_keep = sym("r", "b.py", "b.keep")
    b_old = sym("r", "b.py", "b.old", line=5)
    build(
        store,
        "r",
        [
            file_write("r", "a.py", [a_f], edges=[edge("CALLS", a_f, b_keep)]),
            file_write("r", "b.py", [b_keep, b_old], edges=[edge("CALLS", b_old, b_keep)]),
        ],
    )
    b_new = sym("r", "b.py", "b.new", line=9)
    store.index.write_files("r", [file_write("r", "b.py", [b_keep, b_new])], replace=True)
    store.index.finish_run("r")
    assert [s.qualname for s in store.graph.symbols_in_files("r", ["b.py"])["b.py"]] == [
        "b.keep",
        "b.new",
    ]
    assert [r.edge.src for r in store.graph.edges_of([b_keep.id], "in", ["CALLS"])] == [a_f.id]


def test_writing_edges_replaces_only_a_files_links(stores):
    store = stores.open()
    f = sym("r", "a.py", "a.f")
    g = sym("r", "a.py", "a.g", line=5)
    h = sym("r", "b.py", "b.h")
    build(
        store,
        "r",
        [
            file_write("r", "a.py", [f, g], edges=[edge("CALLS", f, g)], deps=["b"]),
            file_write("r", "b.py", [h]),
        ],
    )
    store.index.write_edges(
        "r",
        [
            EdgeWrite(
                "a.py",
                [edge("CALLS", f, h)],
                [Unresolved(g.id, "mystery", 6, "")],
                [ImportLink("file", "b.py", ["h"])],
                ["c"],
                "resolved-again",
            )
        ],
    )
    store.index.finish_run("r")
    assert [r.edge.dst for r in store.graph.edges_of([f.id], "out", ["CALLS"])] == [h.id]
    assert [s.qualname for s in store.graph.symbols_in_files("r", ["a.py"])["a.py"]] == [
        "a.f",
        "a.g",
    ]
    both = store.graph.symbols_in_files("r", ["b.py", "a.py", "gone.py"])  # each file its own
    assert {path: [s.qualname for s in found] for path, found in both.items()} == {
        "b.py": ["b.h"],
        "a.py": ["a.f", "a.g"],
        "gone.py": [],
    }
    assert store.index.file_states("r")["a.py"].resolution == "resolved-again"
    assert store.index.dependents("r", ["b"]) == set()
    assert store.index.dependents("r", ["c"]) == {"a.py"}
    assert [u.name for u in store.graph.unresolved_of([g.id])] == ["mystery"]
    assert store.graph.import_links("r") == [("a.py", "file", "b.py", ["h"])]


def test_deleting_files_removes_their_symbols_and_the_edges_out_of_them(stores):
    store = stores.open()
    f = sym("r", "a.py", "a.f")
    h = sym("r", "b.py", "b.h")
    build(
        store,
        "r",
        [file_write("r", "a.py", [f], edges=[edge("CALLS", f, h)]), file_write("r", "b.py", [h])],
    )
    store.index.delete_files("r", ["a.py"])
    assert set(store.graph.files("r")) == {"b.py"}
    assert store.graph.get_symbols([f.id]) == {}
    assert store.graph.edges_of([h.id], "in", ["CALLS"]) == []
    assert store.graph.edge_counts([h.id], "in", ["CALLS"]) == {h.id: 0}


def test_bookkeeping_pending_skipped_packages_and_file_stats(stores):
    store = stores.open()
    build(store, "r", [file_write("r", "a.py", [sym("r", "a.py", "a.f")])])
    store.index.add_pending("r", ["pkg.a", "pkg.b"])
    store.index.add_pending("r", ["pkg.b", "pkg.c"])
    assert store.index.pending("r") == {"pkg.a", "pkg.b", "pkg.c"}
    store.index.clear_pending("r")
    assert store.index.pending("r") == set()
    store.index.set_skipped(
        "r", [Skipped("big.py", "too large", 9_000_000), Skipped("b.bin", "binary")]
    )
    assert store.index.skipped("r") == [
        Skipped("b.bin", "binary"),
        Skipped("big.py", "too large", 9_000_000),
    ]
    store.index.set_skipped("r", [Skipped("b.bin", "binary")])  # a run's list replaces the last
    assert store.index.skipped("r") == [Skipped("b.bin", "binary")]
    store.index.set_packages("r", ["shop", "shop_cli"], "pypi")
    store.index.set_packages("r", ["shop"], "pypi")
    packages = [i["name"] for i in store.graph.export("r") if i.get("label") == "Package"]
    assert packages == ["shop"]
    store.index.update_file_stats("r", [("a.py", 120, 99)])
    state = store.index.file_states("r")["a.py"]
    assert (state.size, state.mtime_ns) == (120, 99)


def test_inherits_edges_keep_the_order_of_the_declared_bases(stores):
    store = stores.open()
    first = sym("r", "m.py", "m.First", kind="class", line=1)
    second = sym("r", "m.py", "m.Second", kind="class", line=5)
    child = sym("r", "m.py", "m.Child", kind="class", line=9)
    make = sym("r", "m.py", "m.make", line=20)
    build(
        store,
        "r",
        [
            file_write(
                "r",
                "m.py",
                [first, second, child, make],
                edges=[
                    edge("INHERITS", child, second, via="scope", order=2),
                    edge("INHERITS", child, first, via="scope", order=1),
                    edge("CALLS", make, child, via="constructor"),
                ],
            )
        ],
    )
    bases = store.graph.edges_of([child.id], "out", ["INHERITS"])
    assert sorted((r.edge.dst, r.edge.order) for r in bases) == [(first.id, 1), (second.id, 2)]
    (call,) = store.graph.edges_of([make.id], "out", ["CALLS"])
    assert call.edge.order == 0
    exported = [i for i in store.graph.export("r") if i["type"] == "edge"]
    inherits = sorted((i["dst"], i["order"]) for i in exported if i["label"] == "INHERITS")
    assert inherits == [(first.id, 1), (second.id, 2)]
    assert all("order" not in i for i in exported if i["label"] == "CALLS")
    path = store.graph.shortest_path(child.id, first.id, ["INHERITS"], 3)
    assert [e.order for e in path] == [1]
