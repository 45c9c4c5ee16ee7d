-- Schema version 11: one graph across repositories. Each repository's package identity (what
-- it provides and depends on, read from its manifests and lock files; cartograph.manifests),
-- as the JSON form of model.Manifest.

CREATE TABLE IF NOT EXISTS manifests (
    repo TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
