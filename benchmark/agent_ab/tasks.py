"""The task files: YAML under benchmark/agent_tasks/ (or a team's own folder).

A file holds `tasks`, a list, and may give a `repository` its tasks share:

    repository:
      git: https://github.com/pallets/click.git   # or  path: /srv/git/our-service
                                                  # or  pypi: click==8.1.7
    tasks:
      - id: click-3055-pager-arguments
        kind: investigation        # or edit
        commit: 35e6a786...        # the tree the agent starts from (the commit before the fix)
        prompt: |
          The text the agent is given, as a user would write it.
        expected_files: [src/click/_termui_impl.py]   # non-test files the real fix changed
        expected_symbols: [_pipepager]                # optional
        fix: 7d718360...           # optional: the fix commit, for the reader
        source: CHANGES.rst 8.3.0  # optional: where the prompt came from
        validation:                # optional (edit tasks): run after the agent
          command: "{python} -m pytest -q -p no:cacheprovider tests/test_fix.py"
          env: {PYTHONPATH: src}
          timeout: 300
          files:                   # written into the tree before the command runs
            tests/test_fix.py: |
              ...

A task may carry its own `repository` (it replaces the file's). `{python}` in a validation
command is the harness's `--validation-python` (default: the interpreter running it)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

KINDS = ("investigation", "edit")
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class TaskError(ValueError):
    """A task file that is not what the harness reads; the message names the file and task."""


@dataclass(frozen=True)
class Repository:
    """Where a task's tree comes from: exactly one of a git URL, a local git repository, or a
    PyPI sdist (`name==version`, unpacked and committed once)."""

    git: str | None = None
    path: str | None = None
    pypi: str | None = None

    @property
    def name(self) -> str:
        """The folder name of the tree the agent works in: the repository's own name."""
        if self.git:
            return self.git.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
        if self.path:
            return Path(self.path).name
        assert self.pypi
        return self.pypi.split("==", 1)[0]

    @property
    def description(self) -> str:
        return self.git or self.path or f"pypi:{self.pypi}"


@dataclass(frozen=True)
class Validation:
    command: str
    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 600.0


@dataclass(frozen=True)
class Task:
    id: str
    kind: str
    prompt: str
    repository: Repository
    commit: str | None
    expected_files: tuple[str, ...]
    expected_symbols: tuple[str, ...] = ()
    validation: Validation | None = None
    fix: str | None = None
    source: str = ""
    file: str = ""  # the YAML file it was read from


def load_tasks(paths: Iterable[str | Path]) -> list[Task]:
    """Every task of the YAML files given, or of the .yaml/.yml files in the folders given,
    in file order; TaskError for a malformed file or a repeated id."""
    tasks: list[Task] = []
    for path in paths:
        path = Path(path)
        files = sorted([*path.glob("*.yaml"), *path.glob("*.yml")]) if path.is_dir() else [path]
        if not files:
            raise TaskError(f"{path}: no task files (*.yaml) there")
        for file in files:
            tasks.extend(_load_file(file))
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise TaskError(f"{task.file}: task id {task.id!r} is used twice")
        seen.add(task.id)
    return tasks


def _load_file(file: Path) -> list[Task]:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TaskError(f"{file}: cannot read it as YAML ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise TaskError(f"{file}: expected a mapping with a `tasks` list")
    shared = data.get("repository")
    return [_task(file, index, entry, shared) for index, entry in enumerate(data["tasks"])]


def _task(file: Path, index: int, entry: Any, shared: Any) -> Task:
    where = f"{file}: task {index + 1}"
    if not isinstance(entry, dict):
        raise TaskError(f"{where}: expected a mapping")
    task_id = entry.get("id")
    if not isinstance(task_id, str) or not TASK_ID.match(task_id):
        raise TaskError(f"{where}: `id` must be a word of letters, digits, '.', '_' or '-'")
    where = f"{file}: task {task_id}"
    kind = entry.get("kind")
    if kind not in KINDS:
        raise TaskError(f"{where}: `kind` is one of {', '.join(KINDS)}")
    prompt = entry.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskError(f"{where}: `prompt` is required")
    repository = _repository(where, entry.get("repository", shared))
    commit = entry.get("commit")
    if commit is not None and not isinstance(commit, str):
        raise TaskError(f"{where}: `commit` is a string (quote a commit that looks like a number)")
    if commit is None and repository.pypi is None:
        raise TaskError(f"{where}: `commit` is required for a git repository")
    expected = _strings(where, entry, "expected_files")
    if not expected:
        raise TaskError(f"{where}: `expected_files` lists at least one file")
    validation = _validation(where, entry.get("validation"))
    return Task(
        id=task_id,
        kind=kind,
        prompt=prompt.strip() + "\n",
        repository=repository,
        commit=commit,
        expected_files=tuple(expected),
        expected_symbols=tuple(_strings(where, entry, "expected_symbols")),
        validation=validation,
        fix=str(entry["fix"]) if entry.get("fix") is not None else None,
        source=str(entry.get("source") or ""),
        file=str(file),
    )


def _repository(where: str, value: Any) -> Repository:
    if not isinstance(value, dict):
        raise TaskError(f"{where}: `repository` (git, path or pypi) is required")
    given = {key: value[key] for key in ("git", "path", "pypi") if value.get(key)}
    if len(given) != 1 or not all(isinstance(v, str) for v in given.values()):
        raise TaskError(f"{where}: `repository` gives exactly one of git, path or pypi")
    if "pypi" in given and "==" not in given["pypi"]:
        raise TaskError(f"{where}: `repository.pypi` is name==version")
    return Repository(**given)


def _strings(where: str, entry: Mapping[str, Any], key: str) -> list[str]:
    value = entry.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise TaskError(f"{where}: `{key}` is a list of strings")
    return value


def _validation(where: str, value: Any) -> Validation | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("command"), str):
        raise TaskError(f"{where}: `validation` needs a `command`")
    files = value.get("files") or {}
    env = value.get("env") or {}
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise TaskError(f"{where}: `validation.files` maps paths to file contents")
    for name in files:
        if name.startswith("/") or ".." in Path(name).parts:
            raise TaskError(f"{where}: validation file {name!r} must stay inside the tree")
    if not isinstance(env, dict):
        raise TaskError(f"{where}: `validation.env` is a mapping")
    timeout = value.get("timeout", 600)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise TaskError(f"{where}: `validation.timeout` is a number of seconds")
    return Validation(
        command=value["command"],
        files=dict(files),
        env={str(k): str(v) for k, v in env.items()},
        timeout=float(timeout),
    )
