"""A repository's files as they were indexed, read on this host.

A repository indexed from a local work tree has its files there and its history in that work
tree's git. A tracked repository is indexed by a worker, maybe on another host, whose worktree
this host cannot see: its files are read from git at the indexed commit, in this host's own
mirror of the repository, which is cloned or fetched the first time it lacks a commit asked for
(an API host answers from the store and its own data folder; it shares no disk with the
workers). `git_of` finds the history, `indexed_files` the files at the indexed commit,
`files_here` the files as this host has them now (the work tree's, else the indexed commit's)
and `FilesHere` the same for a what-if's resolver (with the names of the files not parsed),
and `work_tree_here` says whether the work tree the index was read from is on this host."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from cartograph.discover import WorkTreeFiles, read_inside
from cartograph.errors import Invalid, NotFound
from cartograph.gitremote import git_environment, redact
from cartograph.languages import language_of
from cartograph.model import Repo
from cartograph.store.interfaces import Store
from cartograph.sync import Mirror, SyncError

GIT_TIMEOUT = 120


class Git:
    """git commands on one repository (a work tree's or a bare mirror's git folder)."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir

    def run(self, *args: str, data: bytes | None = None, check: bool = True) -> bytes:
        try:
            done = subprocess.run(
                ["git", f"--git-dir={self.git_dir}", *args],
                input=data,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                env=git_environment(),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise Invalid(f"git {args[0]} took longer than {GIT_TIMEOUT} s") from exc
        if check and done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            message = lines[-1] if lines else f"exit status {done.returncode}"
            raise Invalid(f"git {args[0]}: {redact(message)}")
        return done.stdout

    def commit(self, ref: str) -> str | None:
        """The commit `ref` names, or None (a range or other set of revisions names none:
        rev-parse answers it with several lines)."""
        if not ref or ref.startswith("-"):
            return None
        out = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        lines = out.decode().split()
        return lines[0] if len(lines) == 1 else None

    def merge_base(self, a: str, b: str) -> str | None:
        out = self.run("merge-base", a, b, check=False)
        return out.decode().strip() or None

    def diff(self, old: str, new: str) -> bytes:
        return self.run(
            "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--full-index",
            old, new,
        )  # fmt: skip

    def blobs(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        """The content of each path at `commit` (None: not there), in one git process."""
        if not paths:
            return {}
        request = "".join(f"{commit}:{path}\n" for path in paths).encode()
        out = self.run("cat-file", "--batch", data=request)
        found: dict[str, bytes | None] = {}
        at = 0
        for path in paths:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            at = end + 1
            if len(header) < 3:  # `<name> missing`
                found[path] = None
                continue
            size = int(header[2])
            found[path] = out[at : at + size] if header[1] == b"blob" else None
            at += size + 1
        return found


def work_tree_here(record: Repo) -> Path | None:
    """The work tree the repository was indexed from, when this host has it."""
    if record.root and Path(record.root).is_dir():
        return Path(record.root)
    return None


def git_of(store: Store, repo: str, data_dir: Path | None, revisions: Iterable[str] = ()) -> Git:
    """The repository's git history holding `revisions`: its indexed work tree's when that is
    here and holds them, else this host's mirror of the tracked repository (fetched when it
    is missing or lacks one of them)."""
    record = store.repos.get_repo(repo)
    if record is None:
        raise NotFound(f"{repo} is not indexed")
    wanted = [revision for revision in revisions if revision]
    local = _work_tree_git(record)
    if local is not None and all(local.commit(revision) for revision in wanted):
        return local
    tracked = store.tracking.get_tracked(repo)
    if tracked is not None and data_dir is not None:
        try:
            mirror = Mirror(data_dir, tracked.name, tracked.url).holding(wanted)
        except SyncError as exc:
            if local is None:
                raise Invalid(f"the history of {repo} cannot be read here: {exc}") from exc
        else:
            return Git(mirror.git_dir)
    if local is not None:
        return local
    raise Invalid(
        f"{repo} has no git history here (its work tree is not a git repository on this host "
        "and it is not tracked): give the change as a patch"
    )


def _work_tree_git(record: Repo) -> Git | None:
    root = work_tree_here(record)
    if root is None:
        return None
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--absolute-git-dir"],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode == 0 and out.stdout.strip():
        return Git(Path(out.stdout.strip()))
    return None


def indexed_files(
    store: Store, record: Repo, paths: list[str], data_dir: Path | None
) -> dict[str, bytes | None]:
    """The files at the indexed commit (None: not there), or, for a repository indexed with
    uncommitted edits or from outside git, from its work tree."""
    if record.indexed_sha and not record.dirty:
        try:
            git = git_of(store, record.name, data_dir, (record.indexed_sha,))
            if git.commit(record.indexed_sha):
                return git.blobs(record.indexed_sha, paths)
        except Invalid:
            pass
    root = work_tree_here(record)
    if root is None:
        raise Invalid(f"the indexed files of {record.name} cannot be read here")
    return {path: read_inside(root, path) for path in paths}


def files_here(
    store: Store, record: Repo, paths: list[str], data_dir: Path | None
) -> tuple[dict[str, bytes | None], str]:
    """The files as this host has them now: each from the work tree the repository was indexed
    from when that is here and holds it, else from history at the indexed commit (None: in
    neither). With them, the commit the history was read at ("" when none was read). Raises
    Invalid when the work tree is not here and the history cannot be read here."""
    root = work_tree_here(record)
    found = {path: read_inside(root, path) if root is not None else None for path in paths}
    missing = [path for path, data in found.items() if data is None]
    if missing and record.indexed_sha:
        try:
            git = git_of(store, record.name, data_dir, (record.indexed_sha,))
        except Invalid:
            if root is None:
                raise
        else:
            found.update(git.blobs(record.indexed_sha, missing))
            return found, record.indexed_sha
    return found, ""


class FilesHere:
    """The repository's files that are not parsed, as this host has them (`files_here`'s
    rule), for a what-if's resolver (`index.whatif.RepositoryFiles`): the settings that steer
    imports (tsconfig.json, package.json, go.mod) read from the work tree the repository was
    indexed from when it is here, else at the indexed commit in this host's history; each
    read once. Nothing when neither can be read here."""

    def __init__(self, store: Store, record: Repo, data_dir: Path | None) -> None:
        self.store = store
        self.record = record
        self.data_dir = data_dir
        root = work_tree_here(record)
        self._work_tree = WorkTreeFiles(root) if root is not None else None
        self._read: dict[str, bytes | None] = {}

    def other_paths(self) -> list[str]:
        if self._work_tree is not None:
            return self._work_tree.other_paths()
        commit = self.record.indexed_sha
        if not commit:
            return []
        try:
            git = git_of(self.store, self.record.name, self.data_dir, (commit,))
            listed = git.run("ls-tree", "-r", "-z", "--name-only", commit)
        except Invalid:
            return []
        paths = listed.decode("utf-8", "replace").split("\0")
        return [path for path in paths if path and language_of(path) is None]

    def read(self, path: str) -> bytes | None:
        if path not in self._read:
            try:
                found = files_here(self.store, self.record, [path], self.data_dir)[0]
            except Invalid:
                found = {}
            self._read[path] = found.get(path)
        return self._read[path]
