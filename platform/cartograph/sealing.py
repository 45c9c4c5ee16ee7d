"""Webhook secrets at rest: sealed with a server key when one is configured.

A tracked repository's webhook secret must be kept as it is (GitHub and Gitea sign each
delivery with it), so it cannot be hashed like an API token. On the team store (Neo4j), whose
graph people query with their own Cypher, a plain secret would be readable by anyone with read
access to the database; with `CARTOGRAPH_SECRET_KEY` set (at least 32 characters, kept beside
the server, never in the graph), secrets are stored sealed:

    sealed:1:<base64 of nonce (12 bytes) | AES-256-GCM ciphertext and tag>

The AES key is derived from the configured one with HKDF-SHA256 (`cryptography`'s
implementations; the repository name is not bound in, so a sealed secret can be moved with its
record). A value that is not sealed (stored before a key was set) reads as it is; a sealed one
without the key, or with another key, is refused with a clear error rather than guessed.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets as random_source

from cartograph.errors import Unavailable
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

KEY_ENV = "CARTOGRAPH_SECRET_KEY"
PREFIX = "sealed:1:"
MIN_KEY = 32
NONCE = 12
CONTEXT = b"cartograph webhook secret"


def _cipher() -> AESGCM | None:
    configured = os.environ.get(KEY_ENV, "")
    if not configured:
        return None
    if len(configured) < MIN_KEY:
        raise Unavailable(f"{KEY_ENV} must have at least {MIN_KEY} characters")
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=CONTEXT).derive(
        configured.encode()
    )
    return AESGCM(key)


def seal(secret: str) -> str:
    """`secret` as it is stored: sealed when a key is configured, else as it is."""
    cipher = _cipher()
    if cipher is None:
        return secret
    nonce = random_source.token_bytes(NONCE)
    sealed = cipher.encrypt(nonce, secret.encode(), CONTEXT)
    return PREFIX + base64.b64encode(nonce + sealed).decode()


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)


def unseal(stored: str) -> str:
    """The secret a stored value holds (a value stored unsealed is returned as it is)."""
    if not is_sealed(stored):
        return stored
    cipher = _cipher()
    if cipher is None:
        raise Unavailable(f"the webhook secret is sealed: set {KEY_ENV} (the key that sealed it)")
    try:
        raw = base64.b64decode(stored[len(PREFIX) :], validate=True)
    except (ValueError, binascii.Error) as exc:
        raise Unavailable("a sealed webhook secret is damaged") from exc
    try:
        return cipher.decrypt(raw[:NONCE], raw[NONCE:], CONTEXT).decode()
    except (InvalidTag, ValueError) as exc:
        raise Unavailable(f"a sealed webhook secret does not open with this {KEY_ENV}") from exc
