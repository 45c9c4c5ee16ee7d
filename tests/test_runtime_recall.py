"""The runtime-recall benchmark's own parts (benchmark/runtime_recall.py, benchmark/tracing.py):
mapping traced code to the graph's symbols, the directions, and one small tree traced for real,
indexed for real and compared."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from benchmark.runtime_recall import (
    CLASS_BODY,
    FOLDED,
    MODULE_BODY,
    Symbol,
    Symbols,
    analyse,
    direction,
    is_suite_entry,
    map_pairs,
    node_symbol,
)
from benchmark.tracing import trace_run

R = "r:"


def _symbols() -> Symbols:
    rows = [
        Symbol(R + "pkg/a.py#pkg.a", "pkg/a.py", "a", "", "module", 1),
        Symbol(R + "pkg/a.py#pkg.a.outer", "pkg/a.py", "outer", "outer", "function", 3),
        Symbol(R + "pkg/a.py#pkg.a.outer.inner", "pkg/a.py", "inner", "outer.inner", "function", 4),
        Symbol(R + "pkg/a.py#pkg.a.C", "pkg/a.py", "C", "C", "class", 10),
        Symbol(R + "pkg/a.py#pkg.a.C.x", "pkg/a.py", "x", "C.x", "method", 12, ("property",)),
        Symbol(R + "pkg/a.py#pkg.a.made", "pkg/a.py", "made", "made", "function", 21, ("deco",)),
        Symbol(R + "tests/test_a.py#tests.test_a", "tests/test_a.py", "test_a", "", "module", 1),
        Symbol(R + "tests/test_a.py#tests.test_a.test_one", "tests/test_a.py", "test_one",
               "test_one", "function", 5),
    ]  # fmt: skip
    return Symbols(rows)


def test_traced_code_maps_to_the_symbol_the_graph_names_it_by():
    symbols = _symbols()
    assert (
        node_symbol(["pkg/a.py", "<module>", 1, "module", False], symbols)[0]
        == R + "pkg/a.py#pkg.a"
    )
    # nested defs lose `<locals>`; a lambda or comprehension is its enclosing symbol
    inner = ["pkg/a.py", "outer.<locals>.inner", 4, "function", False]
    assert node_symbol(inner, symbols) == (R + "pkg/a.py#pkg.a.outer.inner", "qualname")
    lam = ["pkg/a.py", "outer.<locals>.inner.<locals>.<lambda>", 5, "anonymous", False]
    assert node_symbol(lam, symbols) == (R + "pkg/a.py#pkg.a.outer.inner", "enclosing")
    assert node_symbol(["pkg/a.py", "<genexpr>", 30, "anonymous", False], symbols)[0] == (
        R + "pkg/a.py#pkg.a"
    )
    # a class body as a caller is the class
    assert node_symbol(["pkg/a.py", "C", 10, "class", False], symbols)[0] == R + "pkg/a.py#pkg.a.C"
    # a name the graph does not hold: the same name whose def is just below the code's first
    # line (a decorated def's code starts at its decorator), never one far away
    assert node_symbol(["pkg/a.py", "other.made", 20, "function", False], symbols) == (
        R + "pkg/a.py#pkg.a.made",
        "line",
    )
    assert node_symbol(["pkg/a.py", "other.made", 60, "function", False], symbols)[0] is None
    assert node_symbol(["tests/page.html", "root", 1, "function", False], symbols)[1].startswith(
        "code compiled from a file that is not Python"
    )
    assert node_symbol(["docs/conf.py", "f", 1, "function", False], symbols) == (
        None,
        "a file the graph does not hold",
    )


def test_runtime_pairs_become_symbol_pairs_with_every_left_out_pair_counted():
    symbols = _symbols()
    nodes = [
        ["tests/test_a.py", "test_one", 5, "function", False],  # 0
        ["pkg/a.py", "<module>", 1, "module", False],  # 1
        ["pkg/a.py", "C", 10, "class", False],  # 2
        ["pkg/a.py", "outer", 3, "function", False],  # 3
        ["pkg/a.py", "outer.<locals>.<lambda>", 7, "anonymous", False],  # 4
        ["pkg/a.py", "outer.<locals>.inner", 4, "function", False],  # 5
        ["pkg/a.py", "C.x", 12, "function", False],  # 6: the getter
        ["pkg/a.py", "C.x", 16, "function", False],  # 7: the setter
        ["docs/conf.py", "setup", 1, "function", False],  # 8
    ]
    site = [[1, 1, 0, 4, "", ""]]
    pairs = [
        [0, 1, 0, 1, site],  # an import: not compared
        [1, 2, 1, 0, site],  # a class body run at its definition: not compared
        [0, 3, 1, 0, site],
        [0, 4, 1, 0, site],  # the test calls outer's lambda: it calls what the lambda calls
        [4, 5, 1, 0, site],  # the lambda calls inner: outer → inner
        [3, 3, 1, 0, site],  # recursion is a pair
        [6, 7, 1, 0, site],  # a property's getter calling its setter: one symbol
        [0, 8, 1, 0, site],  # a file the graph does not hold
    ]
    mapped = map_pairs(nodes, pairs, symbols, "pkg")
    outer, inner = R + "pkg/a.py#pkg.a.outer", R + "pkg/a.py#pkg.a.outer.inner"
    test = R + "tests/test_a.py#tests.test_a.test_one"
    assert set(mapped.pairs) == {(test, outer), (test, inner), (outer, inner), (outer, outer)}
    assert mapped.pairs[(test, inner)].contributions[0].through == 4
    assert mapped.pairs[(test, outer)].direction == "tests→library"
    assert dict(mapped.not_compared) == {
        (MODULE_BODY, "tests→library"): 1,
        (CLASS_BODY, "library→library"): 1,
        (FOLDED, "library→library"): 1,
    }
    assert dict(mapped.unmapped) == {("callee: a file the graph does not hold", "tests→tests"): 1}


def test_directions_and_the_runners_entries():
    assert direction("src/click/core.py", "tests/test_basic.py", "src/click") == "library→tests"
    assert direction("src/clicky.py", "src/click/x.py", "src/click") == "tests→library"
    test = Symbol("i", "testing/test_x.py", "test_y", "TestX.test_y", "method", 3)
    inherited = Symbol("b", "testing/test_x.py", "test_z", "CommonTests.test_z", "method", 5)
    helper = Symbol("h", "testing/util.py", "check", "Helper.check", "method", 9)
    nested = Symbol("n", "testing/test_x.py", "test_n", "test_y.test_n", "function", 9)
    fixture = Symbol("f", "testing/util.py", "tmp", "tmp", "function", 1, ("pytest.fixture",))
    hook = Symbol("k", "testing/conftest.py", "pytest_configure", "pytest_configure", "function", 1)
    entries = [test, inherited, fixture, hook, helper, nested]
    symbols = Symbols(
        [
            *entries,
            Symbol("c1", "testing/test_x.py", "TestX", "TestX", "class", 1),
            Symbol("c2", "testing/test_x.py", "CommonTests", "CommonTests", "class", 4),
            Symbol("c3", "testing/test_x.py", "test_y", "test_y", "function", 8),
        ]
    )
    assert [is_suite_entry(s, symbols) for s in entries] == [True, True, True, True, False, False]


def test_a_traced_run_compared_with_the_graph(tmp_path: Path):
    """A real trace of a small tree, indexed for real: held calls, and misses of the kinds the
    interpreter's dynamic calls make (`__getattr__`); getattr dispatch by a literal prefix held."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": """
            def add(a, b):
                return a + b


            class Visitor:
                def visit(self, name):
                    return getattr(self, "visit_" + name)()

                def visit_leaf(self):
                    return add(1, 2)


            def run(callback):
                return callback(3)


            class Proxy:
                def __getattr__(self, name):
                    return add
        """,
        "tests/__init__.py": "",
        "tests/run.py": """
            from pkg.core import Proxy, Visitor, add, run


            def triple(x):
                return add(x, add(x, x))


            def main():
                add(1, 1)
                Visitor().visit("leaf")
                run(triple)
                return Proxy().anything


            main()
        """,
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text).lstrip())
    trace = trace_run(Path(sys.executable), tmp_path, ["tests.run"], {"PATH": "/usr/bin:/bin"}, 120)
    assert trace.status == 0
    report = analyse(tmp_path, "tiny", "pkg", trace)
    d = report["directions"]
    # held: main → add, main → Visitor.visit, triple → add, main → run, the module → main,
    # visit_leaf → add, run → triple (the flow stage: a callback passed), visit → visit_leaf
    # (`getattr(self, "visit_" + name)()`, a literal prefix); missed: main → Proxy.__getattr__
    # (`Proxy().anything`)
    assert (d["tests→library"]["pairs"], d["tests→library"]["held"]) == (5, 4)
    assert (d["library→library"]["pairs"], d["library→library"]["held"]) == (2, 2)
    assert (d["library→tests"]["pairs"], d["library→tests"]["held"]) == (1, 1)
    assert (d["tests→tests"]["pairs"], d["tests→tests"]["held"]) == (1, 1)
    assert d["overall"] == {
        "pairs": 9, "held": 8, "recall": 0.8889, "recall_with_references": 0.8889
    }  # fmt: skip
    kinds = {kind: entry["details"] for kind, entry in report["misses"].items()}
    assert kinds == {
        "implicit dunder: __getattr__ and attribute hooks": {"__getattr__": 1},
    }
    assert report["not_compared"][MODULE_BODY] >= 1  # the runner's imports
    assert report["unmapped_total"] == 0
