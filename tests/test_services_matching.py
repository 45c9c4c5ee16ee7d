"""HTTP route matching at scale (docs/services.md "Matching a request to a route"): the indexed
matcher (`resolve.http.RouteIndex`) answers what comparing a call with every route answers,
on seeded random routes and calls; and a repository's run re-matches only the requests of
other repositories its changed routes can reach — a repository of many long routes and
requests is not matched again when an unrelated repository changes, and its edges stay
what a full matching gives, on both stores."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from cartograph.index.services import (
    CallsState,
    all_routes,
    file_rows,
    match_requests,
    requests_of,
)
from cartograph.resolve import http
from cartograph.resolve.http import HOLE, Match, Route, RouteIndex, clean_path, match_call
from indexing_support import write, write_tree
from services_support import index

# --- the reference: every call compared with every route, as the rules are written ---------


def _segments(path: str) -> list[str]:
    return [s for s in clean_path(path).split("/") if s]


def _reference_segment(call: str, route: str) -> int | None:
    if route.startswith("{") and route.endswith("}") and route.count("{") == 1:
        return 1  # a parameter takes any segment
    if call == route:
        return 2
    if call == HOLE or HOLE not in call:
        return None  # all hole: a parameter only; else a different literal
    if "{" in route or "}" in route:
        return None
    pattern = re.escape(call).replace(re.escape(HOLE), "[^/]+")
    return 1 if re.fullmatch(pattern, route) else None


def _reference_path(call: list[str], route: list[str]) -> int | None:
    if len(call) != len(route):
        return None
    scores = [_reference_segment(c, r) for c, r in zip(call, route, strict=True)]
    return None if None in scores else sum(s for s in scores if s is not None)


def reference_match(
    method: str, base: str, path: str, routes: list[Route], own: str, services: dict
) -> Match | None:
    target = services.get(base) if base else services.get("/", own)
    if target is None and base:
        host = base.split("/")[0]
        target = services.get(host) or services.get(host.split(":")[0])
    fits = [
        r
        for r in routes
        if (r.method in ("ANY", method) or (method == "HEAD" and r.method == "GET"))
        and (target is None or r.repo == target)
    ]
    call = _segments(path)
    best = []
    for route in fits:
        score = _reference_path(call, _segments(route.path))
        if score is not None:
            best.append((2 * score + (route.method == method), route))
    via = "http" if target is not None else "http_base"
    if not best:
        for route in fits:
            segments = _segments(route.path)
            if 0 < len(segments) < len(call):
                score = _reference_path(call[len(call) - len(segments) :], segments)
                if score is not None:
                    best.append((2 * score + (route.method == method), route))
        via = "http_prefix"
    if not best:
        return None
    top = max(score for score, _ in best)
    winners = {route for score, route in best if score == top}
    return Match(winners.pop(), via) if len(winners) == 1 else None


ROUTE_SEGMENTS = ["users", "me", "a", "b", "x.json", "{id}", "{p}", "{id}.json", "v1", "{}"]
CALL_SEGMENTS = ["users", "me", "a", "b", "x.json", "v1", HOLE, "{}.json", "x{}", "{id}.json"]
METHODS = ["GET", "POST", "HEAD", "ANY", "DELETE"]


def _path(rng: random.Random, segments: list[str]) -> str:
    return "/" + "/".join(rng.choice(segments) for _ in range(rng.randint(0, 4)))


def test_indexed_matching_answers_as_every_route_compared():
    rng = random.Random(37)
    compared = matched = 0
    for _round in range(150):
        repos = ["r1", "r2", "r3"][: rng.randint(1, 3)]
        routes = [
            Route(
                rng.choice(repos),
                f"id{i}",
                rng.choice(METHODS),
                _path(rng, ROUTE_SEGMENTS),
                rng.choice(["", "h"]),
            )
            for i in range(rng.randint(1, 40))
        ]
        routes += rng.sample(routes, min(3, len(routes)))  # an equal route twice is one
        routes += [Route(r.repo, r.id + "b", r.method, r.path) for r in routes[:2]]  # a tie
        services = rng.choice([{}, {"h1": "r1"}, {"/": "r2", "h2:80": "r3"}, {"env:X": "r9"}])
        index = RouteIndex(routes)
        for _call in range(60):
            method = rng.choice(METHODS)
            base = rng.choice(["", "h1", "h2:80", "env:X", "{}"])
            path = _path(rng, CALL_SEGMENTS) + rng.choice(["", "/", "?q=1"])
            own = rng.choice(repos)
            expected = reference_match(method, base, path, routes, own, services)
            assert index.match(method, base, path, own, services)[0] == expected, (
                method,
                base,
                path,
                own,
                services,
                routes,
            )
            assert match_call(method, base, path, routes, own, services) == expected
            compared += 1
            matched += expected is not None
    assert compared == 9000
    assert 1000 < matched < compared  # the set exercises matches and misses alike


# --- the services stage: what a run of another repository matches again -------------------

PARAMS = 40


def wide_tree(root: Path, routes: int, calls: int) -> None:
    """Routes of PARAMS parameters and a literal last segment, and requests to them."""
    holes = "/".join(f"{{p{k}}}" for k in range(PARAMS))
    values = "/".join(f"v{k}" for k in range(PARAMS))
    files = {"wide/__init__.py": ""}
    files["wide/routes.py"] = "from fastapi import APIRouter\n\nrouter = APIRouter()\n" + "".join(
        f'\n\n@router.get("/api/{holes}/r{i}")\ndef h{i}():\n    return 0\n' for i in range(routes)
    )
    files["wide/main.py"] = (
        "from fastapi import FastAPI\nfrom wide import routes\n\napp = FastAPI()\n"
        "app.include_router(routes.router)\n"
    )
    files["wide/client.py"] = "import requests\n" + "".join(
        f'\n\ndef call_{i}():\n    return requests.get("http://wide:8000/api/{values}/r{i}")\n'
        for i in range(calls)
    )
    write_tree(root, files)


SHOP = {
    "shop/__init__.py": "",
    "shop/main.py": (
        "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
        '@app.get("/items/{item_id}")\n'
        "def item(item_id: int):\n"
        "    return {}\n"
    ),
    "shop/client.py": (
        'import requests\n\n\ndef item():\n    return requests.get("http://shop/items/7")\n'
    ),
}


class MatchCounter:
    """The requests matched against the routes, by the repository sending them."""

    def __init__(self, monkeypatch) -> None:
        self.by_repo: dict[str, int] = {}
        matched = RouteIndex.match

        def counted(index, method, base, path, own_repo, services):
            self.by_repo[own_repo] = self.by_repo.get(own_repo, 0) + 1
            return matched(index, method, base, path, own_repo, services)

        monkeypatch.setattr(http.RouteIndex, "match", counted)

    def take(self) -> dict[str, int]:
        taken, self.by_repo = self.by_repo, {}
        return taken


def stored_edges(store, repo: str) -> set[tuple]:
    return {
        (item["src"], item["dst"], item["via"])
        for item in store.graph.export(repo)
        if item["type"] == "edge" and item["label"] == "HTTP_CALLS"
    }


def matched_in_full(store, repo: str) -> set[tuple]:
    """The HTTP_CALLS a full matching of the repository's requests gives now."""
    edges = match_requests(
        repo,
        requests_of(file_rows(store, repo)),
        all_routes(store),
        store.repos.manifests().get(repo),
    )
    return {(e.src, e.dst, e.via) for e in edges}


def test_unrelated_repository_does_not_match_a_large_ones_requests_again(
    stores, tmp_path, monkeypatch
):
    store = stores.open()
    wide, shop = tmp_path / "wide", tmp_path / "shop"
    wide_tree(wide, routes=30, calls=30)
    write_tree(shop, SHOP)
    counter = MatchCounter(monkeypatch)

    def run(root: Path, name: str) -> dict[str, int]:
        """Index; the requests matched, by repository (matching done here counts not)."""
        counter.take()
        index(store, root, name)
        return counter.take()

    assert run(wide, "wide") == {"wide": 30}
    wide_edges = stored_edges(store, "wide")
    assert len(wide_edges) == 30 and wide_edges == matched_in_full(store, "wide")

    # the shop's first index lists new routes: other repositories are matched again, but
    # no request of the wide repository can reach a shop route (40 segments against 2)
    assert run(shop, "shop") == {"shop": 1}
    assert stored_edges(store, "shop") == matched_in_full(store, "shop")
    assert len(stored_edges(store, "shop")) == 1
    # a one-line edit that moves the shop's route: still nothing of the wide repository
    write(shop, "shop/main.py", SHOP["shop/main.py"].replace("/items/", "/products/"))
    assert run(shop, "shop") == {"shop": 1}
    assert stored_edges(store, "wide") == wide_edges == matched_in_full(store, "wide")
    assert stored_edges(store, "shop") == set() == matched_in_full(store, "shop")

    # a shop route the wide requests do fit (a prefix of one parameter): matched again, and
    # the answer is still their own routes (a whole template beats a prefix)
    write(
        shop,
        "shop/main.py",
        SHOP["shop/main.py"] + '\n\n@app.get("/{anything}")\ndef anything():\n    return {}\n',
    )
    assert run(shop, "shop") == {"shop": 1, "wide": 30}
    assert stored_edges(store, "wide") == wide_edges == matched_in_full(store, "wide")


# --- rematching only what a change reaches gives what matching everything gives ----------

SEGMENTS = ["users", "me", "orders", "{id}", "{slug}", "v1"]


def _service(rng: random.Random, name: str, others: list[str]) -> dict[str, str]:
    """A FastAPI service: a few routes of random paths, and requests to the other services
    (by host, so no `[services]` says where they go: every repository's routes fit)."""

    def path() -> str:
        return "/" + "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 3)))

    routes = "".join(
        f'\n\n@app.{rng.choice(["get", "post"])}("{path()}")\ndef h{i}():\n    return 0\n'
        for i in range(rng.randint(1, 5))
    )
    calls = "".join(
        f"\n\ndef call_{i}():\n"
        f"    return requests.{rng.choice(['get', 'post'])}("
        f'"http://{rng.choice(others)}{path().replace("{id}", "7").replace("{slug}", "x")}")\n'
        for i in range(rng.randint(1, 6))
    )
    return {
        f"{name}/__init__.py": "",
        f"{name}/app.py": f"from fastapi import FastAPI\n\napp = FastAPI()\n{routes}",
        f"{name}/client.py": f"import requests\n{calls}",
    }


def test_matching_only_what_a_change_reaches_equals_matching_everything(stores, tmp_path):
    store = stores.open()
    rng = random.Random(7)
    names = ["alpha", "beta", "gamma"]
    for name in names:
        write_tree(tmp_path / name, _service(rng, name, names))
        index(store, tmp_path / name, name)
    changes = 0
    for _step in range(8):
        name = rng.choice(names)
        app = _service(rng, name, names)[f"{name}/app.py"]
        write(tmp_path / name, f"{name}/app.py", app)
        changes += index(store, tmp_path / name, name).routes_changed
        for repo in names:
            assert stored_edges(store, repo) == matched_in_full(store, repo), (repo, _step)
            listing = store.index.service_listings()[repo][1]
            assert CallsState.read(listing) is not None
    assert changes >= 5
    assert any(stored_edges(store, repo) for repo in names)


@pytest.mark.parametrize("routes", [1, 3])
def test_route_index_counts_each_equal_route_once(routes):
    same = [Route("r", "a", "GET", "/x/{id}")] * routes
    found = RouteIndex(same).match("GET", "", "/x/1", "r", {})[0]
    assert found is not None and found.route == same[0] and found.via == "http"
