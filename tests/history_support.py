"""Helpers for the history tests: real git repositories built by scripted commits, with the
author, e-mail and date of every commit under control (so ownership decay is deterministic)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cartograph.index import index_repository
from cartograph.query.history import co_changes, history, owners
from indexing_support import write

# name, email of the people who commit in the tests
ALICE = ("Alice Smith", "alice@example.com")
ALICE_OLD = ("alice", "Alice.Smith@OldCorp.example")  # merged into ALICE by .mailmap
BOB = ("Bob Jones", "bob@example.com")
CAROL = ("Carol White", "carol@example.com")
BOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")

# the environment of every git command: no user or system configuration can leak in
_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}


def run_git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "commit.gpgsign=false", *args],
        capture_output=True,
        text=True,
        env={**_ENV, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def day(date: str) -> str:
    """A date (YYYY-MM-DD) at noon UTC, as git reads it."""
    return f"{date}T12:00:00+00:00"


class Repo:
    """A git work tree in which each `commit` writes, deletes and moves files, then commits as
    the given author on the given day."""

    def __init__(self, root: Path, branch: str = "main") -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        run_git(root, "init", "-q", "-b", branch)

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        return run_git(self.root, *args, env=env)

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def write(self, rel: str, text: str) -> None:
        write(self.root, rel, text)

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def edit(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert text.count(old) == 1, f"{old!r} is not once in {rel}"
        self.write(rel, text.replace(old, new))

    def _identity(
        self, who: tuple[str, str], at: str, committed: str | None = None
    ) -> tuple[list[str], dict[str, str]]:
        name, email = who
        config = ["-c", f"user.name={name}", "-c", f"user.email={email}"]
        when = day(at) if len(at) == 10 else at
        later = committed or at
        later = day(later) if len(later) == 10 else later
        return config, {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": later}

    def commit(
        self,
        message: str,
        who: tuple[str, str] = ALICE,
        at: str = "2023-01-02",
        files: dict[str, str] | None = None,
        delete: tuple[str, ...] = (),
        move: tuple[tuple[str, str], ...] = (),
        committed: str | None = None,
    ) -> str:
        """`at` is the author's date (what history shows); `committed` the committer's (by
        default the same)."""
        for old, new in move:
            (self.root / new).parent.mkdir(parents=True, exist_ok=True)
            self.git("mv", old, new)
        for rel in delete:
            self.git("rm", "-q", rel)
        for rel, text in (files or {}).items():
            self.write(rel, text)
        config, env = self._identity(who, at, committed)
        self.git("add", "-A")
        self.git(*config, "commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.head()

    def merge(self, branch: str, message: str, who: tuple[str, str], at: str) -> str:
        config, env = self._identity(who, at)
        self.git(*config, "merge", "-q", "--no-ff", "-m", message, branch, env=env)
        return self.head()


def func(name: str, *body: str) -> str:
    """A top-level function whose body is the given lines (indented)."""
    lines = [f"def {name}():", *(f"    {line}" for line in body or ("pass",))]
    return "\n".join(lines) + "\n"


def module(*parts: str) -> str:
    return "\n\n".join(parts)


def touches(page) -> list[tuple[str, str, str, int, int]]:
    """(sha, author email, message, added, deleted) of a history page's entries."""
    return [(t.sha, t.author, t.message, t.added, t.deleted) for t in page.entries]


def partners(answer) -> list[tuple[str, int, float]]:
    return [(p.name, p.count, p.weight) for p in answer.partners]


def ranked(answer) -> list[tuple[str, str, bool, float, float, int, int, str]]:
    """(email, name, bot, score, share, commits, lines, last) of each owner."""
    return [
        (o.email, o.name, o.bot, o.score, o.share, o.commits, o.lines, o.last)
        for o in answer.owners
    ]


def decayed(lines: int, age_days: float, half_life: float = 180.0) -> float:
    """What `lines` changed lines count `age_days` before the newest change."""
    return max(lines, 1) * 0.5 ** (age_days / half_life)


def view(store, repo: str, files: list[str], symbols: list[str]) -> dict:
    """What the history queries say about some files and symbols of `repo`, without the
    repository's name (to compare two repositories of the same tree)."""
    out: dict = {}
    for target in files + symbols:
        out[target] = {
            "history": touches(history(store, target, repo, limit=100)),
            "co": partners(co_changes(store, target, repo, min_count=1)),
            "owners": ranked(owners(store, target, repo)),
        }
    stats = store.history.history_stats(repo)
    out["stats"] = {k: stats[k] for k in ("commits", "people", "first", "last")}
    return out


def fresh_view(store, root, repo: str, files, symbols) -> dict:
    fresh = f"{repo}-fresh"
    store.repos.delete_repo(fresh)
    try:
        index_repository(store, root, name=fresh, workers=1)
        return view(store, fresh, files, symbols)
    finally:
        store.repos.delete_repo(fresh)
