-- Schema version 12: what impact keeps. Coverage evidence imported from a coverage.py data
-- file with per-test contexts (which test ran which symbol), and the impact reports of pull
-- requests (one per repository and number; a newer head replaces it).

CREATE TABLE IF NOT EXISTS coverage_sources (
    repo TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    commit_sha TEXT NOT NULL DEFAULT ''
);

CREATE TABLE IF NOT EXISTS coverage (
    repo TEXT NOT NULL,
    symbol TEXT NOT NULL,
    test TEXT NOT NULL,
    PRIMARY KEY (repo, symbol, test)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS reviews (
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    head_sha TEXT NOT NULL,
    base_ref TEXT NOT NULL DEFAULT '',
    base_sha TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    forge TEXT NOT NULL DEFAULT '',
    computed_at TEXT NOT NULL DEFAULT '',
    verdict TEXT NOT NULL DEFAULT '',
    report TEXT NOT NULL DEFAULT '',
    markdown TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT '',
    posted_at TEXT NOT NULL DEFAULT '',
    post_error TEXT NOT NULL DEFAULT '',
    comment_id TEXT NOT NULL DEFAULT '',
    comment_url TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (repo, number)
);

CREATE INDEX IF NOT EXISTS reviews_newest ON reviews (repo, computed_at);

-- where a tracked repository's pull-request reports are posted (cartograph.reviews)
ALTER TABLE tracked ADD COLUMN forge TEXT NOT NULL DEFAULT '';
ALTER TABLE tracked ADD COLUMN forge_url TEXT NOT NULL DEFAULT '';
ALTER TABLE tracked ADD COLUMN forge_project TEXT NOT NULL DEFAULT '';
ALTER TABLE tracked ADD COLUMN forge_token TEXT NOT NULL DEFAULT '';
