"""schemathesis against the app's OpenAPI schema (SQLite, an indexed sample repository):
generated and hostile inputs on every REST route never cause a server error."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import schemathesis
from cartograph.api.app import Settings, create_app
from cartograph.index import index_repository
from cartograph.store.sqlite import open_sqlite
from hypothesis import HealthCheck, settings
from sample_repo import make_sample_repo
from schemathesis.checks import not_a_server_error

_work = Path(tempfile.mkdtemp(prefix="cartograph-fuzz-"))
atexit.register(shutil.rmtree, _work, ignore_errors=True)
_store = open_sqlite(_work / "graph.db")
index_repository(_store, make_sample_repo(_work / "shop"), name="shop", workers=1)
_store.close()
app = create_app(
    Settings(store_url=f"sqlite:///{_work / 'graph.db'}", broker_url=None, data_dir=_work / "data")
)
schema = (
    schemathesis.openapi.from_asgi("/openapi.json", app)
    # routes that start work elsewhere (clones, syncs) are left out
    .exclude(path_regex=r"^/api/v1/repos(/[^/]+)?(/sync)?$", method=["POST", "DELETE"])
    .exclude(path_regex=r"^/webhooks/")
)


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case):
    case.call_and_validate(checks=[not_a_server_error])
