-- Issue 13 (docs/durability.md): who created each game, when it last changed (the
-- abandonment clock), how it was aborted; each action row's link of the log's hash chain
-- (server/chain.py); the secret of the seat tokens' keyed hashes (meta.token_key). An aborted
-- game also gets finished_unix_ms (the time of its abort): "over" is one column for the
-- routing and takeover queries; aborted_unix_ms tells the two apart.
-- server/pgstore.py then draws the token key, turns the plain SHA-256 of every existing seat
-- token into its keyed hash and links the existing action rows, in the same transaction.
ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN activity_unix_ms BIGINT;
ALTER TABLE games ADD COLUMN aborted_unix_ms BIGINT;
ALTER TABLE games ADD COLUMN abort_cause INTEGER;
ALTER TABLE games ADD COLUMN abort_reason TEXT;
ALTER TABLE games ADD COLUMN abort_sequence BIGINT;
UPDATE games SET activity_unix_ms = (extract(epoch FROM now()) * 1000)::BIGINT;

ALTER TABLE actions ADD COLUMN chain TEXT NOT NULL DEFAULT '';

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
