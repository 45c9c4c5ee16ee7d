"""Dead code is "dead" only when nothing could reach it: what the standard library, a computed
getattr, a plugin manager or a string may call is "unknown" (or "live") with the reason, and a
helper nothing names stays "dead"."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.query import dead_code
from cartograph.query.deadcode import VERDICTS
from cartograph.store import open_store
from indexing_support import commit_all, git_init, write_tree

FILES = {
    "tool/__init__.py": "",
    "tool/streams.py": (
        "import io\n\n\n"
        "class _Fixup:\n    def __init__(self, raw):\n        self.raw = raw\n\n"
        "    def readable(self):\n        return True\n\n\n"
        "def text_stream(raw):\n    return io.TextIOWrapper(_Fixup(raw))\n"
    ),
    "tool/checks.py": (
        "class Checkers:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def run(self, **kw):\n"
        "        return all(getattr(self, key)(value) for key, value in kw.items())\n\n"
        "    def dotfile(self, value):\n        return self.name.startswith('.') == value\n\n\n"
        "def dispatch(handler, event):\n    return getattr(handler, 'on_' + event)()\n\n\n"
        "class Buttons:\n    def on_click(self):\n        return 'clicked'\n"
    ),
    "tool/hookspec.py": (
        "import pluggy\n\nhookspec = pluggy.HookspecMarker('tool')\n\n\n"
        "@hookspec\ndef tool_report(lines):\n    '''Add lines to the report.'''\n"
    ),
    "tool/terminal.py": "def tool_report(lines):\n    lines.append('terminal')\n",
    "tool/rewrite.py": (
        "def helper_name():\n    return '_format_message'\n\n\n"
        "def _format_message(text):\n    return text.upper()\n\n\n"
        "def unused_rounding(cents):\n    return round(cents, -1)\n"
    ),
    "tests/test_tool.py": (
        "from tool.checks import Buttons, Checkers, dispatch\nfrom tool.rewrite import helper_name\n"
        "from tool.streams import text_stream\n\n\n"
        "def test_all():\n    assert Checkers('.x').run(dotfile=True)\n    dispatch(Buttons(), 'click')\n"
        "    text_stream(None)\n    helper_name()\n"
    ),
}


@pytest.fixture
def verdicts(tmp_path):
    root = git_init(tmp_path / "tool")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="tool", workers=1, history=False)
    report = dead_code(store, "tool", verdicts=list(VERDICTS), limit=100)
    return {item.symbol.qualname: (item.verdict, item.reason) for item in report.items}


@pytest.mark.parametrize(
    ("qualname", "verdict", "said"),
    [
        ("tool.streams._Fixup.readable", "unknown", "standard library calls it"),
        ("tool.checks.Checkers.dotfile", "unknown", "getattr(self"),
        ("tool.checks.Buttons.on_click", "unknown", "'on_'"),
        ("tool.terminal.tool_report", "live", "plugin hook tool_report"),
        ("tool.rewrite._format_message", "unknown", "written elsewhere"),
        ("tool.rewrite.unused_rounding", "dead", "nothing calls"),
    ],
)
def test_what_could_be_reached_is_never_called_dead(verdicts, qualname, verdict, said):
    found, reason = verdicts[qualname]
    assert (found, said in reason) == (verdict, True), reason


def test_a_file_gone_from_the_work_tree_is_read_as_it_was_indexed(tmp_path):
    """The names a file writes count though the file was deleted from the work tree since the
    index: it is read from history at the indexed commit (it read as empty before, and the
    function it names came out "dead")."""
    root = git_init(tmp_path / "tool")
    write_tree(root, FILES)
    commit_all(root, "start")
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, name="tool", workers=1, history=False)
    (root / "tool" / "rewrite.py").unlink()
    report = dead_code(store, "tool", verdicts=list(VERDICTS), limit=100)
    found = {item.symbol.qualname: (item.verdict, item.reason) for item in report.items}
    verdict, reason = found["tool.rewrite._format_message"]
    assert (verdict, "written elsewhere" in reason) == ("unknown", True), reason
