"""Stores: where games' logs go, behind one contract (``contract.GameStore``): ``memory``
(nothing kept: tests and benchmarks), ``sqlite`` (one durable node; ``sqlite_reads``,
``sqlite_migration``) and ``postgres`` (a cluster's shared store; ``postgres_migrations`` and
the SQL files of ``migrations/``) side by side; the log's hash ``chain`` and the seat tokens'
keyed hashes (``token_hashes``) they keep.

Imports ``server.ops`` only: a store knows nothing of games, the API or the cluster.
"""
