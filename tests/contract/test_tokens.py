"""TokenStore: API tokens, of which only the SHA-256 is kept."""

from __future__ import annotations

import pytest
from cartograph.errors import Conflict


def test_tokens_are_found_by_hash_listed_and_revoked_once(stores):
    store = stores.open()
    tokens = store.tokens
    first = tokens.add_token("ci", ("read",), "a" * 64, "2026-01-01T00:00:00+00:00")
    second = tokens.add_token("agent", ("read", "claims"), "b" * 64, "2026-01-02T00:00:00+00:00")
    assert second.id > first.id
    assert tokens.token_by_hash("b" * 64) == second
    assert tokens.token_by_hash("c" * 64) is None
    with pytest.raises(Conflict, match="exists already"):
        tokens.add_token("ci", ("admin",), "d" * 64, "2026-01-03T00:00:00+00:00")
    assert [(t.name, t.scopes) for t in tokens.list_tokens()] == [
        ("ci", ("read",)),
        ("agent", ("read", "claims")),
    ]
    assert tokens.revoke_token("ci", "2026-02-01T00:00:00+00:00")
    assert not tokens.revoke_token("ci", "2026-03-01T00:00:00+00:00")  # revoked already
    assert not tokens.revoke_token("nobody", "2026-03-01T00:00:00+00:00")
    assert tokens.token_by_hash("a" * 64).revoked_at == "2026-02-01T00:00:00+00:00"
