"""Packaging: the core (`pip install cartograph`) is the CLI and MCP over stdio on the embedded
store — it runs with the extras' libraries absent, and what needs an extra says which one. The
extras are declared as the README and the deployment files install them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from sample_repo import make_sample_repo

ROOT = Path(__file__).resolve().parent.parent
EXTRAS_ONLY = ("fastapi", "strawberry", "neo4j", "celery", "redis", "kombu")

# runs the CLI with the extras' libraries made unimportable, as in a core-only install
WITHOUT_EXTRAS = f"""
import sys

class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {EXTRAS_ONLY!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Absent())
from cartograph.cli import main
code = main(sys.argv[1:])
loaded = sorted({{m.partition(".")[0] for m in sys.modules}} & set({EXTRAS_ONLY!r}))
assert not loaded, loaded
sys.exit(code)
"""


def core(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_the_core_runs_without_the_extras(tmp_path):
    root = make_sample_repo(tmp_path / "shop")
    store = f"sqlite:///{tmp_path / 'graph.db'}"
    indexed = core("--store", store, "index", str(root), "--quiet")
    assert indexed.returncode == 0, indexed.stderr
    assert "indexed shop" in indexed.stdout
    found = core("--store", store, "search", "PaymentService", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["symbol"]["path"] == "shop/payments.py"
    helped = core("--help")
    assert helped.returncode == 0 and "serve" in helped.stdout  # listed; its libraries load late


def test_what_needs_an_extra_says_which(tmp_path):
    served = core("serve")
    assert served.returncode == 1 and "pip install 'cartograph[server]'" in served.stderr
    team = core("--store", "neo4j://127.0.0.1:1", "repos")
    assert team.returncode == 1 and "pip install 'cartograph[neo4j]'" in team.stderr
    store = f"sqlite:///{tmp_path / 'graph.db'}"
    broker = core("--store", store, "repo", "list", env={"CARTOGRAPH_BROKER": "redis://x:1/0"})
    assert broker.returncode == 1 and "pip install 'cartograph[workers]'" in broker.stderr
    for done in (served, team, broker):
        assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_extras(project):
    core_names = {_name(d) for d in project["dependencies"]}
    assert not core_names & {"fastapi", "uvicorn", "strawberry-graphql", "neo4j", "celery"}
    extras = project["optional-dependencies"]
    assert {_name(d) for d in extras["server"]} >= {"fastapi", "uvicorn", "strawberry-graphql"}
    assert {_name(d) for d in extras["neo4j"]} >= {"neo4j"}
    assert {_name(d) for d in extras["workers"]} >= {"celery", "redis"}
    assert "cartograph[server,neo4j,workers]" in extras["dev"]
    assert {"import-linter", "pytest"} <= {_name(d) for d in extras["dev"]}


def test_the_deployment_installs_the_extras_it_runs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG EXTRAS=server,neo4j,workers" in dockerfile
    assert 'pip install --no-cache-dir ".[${EXTRAS}]"' in dockerfile
    assert "EXTRAS: server,neo4j,workers" in (ROOT / "docker-compose.yml").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "pip install -q -e . && .venv/bin/cartograph index" in readme  # the core alone
    assert (
        'pip install -q -e ".[dev]"' in readme and '-e ".[dev]"' in (ROOT / ".ci/run").read_text()
    )


def _name(requirement: str) -> str:
    for stop in "[<>=!~; ":
        requirement = requirement.split(stop, 1)[0]
    return requirement.lower()
