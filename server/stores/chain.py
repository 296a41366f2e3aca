"""The action log's hash chain: a changed, removed or reordered row is noticed.

Every action row carries ``chain``: the SHA-256 of the previous row's ``chain`` and of this
row's fields, the post-state hash among them. The first row links to the game's genesis hash,
which covers the game record. So changing any field of any row (the action, the seat, the
state hash after it, its sequence number, its idempotency key, ...) breaks the chain at that
row, unless every later row is rewritten too; and the game row keeps the number of rows and
the last state hash, which the replay must reproduce.

The chain is a protocol, not a SQLite detail: any store (the PostgreSQL one too) computes and
checks it with these functions, from the same values::

    genesis = sha256_hex("yggdrasil-chain-1\\n" + canonical([game_id, created_unix_ms,
                                                             settings, scenario_json]))
    chain_n = sha256_hex(chain_{n-1} + "\\n" + canonical([version, seat, code, by_timeout,
                                                         state_hash, sequence,
                                                         idempotency_key, request_hash]))

where ``canonical`` is JSON with sorted keys, no spaces and ASCII escapes
(``json.dumps(value, sort_keys=True, separators=(",", ":"))``), ``settings`` the settings
dict as stored (``server.games.record.settings_record``), ``code`` the action's packed int
(the rules' ``Action.code()``), ``by_timeout`` a JSON boolean and absent keys
empty strings. Only stores that keep a state hash per row (durable ones) keep a chain; a store
that keeps nothing across a restart leaves ``chain`` empty."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Protocol

__all__ = ["ChainLink", "chain_break", "genesis", "link"]

_PREFIX = "yggdrasil-chain-1\n"


class ChainLink(Protocol):
    """What the chain covers of one action row (``server.stores.contract.StoredAction``)."""

    @property
    def version(self) -> int: ...

    @property
    def seat(self) -> int: ...

    @property
    def by_timeout(self) -> bool: ...

    @property
    def state_hash(self) -> str: ...

    @property
    def sequence(self) -> int: ...

    @property
    def idempotency_key(self) -> str: ...

    @property
    def request_hash(self) -> str: ...

    @property
    def chain(self) -> str: ...

    @property
    def code(self) -> int: ...


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def genesis(
    game_id: str, created_unix_ms: int, settings: dict[str, Any], scenario_json: str
) -> str:
    """The hash the first action row links to."""
    text = _PREFIX + _canonical([game_id, created_unix_ms, settings, scenario_json])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def link(
    previous: str,
    version: int,
    seat: int,
    code: int,
    by_timeout: bool,
    state_hash: str,
    sequence: int,
    idempotency_key: str,
    request_hash: str,
) -> str:
    """The chain hash of a row whose predecessor's chain hash is ``previous``."""
    fields = [
        version,
        seat,
        code,
        bool(by_timeout),
        state_hash,
        sequence,
        idempotency_key,
        request_hash,
    ]
    text = previous + "\n" + _canonical(fields)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chain_break(first: str, rows: Iterable[ChainLink]) -> int | None:
    """The version of the first row whose chain hash is not what its predecessor and its
    fields make (None: the chain is whole). ``first`` is the game's genesis hash."""
    previous = first
    for row in rows:
        expected = link(
            previous,
            row.version,
            row.seat,
            row.code,
            row.by_timeout,
            row.state_hash,
            row.sequence,
            row.idempotency_key,
            row.request_hash,
        )
        if row.chain != expected:
            return row.version
        previous = row.chain
    return None
