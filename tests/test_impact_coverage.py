"""cartograph.impact.coverage: per-test lines from real coverage.py data files, recorded by
running a tiny project's tests in a subprocess (pytest-cov's test contexts, coverage.py's own
test_function contexts, branch coverage), and the files it refuses."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cartograph.errors import ErrorKind
from cartograph.impact.coverage import (
    CoverageError,
    Limits,
    TestCoverage,
    numbits_to_lines,
    parse_context,
    read_coverage,
)

GEOMETRY = """\
def area(width, height):
    return width * height


def perimeter(width, height):
    total = width + height
    return 2 * total


def describe(width, height):
    if width == height:
        return "square"
    return "rectangle"


def unused():
    return None
"""
AREA, PERIMETER, DESCRIBE_IF, DESCRIBE_SQUARE, DESCRIBE_RECTANGLE = 2, (6, 7), 11, 12, 13

CONFTEST = """\
import pytest

from shapes.geometry import describe, perimeter


@pytest.fixture
def fence():
    yield perimeter(1, 2)
    describe(2, 2)
"""

TESTS = """\
import pytest

from shapes.geometry import area, describe


class TestShapes:
    @pytest.mark.parametrize("side", [1, 2])
    def test_area(self, side):
        assert area(side, side) == side * side

    def test_fence(self, fence):
        assert area(fence, 1) == 6


def test_describe():
    assert describe(3, 4) == "rectangle"
"""

GEO = "src/shapes/geometry.py"
INIT = "src/shapes/__init__.py"
TEST_FILE = "tests/test_geometry.py"

# what each pytest-cov test reached: the fixture's setup (perimeter) and teardown (describe
# of a square) count for test_fence, with its run phase (area); the two parameters are two
# tests of one qualname
PYTEST_COV = {
    "tests/test_geometry.py::TestShapes::test_area[1]": ("TestShapes.test_area", {AREA}),
    "tests/test_geometry.py::TestShapes::test_area[2]": ("TestShapes.test_area", {AREA}),
    "tests/test_geometry.py::TestShapes::test_fence": (
        "TestShapes.test_fence",
        {AREA, *PERIMETER, DESCRIBE_IF, DESCRIBE_SQUARE},
    ),
    "tests/test_geometry.py::test_describe": ("test_describe", {DESCRIBE_IF, DESCRIBE_RECTANGLE}),
}


def _run(project: Path, data_file: Path, *args: str) -> Path:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COV_CORE_", "COVERAGE_", "PYTEST_"))
    }
    env["COVERAGE_FILE"] = str(data_file)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only pytest-cov, named by -p where used
    done = subprocess.run(
        [sys.executable, "-m", *args, "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert data_file.is_file(), done.stdout + done.stderr
    return data_file


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Path]:
    """The project, and its data files: pytest-cov contexts (lines, branches), coverage.py's
    test_function contexts, and a run without contexts."""
    base = tmp_path_factory.mktemp("coverage")
    project = base / "project"
    (project / "src" / "shapes").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "src" / "shapes" / "__init__.py").write_text("")
    (project / GEO).write_text(GEOMETRY)
    (project / "tests" / "conftest.py").write_text(CONFTEST)
    (project / TEST_FILE).write_text(TESTS)
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n'
    )
    (project / "functions.ini").write_text(
        "[run]\nsource = shapes\ndynamic_context = test_function\n"
    )
    cov = ("pytest", "-p", "pytest_cov", "--cov=shapes", "--cov-report=")
    return {
        "project": project,
        "lines": _run(project, base / "lines.coverage", *cov, "--cov-context=test"),
        "branches": _run(
            project, base / "branches.coverage", *cov, "--cov-context=test", "--cov-branch"
        ),
        "functions": _run(
            project,
            base / "functions.coverage",
            "coverage",
            "run",
            "--rcfile=functions.ini",
            "-m",
            "pytest",
        ),
        "plain": _run(project, base / "plain.coverage", *cov),
    }


def _by_context(tests: list[TestCoverage]) -> dict[str, TestCoverage]:
    by_context = {test.context: test for test in tests}
    assert len(by_context) == len(tests)
    return by_context


def _assert_pytest_cov(tests: list[TestCoverage], geo: str = GEO) -> None:
    by_context = _by_context(tests)
    assert set(by_context) == set(PYTEST_COV)
    for context, (qualname, lines) in PYTEST_COV.items():
        test = by_context[context]
        assert test.test_path == TEST_FILE
        assert test.test_qualname == qualname
        assert test.dotted is False
        assert test.lines == {geo: lines}, context  # import-time lines (1, 5, ...) left out


def test_pytest_cov_contexts_merge_phases_and_drop_param_ids(recorded):
    project = recorded["project"]
    tests = read_coverage(recorded["lines"], project, [GEO, TEST_FILE])
    _assert_pytest_cov(tests)
    assert [test.context for test in tests] == sorted(PYTEST_COV)
    # recorded contexts carry the phases: test_fence's lines come from all three
    with sqlite3.connect(recorded["lines"]) as conn:
        contexts = {context for (context,) in conn.execute("SELECT context FROM context")}
    fence = "tests/test_geometry.py::TestShapes::test_fence"
    assert {f"{fence}|setup", f"{fence}|run", f"{fence}|teardown"} <= contexts
    assert "" in contexts


def test_branch_coverage_reads_the_arcs(recorded):
    with sqlite3.connect(recorded["branches"]) as conn:
        assert conn.execute("SELECT count(*) FROM line_bits").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM arc").fetchone()[0] > 0
    _assert_pytest_cov(read_coverage(recorded["branches"], recorded["project"], ()))


def test_test_function_contexts_are_dotted(recorded):
    tests = read_coverage(recorded["functions"], recorded["project"], ())
    # coverage.py's own contexts start in a test function: fixtures run outside it (in ""),
    # and the two parameters of test_area are one context
    assert {test.context: test.lines for test in tests} == {
        "test_geometry.TestShapes.test_area": {GEO: {AREA}},
        "test_geometry.TestShapes.test_fence": {GEO: {AREA}},
        "test_geometry.test_describe": {GEO: {DESCRIBE_IF, DESCRIBE_RECTANGLE}},
    }
    for test in tests:
        assert test.dotted is True
        assert test.test_path is None
        assert test.test_qualname == test.context


def test_paths_under_repo_root_through_a_symlink(recorded, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(recorded["project"], target_is_directory=True)
    tests = read_coverage(recorded["lines"], link, ())
    # relative to the root whatever is known; the empty __init__ ran only at import time
    assert {path for test in tests for path in test.lines} == {GEO}
    _assert_pytest_cov(tests)


def test_paths_without_repo_root_map_by_longest_known_suffix(recorded):
    known = ["geometry.py", "shapes/geometry.py", GEO, INIT, TEST_FILE]
    _assert_pytest_cov(read_coverage(recorded["lines"], None, known))
    # nothing known: every measured file is dropped, the tests stay
    tests = read_coverage(recorded["lines"], None, ["other/module.py"])
    assert {test.context for test in tests} == set(PYTEST_COV)
    assert all(test.lines == {} for test in tests)


def test_paths_measured_on_another_machine(recorded, tmp_path):
    moved = tmp_path / "ci.coverage"
    shutil.copy(recorded["lines"], moved)
    with sqlite3.connect(moved) as conn:
        conn.execute(
            "UPDATE file SET path = replace(path, ?, '/ci/build/checkout')",
            (str(recorded["project"]),),
        )
        paths = {path for (path,) in conn.execute("SELECT path FROM file")}
    assert f"/ci/build/checkout/{GEO}" in paths
    # repo_root given but the files lie elsewhere: the known suffix maps them
    _assert_pytest_cov(read_coverage(moved, recorded["project"], [GEO]))
    # a repository whose pytest rootdir is its folder py/: files and test files both map
    with sqlite3.connect(moved) as conn:
        conn.execute("UPDATE file SET path = replace(path, '/checkout/', '/checkout/py/')")
    tests = read_coverage(moved, None, [f"py/{GEO}", f"py/{TEST_FILE}", "other/py/src"])
    assert {test.test_path for test in tests} == {f"py/{TEST_FILE}"}
    assert all(set(test.lines) == {f"py/{GEO}"} for test in tests)


def test_not_sqlite(tmp_path):
    text = tmp_path / ".coverage"
    text.write_text("!coverage.py: This is a private format, don't read it directly!\n" * 20)
    with pytest.raises(CoverageError, match="not an SQLite database") as raised:
        read_coverage(text, tmp_path, ())
    assert raised.value.kind is ErrorKind.INVALID


def test_unrelated_sqlite_database(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE file (id integer primary key, name text)")
    with pytest.raises(CoverageError, match=r"not a coverage\.py data file") as raised:
        read_coverage(other, tmp_path, ())
    assert raised.value.kind is ErrorKind.INVALID


def test_no_per_test_contexts(recorded):
    with pytest.raises(CoverageError, match="without per-test contexts: run pytest with"):
        read_coverage(recorded["plain"], recorded["project"], ())


def test_unknown_schema_version(recorded, tmp_path):
    old = tmp_path / "old.coverage"
    shutil.copy(recorded["lines"], old)
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE coverage_schema SET version = 6")
    with pytest.raises(CoverageError, match=r"schema version 6, written by coverage\.py 7"):
        read_coverage(old, recorded["project"], ())


def test_missing_file(tmp_path):
    with pytest.raises(CoverageError, match="no coverage data file") as raised:
        read_coverage(tmp_path / "absent.coverage", tmp_path, ())
    assert raised.value.kind is ErrorKind.NOT_FOUND


def test_numbits():
    assert numbits_to_lines(b"") == set()
    assert numbits_to_lines(bytes([0b0000_0001])) == set()  # line 0 is no line
    assert numbits_to_lines(bytes([0b1110_0010, 0b0000_0100, 0b0000_0001])) == {
        1,
        5,
        6,
        7,
        10,
        16,
    }
    lines = {3, 8, 255, 4096, 9999}
    blob = bytearray(9999 // 8 + 1)
    for line in lines:
        blob[line // 8] |= 1 << line % 8
    assert numbits_to_lines(bytes(blob)) == lines


@pytest.mark.parametrize(
    ("context", "parsed"),
    [
        (
            "tests/t.py::TestX::test_y[1]|run",
            ("tests/t.py::TestX::test_y[1]", "tests/t.py", "TestX.test_y", False),
        ),
        (
            "tests/t.py::test_y[a::b|run]|teardown",
            ("tests/t.py::test_y[a::b|run]", "tests/t.py", "test_y", False),
        ),
        ("tests/t.py::test_y", ("tests/t.py::test_y", "tests/t.py", "test_y", False)),
        ("t.TestX.test_y", ("t.TestX.test_y", None, "t.TestX.test_y", True)),
    ],
)
def test_parse_context(context, parsed):
    assert parse_context(context) == parsed


# ---------------------------------------------------------------- hostile data files


def _copy(recorded, tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copy(recorded["lines"], copy)
    return copy


def _limited_cli(*args: str, store: str, memory: int) -> subprocess.CompletedProcess:
    """The `cartograph` command with its address space held to `memory` bytes (a file that
    expands past it fails with MemoryError instead of taking the machine)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CARTOGRAPH_STORE": store},
        preexec_fn=limit,
        timeout=300,
    )


def test_all_ones_numbits_are_read_within_memory(recorded, tmp_path, stores):
    """40 MB of 0xFF line data (320 million "lines", 40 tests) is imported in a process held
    to 1.5 GiB: only the lines of indexed functions are ever decoded, and the evidence is
    what the file says (every function of the file ran in each of those tests)."""
    from cartograph.index import index_repository

    project = recorded["project"]
    hostile = _copy(recorded, tmp_path, "hostile.coverage")
    blob = b"\xff" * (1 << 20)
    with sqlite3.connect(hostile) as conn:
        (geo_id,) = conn.execute("SELECT id FROM file WHERE path LIKE ?", (f"%{GEO}",)).fetchone()
        for n in range(40):
            context = conn.execute(
                "INSERT INTO context (context) VALUES (?)",
                (f"{TEST_FILE}::test_describe|run{n}" if n else f"{TEST_FILE}::test_describe",),
            ).lastrowid
            conn.execute(
                "INSERT INTO line_bits (file_id, context_id, numbits) VALUES (?,?,?)",
                (geo_id, context, blob),
            )
    assert hostile.stat().st_size > 40_000_000
    store = stores.open()
    index_repository(store, project, "shapes")
    done = _limited_cli(
        "coverage", "import", "--repo", "shapes", "--json", str(hostile),
        store=stores.url(), memory=3 << 29,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    # test_describe's 0xFF row covers every line of geometry.py: all four functions ran in it
    assert answer["pairs"] >= 4 and answer["symbols"] == 4
    covering = store.impact.covering_tests(
        "shapes", [f"shapes:{GEO}#shapes.geometry.{n}" for n in ("area", "unused")]
    )
    assert covering is not None
    assert set(covering.tests) == {
        f"shapes:{GEO}#shapes.geometry.area",
        f"shapes:{GEO}#shapes.geometry.unused",
    }


def test_lines_past_the_budget_are_refused_before_they_are_decoded(recorded, tmp_path):
    hostile = _copy(recorded, tmp_path, "lines.coverage")
    with sqlite3.connect(hostile) as conn:
        conn.execute("UPDATE line_bits SET numbits = ?", (b"\xff" * 100_000,))
    with pytest.raises(CoverageError, match="more than 1,000,000 measured lines"):
        read_coverage(hostile, recorded["project"], [GEO], Limits(lines=1_000_000))


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (Limits(file_bytes=1_000), r"bytes: Cartograph reads coverage data files of at most 1,000"),
        (Limits(tests=2), "more than 2 tests"),
        (Limits(files=1), "more than 1 files"),
        (Limits(rows=3), "more than 3 rows"),
        (Limits(blob_bytes=16), "holds a value larger than 16 bytes"),
        (Limits(seconds=0), r"took longer than 0 s"),
    ],
)
def test_a_file_over_a_limit_is_refused(recorded, limits, message):
    with pytest.raises(CoverageError, match=message) as raised:
        read_coverage(recorded["lines"], recorded["project"], [GEO], limits)
    assert raised.value.kind is ErrorKind.INVALID


RECURSIVE = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, "
    "'src/x.py' AS path FROM n"
)


def _replace_table(data_file: Path, table: str, create: str) -> None:
    with sqlite3.connect(data_file) as conn:
        conn.execute(f"DROP TABLE {table}")
        conn.execute(create)


@pytest.mark.parametrize(
    ("table", "create", "message"),
    [
        ("file", f"CREATE VIEW file AS {RECURSIVE}", "its file is a view, not a plain table"),
        (
            "line_bits",
            "CREATE VIEW line_bits AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
            " FROM n) SELECT 1 AS file_id, i AS context_id, x'ff' AS numbits FROM n",
            "its line_bits is a view",
        ),
        (
            "context",
            "CREATE TABLE context (id integer primary key, context text,"
            " big blob GENERATED ALWAYS AS (zeroblob(500000000)))",
            "its context table computes columns",
        ),
    ],
)
def test_schema_code_in_the_file_is_never_run(recorded, tmp_path, table, create, message):
    """A view or a computed column would make reading the file run its own SQL (a recursive
    view never ends): the file is refused before any of it is read."""
    hostile = _copy(recorded, tmp_path, "code.coverage")
    _replace_table(hostile, table, create)
    done = subprocess.run(  # in a subprocess: a hang fails the test instead of the session
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path\n"
            "from cartograph.impact.coverage import read_coverage, CoverageError\n"
            "try:\n    read_coverage(Path(sys.argv[1]), None, ['src/x.py'])\n"
            "except CoverageError as e:\n    print(e)\n",
            str(hostile),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert message in done.stdout, done.stdout + done.stderr


def test_a_path_too_long_for_the_file_system_is_skipped_with_a_note(recorded, tmp_path, stores):
    """A measured path of 100,000 characters (and a context as long) is skipped, and the
    import says so; the other files and tests are read as usual."""
    from cartograph.impact.evidence import import_coverage
    from cartograph.index import index_repository

    project = recorded["project"]
    hostile = _copy(recorded, tmp_path, "long.coverage")
    with sqlite3.connect(hostile) as conn:
        for path in ("a/" * 50_000 + "x.py", "b" * 100_000 + ".py"):
            file_id = conn.execute("INSERT INTO file (path) VALUES (?)", (path,)).lastrowid
            conn.execute(
                "INSERT INTO line_bits (file_id, context_id, numbits) VALUES (?, 1, x'ff')",
                (file_id,),
            )
        conn.execute("INSERT INTO context (context) VALUES (?)", ("t" * 100_000,))
    tests = read_coverage(hostile, project, [GEO])
    _assert_pytest_cov(tests)
    store = stores.open()
    index_repository(store, project, "shapes")
    imported = import_coverage(store, "shapes", str(hostile))
    assert imported.notes == [
        "1 context longer than 4,096 characters skipped",
        "2 measured paths longer than 4,096 characters skipped",
    ]
    assert imported.matched == imported.tests == 4
    done = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", "coverage", "import", "--repo", "shapes",
         str(hostile)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CARTOGRAPH_STORE": stores.url()},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "note: 2 measured paths longer than 4,096 characters skipped" in done.stdout
