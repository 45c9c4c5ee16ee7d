-- Schema version 2: git history. Keyed by (repo, path) and symbol id, so a file's history
-- outlives the index rows until mining re-keys it (remap_history: renames, deletions).

ALTER TABLE repos ADD COLUMN mined_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE repos ADD COLUMN codeowners TEXT NOT NULL DEFAULT '';

CREATE TABLE commits (
    repo TEXT NOT NULL,
    sha TEXT NOT NULL,
    message TEXT NOT NULL,
    at TEXT NOT NULL,  -- UTC, ISO 8601
    author TEXT NOT NULL,  -- people.email
    parents INTEGER NOT NULL,
    files INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,  -- git's order: a commit's ordinal exceeds its ancestors'
    PRIMARY KEY (repo, sha)
) STRICT;
CREATE INDEX commits_author ON commits (author);
CREATE INDEX commits_order ON commits (repo, ordinal);

CREATE TABLE people (
    email TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    bot INTEGER NOT NULL
) STRICT;

CREATE TABLE touches (
    repo TEXT NOT NULL,
    sha TEXT NOT NULL,
    path TEXT NOT NULL,
    added INTEGER NOT NULL,
    deleted INTEGER NOT NULL
) STRICT;
CREATE INDEX touches_path ON touches (repo, path);
CREATE INDEX touches_sha ON touches (repo, sha);

CREATE TABLE symbol_touches (
    repo TEXT NOT NULL,
    sha TEXT NOT NULL,
    symbol TEXT NOT NULL,
    lines INTEGER NOT NULL
) STRICT;
CREATE INDEX symbol_touches_symbol ON symbol_touches (symbol);
CREATE INDEX symbol_touches_sha ON symbol_touches (repo, sha);

CREATE TABLE file_changes (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    changes INTEGER NOT NULL,
    PRIMARY KEY (repo, path)
) STRICT;

CREATE TABLE cochanges (
    repo TEXT NOT NULL,
    a TEXT NOT NULL,
    b TEXT NOT NULL,  -- a < b
    count INTEGER NOT NULL,
    weight REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (repo, a, b)
) STRICT;
CREATE INDEX cochanges_b ON cochanges (repo, b);

CREATE TABLE symbol_changes (
    repo TEXT NOT NULL,
    symbol TEXT NOT NULL,
    changes INTEGER NOT NULL,
    PRIMARY KEY (repo, symbol)
) STRICT;

CREATE TABLE symbol_cochanges (
    repo TEXT NOT NULL,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    count INTEGER NOT NULL,
    weight REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (repo, a, b)
) STRICT;
CREATE INDEX symbol_cochanges_b ON symbol_cochanges (repo, b);
