"""The game's hash chain: a changed, removed or reordered row is noticed.

The chain runs from the game record through its seat claims to its action log. The genesis
hash covers the game record (its settings among them); the game row keeps it (``genesis``)
so that a changed record is noticed even before anyone claimed a seat. Every seat claim row
carries ``chain``: the SHA-256 of the previous link (the genesis, or the claim before it in
the order of their event sequence numbers) and of this claim's seat, name, token hash and
sequence number. Every action row carries ``chain`` too: the SHA-256 of the previous link
(the last claim's for the first action: every seat is claimed before a game starts) and of
this row's fields, the post-state hash among them. So changing any field of any row (copying
one seat's token hash onto another, changing the settings, the action, the seat, the state
hash after it, its sequence number, its idempotency key, ...) breaks the chain at that row,
unless every later link is rewritten too; and the game row keeps the number of rows and the
last state hash, which the replay must reproduce.

The chain is a protocol, not a SQLite detail: any store (the PostgreSQL one too) computes and
checks it with these functions, from the same values::

    genesis = sha256_hex("yggdrasil-chain-1\\n" + canonical([game_id, created_unix_ms,
                                                             settings, scenario_json]))
    claim_n = sha256_hex(previous + "\\nseat\\n" + canonical([seat, name, token_hash,
                                                               sequence]))
    chain_n = sha256_hex(previous + "\\n" + canonical([version, seat, code, by_timeout,
                                                      state_hash, sequence,
                                                      idempotency_key, request_hash]))

where ``canonical`` is JSON with sorted keys, no spaces and ASCII escapes
(``json.dumps(value, sort_keys=True, separators=(",", ":"))``), ``settings`` the settings
dict as stored (``server.games.record.settings_record``), ``token_hash`` the keyed hash the
store keeps (``server.stores.token_hashes``), ``code`` the action's packed int (the rules'
``Action.code()``), ``by_timeout`` a JSON boolean and absent keys empty strings. Only stores
that keep a state hash per row (durable ones) keep a chain; a store that keeps nothing across
a restart leaves ``chain`` empty. (Stores written before claims were linked are relinked once
by their upgrade: ``relink``.)"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "ChainLink",
    "Claim",
    "chain_break",
    "claims_break",
    "genesis",
    "link",
    "relink",
    "seat_link",
]

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


def seat_link(previous: str, seat: int, name: str, token_hash: str, sequence: int) -> str:
    """The chain hash of a seat claim whose predecessor's chain hash is ``previous``."""
    text = previous + "\nseat\n" + _canonical([seat, name, token_hash, sequence])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Claim:
    """What the chain covers of one seat claim row, with the link stored with it."""

    seat: int
    name: str
    token_hash: str
    sequence: int
    chain: str = ""


def claims_break(first: str, claims: Iterable[Claim]) -> tuple[int | None, str]:
    """(the first seat whose stored link is not what its predecessor and its fields make,
    None if every one is; the chain's head after the claims, which the first action links
    to). Claims are taken in the order of their sequence numbers; ``first`` is the game's
    genesis hash."""
    previous = first
    broken: int | None = None
    for claim in sorted(claims, key=lambda c: (c.sequence, c.seat)):
        expected = seat_link(previous, claim.seat, claim.name, claim.token_hash, claim.sequence)
        if claim.chain != expected and broken is None:
            broken = claim.seat
        previous = expected
    return broken, previous


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


def relink(
    game_id: str,
    created_unix_ms: int,
    settings: dict[str, Any],
    scenario_json: str,
    claims: Sequence[Claim],
    actions: Sequence[Sequence[Any]],
) -> tuple[str, dict[int, str], list[str] | None]:
    """The links of a game written before its claims were in the chain: (its genesis, each
    claim's link by seat, each action's link in order). ``actions`` are ``(version, seat,
    code, by_timeout, state_hash, sequence, idempotency_key, request_hash, chain)`` in version
    order, ``chain`` their link as written then (from the genesis). The claims are trusted as
    they are (once, at the upgrade); the actions are relinked from the last claim, if their
    old links hold; else None (they keep them, and loading the game reports the break)."""
    first = genesis(game_id, created_unix_ms, settings, scenario_json)
    _, head = claims_break(first, claims)
    seat_links: dict[int, str] = {}
    previous = first
    for claim in sorted(claims, key=lambda c: (c.sequence, c.seat)):
        previous = seat_link(previous, claim.seat, claim.name, claim.token_hash, claim.sequence)
        seat_links[claim.seat] = previous
    old, new = first, head
    links: list[str] = []
    for version, seat, code, by_timeout, state_hash, sequence, key, key_hash, written in actions:
        fields = (
            int(version), int(seat), int(code), bool(by_timeout), str(state_hash),
            int(sequence), str(key or ""), str(key_hash or ""),
        )  # fmt: skip
        old = link(old, *fields)
        if written != old:
            return first, seat_links, None
        new = link(new, *fields)
        links.append(new)
    return first, seat_links, links
