"""Where the graph does not know who calls the changed code, `impact` says so and selects
safely: a method called on a value of unknown type selects the tests behind the calls naming
it ("name" evidence); a dunder method is reached where its class is; a change reached by
nothing known is "no reach" only when the graph is complete on the way, else "unknown"."""

from __future__ import annotations

import pytest
from cartograph.impact.report import impact
from cartograph.index import index_repository
from cartograph.store import open_store
from indexing_support import commit_all, git, git_init, write, write_tree

FILES = {
    "shop/__init__.py": "",
    "shop/handlers.py": (
        "class JsonHandler:\n    def handle(self, data):\n        return str(data)\n\n\n"
        "class CsvExporter:\n    def export(self, rows):\n        return ','.join(rows)\n"
    ),
    "shop/dispatch.py": (
        "import importlib\n\n\n"
        "def load(name):\n    return importlib.import_module(name).make()\n\n\n"
        "def dispatch(handler, data):\n    return handler.handle(data)\n"
    ),
    "shop/cli.py": "def main(exporter):\n    return exporter.export(['a'])\n",
    "shop/money.py": (
        "class Price:\n    def __init__(self, cents):\n        self.cents = cents\n\n"
        "    def __eq__(self, other):\n        return self.cents == other.cents\n\n\n"
        "def price(cents):\n    return Price(cents)\n\n\n"
        "def unused_rounding(cents):\n    return round(cents, -1)\n"
    ),
    "tests/test_dispatch.py": (
        "from shop.dispatch import dispatch, load\n\n\n"
        "def test_dispatch():\n    assert dispatch(load('shop.handlers'), 1)\n"
    ),
    "tests/test_money.py": (
        "from shop.money import price\n\n\n"
        "def test_equal_prices():\n    assert price(3) == price(3)\n"
    ),
}


@pytest.fixture
def shop(tmp_path):
    root = git_init(tmp_path / "shop")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="shop", workers=1, history=False)
    return root, store


def impact_of_branch(root, store, repo: str, path: str, text: str):
    """The impact of a branch `edit` that writes `text` to `path` (the work tree back on main)."""
    git(root, "checkout", "-q", "-b", "edit")
    write(root, path, text)
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    return impact(store, repo, base="main", head="edit")


def change(shop, path: str, old: str, new: str):
    root, store = shop
    return impact_of_branch(root, store, "shop", path, FILES[path].replace(old, new))


def test_a_method_called_on_an_unknown_value_selects_the_tests_behind_the_call(shop):
    answer = change(shop, "shop/handlers.py", "str(data)", "repr(data)")
    assert answer.verdict == "affects tests"
    (test,) = answer.tests
    assert test.node == "tests/test_dispatch.py::test_dispatch"
    assert test.evidence == "name"
    assert answer.open_ends == {"parameter": 1}


def test_a_dunder_method_is_reached_where_its_class_is(shop):
    answer = change(shop, "shop/money.py", "self.cents == other.cents", "self is other")
    assert [t.node for t in answer.tests] == ["tests/test_money.py::test_equal_prices"]
    assert answer.open_ends == {"protocol": 1}


def test_an_open_end_with_no_test_behind_it_is_unknown_never_no_reach(shop):
    answer = change(shop, "shop/handlers.py", "','.join(rows)", "';'.join(rows)")
    assert answer.verdict == "unknown"
    assert answer.tests == []
    assert answer.open_ends == {"parameter": 1}
    assert any("UNKNOWN" in line and "call on a parameter" in line for line in answer.summary)


def test_no_reach_is_said_only_where_the_graph_is_complete(shop):
    answer = change(shop, "shop/money.py", "round(cents, -1)", "round(cents, -2)")
    assert answer.verdict == "no reach"
    assert answer.open_ends == {}
    assert any("complete on the way" in line for line in answer.summary)


def test_a_budget_keeps_the_surest_tests_within_its_share_of_the_suite(shop):
    root, store = shop
    git(root, "checkout", "-q", "-b", "edit")
    # one change reached surely (test_equal_prices calls price) and one by name only
    write(
        root,
        "shop/money.py",
        FILES["shop/money.py"].replace("cents):\n    return Price", "cents):\n    return  Price"),
    )
    write(root, "shop/handlers.py", FILES["shop/handlers.py"].replace("str(data)", "repr(data)"))
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    safe = impact(store, "shop", base="main", head="edit")
    assert {t.node for t in safe.tests} == {
        "tests/test_money.py::test_equal_prices",
        "tests/test_dispatch.py::test_dispatch",
    }
    half = impact(store, "shop", base="main", head="edit", budget=50)  # 1 of the 2 tests
    assert [t.node for t in half.tests] == ["tests/test_money.py::test_equal_prices"]
    assert [t.node for t in half.possible_tests] == ["tests/test_dispatch.py::test_dispatch"]
    assert any(note.startswith("budget 50 %") for note in half.notes)


GENERATED = {
    "docs/__init__.py": "",
    "docs/render.py": "def render(text):\n    return text.upper()\n",
    "docs/cases.py": (
        "from docs.render import render\n\n\n"
        "class MadeFromFiles(type):\n    def __new__(mcs, name, bases, attrs):\n"
        "        attrs['test_page'] = lambda self: render(attrs.get('page', ''))\n"
        "        return super().__new__(mcs, name, bases, attrs)\n\n\n"
        "class LegacyCase(metaclass=MadeFromFiles):\n    page = ''\n"
    ),
    "tests/test_pages.py": (
        "from docs.cases import LegacyCase\n\n\nclass TestPages(LegacyCase):\n    page = 'x'\n"
    ),
}


def impact_of_edit(tmp_path, files: dict[str, str], path: str, old: str, new: str):
    """The impact of replacing `old` by `new` in one file of a repository made of `files`."""
    root = git_init(tmp_path / "repo")
    write_tree(root, files)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="repo", workers=1, history=False)
    return impact_of_branch(root, store, "repo", path, files[path].replace(old, new))


def test_a_test_class_whose_tests_are_made_at_run_time_is_selected_whole(tmp_path):
    answer = impact_of_edit(tmp_path, GENERATED, "docs/render.py", "upper", "lower")
    assert [(t.node, t.evidence) for t in answer.tests] == [
        ("tests/test_pages.py::TestPages", "name")
    ]
    assert answer.open_ends.get("generated") == 1


FORMATS = {
    "shop/__init__.py": "",
    "shop/formats.py": (
        "def escape(text):\n    return text.replace('<', '&lt;')\n\n\n"
        "class HtmlHandler:\n    def handle(self, data):\n        return escape(data)\n\n\n"
        "class XmlHandler:\n    def handle(self, data):\n        return escape(data)\n"
    ),
    "shop/dispatch.py": FILES["shop/dispatch.py"],
    "tests/test_dispatch.py": FILES["tests/test_dispatch.py"].replace("handlers", "formats"),
}


def test_an_open_end_counts_once_however_many_of_its_names_the_walk_reaches(tmp_path):
    # both `handle` methods reach the change; the one call naming them is one open end
    answer = impact_of_edit(tmp_path, FORMATS, "shop/formats.py", "'&lt;'", "'&#60;'")
    assert [(t.node, t.evidence) for t in answer.tests] == [
        ("tests/test_dispatch.py::test_dispatch", "name")
    ]
    assert answer.open_ends == {"parameter": 1}


VIEWS = {
    "views/__init__.py": "",
    "views/base.py": (
        "class MethodView:\n    methods = ()\n\n"
        "    def __init_subclass__(cls, **kwargs):\n"
        "        super().__init_subclass__(**kwargs)\n"
        "        cls.methods = tuple(n for n in ('get', 'post') if hasattr(cls, n))\n"
    ),
    "tests/test_views.py": (
        "from views.base import MethodView\n\n\n"
        "class Health(MethodView):\n    def get(self):\n        return 'ok'\n\n\n"
        "def test_module_level_view():\n    assert Health.methods == ('get',)\n\n\n"
        "def test_view_defined_in_the_test():\n"
        "    class Index(MethodView):\n        def post(self):\n            return ''\n\n"
        "    assert Index.methods == ('post',)\n\n\n"
        "def test_unrelated():\n    assert MethodView.methods == ()\n"
    ),
}


def test_a_subclass_hook_runs_where_each_subclass_is_defined(tmp_path):
    answer = impact_of_edit(tmp_path, VIEWS, "views/base.py", "'post'", "'post', 'put'")
    # defining a view runs the hook: the test defining one, and every test of the module
    # whose module-level code defines one; never reached by name
    assert {t.node for t in answer.tests} == {
        "tests/test_views.py::test_module_level_view",
        "tests/test_views.py::test_view_defined_in_the_test",
        "tests/test_views.py::test_unrelated",
    }
    assert {t.evidence for t in answer.tests} <= {"static", "import"}


PLUGIN_TOOL = {
    "pyproject.toml": (
        '[project]\nname = "docs-tool"\n'
        '[project.entry-points."docs_tool.plugins"]\nsearch = "docs_tool.search:SearchPlugin"\n'
    ),
    "docs_tool/__init__.py": "",
    "docs_tool/options.py": (
        "class Choice:\n    def __init__(self, choices, default=None):\n"
        "        self.choices = choices\n        self.default = default\n"
    ),
    "docs_tool/search.py": (
        "from docs_tool.options import Choice\n\n\n"
        "class SearchConfig:\n    lang = Choice(('en', 'fr'), default='en')\n\n\n"
        "def default_lang():\n    return 'en'\n\n\n"
        "class SearchPlugin:\n    config_class = SearchConfig\n\n"
        "    def __init__(self):\n        self.lang = default_lang()\n"
    ),
    "docs_tool/plugins.py": (
        "from importlib.metadata import entry_points\n\n\n"
        "def load_plugins():\n"
        "    return {ep.name: ep.load()() for ep in entry_points(group='docs_tool.plugins')}\n"
    ),
    "docs_tool/config.py": (
        "from docs_tool.plugins import load_plugins\n\n\n"
        "def load_config():\n    return {'plugins': load_plugins()}\n"
    ),
    "tests/test_config.py": (
        "from docs_tool.config import load_config\n\n\n"
        "def test_default_plugins():\n    assert 'search' in load_config()['plugins']\n"
    ),
    "tests/test_options.py": (
        "from docs_tool.options import Choice\n\n\n"
        "def test_schema_of_a_test():\n"
        "    class Schema:\n        flavour = Choice(('a',))\n\n"
        "    assert Schema.flavour.choices == ('a',)\n\n\n"
        "def test_unrelated():\n    assert Choice is not None\n"
    ),
}


def test_a_plugin_the_repository_declares_is_loaded_where_entry_points_are(tmp_path):
    answer = impact_of_edit(tmp_path, PLUGIN_TOOL, "docs_tool/options.py",
                            "self.default = default", "self.default = default or choices[0]")  # fmt: skip
    # the search plugin's config class builds a Choice when its module is imported, which
    # loading the plugins' entry points does; a class a test defines builds one in the test
    assert {t.node for t in answer.tests} == {
        "tests/test_config.py::test_default_plugins",
        "tests/test_options.py::test_schema_of_a_test",
    }


def test_a_plugin_class_an_entry_point_names_is_constructed_where_entry_points_are_loaded(
    tmp_path,
):
    answer = impact_of_edit(tmp_path, PLUGIN_TOOL, "docs_tool/search.py", "'en'\n", "'fr'\n")
    assert {t.node for t in answer.tests} == {"tests/test_config.py::test_default_plugins"}


HANDLERS = {
    "logs/__init__.py": "",
    "logs/handlers.py": (
        "import logging\n\nimport uploads\n\n\n"
        "class ListHandler(logging.Handler):\n"
        "    def emit(self, record):\n        self.records.append(record.msg)\n\n"
        "    def summary(self):\n        return str(len(self.records))\n\n\n"
        "class Upload(uploads.Part):\n"
        "    def summary(self):\n        return str('upload')\n"
    ),
    "tests/test_handlers.py": (
        "import logging\n\nimport uploads\nfrom logs.handlers import ListHandler, Upload\n\n\n"
        "def test_records_are_kept():\n"
        "    logging.getLogger('t').addHandler(ListHandler())\n\n\n"
        "def test_upload_is_handed_on():\n    uploads.send(Upload())\n"
    ),
}


def test_a_standard_library_base_calls_back_only_what_it_defines(tmp_path):
    # logging.Handler's code calls the handler's `emit` (it defines one), never `summary`
    emit = impact_of_edit(tmp_path / "emit", HANDLERS, "logs/handlers.py", "record.msg", "record")
    assert [t.node for t in emit.tests] == ["tests/test_handlers.py::test_records_are_kept"]
    assert emit.open_ends == {"external-base": 1}
    summary = impact_of_edit(tmp_path / "summary", HANDLERS, "logs/handlers.py", "len(", "sum(")
    assert summary.tests == []
    assert summary.verdict == "no reach"
    # a base from another package may call anything its subclass defines
    upload = impact_of_edit(tmp_path / "upload", HANDLERS, "logs/handlers.py", "'upload'", "'up'")
    assert [t.node for t in upload.tests] == ["tests/test_handlers.py::test_upload_is_handed_on"]


COMMANDS = {
    "tool/__init__.py": "",
    "tool/cli.py": (
        "import click\n\n\n"
        "class CertType(click.ParamType):\n"
        "    def convert(self, value, param, ctx):\n        return str(value)\n\n\n"
        "@click.command()\n@click.option('--cert', type=CertType())\n"
        "def run(cert):\n    return cert\n"
    ),
    "tests/test_cli.py": (
        "from tool.cli import run\n\n\n"
        "def test_cert_is_parsed():\n"
        "    assert run.make_context('run', ['--cert', 'c.pem']).params['cert'] == 'c.pem'\n"
    ),
}


def test_a_parameter_type_a_decorator_attaches_is_reached_where_its_command_is_used(tmp_path):
    # click calls the type's `convert` while `make_context` parses the command's options
    answer = impact_of_edit(tmp_path, COMMANDS, "tool/cli.py", "str(value)", "repr(value)")
    assert [t.node for t in answer.tests] == ["tests/test_cli.py::test_cert_is_parsed"]
    assert answer.tests[0].evidence == "name"
