"""Helpers for the indexing tests: real git work trees and "incremental == from scratch".

"From scratch" is an index of the same tree under another repository name in the same store
(SQLite file or Neo4j graph), compared with the ids mapped back, then deleted."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from cartograph.index import index_repository
from helpers import graph_edges

GIT_IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false")
_clock = [1_700_000_000_000_000_000]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *GIT_IDENTITY, "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def git_init(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root


def commit_all(root: Path, message: str = "commit") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def write(root: Path, rel: str, content: str | bytes) -> Path:
    """Write a file and give it an mtime no earlier write had, so a change is always seen
    (on a file system with a coarse clock two quick writes could share an mtime)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    _clock[0] += 1_000_000_000
    os.utime(path, ns=(_clock[0], _clock[0]), follow_symlinks=False)
    return path


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        write(root, rel, content)
    return root


def symbol_ids(store, repo: str) -> set[str]:
    return {
        item["id"]
        for item in store.graph.export(repo)
        if item["type"] == "node" and item["label"] == "Symbol"
    }


def qualnames(store, repo: str) -> set[str]:
    return {
        item["qualname"]
        for item in store.graph.export(repo)
        if item["type"] == "node" and item["label"] == "Symbol"
    }


def calls(store, repo: str) -> set[tuple[str, str]]:
    return {(src, dst) for kind, src, dst, _via in graph_edges(store, repo) if kind == "CALLS"}


def renamer(repo: str, as_repo: str | None):
    """Maps the ids of `repo` to those of `as_repo`: the Repo node's id is the name, file ids
    are `repo:path`, symbol ids `repo:path#qualname`."""
    if as_repo is None or as_repo == repo:
        return lambda value: value
    prefix = f"{repo}:"

    def rename(value):
        if value == repo:
            return as_repo
        if isinstance(value, str) and value.startswith(prefix):
            return f"{as_repo}:{value[len(prefix) :]}"
        return value

    return rename


def exported_items(store, repo: str, as_repo: str | None = None) -> Iterator[dict]:
    """Every exported node and relationship, the time of the run left out and the
    repository's name in ids replaced by `as_repo` (when given)."""
    rename = renamer(repo, as_repo)
    for item in store.graph.export(repo):
        item = dict(item)
        item.pop("indexed_at", None)
        for key in ("id", "src", "dst", "repo"):
            if key in item:
                item[key] = rename(item[key])
        if item["label"] == "Repo":
            item["name"] = rename(item["name"])
        yield item


def snapshot(store, repo: str, as_repo: str | None = None) -> dict[str, set[str]]:
    """Everything a user can read back about a repository, in comparable form (the time of the
    run left out). With `as_repo`, the repository's name in ids is replaced by that one (to
    compare a copy indexed under another name)."""
    rename = renamer(repo, as_repo)
    parts: dict[str, set[str]] = {
        "nodes": set(),
        "edges": set(),
        "graph_edges": set(),
        "unresolved": set(),
        "skipped": set(),
    }
    for item in exported_items(store, repo, as_repo):
        key = "nodes" if item["type"] == "node" else "edges"
        parts[key].add(json.dumps(item, sort_keys=True))
    parts["graph_edges"] = {json.dumps(e) for e in graph_edges(store, repo)}
    parts["unresolved"] = {
        json.dumps([path, rename(u.src), u.name, u.line, u.external])
        for path, u in store.graph.search_unresolved("", repo, 1_000_000)
    }
    parts["skipped"] = {json.dumps([s.path, s.reason, s.size]) for s in store.index.skipped(repo)}
    return parts


@contextlib.contextmanager
def fresh_index(
    store, root: Path, repo: str, suffix: str = "fresh", workers: int = 1
) -> Iterator[str]:
    """Index `root` from scratch into the same store (for Neo4j: the same graph) under another
    repository name, `repo.suffix`; yields that name and deletes the repository afterwards."""
    fresh = f"{repo}.{suffix}"
    store.repos.delete_repo(fresh)  # left behind by an interrupted test
    try:
        index_repository(store, root, name=fresh, workers=workers)
        yield fresh
    finally:
        store.repos.delete_repo(fresh)


def fresh_snapshot(store, root: Path, repo: str) -> dict[str, set[str]]:
    """The snapshot of a from-scratch index of `root`, with ids as if it were `repo`."""
    with fresh_index(store, root, repo) as fresh:
        return snapshot(store, fresh, as_repo=repo)


def differences(
    actual: dict[str, set[str]],
    wanted: dict[str, set[str]],
    names: tuple[str, str] = ("the incremental index", "a fresh index"),
) -> list[str]:
    problems = []
    width = max(len(n) for n in names)
    for part in actual:
        stale = sorted(actual[part] - wanted[part])
        missing = sorted(wanted[part] - actual[part])
        if stale or missing:
            problems.append(
                f"{part}:\n  only in {names[0]}:{' ' * (width - len(names[0]))} {stale}\n"
                f"  only in {names[1]}:{' ' * (width - len(names[1]))} {missing}"
            )
    return problems


def assert_same_as_fresh(store, root: Path, repo: str) -> None:
    """The incrementally maintained graph equals a from-scratch index of the same tree (made in
    a store of the same backend, and compared exactly)."""
    incremental = snapshot(store, repo)
    fresh = fresh_snapshot(store, root, repo)
    problems = differences(incremental, fresh)
    assert not problems, "incremental index differs from a fresh one\n" + "\n".join(problems)


REPO = "repo"


class Workspace:
    """A git work tree, a store, and the "incremental == fresh" check after every run."""

    def __init__(self, tmp_path, stores, files: dict[str, str], use_git: bool = True) -> None:
        self.tmp = tmp_path
        self.root = tmp_path / "work"
        self.use_git = use_git
        if use_git:
            git_init(self.root)
        write_tree(self.root, files)
        if use_git:
            commit_all(self.root, "initial")
        self.store = stores.open()

    def index(self, check: bool = True, **kwargs):
        kwargs.setdefault("workers", 1)
        result = index_repository(self.store, self.root, name=REPO, **kwargs)
        if check:
            assert_same_as_fresh(self.store, self.root, REPO)
        return result

    def write(self, rel: str, text: str) -> None:
        write(self.root, rel, text)

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def calls(self) -> set[tuple[str, str]]:
        return calls(self.store, REPO)

    def qualnames(self) -> set[str]:
        return qualnames(self.store, REPO)

    def unresolved(self) -> set[tuple[str, str]]:
        return {(path, u.name) for path, u in self.store.graph.search_unresolved("", REPO, 100_000)}


def start_together(
    script: str, argvs: list[list[str]], timeout: float = 120
) -> list[tuple[subprocess.Popen, str, str]]:
    """Start one child per argv, release them together (each waits for a line on stdin after
    its imports), in the order given, and wait for all; (child, stdout, stderr) of each. No child outlives this
    call (one still writing into the next test's store would spoil it)."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    try:
        for child in children:  # all are importing now; let them go together
            child.stdin.write("go\n")
            child.stdin.flush()
        return [(child, *child.communicate(timeout=timeout)) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
