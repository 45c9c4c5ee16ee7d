-- Schema version 14: session overlays. The version of a file an agent session edited and has
-- not pushed (content NULL: it deleted the file); that session's queries see it in place of
-- the shared graph's (cartograph.agents.overlay). Dropped when the session ends.

CREATE TABLE IF NOT EXISTS overlay_files (
    session INTEGER NOT NULL,
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    content BLOB,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (session, repo, path)
) WITHOUT ROWID;
