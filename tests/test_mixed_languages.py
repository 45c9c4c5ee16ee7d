"""A repository of several languages: Python, TypeScript, JavaScript and Go side by side, queried
as one graph; and TypeScript files kept fresh incrementally (an edit, a new file an import was
waiting for, a tsconfig change) — after every run the graph equals a fresh index of the tree.
Every test runs on both stores."""

from __future__ import annotations

from cartograph.index import index_repository
from cartograph.query import callers, context, search, stats
from indexing_support import REPO, Workspace

MIXED = {
    "pyproject.toml": "[project]\nname = 'shop'\n",
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def net_price(gross: float) -> float:\n"
        "    return round(gross / 1.2, 2)\n\n\n"
        "def quote(gross: float) -> float:\n"
        "    return net_price(gross)\n"
    ),
    "web/tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]}}}',
    "web/src/lib/money.ts": (
        "export function formatPrice(cents: number): string {\n"
        "  return (cents / 100).toFixed(2);\n"
        "}\n"
        "export class Cart {\n"
        "  total(): number { return 0; }\n"
        "  label(): string { return formatPrice(this.total()); }\n"
        "}\n"
    ),
    "web/src/app.tsx": (
        'import { Cart, formatPrice } from "@lib/money";\n'
        "export function CartView({ cart }: { cart: Cart }) {\n"
        "  return <span>{formatPrice(cart.total())}</span>;\n"
        "}\n"
        "export function checkout(cart: Cart): string {\n"
        "  return cart.label();\n"
        "}\n"
    ),
    "web/legacy/report.js": (
        'const { formatPrice } = require("../src/lib/money");\n'
        "function report(total) { return formatPrice(total); }\n"
        "module.exports = { report };\n"
    ),
    "svc/go.mod": "module example.com/svc\n\ngo 1.22\n",
    "svc/billing/invoice.go": (
        "package billing\n\n"
        "func Total(lines []int) int {\n"
        "\tsum := 0\n"
        "\tfor _, l := range lines {\n"
        "\t\tsum += l\n"
        "\t}\n"
        "\treturn withTax(sum)\n"
        "}\n"
    ),
    "svc/billing/tax.go": "package billing\n\nfunc withTax(n int) int { return n * 6 / 5 }\n",
    "svc/main.go": (
        "package main\n\n"
        'import "example.com/svc/billing"\n\n'
        "func main() {\n"
        "\tbilling.Total([]int{1, 2})\n"
        "}\n"
    ),
}


def _callers(store, target: str) -> set[str]:
    page = callers(store, target, limit=500)
    return {f"{n.symbol.path}#{n.symbol.qualname}" for n in page.items}


def test_one_graph_answers_across_languages(tmp_path, stores):
    space = Workspace(tmp_path, stores, MIXED)
    space.index()
    store = space.store
    numbers = stats(store, REPO)
    assert {"python", "typescript", "tsx", "javascript", "go"} <= set(numbers.languages)

    assert _callers(store, f"{REPO}:web/src/lib/money.ts#formatPrice") == {
        "web/src/lib/money.ts#Cart.label",
        "web/src/app.tsx#CartView",
        "web/legacy/report.js#report",
    }
    assert _callers(store, f"{REPO}:web/src/lib/money.ts#Cart.label") == {
        "web/src/app.tsx#checkout"
    }
    assert _callers(store, "shop.pricing.net_price") == {"shop/pricing.py#shop.pricing.quote"}
    assert _callers(store, f"{REPO}:svc/billing/tax.go#billing.withTax") == {
        "svc/billing/invoice.go#billing.Total"
    }
    assert _callers(store, f"{REPO}:svc/billing/invoice.go#billing.Total") == {
        "svc/main.go#main.main"
    }
    # one search spans every language
    found = {(h.symbol.path, h.symbol.kind) for h in search(store, "total", limit=50).hits}
    assert ("web/src/lib/money.ts", "method") in found
    assert ("svc/billing/invoice.go", "function") in found
    card = context(store, f"{REPO}:web/src/lib/money.ts#Cart")
    assert {m.qualname for m in card.members} >= {"Cart.total", "Cart.label"}


def test_typescript_edits_stay_fresh(tmp_path, stores):
    space = Workspace(
        tmp_path,
        stores,
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}',
            "src/util/strings.ts": "export function slug(s: string) { return s.trim(); }\n",
            "src/app.ts": (
                'import { slug } from "util/strings";\n'
                'import { audit } from "./audit";\n'
                "export function run(name: string) { audit(name); return slug(name); }\n"
            ),
        },
    )
    space.index()
    assert _callers(space.store, f"{REPO}:src/util/strings.ts#slug") == {"src/app.ts#run"}
    assert ("src/app.ts", "audit") in space.unresolved()

    # the module an import was waiting for appears: the importer is resolved again
    space.write("src/audit.ts", "export function audit(who: string) {}\n")
    result = space.index()
    assert result.reresolved >= 1
    assert _callers(space.store, f"{REPO}:src/audit.ts#audit") == {"src/app.ts#run"}

    # an exported function renamed: its caller loses the edge and records the name instead
    space.write("src/util/strings.ts", "export function slugify(s: string) { return s; }\n")
    space.index()
    assert ("src/app.ts", "slug") in space.unresolved()

    # baseUrl moved: non-relative imports now resolve elsewhere, every TS file is re-resolved
    space.write("src/util/strings.ts", "export function slug(s: string) { return s; }\n")
    space.write("lib/util/strings.ts", "export function slug(s: string) { return s + '!'; }\n")
    space.write("tsconfig.json", '{"compilerOptions": {"baseUrl": "lib"}}')
    space.index()
    assert _callers(space.store, f"{REPO}:lib/util/strings.ts#slug") == {"src/app.ts#run"}
    assert _callers(space.store, f"{REPO}:src/util/strings.ts#slug") == set()


def test_a_go_file_added_to_a_package_binds_calls_in_its_siblings(tmp_path, stores):
    space = Workspace(
        tmp_path,
        stores,
        {
            "go.mod": "module example.com/app\n",
            "core/run.go": "package core\n\nfunc Run() { helper() }\n",
        },
    )
    space.index()
    assert ("core/run.go", "helper") in space.unresolved()
    space.write("core/helper.go", "package core\n\nfunc helper() {}\n")
    space.index()
    assert _callers(space.store, f"{REPO}:core/helper.go#core.helper") == {"core/run.go#core.Run"}


def test_the_same_repository_indexed_in_parallel_workers(tmp_path, stores):
    """Forked resolvers (many files) give the same graph as one process."""
    files = dict(MIXED)
    for n in range(80):
        files[f"web/src/gen/m{n}.ts"] = (
            f'import {{ formatPrice }} from "../lib/money";\nexport const f{n} = () => formatPrice({n});\n'
        )
    space = Workspace(tmp_path, stores, files)
    space.index(workers=2)
    store = space.store
    assert len(_callers(store, f"{REPO}:web/src/lib/money.ts#formatPrice")) == 83
    single = stores.open("single")
    index_repository(single, space.root, name="single", workers=1)
    assert stats(single, "single").edges == stats(store, REPO).edges
