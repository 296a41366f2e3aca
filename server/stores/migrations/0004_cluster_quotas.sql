-- Issue 26: quotas counted for the whole cluster, not per node (server/cluster/shared_quotas.py).
-- The open games of one creator are counted when it creates another (under a transaction-
-- scoped advisory lock on its quota key, so that two nodes cannot both let the last one in).
CREATE INDEX games_open_by_creator ON games (creator) WHERE finished_unix_ms IS NULL;

-- One row per open stream (WatchGame, PlaySession) of a quota key, held by the node that
-- serves it and renewed by that node with its lease; a node that dies stops renewing and its
-- streams stop counting when expires_at passes (by the database's clock).
CREATE TABLE stream_leases (
    lease_id TEXT PRIMARY KEY,
    quota_key TEXT NOT NULL,
    member TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX stream_leases_by_key ON stream_leases (quota_key, expires_at);
