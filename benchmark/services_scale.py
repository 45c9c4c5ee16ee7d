"""HTTP route matching at scale: a repository of many long routes and requests, and what it
costs every other repository of the same store (issue 37, docs/services.md "Matching").

Two generated repositories in one SQLite store, indexed with 1 worker and no history:

- **wide**: `--routes` FastAPI routes of `--params` path parameters each and a literal last
  segment (`/api/{p0}/…/{p39}/r17`), and `--calls` requests (`requests.get` of a literal URL
  whose segments each fill a parameter, `/api/v0/…/v39/r17`), spread over 20 route and 20 client modules;
  each request reaches one route;
- **shop**: 7 files (a FastAPI application, two routers, a client, models, settings, a
  script), a few routes and requests of its own.

Timed, each as one `index_repository` call in this process (the rematch of the other
repositories after a run whose routes changed included): the first index of *wide*; the first
index of *shop* (its routes are new: *wide*'s requests are matched again); a one-line edit of
*shop* that changes a route's path (again); a one-line edit of a *shop* request. Beside each,
how many requests were matched against the routes (calls of the matcher), counted by wrapping
it.

    python -m benchmark.services_scale [--routes 2000] [--params 40] [--calls 2000]
        [--label before] [--no-write]

Writes benchmark/results/services-scale-<date>[-label].{json,md}.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from benchmark.report import run_facts, write_report

MODULES = 20


def wide_tree(root: Path, routes: int, params: int, calls: int) -> None:
    """The pathological repository: long all-parameter routes and requests to them."""
    (root / "wide").mkdir(parents=True)
    (root / "wide" / "__init__.py").write_text("")
    holes = "/".join(f"{{p{k}}}" for k in range(params))
    for m in range(MODULES):
        lines = ["from fastapi import APIRouter", "", "router = APIRouter()", ""]
        for i in range(m, routes, MODULES):
            lines += [f'@router.get("/api/{holes}/r{i}")', f"def h{i}():", "    return 0", ""]
        (root / "wide" / f"routes_{m}.py").write_text("\n".join(lines))
    app = ["from fastapi import FastAPI", ""]
    app += [f"from wide import routes_{m}" for m in range(MODULES)]
    app += ["", "app = FastAPI()"]
    app += [f"app.include_router(routes_{m}.router)" for m in range(MODULES)]
    (root / "wide" / "main.py").write_text("\n".join(app) + "\n")
    segments = "/".join(f"v{k}" for k in range(params))
    for m in range(MODULES):
        lines = ["import requests", ""]
        for i in range(m, calls, MODULES):
            target = i % max(routes, 1)
            lines += [
                f"def call_{i}(x):",
                f'    return requests.get("http://wide:8000/api/{segments}/r{target}")',
                "",
            ]
        (root / "wide" / f"client_{m}.py").write_text("\n".join(lines))


SHOP = {
    "shop/__init__.py": "",
    "shop/main.py": (
        "from fastapi import FastAPI\n"
        "from shop import items, orders\n\n"
        "app = FastAPI()\n"
        'app.include_router(items.router, prefix="/items")\n'
        'app.include_router(orders.router, prefix="/orders")\n'
    ),
    "shop/items.py": (
        "from fastapi import APIRouter\n\n"
        "router = APIRouter()\n\n\n"
        '@router.get("/{item_id}")\n'
        "def item(item_id: int):\n"
        "    return {}\n\n\n"
        '@router.get("/featured")\n'
        "def featured():\n"
        "    return []\n"
    ),
    "shop/orders.py": (
        "from fastapi import APIRouter\n\n"
        "router = APIRouter()\n\n\n"
        '@router.post("")\n'
        "def create():\n"
        "    return {}\n"
    ),
    "shop/client.py": (
        "import requests\n\n"
        "from shop.settings import BASE\n\n\n"
        "def featured():\n"
        '    return requests.get(f"{BASE}/items/featured")\n\n\n'
        "def order(body):\n"
        '    return requests.post(f"{BASE}/orders", json=body)\n'
    ),
    "shop/models.py": "class Item:\n    name = ''\n",
    "shop/settings.py": 'BASE = "http://shop:8000"\n',
}
SHOP_ROUTE_EDIT = ('@router.get("/featured")', '@router.get("/featured/today")')
SHOP_REQUEST_EDIT = ('f"{BASE}/orders"', 'f"{BASE}/orders/"')


class Counter:
    """Counts the matcher's calls (the requests matched against the routes)."""

    def __init__(self) -> None:
        self.calls = 0

    def install(self) -> None:
        from cartograph.resolve import http

        matcher = getattr(http, "RouteIndex", None)
        if matcher is not None:  # the indexed matcher: every request goes through `match`
            original = matcher.match

            def counted(index, *args, **kwargs):  # type: ignore[no-untyped-def]
                self.calls += 1
                return original(index, *args, **kwargs)

            matcher.match = counted
            return
        from cartograph.index import services  # before the index: the function itself

        plain = services.match_call

        def counted_call(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls += 1
            return plain(*args, **kwargs)

        services.match_call = counted_call

    def take(self) -> int:
        calls, self.calls = self.calls, 0
        return calls


def _edit(root: Path, path: str, change: tuple[str, str]) -> None:
    target = root / path
    text = target.read_text()
    assert change[0] in text, (path, change)
    target.write_text(text.replace(change[0], change[1], 1))


def measure(routes: int, params: int, calls: int) -> list[dict]:
    from cartograph.index import index_repository
    from cartograph.store import open_store

    counter = Counter()
    counter.install()
    work = Path(tempfile.mkdtemp(prefix="services-scale-"))
    rows: list[dict] = []
    try:
        wide, shop = work / "wide", work / "shop"
        wide_tree(wide, routes, params, calls)
        for path, text in SHOP.items():
            (shop / path).parent.mkdir(parents=True, exist_ok=True)
            (shop / path).write_text(text)
        store = open_store(f"sqlite:///{work / 'graph.db'}")

        def run(step: str, root: Path, name: str, files: list[str] | None = None) -> None:
            began = time.perf_counter()
            result = index_repository(store, root, name=name, workers=1, history=False, files=files)
            seconds = time.perf_counter() - began
            rows.append(
                {
                    "step": step,
                    "seconds": round(seconds, 3),
                    "stage_s": round(result.seconds.get("services", 0.0), 4),
                    "matched": counter.take(),
                    "routes": result.routes,
                    "http_calls": result.http_calls,
                }
            )
            print(rows[-1], flush=True)

        run("wide: first index", wide, "wide")
        run("shop (7 files): first index", shop, "shop")
        _edit(shop, "shop/items.py", SHOP_ROUTE_EDIT)
        run("shop: one-line edit of a route's path", shop, "shop", ["shop/items.py"])
        _edit(shop, "shop/client.py", SHOP_REQUEST_EDIT)
        run("shop: one-line edit of a request", shop, "shop", ["shop/client.py"])
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routes", type=int, default=2000)
    parser.add_argument("--params", type=int, default=40)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--label", default="", help="a suffix for the report's name")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = measure(args.routes, args.params, args.calls)
    facts = run_facts()
    lines = [
        "# HTTP route matching at scale",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}"
        f"{' · ' + args.label if args.label else ''}",
        "",
        f"SQLite, 1 worker, no history; *wide*: {args.routes} routes of {args.params} "
        f"parameters, {args.calls} requests; *shop*: 7 files. "
        "`python -m benchmark.services_scale` (method in its docstring).",
        "",
        "| step | run | services stage in it | requests matched | routes | HTTP_CALLS |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['step']} | {r['seconds']} s | {r['stage_s']} s | {r['matched']} | "
            f"{r['routes']} | {r['http_calls']} |"
        )
    name = "services-scale" + (f"-{args.label}" if args.label else "")
    report = {**facts, "routes": args.routes, "params": args.params, "calls": args.calls}
    path = write_report(name, {**report, "rows": rows}, "\n".join(lines) + "\n", not args.no_write)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
