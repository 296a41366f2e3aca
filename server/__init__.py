"""The Yggdrasil server: many games hosted at once behind the gRPC API (docs/architecture.md).

Its rooms, bottom up; each imports only the rooms below it (tests/test_import_boundaries.py):

* ``ops`` — metrics, structured logs, tracing, health, the interceptor plumbing they share;
* ``stores`` — where games' logs go: the store contract, the memory, SQLite and PostgreSQL
  stores side by side, their migrations, the hash chain, the seat-token hashes;
* ``games`` — hosted games: the single-writer ``Game`` and what it keeps (events, views,
  answers, deadlines, snapshots), the registry of hosted games, restart and abandonment;
* ``cluster`` — several nodes on one PostgreSQL store: ownership by lease and epoch,
  forwarding calls to a game's owner, client addresses behind proxies;
* ``api`` — the gRPC surface: servicers, PlaySession, streams and fan-out, authentication,
  identities and quotas, request checks.

At the top, ``main`` wires them together from ``config``; ``probe`` (the health check a
container runs) and ``replay`` (offline replay verification) are commands beside it. A game
reaches the server only through ``engine.registry`` and ``protocol.registry``: no module here
names one game.
"""
