-- Schema version 10: calls through values. Each file keeps the flow rows its resolution found
-- (what it passes to other functions' parameters, which parameters it calls), their digest,
-- and the derived edges the flow stage wrote for it (cartograph.index.flows), marshalled.

ALTER TABLE files ADD COLUMN flows BLOB;
ALTER TABLE files ADD COLUMN flows_digest TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN derived BLOB;
