"""Hook latency: the wall time of each `cartograph hook EVENT` as Claude Code runs it — a fresh
process started through the installed `cartograph` script, the event's JSON on stdin — on a
Django 5.1.4 index in the embedded store (SQLite), the local backend.

The tree is the sdist, copied once into a git work tree (one commit) and indexed. Each event
runs RUNS times with a different realistic input:
- pre-edit / post-edit: an Edit of one line inside a function of a random library file
  (post-edit after the file really changed on disk; the file is restored between runs). The
  post-edit hook returns once the edit is recorded and the re-index started; the re-index and
  the walk to the tests run in a process of their own, timed until it is done (the next run
  waits for it);
- pre-search: a Grep for `def NAME` / `NAME(` of a random function, and a Bash `rg`;
- pre-task: a Task for the Explore subagent;
- prompt: a task sentence naming two words of a random function's name;
- session-start / session-end: a new harness session each time.
Reported per event: p50, p95, max (ms); and the floor: `python -c pass` and the `cartograph`
script doing nothing (`cartograph hook` without an event prints its usage).

    python -m benchmark.hook_latency [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cartograph.index import index_repository
from cartograph.store import open_store

from benchmark.corpora import fetch
from benchmark.report import latency_stats, run_facts, write_report

CARTOGRAPH = str(Path(sys.executable).parent / "cartograph")
PER_TOOL = ("pre-edit", "post-edit", "pre-search", "pre-task")
SEED = 16


def _run(command: list[str], payload: dict | None, env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=json.dumps(payload) if payload is not None else "",
                   env=env, capture_output=True, text=True, check=False)  # fmt: skip
    return time.perf_counter() - started


def _functions(root: Path, rng: random.Random, count: int) -> list[tuple[str, int, str, str]]:
    """(path, line, the line's text, the function's name) of random one-line-editable spots."""
    files = sorted(p for p in (root / "django").rglob("*.py") if "/migrations/" not in str(p))
    found: list[tuple[str, int, str, str]] = []
    while len(found) < count:
        path = rng.choice(files)
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        spots = [i for i, line in enumerate(lines) if re.match(r"\s+def [a-z_]{4,}\(", line)]
        if not spots:
            continue
        at = rng.choice(spots)
        body = at + 1
        while body < len(lines) and not lines[body].strip():
            body += 1
        if body >= len(lines) or lines[body].count('"""') == 1 or not lines[body].strip():
            continue
        name = re.match(r"\s+def ([a-z_]+)", lines[at]).group(1)  # type: ignore[union-attr]
        found.append((str(path.relative_to(root)), body + 1, lines[body], name))
    return found


def measure(runs: int) -> dict:
    source = fetch("django", "5.1.4")
    work = Path(tempfile.mkdtemp(prefix="cartograph-hooks-"))
    root = work / "django"
    shutil.copytree(source, root)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b",
                                               "commit", "-q", "-m", "sdist"]):  # fmt: skip
        subprocess.run(["git", "-C", str(root), *args], check=True)
    store_url = f"sqlite:///{work / 'graph.db'}"
    started = time.perf_counter()
    index_repository(open_store(store_url), root, "django", history=False)
    index_seconds = time.perf_counter() - started
    env = {**os.environ, "CARTOGRAPH_STORE": store_url, "CARTOGRAPH_DATA": str(work / "data"),
           "XDG_CONFIG_HOME": str(work / "config")}  # fmt: skip
    env.pop("CARTOGRAPH_SERVER", None)
    rng = random.Random(SEED)
    refresh: list[float] = []
    spots = _functions(root, rng, runs)
    times: dict[str, list[float]] = {event: [] for event in
                                     ("session-start", "prompt", *PER_TOOL, "session-end")}  # fmt: skip

    def base(session: str, event: str) -> dict:
        return {"session_id": session, "cwd": str(root), "hook_event_name": event,
                "transcript_path": "/tmp/t.jsonl", "permission_mode": "default"}  # fmt: skip

    for i, (path, _line, text, name) in enumerate(spots):
        session = f"bench-{i}"
        hook = [CARTOGRAPH, "hook"]
        payload = {**base(session, "SessionStart"), "source": "startup"}
        times["session-start"].append(_run([*hook, "session-start"], payload, env))
        words = " ".join(name.split("_")[:2])
        prompt = {**base(session, "UserPromptSubmit"),
                  "prompt": f"Fix the {words} handling: it returns the wrong value"}  # fmt: skip
        times["prompt"].append(_run([*hook, "prompt"], prompt, env))
        edit = {"file_path": str(root / path), "old_string": text, "new_string": text + "  # x"}
        call = {**base(session, "PreToolUse"), "tool_name": "Edit", "tool_input": edit,
                "tool_use_id": "t"}  # fmt: skip
        times["pre-edit"].append(_run([*hook, "pre-edit"], call, env))
        file = root / path
        original = file.read_bytes()
        file.write_bytes(original.replace(text.encode(), (text + "  # x").encode(), 1))
        after = {**call, "hook_event_name": "PostToolUse", "tool_response": {"success": True}}
        started = time.perf_counter()
        times["post-edit"].append(_run([*hook, "post-edit"], after, env))
        jobs = work / "data" / "hooks" / "jobs"
        while any(jobs.glob("*.json")):  # the re-index and the tests, in the background
            time.sleep(0.01)
        refresh.append(time.perf_counter() - started)
        file.write_bytes(original)
        grep = rng.choice([{"pattern": rf"def\s+{name}"}, {"pattern": rf"{name}\("}])
        search = {**call, "tool_name": "Grep", "tool_input": grep}
        times["pre-search"].append(_run([*hook, "pre-search"], search, env))
        task = {**call, "tool_name": "Task", "tool_input": {
            "description": "explore", "prompt": f"Where is {name}?", "subagent_type": "Explore"}}  # fmt: skip
        times["pre-task"].append(_run([*hook, "pre-task"], task, env))
        end = {**base(session, "SessionEnd"), "reason": "other"}
        times["session-end"].append(_run([*hook, "session-end"], end, env))
    floor = {
        "python -c pass": [_run([sys.executable, "-c", "pass"], None, env) for _ in range(runs)],
        "cartograph hook (usage)": [_run([CARTOGRAPH, "hook"], None, env) for _ in range(runs)],
    }
    shutil.rmtree(work, ignore_errors=True)

    stats = latency_stats

    return {
        **run_facts(),
        "corpus": "django 5.1.4 (sdist), SQLite store, local backend",
        "index_seconds": round(index_seconds, 1),
        "events": {event: stats(values) for event, values in times.items()},
        "floor": {name: stats(values) for name, values in floor.items()},
        "background_refresh": stats(refresh),
    }


def markdown(report: dict) -> str:
    lines = [
        "# Hook latency (Claude Code hooks, fresh process per run)",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']} · "
        f"{report['corpus']} (indexed in {report['index_seconds']} s)",
        "",
        "| hook | per tool | p50 | p95 | max | runs |",
        "|---|---|---|---|---|---|",
    ]
    for event, row in report["events"].items():
        lines.append(f"| {event} | {'yes' if event in PER_TOOL else ''} | {row['p50_ms']} ms | "
                     f"{row['p95_ms']} ms | {row['max_ms']} ms | {row['runs']} |")  # fmt: skip
    row = report["background_refresh"]
    lines.append(f"| after post-edit, in the background: re-index + tests (until done) | | "
                 f"{row['p50_ms']} ms | {row['p95_ms']} ms | {row['max_ms']} ms | {row['runs']} |")  # fmt: skip
    for name, row in report["floor"].items():
        lines.append(f"| floor: {name} | | {row['p50_ms']} ms | {row['p95_ms']} ms | "
                     f"{row['max_ms']} ms | {row['runs']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    report = measure(args.runs)
    text = markdown(report)
    print(text)
    if not args.no_write:
        write_report("hook-latency", report, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
