"""Co-change weights: the rule, once (the store keeps the counts and the weights it is given).

`weight = count / min(changes of a, changes of b)`: 1.0 means "every time the rarer of the two
changed, the other did too". Rounded half up to four decimals."""

from __future__ import annotations

import math
from collections.abc import Iterable

from cartograph.store.interfaces import CoChangeLevel, HistoryStore, PairCount, PairWeight

DECIMALS = 4
# a pair's weight is trusted as if the rarer file had PRIOR_CHANGES more changes without the
# other: 2 of 2 (weight 1.0) scores 0.17, 5 of 5 0.33, 40 of 50 (weight 0.8) 0.67
PRIOR_CHANGES = 10


SCALE = 10**DECIMALS


def cochange_weight(count: int, changes_a: int, changes_b: int) -> float:
    """How strongly two files (or symbols) change together."""
    fewer = changes_a if changes_a < changes_b else changes_b
    return math.floor(count / (fewer if fewer > 1 else 1) * SCALE + 0.5) / SCALE


def cochange_score(count: int, weight: float) -> float:
    """How far to trust that two files (or symbols) change together: their weight shrunk by
    how rarely the pair was seen, so partners seen forty times rank above pairs seen twice."""
    if count <= 0 or weight <= 0:
        return 0.0
    fewer = count / weight  # the changes of the rarer of the two
    return round(count / (fewer + PRIOR_CHANGES), DECIMALS)


def weigh(pairs: Iterable[PairCount]) -> list[PairWeight]:
    """The weight of each pair (tens of thousands after a first mining: kept to one call)."""
    weight = cochange_weight
    return [PairWeight(p.a, p.b, weight(p.count, p.changes_a, p.changes_b), p.ref) for p in pairs]


def refresh_weights(
    history: HistoryStore,
    repo: str,
    files: Iterable[str] | None = None,
    symbols: Iterable[str] | None = None,
) -> None:
    """Recompute the weights of every pair of a repository or — given the files and symbols
    whose change counts moved — of the pairs that hold one of them."""
    everything = files is None and symbols is None
    levels: tuple[tuple[CoChangeLevel, Iterable[str] | None], ...] = (
        ("file", files),
        ("symbol", symbols),
    )
    for level, keys in levels:
        wanted = None if everything else list(keys or ())
        if wanted is not None and not wanted:
            continue
        pairs = history.pair_counts(repo, level, wanted)
        if pairs:
            history.set_pair_weights(repo, level, weigh(pairs))
