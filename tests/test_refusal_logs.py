"""What the server logs when it refuses: an expected refusal (a token without the scope, no
token, an unknown token) is one line below ERROR on every HTTP surface — REST, GraphQL (a field
refused inside an answer, or the whole request), MCP over HTTP — while an exception nobody
expected still logs its traceback at ERROR."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.store import open_store
from cartograph.store.sqlite.repos import SQLiteRepoCatalog
from sample_repo import make_sample_repo

# the loggers a server's request can write to (uvicorn's do not reach the root logger)
WATCHED = ("", "cartograph", "uvicorn")
IGNORED = ("httpx", "httpcore")  # the test's own client


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.seen: list[logging.LogRecord] = []  # one reaching two watched loggers counts once

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.partition(".")[0] in IGNORED or any(r is record for r in self.seen):
            return
        self.seen.append(record)
        self.records.append(record)

    def lines(self, record: logging.LogRecord) -> int:
        return len(logging.Formatter().format(record).splitlines())


@pytest.fixture
def logged() -> Iterator[Recorder]:
    """Every record the server writes while the test runs, from INFO up (the loggers are set
    back as they were)."""
    recorder = Recorder()
    saved = []
    for name in WATCHED:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level))
        logger.addHandler(recorder)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)
    try:
        yield recorder
    finally:
        for logger, level in saved:
            logger.removeHandler(recorder)
            logger.setLevel(level)


@pytest.fixture
def server(tmp_path) -> Iterator[tuple[str, dict[str, str]]]:
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    store = open_store(url)
    index_repository(store, make_sample_repo(tmp_path / "shop"), name="shop", workers=1)
    tokens = {
        name: create_token(store, name, scopes)[0]
        for name, scopes in (("reader", ["read"]), ("claims-only", ["claims"]))
    }
    store.close()
    settings = Settings(
        store_url=url, broker_url=None, data_dir=tmp_path / "data", require_tokens=True
    )
    with serve_in_thread(create_app(settings)) as base:
        yield base, tokens


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _graphql(base: str, headers: dict[str, str], query: str) -> httpx.Response:
    return httpx.post(f"{base}/graphql", json={"query": query}, headers=headers, timeout=60)


def _mcp(base: str, headers: dict[str, str], tool: str, arguments: dict) -> httpx.Response:
    call = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream"}
    # every profile: the refusals here are of scopes, not of tools a profile leaves out
    where = f"{base}/mcp/?profile=all"
    return httpx.post(where, json=call, headers={**headers, **accept}, timeout=60)


def _one_line_about(recorder: Recorder, text: str) -> logging.LogRecord:
    about = [r for r in recorder.records if text in r.getMessage()]
    assert len(about) == 1, [(r.name, r.levelname, r.getMessage()) for r in recorder.records]
    record = about[0]
    assert record.levelno < logging.ERROR and record.exc_info is None
    assert recorder.lines(record) == 1
    errors = [r for r in recorder.records if r.levelno >= logging.ERROR]
    assert errors == [], [(r.name, r.getMessage()) for r in errors]
    return record


def test_expected_refusals_are_one_line(server, logged):
    base, tokens = server
    reader, claims_only = _bearer(tokens["reader"]), _bearer(tokens["claims-only"])

    # REST: a route beyond the token's scopes
    refused = httpx.get(f"{base}/api/v1/tokens", headers=reader, timeout=60)
    assert refused.status_code == 403
    _one_line_about(logged, "lacks the 'admin' scope")
    logged.records.clear()

    # GraphQL: a field beyond the token's scopes (the answer holds the error)...
    answer = _graphql(base, reader, "{ claims { path } }").json()
    assert answer["errors"][0]["extensions"]["kind"] == "forbidden"
    _one_line_about(logged, "lacks the 'claims' scope")
    logged.records.clear()
    # ... a token without `read` (the whole request: 403), a query refused before it runs
    assert _graphql(base, claims_only, "{ repositories { name } }").status_code == 403
    _one_line_about(logged, "lacks the 'read' scope")
    logged.records.clear()
    deep = "{ repositories { name } " + "x { " * 10 + "y" + " }" * 10 + " }"
    assert _graphql(base, reader, deep).json()["errors"]
    assert not [r for r in logged.records if r.levelno >= logging.ERROR]
    logged.records.clear()

    # MCP over HTTP: a tool beyond the token's scopes
    tool = _mcp(base, reader, "list_tokens", {})
    assert tool.json()["result"]["isError"] is True
    _one_line_about(logged, "lacks the 'admin' scope")
    logged.records.clear()

    # no token, an unknown token (the guard, before any route)
    assert httpx.get(f"{base}/api/v1/indexed-repos", timeout=60).status_code == 401
    _one_line_about(logged, "a bearer token is required")
    logged.records.clear()
    assert _mcp(base, _bearer("cgt_unknown"), "list_repos", {}).status_code == 401
    _one_line_about(logged, "unknown token")


def test_an_unexpected_exception_keeps_its_traceback(server, logged, monkeypatch):
    base, tokens = server
    reader = _bearer(tokens["reader"])

    def broken(self):
        raise RuntimeError("the store broke in a way nobody expected")

    monkeypatch.setattr(SQLiteRepoCatalog, "list_repos", broken)
    for ask in (
        lambda: httpx.get(f"{base}/api/v1/indexed-repos", headers=reader, timeout=60),
        lambda: _graphql(base, reader, "{ repositories { name } }"),
        lambda: _mcp(base, reader, "list_repos", {}),
    ):
        logged.records.clear()
        ask()
        # uvicorn logs a failed request once its 500 is sent: wait for the record (a bound
        # that fails a missing one, not a speed check)
        deadline = time.monotonic() + 30
        while not _tracebacks(logged) and time.monotonic() < deadline:
            time.sleep(0.05)
        found = _tracebacks(logged)
        assert len(found) == 1, [(r.name, r.levelname, r.getMessage()) for r in logged.records]
        assert "Traceback" in logging.Formatter().format(found[0])


def _tracebacks(recorder: Recorder) -> list[logging.LogRecord]:
    formatter = logging.Formatter()
    return [
        r
        for r in recorder.records
        if r.levelno >= logging.ERROR
        and r.exc_info
        and "nobody expected" in formatter.format(r)  # the traceback, with its causes
    ]
