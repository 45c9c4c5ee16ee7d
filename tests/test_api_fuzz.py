"""schemathesis against the app's OpenAPI schema (SQLite, an indexed sample repository):
generated and hostile inputs on every REST route never cause a server error."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import schemathesis
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.store.sqlite import open_sqlite
from hypothesis import HealthCheck, settings
from sample_repo import make_sample_repo
from schemathesis.checks import not_a_server_error, response_schema_conformance

_work = Path(tempfile.mkdtemp(prefix="cartograph-fuzz-"))
atexit.register(shutil.rmtree, _work, ignore_errors=True)
_store = open_sqlite(_work / "graph.db")
index_repository(_store, make_sample_repo(_work / "shop"), name="shop", workers=1)
# the in-process transport's client is not on loopback, so it must bring a token (the guard
# lets only this machine's own requests go without one); admin reaches every route
_token, _ = create_token(_store, "fuzzer", ["admin"])
_store.close()
app = create_app(
    Settings(store_url=f"sqlite:///{_work / 'graph.db'}", broker_url=None, data_dir=_work / "data")
)
schema = (
    schemathesis.openapi.from_asgi("/openapi.json", app)
    # routes that start work elsewhere (clones, syncs) are left out
    .exclude(path_regex=r"^/api/v1/repos(/[^/]+)?(/sync)?$", method=["POST", "DELETE"])
    .exclude(path_regex=r"^/webhooks/")
    # indexing reads a folder of the server's machine: any path the fuzzer makes up
    .exclude(path_regex=r"^/api/v1/index$", method=["POST"])
)


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case):
    case.call_and_validate(
        headers={"Authorization": f"Bearer {_token}"},
        checks=[not_a_server_error, response_schema_conformance],
    )
