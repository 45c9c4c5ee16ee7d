"""Will break, judged by each call's arguments: dropping an optional parameter breaks only the
callers that pass it; a caller whose call still binds is unaffected; one that passes `*args`
on is to check — never a false alarm, never a silent pass."""

from __future__ import annotations

import pytest
from cartograph.impact.arguments import CallShape, binds, call_shapes, still_binds
from cartograph.impact.report import impact
from cartograph.impact.symbols import parameters
from cartograph.index import index_repository
from cartograph.model import TrackedRepo
from cartograph.store import open_store
from indexing_support import commit_all, git, git_init, write, write_tree

REDIRECT = "def redirect(location, code=302, Response=None):\n    return (location, code)\n"
FILES = {
    "web/__init__.py": "",
    "web/utils.py": REDIRECT,
    "web/views.py": (
        "from web.utils import redirect\n\n\n"
        "def home():\n    return redirect('/')\n\n\n"
        "def moved():\n    return redirect('/new', code=301)\n\n\n"
        "def custom(response_class):\n    return redirect('/x', 302, response_class)\n\n\n"
        "def keyword(response_class):\n    return redirect('/y', Response=response_class)\n\n\n"
        "def passed_on(*args, **kwargs):\n    return redirect(*args, **kwargs)\n"
    ),
}


@pytest.fixture
def web(tmp_path):
    root = git_init(tmp_path / "web")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="web", workers=1, history=False)
    return root, store


def test_dropping_an_optional_parameter_breaks_only_the_callers_passing_it(web):
    root, store = web
    git(root, "checkout", "-q", "-b", "drop")
    write(root, "web/utils.py", REDIRECT.replace(", Response=None", ""))
    commit_all(root, "drop Response")
    git(root, "checkout", "-q", "main")
    answer = impact(store, "web", base="main", head="drop")
    certainty = {b.caller.qualname.rpartition(".")[2]: b.certainty for b in answer.will_break}
    assert certainty == {"custom": "breaks", "keyword": "breaks", "passed_on": "check"}
    assert answer.binding_callers == 2  # home and moved still bind
    assert answer.verdict == "breaking"
    assert any(line.startswith("WILL BREAK: 2 callers") for line in answer.summary)


@pytest.mark.parametrize(
    ("signature", "call", "bound"),
    [
        ("(a, b=1)", CallShape(1, (), False), True),
        ("(a, b=1)", CallShape(3, (), False), False),
        ("(a, *, b=1)", CallShape(2, (), False), False),  # b became keyword-only
        ("(a, *, b=1)", CallShape(1, ("b",), False), True),
        ("(a, /, b=1)", CallShape(0, ("a",), False), False),  # a is positional-only
        ("(a, b)", CallShape(1, ("a",), False), False),  # a given twice, b missing
        ("(a, **kw)", CallShape(1, ("anything",), False), True),
        ("(a, *rest)", CallShape(5, (), False), True),
        ("(a)", CallShape(1, (), True), None),  # *args passed on
        ("(self, a)", CallShape(1, (), False), True),  # the bound self is not an argument
    ],
)
def test_calls_bind_as_python_binds_them(signature, call, bound):
    assert binds(call, parameters(signature)) is bound


def test_a_reordered_signature_breaks_the_calls_passing_those_arguments_by_position():
    before, after = parameters("(src, dst, force=False)"), parameters("(dst, src, force=False)")
    assert still_binds(CallShape(2, (), False), before, after) is False  # values swapped
    assert still_binds(CallShape(0, ("src", "dst"), False), before, after) is True
    assert still_binds(CallShape(1, (), False), before, after) is False


def test_call_shapes_read_the_calls_on_the_given_lines():
    source = "    def run(self):\n        x = go(1, key=2)\n        return self.go(*x)\n"
    shapes = call_shapes(source, 10, [11, 12], "go")
    assert shapes == [CallShape(1, ("key",), False), CallShape(0, (), True)]


def impact_of_edit(tmp_path, repo: str, files: dict[str, str], path: str, old: str, new: str):
    """The impact of a branch replacing `old` by `new` in one file of a repository of `files`."""
    root = git_init(tmp_path / repo)
    write_tree(root, files)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name=repo, workers=1, history=False)
    git(root, "checkout", "-q", "-b", "edit")
    write(root, path, files[path].replace(old, new))
    commit_all(root, "edit")
    git(root, "checkout", "-q", "main")
    return impact(store, repo, base="main", head="edit")


def test_a_call_on_a_value_the_graph_does_not_know_is_listed_to_check(tmp_path):
    files = {
        "md/__init__.py": "",
        "md/blocks.py": (
            "class CodeProcessor:\n    def test(self, parent, block):\n        return True\n"
        ),
        "md/parser.py": (
            "def parse(registry, parent, block):\n"
            "    for processor in registry.values():\n"
            "        if processor.test(parent, block):\n            return processor\n"
        ),
    }
    answer = impact_of_edit(tmp_path, "md", files, "md/blocks.py", ", block", "")
    assert [(b.caller.qualname, b.certainty) for b in answer.will_break] == [
        ("md.parser.parse", "check")
    ]
    assert answer.verdict == "unknown"


def test_using_what_a_framework_made_of_a_function_is_no_call_that_breaks(tmp_path):
    # `run.make_context(...)` parses the command's options; click calls `run` its own way
    files = {
        "tool/__init__.py": "",
        "tool/cli.py": (
            "import click\n\n\n@click.command()\n@click.option('--level', default=1)\n"
            "def run(level):\n    return level\n\n\n"
            "def again():\n    return run.callback(2)\n"
        ),
        "tests/test_cli.py": (
            "from tool.cli import run\n\n\n"
            "def test_level_is_parsed():\n"
            "    assert run.make_context('run', ['--level', '3']).params == {'level': 3}\n"
        ),
    }
    answer = impact_of_edit(tmp_path, "tool", files, "tool/cli.py", "run(level)", "run(lvl)")
    assert [(b.caller.qualname, b.certainty) for b in answer.will_break] == [
        ("tool.cli.again", "check")
    ]
    assert [t.node for t in answer.tests] == ["tests/test_cli.py::test_level_is_parsed"]


PRICE = (
    "export function formatPrice(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n"
)
ALIASED = {
    "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]}}}',
    "src/lib/money.ts": PRICE,
    "src/app.ts": (
        'import { formatPrice } from "@lib/money";\n'
        "export function show(cents: number): string {\n"
        "  return formatPrice(cents);\n"
        "}\n"
    ),
}
# a new required parameter; the caller's file is edited too, but not its call
ALIAS_PATCH = """\
--- a/src/lib/money.ts
+++ b/src/lib/money.ts
@@ -1,3 +1,3 @@
-export function formatPrice(cents: number): string {
+export function formatPrice(cents: number, currency: string): string {
   return (cents / 100).toFixed(2);
 }
--- a/src/app.ts
+++ b/src/app.ts
@@ -1,4 +1,5 @@
 import { formatPrice } from "@lib/money";
 export function show(cents: number): string {
+  // shown in the cart
   return formatPrice(cents);
 }
"""


@pytest.mark.parametrize("host", ["the indexing host", "a host without the work tree"])
def test_a_call_through_a_path_alias_left_as_it_was_in_an_edited_file_still_breaks(tmp_path, host):
    """The edited file is resolved as the change leaves it, its imports through the aliases of
    tsconfig.json too: its unedited call of the changed function still breaks, on a host that
    reads the settings from the work tree and on one that reads them from its own mirror.
    (Without the settings the call looked external, and the caller "updated by the change".)"""
    root = git_init(tmp_path / "web")
    write_tree(root, ALIASED)
    commit_all(root, "start")
    git(tmp_path, "clone", "-q", "--bare", str(root), str(tmp_path / "remote.git"))
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="web", workers=1, history=False)
    store.tracking.track_repo(TrackedRepo(name="web", url=str(tmp_path / "remote.git")))
    if host == "a host without the work tree":
        root.rename(tmp_path / "elsewhere")
    answer = impact(store, "web", patch=ALIAS_PATCH, data_dir=tmp_path / "data")
    assert [(b.caller.qualname, b.target_qualname) for b in answer.will_break] == [
        ("show", "formatPrice")
    ]
    assert answer.updated_callers == 0
