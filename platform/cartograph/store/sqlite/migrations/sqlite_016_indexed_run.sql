-- Schema version 16: each repository record names the index run that wrote it (new at every
-- run that completes), so a run resolving against another repository can tell whether it
-- changed underneath (cartograph.index.crossrepo.ProviderWatch).

ALTER TABLE repos ADD COLUMN indexed_run TEXT NOT NULL DEFAULT '';
