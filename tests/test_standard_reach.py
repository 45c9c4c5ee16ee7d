"""What an inherited standard-library method may look up on its instance, read from the
source of the Python that indexes (`cartograph.resolve.standard.standard_method_reach`): the
names the `callback` rule calls back. The fixtures `tests/resolution_values/standard_bases`
and `standard_reach` pin the edges; these pin the reach itself on the common cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cartograph.resolve.standard import standard_method_reach

TEST_CASE = (("unittest", "unittest.TestCase"),)


@pytest.mark.parametrize(
    "method",
    ["assertEqual", "assertTrue", "assertIn", "assertIsNone", "assertRaises", "assertLogs"],
)
def test_an_assertion_never_reaches_what_the_runner_calls(method):
    reach = standard_method_reach(TEST_CASE, method)
    assert reach is not None
    assert not reach.looked_up & {
        "setUpClass",
        "tearDownClass",
        "setUp",
        "tearDown",
        "run",
        "debug",
    }


def test_assert_equal_reaches_the_equality_functions_it_looks_up_by_name():
    """`_getAssertEqualityFunc` runs `getattr(self, asserter)` with a name from
    `self._type_equality_funcs`, filled by `addTypeEqualityFunc(dict, 'assertDictEqual')` and
    the like: those functions and what they call (`fail`) are reached."""
    reach = standard_method_reach(TEST_CASE, "assertEqual")
    assert reach is not None
    assert {"_getAssertEqualityFunc", "assertDictEqual", "assertMultiLineEqual"} <= reach.looked_up
    assert {"fail", "_formatMessage"} <= reach.looked_up


def test_template_methods_are_reached():
    handler = standard_method_reach((("logging", "logging.Handler"),), "handle")
    assert handler is not None and {"filter", "emit"} <= handler.looked_up
    assert "close" not in handler.looked_up
    request = standard_method_reach(
        (("socketserver", "socketserver.BaseRequestHandler"),), "__init__"
    )
    assert request is not None and {"setup", "handle", "finish"} <= request.looked_up
    user_dict = standard_method_reach((("collections", "collections.UserDict"),), "get")
    assert user_dict is not None and "__missing__" in user_dict.looked_up
    assert "keys" not in user_dict.looked_up


def test_an_object_keeping_the_instance_is_read_too():
    """`assertRaises` hands the test case to `_AssertRaisesContext(expected, self)`, which
    keeps it in `self.test_case` and looks up `_formatMessage` and `failureException` there
    (`_raiseFailure`); the context goes back to the caller (`return context.handle(...)`)."""
    reach = standard_method_reach(TEST_CASE, "assertRaises")
    assert reach is not None and {"_formatMessage", "failureException"} <= reach.looked_up


def test_a_name_only_set_on_the_instance_is_not_looked_up():
    """`JSONEncoder.__init__` runs `self.default = default`: a property `default` would run,
    a method `default` is hidden, not called."""
    reach = standard_method_reach((("json", "json.JSONEncoder"),), "__init__")
    assert reach is not None
    assert "default" in reach.stored and "default" not in reach.looked_up


@pytest.mark.parametrize(
    ("base", "method"),
    [
        # the test case handed to the test result: `result.startTest(self)`
        (TEST_CASE[0], "run"),
        # a name the caller passes: `getattr(self, methodName)`
        (TEST_CASE[0], "__init__"),
        # a decorated method: `@contextlib.contextmanager def subTest`
        (TEST_CASE[0], "subTest"),
        # the thread stored where any code finds it: `_limbo[self] = self`
        (("threading", "threading.Thread"), "start"),
        # a composed name: `getattr(self, 'visit_' + node.__class__.__name__)`
        (("ast", "ast.NodeVisitor"), "visit"),
        # not a method of the base
        (TEST_CASE[0], "no_such_method"),
    ],
)
def test_what_cannot_be_read_to_the_end_is_unknown(base, method):
    assert standard_method_reach((base,), method) is None


def test_a_base_outside_the_standard_library_is_unknown():
    assert standard_method_reach((("django", "django.test.TestCase"),), "assertEqual") is None


ASK = textwrap.dedent(
    """
    import json, sys
    from cartograph.resolve import standard
    reach = standard.standard_method_reach((("socketserver", "socketserver.BaseRequestHandler"),), "__init__")
    members = standard.standard_class_members("xml", "xml.sax.handler.ContentHandler")
    standard.close()
    print(json.dumps({
        "reach": sorted(reach.looked_up) if reach else None,
        "members": "startElement" in (members or ()),
        "imported": [m for m in ("socketserver", "xml.sax.handler") if m in sys.modules],
        "readers": standard.LIBRARY.started,
    }))
    """
)


def _ask_in_a_fresh_process(data: Path) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", ASK],
        capture_output=True, text=True, check=True, timeout=120,
        env={**os.environ, "CARTOGRAPH_DATA": str(data)},
    )  # fmt: skip
    return json.loads(run.stdout)


def test_the_indexer_never_imports_the_standard_modules_it_asks_about(tmp_path: Path):
    """The answers come from a process of their own (the first time) and then from the cache
    file: the indexing process never imports `socketserver` or `xml.sax.handler`, and a second
    indexing process starts no reader at all."""
    first = _ask_in_a_fresh_process(tmp_path)
    assert {"setup", "handle", "finish"} <= set(first["reach"]) and first["members"]
    assert first["imported"] == [] and first["readers"] == 1
    assert list((tmp_path / "cache" / "stdlib").glob("*.json"))  # saved for the next one
    second = _ask_in_a_fresh_process(tmp_path)
    assert second == {**first, "readers": 0}
