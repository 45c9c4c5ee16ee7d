-- Cartograph embedded graph store, schema version 1.
-- Nodes: repos, files, symbols, packages. Edges: edges (CALLS, REFERENCES, INHERITS),
-- imports (File -> File | Package). CONTAINS, DEFINES and HAS_MEMBER are implied by
-- files.repo, symbols.path and symbols.parent. Everything a file contributes carries
-- (repo, path), or an id that starts with 'repo:path#', so a file is replaced in one
-- transaction.

CREATE TABLE repos (
    name TEXT PRIMARY KEY,
    root TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    default_branch TEXT NOT NULL DEFAULT '',
    head_sha TEXT NOT NULL DEFAULT '',
    indexed_sha TEXT NOT NULL DEFAULT '',
    indexed_at TEXT NOT NULL DEFAULT '',
    dirty INTEGER NOT NULL DEFAULT 0,
    index_format TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE files (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    is_test INTEGER NOT NULL,
    module TEXT NOT NULL DEFAULT '',
    parse_errors INTEGER NOT NULL DEFAULT 0,
    interface TEXT NOT NULL DEFAULT '',
    aliases TEXT NOT NULL DEFAULT '',
    facts BLOB,
    PRIMARY KEY (repo, path)
) STRICT;

CREATE TABLE skipped (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    reason TEXT NOT NULL,
    size INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (repo, path)
) STRICT;

CREATE TABLE symbols (
    id TEXT PRIMARY KEY,
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL DEFAULT '',
    doc TEXT NOT NULL DEFAULT '',
    exported INTEGER NOT NULL DEFAULT 0,
    parent TEXT,
    decorators TEXT NOT NULL DEFAULT ''  -- one per line
) STRICT;
CREATE INDEX symbols_name ON symbols (name);
CREATE INDEX symbols_qualname ON symbols (qualname);

-- An edge belongs to the file of its source: every source id of a file sorts between
-- 'repo:path#' and 'repo:path$', so the (src, type) index also serves replace-a-file.
CREATE TABLE edges (
    type TEXT NOT NULL,
    src TEXT NOT NULL,
    dst TEXT NOT NULL,
    lines TEXT NOT NULL,  -- comma-separated line numbers
    count INTEGER NOT NULL,
    via TEXT NOT NULL,
    confidence REAL NOT NULL
) STRICT;
CREATE INDEX edges_src ON edges (src, type);
CREATE INDEX edges_dst ON edges (dst, type);

CREATE TABLE imports (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    target_kind TEXT NOT NULL,
    target TEXT NOT NULL,
    names TEXT NOT NULL
) STRICT;
CREATE INDEX imports_file ON imports (repo, path);
CREATE INDEX imports_target ON imports (repo, target_kind, target);

CREATE TABLE unresolved (
    src TEXT NOT NULL,
    name TEXT NOT NULL,
    line INTEGER NOT NULL,
    external TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'call'
) STRICT;
CREATE INDEX unresolved_src ON unresolved (src);

CREATE TABLE deps (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    module TEXT NOT NULL
) STRICT;
CREATE INDEX deps_module ON deps (repo, module);
CREATE INDEX deps_file ON deps (repo, path);

-- module names whose dependents an interrupted index run had still to re-resolve
CREATE TABLE pending (
    repo TEXT NOT NULL,
    module TEXT NOT NULL,
    PRIMARY KEY (repo, module)
) STRICT;

CREATE TABLE packages (
    repo TEXT NOT NULL,
    name TEXT NOT NULL,
    ecosystem TEXT NOT NULL,
    PRIMARY KEY (repo, name, ecosystem)
) STRICT;

CREATE TABLE locks (
    repo TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
) STRICT;

-- identifier-split text: name (weight 10), qualname (5), path and doc (1)
CREATE VIRTUAL TABLE symbol_search USING fts5 (
    name, qualname, context,
    tokenize = 'unicode61 remove_diacritics 2'
);
