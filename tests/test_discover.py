"""Which files an index run sees: git listing, default ignores, limits, binaries, symlinks."""

from __future__ import annotations

import errno
import os
import threading
import time

import pytest
from cartograph.discover import DEFAULT_MAX_BYTES, discover
from cartograph.index import IndexingError, index_repository
from cartograph.store.sqlite import open_sqlite
from indexing_support import calls, commit_all, git_init, qualnames, write, write_tree


def paths_of(discovery) -> set[str]:
    return {f.path for f in discovery.files}


def skip_reasons(discovery) -> dict[str, str]:
    return {s.path: s.reason for s in discovery.skipped}


@pytest.fixture
def store(tmp_path):
    s = open_sqlite(tmp_path / "graph.db")
    yield s
    s.close()


# ---------------------------------------------------------------- git work tree


def test_git_listing_respects_gitignore_and_sees_untracked_files(tmp_path, store):
    repo = git_init(tmp_path / "repo")
    write_tree(
        repo,
        {
            ".gitignore": "ignored.py\ngenerated/\n*.log\n",
            "app.py": "def main():\n    pass\n",
            "gone.py": "def old():\n    pass\n",
            "pkg/__init__.py": "",
            "pkg/core.py": "def core():\n    pass\n",
        },
    )
    head = commit_all(repo)
    (repo / "gone.py").unlink()  # tracked, deleted from the work tree, not staged
    write_tree(
        repo,
        {
            "fresh.py": "def brand_new():\n    pass\n",  # untracked, not ignored
            "ignored.py": "def hidden():\n    pass\n",
            "generated/out.py": "def generated():\n    pass\n",
            "debug.log": "noise\n",
        },
    )

    found = discover(repo)
    assert found.git
    assert found.head_sha == head
    assert found.dirty  # a tracked file is missing from the work tree
    assert paths_of(found) == {"app.py", "fresh.py", "pkg/__init__.py", "pkg/core.py"}
    assert found.skipped == []

    result = index_repository(store, repo, name="r", workers=1)
    assert result.files == 4
    assert result.indexed_sha == head
    assert set(store.graph.files("r")) == {"app.py", "fresh.py", "pkg/__init__.py", "pkg/core.py"}
    names = qualnames(store, "r")
    assert "fresh.brand_new" in names
    assert not {"ignored.hidden", "generated.out.generated", "gone.old"} & names


def test_git_decides_even_for_folders_the_walk_would_ignore(tmp_path):
    repo = git_init(tmp_path / "repo")
    write_tree(repo, {"build/tool.py": "def tool():\n    pass\n", "main.py": ""})
    commit_all(repo)
    assert paths_of(discover(repo)) == {"build/tool.py", "main.py"}


def test_clean_git_tree_is_not_dirty_and_untracked_files_do_not_make_it_dirty(tmp_path):
    repo = git_init(tmp_path / "repo")
    write(repo, "a.py", "x = 1\n")
    commit_all(repo)
    write(repo, "scratch.py", "y = 2\n")
    found = discover(repo)
    assert not found.dirty
    assert paths_of(found) == {"a.py", "scratch.py"}


# ---------------------------------------------------------------- plain folder walk


def test_walk_leaves_out_default_ignored_folders(tmp_path, store):
    root = write_tree(
        tmp_path / "plain",
        {
            "main.py": "def main():\n    pass\n",
            "pkg/mod.py": "def mod_fn():\n    pass\n",
            ".venv/lib/site.py": "def venv_fn():\n    pass\n",
            "venv/x.py": "",
            "node_modules/lib/x.py": "",
            "build/lib/x.py": "",
            "dist/x.py": "",
            "__pycache__/x.py": "",
            ".git/hooks/x.py": "",
            ".tox/py311/x.py": "",
            "site-packages/x.py": "",
            "thing.egg-info/x.py": "",
            "pkg/__pycache__/mod.py": "",
            "pkg/build/x.py": "",
            "notes.txt": "hello\n",
        },
    )
    found = discover(root)
    assert not found.git
    assert paths_of(found) == {"main.py", "pkg/mod.py"}
    assert "notes.txt" in found.other_paths
    assert found.skipped == []

    index_repository(store, root, name="plain", workers=1)
    assert set(store.graph.files("plain")) == {"main.py", "pkg/mod.py"}
    assert "venv_fn" not in {q.rsplit(".", 1)[-1] for q in qualnames(store, "plain")}


def test_walk_keeps_folders_that_only_look_like_ignored_ones(tmp_path):
    root = write_tree(
        tmp_path / "plain",
        {"builder/a.py": "", "my_venv/b.py": "", "distance.py": "", "envelope/c.py": ""},
    )
    assert paths_of(discover(root)) == {
        "builder/a.py",
        "my_venv/b.py",
        "distance.py",
        "envelope/c.py",
    }


# ---------------------------------------------------------------- size limit


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_default_size_limit_skips_larger_files_with_a_reason(tmp_path, store, use_git):
    repo = tmp_path / "repo"
    if use_git:
        git_init(repo)
    body = b"def big():\n    pass\n"
    write(repo, "exact.py", body + b"#" * (DEFAULT_MAX_BYTES - len(body) - 1) + b"\n")
    write(repo, "big.py", body + b"#" * (DEFAULT_MAX_BYTES - len(body)) + b"\n")
    write(repo, "small.py", "def small():\n    pass\n")
    assert (repo / "exact.py").stat().st_size == DEFAULT_MAX_BYTES
    assert (repo / "big.py").stat().st_size == DEFAULT_MAX_BYTES + 1

    found = discover(repo)
    assert paths_of(found) == {"exact.py", "small.py"}
    (skip,) = found.skipped
    assert skip.path == "big.py"
    assert str(DEFAULT_MAX_BYTES) in skip.reason
    assert skip.size == DEFAULT_MAX_BYTES + 1

    result = index_repository(store, repo, name="r", workers=1)
    assert result.skipped == 1
    assert result.files == 2
    (stored,) = store.index.skipped("r")
    assert stored.path == "big.py"
    assert str(DEFAULT_MAX_BYTES) in stored.reason
    assert stored.size == DEFAULT_MAX_BYTES + 1
    assert "big.py" not in store.graph.files("r")
    assert "big.big" not in qualnames(store, "r")
    assert "exact.big" in qualnames(store, "r")


def test_custom_size_limit(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {"a.py": "x = 1\n" * 20, "b.py": "y = 2\n"},  # 120 bytes and 6 bytes
    )
    found = discover(root, max_bytes=100)
    assert paths_of(found) == {"b.py"}
    assert set(skip_reasons(found)) == {"a.py"}
    assert "100 bytes" in skip_reasons(found)["a.py"]

    result = index_repository(store, root, name="r", workers=1, max_bytes=100)
    assert result.skipped == 1
    (stored,) = store.index.skipped("r")
    assert (stored.path, stored.size) == ("a.py", 120)
    assert "100" in stored.reason
    assert set(store.graph.files("r")) == {"b.py"}

    # raising the limit indexes the file and forgets the skip
    result = index_repository(store, root, name="r", workers=1, max_bytes=1000)
    assert result.skipped == 0
    assert store.index.skipped("r") == []
    assert set(store.graph.files("r")) == {"a.py", "b.py"}


# ---------------------------------------------------------------- binary files


def test_binary_file_with_python_extension_is_skipped(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "blob.py": b"def looks_like_code():\n    pass\n\x00\x01\x02\xff",
            "ok.py": "def fine():\n    pass\n",
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00",
        },
    )
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 1
    assert result.skipped == 1
    (skip,) = store.index.skipped("r")
    assert skip.path == "blob.py"
    assert "binary" in skip.reason
    assert set(store.graph.files("r")) == {"ok.py"}
    assert "blob.looks_like_code" not in qualnames(store, "r")


# ---------------------------------------------------------------- symlinks


class FifoWatch:
    """Tells whether anyone opened a FIFO for reading; releases such a reader with EOF."""

    def __init__(self, path) -> None:
        self.path = path
        self.opened_by_reader = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: no reader has it open
                    raise
            else:
                self.opened_by_reader = True
                os.close(fd)  # the reader sees end of file and goes on
            time.sleep(0.005)

    def __enter__(self) -> FifoWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_symlink_to_a_file_outside_is_skipped_and_never_read(tmp_path, store, use_git):
    outside = write_tree(tmp_path / "outside", {"secret.py": "def secret_function():\n    pass\n"})
    os.mkfifo(outside / "pipe.py")
    repo = tmp_path / "repo"
    if use_git:
        git_init(repo)
    write(repo, "main.py", "def main():\n    pass\n")
    (repo / "leak.py").symlink_to(outside / "secret.py")
    (repo / "pipe.py").symlink_to(outside / "pipe.py")
    (repo / "abs_leak.py").symlink_to("/etc/hostname")
    if use_git:
        commit_all(repo)

    with FifoWatch(outside / "pipe.py") as watch:
        found = discover(repo)
        result = index_repository(store, repo, name="r", workers=1)
    assert not watch.opened_by_reader, "a symlink leaving the repository was opened"

    expected = {
        "leak.py": "symlink leaves the repository",
        "pipe.py": "symlink leaves the repository",
        "abs_leak.py": "symlink leaves the repository",
    }
    assert skip_reasons(found) == expected
    assert paths_of(found) == {"main.py"}
    assert {s.path: s.reason for s in store.index.skipped("r")} == expected
    assert result.files == 1
    assert set(store.graph.files("r")) == {"main.py"}
    assert not any("secret" in q for q in qualnames(store, "r"))


def test_symlink_inside_the_repository_is_not_indexed_twice(tmp_path, store):
    root = write_tree(tmp_path / "repo", {"real.py": "def real():\n    pass\n"})
    (root / "alias.py").symlink_to("real.py")
    found = discover(root)
    assert paths_of(found) == {"real.py"}
    assert "alias.py" in skip_reasons(found)
    assert "symlink" in skip_reasons(found)["alias.py"]
    index_repository(store, root, name="r", workers=1)
    assert set(store.graph.files("r")) == {"real.py"}


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_symlinked_directory_pointing_outside_is_not_walked(tmp_path, store, use_git):
    outside = write_tree(
        tmp_path / "elsewhere",
        {"mod.py": "def far_away():\n    pass\n", "deep/more.py": "def deeper():\n    pass\n"},
    )
    repo = tmp_path / "repo"
    if use_git:
        git_init(repo)
    write(repo, "main.py", "def main():\n    pass\n")
    (repo / "vendor").symlink_to(outside, target_is_directory=True)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "loop").symlink_to(repo, target_is_directory=True)  # a cycle
    found = discover(repo)
    assert paths_of(found) == {"main.py"}
    assert not any(p.startswith(("vendor/", "pkg/loop/")) for p in found.all_paths)

    index_repository(store, repo, name="r", workers=1)
    assert set(store.graph.files("r")) == {"main.py"}
    names = qualnames(store, "r")
    assert "far_away" not in {q.rsplit(".", 1)[-1] for q in names}
    assert "deeper" not in {q.rsplit(".", 1)[-1] for q in names}


def test_files_git_lists_under_a_folder_turned_into_a_symlink_are_never_read(tmp_path, store):
    """git's index lists `ln/secret.py` and `ln/pipe.py`, but `ln` is now a symlink leaving the
    work tree: the files are skipped, never opened, and nothing of them is stored."""
    outside = write_tree(tmp_path / "outside", {"secret.py": "def outside_secret():\n    pass\n"})
    os.mkfifo(outside / "pipe.py")
    repo = git_init(tmp_path / "repo")
    write_tree(repo, {"main.py": "def main():\n    pass\n", "ln/secret.py": "x = 1\n",
                      "ln/pipe.py": "y = 2\n"})  # fmt: skip
    commit_all(repo)
    for name in ("secret.py", "pipe.py"):
        (repo / "ln" / name).unlink()
    (repo / "ln").rmdir()
    (repo / "ln").symlink_to(outside, target_is_directory=True)

    with FifoWatch(outside / "pipe.py") as watch:
        found = discover(repo)
        result = index_repository(store, repo, name="r", workers=1)
    assert not watch.opened_by_reader, "a file behind a symlinked folder was opened"
    expected = {
        "ln/secret.py": "a folder on its path is a symlink",
        "ln/pipe.py": "a folder on its path is a symlink",
    }
    assert skip_reasons(found) == expected
    assert paths_of(found) == {"main.py"}
    assert {s.path: s.reason for s in store.index.skipped("r")} == expected
    assert result.files == 1 and set(store.graph.files("r")) == {"main.py"}
    assert not any("outside_secret" in q for q in qualnames(store, "r"))


def test_configuration_files_symlinked_outside_are_never_read(tmp_path, store):
    """tsconfig.json and package.json steer import resolution; as symlinks leaving the work
    tree they are not read (a FIFO would block a reader; the paths mapping would bind)."""
    outside = write_tree(
        tmp_path / "outside",
        {"tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@x/*": ["src/*"]}}}'},
    )
    os.mkfifo(outside / "package.json")
    repo = git_init(tmp_path / "repo")
    write_tree(
        repo,
        {
            "src/y.ts": "export function target() { return 1; }\n",
            "src/main.ts": 'import { target } from "@x/y";\nexport function main() { return target(); }\n',
        },
    )
    (repo / "tsconfig.json").symlink_to(outside / "tsconfig.json")
    (repo / "package.json").symlink_to(outside / "package.json")
    commit_all(repo)
    with FifoWatch(outside / "package.json") as watch:
        index_repository(store, repo, name="r", workers=1)
    assert not watch.opened_by_reader, "a configuration file leaving the repository was opened"
    assert ("main", "target") not in calls(store, "r")
    # the same tree with a real tsconfig.json resolves the import (the test can fail)
    (repo / "tsconfig.json").unlink()
    (repo / "tsconfig.json").write_text((outside / "tsconfig.json").read_text())
    index_repository(store, repo, name="r", workers=1)
    assert ("main", "target") in calls(store, "r")


# ---------------------------------------------------------------- bad roots


def test_missing_path_is_a_clear_error(tmp_path, store):
    missing = tmp_path / "does-not-exist"
    with pytest.raises(IndexingError) as info:
        index_repository(store, missing, name="r", workers=1)
    assert str(missing) in str(info.value)
    assert "not exist" in str(info.value)
    assert store.repos.get_repo("r") is None


def test_file_instead_of_folder_is_a_clear_error(tmp_path, store):
    single = write(tmp_path, "single.py", "def f():\n    pass\n")
    with pytest.raises(IndexingError) as info:
        index_repository(store, single, name="r", workers=1)
    assert str(single) in str(info.value)
    assert "folder" in str(info.value) or "directory" in str(info.value)
    assert store.repos.get_repo("r") is None


def test_subfolder_of_a_git_repository_lists_only_its_files(tmp_path):
    repo = git_init(tmp_path / "repo")
    write_tree(repo, {"top.py": "", "sub/inner.py": "", "sub/pkg/deep.py": ""})
    commit_all(repo)
    assert paths_of(discover(repo / "sub")) == {"inner.py", "pkg/deep.py"}
