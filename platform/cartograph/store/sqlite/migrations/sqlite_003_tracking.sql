-- Schema version 3: repositories tracked for push-triggered sync, and webhook deliveries seen.

CREATE TABLE tracked (
    name TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    branch TEXT NOT NULL,
    secret TEXT NOT NULL,  -- the webhook secret (HMAC key or token), never shown again by the API
    added_at TEXT NOT NULL,
    pushed_sha TEXT NOT NULL DEFAULT '',  -- the newest commit a push announced
    pushed_at TEXT NOT NULL DEFAULT '',
    last_job_at TEXT NOT NULL DEFAULT '',
    last_job_seconds REAL NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    last_error_at TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE deliveries (
    repo TEXT NOT NULL,
    id TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (repo, id)
) STRICT;
CREATE INDEX deliveries_at ON deliveries (repo, at);
