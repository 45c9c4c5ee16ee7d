"""The frameworks the graph knows, as a reviewer meets them in `impact`: editing a click
subcommand selects the test that invokes its group; editing a Celery task selects the test
that queues it; editing a Flask, FastAPI or Django view selects the test that requests its URL
through the framework's test client — and each leaves the other tests out."""

from __future__ import annotations

import pytest
from cartograph.impact.report import impact
from cartograph.index import index_repository
from cartograph.store import open_store
from indexing_support import commit_all, git, git_init, write, write_tree

FILES = {
    "shop/__init__.py": "",
    "shop/cli.py": (
        "import click\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
        "@cli.command()\ndef sync():\n    return 'synced'\n\n\n"
        "@cli.command()\ndef prune():\n    return 'pruned'\n"
    ),
    "shop/tasks.py": (
        "from celery import shared_task\n\n\n@shared_task\ndef rebuild(name):\n"
        "    return name.upper()\n"
    ),
    "shop/web.py": (
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
        "@app.route('/items/<int:item_id>')\ndef item(item_id):\n    return str(item_id)\n"
    ),
    "shop/api.py": (
        "from fastapi import FastAPI\n\napi = FastAPI()\n\n\n"
        "@api.post('/orders')\ndef order():\n    return {'ok': True}\n"
    ),
    "shop/views.py": "def detail(request, pk):\n    return pk\n",
    "shop/urls.py": (
        "from django.urls import path\n\nfrom shop import views\n\n"
        "urlpatterns = [path('shop/<int:pk>/', views.detail)]\n"
    ),
    "tests/test_cli.py": (
        "from click.testing import CliRunner\n\nfrom shop.cli import cli\n\n\n"
        "def test_sync():\n    assert CliRunner().invoke(cli, ['sync']).output\n"
    ),
    "tests/test_tasks.py": (
        "from shop.tasks import rebuild\n\n\n"
        "def test_queued():\n    assert rebuild.delay('a').get() == 'A'\n"
    ),
    "tests/test_web.py": (
        "from fastapi.testclient import TestClient\n\nfrom shop.api import api\n"
        "from shop.web import app\n\n\n"
        "def test_item():\n    client = app.test_client()\n"
        "    assert client.get('/items/3').data == b'3'\n\n\n"
        "def test_order():\n    assert TestClient(api).post('/orders').json()['ok']\n"
    ),
    "shop/tests.py": (
        "from django.test import TestCase\n\n\nclass DetailTests(TestCase):\n"
        "    def test_detail(self):\n        self.client.get('/shop/7/')\n"
    ),
}
EVERY_TEST = {
    "tests/test_cli.py::test_sync",
    "tests/test_tasks.py::test_queued",
    "tests/test_web.py::test_item",
    "tests/test_web.py::test_order",
    "shop/tests.py::DetailTests::test_detail",
}


@pytest.fixture
def shop(tmp_path):
    root = git_init(tmp_path / "shop")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="shop", workers=1, history=False)
    return root, store


@pytest.mark.parametrize(
    "path, old, new, selected",
    [
        ("shop/cli.py", "'synced'", "'done'", "tests/test_cli.py::test_sync"),
        ("shop/tasks.py", "name.upper()", "name.lower()", "tests/test_tasks.py::test_queued"),
        ("shop/web.py", "str(item_id)", "repr(item_id)", "tests/test_web.py::test_item"),
        ("shop/api.py", "'ok': True", "'ok': 1", "tests/test_web.py::test_order"),
        ("shop/views.py", "return pk", "return -pk", "shop/tests.py::DetailTests::test_detail"),
    ],
    ids=["click-subcommand", "celery-task", "flask-view", "fastapi-view", "django-view"],
)
def test_an_edited_handler_selects_the_test_that_runs_it_through_its_framework(
    shop, path, old, new, selected
):
    root, store = shop
    git(root, "checkout", "-q", "-b", "edit")
    write(root, path, FILES[path].replace(old, new))
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    answer = impact(store, "shop", base="main", head="edit")
    tests = {t.node for t in answer.tests}
    assert selected in tests
    assert not (tests & (EVERY_TEST - {selected}))


def test_any_subcommand_of_a_group_selects_the_tests_invoking_the_group(shop):
    root, store = shop
    git(root, "checkout", "-q", "-b", "prune")
    write(root, "shop/cli.py", FILES["shop/cli.py"].replace("'pruned'", "'gone'"))
    commit_all(root, "prune")
    git(root, "checkout", "-q", "main")
    answer = impact(store, "shop", base="main", head="prune")
    # the test invokes `sync` only, but which subcommand runs is decided by the arguments at
    # run time: the group's tests are selected for any of its subcommands, never left out
    assert {t.node for t in answer.tests} == {"tests/test_cli.py::test_sync"}
