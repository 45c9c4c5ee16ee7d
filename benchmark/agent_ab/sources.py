"""Trees for the agent to work in: a task's repository at its commit, in a scratch folder.

- A git URL is cloned once (bare) into the cache, `~/.cache/cartograph/agent-ab/<owner>+<name>.git`
  (`--cache` moves it), and fetched again only when the commit is missing. A local mirror
  replaces the network: `--mirror URL=GITDIR`, or `--mirrors DIR` holding `<owner>+<name>/repo`
  git directories (the layout of the session's `fetch` tool). Mirrors are only read.
- A local path is a git repository of the team's own (or a test's), used in place.
- A PyPI sdist (`name==version`) is downloaded once with pip, unpacked and committed as one
  commit in the cache.

A scratch tree is a `git clone --shared` of that source, checked out at the commit on a branch
of its own (`agent-ab`), with every other branch, tag and remote-tracking ref removed and the
reflog emptied: the agent sees the history up to the commit and nothing after it (the fix
cannot be found with `git log --all`). `origin` is set to the public URL, never fetched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from benchmark.agent_ab.tasks import Repository

DEFAULT_CACHE = Path.home() / ".cache" / "cartograph" / "agent-ab"
BRANCH = "agent-ab"
SNAPSHOT_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-ab",
    "GIT_AUTHOR_EMAIL": "agent-ab@localhost",
    "GIT_COMMITTER_NAME": "agent-ab",
    "GIT_COMMITTER_EMAIL": "agent-ab@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


class SourceError(RuntimeError):
    """A repository or commit that could not be had; the message says which and why."""


def git(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> str:
    """`git ARGS` (stdout), SourceError with git's message when it fails."""
    result = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env} if env else None,
    )
    if result.returncode != 0:
        raise SourceError(f"git {' '.join(args[:3])}: {result.stderr.strip() or 'failed'}")
    return result.stdout


def github_slug(url: str) -> str | None:
    """`owner+name` of a GitHub URL (https or ssh), None for another host."""
    for prefix in ("https://github.com/", "http://github.com/", "git@github.com:"):
        if url.startswith(prefix):
            owner_name = url[len(prefix) :].rstrip("/").removesuffix(".git")
            if owner_name.count("/") == 1:
                return owner_name.replace("/", "+")
    return None


class Sources:
    def __init__(
        self,
        cache: Path = DEFAULT_CACHE,
        mirrors: Mapping[str, str] | None = None,
        mirror_root: Path | None = None,
    ) -> None:
        self.cache = cache
        self.mirrors = {url.rstrip("/"): Path(p) for url, p in (mirrors or {}).items()}
        self.mirror_root = mirror_root

    def git_dir(self, repository: Repository, commit: str | None) -> tuple[Path, str]:
        """(a git directory holding the commit, the commit) for the repository."""
        if repository.path:
            source = Path(repository.path).expanduser().resolve()
            if not source.exists():
                raise SourceError(f"{source}: no such repository folder")
            assert commit is not None
            _require_commit(source, commit)
            return source, commit
        if repository.pypi:
            return self._pypi_snapshot(repository.pypi)
        assert repository.git and commit is not None
        mirror = self._mirror(repository.git)
        if mirror is not None:
            _require_commit(mirror, commit)
            return mirror, commit
        return self._cached_clone(repository.git, commit), commit

    def checkout(self, repository: Repository, commit: str | None, dest: Path) -> str:
        """The repository at `commit` in the new folder `dest` (see the module's text);
        returns the full commit."""
        source, commit = self.git_dir(repository, commit)
        if dest.exists():
            raise SourceError(f"{dest} exists already")
        dest.parent.mkdir(parents=True, exist_ok=True)
        git("clone", "--quiet", "--shared", "--no-checkout", "--no-tags", str(source), str(dest))
        full = git("rev-parse", "--verify", f"{commit}^{{commit}}", cwd=dest).strip()
        git("-c", "advice.detachedHead=false", "checkout", "--quiet", "-B", BRANCH, full, cwd=dest)
        refs = git("for-each-ref", "--format=%(refname)", cwd=dest).split()
        for ref in refs:
            if ref != f"refs/heads/{BRANCH}":
                git("update-ref", "-d", ref, cwd=dest)
        if "origin" in git("remote", cwd=dest).split():
            git("remote", "remove", "origin", cwd=dest)
        if repository.git:
            git("remote", "add", "origin", repository.git, cwd=dest)
        git("reflog", "expire", "--expire=now", "--all", cwd=dest)
        return full

    def _mirror(self, url: str) -> Path | None:
        explicit = self.mirrors.get(url.rstrip("/")) or self.mirrors.get(
            url.rstrip("/").removesuffix(".git")
        )
        if explicit is not None:
            return explicit
        slug = github_slug(url)
        if self.mirror_root is not None and slug is not None:
            candidate = self.mirror_root / slug / "repo"
            if candidate.exists():
                return candidate
        return None

    def _cached_clone(self, url: str, commit: str) -> Path:
        slug = github_slug(url) or url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
        target = self.cache / f"{slug}.git"
        if not target.exists():
            self.cache.mkdir(parents=True, exist_ok=True)
            print(f"cloning {url} into {target}", file=sys.stderr)
            git("clone", "--quiet", "--bare", url, str(target))
        if not _has_commit(target, commit):
            git("fetch", "--quiet", "origin", "+refs/heads/*:refs/heads/*", cwd=target)
        _require_commit(target, commit)
        return target

    def _pypi_snapshot(self, requirement: str) -> tuple[Path, str]:
        name, version = requirement.split("==", 1)
        folder = self.cache / "pypi" / f"{name}-{version}"
        if not (folder / ".git").exists():
            if folder.exists():
                shutil.rmtree(folder)
            _unpack_sdist(requirement, folder)
            git("init", "--quiet", cwd=folder)
            git("add", "--all", ".", cwd=folder)
            git("commit", "--quiet", "--no-verify", "-m", f"{requirement} (sdist)", cwd=folder,
                env=SNAPSHOT_IDENTITY)  # fmt: skip
        return folder, git("rev-parse", "HEAD", cwd=folder).strip()


def _has_commit(git_dir: Path, commit: str) -> bool:
    result = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"],
        cwd=git_dir,
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


def _require_commit(git_dir: Path, commit: str) -> None:
    if not _has_commit(git_dir, commit):
        raise SourceError(f"{git_dir}: commit {commit} is not there")


def _unpack_sdist(requirement: str, folder: Path) -> None:
    """The sdist of `requirement`, downloaded with pip and unpacked into `folder` (its one
    top-level folder's contents)."""
    with tempfile.TemporaryDirectory(prefix="agent-ab-sdist-") as download:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", "--dest", download, requirement],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise SourceError(f"pip download {requirement}: {result.stderr.strip()[-500:]}")
        archives = sorted(Path(download).iterdir())
        if len(archives) != 1:
            raise SourceError(f"pip download {requirement}: expected one sdist, got {archives}")
        unpacked = Path(download) / "unpacked"
        archive = archives[0]
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as bundle:
                bundle.extractall(unpacked)
        else:
            with tarfile.open(archive) as bundle:
                bundle.extractall(unpacked, filter="data")
        tops = list(unpacked.iterdir())
        root = tops[0] if len(tops) == 1 and tops[0].is_dir() else unpacked
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(root), str(folder))
