"""Stores. `open_store(url)` picks a backend from a URL and returns a `Store`, composed of
the narrow interfaces of `store/interfaces.py` (see docs/architecture.md, "Store seams").

- `sqlite:///path/graph.db` (or a plain path) — the embedded default (`store/sqlite/`)
- `neo4j://host:7687`, `bolt://…`, `neo4j+s://…` — the team store (`store/neo4j/`)
"""

from __future__ import annotations

import os
from pathlib import Path

from cartograph.store.interfaces import Store, StoreError

ENV_STORE = "CARTOGRAPH_STORE"


def default_store_url() -> str:
    """$CARTOGRAPH_STORE, else a SQLite file under the user's data directory."""
    configured = os.environ.get(ENV_STORE)
    if configured:
        return configured
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(data_home) / 'cartograph' / 'graph.db'}"


def display_url(url: str) -> str:
    """A store URL fit to print: any password removed."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return url
    credentials, _, host = rest.partition("@")
    user = credentials.partition(":")[0]
    return f"{scheme}://{user}@{host}" if user else f"{scheme}://{host}"


def open_store(url: str | None = None) -> Store:
    url = url or default_store_url()
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "sqlite", url
    scheme = scheme.lower()
    if scheme == "sqlite":
        from cartograph.store.sqlite import open_sqlite

        # sqlite:///abs/graph.db is absolute (like file:///), sqlite://rel/graph.db is relative
        path = rest[1:] if rest.startswith("//") else rest
        if not path:
            raise StoreError(f"no file in store URL {url!r}: use sqlite:///path/to/graph.db")
        return open_sqlite(path)
    if scheme in ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc"):
        try:
            import neo4j  # noqa: F401  (an extra: the core installs without it)
        except ImportError as exc:
            raise StoreError(
                f"{display_url(url)} is a Neo4j store, and the Neo4j driver is not installed: "
                "pip install 'cartograph[neo4j]'"
            ) from exc
        from cartograph.store.neo4j import open_neo4j

        return open_neo4j(url)
    raise StoreError(f"unknown store URL {url!r}: use sqlite:///path or neo4j://host:7687")


__all__ = [
    "ENV_STORE",
    "Store",
    "StoreError",
    "default_store_url",
    "display_url",
    "open_store",
]
