"""Helpers for the service-boundary tests: index a tree, and read its routes and HTTP edges."""

from __future__ import annotations

from pathlib import Path

from cartograph.index import index_repository


def index(store, root: Path, name: str):
    return index_repository(store, root, name=name, workers=1, history=False)


def qualname(store, sid: str) -> str:
    return store.graph.get_symbols([sid])[sid].qualname


def located(sid: str) -> str:
    """A symbol id without its repository: `path#qualname`."""
    return sid.partition(":")[2]


def routes(store, repo: str, name=qualname) -> dict[str, str]:
    """route name → its handler (by `name(store, id)`: its qualname unless told)."""
    found = {}
    for item in store.graph.export(repo):
        if item["type"] == "edge" and item["label"] == "ROUTES_TO":
            found[item["src"].rpartition("#")[2]] = name(store, item["dst"])
    return found


def http_edges(store, repo: str, name=qualname) -> set[tuple[str, str, str]]:
    """(the function sending a request, the route it reaches, how it was matched)."""
    return {
        (name(store, item["src"]), item["dst"].rpartition("#")[2], item["via"])
        for item in store.graph.export(repo)
        if item["type"] == "edge" and item["label"] == "HTTP_CALLS"
    }
