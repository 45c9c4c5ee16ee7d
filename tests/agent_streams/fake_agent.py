"""A stand-in for a headless agent CLI: replays a recorded stream (tests/test_agent_harness.py).

It ignores its arguments (the prompt and the adapter's flags) apart from recording them, and
prints the lines of `$FAKE_AGENT_STREAMS/<task>.<arm>.<repeat>.jsonl`, else
`<task>.<arm>.jsonl`, else `<task>.jsonl` (task, arm and repeat from the harness's
CARTOGRAPH_AB_* variables). `{cwd}` in a line becomes the folder it runs in (the scratch tree).

A line that is a JSON object with a "fake" key is not printed but done:
    {"fake": {"replace": {"path": P, "old": A, "new": B}}}   edit a file of the tree
    {"fake": {"write": {"path": P, "content": C}}}            write a file of the tree
    {"fake": {"stderr": TEXT}}                                 write to stderr
    {"fake": {"sleep": SECONDS}}                               sleep (a run that times out)
    {"fake": {"exit": CODE}}                                   stop here with that exit code

With $FAKE_AGENT_LOG set, one JSON line per run is appended to it: the arguments and what the
run could see of Cartograph (the files `hooks install` writes, the store, Codex's config)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def stream_file(folder: Path) -> Path:
    task = os.environ.get("CARTOGRAPH_AB_TASK", "")
    arm = os.environ.get("CARTOGRAPH_AB_ARM", "")
    repeat = os.environ.get("CARTOGRAPH_AB_REPEAT", "")
    for name in (f"{task}.{arm}.{repeat}.jsonl", f"{task}.{arm}.jsonl", f"{task}.jsonl"):
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"fake agent: no recorded stream for {task} {arm} {repeat} in {folder}")


def log_run(cwd: Path) -> None:
    log = os.environ.get("FAKE_AGENT_LOG")
    if not log:
        return
    store = os.environ.get("CARTOGRAPH_STORE", "")
    codex_config = Path(os.environ.get("CODEX_HOME", "/nonexistent")) / "config.toml"
    entry = {
        "task": os.environ.get("CARTOGRAPH_AB_TASK"),
        "arm": os.environ.get("CARTOGRAPH_AB_ARM"),
        "repeat": os.environ.get("CARTOGRAPH_AB_REPEAT"),
        "argv": sys.argv[1:],
        "store": store,
        "store_exists": bool(store) and Path(store.removeprefix("sqlite:///")).is_file(),
        "mcp_json": (cwd / ".mcp.json").is_file(),
        "claude_settings": (cwd / ".claude" / "settings.json").is_file(),
        "agents_md": (cwd / "AGENTS.md").is_file(),
        "codex_config": codex_config.read_text() if codex_config.is_file() else None,
    }
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def act(directive: dict, cwd: Path) -> None:
    if "replace" in directive:
        spec = directive["replace"]
        target = cwd / spec["path"]
        target.write_text(target.read_text().replace(spec["old"], spec["new"]))
    if "write" in directive:
        spec = directive["write"]
        (cwd / spec["path"]).write_text(spec["content"])
    if "stderr" in directive:
        sys.stderr.write(directive["stderr"] + "\n")
        sys.stderr.flush()
    if "sleep" in directive:
        time.sleep(float(directive["sleep"]))
    if "exit" in directive:
        sys.stdout.flush()
        raise SystemExit(int(directive["exit"]))


def main() -> None:
    cwd = Path.cwd()
    log_run(cwd)
    folder = Path(os.environ["FAKE_AGENT_STREAMS"])
    escaped_cwd = json.dumps(str(cwd))[1:-1]
    for line in stream_file(folder).read_text().splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        if isinstance(event, dict) and "fake" in event:
            act(event["fake"], cwd)
            continue
        sys.stdout.write(line.replace("{cwd}", escaped_cwd) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
