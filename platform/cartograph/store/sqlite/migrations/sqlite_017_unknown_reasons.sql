-- Schema version 17: why a call stays unresolved (model.UNKNOWN_REASONS: external,
-- unknown-value, parameter, computed-name, ...). Rows written before it have none; the next
-- index of the repository (its format changed too) writes them.

ALTER TABLE unresolved ADD COLUMN reason TEXT NOT NULL DEFAULT '';
