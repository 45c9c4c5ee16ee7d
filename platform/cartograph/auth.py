"""Bearer tokens for people and agents, with scopes (`cartograph token create|list|revoke`).

A token is shown once when created; the store keeps only its SHA-256 (tokens are 256-bit
random strings, so a fast hash is enough). Scopes: `read` (queries), `claims` (sessions,
claims, lessons), `admin` (repositories, tokens). `admin` implies the others.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime

from cartograph.errors import CartographError, ErrorKind, Invalid
from cartograph.model import ApiToken
from cartograph.query.answers import answer, cacheable
from cartograph.store.interfaces import Store

SCOPES = ("read", "claims", "admin")
PREFIX = "cgt_"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")  # fullmatch: no trailing newline


class AuthError(CartographError):
    """No valid credential (unauthorized), or one without the scope needed (Forbidden)."""

    kind = ErrorKind.UNAUTHORIZED
    status = 401


class Forbidden(AuthError):
    kind = ErrorKind.FORBIDDEN
    status = 403


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(store: Store, name: str, scopes: list[str]) -> tuple[str, ApiToken]:
    """A new token (returned once, never stored) and its record."""
    if not _NAME.fullmatch(name):
        raise Invalid(f"{name!r} is not a token name (letters, digits, . _ @ -)")
    wanted = tuple(dict.fromkeys(s.strip() for s in scopes if s.strip()))
    unknown = [s for s in wanted if s not in SCOPES]
    if unknown or not wanted:
        raise Invalid(f"scopes {', '.join(unknown) or '(none)'}: choose from {', '.join(SCOPES)}")
    token = PREFIX + secrets.token_urlsafe(32)
    record = store.tokens.add_token(
        name, wanted, digest(token), datetime.now(UTC).isoformat(timespec="seconds")
    )
    return token, record


def verify(store: Store, token: str, admin_token: str | None = None) -> ApiToken:
    """The live token a bearer string is, or AuthError. `admin_token` (CARTOGRAPH_ADMIN_TOKEN)
    is a bootstrap credential with every scope. The record is looked up through the answer
    cache: a token written (created, revoked) bumps the store's generation."""
    token = token.strip()
    if admin_token and hmac.compare_digest(token.encode(), admin_token.encode()):
        return ApiToken(0, "admin (CARTOGRAPH_ADMIN_TOKEN)", SCOPES, "", "", "")
    if not token.startswith(PREFIX):
        raise AuthError("not a Cartograph token")
    record = answer(store, token_record, digest(token))
    if record.revoked_at:
        raise AuthError(f"token {record.name} was revoked at {record.revoked_at}")
    return record


@cacheable
def token_record(store: Store, token_digest: str) -> ApiToken:
    """The record of the token with this digest (an unknown one is refused, not cached)."""
    record = store.tokens.token_by_hash(token_digest)
    if record is None:
        raise AuthError("unknown token")
    return record


def may_use(token: ApiToken | None, scope: str) -> bool:
    """The token carries `scope` (or admin; None: an open local server, which may)."""
    return token is None or scope in token.scopes or "admin" in token.scopes


def require(token: ApiToken | None, scope: str) -> None:
    """Raise Forbidden unless the token carries `scope` (None: an open local server)."""
    if token is not None and not may_use(token, scope):
        raise Forbidden(f"token {token.name} lacks the {scope!r} scope")
