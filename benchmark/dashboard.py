"""The dashboard's first render of every page on Django, measured in a real headless Chromium.

    python -m benchmark.dashboard [--runs 5] [--screenshots docs/dashboard] [--no-write]

Django 5.1.4's source (benchmark.corpora) is committed into a fresh git repository, then a
second commit gives `django.utils.encoding.force_str` a required parameter (so the Change page
has a breaking change with many callers to show). The repository is indexed into a SQLite store
in a temporary folder, `cartograph serve` serves it, and Debian's Chromium (through Playwright)
opens each page in a new tab: Repositories, Repository, Symbol (the most-called function),
Change (HEAD~1..HEAD) and Team. Two times per visit, from navigation start, read from the
page's performance marks: its first render (the page drawn with its first answer: a section
whose answer is still on its way stands as a "loading" placeholder) and its completion
(`<body data-state="ready">`: every section drawn). The first visit of each page is reported
apart (the server's answer cache is cold), then the median and worst of the next `--runs`.
Also reported: the page's DOM nodes and call-graph nodes (the caps hold on a big graph) and any
console error.

Target (issue 19): every page's first render ≤ 1 s on this machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser_support import LAUNCH_ARGS  # Chromium's flags for this network

from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report

TARGET_MS = 1000
READY = "body[data-state=ready], body[data-state=error]"
# the page's marks by kind ("first render", "rendered"), in ms from navigation start
MARKS = """Object.fromEntries(performance.getEntriesByType("mark")
  .map((m) => [m.name.replace(/ #.*$/, ""), m.startTime]))"""
CHANGED = (
    "django/utils/encoding.py",
    "def force_str(s, encoding=",
    "def force_str(s, flavour, encoding=",
)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


def prepare(folder: Path) -> Path:
    """Django in a git repository of two commits, the second breaking force_str."""
    root = folder / "django"
    shutil.copytree(fetch("django", "5.1.4"), root, ignore=shutil.ignore_patterns("*.egg-info"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Django 5.1.4")
    path, old, new = CHANGED
    text = (root / path).read_text()
    (root / path).write_text(text.replace(old, new, 1))
    _git(root, "commit", "-q", "-am", "force_str takes a flavour")
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"cartograph {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def measure(url: str, pages: dict[str, str], runs: int, shots: Path | None) -> dict:
    from playwright.sync_api import sync_playwright

    found: dict[str, dict] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CARTOGRAPH_CHROMIUM", "/usr/bin/chromium"),
            args=LAUNCH_ARGS,
        )
        for name, route in pages.items():
            firsts, times, errors, facts = [], [], [], {}
            for run in range(runs + 1):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.on(
                    "console",
                    lambda m, seen=errors: seen.append(m.text) if m.type == "error" else None,
                )
                page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
                page.goto(f"{url}/ui/{route}")
                page.wait_for_selector(READY, timeout=60_000)
                marks = page.evaluate(MARKS)
                firsts.append(marks.get("first render", marks.get("rendered", 0)))
                times.append(marks.get("rendered", page.evaluate("performance.now()")))
                state = page.evaluate("document.body.dataset.state")
                if run == 0:
                    facts = {
                        "state": state,
                        "dom_nodes": page.evaluate("document.getElementsByTagName('*').length"),
                        "graph_nodes": page.evaluate(
                            "document.querySelectorAll('svg .node, svg .cell').length"
                        ),
                        "message": page.inner_text("main")[:200] if state != "ready" else "",
                    }
                    if shots is not None:
                        shots.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
                context.close()
            found[name] = {
                "route": route,
                "first_render": _spread(firsts),
                "complete": _spread(times),
                "console_errors": sorted(set(errors)),
                **facts,
            }
        browser.close()
    return found


def _spread(times: list[float]) -> dict[str, int]:
    """The first visit's time, and the median and worst of the visits after it (ms)."""
    warm = times[1:] or times
    return {
        "first_visit": round(times[0]),
        "median": round(statistics.median(warm)),
        "max": round(max(warm)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="save a full-page screenshot per page")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="dashboard-bench-") as scratch:
        folder = Path(scratch)
        root = prepare(folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CARTOGRAPH_")}
        env |= {
            "CARTOGRAPH_STORE": f"sqlite:///{folder / 'graph.db'}",
            "CARTOGRAPH_DATA": str(folder / "data"),
        }
        started = time.perf_counter()
        _cli(env, "index", str(root))
        index_seconds = time.perf_counter() - started
        stats = _cli(env, "--json", "stats", "--repo", "django")
        most_called = _most_called(env)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "cartograph.cli", "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(600):
                try:
                    if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            pages = {
                "repositories": "#/repos",
                "repository": "#/repo/django",
                "symbol": f"#/symbol/{quote(most_called, safe='')}",
                "change": "#/change/django?base=HEAD~1&head=HEAD",
                "team": "#/team",
            }
            found = measure(url, pages, args.runs, args.screenshots)
        finally:
            server.terminate()
            server.wait(timeout=15)

    import json

    counts = json.loads(stats)
    report = {
        **run_facts(),
        "corpus": "Django 5.1.4 (sdist), 2 commits",
        "files": counts["files"],
        "symbols": sum(counts["symbols"].values()),
        "index_seconds": round(index_seconds, 1),
        "most_called": most_called,
        "target_ms": TARGET_MS,
        "pages": found,
    }
    lines = [
        f"# Dashboard first render on Django ({report['date'][:10]}, commit {report['commit']})",
        "",
        f"{report['machine']}; Debian Chromium headless through Playwright, 1400x1000; "
        f"`cartograph serve` (1 worker, SQLite) on Django 5.1.4: {report['files']:,} files, "
        f"{report['symbols']:,} symbols (indexed in {report['index_seconds']} s). From navigation "
        "start, a new tab each time: the first render (the page drawn with its first answer, "
        "the sections still waiting for theirs as placeholders) and the complete page (every "
        "section drawn, `data-state=ready`); the first visit (server answer cache cold), then "
        f"the median and worst of {args.runs} more. Target: first render ≤ {TARGET_MS} ms.",
        "",
        "| page | first render: first visit / median / max ms | complete: first visit / median / "
        "max ms | DOM nodes | graph nodes | console errors | first render ≤ 1 s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, page in found.items():
        first, done = page["first_render"], page["complete"]
        ok = page["state"] == "ready" and max(first["first_visit"], first["max"]) <= TARGET_MS
        lines.append(
            f"| {name} | {first['first_visit']} / {first['median']} / {first['max']} | "
            f"{done['first_visit']} / {done['median']} / {done['max']} | "
            f"{page['dom_nodes']} | {page['graph_nodes']} | {len(page['console_errors'])} | "
            f"{'yes' if ok else 'no'} |"
        )
    lines += ["", f"Symbol page: `{most_called}` (the most-called function)."]
    for name, page in found.items():
        if page["state"] != "ready":
            lines.append(f"- {name} ended in {page['state']}: {page['message']}")
        for error in page["console_errors"]:
            lines.append(f"- {name}: console error {error}")
    write_report("dashboard", report, "\n".join(lines) + "\n", write=not args.no_write)


def _most_called(env: dict[str, str]) -> str:
    import json

    overview = json.loads(_cli(env, "--json", "overview", "--repo", "django", "--limit", "5"))
    return overview["most_called"][0][0]["id"]


if __name__ == "__main__":
    main()
