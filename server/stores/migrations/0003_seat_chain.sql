-- Issue 26 (server/stores/chain.py): the hash chain runs from the game record through the
-- seat claims to the action log. The game row keeps the chain's genesis hash (changed
-- settings are noticed before any seat is claimed); every seat claim row keeps its link (a
-- seat's token hash copied onto another seat is noticed). server/stores/postgres_migrations.py
-- then links the existing claims and relinks the existing action rows from the last claim,
-- in the same transaction.
ALTER TABLE games ADD COLUMN genesis TEXT NOT NULL DEFAULT '';
-- The keyed hash of the game's creator token (what proves an anonymous creator: issue 26).
ALTER TABLE games ADD COLUMN creator_token_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE seats ADD COLUMN chain TEXT NOT NULL DEFAULT '';
