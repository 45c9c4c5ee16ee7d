"""`impact`: what a change reaches, on real git repositories — the symbols it changes, the
callers it breaks (none when the change updates them itself), what may be affected, the tests
that reach the change however deep (fixtures and base-class dispatch included) with the command
line that runs exactly them, owners, and clear answers for input that cannot be analysed."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.errors import CartographError, NotFound
from cartograph.impact import graph
from cartograph.impact.report import impact
from cartograph.impact.tests import commands
from cartograph.index import index_repository
from cartograph.render import render, to_data
from indexing_support import commit_all, git, git_init, write, write_tree

CHAIN = 12  # calls between the deepest test and the code it reaches

CORE = (
    "def helper(x):\n"
    "    return x + 1\n"
    "\n\n"
    "def compute(a, b=2):\n"
    "    return helper(a) * b\n"
    "\n\n"
    "def retired():\n"
    "    return 0\n"
    "\n\n"
    "class Base:\n"
    "    def run(self):\n"
    "        return 1\n"
    "\n\n"
    "class Child(Base):\n"
    "    def run(self):\n"
    "        return 2\n"
)
API = (
    "from pkg.core import Base, compute, retired\n"
    "\n\n"
    "def entry(obj: Base):\n"
    "    return obj.run() + compute(1)\n"
    "\n\n"
    "def other():\n"
    "    return compute(2, 3)\n"
    "\n\n"
    "def old_user():\n"
    "    return retired()\n"
)
DEEP = "from pkg.core import helper\n\n\ndef step_0():\n    return helper(0)\n" + "".join(
    f"\n\ndef step_{n}():\n    return step_{n - 1}()\n" for n in range(1, CHAIN)
)
TESTS = {
    "tests/conftest.py": (
        "import pytest\nfrom pkg.core import Child\n\n\n@pytest.fixture\ndef child():\n"
        "    return Child()\n"
    ),
    "tests/test_api.py": (
        "from pkg.api import entry, old_user, other\n"
        "from pkg.deep import step_11\n"
        "\n\n"
        "def test_entry(child):\n    assert entry(child) == 6\n"
        "\n\n"
        "def test_other():\n    assert other() == 9\n"
        "\n\n"
        "def test_old():\n    assert old_user() == 0\n"
        "\n\n"
        "class TestDeep:\n    def test_deep(self):\n        assert step_11() == 1\n"
        "\n\n"
        "def test_unrelated():\n    assert True\n"
    ),
}
FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/api.py": API, "pkg/deep.py": DEEP}


@pytest.fixture
def project(tmp_path):
    root = git_init(tmp_path / "proj")
    write_tree(root, {**FILES, **TESTS})
    commit_all(root, "start")
    return root


def _indexed(store, root: Path) -> None:
    index_repository(store, root, name="proj", workers=1, history=False)


def _branch(root: Path, files: dict[str, str | None], name: str = "feature") -> None:
    """A branch with these files written (None: deleted), the work tree back on main."""
    git(root, "checkout", "-q", "-b", name)
    for rel, content in files.items():
        if content is None:
            git(root, "rm", "-q", rel)
        else:
            write(root, rel, content)
    commit_all(root, name)
    git(root, "checkout", "-q", "main")


def _changes(answer) -> set[tuple[str, str]]:
    return {(c.change, c.qualname) for c in answer.changed}


def _breaks(answer) -> set[tuple[str, str, int]]:
    return {(b.caller.qualname, b.caller.path, b.lines[0]) for b in answer.will_break}


def _tests(answer) -> set[str]:
    return {t.node for t in answer.tests}


def test_a_breaking_signature_lists_its_callers_and_the_tests_to_run(project, stores):
    store = stores.open()
    _indexed(store, project)
    _branch(project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")})
    answer = impact(store, "proj", base="main", head="feature")
    [changed] = answer.changed
    assert (changed.change, changed.qualname, changed.breaking) == (
        "signature", "pkg.core.compute", True
    )  # fmt: skip
    assert changed.why == "parameter 'b' lost its default"
    # `compute(2, 3)` still binds: only the call leaving `b` out breaks
    assert _breaks(answer) == {("pkg.api.entry", "pkg/api.py", 5)}
    assert answer.binding_callers == 1
    assert answer.verdict == "breaking"
    # the fixture-driven test too; not the test that never reaches compute
    assert _tests(answer) == {"tests/test_api.py::test_entry", "tests/test_api.py::test_other"}
    [command] = answer.test_commands
    assert command.command == (
        "python -m pytest tests/test_api.py::test_entry tests/test_api.py::test_other"
    )
    text = render(answer)
    assert "WILL BREAK: 1 caller in 1 repository (proj)" in text
    assert "pkg.api.entry  pkg/api.py:5  — pkg.core.compute: parameter 'b' lost its default" in text


def test_a_compatible_signature_breaks_nothing(project, stores):
    store = stores.open()
    _indexed(store, project)
    compatible = CORE.replace("def compute(a, b=2):", "def compute(a, b=2, *, scale=1):")
    _branch(project, {"pkg/core.py": compatible})
    answer = impact(store, "proj", base="main", head="feature")
    [changed] = answer.changed
    assert (changed.change, changed.breaking, changed.why) == ("signature", False, "")
    assert answer.will_break == []
    assert answer.verdict == "affects tests"
    assert _tests(answer) == {"tests/test_api.py::test_entry", "tests/test_api.py::test_other"}


def test_tests_far_above_the_change_and_through_fixtures_and_overrides(project, tmp_path):
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    _branch(project, {"pkg/core.py": CORE.replace("return x + 1", "return x + 2")}, "deep")
    answer = impact(store, "proj", base="main", head="deep")
    assert _changes(answer) == {("body", "pkg.core.helper")}
    deep = next(t for t in answer.tests if t.qualname == "TestDeep.test_deep")
    assert deep.node == "tests/test_api.py::TestDeep::test_deep"
    assert deep.depth == CHAIN + 1  # step_11 … step_0, helper: not cut at a fixed depth
    assert "tests/test_api.py::test_unrelated" not in _tests(answer)
    # a changed override: the test that reaches the base method through its fixture's Child
    _branch(project, {"pkg/core.py": CORE.replace("return 2", "return 3")}, "override")
    answer = impact(store, "proj", base="main", head="override")
    assert _changes(answer) == {("body", "pkg.core.Child.run")}
    assert _tests(answer) == {"tests/test_api.py::test_entry"}
    [affected] = [a for a in answer.may_be_affected if a.symbol.qualname == "pkg.api.entry"]
    assert affected.depth == 1 and affected.confidence < 1.0  # through the base method


def test_removed_and_moved_symbols_break_only_callers_left_behind(project, tmp_path):
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    without = CORE.replace("def retired():\n    return 0\n\n\n", "")
    _branch(project, {"pkg/core.py": without}, "removed")
    answer = impact(store, "proj", base="main", head="removed")
    assert _changes(answer) == {("removed", "pkg.core.retired")}
    assert _breaks(answer) == {("pkg.api.old_user", "pkg/api.py", 13)}
    # the same removal with its one caller updated: nothing left to break
    updated = API.replace("    return retired()\n", "    return 0\n").replace(
        "compute, retired", "compute"
    )
    _branch(project, {"pkg/core.py": without, "pkg/api.py": updated}, "cleaned")
    answer = impact(store, "proj", base="main", head="cleaned")
    assert answer.will_break == [] and answer.updated_callers == 1
    assert ("body", "pkg.api.old_user") in _changes(answer)
    # a function moved to another module, its importers following it
    moved_core = CORE.replace("def helper(x):\n    return x + 1\n\n\n", "").replace(
        "def compute", "from pkg.util import helper\n\n\ndef compute"
    )
    _branch(
        project,
        {
            "pkg/util.py": "def helper(x):\n    return x + 1\n",
            "pkg/core.py": moved_core,
            "pkg/deep.py": DEEP.replace(
                "from pkg.core import helper", "from pkg.util import helper"
            ),
        },
        "moved",
    )
    answer = impact(store, "proj", base="main", head="moved")
    [moved] = [c for c in answer.changed if c.change == "moved"]
    assert (moved.qualname, moved.moved_to) == (
        "pkg.util.helper",
        "proj:pkg/util.py#pkg.util.helper",
    )
    assert answer.will_break == []


def test_a_patch_against_the_indexed_commit_and_input_that_cannot_be_analysed(project, tmp_path):
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    _branch(
        project,
        {
            "pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):"),
            "README.md": "# proj\n",
        },
    )
    patch = git(project, "diff", "main", "feature")
    answer = impact(store, "proj", patch=patch)
    assert _changes(answer) == {("signature", "pkg.core.compute")}
    assert "README.md: not an indexed language" in answer.notes
    # a patch with one file that does not apply: said, and the rest answered
    stale = patch.replace("     return helper(a) * b", "     return helper(a) * b * 0")
    other = (
        "diff --git a/pkg/api.py b/pkg/api.py\n--- a/pkg/api.py\n+++ b/pkg/api.py\n"
        "@@ -8,2 +8,2 @@\n def other():\n-    return compute(2, 3)\n+    return compute(2, 4)\n"
    )
    answer = impact(store, "proj", patch=stale + other)
    assert _changes(answer) == {("body", "pkg.api.other")}
    assert any(n.startswith("pkg/core.py: not applied:") for n in answer.notes)
    # empty, binary, garbage, unknown refs, both kinds of input at once
    assert impact(store, "proj", patch="").notes[0] == "the diff is empty: nothing changes"
    binary = (
        "diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..1234567\n"
        "Binary files /dev/null and b/logo.png differ\n"
    )
    answer = impact(store, "proj", patch=binary)
    assert answer.changed == [] and "logo.png: binary" in answer.notes
    with pytest.raises(CartographError, match="no diff found"):
        impact(store, "proj", patch="this is not a diff\n")
    with pytest.raises(NotFound, match="'nope' names no commit in proj"):
        impact(store, "proj", base="nope", head="feature")
    with pytest.raises(CartographError, match="not both"):
        impact(store, "proj", base="main", head="feature", patch=patch)


def test_markdown_for_a_pull_request_comment(project, tmp_path):
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    _branch(project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")})
    answer = impact(store, "proj", base="main", head="feature", format="markdown")
    text = render(answer)
    assert text.startswith("### Cartograph impact: **breaking**")
    assert "#### Will break" in text and "| `pkg.api.entry` | `proj:pkg/api.py:5` |" in text
    assert "python -m pytest tests/test_api.py::test_entry tests/test_api.py::test_other" in text
    assert to_data(answer)["markdown"] == text


# a name a hostile pull request may give a folder (and its author themselves): a mention, an
# issue and a merge-request reference, HTML, a link, bare URLs, a table's pipe, code spans
HOSTILE = (
    "@everyone #12 <img src=x onerror=alert(1)> [here](https://evil.example) www.evil.example"
    " | `x` ``y`` GH-3 !4 ~bug $5 *em* _u_ &amp;"
)


class _Shown(HTMLParser):
    """What a rendered comment shows: its tags, all its text, its text outside code, and the
    number of cells of each table row."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.text: list[str] = []
        self.prose: list[str] = []
        self.rows: list[int] = []
        self.code = 0

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.code += tag in ("code", "pre")
        if tag == "tr":
            self.rows.append(0)
        if tag in ("td", "th"):
            self.rows[-1] += 1

    def handle_endtag(self, tag):
        self.code -= tag in ("code", "pre")

    def handle_data(self, data):
        self.text.append(data.replace("\u2060", ""))  # the word joiner shows as nothing
        if not self.code:
            self.prose.append(data)  # a forge reads it with the joiner


def test_markdown_shows_hostile_paths_and_names_as_they_are_and_does_nothing_else(tmp_path):
    """Rendered as GitHub renders it (cmark-gfm: tables, autolinks, raw HTML let through to
    see it), a report over files, tests and an author named like a hostile pull request shows
    every name exactly — and no link, image, HTML, mention or reference comes of them."""
    import cmarkgfm
    from cartograph.store import open_store

    root = git_init(tmp_path / "proj")
    write_tree(root, {
        "pkg/__init__.py": "",
        "pkg/core.py": "def compute(a, b=2):\n    return a * b\n",
        f"pkg/{HOSTILE}/caller.py": "from pkg.core import compute\n\n\ndef use_it():\n"
                                    "    return compute(1)\n",
        f"tests/{HOSTILE}/test_it.py": "from pkg.core import compute\n\n\ndef test_it():\n"
                                      "    assert compute(1) == 2\n",
        "CODEOWNERS": "* @acme/everyone\n",
    })  # fmt: skip
    git(root, "add", "-A")
    git(root, "-c", f"user.name={HOSTILE}", "-c", "user.email=m@evil.example", "commit", "-q",
        "-m", "start")  # fmt: skip
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="proj", workers=1, history=True)
    _branch(root, {"pkg/core.py": "def compute(a, b):\n    return a * b\n",
                   f"pkg/{HOSTILE}/logo.png": b"\x89PNG\r\n\x00\x00"})  # fmt: skip
    answer = impact(store, "proj", base="main", head="feature", format="markdown")
    assert answer.verdict == "breaking" and len(answer.will_break) == 2
    html = cmarkgfm.github_flavored_markdown_to_html(
        render(answer), options=cmarkgfm.Options.CMARK_OPT_UNSAFE
    )
    shown = _Shown()
    shown.feed(html)
    text, prose = "".join(shown.text), "".join(shown.prose)

    assert shown.tags <= {"h3", "h4", "p", "ul", "li", "strong", "em", "table", "thead", "tbody",
                          "tr", "th", "td", "code", "pre", "details", "summary"}, html  # fmt: skip
    assert set(shown.rows) == {3}  # the header and each caller: three cells, no more
    # every name as it is
    for item in answer.will_break:
        assert f"{item.caller.repo}:{item.caller.path}:{item.lines[0]}" in text
    assert answer.test_commands[0].command in text
    [author] = {name for area in answer.owners for _email, name, _share in area.owners}
    assert author.startswith("@everyone #12") and author in text
    assert any(note.endswith(": binary") and note in text for note in answer.notes)
    assert "@acme/everyone" in text  # CODEOWNERS, in code: shown, pinging nobody
    # and nothing a forge would act on, outside code
    for pattern in (r"@[A-Za-z0-9]", r"#\d", r"![0-9]", r"~[A-Za-z]", r"GH-\d", "://", "www\\."):
        assert not re.search(pattern, prose), (pattern, prose)


def test_recorded_coverage_adds_the_tests_it_saw(project, tmp_path):
    """A test the static graph cannot see (it calls through a computed getattr) is selected from coverage
    recorded with per-test contexts, and the answer says which evidence found which test."""
    from cartograph.impact.evidence import import_coverage
    from cartograph.store import open_store

    write(
        project,
        "tests/test_dynamic.py",
        "import pkg.core\n\n\ndef test_dynamic():\n"
        "    name = ''.join(['re', 'tired'])\n"
        "    assert getattr(pkg.core, name)() == 0\n",
    )
    commit_all(project, "a dynamic test")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    data = tmp_path / "coverage.db"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=pkg",
         "--cov-context=test", "tests"],
        cwd=project, capture_output=True, text=True, check=False,
        env={"COVERAGE_FILE": str(data), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(project)},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    imported = import_coverage(store, "proj", str(data))
    assert imported.matched == imported.tests == 5  # test_unrelated runs no code of pkg
    _branch(project, {"pkg/core.py": CORE.replace("    return 0\n", "    return 0 + 0\n")})
    answer = impact(store, "proj", base="main", head="feature")
    evidence = {t.node: t.evidence for t in answer.tests}
    assert evidence == {
        "tests/test_api.py::test_old": "coverage+static",
        "tests/test_dynamic.py::test_dynamic": "coverage",
    }
    assert "recorded coverage" in answer.evidence["tests"]


def test_command_lines_of_other_runners():
    go = commands("svc", "go", ["./pay TestCharge", "./pay TestRefund", "./api TestRoute"])
    assert go.command == (
        "go test ./api -run '^(TestRoute)$' && go test ./pay -run '^(TestCharge|TestRefund)$'"
    )
    assert commands("web", "vitest", ["src/a.test.ts"]).command == "npx vitest run src/a.test.ts"
    assert commands("j", "maven", ["CartTest#total", "PayTest"]).command == (
        "mvn test -Dtest='CartTest#total,PayTest'"
    )
    assert commands("dj", "django", ["auth_tests.test_views.LoginTest.test_ok"]).command == (
        "python tests/runtests.py auth_tests.test_views.LoginTest.test_ok"
    )


def test_across_repositories_a_removed_provider_function_breaks_its_consumers(tmp_path, stores):
    from test_cross_repo import LIBPAY, SHOP

    store = stores.open()
    libpay = git_init(tmp_path / "libpay")
    write_tree(libpay, LIBPAY)
    commit_all(libpay, "libpay")
    shop = write_tree(
        tmp_path / "shop",
        {**SHOP, "tests/test_cart.py": (
            "from shop.cart import handler\n\n\ndef test_handler():\n    assert handler() == 1\n"
        )},
    )  # fmt: skip
    index_repository(store, libpay, name="libpay", workers=1, history=False)
    index_repository(store, shop, name="shop", workers=1, history=False)
    money = LIBPAY["libpay/money.py"].replace(
        "def round_amount(value):\n    return round(value, 2)\n\n\n", ""
    )
    init = 'from libpay.money import Money\n\n__all__ = ["Money"]\n'
    _branch(libpay, {"libpay/money.py": money, "libpay/__init__.py": init}, "drop-round")
    answer = impact(store, "libpay", base="main", head="drop-round")
    assert ("removed", "libpay.money.round_amount") in _changes(answer)
    broken = {(b.caller.repo, b.caller.qualname, b.crosses) for b in answer.will_break}
    assert ("shop", "shop.cart.checkout", True) in broken
    assert {(t.repo, t.node) for t in answer.tests} == {
        ("shop", "tests/test_cart.py::test_handler")
    }
    assert [(c.repo, c.command) for c in answer.test_commands] == [
        ("shop", "python -m pytest tests/test_cart.py::test_handler")
    ]
    assert "[other repository]" in render(answer)


def test_rest_mcp_and_graphql_answer_the_same_impact(project, tmp_path):
    """The operation on the other surfaces: REST answers the report (and problem documents
    for bad input, never a 500), MCP's `impact` tool the same text, GraphQL its fields."""
    import asyncio

    import httpx
    from api_support import serve_in_thread
    from cartograph.api.app import Settings, create_app
    from cartograph.mcp_server import build_server
    from cartograph.store import open_store
    from mcp import Client

    url = f"sqlite:///{tmp_path / 'g.db'}"
    _indexed(open_store(url), project)
    _branch(project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")})
    settings = Settings(store_url=url, broker_url=None, data_dir=tmp_path / "data")
    with serve_in_thread(create_app(settings)) as base:
        api = f"{base}/api/v1/repos/proj/impact"
        answer = httpx.post(api, json={"base": "main", "head": "feature"}).json()
        assert answer["verdict"] == "breaking"
        assert {b["caller"]["qualname"] for b in answer["will_break"]} == {"pkg.api.entry"}
        for body, status in (
            ({"patch": "not a diff"}, 400),
            ({"base": "nope", "head": "feature"}, 404),
            ({"base": "main"}, 400),
            ({"patch": "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n"}, 400),
            ({"min_confidence": 101, "patch": ""}, 422),
        ):
            response = httpx.post(api, json=body)
            assert response.status_code == status, (body, response.text)
        assert httpx.post(f"{base}/api/v1/repos/nope/impact", json={"patch": ""}).status_code == 404
        lone_surrogate = httpx.post(
            api, content=b'{"patch": "\\ud800"}', headers={"content-type": "application/json"}
        )
        assert lone_surrogate.status_code == 422, lone_surrogate.text
        query = '{ impact(repo: "proj", base: "main", head: "feature") { verdict willBreak { caller { qualname } } testCommands { command } } }'
        data = httpx.post(f"{base}/graphql", json={"query": query}).json()["data"]["impact"]
        assert data["verdict"] == "breaking" and len(data["willBreak"]) == 1
        assert data["testCommands"][0]["command"].startswith("python -m pytest ")

    async def call_tool() -> str:
        async with Client(build_server(url)) as client:
            result = await client.call_tool(
                "impact", {"repo": "proj", "base": "main", "head": "feature"}
            )
            return result.content[0].text

    text = asyncio.run(call_tool())
    assert "WILL BREAK: 1 caller in 1 repository (proj)" in text


def test_a_signature_change_with_its_callers_updated_breaks_nothing(project, tmp_path):
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    core = CORE.replace("def compute(a, b=2):", "def compute(a, b):")
    api = API.replace("compute(1)", "compute(1, 2)")
    _branch(project, {"pkg/core.py": core, "pkg/api.py": api})
    answer = impact(store, "proj", base="main", head="feature")
    # `entry`'s call was rewritten with the change; `other`'s, `compute(2, 3)`, still binds
    assert _breaks(answer) == set()
    assert answer.updated_callers == 1
    assert answer.binding_callers == 1
    assert answer.verdict != "breaking"


def test_what_the_change_does_not_break(project, tmp_path):
    """A method added with a blank line after it changes no class; an override removed while
    a base class defines the method leaves callers the inherited one; a local class replaced
    by a library's (an import) leaves its callers bound."""
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    _indexed(store, project)
    added = CORE.replace(
        "    def run(self):\n        return 1\n",
        "    def run(self):\n        return 1\n\n    def extra(self):\n        return 0\n\n",
    )
    _branch(project, {"pkg/core.py": added}, "added")
    assert _changes(impact(store, "proj", base="main", head="added")) == {
        ("added", "pkg.core.Base.extra")
    }
    no_override = CORE.replace(
        "\n\nclass Child(Base):\n    def run(self):\n        return 2\n",
        "\n\nclass Child(Base):\n    pass\n",
    )
    _branch(project, {"pkg/core.py": no_override}, "inherit")
    answer = impact(store, "proj", base="main", head="inherit")
    [removed] = [c for c in answer.changed if c.change == "removed"]
    assert (removed.qualname, removed.breaking) == ("pkg.core.Child.run", False)
    assert removed.why == "the inherited pkg.core.Base.run remains"
    assert answer.will_break == []
    imported = API.replace(
        "from pkg.core import Base, compute, retired",
        "from os import getcwd as retired\nfrom pkg.core import Base, compute",
    )
    without = CORE.replace("def retired():\n    return 0\n\n\n", "")
    _branch(project, {"pkg/core.py": without, "pkg/api.py": imported}, "library")
    answer = impact(store, "proj", base="main", head="library")
    assert ("removed", "pkg.core.retired") in _changes(answer) and answer.will_break == []


def test_signatures_compared_by_their_parameters():
    from cartograph.impact.symbols import signature_break
    from cartograph.model import SymbolRow

    def symbol(signature: str) -> SymbolRow:
        return SymbolRow(
            "r:a.py#f", "r", "a.py", "f", "f", "function", 1, 2, signature, "", True, None
        )

    cases = {
        ("def f(a, b)", "def f(a, b, c=1)"): "",
        ("def f(a, b)", "def f(a, b, *, c=1, **kw)"): "",
        ("def f(a: int)", "def f(a: str)"): "",
        ("def f(a, b)", "def f(a)"): "parameter 'b' was removed",
        ("def f(a, b)", "def f(b, a)"): "positional parameters were reordered",
        ("def f(a, b=1)", "def f(a, *, b=1)"): "parameter 'b' became keyword-only",
        ("def f(a)", "def f(a, c)"): "new required parameter 'c'",
        ("def f(self, a, *args)", "def f(self, a)"): "no longer takes *args",
        ("function f(a: string, b?: number)", "function f(a: string)"): "parameter 'b' was removed",
        ("function f(a: string)", "function f(a: string, b?: number)"): "",
        # stored cut short (…): only the parameters both show are compared
        ("def f(a: t.BinaryIO, b: int = 1, c…", "def f(a: t.IO[bytes], b: int = 1, c…"): "",
    }
    for (old, new), why in cases.items():
        assert signature_break(symbol(old), symbol(new)) == why, (old, new)


def test_a_write_is_never_followed_by_a_stale_answer(project, stores):
    """The walk's graph is held in memory between calls; an index run that changes an edge
    is seen by the next call."""
    store = stores.open()
    _indexed(store, project)
    _branch(project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")})
    assert len(impact(store, "proj", base="main", head="feature").tests) == 2
    write(
        project,
        "tests/test_more.py",
        "from pkg.api import other\n\n\ndef test_more():\n    other()\n",
    )
    commit_all(project, "another test")
    git(project, "checkout", "-q", "feature")
    git(project, "merge", "-q", "--no-edit", "main")
    git(project, "checkout", "-q", "main")
    _indexed(store, project)
    answer = impact(store, "proj", base="main", head="feature")
    assert "tests/test_more.py::test_more" in _tests(answer)


def _preloaded(preloader, repo: str, times: int) -> bool:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if preloader.loaded.count(repo) >= times:
            return True
        time.sleep(0.05)
    return False


def test_the_server_reads_the_walks_edges_before_the_first_question(project, stores, tmp_path):
    """`cartograph serve` reads each repository's edges at start, and again after an index run
    changes them: the first impact after either finds them read (it does not read them)."""
    store = stores.open()
    _indexed(store, project)
    app = create_app(Settings(store_url=stores.url(), data_dir=tmp_path / "d", broker_url=None))
    with serve_in_thread(app):
        preloader = app.state.preloader
        assert _preloaded(preloader, "proj", 1)
        key = (store.url, "proj")
        read_at_start = graph._CACHE[key]
        _branch(
            project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")}
        )
        assert impact(store, "proj", base="main", head="feature").will_break
        assert graph._CACHE[key] is read_at_start, "the walk read the edges again"

        write(
            project,
            "pkg/extra.py",
            "from pkg.core import compute\n\n\ndef more():\n    return compute(5)\n",
        )
        commit_all(project, "more")
        _indexed(store, project)
        assert _preloaded(preloader, "proj", 2)
        read_after_push = graph._CACHE[key]
        assert read_after_push is not read_at_start
        git(project, "checkout", "-q", "feature")
        git(project, "merge", "-q", "--no-edit", "main")
        git(project, "checkout", "-q", "main")
        answer = impact(store, "proj", base="main", head="feature")
        assert "pkg.extra.more" in {b.caller.qualname for b in answer.will_break}
        assert graph._CACHE[key] is read_after_push
    assert not preloader._thread.is_alive()


def test_a_range_as_base_is_read_as_base_and_head(project, stores, tmp_path):
    """`--base A..B` (git's range) is the change from A to B; with --head as well it is refused
    with the forms to give; a range given as a head names no commit (git's usage text was the
    answer)."""
    store = stores.open()
    _indexed(store, project)
    _branch(project, {"pkg/core.py": CORE.replace("def compute(a, b=2):", "def compute(a, b):")})
    both = to_data(impact(store, "proj", base="main", head="feature"))
    for spelled in ("main..feature", "main...feature"):
        assert to_data(impact(store, "proj", base=spelled)) == both
    with pytest.raises(CartographError, match=r"give --base A --head B, or the range alone"):
        impact(store, "proj", base="main..feature", head="feature")
    with pytest.raises(NotFound, match=r"'main\.\.feature' names no commit in proj"):
        impact(store, "proj", base="main", head="main..feature")

    # the CLI says the same, in one line, on its error stream
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    index = [sys.executable, "-m", "cartograph.cli", "--store", url]
    subprocess.run([*index, "index", str(project), "--name", "proj", "--quiet"], check=True)
    ranged = subprocess.run(
        [*index, "impact", "--repo", "proj", "--base", "main..feature", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ranged.returncode == 0, ranged.stderr
    assert '"pkg.core.compute"' in ranged.stdout
    refused = subprocess.run(
        [*index, "impact", "--repo", "proj", "--base", "main..feature", "--head", "feature"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode != 0
    assert refused.stderr.strip() == (
        "cartograph: --base 'main..feature' is a range, and --head is given too: give --base "
        "A --head B, or the range alone (--base A..B)"
    )


def test_a_function_decorated_through_a_shared_wrapper_reaches_only_its_own_tests(tmp_path, stores):
    """Django's `capfirst` (`@keep_lazy_text` = `keep_lazy(str)(func)`): its calls run a
    wrapper shared by every function so decorated. An edit of one reaches the tests that call
    it by name, not those of another function behind the same wrapper (issue 38: "no test
    reaches the changed code" before)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/functional.py": (
            "from functools import wraps\n\n\ndef keep_lazy(*classes):\n"
            "    def decorator(func):\n        @wraps(func)\n"
            "        def wrapper(*args, **kwargs):\n            return func(*args, **kwargs)\n\n"
            "        return wrapper\n\n    return decorator\n\n\n"
            "def keep_lazy_text(func):\n    return keep_lazy(str)(func)\n"
        ),
        "pkg/text.py": (
            "from pkg.functional import keep_lazy_text\n\n\n@keep_lazy_text\n"
            "def capfirst(x):\n    return x[:1].upper() + x[1:]\n\n\n@keep_lazy_text\n"
            "def slugify(value):\n    return value.lower()\n"
        ),
        "tests/test_text.py": (
            "from pkg.text import capfirst, slugify\n\n\n"
            "def test_capfirst():\n    assert capfirst('a') == 'A'\n\n\n"
            "def test_slugify():\n    assert slugify('A') == 'a'\n"
        ),
    }
    root = git_init(tmp_path / "proj")
    write_tree(root, files)
    commit_all(root, "start")
    store = stores.open()
    _indexed(store, root)
    patch = (
        "--- a/pkg/text.py\n+++ b/pkg/text.py\n@@ -5,2 +5,2 @@\n def capfirst(x):\n"
        "-    return x[:1].upper() + x[1:]\n+    return x[:1].title() + x[1:]\n"
    )
    answer = impact(store, "proj", patch=patch)
    assert _tests(answer) == {"tests/test_text.py::test_capfirst"}
