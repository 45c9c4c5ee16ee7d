"""Where a line of an old version of a file is in the file at HEAD (what `git blame` tracks).

Walking history newest first, each commit's hunks say which lines of its parent version
survive into its own version and where; composing those steps maps any historical line to
its line at HEAD (or to nothing, when a later commit removed it). Maps are lists of
segments, so a step costs O(hunks + segments), not O(lines).
"""

from __future__ import annotations

from bisect import bisect_right

INFINITY = 1 << 40


class LineMap:
    __slots__ = ("segments", "starts")

    def __init__(self, segments: list[tuple[int, int, int]]) -> None:
        # (first line, line after the last, head line of the first), sorted, disjoint
        self.segments = segments
        self.starts = [s[0] for s in segments]

    @classmethod
    def identity(cls) -> LineMap:
        return cls([(1, INFINITY, 1)])

    @classmethod
    def empty(cls) -> LineMap:
        return cls([])

    def lookup(self, line: int) -> int | None:
        index = bisect_right(self.starts, line) - 1
        if index < 0:
            return None
        start, end, head = self.segments[index]
        return head + (line - start) if line < end else None

    def lookup_near(self, line: int) -> int | None:
        """The line at HEAD, or — for a line a later commit replaced — where the nearest line
        above it that survives is: code rewritten in place belongs where its neighbours are."""
        index = bisect_right(self.starts, line) - 1
        if index < 0:
            return None
        start, end, head = self.segments[index]
        return head + (min(line, end - 1) - start)

    def head_runs(self, first: int, last: int) -> list[tuple[int, int, int]]:
        """`lookup_near` for the lines [first, last] at once: (first, last, lines each) runs of
        HEAD lines — a run of lines that moved together, or one line standing for the `lines
        each` replaced lines that belong to it."""
        runs: list[tuple[int, int, int]] = []
        segments, count = self.segments, len(self.segments)
        index = bisect_right(self.starts, first) - 1
        line = first
        if index < 0:  # lines above the first that survives belong nowhere
            if not count or self.starts[0] > last:
                return runs
            index, line = 0, self.starts[0]
        while line <= last and index < count:
            start, end, head = segments[index]
            if line < end:
                upto = min(last, end - 1)
                runs.append((head + line - start, head + upto - start, 1))
                line = upto + 1
            gap_end = min(last, (self.starts[index + 1] if index + 1 < count else INFINITY) - 1)
            if line <= gap_end:
                anchor = head + end - 1 - start
                runs.append((anchor, anchor, gap_end - line + 1))
                line = gap_end + 1
            index += 1
        return runs

    def parent(self, hunks: list[tuple[int, int, int, int]]) -> LineMap:
        """The map of the version before a commit, given the commit's hunks (old a,b new c,d,
        as `git diff -U0` prints them) and this map of the version after it."""
        runs: list[tuple[int, int, int]] = []  # parent lines [p, q) ↔ own lines from v
        parent_line, delta = 1, 0
        for a, b, _c, d in sorted(hunks):
            # lines before the hunk survive; a pure insertion (b == 0) comes after line a
            kept_until = a if b > 0 else a + 1
            if kept_until > parent_line:
                runs.append((parent_line, kept_until, parent_line + delta))
            parent_line = max(parent_line, a + b if b > 0 else a + 1)
            delta += d - b
        runs.append((parent_line, INFINITY, parent_line + delta))
        segments: list[tuple[int, int, int]] = []
        for start, end, own in runs:
            self._compose(start, end, own, segments)
        return LineMap(segments)

    def _compose(self, start: int, end: int, own: int, out: list[tuple[int, int, int]]) -> None:
        """Append the parent lines [start, end) — own lines from `own` — through this map."""
        own_end = own + (end - start)
        index = max(0, bisect_right(self.starts, own) - 1)
        while index < len(self.segments):
            seg_start, seg_end, head = self.segments[index]
            if seg_start >= own_end:
                break
            low, high = max(seg_start, own), min(seg_end, own_end)
            if low < high:
                parent_low = start + (low - own)
                out.append((parent_low, parent_low + (high - low), head + (low - seg_start)))
            index += 1


def changed_lines(hunks: list[tuple[int, int, int, int]]) -> list[tuple[int, int]]:
    """The lines of the commit's own version that it wrote, as [first, last] ranges; a pure
    deletion counts as touching the line before it (the code around the removed lines)."""
    ranges = []
    for _a, _b, c, d in hunks:
        if d > 0:
            ranges.append((c, c + d - 1))
        else:
            ranges.append((max(c, 1), max(c, 1)))
    return ranges
