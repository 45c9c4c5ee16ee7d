"""Webhook secrets at rest: sealed with a server key when one is configured.

A tracked repository's webhook secret must be kept as it is (GitHub and Gitea sign each
delivery with it), so it cannot be hashed like an API token. On the team store (Neo4j), whose
graph people query with their own Cypher, a plain secret would be readable by anyone with read
access to the database; with `CARTOGRAPH_SECRET_KEY` set (at least 32 characters, kept beside
the server, never in the graph), secrets are stored sealed:

    sealed:1:<base64 of nonce (16 bytes) | ciphertext | tag (32 bytes)>

The cipher is HMAC-SHA256 in counter mode (the keystream block i is HMAC(k_enc, nonce | i)),
authenticated encrypt-then-MAC with HMAC-SHA256 over the nonce and ciphertext; the two keys
are derived from the configured one (HMAC(key, "cartograph-seal-encrypt" / "-authenticate")).
Only the standard library is needed. A value that is not sealed (stored before a key was set)
reads as it is; a sealed one without the key, or with another key, is refused with a clear
error rather than guessed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets as random_source

from cartograph.errors import Unavailable

KEY_ENV = "CARTOGRAPH_SECRET_KEY"
PREFIX = "sealed:1:"
MIN_KEY = 32
NONCE = 16
TAG = 32


def _keys() -> tuple[bytes, bytes] | None:
    configured = os.environ.get(KEY_ENV, "")
    if not configured:
        return None
    if len(configured) < MIN_KEY:
        raise Unavailable(f"{KEY_ENV} must have at least {MIN_KEY} characters")
    key = configured.encode()
    encrypt = hmac.new(key, b"cartograph-seal-encrypt", hashlib.sha256).digest()
    authenticate = hmac.new(key, b"cartograph-seal-authenticate", hashlib.sha256).digest()
    return encrypt, authenticate


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = []
    for counter in range(-(-length // 32)):
        blocks.append(hmac.new(key, nonce + counter.to_bytes(8, "big"), hashlib.sha256).digest())
    return b"".join(blocks)[:length]


def seal(secret: str) -> str:
    """`secret` as it is stored: sealed when a key is configured, else as it is."""
    keys = _keys()
    if keys is None:
        return secret
    encrypt, authenticate = keys
    nonce = random_source.token_bytes(NONCE)
    plain = secret.encode()
    cipher = bytes(
        a ^ b for a, b in zip(plain, _keystream(encrypt, nonce, len(plain)), strict=True)
    )
    tag = hmac.new(authenticate, nonce + cipher, hashlib.sha256).digest()
    return PREFIX + base64.b64encode(nonce + cipher + tag).decode()


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)


def unseal(stored: str) -> str:
    """The secret a stored value holds (a value stored unsealed is returned as it is)."""
    if not is_sealed(stored):
        return stored
    keys = _keys()
    if keys is None:
        raise Unavailable(f"the webhook secret is sealed: set {KEY_ENV} (the key that sealed it)")
    encrypt, authenticate = keys
    try:
        raw = base64.b64decode(stored[len(PREFIX) :], validate=True)
    except ValueError as exc:
        raise Unavailable("a sealed webhook secret is damaged") from exc
    nonce, cipher, tag = raw[:NONCE], raw[NONCE:-TAG], raw[-TAG:]
    expected = hmac.new(authenticate, nonce + cipher, hashlib.sha256).digest()
    if len(raw) < NONCE + TAG or not hmac.compare_digest(tag, expected):
        raise Unavailable(f"a sealed webhook secret does not open with this {KEY_ENV}")
    plain = bytes(
        a ^ b for a, b in zip(cipher, _keystream(encrypt, nonce, len(cipher)), strict=True)
    )
    return plain.decode()
