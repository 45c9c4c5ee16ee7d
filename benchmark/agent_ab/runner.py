"""One run: a task's tree in a scratch folder, the arm's set-up, the agent under a time
limit, its stream read, the validation, the outcome; the scratch folder removed after.

The Cartograph arm, before the agent starts:
    cartograph --store sqlite:///STATE/graph.db index TREE --quiet
    cartograph --store sqlite:///STATE/graph.db hooks install --agent X --project TREE
with CARTOGRAPH_DATA=STATE/data (the hooks' state and backups stay in the run's folder). The
store sits outside the tree, so neither arm's grep finds it. The time this takes is the run's
`setup_seconds`, not part of its wall time.

The agent runs in the tree with the harness's environment plus CARTOGRAPH_AB_TASK,
CARTOGRAPH_AB_ARM, CARTOGRAPH_AB_REPEAT (for a team's wrapper) and, in the Cartograph arm,
CARTOGRAPH_STORE (the run's store); CARTOGRAPH_SERVER and CARTOGRAPH_TOKEN are removed from
both arms, and CARTOGRAPH_STORE from the baseline. Past the timeout its process group gets
SIGTERM, then SIGKILL 5 s later.

Outcome:
- files changed: what `git status` shows changed after the agent that was not already so after
  the set-up (Cartograph's installed files are not the agent's edits), caches left out;
- investigation: each expected file is *named* when the final answer holds its path, or a
  tail of it with at least its folder (`flask/ctx.py`), or its bare name when no other file
  in the tree has that name;
- edit: each expected file is *edited* when it is among the files changed; the validation
  (if the task has one, and the run did not time out) writes its files into the tree and runs
  its command there;
- success: not a timeout, and — investigation: every expected file named; edit: the
  validation passed (without one: every expected file edited)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from benchmark.agent_ab.agents import Adapter, RunContext
from benchmark.agent_ab.sources import SourceError, Sources
from benchmark.agent_ab.streams import parse_stream
from benchmark.agent_ab.tasks import Task

ARMS = ("baseline", "cartograph")
KILL_GRACE = 5.0
ANSWER_KEPT = 4000  # characters of the final answer kept in metrics.json
NOISE = re.compile(
    r"(^|/)(__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|[^/]+\.egg-info)(/|$)|\.py[co]$"
)
CARTOGRAPH_VARIABLES = ("CARTOGRAPH_SERVER", "CARTOGRAPH_TOKEN", "CARTOGRAPH_STORE")


class RunError(RuntimeError):
    """A run the harness could not carry out (the agent would not start, the set-up failed)."""


@dataclass(frozen=True)
class HarnessConfig:
    adapter: Adapter
    sources: Sources
    out: Path  # the output folder (streams/ under it)
    work: Path  # where scratch folders are made
    timeout: float
    keep: bool = False
    cartograph: str = "cartograph"
    validation_python: str = sys.executable


def cartograph_executable() -> str:
    """The `cartograph` beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / "cartograph"
    if beside.exists():
        return str(beside)
    return shutil.which("cartograph") or "cartograph"


def run_limited(
    argv: list[str] | str,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdout: IO[bytes] | int,
    stderr: IO[bytes] | int,
) -> tuple[int | None, bool, float]:
    """Run a command (a string: through the shell) in its own process group; (exit code,
    timed out, seconds). Past `timeout` the group is ended."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        shell=isinstance(argv, str),
        start_new_session=True,
    )
    try:
        code = process.wait(timeout=timeout)
        return code, False, time.perf_counter() - started
    except subprocess.TimeoutExpired:
        _end_group(process)
        return None, True, time.perf_counter() - started
    except BaseException:  # interrupted: leave nothing running
        _end_group(process)
        raise


def _end_group(process: subprocess.Popen[bytes]) -> None:
    for sig, grace in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, KILL_GRACE)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def tree_state(tree: Path) -> dict[str, str]:
    """Changed and untracked paths (git status) with a hash of their content ("" deleted)."""
    result = subprocess.run(
        ["git", "status", "--porcelain=v1", "-z", "-uall"],
        cwd=tree,
        capture_output=True,
        check=False,
    )
    fields = result.stdout.decode("utf-8", "replace").split("\0")
    state: dict[str, str] = {}
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":
            index += 1  # the rename's source follows
        file = tree / path
        if file.is_file():
            state[path] = hashlib.sha256(file.read_bytes()).hexdigest()
        else:
            state[path] = ""
    return state


def changed_since(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        path
        for path, digest in after.items()
        if before.get(path) != digest and not NOISE.search(path)
    )


def tracked_files(tree: Path) -> list[str]:
    result = subprocess.run(["git", "ls-files", "-z"], cwd=tree, capture_output=True, check=False)
    return [p for p in result.stdout.decode("utf-8", "replace").split("\0") if p]


def names_file(answer: str, path: str, tree_files: list[str]) -> bool:
    """Whether `answer` names `path` (see the module's text)."""
    text = answer.replace("\\", "/")
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[i:]) for i in range(len(parts) - 1)]
    name = parts[-1]
    if sum(1 for f in tree_files if PurePosixPath(f).name == name) <= 1:
        candidates.append(name)
    return any(
        re.search(r"(?<![\w.-])" + re.escape(candidate) + r"(?![\w/])", text)
        for candidate in candidates
    )


def run_one(task: Task, arm: str, repeat: int, config: HarnessConfig) -> dict[str, Any]:
    """Run the task once in `arm`; the run's record (metrics.json's `runs` entry)."""
    streams = config.out / "streams" / task.id
    streams.mkdir(parents=True, exist_ok=True)
    stream_file = streams / f"{arm}-{repeat}.jsonl"
    stderr_file = streams / f"{arm}-{repeat}.stderr.txt"
    run_dir = config.work / f"{task.id}-{arm}-{repeat}"
    tree = run_dir / task.repository.name
    state = run_dir / "state"
    record: dict[str, Any] = {
        "task": task.id,
        "kind": task.kind,
        "arm": arm,
        "repeat": repeat,
        "repository": task.repository.description,
        "commit": task.commit,
        "status": "error",
        "exit_code": None,
        "wall_seconds": 0.0,
        "setup_seconds": 0.0,
        "metrics": parse_stream("none", []).as_dict(),
        "final_answer": "",
        "files_changed": [],
        "expected": {},
        "expected_hit": 0.0,
        "validation": None,
        "success": False,
        "error": "",
        "stream": str(stream_file.relative_to(config.out)),
        "stderr": str(stderr_file.relative_to(config.out)),
    }
    if run_dir.exists():
        shutil.rmtree(run_dir)
    try:
        record["commit"] = config.sources.checkout(task.repository, task.commit, tree)
        state.mkdir(parents=True)
        context = RunContext(task.prompt, tree, state, cartograph=arm == "cartograph")
        env = _environment(task, arm, repeat, config, context)
        config.adapter.prepare(context)
        if context.cartograph:
            record["setup_seconds"] = _install_cartograph(config, context, env)
        before = tree_state(tree)
        with stream_file.open("wb") as out, stderr_file.open("wb") as err:
            try:
                code, timed_out, seconds = run_limited(
                    config.adapter.argv(context), tree, env, config.timeout, out, err
                )
            except OSError as exc:  # the binary is missing or not executable
                raise RunError(f"cannot start the agent: {exc}") from None
        record["wall_seconds"] = round(seconds, 3)
        record["exit_code"] = code
        lines = stream_file.read_text(encoding="utf-8", errors="replace").splitlines()
        metrics = parse_stream(config.adapter.stream_format, lines, tree)
        record["metrics"] = metrics.as_dict()
        record["final_answer"] = metrics.final_answer[:ANSWER_KEPT]
        if timed_out:
            record["status"] = "timeout"
        elif code != 0 or metrics.is_error:
            record["status"] = "failed"
            if not metrics.error:  # say why from what the agent wrote on stderr
                record["error"] = _last_line(stderr_file)
        else:
            record["status"] = "ok"
        record["files_changed"] = changed_since(before, tree_state(tree))
        _outcome(task, record, tree, metrics.final_answer)
        if task.validation is not None and task.kind == "edit":
            record["validation"] = _validate(task, record, tree, streams, arm, repeat, config)
        record["success"] = _success(task, record)
    except (RunError, SourceError, OSError, subprocess.SubprocessError) as exc:
        record["status"] = "error"
        record["error"] = str(exc)[:1000]
    finally:
        if not config.keep and run_dir.exists():
            shutil.rmtree(run_dir, ignore_errors=True)
    return record


def _environment(
    task: Task, arm: str, repeat: int, config: HarnessConfig, context: RunContext
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CARTOGRAPH_VARIABLES}
    env.update(config.adapter.environment(context))
    env.update(
        {
            "CARTOGRAPH_DATA": str(context.state / "data"),
            "CARTOGRAPH_HOOKD_IDLE": "120",  # the hooks' warm process ends soon after the run
            "CARTOGRAPH_AB_TASK": task.id,
            "CARTOGRAPH_AB_ARM": arm,
            "CARTOGRAPH_AB_REPEAT": str(repeat),
        }
    )
    if context.cartograph:
        env["CARTOGRAPH_STORE"] = store_url(context.state)
    return env


def store_url(state: Path) -> str:
    return f"sqlite:///{state / 'graph.db'}"


def _install_cartograph(config: HarnessConfig, context: RunContext, env: dict[str, str]) -> float:
    """Index the tree and install the hooks; seconds taken."""
    started = time.perf_counter()
    base = [config.cartograph, "--store", store_url(context.state)]
    commands = [[*base, "index", str(context.tree), "--quiet"]]
    if config.adapter.hooks_agent:
        commands.append(
            [*base, "hooks", "install", "--agent", config.adapter.hooks_agent,
             "--project", str(context.tree)]
        )  # fmt: skip
    for argv in commands:
        result = subprocess.run(
            argv, cwd=context.tree, env=env, capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise RunError(
                f"{' '.join(argv[3:5])} failed: {(result.stderr or result.stdout).strip()[-800:]}"
            )
    return round(time.perf_counter() - started, 3)


def _last_line(file: Path) -> str:
    lines = file.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return lines[-1].strip()[:300] if lines else ""


def _outcome(task: Task, record: dict[str, Any], tree: Path, answer: str) -> None:
    if task.kind == "investigation":
        files = tracked_files(tree)
        expected = {path: names_file(answer, path, files) for path in task.expected_files}
    else:
        changed = set(record["files_changed"])
        expected = {path: path in changed for path in task.expected_files}
    record["expected"] = expected
    record["expected_hit"] = round(sum(expected.values()) / len(expected), 3)


def _validate(
    task: Task,
    record: dict[str, Any],
    tree: Path,
    streams: Path,
    arm: str,
    repeat: int,
    config: HarnessConfig,
) -> dict[str, Any]:
    if record["status"] == "timeout":
        return {"ran": False, "passed": False, "reason": "the agent timed out"}
    output_file = streams / f"{arm}-{repeat}.validation.txt"
    return {
        **validate(task, tree, output_file, config),
        "output": str(output_file.relative_to(config.out)),
    }


def validate(task: Task, tree: Path, output_file: Path, config: HarnessConfig) -> dict[str, Any]:
    """Write the task's validation files into the tree and run its command there (output to
    `output_file`); whether it passed."""
    assert task.validation is not None
    validation = task.validation
    for name, content in validation.files.items():
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    command = validation.command.replace("{python}", shlex.quote(config.validation_python))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **validation.env}
    with output_file.open("wb") as out:
        out.write(f"$ {command}\n".encode())
        out.flush()
        code, timed_out, seconds = run_limited(
            command, tree, env, validation.timeout, out, subprocess.STDOUT
        )
    return {
        "ran": True,
        "passed": code == 0 and not timed_out,
        "exit_code": code,
        "timed_out": timed_out,
        "seconds": round(seconds, 3),
    }


def check_validation(task: Task, config: HarnessConfig) -> list[dict[str, Any]]:
    """The task's validation run on its own commit (it should fail: the bug is there) and,
    when the task names its fix, on the fix (it should pass): a check of the task and of the
    validation's environment (`--check-validations`)."""
    checks: list[dict[str, Any]] = []
    folder = config.out / "validation-checks"
    folder.mkdir(parents=True, exist_ok=True)
    for label, commit, should_pass in (("before", task.commit, False), ("fix", task.fix, True)):
        if commit is None and label == "fix":
            continue
        tree = config.work / f"check-{task.id}-{label}" / task.repository.name
        output_file = folder / f"{task.id}-{label}.txt"
        passed: bool | None = None
        try:
            config.sources.checkout(task.repository, commit, tree)
            passed, where = validate(task, tree, output_file, config)["passed"], str(output_file)
        except (SourceError, OSError) as exc:
            where = str(exc)
        finally:
            if not config.keep:
                shutil.rmtree(tree.parent, ignore_errors=True)
        checks.append(
            {"task": task.id, "tree": label, "should_pass": should_pass, "passed": passed,
             "output": where}
        )  # fmt: skip
    return checks


def _success(task: Task, record: dict[str, Any]) -> bool:
    if record["status"] == "timeout":
        return False
    if task.kind == "edit" and record["validation"] is not None:
        return bool(record["validation"]["passed"])
    return all(record["expected"].values())
