"""Which code is a test, as the project's own runner configuration says: pytest's settings in
each of the files pytest reads, unittest and Django discovery command lines, the JavaScript
runners' settings — and, through the index, what `impact`, `locate` and the file records
answer with them."""

from __future__ import annotations

import pytest
from cartograph.impact.report import impact
from cartograph.index import index_repository
from cartograph.model import Manifest, SymbolRow
from cartograph.query.locate import locate
from cartograph.store import open_store
from cartograph.testlayout import DEFAULT_LAYOUT, glob_regex, read_test_layout
from indexing_support import commit_all, git, git_init, write, write_tree


def layout_of(files: dict[str, str], library_dirs=("src/pkg",)):
    return read_test_layout(files, lambda p: files[p].encode(), library_dirs)


def function(path: str, name: str, kind: str = "function") -> SymbolRow:
    return SymbolRow(f"r:{path}#{name}", "r", path, name, name, kind, 1, 2, "", "", False, None)


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("app/tests.py", True),  # Django's and unittest's default: test*.py
        ("tests/models.py", True),
        ("pkg/test_models.py", True),
        ("pkg/models_test.py", True),
        ("conftest.py", True),
        ("web/__tests__/app.js", True),
        ("web/app.spec.ts", True),
        ("django/test/testcases.py", False),  # a library named test, not tests
        ("pkg/testing.py", False),
        ("pkg/contests.py", False),
        ("testing/python/approx.py", False),  # pytest's own layout needs its settings
    ],
)
def test_the_conventions_when_nothing_is_configured(path, is_test):
    assert DEFAULT_LAYOUT.is_test_file(path) is is_test


PYTEST_SETTINGS = {
    "pytest.ini": "[pytest]\ntestpaths = testing\npython_files = check_*.py *_check.py\n",
    "pyproject.toml": (
        '[tool.pytest.ini_options]\ntestpaths = ["testing"]\n'
        'python_files = ["check_*.py", "*_check.py"]\n'
    ),
    "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\ntestpaths = testing\npython_files =\n"
    "    check_*.py\n    *_check.py\n",
    "setup.cfg": "[metadata]\nname = pkg\n\n[tool:pytest]\ntestpaths = testing\n"
    "python_files = check_*.py *_check.py\n",
}


@pytest.mark.parametrize("config", sorted(PYTEST_SETTINGS))
def test_pytest_settings_are_read_from_each_file_pytest_reads(config):
    layout = layout_of({config: PYTEST_SETTINGS[config], "src/pkg/__init__.py": ""})
    assert layout.is_test_file("testing/helpers.py")  # in testpaths: test code
    assert layout.is_test_file("pkg/check_models.py")
    assert layout.is_test_file("pkg/models_check.py")
    assert not layout.is_test_file("pkg/models.py")
    assert layout.read_from[0].startswith(config)


def test_pytest_reads_the_first_file_that_configures_it_and_only_that_one():
    layout = layout_of(
        {
            "pytest.ini": "[pytest]\npython_files = check_*.py\n",
            "setup.cfg": "[tool:pytest]\npython_files = verify_*.py\n",
        }
    )
    assert layout.is_test_file("pkg/check_a.py")
    assert not layout.is_test_file("pkg/verify_a.py")


def test_a_pyproject_without_pytest_settings_leaves_them_to_the_next_file():
    layout = layout_of(
        {"pyproject.toml": "[project]\nname = 'pkg'\n", "tox.ini": "[pytest]\ntestpaths = qa\n"}
    )
    assert layout.is_test_file("qa/helpers.py")


def test_pytests_own_layout_makes_testing_python_tests():
    # pytest's pyproject.toml: `python_files = test_*.py *_test.py testing/python/*.py`
    layout = layout_of(
        {
            "pyproject.toml": "[tool.pytest.ini_options]\n"
            'python_files = ["test_*.py", "*_test.py", "testing/python/*.py"]\n'
            'python_classes = ["Test", "Acceptance"]\npython_functions = ["test"]\n'
        },
        library_dirs=("src/_pytest", "src/pytest"),
    )
    assert layout.is_test_file("testing/python/approx.py")
    assert not layout.is_test_file("testing/helpers.py")
    assert layout.is_test(function("testing/python/approx.py", "test_equal"))
    assert not layout.is_test(function("testing/python/approx.py", "helper"))


def test_testpaths_that_hold_the_library_are_not_test_code():
    # doctest runs: `testpaths = src tests` collects from the library too
    layout = layout_of({"pytest.ini": "[pytest]\ntestpaths = src tests docs .\n"})
    assert not layout.is_test_file("src/pkg/models.py")
    assert layout.is_test_file("docs/conftest.py")
    assert layout.is_test_file("docs/guide_helpers.py")  # docs is a test folder here
    assert not layout.is_test_file("setup_helpers.py")  # "." is everything: not a test folder


def test_python_functions_globs_and_prefixes_name_the_tests():
    layout = layout_of({"pytest.ini": "[pytest]\npython_functions = check_* *_spec\n"})
    assert layout.is_test(function("tests/test_a.py", "check_totals"))
    assert layout.is_test(function("tests/test_a.py", "totals_spec", "method"))
    assert not layout.is_test(function("tests/test_a.py", "test_totals"))  # not configured
    assert not layout.is_test(function("pkg/models.py", "check_totals"))  # not a test file


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("tox.ini", "[testenv]\ncommands = python -m unittest discover -s qa -p 'check*.py'\n"),
        ("Makefile", "test:\n\tpython -m unittest discover qa 'check*.py'\n"),
        (
            ".github/workflows/ci.yml",
            "jobs:\n  t:\n    steps:\n      - run: python -m unittest discover "
            "--start-directory qa --pattern check*.py\n",
        ),
        (  # a command in a TOML string (hatch's scripts: MkDocs runs its suite so)
            "pyproject.toml",
            "[tool.hatch.envs.test.scripts]\n"
            "test = 'python -m unittest discover -s qa -p \"check*.py\"'\n"
            "_cov = ['coverage run -m unittest discover -s qa -p \"check*.py\"', 'coverage xml']\n",
        ),
    ],
)
def test_unittest_discovery_command_lines_give_the_folder_and_the_pattern(config, text):
    layout = layout_of({config: text})
    assert layout.is_test_file("qa/fixtures_data.py")
    assert layout.is_test_file("pkg/check_models.py")
    assert not layout.is_test_file("pkg/models.py")


def test_a_django_project_discovers_test_star_modules():
    layout = layout_of({"manage.py": "", "shop/testviews.py": ""})
    assert layout.is_test_file("shop/testviews.py")
    assert not DEFAULT_LAYOUT.is_test_file("shop/testviews.py")
    pattern = layout_of({"tox.ini": "[testenv]\ncommands = python manage.py test -p 'spec_*.py'\n"})
    assert pattern.is_test_file("shop/spec_views.py")


def test_javascript_runners_settings():
    jest = layout_of({"package.json": '{"jest": {"testMatch": ["<rootDir>/checks/**/*.js"]}}'})
    assert jest.is_test_file("checks/unit/cart.js")
    assert not jest.is_test_file("src/cart.js")
    regex = layout_of({"web/jest.config.js": "module.exports = {testRegex: '/specs/.*\\\\.js$'}"})
    assert regex.is_test_file("web/specs/cart.js")
    vitest = layout_of(
        {
            "app/vitest.config.ts": "export default defineConfig({test: {include: "
            "['src/**/*.check.{ts,tsx}'], exclude: ['x']}})"
        }
    )
    assert vitest.is_test_file("app/src/ui/cart.check.tsx")
    assert not vitest.is_test_file("app/src/ui/cart.tsx")
    mocha = layout_of({".mocharc.yml": "spec: 'qa/**/*.mjs'\n"})
    assert mocha.is_test_file("qa/cart.mjs")


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("**/?(*.)+(spec|test).[jt]s?(x)", "src/a/cart.test.tsx", True),
        ("**/?(*.)+(spec|test).[jt]s?(x)", "src/a/cart.ts", False),
        ("**/__tests__/**/*.[jt]s?(x)", "src/__tests__/deep/cart.js", True),
        ("src/**/*.{test,spec}.ts", "src/cart.spec.ts", True),
        ("src/**/*.{test,spec}.ts", "lib/cart.spec.ts", False),
        ("/src/*.ts", "pkg/src/a.ts", False),
    ],
)
def test_globs_as_the_javascript_runners_read_them(glob, path, matches):
    assert bool(glob_regex(glob).fullmatch(path)) is matches


def test_unreadable_settings_leave_the_conventions():
    layout = layout_of({"pyproject.toml": "[tool.pytest.ini_options\n", "package.json": "{"})
    assert layout == DEFAULT_LAYOUT


def test_the_layout_is_kept_with_the_manifest():
    manifest = Manifest("r")
    manifest.tests = layout_of({"pytest.ini": "[pytest]\npython_functions = check_*\n"})
    assert Manifest.from_json(manifest.to_json()).tests == manifest.tests
    assert Manifest.from_json('{"repo": "r"}').tests == DEFAULT_LAYOUT


# --- through the index: pytest's own layout (tests under testing/python/)

PLUGIN_TOOL = {
    "pyproject.toml": "[tool.pytest.ini_options]\n"
    'python_files = ["test_*.py", "testing/python/*.py"]\n',
    "src/approx/__init__.py": "",
    "src/approx/core.py": (
        "def approx(expected, rel=1e-6):\n    return ApproxScalar(expected, rel)\n\n\n"
        "class ApproxScalar:\n    def __init__(self, expected, rel):\n"
        "        self.expected = expected\n        self.rel = rel\n\n"
        "    def __eq__(self, actual):\n"
        "        return abs(actual - self.expected) <= self.rel * abs(self.expected)\n"
    ),
    "testing/python/approx.py": (
        "from approx.core import approx\n\n\n"
        "def test_tolerance_of_relative_error():\n    assert 1.0000001 == approx(1.0)\n"
    ),
}


@pytest.fixture
def plugin_tool(tmp_path):
    root = git_init(tmp_path / "tool")
    write_tree(root, PLUGIN_TOOL)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="tool", workers=1, history=False)
    return root, store


def test_a_test_named_by_python_files_is_selected_and_never_a_place_to_fix(plugin_tool):
    root, store = plugin_tool
    assert store.graph.files("tool")["testing/python/approx.py"].is_test
    git(root, "checkout", "-q", "-b", "edit")
    write(root, "src/approx/core.py", PLUGIN_TOOL["src/approx/core.py"].replace("1e-6", "1e-7"))
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    answer = impact(store, "tool", base="main", head="edit")
    assert {t.node for t in answer.tests} == {
        "testing/python/approx.py::test_tolerance_of_relative_error"
    }
    found = locate(store, "approx tolerance of relative error", "tool", min_confidence=0)
    assert [f.path for f in found.files] == ["src/approx/core.py"]
    assert [t.name for t in found.tests] == ["test_tolerance_of_relative_error"]


def test_editing_the_runner_settings_reclassifies_files_on_the_next_index(plugin_tool):
    root, store = plugin_tool
    write(root, "pyproject.toml", "[project]\nname = 'approx'\n")
    commit_all(root, "plain settings")
    result = index_repository(store, root, name="tool", workers=1, history=False)
    assert result.parsed == 0  # rewritten from the stored facts, not parsed again
    assert not store.graph.files("tool")["testing/python/approx.py"].is_test
    assert store.repos.manifests()["tool"].tests == DEFAULT_LAYOUT


# --- tests a test class inherits: collected again on every subclass (markdown's HTML tests)

INHERITING = {
    "blocks/__init__.py": "",
    "blocks/render.py": (
        "def render(text, extensions=()):\n    return f'<p>{text}</p>'\n\n\n"
        "def fresh_state():\n    return {}\n"
    ),
    "tests/__init__.py": "",
    "tests/test_blocks.py": (
        "import unittest\n\nfrom blocks.render import fresh_state, render\n\n\n"
        "class TestBlocks(unittest.TestCase):\n    extensions = ()\n\n"
        "    def setUp(self):\n        self.state = fresh_state()\n\n"
        "    def test_paragraph(self):\n"
        "        self.assertEqual(render('a', self.extensions), '<p>a</p>')\n"
    ),
    "tests/test_extras.py": (
        "from tests.test_blocks import TestBlocks\n\n\n"
        "class TestBlocksWithExtras(TestBlocks):\n    extensions = ('extra',)\n\n\n"
        "class TestOwnParagraph(TestBlocks):\n"
        "    def test_paragraph(self):\n        self.assertTrue(True)\n"
    ),
}


@pytest.fixture
def inheriting(tmp_path):
    root = git_init(tmp_path / "blocks")
    write_tree(root, INHERITING)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="blocks", workers=1, history=False)
    return root, store


def selected_for_edit(inheriting, old: str, new: str) -> set[str]:
    root, store = inheriting
    git(root, "checkout", "-q", "-b", "edit")
    write(root, "blocks/render.py", INHERITING["blocks/render.py"].replace(old, new))
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    return {t.node for t in impact(store, "blocks", base="main", head="edit").tests}


def test_a_test_a_class_inherits_or_a_module_imports_is_selected_there_too(inheriting):
    # the runners collect the imported TestBlocks in test_extras.py again; the class overriding
    # the test runs its own version, which does not reach the change
    assert selected_for_edit(inheriting, "<p>", "<p class>") == {
        "tests/test_blocks.py::TestBlocks::test_paragraph",
        "tests/test_extras.py::TestBlocks::test_paragraph",
        "tests/test_extras.py::TestBlocksWithExtras::test_paragraph",
    }


def test_the_set_up_a_test_class_inherits_runs_for_each_of_its_tests(inheriting):
    assert selected_for_edit(inheriting, "return {}", "return {'fresh': True}") == {
        "tests/test_blocks.py::TestBlocks::test_paragraph",
        "tests/test_extras.py::TestBlocks::test_paragraph",
        "tests/test_extras.py::TestBlocksWithExtras::test_paragraph",
        "tests/test_extras.py::TestOwnParagraph::test_paragraph",
    }
