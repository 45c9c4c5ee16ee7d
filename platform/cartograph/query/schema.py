"""The graph's schema as agents read it (`get_schema`), generated from model.py: every symbol
kind, edge type and `via` the model names is in it (tests/test_schema_text.py keeps it, the CLI's
help and docs/graph-schema.md in step)."""

from __future__ import annotations

from dataclasses import dataclass

from cartograph.model import EDGE_TYPES, STRUCTURAL_EDGES, SYMBOL_KINDS, UNKNOWN_REASONS, VIAS

EDGE_SHAPES = {
    "CONTAINS": "(Repo)-[:CONTAINS]->(File)",
    "DEFINES": "(File)-[:DEFINES]->(Symbol)",
    "HAS_MEMBER": "(Symbol)-[:HAS_MEMBER]->(Symbol): module → definitions, class → methods",
    "PROVIDES": "(Repo)-[:PROVIDES]->(Package)",
    "CALLS": "(Symbol)-[:CALLS {lines, count, via, confidence}]->(Symbol)",
    "REFERENCES": "(Symbol)-[:REFERENCES {lines, count, via, confidence}]->(Symbol): used, not\n"
    "  called (callbacks, decorators, type annotations, __all__ exports)",
    "INHERITS": "(Symbol)-[:INHERITS]->(Symbol)",
    "IMPORTS": "(File)-[:IMPORTS {names}]->(File | Package)",
    "ROUTES_TO": "(Symbol {kind: 'route'})-[:ROUTES_TO]->(Symbol): an HTTP route to its handler;\n"
    "  a route is named `METHOD /path/{param}` with its routers' prefixes applied",
    "HTTP_CALLS": "(Symbol)-[:HTTP_CALLS {lines, count, via, confidence}]->(Symbol {kind:\n"
    "  'route'}): a request matched to a route, in this repository or another; via http (the\n"
    "  configured service), http_base (its service not known), http_prefix (a prefix)",
}

NODES = """\
Nodes
- Repo {name, root, indexed_sha, indexed_at}
- File {id=repo:path, repo, path, language, sha256, lines, is_test}
- Symbol {id=repo:path#qualname, repo, path, name, qualname, kind, start_line, end_line,
  signature, doc, exported, decorators}
  kind: {kinds}
  qualname follows Python (pkg.mod.Class.method; pkg.mod.outer.inner; module code = pkg.mod)
- Package {name, ecosystem} — what a repo provides and what files import from outside"""

HISTORY_AND_TEAM = """\
- (Person {email, name, bot})-[:AUTHORED]->(Commit {sha, repo, message, at})
- (Commit)-[:TOUCHED {added, deleted}]->(File); (Commit)-[:TOUCHED {lines}]->(Symbol)
- (File)-[:CO_CHANGES {count, weight}]->(File), and the same between symbols
- (AgentSession {id, agent, task})-[:READ|EDITED]->(File); Claim {repo, path, session, intent,
  since, expires_at}; (Lesson {text, about})-[:ABOUT]->(File | Symbol)"""

UNRESOLVED = """\
Calls the resolver cannot prove (dynamic dispatch, getattr, untyped values, external
libraries) are not edges: they are listed as unresolved calls of their symbol, each with why
it is unknown: {reasons}."""


@dataclass(slots=True)
class GraphSchema:
    symbol_kinds: list[str]
    edge_types: list[str]  # what the resolver writes
    structural_edges: list[str]  # implied by the nodes' properties
    vias: list[str]  # how a CALLS or REFERENCES target was found
    text: str


def graph_schema(store: object = None) -> GraphSchema:
    """The node and edge types, their properties and what `via` means."""
    edges = [
        EDGE_SHAPES.get(edge, f"(…)-[:{edge}]->(…)") for edge in (*STRUCTURAL_EDGES, *EDGE_TYPES)
    ]
    text = "\n".join(
        [
            NODES.replace("{kinds}", " | ".join(SYMBOL_KINDS)),
            "Edges",
            *(f"- {edge}" for edge in edges),
            HISTORY_AND_TEAM,
            "via — how a CALLS or REFERENCES target was found (docs/resolution.md):",
            "  " + " | ".join(VIAS),
            UNRESOLVED.replace("{reasons}", " | ".join(UNKNOWN_REASONS)),
        ]
    )
    return GraphSchema(
        list(SYMBOL_KINDS), list(EDGE_TYPES), list(STRUCTURAL_EDGES), list(VIAS), text
    )
