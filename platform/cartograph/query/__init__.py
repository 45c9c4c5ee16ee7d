"""Questions agents ask, as library functions; every surface renders their answers with
cartograph.render."""

from cartograph.query.common import (
    AmbiguousSymbol,
    Envelope,
    QueryError,
    RepoNotFound,
    SymbolNotFound,
    find_symbol,
)
from cartograph.query.deadcode import DeadCodeReport, dead_code
from cartograph.query.graph import (
    CallPath,
    Context,
    NeighborPage,
    Trace,
    callees,
    callers,
    context,
    neighbors,
    path,
    trace,
)
from cartograph.query.overview import Overview, Stats, overview, stats
from cartograph.query.search import SearchResult, search
from cartograph.query.tokens import TokenReport, design_tokens

__all__ = [
    "AmbiguousSymbol",
    "CallPath",
    "Context",
    "DeadCodeReport",
    "Envelope",
    "NeighborPage",
    "Overview",
    "QueryError",
    "RepoNotFound",
    "SearchResult",
    "Stats",
    "SymbolNotFound",
    "TokenReport",
    "Trace",
    "callees",
    "callers",
    "context",
    "dead_code",
    "design_tokens",
    "find_symbol",
    "neighbors",
    "overview",
    "path",
    "search",
    "stats",
    "trace",
]
