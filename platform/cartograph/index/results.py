"""What an index run answers, and the error it raises."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartograph.errors import CartographError
from cartograph.history.mine import MineResult


class IndexingError(CartographError):
    """An index run could not be done (bad path, lock held too long, store failure)."""


@dataclass(slots=True)
class IndexResult:
    repo: str
    root: str
    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    reresolved: int = 0
    reresolved_unchanged: int = 0  # of those, resolved the same as before (nothing written)
    skipped: int = 0
    symbols_written: int = 0
    edges_written: int = 0
    derived_edges: int | None = None  # the flow stage's edges in the repository (None: not run)
    routes: int | None = (
        None  # HTTP routes in the repository (None: the services stage did not run)
    )
    http_calls: int | None = None  # of its requests, those matched to a route
    routes_changed: bool = False  # other repositories' requests are matched again
    syntax_errors: list[str] = field(default_factory=list)
    indexed_sha: str = ""
    dirty: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    history: MineResult | None = None  # the commits mined after indexing (git work trees)
    # other repositories whose files bound into this one's changed code, re-resolved after it
    # (files re-resolved, by repository)
    consumers: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())
