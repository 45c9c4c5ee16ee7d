"""Helpers for the indexing tests: real git work trees and "incremental == from scratch"."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cartograph.index import index_repository
from cartograph.store.sqlite import SQLiteStore
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
        for item in store.export(repo)
        if item["type"] == "node" and item["label"] == "Symbol"
    }


def qualnames(store, repo: str) -> set[str]:
    return {
        item["qualname"]
        for item in store.export(repo)
        if item["type"] == "node" and item["label"] == "Symbol"
    }


def calls(store, repo: str) -> set[tuple[str, str]]:
    return {(src, dst) for kind, src, dst, _via in graph_edges(store, repo) if kind == "CALLS"}


def snapshot(store, repo: str) -> dict[str, set[str]]:
    """Everything a user can read back about a repository, in comparable form (the time of the
    run left out)."""
    parts: dict[str, set[str]] = {
        "nodes": set(),
        "edges": set(),
        "graph_edges": set(),
        "unresolved": set(),
        "skipped": set(),
    }
    for item in store.export(repo):
        item = dict(item)
        item.pop("indexed_at", None)
        key = "nodes" if item["type"] == "node" else "edges"
        parts[key].add(json.dumps(item, sort_keys=True))
    parts["graph_edges"] = {json.dumps(e) for e in graph_edges(store, repo)}
    parts["unresolved"] = {
        json.dumps([path, u.src, u.name, u.line, u.external])
        for path, u in store.search_unresolved("", repo, 1_000_000)
    }
    parts["skipped"] = {json.dumps([s.path, s.reason, s.size]) for s in store.skipped(repo)}
    return parts


def fresh_snapshot(root: Path, repo: str, scratch: Path) -> dict[str, set[str]]:
    scratch.mkdir(parents=True, exist_ok=True)
    number = len(list(scratch.glob("fresh-*.db")))
    store = SQLiteStore(scratch / f"fresh-{number}.db")
    try:
        index_repository(store, root, name=repo, workers=1)
        return snapshot(store, repo)
    finally:
        store.close()


def assert_same_as_fresh(store, root: Path, repo: str, scratch: Path) -> None:
    """The incrementally maintained graph equals a from-scratch index of the same tree."""
    incremental = snapshot(store, repo)
    fresh = fresh_snapshot(root, repo, scratch)
    problems = []
    for part in incremental:
        stale = sorted(incremental[part] - fresh[part])
        missing = sorted(fresh[part] - incremental[part])
        if stale or missing:
            problems.append(
                f"{part}:\n  only in the incremental index: {stale}\n"
                f"  only in a fresh index:        {missing}"
            )
    assert not problems, "incremental index differs from a fresh one\n" + "\n".join(problems)
