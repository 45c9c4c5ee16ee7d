-- Schema version 15: HTTP routes and the requests that reach them. Each file keeps its
-- resolved HTTP rows (routes, routers, mounts, requests: cartograph.resolve.http); each
-- repository the routes its services stage composed (as every repository's matching reads
-- them) and the HTTP_CALLS edges it wrote (cartograph.index.services), as JSON.

ALTER TABLE files ADD COLUMN http BLOB;

CREATE TABLE IF NOT EXISTS services (
    repo TEXT PRIMARY KEY,
    routes TEXT NOT NULL DEFAULT '[]',
    calls TEXT NOT NULL DEFAULT '[]'
);
