-- Schema version 6: API tokens for people and agents (only a SHA-256 of each token is kept).

CREATE TABLE api_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,  -- space-separated: read, claims, admin
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT NOT NULL DEFAULT ''
) STRICT;
