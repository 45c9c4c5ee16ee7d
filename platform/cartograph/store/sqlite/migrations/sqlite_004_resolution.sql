-- Schema version 4: a digest of what each file's resolution wrote, so a re-resolution that
-- comes out the same (most dependents of an edited module) writes nothing.

ALTER TABLE files ADD COLUMN resolution TEXT NOT NULL DEFAULT '';
