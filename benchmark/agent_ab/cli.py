"""`python -m benchmark.agent_ab`: run the tasks with and without Cartograph and compare.

    python -m benchmark.agent_ab --agent claude --tasks benchmark/agent_tasks --repeats 3 \\
        --out DIR [--only TASK ...] [--timeout S] [--agent-command PATH]

Each task runs `--repeats` times in each arm. The arms are interleaved and alternate which
goes first (repeat 1: baseline then cartograph; repeat 2: cartograph then baseline; ...), so a
drift in the model's service over the session falls on both. metrics.json is rewritten after
every run (an interrupted session keeps what it measured); summary.md is written at the end."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmark.agent_ab.agents import AGENTS, HOOK_AGENTS, Adapter, find_binary, make_adapter
from benchmark.agent_ab.runner import (
    ARMS,
    HarnessConfig,
    cartograph_executable,
    check_validation,
    run_one,
)
from benchmark.agent_ab.sources import DEFAULT_CACHE, Sources
from benchmark.agent_ab.stats import deltas, summary_markdown
from benchmark.agent_ab.streams import FORMATS
from benchmark.agent_ab.tasks import Task, TaskError, load_tasks

DEFAULT_TASKS = Path(__file__).resolve().parent.parent / "agent_tasks"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.agent_ab",
        description="A/B of a headless coding agent without and with Cartograph on tasks "
        "with known answers: tokens, turns, tool calls, greps and reads, wall time, success.",
    )
    p.add_argument("--agent", choices=AGENTS, required=True, help="the agent adapter")
    p.add_argument(
        "--tasks",
        nargs="+",
        default=[str(DEFAULT_TASKS)],
        help="task YAML files or folders (default: benchmark/agent_tasks)",
    )
    p.add_argument("--repeats", type=int, default=3, help="runs per task and arm (default 3)")
    p.add_argument(
        "--out", required=True, help="output folder (metrics.json, summary.md, streams/)"
    )
    p.add_argument("--only", nargs="+", metavar="TASK", help="run only these task ids")
    p.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="seconds one agent run may take (default 1800)",
    )
    p.add_argument(
        "--agent-command",
        help="the agent's executable instead of the adapter's default (for "
        "--agent command: the whole command; {prompt} is replaced by the prompt, "
        "else it is the last argument)",
    )
    p.add_argument(
        "--agent-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument for the agent (repeatable), e.g. --agent-arg=--model "
        "--agent-arg=sonnet",
    )
    p.add_argument(
        "--stream-format",
        choices=FORMATS,
        help="the stream the command writes (--agent command; default none)",
    )
    p.add_argument(
        "--hooks-agent",
        choices=(*HOOK_AGENTS, "none"),
        help="whose wiring the cartograph arm installs (default: the agent's)",
    )
    p.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="URL=GITDIR",
        help="use a local git directory for a repository URL (repeatable)",
    )
    p.add_argument(
        "--mirrors",
        metavar="DIR",
        help="a folder of <owner>+<name>/repo git directories used for GitHub URLs",
    )
    p.add_argument(
        "--cache",
        default=str(DEFAULT_CACHE),
        help=f"where clones and sdists are kept (default {DEFAULT_CACHE})",
    )
    p.add_argument("--work", help="where scratch trees are made (default: a temporary folder)")
    p.add_argument("--keep", action="store_true", help="keep the scratch trees")
    p.add_argument(
        "--check-validations",
        action="store_true",
        help="run no agent: run each edit task's validation on its commit (it should fail) "
        "and on its fix (it should pass), to check the tasks and the validation's Python",
    )
    p.add_argument(
        "--cartograph",
        default=cartograph_executable(),
        help="the cartograph executable for the cartograph arm's set-up",
    )
    p.add_argument(
        "--validation-python",
        default=sys.executable,
        help="the Python a validation command's {python} names (default: this one)",
    )
    return p


def mirrors_of(values: list[str]) -> dict[str, str]:
    mirrors: dict[str, str] = {}
    for value in values:
        url, sep, path = value.partition("=")
        if not sep or not url or not path:
            raise SystemExit(f"--mirror {value!r}: expected URL=GITDIR")
        mirrors[url] = path
    return mirrors


def user_scope_warnings(adapter: Adapter) -> list[str]:
    """Cartograph installed for every project would reach the baseline arm too."""
    places = {
        "claude": Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
        / "settings.json",
        "gemini": Path(os.environ.get("GEMINI_HOME") or Path.home() / ".gemini") / "settings.json",
    }
    place = places.get(adapter.hooks_agent or "")
    if place is not None and place.is_file() and "cartograph" in place.read_text(errors="replace"):
        return [
            f"{place} mentions cartograph (a user-scope install?): it reaches the baseline arm "
            f"too; `cartograph hooks uninstall --agent {adapter.hooks_agent} --scope user` first"
        ]
    return []


def harness_commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the A/B session the arguments describe; the metrics written."""
    if args.repeats < 1:
        raise SystemExit("--repeats is at least 1")
    try:
        tasks = load_tasks(args.tasks)
    except TaskError as exc:
        raise SystemExit(str(exc)) from None
    tasks = select(tasks, args.only)
    try:
        adapter = make_adapter(
            args.agent,
            args.agent_command,
            args.stream_format,
            args.hooks_agent,
            tuple(args.agent_arg),
        )
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    if not args.check_validations and find_binary(adapter) is None:
        raise SystemExit(
            f"no `{adapter.command[0]}` found: install the agent's CLI or point "
            "--agent-command at it"
        )
    for warning in user_scope_warnings(adapter):
        print(f"warning: {warning}", file=sys.stderr)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work_root = Path(args.work).resolve() if args.work else None
    if work_root is not None:
        work_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="agent-ab-", dir=work_root))
    config = HarnessConfig(
        adapter=adapter,
        sources=Sources(
            Path(args.cache),
            mirrors_of(args.mirror),
            Path(args.mirrors) if args.mirrors else None,
        ),
        out=out,
        work=work,
        timeout=args.timeout,
        keep=args.keep,
        cartograph=args.cartograph,
        validation_python=args.validation_python,
    )
    if args.check_validations:
        return check_validations(tasks, config)
    header = {
        "agent": adapter.name,
        "agent_command": " ".join(adapter.command + adapter.extra_args),
        "stream_format": adapter.stream_format,
        "hooks_agent": adapter.hooks_agent,
        "repeats": args.repeats,
        "timeout": args.timeout,
        "tasks": [str(t) for t in args.tasks],
        "task_count": len(tasks),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "harness_commit": harness_commit(),
        "work": str(work),
    }
    runs: list[dict[str, Any]] = []
    total = len(tasks) * args.repeats * len(ARMS)
    for task in tasks:
        for repeat in range(1, args.repeats + 1):
            arms = ARMS if repeat % 2 == 1 else tuple(reversed(ARMS))
            for arm in arms:
                print(f"[{len(runs) + 1}/{total}] {task.id} {arm} #{repeat}", file=sys.stderr)
                record = run_one(task, arm, repeat, config)
                runs.append(record)
                print(f"    {_one_line(record)}", file=sys.stderr)
                write_metrics(out, header, runs, final=False)
    header["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    metrics = write_metrics(out, header, runs, final=True)
    if not args.keep:
        with contextlib.suppress(OSError):
            work.rmdir()
    return metrics


def check_validations(tasks: list[Task], config: HarnessConfig) -> dict[str, Any]:
    checks = [
        check
        for task in tasks
        if task.kind == "edit" and task.validation is not None
        for check in check_validation(task, config)
    ]
    for check in checks:
        verdict = "as it should" if check["passed"] == check["should_pass"] else "WRONG"
        outcome = {True: "passes", False: "fails", None: "could not run"}[check["passed"]]
        print(f"{check['task']} on its {check['tree']} tree: {outcome} ({verdict}); "
              f"{check['output']}")  # fmt: skip
    wrong = [c for c in checks if c["passed"] != c["should_pass"]]
    with contextlib.suppress(OSError):
        config.work.rmdir()
    if wrong:
        raise SystemExit(f"{len(wrong)} of {len(checks)} validation checks went wrong")
    return {"checks": checks}


def select(tasks: list[Task], only: list[str] | None) -> list[Task]:
    if not only:
        return tasks
    known = {t.id for t in tasks}
    unknown = [t for t in only if t not in known]
    if unknown:
        raise SystemExit(f"--only: no task {', '.join(unknown)} in the task files")
    return [t for t in tasks if t.id in only]


def write_metrics(
    out: Path, header: dict[str, Any], runs: list[dict[str, Any]], final: bool
) -> dict[str, Any]:
    compared = deltas(runs)
    metrics = {"harness": header, "runs": runs, "deltas": compared}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    if final:
        (out / "summary.md").write_text(summary_markdown(header, runs, compared), encoding="utf-8")
    return metrics


def _one_line(record: dict[str, Any]) -> str:
    m = record["metrics"]
    text = (
        f"{record['status']}, {record['wall_seconds']:.1f} s, {m['tokens']['total']:,} tokens, "
        f"{m['turns']} turns, {m['tool_calls_total']} tool calls, success {record['success']}"
    )
    return text + (f" — {record['error']}" if record.get("error") else "")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    metrics = run(args)
    if args.check_validations:
        print(f"{len(metrics['checks'])} validation checks as they should be")
    else:
        print(
            f"wrote {Path(args.out) / 'metrics.json'} and summary.md ({len(metrics['runs'])} runs)"
        )
    return 0
