"""GraphReader: symbols, edges, files, unresolved calls, the text-match primitives and the
search plan above them, tallies and the stats computed from them, traversals."""

from __future__ import annotations

import pytest
from cartograph.model import ImportLink, Unresolved
from cartograph.query import ranking, search, stats
from cartograph.query.common import symbols_named
from cartograph.query.ranking import COMMON_TERM, SearchPlan, match_words, plan_search
from cartograph.store.interfaces import Term, TextMatch

from contract.graphs import build, edge, file_write, module_symbol, sym


@pytest.fixture
def shop(stores):
    """A small graph: payments calling models, a test file, unresolved calls, imports."""
    store = stores.open()
    pay_mod = module_symbol("shop", "shop/payments.py")
    service = sym(
        "shop", "shop/payments.py", "shop.payments.PaymentService", "class", 3, pay_mod.id
    )
    init = sym(
        "shop", "shop/payments.py", "shop.payments.PaymentService.__init__", "method", 4, service.id
    )
    refund = sym(
        "shop", "shop/payments.py", "shop.payments.PaymentService.refund", "method", 8, service.id
    )
    pay = sym("shop", "shop/payments.py", "shop.payments.pay", "function", 20, pay_mod.id)
    models = module_symbol("shop", "shop/models.py")
    price = sym("shop", "shop/models.py", "shop.models.price_of", "function", 2, models.id)
    unused = sym("shop", "shop/models.py", "shop.models.unused_helper", "function", 9, models.id)
    test_mod = module_symbol("shop", "tests/test_pay.py")
    test_pay = sym(
        "shop", "tests/test_pay.py", "tests.test_pay.test_pay", "function", 1, test_mod.id
    )
    writes = [
        file_write(
            "shop",
            "shop/payments.py",
            [pay_mod, service, init, refund, pay],
            edges=[
                edge("CALLS", pay, service, via="constructor"),
                edge("CALLS", pay, init, via="constructor"),
                edge("CALLS", pay, price),
                edge("CALLS", refund, price, via="self"),
                edge("REFERENCES", pay, refund),
            ],
            unresolved=[
                Unresolved(pay.id, "Requests.Fetch", 21, "requests"),
                Unresolved(refund.id, "log", 9, ""),
                Unresolved(service.id, "Base", 3, "frameworks", "base"),
            ],
            imports=[
                ImportLink("file", "shop/models.py", ["price_of"]),
                ImportLink("package", "requests", ["requests"]),
            ],
            lines=30,
        ),
        file_write("shop", "shop/models.py", [models, price, unused], lines=12, parse_errors=1),
        file_write(
            "shop",
            "tests/test_pay.py",
            [test_mod, test_pay],
            edges=[edge("CALLS", test_pay, pay)],
            lines=5,
            is_test=True,
        ),
    ]
    build(store, "shop", writes)
    ids = {s.qualname.rpartition(".")[2]: s.id for s in (service, init, refund, pay, price, unused)}
    return store, ids


# ---------------------------------------------------------------- symbols, edges, files


def test_symbols_are_found_by_id_qualname_name_and_dotted_suffix(shop):
    store, ids = shop
    graph = store.graph
    assert [s.id for s in symbols_named(graph, ids["refund"], None, 5)] == [ids["refund"]]
    assert [s.id for s in symbols_named(graph, "shop.models.price_of", "shop", 5)] == [
        ids["price_of"]
    ]
    assert [s.id for s in symbols_named(graph, "price_of", None, 5)] == [ids["price_of"]]
    assert [s.id for s in symbols_named(graph, "PaymentService.refund", None, 5)] == [ids["refund"]]
    assert symbols_named(graph, "models.refund", None, 5) == []
    assert symbols_named(graph, "price_of", "elsewhere", 5) == []
    assert set(graph.get_symbols([ids["pay"], "shop:nowhere.py#x"])) == {ids["pay"]}


def test_names_are_looked_up_many_at_once_as_one_at_a_time(shop):
    """locate looks up every name a text writes as code in one read (`symbols_by_each`)."""
    store, _ids = shop
    graph = store.graph
    names = ["refund", "price_of", "refund", "nothing_by_this_name", "__init__"]
    each = graph.symbols_by_each("name", names, "shop", 5)
    assert list(each) == ["refund", "price_of", "nothing_by_this_name", "__init__"]
    for name in names:
        assert each[name] == graph.symbols_by("name", name, "shop", 5)
    assert each["nothing_by_this_name"] == [] and each["refund"]
    assert graph.symbols_by_each("name", ["refund"], "elsewhere", 5) == {"refund": []}
    assert graph.symbols_by_each("name", [], None, 5) == {}


def test_edges_come_grouped_ordered_and_paged_with_counts(shop):
    store, ids = shop
    graph = store.graph
    out = graph.edges_of([ids["pay"]], "out", ["CALLS"])
    assert [r.other.qualname for r in out] == [
        "shop.models.price_of",
        "shop.payments.PaymentService",
        "shop.payments.PaymentService.__init__",
    ]
    page = graph.edges_of([ids["pay"]], "out", ["CALLS"], limit=1, offset=1)
    assert [r.other.qualname for r in page] == ["shop.payments.PaymentService"]
    both = graph.edges_of([ids["pay"]], "out", ["CALLS", "REFERENCES"])
    assert {r.edge.type for r in both} == {"CALLS", "REFERENCES"}
    callers = graph.edges_of([ids["price_of"]], "in", ["CALLS"])
    assert [(r.edge.src, r.edge.via, r.edge.lines) for r in callers] == [
        (ids["refund"], "self", [9]),
        (ids["pay"], "scope", [21]),
    ]
    assert graph.edge_counts([ids["price_of"], ids["unused_helper"]], "in", ["CALLS"]) == {
        ids["price_of"]: 2,
        ids["unused_helper"]: 0,
    }
    assert graph.edge_counts([ids["pay"]], "out", ["CALLS", "REFERENCES"]) == {ids["pay"]: 4}


def test_files_all_by_path_and_under_a_folder(shop):
    store, _ = shop
    graph = store.graph
    assert list(graph.files("shop")) == ["shop/models.py", "shop/payments.py", "tests/test_pay.py"]
    assert set(graph.files("shop", ["shop/models.py", "nope.py"])) == {"shop/models.py"}
    assert set(graph.files("shop", under="shop/")) == {"shop/models.py", "shop/payments.py"}
    assert graph.files("shop", under="sho") == {}
    assert graph.files("shop")["tests/test_pay.py"].is_test
    spans = graph.symbol_spans("shop", ["function"], ["shop/models.py"])
    assert sorted(spans["shop/models.py"]) == [(2, 4, "shop:shop/models.py#shop.models.price_of"),
                                               (9, 11, "shop:shop/models.py#shop.models.unused_helper")]  # fmt: skip


def test_unresolved_calls_and_their_search_ignores_case_on_every_store(shop):
    store, ids = shop
    graph = store.graph
    assert graph.unresolved_names("shop") == {"Requests.Fetch", "log"}
    assert graph.unresolved_names("shop", "base") == {"Base"}
    # a base from outside is an open end of the graph, with the module it comes from
    bases = [(u.src, u.name, u.external) for u in graph.open_ends("shop") if u.kind == "base"]
    assert bases == [(ids["PaymentService"], "Base", "frameworks")]
    assert [(u.name, u.external) for u in graph.unresolved_of([ids["pay"]])] == [
        ("Requests.Fetch", "requests")
    ]
    # one rule: a name matches when it contains the text, whatever the case of either
    for text in ("fetch", "FETCH", "requests.f", "Requests.Fetch"):
        found = graph.search_unresolved(text, "shop", 10)
        assert [(path, u.name) for path, u in found] == [("shop/payments.py", "Requests.Fetch")]
    assert len(graph.search_unresolved("", "shop", 10)) == 3
    assert graph.search_unresolved("%", "shop", 10) == []
    assert graph.search_unresolved("fetch", "elsewhere", 10) == []


def test_dead_code_candidates_most_called_and_import_links(shop):
    store, _ = shop
    graph = store.graph
    incoming = {
        s.qualname: n
        for s, n in graph.dead_code_candidates(
            "shop", "shop/", ("function", "method", "class"), ("CALLS", "REFERENCES", "INHERITS")
        )
    }
    assert incoming["shop.models.unused_helper"] == 0
    assert incoming["shop.models.price_of"] == 2
    assert "tests.test_pay.test_pay" not in incoming
    assert [(s.qualname, n) for s, n in graph.most_called("shop", 2)] == [
        ("shop.models.price_of", 2),
        ("shop.payments.PaymentService.__init__", 1),
    ]
    assert graph.import_links("shop") == [
        ("shop/payments.py", "file", "shop/models.py", ["price_of"]),
        ("shop/payments.py", "package", "requests", ["requests"]),
    ]


def test_trace_and_shortest_path(shop):
    store, ids = shop
    steps = store.graph.trace(ids["pay"], "in", ["CALLS"], 3, 10)
    assert [(s.depth, s.symbol.qualname) for s in steps] == [(1, "tests.test_pay.test_pay")]
    down = store.graph.trace(ids["refund"], "out", ["CALLS"], 3, 10)
    assert [s.symbol.qualname for s in down] == ["shop.models.price_of"]
    test_pay = steps[0].symbol.id
    path = store.graph.shortest_path(test_pay, ids["price_of"], ["CALLS"], 5)
    assert [(e.src, e.dst) for e in path] == [(test_pay, ids["pay"]), (ids["pay"], ids["price_of"])]
    assert store.graph.shortest_path(ids["price_of"], test_pay, ["CALLS"], 5) is None


# ---------------------------------------------------------------- tallies and stats


def test_tallies_are_raw_counts_and_stats_count_a_constructor_call_once(shop):
    store, _ = shop
    tallies = store.graph.tallies("shop", "__init__")
    assert tallies.symbols == {"class": 1, "function": 4, "method": 2, "module": 3}
    assert tallies.languages == {"python": (3, 47)}
    by_key = {(t.type, t.via, t.to_named): (t.edges, t.sites) for t in tallies.edges}
    assert by_key == {
        ("CALLS", "constructor", False): (1, 1),
        ("CALLS", "constructor", True): (1, 1),
        ("CALLS", "scope", False): (2, 2),
        ("CALLS", "self", False): (1, 1),
        ("REFERENCES", "scope", False): (1, 1),
    }
    assert (tallies.unresolved_calls, tallies.unresolved_external) == (2, 1)
    assert tallies.imports == {"file": 1, "package": 1}
    assert tallies.files_with_parse_errors == 1
    # the numbers are made above the seam: the class and its __init__ are one call site
    numbers = stats(store, "shop")
    assert numbers.resolved_call_sites == 4
    assert numbers.edges == {"CALLS/constructor": 2, "CALLS/scope": 2, "CALLS/self": 1,
                             "REFERENCES/scope": 1}  # fmt: skip
    assert numbers.unresolved_call_sites == 2 and numbers.unresolved_external == 1
    assert numbers.unresolved_rate == round(2 / 6, 4)
    assert numbers.languages == {"python": {"files": 3, "lines": 47}}
    assert numbers.files_with_syntax_errors == 1


# ---------------------------------------------------------------- text matches


def test_term_counts_are_capped(shop):
    store, _ = shop
    counts = store.graph.term_counts(
        [Term("payment"), Term("pay", prefix=True), Term("nothing")], cap=2
    )
    assert counts[Term("nothing")] == 0
    assert counts[Term("payment")] == 2  # three symbols say "payment": counted up to the cap
    assert counts[Term("pay", prefix=True)] == 2
    assert store.graph.term_counts([Term("refund")], cap=100) == {Term("refund"): 1}


def test_term_counts_follow_each_index_run(stores, tmp_path):
    """A store may keep counts it made (Neo4j keeps them per generation of the store): after a
    run that adds a symbol saying a word, and one that removes it, the counts say so."""
    from cartograph.index import index_repository
    from cartograph.store.interfaces import BODY_FIELDS
    from sample_repo import make_sample_repo

    root = make_sample_repo(tmp_path / "shop")
    store = stores.open()
    index_repository(store, root, "shop", history=False)
    asked = [Term("refund"), Term("rebate")]

    def counts() -> tuple[dict[Term, int], dict[Term, int]]:
        return store.graph.term_counts(asked, cap=100), store.graph.term_counts(
            asked, cap=100, fields=BODY_FIELDS
        )

    names, bodies = counts()
    assert names[Term("rebate")] == 0 and bodies[Term("rebate")] == 0
    extra = root / "shop" / "rebates.py"
    extra.write_text("def rebate(order):\n    return refund(order, rebate=True)\n")
    index_repository(store, root, "shop", history=False)
    added = counts()
    assert added[0][Term("rebate")] == names[Term("rebate")] + 1
    assert added[0][Term("refund")] == names[Term("refund")]
    assert added[1][Term("rebate")] == 1 and added[1][Term("refund")] == bodies[Term("refund")] + 1
    extra.unlink()
    index_repository(store, root, "shop", history=False)
    assert counts() == (names, bodies)


def test_a_text_match_is_all_or_any_of_its_terms_whole_or_as_prefixes(shop):
    store, _ = shop
    graph = store.graph

    def names(match, ranked=False, kinds=None, repo="shop"):
        return [s.qualname for s, _ in graph.match_symbols(match, repo, kinds, 50, ranked)]

    assert names(TextMatch((Term("refund"),))) == ["shop.payments.PaymentService.refund"]
    assert names(TextMatch((Term("refu"),))) == []  # a word is whole unless a prefix
    assert names(TextMatch((Term("refu", prefix=True),))) == ["shop.payments.PaymentService.refund"]
    both = TextMatch((Term("price"), Term("refund")), "all")
    assert names(both) == []
    either = TextMatch((Term("price"), Term("refund")), "any")
    assert sorted(names(either)) == ["shop.models.price_of", "shop.payments.PaymentService.refund"]
    assert names(TextMatch((Term("service"),)), kinds=["class"]) == ["shop.payments.PaymentService"]
    assert names(TextMatch((Term("service"),)), repo="elsewhere") == []
    # unranked: the shortest qualified names first, score 0
    unranked = graph.match_symbols(TextMatch((Term("payment"),)), "shop", None, 50, False)
    assert [len(s.qualname) for s, _ in unranked] == sorted(len(s.qualname) for s, _ in unranked)
    assert {score for _, score in unranked} == {0.0}
    # fields: the path is context, not a name
    assert names(TextMatch((Term("tests"),), fields=("name",))) == []
    assert "tests.test_pay.test_pay" in names(TextMatch((Term("tests"),), fields=("qualname",)))


def test_text_matches_are_asked_many_at_once_as_one_at_a_time(shop):
    """locate asks the phrase of every name no function bears in one read."""
    store, _ = shop
    graph = store.graph
    matches = [
        TextMatch((Term("payment"),), "any"),
        TextMatch(()),
        TextMatch((Term("price"), Term("refund")), "any"),
        TextMatch((Term("nothing"),)),
    ]
    for ranked in (True, False):
        each = graph.match_symbols_each(matches, "shop", None, 2, ranked)
        assert each == [graph.match_symbols(m, "shop", None, 2, ranked) for m in matches]
        assert [len(found) for found in each] == [2, 0, 2, 0]
    assert graph.match_symbols_each([], None, None, 5, True) == []


def test_ranking_weighs_the_name_over_the_qualified_name_over_the_context(shop):
    store, _ = shop
    ranked = store.graph.match_symbols(TextMatch((Term("refund"),), "any"), None, None, 10, True)
    assert ranked[0][0].qualname == "shop.payments.PaymentService.refund"
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


def test_a_repeated_term_counts_each_time_it_is_asked(shop):
    """locate asks the title's words twice in one match: on every store the repeat must weigh,
    so the symbol holding the repeated word moves ahead of the one holding the other word."""
    store, _ = shop

    def ranked(*words: str) -> dict[str, float]:
        match = TextMatch(tuple(Term(w) for w in words), "any", ("name",))
        return {
            s.name: score for s, score in store.graph.match_symbols(match, "shop", None, 10, True)
        }

    once = ranked("refund", "price")
    twice = ranked("refund", "price", "refund")
    assert twice["refund"] > once["refund"]
    assert twice["price_of"] == pytest.approx(once["price_of"])
    price_twice = ranked("refund", "price", "price")
    assert price_twice["price_of"] > price_twice["refund"]


def _counter(counts: dict[str, int], prefixes: dict[str, int] | None = None):
    asked: list[list[Term]] = []

    def count(terms):
        asked.append(list(terms))
        found = {}
        for term in terms:
            found[term] = counts.get(term.word, 0)
            if term.prefix:
                found[term] = (prefixes or {}).get(term.word, found[term])
        return found

    return count, asked


def test_the_plan_drops_common_words_while_rarer_ones_remain():
    count, asked = _counter({"test": COMMON_TERM + 1, "refund": 3, "pay": 40})
    plan = plan_search(["test", "refund", "pay"], count)
    assert plan == SearchPlan(
        (
            TextMatch((Term("refund"), Term("pay", prefix=True)), "all"),
            TextMatch((Term("refund"), Term("pay")), "any"),
        ),
        ranked=True,
    )
    assert len(asked) == 1  # every word and the last as a prefix, in one ask


def test_the_plan_keeps_every_word_when_all_are_common_and_does_not_rank():
    count, _ = _counter({"get": COMMON_TERM + 1, "test": COMMON_TERM + 1})
    plan = plan_search(["get", "test"], count)
    assert plan.matches[0] == TextMatch((Term("get"), Term("test")), "all")
    assert not plan.ranked


def test_the_last_word_is_a_prefix_only_with_two_letters_and_a_rare_prefix():
    count, _ = _counter({"price": 5, "o": 1})
    assert plan_search(["price", "o"], count).matches[0].terms[-1] == Term("o")
    count, _ = _counter({"price": 5, "of": 10})
    assert plan_search(["price", "of"], count).matches[0].terms[-1] == Term("of", prefix=True)
    count, _ = _counter({"price": 5, "ge": 10}, prefixes={"ge": COMMON_TERM + 1})
    assert plan_search(["price", "ge"], count).matches[0].terms[-1] == Term("ge")
    # a common last word dropped: the new last word's prefix is counted then
    count, asked = _counter({"refund": 3, "test": COMMON_TERM + 1})
    plan = plan_search(["refund", "test"], count)
    assert plan.matches == (TextMatch((Term("refund", prefix=True),), "all"),)
    assert asked[1] == [Term("refund", prefix=True)]


def test_the_plan_falls_back_from_all_of_the_words_to_any_of_them(shop, monkeypatch):
    store, _ = shop
    found = [s.qualname for s, _ in match_words(store.graph, ["price", "refund"], "shop", None, 10)]
    # no symbol holds both words: the any-of match answers, ranked
    assert set(found) == {"shop.models.price_of", "shop.payments.PaymentService.refund"}
    # with "payment" made common (3 symbols, more than 2), it is dropped: "refund" alone
    monkeypatch.setattr(ranking, "COMMON_TERM", 2)
    found = [s.qualname for s, _ in match_words(store.graph, ["payment", "refund"], None, None, 10)]
    assert found == ["shop.payments.PaymentService.refund"]
    # "payment" alone: kept although common, shortest names first
    unranked = match_words(store.graph, ["payment"], None, None, 3)
    assert [s.qualname for s, _ in unranked] == [
        "shop.payments.PaymentService",
        "shop.payments.PaymentService.refund",
        "shop.payments.PaymentService.__init__",
    ]
    pages = [s.id for s, _ in match_words(store.graph, ["payment"], None, None, 2, offset=1)]
    assert pages == [s.id for s, _ in unranked[1:3]]


def test_both_stores_make_the_same_plan_and_find_the_same_symbols(neo4j_server, tmp_path):
    """The plan is made above the seam from counts both stores agree on, so SQLite and Neo4j
    ask the same matches, decide alike whether to rank, find the same symbols for each match,
    give the same order where the rule orders (unranked: shortest names first), and the same
    first answer to a search where one symbol stands out. BM25 itself is each engine's own
    (Lucene scores a prefix term flat, FTS5 counts each word it matches), so the order of
    symbols that match alike may differ."""
    from cartograph.store import open_store
    from neo4j_server import wipe_neo4j

    wipe_neo4j(neo4j_server.url)
    mod = module_symbol("r", "billing/refunds.py")
    symbols = [
        mod,
        sym("r", "billing/refunds.py", "billing.refunds.refund", line=2, parent=mod.id),
        sym("r", "billing/refunds.py", "billing.refunds.process", line=6, parent=mod.id),
        sym(
            "r",
            "billing/refunds.py",
            "billing.refunds.audit",
            line=9,
            parent=mod.id,
            doc="Record each refund request",
        ),
        sym("r", "billing/refunds.py", "billing.refunds.refund_all", line=14, parent=mod.id),
    ]
    other = module_symbol("r", "util.py")
    helper = sym("r", "util.py", "util.helper", line=1, parent=other.id, doc="refunds")
    writes = [
        file_write("r", "billing/refunds.py", symbols),
        file_write("r", "util.py", [other, helper]),
    ]
    queries = (["refund"], ["refund", "audit"], ["billing", "ref"], ["request"], ["process"])
    standing_out = ("refund", "refund audit", "request", "process")
    seen: list[dict] = []
    for url in (f"sqlite:///{tmp_path / 'rank.db'}", neo4j_server.url):
        store = open_store(url)
        try:
            build(store, "r", writes)
            graph = store.graph
            answers = {}
            for words in queries:
                plan = plan_search(words, lambda terms, g=graph: g.term_counts(terms, 10))
                found = [
                    {s.id for s, _ in graph.match_symbols(m, "r", None, 50, plan.ranked)}
                    for m in plan.matches
                ]
                answers[tuple(words)] = (plan, found)
            answers["first"] = [
                search(store, text, "r").hits[0].symbol.qualname for text in standing_out
            ]
            answers["unranked"] = [
                s.qualname
                for s, _ in graph.match_symbols(
                    TextMatch((Term("refund"),), "any"), "r", None, 10, False
                )
            ]
            seen.append(answers)
        finally:
            store.close()
    sqlite, neo4j = seen
    assert sqlite == neo4j
    assert sqlite[("refund",)][0].ranked
    assert sqlite["first"] == [
        "billing.refunds.refund",
        "billing.refunds.audit",
        "billing.refunds.audit",
        "billing.refunds.process",
    ]
    assert sqlite["unranked"] == [
        "billing.refunds.audit",
        "billing.refunds.refund",
        "billing.refunds.refund_all",
    ]


def test_a_ranked_match_scores_as_fts5_does_on_every_store(stores, tmp_path):
    """One developer on SQLite and a team on Neo4j get the same maps: a ranked match's score is
    FTS5's BM25 on every store (Lucene scores each field alone with its boost and a prefix
    flat, which ranked Django's reports worse on Neo4j). The reference is SQLite's FTS5 over
    the same repository; its symbols are indexed again after an edit, and the figures follow."""
    from cartograph.index import index_repository
    from cartograph.store import open_store
    from cartograph.store.interfaces import BODY_FIELDS
    from sample_repo import make_sample_repo

    root = make_sample_repo(tmp_path / "shop")
    store = stores.open()
    reference = open_store(f"sqlite:///{tmp_path / 'fts5.db'}")
    # a second repository in both: the figures are the tables', a match keeps to its repository
    other = make_sample_repo(tmp_path / "mall")
    for target in (store, reference):
        index_repository(target, other, "mall", history=False)
    matches = [
        TextMatch((Term("cart"), Term("total"), Term("price", prefix=True)), "any"),
        TextMatch((Term("order"), Term("place"), Term("order")), "any", ("name", "qualname")),
        TextMatch((Term("sku"), Term("item", prefix=True), Term("qty")), "any", BODY_FIELDS),
        TextMatch((Term("price of"), Term("self")), "any", BODY_FIELDS),
    ]

    def scores(target) -> list[dict[str, float]]:
        return [
            {
                s.qualname: score
                for s, score in target.graph.match_symbols(m, "shop", None, 50, True)
            }
            for m in matches
        ]

    for edit in (False, True):
        if edit:  # a new function whose name and body hold the asked words, a file gone:
            # the sizes change
            (root / "shop" / "pricing.py").write_text(
                "def price_total(cart):\n    return sum(item.price * item.qty for item in cart)\n"
            )
            (root / "shop" / "payments.py").unlink()
        for target in (store, reference):
            index_repository(target, root, "shop", history=False)
        expected, got = scores(reference), scores(store)
        assert all(expected) and ("shop.pricing.price_total" in expected[0]) == edit
        assert {
            s.repo for m in matches for s, _ in store.graph.match_symbols(m, "shop", None, 50, True)
        } == {"shop"}
        for wanted, found in zip(expected, got, strict=True):
            assert list(found) == list(wanted)  # the same symbols, in the same order
            assert found == pytest.approx(wanted, rel=1e-6)
    if stores.kind == "neo4j":  # a graph an earlier version wrote: its sizes worked out
        connection = store.graph.connection
        connection.run("MATCH (i:IndexState) REMOVE i.search_rows")  # at the end of a run
        store.index.finish_run("shop")
        for wanted, found in zip(expected, scores(store), strict=True):
            assert found == pytest.approx(wanted, rel=1e-6)
        connection.run("MATCH (z:SearchSize) DELETE z")  # and on read, before any run
        for wanted, found in zip(expected, scores(store), strict=True):
            assert found == pytest.approx(wanted, rel=1e-6)
    reference.close()
