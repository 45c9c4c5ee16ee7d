"""Hot spots and co-change clusters of a repository (the dashboard's Repository page).

A hot spot is a file that both changes often and is depended on: its churn (the commits that
touched it in the mined history) times its fan-in (the calls into its symbols from
other symbols), with the people who know it best. A co-change cluster is a group of files joined by
pairs that changed together at least `min_count` times and in at least MIN_CLUSTER_SHARE of the
commits touching either (the connected groups of that pair graph, largest first): what tends to
move as one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, QueryError, check_repo, clamp
from cartograph.query.history import HALF_LIFE_DAYS, Owner, rank_owners
from cartograph.store.interfaces import Store

MIN_CLUSTER_COUNT = 3  # commits a pair shares to join a cluster
# and the share of the commits touching either file that touch both (Jaccard): files that
# merely change often (a registry, a schema) would otherwise join everything into one cluster
MIN_CLUSTER_SHARE = 0.3
MAX_CLUSTER_FILES = 25  # of one cluster listed (its size says how many there are)
OWNERS_PER_SPOT = 3


@dataclass(slots=True)
class Hotspot:
    path: str
    churn: int  # commits that touched the file
    fan_in: int  # calls into its symbols (from other symbols, in any file)
    score: int  # churn times fan_in
    owners: list[Owner]  # the top OWNERS_PER_SPOT, recent work weighing more


@dataclass(slots=True)
class CoChangeCluster:
    files: list[str]  # the most connected first, at most MAX_CLUSTER_FILES
    size: int
    commits: int  # the largest count of commits a pair of it shares


@dataclass(slots=True)
class Hotspots:
    repo: str
    spots: list[Hotspot]
    clusters: list[CoChangeCluster]
    mined: bool  # the repository's history is in the graph (else churn is unknown)
    envelope: Envelope = field(default_factory=Envelope)


@cacheable
def hotspots(
    store: Store, repo: str, limit: int | None = 20, min_count: int = MIN_CLUSTER_COUNT
) -> Hotspots:
    """The files that change most and are called most, and the groups that change together."""
    record = check_repo(store, repo)
    if record is None:
        raise QueryError("hot spots need a repository name")
    limit = clamp(limit, 20)
    touches = store.history.touches_under(repo, "")
    by_file: dict[str, list] = defaultdict(list)
    for touch in touches:
        by_file[touch.target].append(touch)
    fan_in: dict[str, int] = defaultdict(int)
    for symbol, calls in store.graph.most_called(repo, 1_000_000):
        fan_in[symbol.path] += calls
    spots = [
        Hotspot(path, len({t.sha for t in found}), fan_in[path], 0, [])
        for path, found in by_file.items()
        if fan_in.get(path)
    ]
    for spot in spots:
        spot.score = spot.churn * spot.fan_in
    spots.sort(key=lambda s: (-s.score, s.path))
    spots = spots[:limit]
    for spot in spots:
        spot.owners = rank_owners(by_file[spot.path], HALF_LIFE_DAYS)[:OWNERS_PER_SPOT]
    clusters = _clusters(store, repo, min_count)[:limit]
    return Hotspots(repo, spots, clusters, bool(record.mined_sha))


def _clusters(store: Store, repo: str, min_count: int) -> list[CoChangeCluster]:
    joined: dict[str, set[str]] = defaultdict(set)
    strongest: dict[str, int] = defaultdict(int)
    for pair in store.history.pair_counts(repo, "file"):
        either = pair.changes_a + pair.changes_b - pair.count
        if pair.count >= min_count and pair.count >= MIN_CLUSTER_SHARE * either:
            joined[pair.a].add(pair.b)
            joined[pair.b].add(pair.a)
            strongest[pair.a] = max(strongest[pair.a], pair.count)
            strongest[pair.b] = max(strongest[pair.b], pair.count)
    seen: set[str] = set()
    clusters = []
    for start in sorted(joined):
        if start in seen:
            continue
        group, queue = [], [start]
        seen.add(start)
        while queue:
            path = queue.pop()
            group.append(path)
            for other in joined[path] - seen:
                seen.add(other)
                queue.append(other)
        group.sort(key=lambda p: (-len(joined[p]), p))
        clusters.append(
            CoChangeCluster(group[:MAX_CLUSTER_FILES], len(group), max(strongest[p] for p in group))
        )
    clusters.sort(key=lambda c: (-c.size, -c.commits, c.files[0]))
    return clusters
