"""One graph across repositories, on both stores: a consumer's imports of a package another
indexed repository provides bind into that repository's symbols (Python, TypeScript through a
package name with its `exports`, Go through a module path, Java through a Maven project's
source packages); `callers`, `trace`, `path`,
`dead-code` and `overview` see across; a provider's change re-resolves its consumers; the
order of indexing does not matter; two providers of one package are an ambiguity a
configuration settles."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from cartograph.impact.report import impact
from cartograph.index import index_repository
from cartograph.query import callees, callers, context, dead_code, overview, path, trace
from cartograph.query.common import Unbound
from cartograph.query.deadcode import VERDICTS
from cartograph.render import render
from cartograph.sync import Mirror, sync_to
from cartograph.tracking import add_tracked
from helpers import graph_edges
from indexing_support import differences, snapshot, write, write_tree
from push_support import Remote

LIBPAY = {
    "pyproject.toml": '[project]\nname = "libpay"\nversion = "1.3.0"\n',
    "libpay/__init__.py": 'from libpay.money import Money, round_amount\n\n__all__ = ["Money", "round_amount"]\n',
    "libpay/money.py": (
        "class Money:\n"
        "    def __init__(self, cents):\n"
        "        self.cents = cents\n"
        "\n"
        "    def total(self):\n"
        "        return self.cents\n"
        "\n\n"
        "def round_amount(value):\n"
        "    return round(value, 2)\n"
        "\n\n"
        "def only_for_shop():\n"
        "    return 0\n"
    ),
}
SHOP = {
    "pyproject.toml": (
        '[project]\nname = "shop"\nversion = "0.1.0"\ndependencies = ["libpay>=1.0"]\n'
    ),
    "uv.lock": (
        'version = 1\n\n[[package]]\nname = "libpay"\nversion = "1.2.0"\n\n'
        '[[package]]\nname = "shop"\nversion = "0.1.0"\n'
    ),
    "shop/__init__.py": "",
    "shop/cart.py": (
        "import libpay.money\n"
        "from libpay import Money, round_amount\n"
        "\n\n"
        "class Price(Money):\n"
        "    pass\n"
        "\n\n"
        "def checkout(value):\n"
        "    price = Price(3)\n"
        "    price.total()\n"
        "    libpay.money.only_for_shop()\n"
        "    return round_amount(value)\n"
        "\n\n"
        "def handler():\n"
        "    return checkout(1)\n"
    ),
}
CHECKOUT = "shop.cart.checkout"
WANTED_PY = {
    ("CALLS", CHECKOUT, "shop.cart.Price", "constructor"),
    ("CALLS", CHECKOUT, "libpay.money.Money.__init__", "constructor"),
    ("CALLS", CHECKOUT, "libpay.money.Money.total", "constructor"),
    ("CALLS", CHECKOUT, "libpay.money.round_amount", "import"),
    ("CALLS", CHECKOUT, "libpay.money.only_for_shop", "import"),
    ("CALLS", "shop.cart.handler", CHECKOUT, "scope"),
    ("INHERITS", "shop.cart.Price", "libpay.money.Money", None),
}


def _index(store, root: Path, name: str):
    return index_repository(store, root, name=name, workers=1, history=False)


def _trees(tmp_path: Path, trees: dict[str, dict[str, str]]) -> dict[str, Path]:
    return {name: write_tree(tmp_path / name, files) for name, files in trees.items()}


def _graph(store, repos) -> dict[str, dict[str, set[str]]]:
    return {repo: snapshot(store, repo) for repo in repos}


def _both_orders(store, roots: dict[str, Path], consumer: str, provider: str):
    """The graph after indexing consumer then provider, and after provider then consumer."""
    _index(store, roots[consumer], consumer)
    _index(store, roots[provider], provider)
    first = _graph(store, roots)
    for name in roots:
        store.repos.delete_repo(name)
    _index(store, roots[provider], provider)
    _index(store, roots[consumer], consumer)
    return first, _graph(store, roots)


def test_python_consumer_binds_into_provider_in_either_order(tmp_path, stores):
    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY})
    first, second = _both_orders(store, roots, "shop", "libpay")
    assert first == second
    assert graph_edges(store, "shop") >= WANTED_PY
    # every edge into libpay crosses: its ends name their repositories
    crossing = {
        (e["src"], e["dst"])
        for e in store.graph.export("shop")
        if e["type"] == "edge" and e.get("dst", "").startswith("libpay:")
    }
    assert (
        "shop:shop/cart.py#shop.cart.checkout",
        "libpay:libpay/money.py#libpay.money.round_amount",
    ) in crossing
    # the import is a link to the package the provider provides
    imports = [e for e in store.graph.export("shop") if e["label"] == "IMPORTS"]
    assert {e["dst"] for e in imports} == {"package:libpay"}


def test_answers_across_repositories(tmp_path, stores):
    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY})
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["shop"], "shop")

    page = callers(store, "libpay.money.round_amount")
    assert [(n.symbol.repo, n.symbol.qualname, n.via, n.crosses) for n in page.items] == [
        ("shop", CHECKOUT, "import", True)
    ]
    # which commit of the provider the answer reflects, and the consumer's pin against it
    assert {r.name for r in page.envelope.repos} == {"libpay", "shop"}
    [crossing] = page.envelope.crossings
    assert (crossing.consumer, crossing.provider, crossing.package) == ("shop", "libpay", "libpay")
    assert (crossing.required, crossing.locked, crossing.provider_version) == (
        ">=1.0",
        "1.2.0",
        "1.3.0",
    )
    assert crossing.mismatch == "pins 1.2.0, the provider is at 1.3.0"

    money = context(store, "libpay.money.Money")
    assert [s.qualname for s in money.subclasses] == ["shop.cart.Price"]
    total = context(store, "libpay.money.Money.total")
    assert {(n.symbol.qualname, n.crosses) for n in total.callers.items} == {(CHECKOUT, True)}

    up = trace(store, "libpay.money.round_amount", direction="in", depth=3)
    assert {s.symbol.qualname for s in up.steps} == {CHECKOUT, "shop.cart.handler"}
    route = path(store, "shop.cart.handler", "libpay.money.round_amount")
    assert route.steps is not None
    assert [s.target.qualname for s in route.steps] == [CHECKOUT, "libpay.money.round_amount"]

    # a provider function only a consumer calls is not dead
    report = dead_code(store, "libpay", verdicts=list(VERDICTS), limit=100)
    verdicts = {item.symbol.qualname: item.verdict for item in report.items}
    assert verdicts["libpay.money.only_for_shop"] == "live"

    provider_view = overview(store, "libpay")
    assert [(c.repo, c.packages) for c in provider_view.consumers] == [("shop", ["libpay"])]
    assert provider_view.consumers[0].edges == 5  # 4 calls and the base class
    assert [p.name for p in provider_view.provides] == ["libpay"]
    consumer_view = overview(store, "shop")
    assert [p.repo for p in consumer_view.providers] == ["libpay"]
    assert consumer_view.providers[0].mismatches == [
        "libpay (pyproject.toml): pins 1.2.0, the provider is at 1.3.0"
    ]


def test_provider_change_reaches_consumers(tmp_path, stores):
    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY})
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["shop"], "shop")
    # the provider drops a function and adds a base class to Money: its next run re-resolves
    # the consumer's file that bound into them
    write(
        roots["libpay"],
        "libpay/money.py",
        LIBPAY["libpay/money.py"].replace("def only_for_shop():\n    return 0\n", ""),
    )
    result = _index(store, roots["libpay"], "libpay")
    assert result.consumers == {"shop": 1}
    edges = graph_edges(store, "shop")
    assert ("CALLS", CHECKOUT, "libpay.money.only_for_shop", "import") not in edges
    assert ("CALLS", CHECKOUT, "libpay.money.round_amount", "import") in edges
    unresolved = {u.name for _p, u in store.graph.search_unresolved("only_for_shop", "shop", 10)}
    assert unresolved == {"libpay.money.only_for_shop"}
    # the same graph as indexing both again from scratch
    now = _graph(store, roots)
    for name in roots:
        store.repos.delete_repo(name)
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["shop"], "shop")
    assert _graph(store, roots) == now


def test_a_package_two_repositories_provide_is_an_explicit_choice(tmp_path, stores):
    store = stores.open()
    fork = dict(LIBPAY)  # a copy published under the same name
    fork["pyproject.toml"] = '[project]\nname = "libpay"\nversion = "9.0.0"\n'
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY, "libpay-fork": fork})
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["libpay-fork"], "libpay-fork")
    result = _index(store, roots["shop"], "shop")
    # never guessed: nothing bound, and the ambiguity reported
    assert not {e for e in graph_edges(store, "shop") if e[2].startswith("libpay.")}
    assert any("libpay is provided by libpay, libpay-fork" in note for note in result.notes)
    assert overview(store, "shop").ambiguous == {"libpay": ["libpay", "libpay-fork"]}
    # the consumer chooses the fork: its next run binds there
    write(roots["shop"], ".cartograph.toml", '[providers]\nlibpay = "libpay-fork"\n')
    result = _index(store, roots["shop"], "shop")
    assert not result.notes
    page = callers(store, "libpay.money.round_amount", repo="libpay-fork")
    assert [n.symbol.qualname for n in page.items] == [CHECKOUT]
    assert not callers(store, "libpay.money.round_amount", repo="libpay").items
    # the fork is published under its own name, and the choice goes: the consumer's manifest
    # depends on `libpay`, which only one of them provides
    write(roots["libpay-fork"], "pyproject.toml", '[project]\nname = "libpay-fork"\n')
    assert _index(store, roots["libpay-fork"], "libpay-fork").consumers == {"shop": 1}
    (roots["shop"] / ".cartograph.toml").unlink()
    assert not _index(store, roots["shop"], "shop").notes
    page = callers(store, "libpay.money.round_amount", repo="libpay")
    assert [n.symbol.qualname for n in page.items] == [CHECKOUT]
    assert not callers(store, "libpay.money.round_amount", repo="libpay-fork").items
    assert overview(store, "shop").ambiguous == {}


def test_a_consumer_left_unbound_by_an_ambiguity_is_named_where_the_provider_is_asked(
    tmp_path, stores
):
    """A repository that also declares the provider's package makes the consumer's import
    ambiguous: nothing binds. Asked about the provider's code (callers, context, a trace in,
    impact, overview), the answer names that consumer instead of counting nothing silently
    (issue 37)."""
    store = stores.open()
    fork = dict(LIBPAY)
    fork["pyproject.toml"] = '[project]\nname = "libpay"\nversion = "9.0.0"\n'
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY, "libpay-fork": fork})
    for name in ("libpay", "libpay-fork", "shop"):
        _index(store, roots[name], name)
    wanted = [Unbound("shop", "libpay", ["libpay", "libpay-fork"])]
    page = callers(store, "libpay.money.round_amount", repo="libpay")
    assert not page.items and page.envelope.unbound == wanted
    assert "not counted: shop imports libpay, which libpay, libpay-fork provide" in render(page)
    assert context(store, "libpay.money.round_amount", repo="libpay").envelope.unbound == wanted
    assert (
        trace(store, "libpay.money.round_amount", repo="libpay", direction="in").envelope.unbound
        == wanted
    )
    assert overview(store, "libpay").envelope.unbound == wanted
    patch = (
        "--- a/libpay/money.py\n+++ b/libpay/money.py\n@@ -9,2 +9,2 @@\n"
        " def round_amount(value):\n-    return round(value, 2)\n+    return round(value, 3)\n"
    )
    assert impact(store, "libpay", patch=patch).envelope.unbound == wanted
    # callees and a trace out are not about who uses it
    assert callees(store, CHECKOUT, repo="shop").envelope.unbound == []
    # once the consumer chooses, it binds, and nothing is left unnamed
    write(roots["shop"], ".cartograph.toml", '[providers]\nlibpay = "libpay"\n')
    _index(store, roots["shop"], "shop")
    page = callers(store, "libpay.money.round_amount", repo="libpay")
    assert [n.symbol.qualname for n in page.items] == [CHECKOUT]
    assert page.envelope.unbound == []


# ------------------------------------------------------------------- TypeScript and Go

UI = {
    "package.json": (
        '{"name": "@acme/ui", "version": "2.1.0", '
        '"exports": {".": "./dist/index.js", "./button": "./dist/button.js"}}'
    ),
    "src/index.ts": (
        'export { Button, render } from "./button";\n'
        "export function formatLabel(s: string): string {\n  return s.trim();\n}\n"
    ),
    "src/button.ts": (
        "export class Button {\n  click(): void {}\n}\n"
        'export function render(b: Button): string {\n  return "x";\n}\n'
    ),
}
WEB = {
    "package.json": '{"name": "web", "dependencies": {"@acme/ui": "^2.0.0"}}',
    "package-lock.json": (
        '{"lockfileVersion": 3, "packages": {"node_modules/@acme/ui": {"version": "2.0.5"}}}'
    ),
    "src/app.ts": (
        'import { Button, formatLabel } from "@acme/ui";\n'
        'import { render } from "@acme/ui/button";\n'
        "\n"
        "class Fancy extends Button {}\n"
        "\n"
        "export function main(): string {\n"
        "  const b = new Button();\n"
        "  b.click();\n"
        '  return render(b) + formatLabel(" a ");\n'
        "}\n"
    ),
}
WANTED_TS = {
    ("CALLS", "main", "Button", "constructor"),
    ("CALLS", "main", "Button.click", "constructor"),
    ("CALLS", "main", "render", "import"),
    ("CALLS", "main", "formatLabel", "import"),
    ("INHERITS", "Fancy", "Button", None),
}

PAY = {
    "go.mod": "module example.com/pay\n\ngo 1.22\n",
    "money/money.go": (
        "package money\n\n"
        "type Amount struct{ Cents int }\n\n"
        "func (a Amount) Round() int { return a.Cents }\n\n"
        "func New(c int) Amount { return Amount{Cents: c} }\n\n"
        "func Zero() Amount { return Amount{} }\n"
    ),
}
STORE = {
    "go.mod": "module example.com/store\n\ngo 1.22\n\nrequire example.com/pay v1.4.0\n",
    "go.sum": "example.com/pay v1.4.0 h1:abc=\nexample.com/pay v1.4.0/go.mod h1:def=\n",
    "cmd/main.go": (
        "package main\n\n"
        'import "example.com/pay/money"\n\n'
        "func main() {\n\ta := money.New(3)\n\t_ = money.Zero()\n\t_ = a\n}\n"
    ),
}


MONEY = {
    "pom.xml": (
        "<project><groupId>com.acme</groupId><artifactId>money</artifactId>"
        "<version>1.2.0</version></project>"
    ),
    "src/main/java/com/acme/money/Money.java": (
        "package com.acme.money;\n\npublic class Money {\n"
        "    public Money(long cents) {}\n"
        "    public static Money zero() { return new Money(0); }\n}\n"
    ),
}
BILLING = {
    "pom.xml": (
        "<project><groupId>com.acme</groupId><artifactId>billing</artifactId>"
        "<dependencies><dependency><groupId>com.acme</groupId><artifactId>money</artifactId>"
        "<version>1.2.0</version></dependency></dependencies></project>"
    ),
    "src/main/java/com/acme/billing/Invoice.java": (
        "package com.acme.billing;\n\nimport com.acme.money.Money;\n\n"
        "public class Invoice extends Money {\n"
        "    public Invoice() { super(1); }\n"
        "    public Money sum() {\n        Money m = new Money(3);\n"
        "        return Money.zero();\n    }\n}\n"
    ),
}


@pytest.mark.parametrize(
    ("consumer", "provider", "trees", "wanted", "removed"),
    [
        ("web", "ui", {"web": WEB, "ui": UI}, WANTED_TS, ("src/index.ts", "formatLabel")),
        (
            "store",
            "pay",
            {"store": STORE, "pay": PAY},
            {
                ("CALLS", "main.main", "money.New", "import"),
                ("CALLS", "main.main", "money.Zero", "import"),
            },
            ("money/money.go", "Zero"),
        ),
        (
            "billing",
            "money",
            {"billing": BILLING, "money": MONEY},
            {
                ("CALLS", "com.acme.billing.Invoice.sum", "com.acme.money.Money", "import"),
                ("CALLS", "com.acme.billing.Invoice.sum", "com.acme.money.Money.zero", "import"),
                ("INHERITS", "com.acme.billing.Invoice", "com.acme.money.Money", None),
            },
            ("src/main/java/com/acme/money/Money.java", "zero"),
        ),
    ],
    ids=["typescript", "go", "java"],
)
def test_packages_by_name_bind_across_repositories(
    tmp_path, stores, consumer, provider, trees, wanted, removed
):
    store = stores.open()
    roots = _trees(tmp_path, trees)
    first, second = _both_orders(store, roots, consumer, provider)
    assert first == second
    assert wanted <= graph_edges(store, consumer)
    target = next(
        dst for kind, _src, dst, _via in wanted if kind == "CALLS" and dst.endswith(removed[1])
    )
    page = callers(store, target, repo=provider)
    assert [(n.symbol.repo, n.via) for n in page.items] == [(consumer, "import")]
    assert page.envelope.crossings[0].provider == provider

    # the provider removes the function: the consumer's edge goes with the provider's run
    path, name = removed
    text = (roots[provider] / path).read_text()
    kept = [line for line in text.splitlines(keepends=True) if name not in line]
    write(roots[provider], path, "".join(kept))
    result = _index(store, roots[provider], provider)
    assert result.consumers == {consumer: 1}
    assert not {e for e in graph_edges(store, consumer) if e[2] == target}
    assert wanted - {e for e in wanted if e[2] == target} <= graph_edges(store, consumer)


def test_forgetting_a_provider_unbinds_its_consumers(tmp_path, stores):
    from cartograph.index import IndexResult, forget_repository, refresh_consumers

    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY})
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["shop"], "shop")
    consumers = forget_repository(store, "libpay")
    assert consumers == {"shop"}
    result = IndexResult("libpay", "")
    refresh_consumers(store, consumers, result)
    assert result.consumers == {"shop": 1}
    assert not {e for e in graph_edges(store, "shop") if e[2].startswith("libpay.")}
    shop_alone = snapshot(store, "shop")
    store.repos.delete_repo("shop")
    _index(store, roots["shop"], "shop")
    assert snapshot(store, "shop") == shop_alone


# ------------------------------------------------------------------- a real pair

WERKZEUG_USED_BY_FLASK = [
    # (werkzeug symbol, a flask caller, via)
    ("werkzeug.utils.redirect", "flask.helpers.redirect", "import"),
    ("werkzeug.utils.send_from_directory", "flask.helpers.send_from_directory", "import"),
]


@pytest.fixture(scope="module")
def pair():
    from benchmark.corpora import fetch

    return fetch("flask"), fetch("werkzeug")


@pytest.mark.slow
def test_flask_on_werkzeug(tmp_path, stores, pair):
    flask_root, werkzeug_source = pair
    werkzeug_root = tmp_path / "werkzeug"
    shutil.copytree(werkzeug_source, werkzeug_root)
    store = stores.open()
    roots = {"flask": flask_root, "werkzeug": werkzeug_root}
    first, second = _both_orders(store, roots, "flask", "werkzeug")
    assert first == second
    for target, caller, via in WERKZEUG_USED_BY_FLASK:
        found = {
            (n.symbol.repo, n.symbol.qualname, n.via)
            for n in callers(store, target, limit=100).items
        }
        assert ("flask", caller, via) in found, target
    # flask's Request and Response build on werkzeug's
    inherits = {(s, d) for k, s, d, _v in graph_edges(store, "flask") if k == "INHERITS"}
    assert ("flask.wrappers.Request", "werkzeug.wrappers.request.Request") in inherits
    assert ("flask.wrappers.Response", "werkzeug.wrappers.response.Response") in inherits
    links = overview(store, "werkzeug").consumers
    assert [link.repo for link in links] == ["flask"] and links[0].edges > 300
    assert links[0].mismatches == []  # flask requires werkzeug>=3.1; this is 3.1.3

    # werkzeug drops send_from_directory: flask's caller loses the edge at werkzeug's next run
    utils = werkzeug_root / "src/werkzeug/utils.py"
    text = utils.read_text()
    start = text.index("def send_from_directory(")
    end = text.index("\ndef ", start + 1)
    utils.write_text(text[:start] + text[end + 1 :])
    result = _index(store, werkzeug_root, "werkzeug")
    assert "flask" in result.consumers
    flask_calls = {(s, d) for k, s, d, _v in graph_edges(store, "flask") if k == "CALLS"}
    assert (
        "flask.helpers.send_from_directory",
        "werkzeug.utils.send_from_directory",
    ) not in flask_calls
    assert ("flask.helpers.redirect", "werkzeug.utils.redirect") in flask_calls


def test_the_api_lists_providers_consumers_and_crossings(tmp_path, stores):
    import httpx
    from api_support import serve_in_thread
    from cartograph.api.app import Settings, create_app

    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "libpay": LIBPAY})
    _index(store, roots["libpay"], "libpay")
    _index(store, roots["shop"], "shop")
    settings = Settings(store_url=stores.url("graph"), broker_url=None, data_dir=tmp_path / "data")
    with serve_in_thread(create_app(settings)) as url:
        query = (
            "{ repositories { name provides { ecosystem name version imports } "
            "providers { repo edges packages mismatches } consumers { repo edges packages } } }"
        )
        answer = httpx.post(f"{url}/graphql", json={"query": query}).json()
        assert "errors" not in answer, answer
        repos = {r["name"]: r for r in answer["data"]["repositories"]}
        assert repos["libpay"]["provides"] == [
            {"ecosystem": "pypi", "name": "libpay", "version": "1.3.0", "imports": ["libpay"]}
        ]
        assert repos["libpay"]["consumers"] == [
            {"repo": "shop", "edges": 5, "packages": ["libpay"]}
        ]
        assert repos["shop"]["providers"] == [
            {
                "repo": "libpay",
                "edges": 5,
                "packages": ["libpay"],
                "mismatches": ["libpay (pyproject.toml): pins 1.2.0, the provider is at 1.3.0"],
            }
        ]
        rest = httpx.get(f"{url}/api/v1/repos/libpay/overview").json()
        assert [c["repo"] for c in rest["consumers"]] == ["shop"]
        callers_page = httpx.get(
            f"{url}/api/v1/symbols/libpay:libpay%2Fmoney.py%23libpay.money.round_amount/callers"
        ).json()
        assert [c["consumer"] for c in callers_page["envelope"]["crossings"]] == ["shop"]


def test_consumers_are_re_resolved_in_parallel_processes(tmp_path, stores):
    store = stores.open()
    roots = _trees(tmp_path, {"shop": SHOP, "shop2": SHOP, "shop3": SHOP, "libpay": LIBPAY})
    _index(store, roots["libpay"], "libpay")
    for name in ("shop", "shop2", "shop3"):
        _index(store, roots[name], name)
    write(
        roots["libpay"],
        "libpay/money.py",
        LIBPAY["libpay/money.py"].replace("def only_for_shop():\n    return 0\n", ""),
    )
    result = index_repository(store, roots["libpay"], name="libpay", workers=2, history=False)
    assert result.consumers == {"shop": 1, "shop2": 1, "shop3": 1}
    for name in ("shop", "shop2", "shop3"):
        edges = graph_edges(store, name)
        assert ("CALLS", CHECKOUT, "libpay.money.only_for_shop", "import") not in edges
        assert ("CALLS", CHECKOUT, "libpay.money.round_amount", "import") in edges
        assert not store.index.pending(name)


# ---------------------------------------------------------------- random pushes to both

FUNCTIONS = ["alpha", "beta", "gamma", "delta"]


def _provider_files(rng: random.Random) -> dict[str, str]:
    """libpay: a class and some functions in `money`, `tax` calling into `money`, and a
    package `__init__` re-exporting one of them."""

    def functions(calls: str) -> str:
        return "".join(
            f"\n\ndef {name}(value):\n    return {calls.format(rng.choice(FUNCTIONS))}\n"
            for name in rng.sample(FUNCTIONS, rng.randint(1, len(FUNCTIONS)))
        )

    methods = rng.sample(["total", "split", "rounded"], rng.randint(1, 3))
    money = "class Money:\n" + "".join(
        f"    def {m}(self):\n        return {rng.choice(FUNCTIONS)}(self)\n\n" for m in methods
    )
    return {
        "libpay/money.py": money + functions("{}(value)"),
        "libpay/tax.py": "from libpay import money\n" + functions("money.{}(value)"),
        "libpay/__init__.py": (
            f"from libpay.{rng.choice(['money', 'tax'])} import {rng.choice(FUNCTIONS)} "
            "as exported\n"
        ),
    }


def _consumer_module(rng: random.Random) -> str:
    """A shop module calling into libpay by every way in: the re-export, a module attribute,
    a name imported from a module, and a subclass of its class (some may not exist now)."""
    return (
        "import libpay.money\n"
        "from libpay import exported\n"
        f"from libpay.tax import {rng.choice(FUNCTIONS)} as taxed\n"
        "\n\n"
        "class Price(libpay.money.Money):\n"
        "    def charge(self):\n"
        f"        return self.{rng.choice(['total', 'split', 'rounded'])}()\n"
        "\n\n"
        "def checkout(value):\n"
        f"    libpay.money.{rng.choice(FUNCTIONS)}(value)\n"
        "    Price().charge()\n"
        "    return exported(taxed(value))\n"
    )


def _without_repo_node(parts: dict[str, set[str]]) -> dict[str, set[str]]:
    """A snapshot less the Repo node, whose url and branch a sync sets and an index does not."""
    parts["nodes"] = {n for n in parts["nodes"] if '"label": "Repo"' not in n}
    return parts


def test_random_pushes_to_two_dependent_repositories_always_match_a_fresh_index(tmp_path, stores):
    """Seeded pushes to a provider and to its consumer, each synced as a push is (the
    provider's sync re-resolves the consumer's files that bound into what changed): at every
    checkpoint both graphs equal a from-scratch index of the two trees."""
    rng = random.Random(20261204)
    store = stores.open()
    data = tmp_path / "data"
    provider = {"pyproject.toml": '[project]\nname = "libpay"\nversion = "1.0"\n'}
    consumer = {
        "pyproject.toml": (
            '[project]\nname = "shop"\nversion = "0.1"\ndependencies = ["libpay"]\n'
        ),
        "shop/__init__.py": "",
        "shop/cart.py": _consumer_module(rng),
        "shop/orders.py": _consumer_module(rng),
    }
    remotes = {
        "libpay": Remote(tmp_path / "libpay", provider | _provider_files(rng)),
        "shop": Remote(tmp_path / "shop", consumer),
    }
    tracked = {name: add_tracked(store, name, r.url, "main") for name, r in remotes.items()}
    works = {name: Mirror(data, name, r.url).work for name, r in remotes.items()}

    def push(name: str, **change) -> None:
        remotes[name].commit(f"step {step}", **change)
        sha = remotes[name].push()
        assert sync_to(store, tracked[name], sha, data, workers=1, history=False).sha == sha

    def assert_both_as_fresh() -> None:
        synced = {name: _without_repo_node(snapshot(store, name)) for name in remotes}
        for name in ("shop", "libpay"):  # consumer first: the order must not matter
            store.repos.delete_repo(name)
        for name in ("libpay", "shop"):
            index_repository(store, works[name], name=name, workers=1, history=False)
        for name in remotes:
            fresh = _without_repo_node(snapshot(store, name))
            problems = differences(synced[name], fresh, ("the synced graph", "a fresh index"))
            assert not problems, f"step {step}, {name}:\n" + "\n".join(problems)

    step = -1  # the first sync of each
    for name in ("libpay", "shop"):
        push(name)
    crossing = graph_edges(store, "shop")
    assert any(dst.startswith("libpay.") for _type, _src, dst, _via in crossing)

    for step in range(12):
        action = rng.choice(["provider", "provider", "reexport", "tax", "consumer", "orders"])
        orders = (works["shop"] / "shop/orders.py").exists()
        tax = (works["libpay"] / "libpay/tax.py").exists()
        if action == "provider":  # functions and methods come and go
            files = _provider_files(rng)
            push("libpay", write={"libpay/money.py": files["libpay/money.py"]})
        elif action == "reexport":
            push("libpay", write={"libpay/__init__.py": _provider_files(rng)["libpay/__init__.py"]})
        elif action == "tax":  # the module one import names goes, or comes back
            if tax:
                push("libpay", delete=["libpay/tax.py"])
            else:
                push("libpay", write={"libpay/tax.py": _provider_files(rng)["libpay/tax.py"]})
        elif action == "consumer":
            push("shop", write={"shop/cart.py": _consumer_module(rng)})
        elif orders:
            push("shop", delete=["shop/orders.py"])
        else:
            push("shop", write={"shop/orders.py": _consumer_module(rng)})
        if step % 4 == 3:
            assert_both_as_fresh()
