-- The game log, as the SQLite store keeps it (server/store.py), plus ownership: each game
-- has an owner (a node's member id) and an epoch; every append is fenced on both.
CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    -- the game's place in the creation order, cluster-wide (ListGames pages by it)
    list_order BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    created_unix_ms BIGINT NOT NULL,
    settings_json TEXT NOT NULL,
    scenario_json TEXT NOT NULL,
    finished_unix_ms BIGINT,
    result_json TEXT,
    log_length INTEGER NOT NULL DEFAULT 0,
    last_hash TEXT NOT NULL DEFAULT '',
    owner TEXT,
    epoch BIGINT NOT NULL DEFAULT 0,
    -- seat -> wall-clock deadline (ms) of the decisions awaited after the last append
    deadlines_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX games_unfinished_by_owner ON games (owner) WHERE finished_unix_ms IS NULL;

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    sequence BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    code INTEGER NOT NULL,
    by_timeout BOOLEAN NOT NULL,
    state_hash TEXT NOT NULL,
    sequence BIGINT NOT NULL DEFAULT 0,
    idem_key TEXT,
    idem_hash TEXT,
    epoch BIGINT NOT NULL,
    PRIMARY KEY (game_id, version)
);
-- A retried SubmitAction finds its first answer by (seat, key), on any node.
CREATE UNIQUE INDEX actions_idempotency ON actions (game_id, seat, idem_key)
    WHERE idem_key IS NOT NULL;

CREATE TABLE snapshots (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    data_json TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);

-- One row per node incarnation: its lease is renewed by database time (now()).
CREATE TABLE nodes (
    member TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    address TEXT NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL,
    registered_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
