"""The schema agents read (`get_schema`), the CLI's help and docs/graph-schema.md name every
symbol kind, edge type and `via` of model.py: the first two are generated from it, the page is
kept in step by hand and by this test."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from cartograph.cli import build_parser
from cartograph.model import EDGE_TYPES, STRUCTURAL_EDGES, SYMBOL_KINDS, VIAS
from cartograph.query.schema import graph_schema

DOC = Path(__file__).resolve().parent.parent / "docs" / "graph-schema.md"
VOCABULARY = [
    *(("kind", k) for k in SYMBOL_KINDS),
    *(("edge type", e) for e in (*EDGE_TYPES, *STRUCTURAL_EDGES)),
    *(("via", v) for v in VIAS),
]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]+", text))


@pytest.mark.parametrize("what, name", VOCABULARY)
def test_the_schema_text_names_it(what, name):
    assert name in _words(graph_schema().text), f"get_schema does not name the {what} {name}"


@pytest.mark.parametrize("what, name", VOCABULARY)
def test_the_graph_schema_page_names_it(what, name):
    assert f"`{name}`" in DOC.read_text(), f"docs/graph-schema.md does not name the {what} {name}"


def test_the_schema_answer_lists_the_model():
    schema = graph_schema()
    assert schema.symbol_kinds == list(SYMBOL_KINDS)
    assert schema.edge_types == list(EDGE_TYPES)
    assert schema.structural_edges == list(STRUCTURAL_EDGES)
    assert schema.vias == list(VIAS)


def test_the_cli_help_names_every_kind():
    parser = build_parser()
    search = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        "search"
    ]
    kind = next(a for a in search._actions if a.dest == "kind")
    assert set(SYMBOL_KINDS) <= _words(kind.help)
