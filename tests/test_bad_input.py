"""Hostile and broken input: every file is indexed or skipped with a reason, never a crash,
and a failed run leaves the previous graph as it was. Everything runs on both stores (SQLite
and a real Neo4j server) except what is about the SQLite file itself (read-only, corrupt):
those tests say `sqlite_file` in their names."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest
from cartograph.index import IndexingError, index_repository
from cartograph.model import Repo
from cartograph.query import QueryError, search, stats
from cartograph.query.common import symbols_named
from cartograph.store.interfaces import StoreError
from cartograph.store.sqlite import open_sqlite
from indexing_support import (
    assert_same_as_fresh,
    calls,
    commit_all,
    git_init,
    qualnames,
    snapshot,
    write,
    write_tree,
)

TWO_FUNCTIONS = "def inner():\n    return 1\n\n\ndef outer():\n    return inner()\n"


@pytest.fixture
def store(stores):
    return stores.open()


def skipped_reasons(store, repo="r") -> dict[str, str]:
    return {s.path: s.reason for s in store.index.skipped(repo)}


def names_in(store, path: str, repo: str = "r") -> set[str]:
    return {s.name for s in store.graph.symbols_in_files(repo, [path])[path]}


# ---------------------------------------------------------------- broken source


def test_syntax_error_keeps_the_symbols_that_parse(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "broken.py": (
                "def good():\n    return helper()\n\n\n"
                "def broken(:\n    return 1\n\n\n"
                "class Fine:\n    def method(self):\n        return good()\n\n\n"
                "def helper():\n    return 2\n"
            ),
            "clean.py": "from broken import good\n\n\ndef use():\n    return good()\n",
        },
    )
    result = index_repository(store, root, name="r", workers=1)
    assert result.syntax_errors == ["broken.py"]
    assert result.files == 2
    assert {"good", "Fine", "method", "helper"} <= names_in(store, "broken.py")
    edges = calls(store, "r")
    assert ("broken.good", "broken.helper") in edges
    assert ("broken.Fine.method", "broken.good") in edges
    assert ("clean.use", "broken.good") in edges
    assert stats(store, "r").files_with_syntax_errors == 1
    assert store.graph.files("r")["broken.py"].parse_errors > 0
    assert store.graph.files("r")["clean.py"].parse_errors == 0

    # fixing the file clears the error
    write(root, "broken.py", "def good():\n    return 1\n")
    fixed = index_repository(store, root, name="r", workers=1)
    assert fixed.syntax_errors == []
    assert stats(store, "r").files_with_syntax_errors == 0


def test_file_that_is_nothing_but_garbage(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "garbage.py": ")))(((]]][[[ def class : : : lambda ** ** @@@ \n\t\t\x0c<<<>>>",
            "unterminated.py": 'x = """never closed\n\ndef f():\n    pass\n',
            "tabs.py": "def f():\n\tif True:\n        return 1\n\treturn 2\n",
            "ok.py": TWO_FUNCTIONS,
        },
    )
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 4
    assert "garbage.py" in result.syntax_errors
    assert "unterminated.py" in result.syntax_errors
    assert ("ok.outer", "ok.inner") in calls(store, "r")
    assert_same_as_fresh(store, root, "r")


def test_a_method_of_a_literal_held_as_a_value_is_indexed(tmp_path, store):
    # werkzeug's wsgi.py: `_join = "".join` — a value the parser keeps no expression of
    root = write_tree(
        tmp_path / "repo",
        {"w.py": 'def chunks(parts):\n    _join = "".join\n    glue = b"".join\n'
                 '    return _join(parts), glue([])\n'},
    )  # fmt: skip
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 1 and not result.syntax_errors
    assert "w.chunks" in qualnames(store, "r")


# ---------------------------------------------------------------- encodings and binaries


def test_binary_file_with_py_extension_is_skipped(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "compiled.py": b"\x00\x01\x02\x03def f():\n    pass\n",
            "utf16.py": "def f():\n    pass\n".encode("utf-16"),
            "ok.py": TWO_FUNCTIONS,
        },
    )
    result = index_repository(store, root, name="r", workers=1)
    reasons = skipped_reasons(store)
    assert set(reasons) == {"compiled.py", "utf16.py"}
    assert all("binary" in reason for reason in reasons.values())
    assert result.skipped == 2
    assert result.files == 1
    assert set(store.graph.files("r")) == {"ok.py"}


def test_invalid_utf8_without_a_coding_cookie_is_skipped(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "latin_no_cookie.py": "def café():\n    return 'é'\n".encode("latin-1"),
            "wrong_cookie.py": "# coding: utf-8\ndef f():\n    return 'é'\n".encode("latin-1"),
            "unknown_cookie.py": "# coding: klingon\ndef f():\n    return 'é'\n".encode("latin-1"),
            "ok.py": TWO_FUNCTIONS,
        },
    )
    result = index_repository(store, root, name="r", workers=1)
    reasons = skipped_reasons(store)
    assert set(reasons) == {"latin_no_cookie.py", "wrong_cookie.py", "unknown_cookie.py"}
    assert "UTF-8" in reasons["latin_no_cookie.py"]
    assert "utf-8" in reasons["wrong_cookie.py"].lower()
    assert "klingon" in reasons["unknown_cookie.py"]
    assert result.files == 1
    assert ("ok.outer", "ok.inner") in calls(store, "r")


def test_latin1_file_with_a_coding_cookie_is_indexed(tmp_path, store):
    source = (
        "# -*- coding: latin-1 -*-\n"
        "def café():\n"
        '    """Grüße aus Köln."""\n'
        "    return naïve()\n\n\n"
        "def naïve():\n"
        "    return 'ü'\n"
    )
    root = write_tree(tmp_path / "repo", {"latin.py": source.encode("latin-1")})
    result = index_repository(store, root, name="r", workers=1)
    assert result.skipped == 0
    assert result.files == 1
    (cafe,) = symbols_named(store.graph, "latin.café", "r", 5)
    assert cafe.doc == "Grüße aus Köln."
    assert cafe.start_line == 2
    assert ("latin.café", "latin.naïve") in calls(store, "r")
    assert store.index.skipped("r") == []
    # nothing changed on disk: the next run parses nothing
    assert index_repository(store, root, name="r", workers=1).parsed == 0


def test_bom_and_crlf_files_are_indexed_with_the_right_lines(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "bom.py": b"\xef\xbb\xbfdef first():\n    return second()\n\n\ndef second():\n    pass\n",
            "crlf.py": b"def one():\r\n    return two()\r\n\r\n\r\ndef two():\r\n    pass\r\n",
        },
    )
    index_repository(store, root, name="r", workers=1)
    assert {"first", "second"} <= names_in(store, "bom.py")
    assert {"one", "two"} <= names_in(store, "crlf.py")
    assert ("bom.first", "bom.second") in calls(store, "r")
    assert ("crlf.one", "crlf.two") in calls(store, "r")
    (two,) = symbols_named(store.graph, "crlf.two", "r", 5)
    assert two.start_line == 5


def test_file_over_the_size_limit_is_skipped(tmp_path, store):
    huge = "def f():\n    return 1\n" + "x = 1\n" * 200_000  # about 1.2 MB
    root = write_tree(tmp_path / "repo", {"huge.py": huge, "ok.py": TWO_FUNCTIONS})
    result = index_repository(store, root, name="r", workers=1)
    assert result.skipped == 1
    (skip,) = store.index.skipped("r")
    assert skip.path == "huge.py"
    assert skip.size == len(huge)
    assert "1048576" in skip.reason
    assert "huge" not in {q.split(".")[0] for q in qualnames(store, "r")}

    # a file that grows past the limit is removed from the graph
    write(root, "ok.py", TWO_FUNCTIONS + "#" * 2_000_000)
    result = index_repository(store, root, name="r", workers=1)
    assert set(skipped_reasons(store)) == {"huge.py", "ok.py"}
    assert store.graph.files("r") == {}
    assert qualnames(store, "r") == set()
    assert calls(store, "r") == set()


def test_pathologically_deep_expressions_do_not_stop_the_run(tmp_path, store):
    """Valid Python (CPython compiles it) that nests deeply; the rest of the repo is indexed."""
    root = write_tree(
        tmp_path / "repo",
        {
            "fluent.py": "def q():\n    return 1\n\n\nx = q()" + ".m()" * 1000 + "\n",
            "attrs.py": "import os\n\n\ndef g():\n    return os" + ".path" * 1000 + ".join()\n",
            "index.py": "y = [[0]]\nz = y" + "[0]" * 1000 + "\n",
            "ok.py": TWO_FUNCTIONS,
        },
    )
    for name in ("fluent.py", "attrs.py", "index.py"):
        compile((root / name).read_text(), name, "exec")  # really valid Python
    result = index_repository(store, root, name="r", workers=1)
    assert ("ok.outer", "ok.inner") in calls(store, "r")
    reasons = skipped_reasons(store)
    for name in ("fluent.py", "attrs.py", "index.py"):
        assert name in store.graph.files("r") or reasons.get(name), name
    assert result.files + result.skipped == 4


# ---------------------------------------------------------------- symlinks, empty, missing


def test_symlink_out_of_the_repository_is_skipped(tmp_path, store):
    outside = write_tree(tmp_path / "outside", {"secret.py": "def secret():\n    pass\n"})
    root = write_tree(tmp_path / "repo", {"ok.py": TWO_FUNCTIONS})
    (root / "link.py").symlink_to(outside / "secret.py")
    (root / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (root / "etc").symlink_to("/etc", target_is_directory=True)
    result = index_repository(store, root, name="r", workers=1)
    reasons = skipped_reasons(store)
    assert reasons["link.py"] == "symlink leaves the repository"
    assert reasons["dangling.py"] == "symlink leaves the repository"
    assert set(store.graph.files("r")) == {"ok.py"}
    assert result.files == 1
    assert not any("secret" in q for q in qualnames(store, "r"))


def test_empty_folder_indexes_zero_files(tmp_path, store):
    (tmp_path / "empty").mkdir()
    result = index_repository(store, tmp_path / "empty", name="r", workers=1)
    assert result.files == 0
    assert result.parsed == 0
    assert result.syntax_errors == []
    assert store.repos.get_repo("r") is not None
    assert store.graph.files("r") == {}
    assert stats(store, "r").symbols == {}


def test_git_repository_without_commits(tmp_path, store):
    root = git_init(tmp_path / "fresh-repo")
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 0
    assert result.indexed_sha == ""
    write(root, "first.py", TWO_FUNCTIONS)  # untracked, still no commit
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 1
    assert ("first.outer", "first.inner") in calls(store, "r")


def test_folder_with_only_non_python_files(tmp_path, store):
    root = write_tree(
        tmp_path / "docs", {"README.md": "# hi\n", "data.json": "{}", "script.sh": "echo\n"}
    )
    result = index_repository(store, root, name="r", workers=1)
    assert result.files == 0
    assert result.skipped == 0
    assert store.graph.files("r") == {}


def test_non_existent_path(tmp_path, store):
    missing = tmp_path / "no" / "such" / "repo"
    with pytest.raises(IndexingError) as info:
        index_repository(store, missing, name="r", workers=1)
    assert str(missing) in str(info.value)
    assert store.repos.list_repos() == []


@pytest.mark.parametrize("name", ["", "a:b", "a#b", "a/b", "a\\b", "a\nb", "x" * 201])
def test_invalid_repository_names_are_refused(tmp_path, store, name):
    root = write_tree(tmp_path / "repo", {"ok.py": TWO_FUNCTIONS})
    if name == "":
        # an empty name means "use the folder's name"
        assert index_repository(store, root, name=name, workers=1).repo == "repo"
        return
    with pytest.raises(IndexingError) as info:
        index_repository(store, root, name=name, workers=1)
    assert "name" in str(info.value)
    assert store.repos.list_repos() == []


# ---------------------------------------------------------------- hostile file names

HOSTILE_NAMES = [
    "with space.py",
    "ünïcödé.py",
    "quote'\"s.py",
    "'; DROP TABLE symbols; --.py",
    "run-tests.py",
    "dollar$HOME.py",
    "back`tick`.py",
    "percent%s_%d.py",
    "star*.py",
    "-leading-dash.py",
    "semi;colon.py",
    "hash#name.py",
    "colon:name.py",
    "UPPER.py",
]


def test_hostile_file_names_are_indexed_or_skipped_with_a_reason(tmp_path, store):
    root = git_init(tmp_path / "repo")
    for name in HOSTILE_NAMES:
        write(root, name, TWO_FUNCTIONS)
    write(root, "sub dir/inner file.py", TWO_FUNCTIONS)
    write(root, "normal.py", TWO_FUNCTIONS)
    newline_name = "new\nline.py"
    write(root, newline_name, TWO_FUNCTIONS)
    (root / os.fsdecode(b"bad\xffbytes.py")).write_text(TWO_FUNCTIONS)
    commit_all(root)

    result = index_repository(store, root, name="r", workers=1)
    reasons = skipped_reasons(store)
    files = store.graph.files("r")

    # the store survived: its tables are still there and the normal file is fully indexed
    assert ("normal.outer", "normal.inner") in calls(store, "r")
    assert symbols_named(store.graph, "normal.outer", "r", 5)

    # names that cannot be stored safely are skipped with a reason
    assert any("\\n" in path or "line.py" in path for path in reasons), reasons
    assert any("bytes.py" in path for path in reasons), reasons
    assert all(reason for reason in reasons.values())

    not_accounted = []
    for name in [*HOSTILE_NAMES, "sub dir/inner file.py"]:
        if name in reasons:
            continue
        assert name in files, f"{name!r} neither indexed nor skipped"
        symbols = {s.name: s for s in store.graph.symbols_in_files("r", [name])[name]}
        if not {"inner", "outer"} <= set(symbols):
            not_accounted.append(name)
            continue
        incoming = store.graph.edges_of([symbols["inner"].id], "in", ["CALLS"])
        assert [row.edge.src for row in incoming] == [symbols["outer"].id]
    assert result.files + result.skipped == len(HOSTILE_NAMES) + 4
    assert not not_accounted, (
        "files stored without their functions and without a skip reason: "
        f"{not_accounted} (reasons recorded: {reasons})"
    )


def test_sql_metacharacters_in_names_and_source_are_data(tmp_path, store):
    root = write_tree(
        tmp_path / "repo",
        {
            "'; DROP TABLE symbols; --.py": TWO_FUNCTIONS,
            "evil.py": (
                'def f():\n    """\'); DELETE FROM edges; --"""\n    return g()\n\n\n'
                'def g():\n    return "\' OR 1=1 --"\n'
            ),
        },
    )
    index_repository(store, root, name="r", workers=1)
    hostile = "x'; DROP TABLE repos; --"
    with pytest.raises(IndexingError, match="not a repository name"):
        index_repository(store, root, name=hostile, workers=1)  # refused where it comes in
    # and the store takes it as data all the same (a record written by other means)
    store.repos.upsert_repo(Repo(name=hostile))
    assert {r.name for r in store.repos.list_repos()} == {"r", hostile}
    store.repos.delete_repo(hostile)
    (f,) = symbols_named(store.graph, "evil.f", "r", 5)
    assert f.doc == "'); DELETE FROM edges; --"
    assert ("evil.f", "evil.g") in calls(store, "r")
    assert "'; DROP TABLE symbols; --.py" in store.graph.files("r")
    assert store.graph.search_unresolved("%", "r", 10) == []
    assert symbols_named(store.graph, "' OR 1=1 --", None, 10) == []


def test_cypher_and_lucene_metacharacters_in_names_and_queries_are_data(tmp_path, store):
    """The Neo4j store passes everything as parameters and escapes full-text queries; the
    SQLite store must take the same input."""
    root = write_tree(
        tmp_path / "repo",
        {
            "brace}` .py": TWO_FUNCTIONS,
            "lucene.py": (
                'def star_q():\n    """*:* OR name:x^10 AND (a || b) ~ \\\\"""\n'
                "    return other()\n\n\ndef other():\n    return 1\n"
            ),
        },
    )
    hostile = "c` }) MATCH (n) DETACH DELETE n RETURN 'x"
    with pytest.raises(IndexingError, match="not a repository name"):
        index_repository(store, root, name=hostile, workers=1)
    store.repos.upsert_repo(Repo(name=hostile))  # as data, the store takes it
    assert store.repos.get_repo(hostile).name == hostile
    store.repos.delete_repo(hostile)
    name = "c-x"
    index_repository(store, root, name="r", workers=1)
    index_repository(store, root, name=name, workers=1)
    assert {r.name for r in store.repos.list_repos()} == {"r", name}
    assert (
        calls(store, name)
        == calls(store, "r")
        == {
            ("lucene.star_q", "lucene.other"),
            ("brace}` .outer", "brace}` .inner"),
        }
    )
    assert_same_as_fresh(store, root, name)
    for text in ["*:*", 'star" OR q', "name:x^10", "a || b", "\\", "(((", "star_q~", "-other"]:
        try:
            hits = search(store, text, repo="r")
        except QueryError:
            continue  # no word in it: a clean error
        assert all(h.symbol.repo == "r" for h in hits.hits)
    assert search(store, "star q", repo=name).hits[0].symbol.qualname == "lucene.star_q"
    store.repos.delete_repo(name)
    assert {r.name for r in store.repos.list_repos()} == {"r"}
    assert calls(store, "r")


# ---------------------------------------------------------------- failed runs leave the graph


@contextlib.contextmanager
def read_only(*paths):
    """Make files read-only for everyone, root included (root ignores modes: use chattr +i)."""
    for path in paths:
        os.chmod(path, 0o444 if path.is_file() else 0o555)
    immutable = os.geteuid() == 0
    if immutable:
        subprocess.run(["chattr", "+i", *map(str, paths)], check=True)
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
        for path in paths:
            os.chmod(path, 0o644 if path.is_file() else 0o755)


def index_small_repo(tmp_path, store):
    root = git_init(tmp_path / "repo")
    write_tree(root, {"a.py": TWO_FUNCTIONS, "b.py": "from a import outer\n\nouter()\n"})
    commit_all(root)
    index_repository(store, root, name="r", workers=1)
    assert ("b", "a.outer") in calls(store, "r")
    return root, snapshot(store, "r"), store.repos.get_repo("r")


@pytest.fixture
def indexed(tmp_path, store):
    root, before, before_row = index_small_repo(tmp_path, store)
    return root, store, before, before_row


def test_indexing_a_path_that_is_gone_keeps_the_previous_graph(indexed, tmp_path):
    root, store, before, before_row = indexed
    moved = tmp_path / "moved"
    root.rename(moved)
    with pytest.raises(IndexingError) as info:
        index_repository(store, root, name="r", workers=1)
    assert str(root) in str(info.value)
    assert snapshot(store, "r") == before
    assert store.repos.get_repo("r") == before_row


def test_a_run_that_cannot_get_the_lock_keeps_the_previous_graph(indexed):
    root, store, before, _before_row = indexed
    write(root, "a.py", "def replaced():\n    pass\n")
    assert store.index.acquire_index_lock("r", "someone-else", 300.0)
    with pytest.raises(IndexingError) as info:
        index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert "lock" in str(info.value)
    assert snapshot(store, "r") == before
    store.index.release_index_lock("r", "someone-else")
    index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert "a.replaced" in qualnames(store, "r")


def test_an_interrupted_run_keeps_the_previous_graph_and_releases_its_lock(indexed):
    root, store, before, before_row = indexed
    write(root, "a.py", "def replaced():\n    pass\n")
    write(root, "c.py", "def new():\n    pass\n")

    def interrupt(message: str) -> None:
        raise KeyboardInterrupt(message)

    with pytest.raises(KeyboardInterrupt):
        index_repository(store, root, name="r", workers=1, progress=interrupt)
    assert snapshot(store, "r") == before
    assert store.repos.get_repo("r") == before_row
    # the lock went with the run: the next one does not wait
    result = index_repository(store, root, name="r", workers=1, lock_timeout=0)
    assert result.parsed == 2
    assert_same_as_fresh(store, root, "r")


def test_read_only_sqlite_file_gives_a_clean_error_and_keeps_the_graph(tmp_path):
    db = tmp_path / "store" / "graph.db"
    store = open_sqlite(db)
    root, before, before_row = index_small_repo(tmp_path, store)
    store.close()
    write(root, "a.py", "def replaced():\n    pass\n")
    with read_only(db):
        try:
            ro = open_sqlite(db)
        except StoreError:
            ro = None  # refusing to open is a clean error too
        if ro is not None:
            try:
                with pytest.raises((IndexingError, StoreError)) as info:
                    index_repository(ro, root, name="r", workers=1, lock_timeout=0)
                assert str(db) in str(info.value) or "read" in str(info.value).lower()
                assert snapshot(ro, "r") == before
            finally:
                ro.close()
    reopened = open_sqlite(db)
    try:
        assert snapshot(reopened, "r") == before
        assert reopened.repos.get_repo("r") == before_row
        index_repository(reopened, root, name="r", workers=1, lock_timeout=0)
        assert "a.replaced" in qualnames(reopened, "r")
    finally:
        reopened.close()


def test_corrupt_sqlite_file_is_a_clean_error(tmp_path):
    db = tmp_path / "graph.db"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError) as info:
        open_sqlite(db)
    assert str(db) in str(info.value)


def test_index_run_in_a_child_process_prints_no_traceback_for_a_bad_path(tmp_path, stores):
    """What a script sees: IndexingError, a one-line message naming the path."""
    code = (
        "import sys\n"
        "from cartograph.index import IndexingError, index_repository\n"
        "from cartograph.store import open_store\n"
        "try:\n"
        "    index_repository(open_store(sys.argv[1]), sys.argv[2], name='r', workers=1)\n"
        "except IndexingError as exc:\n"
        "    print('error:', exc)\n"
        "    sys.exit(2)\n"
    )
    target = tmp_path / "not here"
    done = subprocess.run(
        [sys.executable, "-c", code, stores.url(), str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("error: ")
    assert str(target) in done.stdout
    assert len(done.stdout.strip().splitlines()) == 1
    assert stores.open().repos.list_repos() == []
