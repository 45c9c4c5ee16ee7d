"""ImpactStore: a repository's coverage evidence (replaced whole by each import) and the
reports of its pull requests (one per number; a newer head replaces it)."""

from __future__ import annotations

from cartograph.model import Review


def test_coverage_is_replaced_whole_and_read_by_symbol(stores):
    impact = stores.open().impact
    assert impact.covering_tests("web", ["web:a.py#a.f"]) is None  # never imported
    pairs = [("web:t.py#t.test_a", "web:a.py#a.f"), ("web:t.py#t.test_b", "web:a.py#a.f"),
             ("web:t.py#t.test_b", "web:a.py#a.g")]  # fmt: skip
    assert impact.set_coverage("web", "run 1", "abc", pairs) == 3
    found = impact.covering_tests("web", ["web:a.py#a.f", "web:a.py#a.g", "web:a.py#a.h"])
    assert (found.source, found.commit) == ("run 1", "abc")
    assert found.tests == {
        "web:a.py#a.f": {"web:t.py#t.test_a", "web:t.py#t.test_b"},
        "web:a.py#a.g": {"web:t.py#t.test_b"},
    }
    impact.set_coverage("web", "run 2", "def", [("web:t.py#t.test_c", "web:a.py#a.h")])
    found = impact.covering_tests("web", ["web:a.py#a.f", "web:a.py#a.h"])
    assert found.source == "run 2" and found.tests == {"web:a.py#a.h": {"web:t.py#t.test_c"}}
    assert impact.covering_tests("api", ["web:a.py#a.h"]) is None  # per repository
    impact.forget_impact("web")
    assert impact.covering_tests("web", ["web:a.py#a.h"]) is None


def test_reviews_replace_by_number_and_list_newest_first(stores):
    impact = stores.open().impact
    first = Review("web", 7, "a" * 40, base_ref="main", title="Add x", forge="github",
                   computed_at="2026-12-01T10:00:00+00:00", verdict="breaking", report="{}",
                   markdown="### x", comment_id="900")  # fmt: skip
    impact.put_review(first)
    impact.put_review(Review("web", 8, "b" * 40, computed_at="2026-12-01T11:00:00+00:00"))
    impact.put_review(Review("api", 7, "c" * 40))
    assert impact.get_review("web", 7) == first
    newer = Review("web", 7, "d" * 40, computed_at="2026-12-01T12:00:00+00:00",
                   post_error="the comment: POST … answered HTTP 500")  # fmt: skip
    impact.put_review(newer)
    assert impact.get_review("web", 7) == newer
    assert [(r.number, r.head_sha[0]) for r in impact.reviews("web", 10)] == [(7, "d"), (8, "b")]
    assert [r.number for r in impact.reviews("web", 1)] == [7]
    assert impact.get_review("web", 9) is None
    impact.forget_impact("web")
    assert impact.reviews("web", 10) == [] and impact.get_review("api", 7) is not None
