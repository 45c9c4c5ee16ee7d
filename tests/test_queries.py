"""The query library on a small real repository: what an agent would ask and see."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.query import (
    AmbiguousSymbol,
    QueryError,
    SymbolNotFound,
    callees,
    callers,
    context,
    dead_code,
    overview,
    path,
    search,
    stats,
    trace,
)
from cartograph.render import render, to_data
from sample_repo import git, make_sample_repo


@pytest.fixture
def shop(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop-repo")
    store = stores.open()
    index_repository(store, root, name="shop", workers=1)
    return store, root


def test_search_finds_exact_name_first_and_concepts(shop):
    store, _ = shop
    result = search(store, "PaymentService")
    assert result.hits[0].symbol.qualname == "shop.payments.PaymentService"
    concept = search(store, "payment service pay")
    assert "shop.payments.PaymentService.pay" in [h.symbol.qualname for h in concept.hits[:5]]
    camel = search(store, "priceOf")  # identifiers are split: priceOf ~ price_of
    assert camel.hits[0].symbol.qualname == "shop.models.price_of"
    assert result.envelope.repos[0].indexed_sha  # the answer names the commit


def test_search_with_a_one_letter_last_word(shop):
    store, _ = shop
    # a one-letter word is never a prefix (it would match nearly everything)
    found = [h.symbol.qualname for h in search(store, "price o").hits[:3]]
    assert "shop.models.price_of" in found


def test_search_pages_and_kinds(shop):
    store, _ = shop
    first = search(store, "shop", limit=2)
    assert len(first.hits) == 2 and first.next_offset == 2
    second = search(store, "shop", limit=2, offset=2)
    assert {h.symbol.id for h in first.hits}.isdisjoint({h.symbol.id for h in second.hits})
    only_classes = search(store, "cart", kinds=["class"])
    assert {h.symbol.kind for h in only_classes.hits} == {"class"}
    with pytest.raises(QueryError, match="unknown kind"):
        search(store, "cart", kinds=["banana"])


def test_callers_through_self_annotation_and_constructor(shop):
    store, _ = shop
    charge = callers(store, "Gateway.charge")
    assert [(n.symbol.qualname, n.via) for n in charge.items] == [
        ("shop.payments.PaymentService.pay", "self")
    ] or [(n.symbol.qualname, n.via) for n in charge.items] == [
        ("shop.payments.PaymentService.pay", "annotation")
    ]
    total = callers(store, "shop.models.Cart.total")
    assert [(n.symbol.qualname, n.via) for n in total.items] == [
        ("shop.payments.PaymentService.pay", "annotation")
    ]
    add = callers(store, "Cart.add")
    assert [(n.symbol.qualname, n.via) for n in add.items] == [
        ("shop.orders.place_order", "constructor")
    ]


def test_callees_list_resolved_and_unresolved(shop):
    store, _ = shop
    page = callees(store, "place_order")
    targets = {n.symbol.qualname for n in page.items}
    assert {
        "shop.models.Cart",
        "shop.models.Cart.__init__",
        "shop.models.Cart.add",
        "shop.payments.PaymentService.pay",
        "shop.payments.Gateway",
    } <= targets
    dynamic = callees(store, "shop.payments.dynamic")
    assert dynamic.items == [] and [u.name for u in dynamic.unresolved] == ["obj._maybe_used"]


def test_pages_count_every_edge_and_counts_are_per_symbol(shop):
    store, _ = shop
    every = callees(store, "place_order", limit=50)
    total = len(every.items)
    assert total >= 5 and every.total == total and every.next_offset is None
    first = callees(store, "place_order", limit=2)
    assert first.total == total and first.next_offset == 2 and len(first.items) == 2
    last = callees(store, "place_order", limit=2, offset=total - 1)
    assert last.total == total and len(last.items) == 1 and last.next_offset is None
    beyond = callees(store, "place_order", limit=2, offset=total + 5)
    assert beyond.total == total and beyond.items == []
    place, price, unused = (
        f"shop:shop/{name}"
        for name in ("orders.py#shop.orders.place_order", "models.py#shop.models.price_of",
                     "models.py#shop.models.unused_helper")
    )  # fmt: skip
    counts = store.graph.edge_counts([place, price, unused, place], "in", ["CALLS"])
    assert counts == {place: 1, price: 1, unused: 0}
    assert store.graph.edge_counts([place], "out", ["CALLS"]) == {place: total}


def test_context_shows_class_members_callers_and_location(shop):
    store, _ = shop
    ctx = context(store, "Cart")
    assert ctx.symbol.path == "shop/models.py" and ctx.symbol.doc == "A customer's cart."
    assert [m.name for m in ctx.members] == ["__init__", "add", "total"]
    text = render(ctx)
    assert "shop/models.py:" in text and "called by" in text
    method = context(store, "shop.models.Cart.total")
    assert method.parent.qualname == "shop.models.Cart"
    assert [n.symbol.qualname for n in method.callees.items] == ["shop.models.price_of"]


def test_unknown_and_ambiguous_names_explain_themselves(shop):
    store, _ = shop
    with pytest.raises(SymbolNotFound) as missing:
        context(store, "PaymentServise")
    assert "shop.payments.PaymentService" in str(missing.value)
    with pytest.raises(SymbolNotFound):
        context(store, "does_not_exist_anywhere")
    with pytest.raises(AmbiguousSymbol) as ambiguous:
        context(store, "__init__")
    assert "shop.models.Cart.__init__" in str(ambiguous.value)


def test_trace_is_a_cycle_safe_tree(shop):
    store, _ = shop
    out = trace(store, "place_order", "out", depth=3)
    reached = {step.symbol.qualname for step in out.steps}
    assert {
        "shop.payments.PaymentService.pay",
        "shop.payments.Gateway.charge",
        "shop.models.price_of",
    } <= reached
    assert max(step.depth for step in out.steps) == 3
    up = trace(store, "price_of", "in", depth=5)
    assert {s.symbol.qualname for s in up.steps} >= {
        "shop.models.Cart.total",
        "shop.payments.PaymentService.pay",
        "shop.orders.place_order",
    }
    assert "└" in render(up)


def test_shortest_path(shop):
    store, _ = shop
    found = path(store, "place_order", "price_of")
    assert [s.target.qualname for s in found.steps] == [
        "shop.payments.PaymentService.pay",
        "shop.models.Cart.total",
        "shop.models.price_of",
    ]
    assert path(store, "price_of", "place_order").steps is None


def test_dead_code_verdicts(shop):
    store, _ = shop
    report = dead_code(store, "shop", verdicts=["dead", "unknown", "live"], limit=100)
    verdict = {item.symbol.qualname: item.verdict for item in report.items}
    assert verdict["shop.models.unused_helper"] == "dead"
    assert verdict["shop.models._maybe_used"] == "unknown"  # obj._maybe_used() is unresolved
    assert verdict["shop.orders.place_order"] == "live"  # in __all__ and called by a test
    assert verdict["shop.models.Cart.__init__"] == "live"
    assert report.counts["dead"] >= 1
    only_dead = dead_code(store, "shop")
    assert {i.verdict for i in only_dead.items} == {"dead"}


def test_overview_and_stats(shop):
    store, _ = shop
    view = overview(store, "shop")
    names = [p.name for p in view.packages]
    # a small repository is shown module by module
    assert {"shop", "shop.orders", "shop.payments", "tests.test_orders"} <= set(names)
    orders = next(p for p in view.packages if p.name == "shop.orders")
    assert dict(orders.imports) == {"shop.models": 1, "shop.payments": 1}
    # where each package's files are: a module's own file, a package's folder
    folders = {p.name: p.folder for p in view.packages}
    assert folders["shop.orders"] == "shop/orders.py" and folders["shop"] == "shop"
    assert view.most_called
    numbers = stats(store, "shop")
    assert numbers.files == 5 and numbers.symbols["class"] == 3
    assert numbers.unresolved_call_sites >= 1 and 0 < numbers.unresolved_rate < 1
    assert to_data(numbers)["repo"] == "shop"


def test_answers_mark_files_changed_since_indexing(shop):
    store, root = shop
    assert context(store, "Cart").envelope.stale == []
    (root / "shop" / "models.py").write_text("# rewritten\n")
    ctx = context(store, "Cart")
    assert ctx.envelope.stale == ["shop:shop/models.py"]
    assert "changed on disk since indexed" in render(ctx)
    assert stats(store, "shop").stale_files == ["shop/models.py"]


def test_answers_name_the_indexed_commit(shop):
    store, root = shop
    head = git(root, "rev-parse", "HEAD")
    assert context(store, "Cart").envelope.repos[0].indexed_sha == head
    assert head[:10] in render(search(store, "cart"))


def test_context_names_overrides_up_and_down_a_hierarchy(tmp_path, stores):
    root = tmp_path / "zoo"
    (root / "zoo").mkdir(parents=True)
    (root / "zoo" / "__init__.py").write_text("")
    (root / "zoo" / "base.py").write_text(
        "class Animal:\n"
        "    def speak(self):\n        return ''\n\n"
        "    def eat(self):\n        return 1\n\n\n"
        "class Pet:\n"
        "    def speak(self):\n        return 'pet'\n"
    )
    (root / "zoo" / "kinds.py").write_text(
        "from zoo.base import Animal, Pet\n\n\n"
        "class Mammal(Animal):\n    pass\n\n\n"
        "class Dog(Mammal, Pet):\n"
        "    def speak(self):\n        return 'woof'\n\n\n"
        "class Bird(Animal):\n"
        "    def speak(self):\n        return 'tweet'\n\n\n"
        "class Cat(Pet, Mammal, metaclass=type):\n"
        "    def speak(self):\n        return 'meow'\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "zoo")
    store = stores.open()
    index_repository(store, root, name="zoo", workers=1)

    # in method resolution order, as super().speak() looks: Dog, Mammal, Animal, Pet
    dog = context(store, "zoo.kinds.Dog.speak")
    assert [s.qualname for s in dog.overrides] == ["zoo.base.Animal.speak", "zoo.base.Pet.speak"]
    assert dog.overridden_by == []
    cat = context(store, "zoo.kinds.Cat.speak")  # Cat, Pet, Mammal, Animal
    assert [s.qualname for s in cat.overrides] == ["zoo.base.Pet.speak", "zoo.base.Animal.speak"]
    animal = context(store, "zoo.base.Animal.speak")
    assert animal.overrides == []
    # Bird is a direct subclass; Dog and Cat are reached through Mammal, a level further down
    assert [s.qualname for s in animal.overridden_by] == [
        "zoo.kinds.Bird.speak",
        "zoo.kinds.Dog.speak",
        "zoo.kinds.Cat.speak",
    ]
    eat = context(store, "zoo.base.Animal.eat")
    assert eat.overrides == [] and eat.overridden_by == []


def test_method_resolution_order_of_odd_hierarchies():
    # queries linearize a stored hierarchy with the resolvers' own C3 (INHERITS edges sorted
    # by their declared order are each class's bases)
    from cartograph.resolve.mro import linearize

    def bases(graph):
        return lambda cls: graph.get(cls, [])

    diamond = {"D": ["B", "C"], "B": ["A"], "C": ["A"]}
    assert linearize("D", bases(diamond)) == ["D", "B", "C", "A"]
    # no consistent C3 order (X says A before B, Y says B before A): every class once, the
    # declared bases first
    crossed = {"Z": ["X", "Y"], "X": ["A", "B"], "Y": ["B", "A"]}
    assert linearize("Z", bases(crossed)) == ["Z", "X", "Y", "A", "B"]
    cycle = {"P": ["Q"], "Q": ["P"]}  # a broken graph
    assert linearize("P", bases(cycle)) == ["P", "Q"]
    assert linearize("Q", bases(cycle)) == ["Q", "P"]


def test_overrides_follow_each_languages_lookup_order(tmp_path, stores):
    # the same diamond: Python's super() goes through C3 (D, B, C, A: C's method first),
    # TypeScript's super through the extends chain first (D, B, A, then C)
    root = tmp_path / "diamond"
    (root / "py").mkdir(parents=True)
    (root / "py" / "__init__.py").write_text("")
    (root / "py" / "shapes.py").write_text(
        "class A:\n    def draw(self):\n        return 'a'\n\n\n"
        "class B(A):\n    pass\n\n\n"
        "class C(A):\n    def draw(self):\n        return 'c'\n\n\n"
        "class D(B, C):\n    def draw(self):\n        return 'd'\n"
    )
    (root / "ts").mkdir()
    (root / "ts" / "shapes.ts").write_text(
        "export class A { draw(): string { return 'a'; } }\n"
        "export class B extends A {}\n"
        "export class C extends A { draw(): string { return 'c'; } }\n"
        "export class D extends B implements C { draw(): string { return 'd'; } }\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "diamond")
    store = stores.open()
    index_repository(store, root, name="diamond", workers=1)

    python = context(store, "py.shapes.D.draw")
    assert [s.qualname for s in python.overrides] == ["py.shapes.C.draw", "py.shapes.A.draw"]
    typescript = context(store, "D.draw")
    assert typescript.symbol.path == "ts/shapes.ts"
    assert [(s.path, s.qualname) for s in typescript.overrides] == [
        ("ts/shapes.ts", "A.draw"),
        ("ts/shapes.ts", "C.draw"),
    ]


def test_each_source_line_has_its_line_of_search_words():
    from cartograph.identifiers import line_words

    source = (
        b"def priceOf(item):\r\n"
        b"\n"
        b"    # caf\xc3\xa9 x 42 totals\n"
        b'    return item.unit_price * 2  "HTTPServer"\n'
        b"\n"
    )
    lines = line_words(source).split("\n")
    # one line of words per line of source (a symbol's words are the lines of its range)
    assert lines == [
        "def priceof price of item",
        "",
        "caf totals",  # one-letter words and numbers are left out; words are ASCII
        "return item unit price httpserver http server",
        "",
        "",
    ]
