"""The resolution core every language family shares: the memo and its dependency tracking,
the edge set, one C3 (resolve/mro.py), the base order on INHERITS edges, the language
registry, and the capture names that let a grammar's own tags.scm seed a language."""

from __future__ import annotations

import ast
from importlib import import_module, resources
from pathlib import Path

import pytest
import tree_sitter
from cartograph import languages
from cartograph.parsing import extract_facts, family
from cartograph.parsing import tags as tags_parser
from cartograph.resolve.core import CONFIDENCE, NAME_CONFIDENCE, EdgeSet, Memo
from cartograph.resolve.ecma import EcmaProgram
from cartograph.resolve.generic import GenericProgram, Rules
from cartograph.resolve.mro import c3, c3_merge, depth_first, linearize
from cartograph.resolve.python import ModuleFacts, Program

RESOLVE = Path(__file__).parent.parent / "platform" / "cartograph" / "resolve"
LANGUAGE_FIXTURES = Path(__file__).parent / "languages"

# ---------------------------------------------------------------- the memo


def test_a_cached_answer_replays_the_dependencies_it_consulted():
    memo = Memo()

    def inner():
        memo.consulted.add("a")
        memo.consulted.add("b")
        return 1

    with memo.recording() as first:
        assert memo.cached(("inner",), inner) == 1
    with memo.recording() as second:  # from the cache: nothing runs, the deps still count
        assert memo.cached(("inner",), lambda: pytest.fail("computed twice")) == 1
        memo.consulted.add("c")
    assert first.deps == {"a", "b"}
    assert second.deps == {"a", "b", "c"}


def test_dependencies_flow_through_nested_computations():
    memo = Memo()

    def outer():
        memo.consulted.add("outer")
        return memo.cached(("inner",), lambda: memo.consulted.add("inner") or 2) + 1

    with memo.recording() as recorded:
        assert memo.cached(("outer",), outer) == 3
    assert recorded.deps == {"outer", "inner"}
    with memo.recording() as again:
        memo.cached(("outer",), outer)
    assert again.deps == {"outer", "inner"}


def test_a_cycle_answers_on_cycle_and_caches_nothing_in_it():
    memo = Memo()
    calls = []

    def a():
        calls.append("a")
        return ("a", memo.cached(("b",), b, on_cycle="cut"))

    def b():
        calls.append("b")
        return ("b", memo.cached(("a",), a, on_cycle="cut"))

    assert memo.cached(("a",), a, "cut") == ("a", ("b", "cut"))
    # neither is cached: asked first, b answers as if the cycle were cut at a
    assert memo.cached(("b",), b, "cut") == ("b", ("a", "cut"))
    assert calls == ["a", "b", "b", "a"]


def test_a_chain_deeper_than_the_limit_is_answered_from_its_far_end():
    memo = Memo()

    def depth(n: int) -> int:
        if n == 0:
            return 0
        return memo.cached(("depth", n - 1), lambda: depth(n - 1)) + 1

    assert memo.cached(("depth", 500), lambda: depth(500)) == 500


# ---------------------------------------------------------------- edges


def test_an_edge_set_keeps_one_edge_per_target_with_the_most_confident_via():
    edges = EdgeSet()
    edges.add("CALLS", "a", "b", 3, "return")
    edges.add("CALLS", "a", "b", 1, "import")
    edges.add("CALLS", "a", "b", 3, None)
    (edge,) = edges.edges()
    assert (edge.count, edge.lines, edge.via, edge.confidence) == (3, [3, 1], "import", 1.0)
    assert CONFIDENCE["inheritance"] == 0.95


def test_the_by_name_edge_set_keeps_every_line_sorted():
    edges = EdgeSet(NAME_CONFIDENCE, sorted_lines=True)
    for line in (9, 2, 5):
        edges.add("CALLS", "a", "b", line, "name")
    edges.add("CALLS", "a", "b", 1, "import")
    (edge,) = edges.edges()
    assert (edge.lines, edge.via, edge.confidence) == ([1, 2, 5, 9], "import", 0.9)


# ---------------------------------------------------------------- one C3


def _graph(bases: dict[str, list[str]]):
    return lambda cls: bases.get(cls, [])


def test_c3_of_a_diamond_visits_the_shared_base_last():
    bases = {"D": ["B", "C"], "B": ["A"], "C": ["A"], "A": []}
    assert linearize("D", _graph(bases)) == ["D", "B", "C", "A"]


def test_c3_matches_pythons_mro_on_a_larger_hierarchy():
    class Root:
        pass

    class A(Root):
        pass

    class B(Root):
        pass

    class C(Root):
        pass

    class D(Root):
        pass

    class E(Root):
        pass

    class K1(A, B, C):
        pass

    class K2(D, B, E):
        pass

    class K3(D, A):
        pass

    class Z(K1, K2, K3):
        pass

    def bases_of(name: str) -> list[str]:
        cls = {c.__name__: c for c in (Root, A, B, C, D, E, K1, K2, K3, Z)}[name]
        return [b.__name__ for b in cls.__bases__ if b is not object]

    assert linearize("Z", bases_of) == [c.__name__ for c in Z.__mro__ if c is not object]


def test_an_inconsistent_hierarchy_falls_back_to_depth_first_left_to_right():
    # class C(I, J) with J(I): Python refuses it; Java allows `implements I, J`
    bases = {"C": ["I", "J"], "J": ["I"], "I": []}
    assert linearize("C", _graph(bases)) == ["C", "I", "J"]
    assert c3_merge([["X", "Y"], ["Y", "X"]]) == ["X", "Y"]


def test_a_cycle_counts_a_base_met_again_as_itself():
    bases = {"A": ["B"], "B": ["A"]}
    assert linearize("A", _graph(bases))[:2] == ["A", "B"]


def test_depth_first_follows_each_base_in_turn():
    # TypeScript's member lookup: the extends chain first, then each interface's
    assert depth_first("C", ["B", "I"], [["B", "K"], ["I", "K"]]) == ["C", "B", "K", "I"]
    assert c3("C", ["B", "I"], [["B", "K"], ["I", "K"]]) == ["C", "B", "I", "K"]


# ---------------------------------------------------------------- the base order on INHERITS


def _inherits(edges) -> dict[tuple[str, str], int]:
    return {
        (e.src.rpartition("#")[2], e.dst.rpartition("#")[2]): e.order
        for e in edges
        if e.type == "INHERITS"
    }


def test_python_inherits_edges_carry_the_declared_base_order():
    source = b"""
import external

class A: pass
class B: pass
class C(external.Base, A, B): pass
class D(B, A, metaclass=type): pass
"""
    facts = extract_facts("python", source)
    mod = ModuleFacts("m", "m.py", False, facts, "r", False)
    resolution = Program("r", {"m": mod}).resolve_file(mod)
    assert _inherits(resolution.edges) == {
        ("m.C", "m.A"): 2,
        ("m.C", "m.B"): 3,
        ("m.D", "m.B"): 1,
        ("m.D", "m.A"): 2,
    }
    assert all(e.order == 0 for e in resolution.edges if e.type != "INHERITS")


def test_typescript_inherits_edges_carry_the_declared_base_order():
    source = b"""
interface I { m(): void }
interface J { n(): void }
class Base {}
class C extends Base implements J, I { m() {} n() {} }
class D implements I, J { m() {} n() {} }
interface K extends J, I {}
"""
    facts = {"a.ts": extract_facts("typescript", source)}
    program = EcmaProgram("r", facts, facts.get, lambda path: None, set(facts))
    assert _inherits(program.resolve_file("a.ts").edges) == {
        ("C", "Base"): 1,
        ("C", "J"): 2,
        ("C", "I"): 3,
        ("D", "I"): 1,
        ("D", "J"): 2,
        ("K", "J"): 1,
        ("K", "I"): 2,
    }


def test_by_name_inherits_edges_carry_the_declared_base_order():
    source = b"""
package a;
interface I {}
interface J {}
class Base {}
class C extends Base implements J, I {}
"""
    facts = {"a/C.java": extract_facts("java", source)}
    program = GenericProgram("r", facts, facts.get, lambda path: None)
    assert _inherits(program.resolve_file("a/C.java").edges) == {
        ("a.C", "a.Base"): 1,
        ("a.C", "a.J"): 2,
        ("a.C", "a.I"): 3,
    }


# ---------------------------------------------------------------- the language registry


def test_every_registered_language_has_its_grammar_queries_and_rules():
    for language in languages.LANGUAGES:
        assert language.family in languages.FAMILIES
        assert family(language.name) == language.family
        if language.family in ("styles", "openapi"):
            # a lexer (parsing/styles.py), a YAML composer (parsing/openapi.py): no grammar
            assert language.grammar == ("", "") and not language.queries
        else:
            query = tree_sitter.Query(
                languages.grammar(language.name), languages.query_text(language.name)
            )
            assert query.pattern_count > 0
        for extension in language.extensions:
            assert languages.language_of(f"src/x{extension}") == language.name
        if language.family == "generic":
            rules = import_module(languages.rules_module(language.name)).RULES[language.name]
            assert issubclass(rules, Rules)
        else:
            assert not language.rules


def test_the_by_name_engine_never_branches_on_a_language():
    """No comparison of a language (or its family) with a name in the engine: what differs
    between languages is the rules modules'."""
    tree = ast.parse((RESOLVE / "generic.py").read_text())
    names = {"language", "dialect", "family"}

    def named(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id in names) or (
            isinstance(node, ast.Attribute) and node.attr in names
        )

    branches = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare) and any(named(n) for n in [node.left, *node.comparators])
    ]
    assert not branches


def _seed_query(language: str) -> str | None:
    module = languages.BY_NAME[language].grammar[0]
    try:
        seed = resources.files(module).joinpath("queries/tags.scm")
        return seed.read_text() if seed.is_file() else None
    except (ModuleNotFoundError, FileNotFoundError):
        return None


SEEDED = [name for name in languages.names("generic") if _seed_query(name) is not None]


def test_the_grammar_wheels_without_a_tags_query_are_the_known_ones():
    # the pinned kotlin and c-sharp wheels ship no queries/tags.scm: nothing to seed from
    assert set(languages.names("generic")) - set(SEEDED) == {"kotlin", "csharp"}


@pytest.mark.parametrize("language", SEEDED)
def test_a_grammars_own_tags_query_seeds_a_language(language, monkeypatch):
    """The captures use tree-sitter's standard names: the tags.scm a grammar wheel ships
    already finds definitions (what it has and the tier does not know is ignored)."""
    seed = _seed_query(language)
    assert seed is not None
    query = tree_sitter.Query(languages.grammar(language), seed)
    monkeypatch.setattr(tags_parser, "_query", lambda name: query)
    sources = [
        path
        for path in sorted(LANGUAGE_FIXTURES.rglob("*"))
        if path.is_file() and languages.language_of(path.name) == language
    ]
    assert sources
    found = [tags_parser.extract(language, path.read_bytes()) for path in sources]
    assert any(facts["defs"] for facts in found)
