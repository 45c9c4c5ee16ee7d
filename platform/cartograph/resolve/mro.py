"""Method resolution order: one C3 linearization, for the resolvers and for queries.

A class's linearization is the class, then its bases' linearizations merged with the list of
its bases (Python's C3). Where no consistent order exists (`class C(A, B)` with `B(A)`, or
a Java class implementing an interface and its subinterface in that order), the merge takes
the head of the first remaining sequence and goes on: depth first, left to right. A base met
again while its own linearization is being computed (a cycle, in broken code) counts as
itself alone.

Classes are any hashable values: (module, scope) pairs in the resolvers, symbol ids in
queries, whose bases come from the INHERITS edges sorted by their `order`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def c3_merge(sequences: list[Sequence[T]]) -> list[T]:
    """C3 merge of sequences (the bases' linearizations, then the bases themselves)."""
    seqs = [list(s) for s in sequences if s]
    result: list[T] = []
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in other[1:] for other in seqs):
                break
        else:  # no consistent order: depth first, left to right
            head = seqs[0][0]
        result.append(head)
        seqs = [[item for item in s if item != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return result


def c3(cls: T, bases: Sequence[T], linearizations: Sequence[Sequence[T] | None]) -> list[T]:
    """Python's order: `cls`, then the C3 merge of its bases' linearizations (None for a
    base whose own is not known: a cycle) and of its bases, in declaration order."""
    known = [line for line in linearizations if line is not None]
    # a class met again through a cycle (broken code) is not its own ancestor
    return [cls, *(item for item in c3_merge([*known, list(bases)]) if item != cls)]


def depth_first(
    cls: T, bases: Sequence[T], linearizations: Sequence[Sequence[T] | None]
) -> list[T]:
    """TypeScript's member lookup: `cls`, then each base's linearization in turn (the
    `extends` chain first, then each implemented interface's), without repeats."""
    result = [cls]
    seen = {cls}
    for base, line in zip(bases, linearizations, strict=True):
        for item in line if line is not None else (base,):
            if item not in seen:
                seen.add(item)
                result.append(item)
    return result


Order = Callable[[T, Sequence[T], Sequence[Sequence[T] | None]], list[T]]


def linearize(root: T, bases_of: Callable[[T], Sequence[T]], order: Order = c3) -> list[T]:
    """The linearization of `root` in a graph given by `bases_of` (each class's bases in
    declaration order: for a stored graph, INHERITS edges sorted by `order`); every class's
    own is computed once."""
    done: dict = {}
    visiting: set = set()

    def of(cls):
        found = done.get(cls)
        if found is not None:
            return found
        if cls in visiting:
            return None
        visiting.add(cls)
        bases = list(bases_of(cls))
        lines = [of(base) for base in bases]
        visiting.discard(cls)
        found = done[cls] = order(cls, bases, lines)
        return found

    return of(root) or [root]
