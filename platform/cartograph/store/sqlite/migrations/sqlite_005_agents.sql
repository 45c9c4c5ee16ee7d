-- Schema version 5: agent sessions, file claims, what sessions read and edited, lessons.

CREATE TABLE agent_sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent TEXT NOT NULL,
    task TEXT NOT NULL,
    started_at TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    ended_at TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE claims (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    session INTEGER NOT NULL,
    intent TEXT NOT NULL,
    since TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (repo, path)
) STRICT;
CREATE INDEX claims_session ON claims (session);

CREATE TABLE activity (
    session INTEGER NOT NULL,
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,  -- READ or EDITED
    at TEXT NOT NULL,
    PRIMARY KEY (session, repo, path, kind)
) STRICT;

CREATE TABLE lessons (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session INTEGER NOT NULL,
    agent TEXT NOT NULL,
    text TEXT NOT NULL,
    kind TEXT NOT NULL,
    at TEXT NOT NULL
) STRICT;

CREATE TABLE lesson_about (
    lesson INTEGER NOT NULL,
    target TEXT NOT NULL,  -- a path, a folder (ending in /), or a symbol id
    PRIMARY KEY (lesson, target)
) STRICT;
CREATE INDEX lesson_about_target ON lesson_about (target);
