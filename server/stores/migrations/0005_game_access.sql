-- Issue 27 (server/games/access.py): who may see and join a game. A game with neither row is
-- listed and has no reserved seat, so every existing game stays as it was. Written before the
-- game row (server/stores/postgres.py): a game never exists without its access.
CREATE TABLE game_access (
    game_id TEXT PRIMARY KEY,
    unlisted BOOLEAN NOT NULL DEFAULT false
);
-- A reserved seat: only the API key named key_name, or whoever presents the join code whose
-- keyed hash is code_hash, may claim it.
CREATE TABLE seat_reservations (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    key_name TEXT NOT NULL DEFAULT '',
    code_hash TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seat_reservations_key_name ON seat_reservations (key_name) WHERE key_name <> '';
