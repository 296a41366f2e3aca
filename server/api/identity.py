"""Who is calling: API keys, their roles and quotas, and anonymous callers.

A client sends its API key as gRPC metadata, ``authorization: Bearer <key>``. The server knows
keys from a keys file (TOML, ``--api-keys FILE``) that holds for each key a name, a role and
optionally its own quotas, and only the SHA-256 of the key, never the key::

    [defaults]                     # quotas of every key that does not set its own (optional)
    open_games = 1000

    [[keys]]
    name = "tournament-runner"     # shown in logs and metrics instead of the key
    role = "player"                # player, tournament, admin or ops
    sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    decision_rate = 5000           # its own quotas (optional; see server.api.quotas)

``python -m server.api.identity new NAME --role ROLE`` draws a key and prints it with its entry.
The file is read again whenever it changes (checked every few seconds, and on SIGHUP): keys can
be added, changed or revoked without a restart. A file that no longer parses keeps the keys
read before (the error is logged).

Roles: ``player`` creates, joins, plays and watches games and aborts the games it created;
``tournament`` is a player that may also choose its games' seeds (a tournament deals the same
cards to every line-up); ``admin`` may also choose seeds, create games from a scenario and
abort any game; ``ops`` only looks (lists, views and watches as a spectator, results,
replays): it cannot create, join, decide or abort. Anyone else's seed is mixed with server
randomness (``server.api.seeds``): whoever knows a game's seed knows every hidden card.

A caller without a key is anonymous, with the anonymous quotas, counted per peer address (an
IPv6 one per /64: ``quota_address``; ``make serve`` allows them; ``--require-api-key``
refuses them with UNAUTHENTICATED). A key the
server does not know is always UNAUTHENTICATED, never served as anonymous.

The old ``--admin-token`` setting keeps working: sent as a bearer key it is an admin key named
``admin-token``, and in ``CreateGameRequest.admin_token`` it still allows a scenario game.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from server.api.quotas import ANONYMOUS_DEFAULTS, KEY_DEFAULTS, QuotaPolicy, parse_policy

__all__ = [
    "ANONYMOUS",
    "LEGACY_ADMIN_NAME",
    "Identity",
    "KeyFileError",
    "KeyRing",
    "Role",
    "anonymous_identity",
    "hash_key",
    "main",
    "peer_address",
    "quota_address",
]

ANONYMOUS = "anonymous"
LEGACY_ADMIN_NAME = "admin-token"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")


class Role(StrEnum):
    PLAYER = "player"
    TOURNAMENT = "tournament"
    ADMIN = "admin"
    OPS = "ops"


@dataclass(frozen=True, slots=True)
class Identity:
    """One caller: a key's name and role, or an anonymous peer address."""

    name: str  # the key's name, or "anonymous": what logs and metrics show
    role: Role
    quota_key: str  # "key:<name>" or "anon:<peer address>": whose quotas are counted
    quotas: QuotaPolicy

    @property
    def anonymous(self) -> bool:
        return self.quota_key.startswith("anon:")

    @property
    def is_admin(self) -> bool:
        return self.role == Role.ADMIN

    @property
    def may_play(self) -> bool:
        """Whether it may create, join, decide and abort (every role but ops)."""
        return self.role != Role.OPS

    @property
    def may_choose_seed(self) -> bool:
        """Whether the seed it asks for is the game's seed (admin and tournament keys); a
        seed is every hidden card of the game, so anyone else's is mixed with the server's
        randomness."""
        return self.role in (Role.ADMIN, Role.TOURNAMENT)


def peer_address(peer: str) -> str:
    """The address of a gRPC peer without its port: ``ipv4:10.0.0.7:51234`` -> ``ipv4:10.0.0.7``
    (``ipv6:[::1]:5`` -> ``ipv6:[::1]``; anything else is kept whole, at most 128 characters,
    so an address in this form, such as ``server.cluster.client_address`` gives, stays as it is)."""
    kind, sep, rest = peer.partition(":")
    if sep and kind in ("ipv4", "ipv6"):
        host, colon, port = rest.rpartition(":")
        if colon and port.isdigit():
            return f"{kind}:{host}"[:128]
    return peer[:128]


# The prefix an IPv6 caller is counted by: a /64 is what one subscriber or host gets, and it
# holds 2^64 addresses, each of which would otherwise be a fresh anonymous quota.
IPV6_QUOTA_PREFIX = 64


def quota_address(address: str) -> str:
    """Whom an anonymous caller at ``address`` (``peer_address``'s form) is counted as: the
    address itself, or for IPv6 its /64 (``ipv6:[2001:db8:1:2::]/64``)."""
    kind, sep, rest = address.partition(":")
    if not sep or kind != "ipv6" or not rest.startswith("[") or not rest.endswith("]"):
        return address
    try:
        ip = ipaddress.IPv6Address(rest[1:-1].partition("%")[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return f"ipv4:{ip.ipv4_mapped}"
    network = ipaddress.IPv6Network(f"{ip}/{IPV6_QUOTA_PREFIX}", strict=False)
    return f"ipv6:[{network.network_address.compressed}]/{IPV6_QUOTA_PREFIX}"


def anonymous_identity(peer: str, policy: QuotaPolicy = ANONYMOUS_DEFAULTS) -> Identity:
    return Identity(ANONYMOUS, Role.PLAYER, f"anon:{quota_address(peer_address(peer))}", policy)


def hash_key(key: str) -> str:
    """What the keys file holds of a key: its SHA-256, hex."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class KeyFileError(ValueError):
    """The keys file cannot be used (the message names the file and the problem)."""


def _entries(data: Mapping[str, Any], where: str) -> dict[str, Identity]:
    defaults_table = data.get("defaults", {})
    if not isinstance(defaults_table, Mapping):
        raise KeyFileError(f"{where}: [defaults] must be a table")
    try:
        defaults = parse_policy(defaults_table, KEY_DEFAULTS)
    except ValueError as exc:
        raise KeyFileError(f"{where}: [defaults]: {exc}") from None
    keys = data.get("keys", [])
    if not isinstance(keys, list):
        raise KeyFileError(f"{where}: keys must be an array of tables ([[keys]])")
    unknown = sorted(set(data) - {"defaults", "keys"})
    if unknown:
        raise KeyFileError(f"{where}: unknown table {unknown[0]!r} (expected defaults, keys)")
    by_hash: dict[str, Identity] = {}
    names: set[str] = set()
    for i, entry in enumerate(keys):
        label = f"{where}: keys[{i}]"
        if not isinstance(entry, Mapping):
            raise KeyFileError(f"{label}: must be a table")
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name == ANONYMOUS:
            raise KeyFileError(
                f"{label}: name must be 1-64 characters from A-Z a-z 0-9 _ . @ - "
                f"(and not {ANONYMOUS!r}), got {name!r}"
            )
        if name in names:
            raise KeyFileError(f"{label}: the name {name!r} is used twice")
        names.add(name)
        role_text = entry.get("role", Role.PLAYER.value)
        try:
            role = Role(role_text)
        except ValueError:
            raise KeyFileError(
                f"{label} ({name}): role must be player, tournament, admin or ops, "
                f"got {role_text!r}"
            ) from None
        digest = entry.get("sha256")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest.lower()):
            raise KeyFileError(f"{label} ({name}): sha256 must be 64 hex digits")
        digest = digest.lower()
        if digest in by_hash:
            raise KeyFileError(f"{label} ({name}): the same key is listed twice")
        quotas = {k: v for k, v in entry.items() if k not in ("name", "role", "sha256")}
        try:
            policy = parse_policy(quotas, defaults)
        except ValueError as exc:
            raise KeyFileError(f"{label} ({name}): {exc}") from None
        by_hash[digest] = Identity(name, role, f"key:{name}", policy)
    return by_hash


class KeyRing:
    """The keys a server accepts, read from its keys file (and the legacy admin token)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        admin_token: str | None = None,
        anonymous: QuotaPolicy = ANONYMOUS_DEFAULTS,
    ) -> None:
        self.path = path
        self.anonymous_policy = anonymous
        self._admin_token = admin_token
        self._by_hash: dict[str, Identity] = {}
        self._stamp: tuple[int, int, int] | None = None
        self.loads = 0  # successful reads of the file

    def load(self) -> None:
        """Read the keys file (KeyFileError if it cannot be used; the old keys then stay)."""
        if self.path is None:
            return
        try:
            stat = os.stat(self.path)
            with open(self.path, "rb") as handle:
                data = tomllib.load(handle)
        except OSError as exc:
            raise KeyFileError(f"{self.path}: cannot read the keys file: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise KeyFileError(f"{self.path}: not valid TOML: {exc}") from None
        self._by_hash = _entries(data, str(self.path))
        self._stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        self.loads += 1

    def changed(self) -> bool:
        """Whether the file differs from the one last read."""
        if self.path is None:
            return False
        try:
            stat = os.stat(self.path)
        except OSError:
            return self._stamp is not None
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino) != self._stamp

    def names(self) -> list[str]:
        return sorted(i.name for i in self._by_hash.values())

    def identify(self, key: str) -> Identity | None:
        """The identity of a bearer key, or None if the server does not know it."""
        found = self._by_hash.get(hash_key(key))
        if found is not None:
            return found
        if self._admin_token is not None and hmac.compare_digest(
            key.encode(), self._admin_token.encode()
        ):
            return Identity(LEGACY_ADMIN_NAME, Role.ADMIN, f"key:{LEGACY_ADMIN_NAME}", KEY_DEFAULTS)
        return None

    def anonymous(self, peer: str) -> Identity:
        """An anonymous caller at ``peer`` (a gRPC peer, or an address without a port)."""
        return anonymous_identity(peer, self.anonymous_policy)


# -- python -m server.api.identity
# -------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.api.identity", description="Make API keys for a Yggdrasil keys file."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    new = sub.add_parser("new", help="draw a key; print it and the entry for the keys file")
    new.add_argument("name", help="the key's name (shown in logs and metrics)")
    new.add_argument("--role", choices=[r.value for r in Role], default=Role.PLAYER.value)
    sub.add_parser("hash", help="print the sha256 line of a key read from standard input")
    args = parser.parse_args(argv)
    if args.command == "new":
        if not _NAME.fullmatch(args.name) or args.name == ANONYMOUS:
            parser.error("name: 1-64 characters from A-Z a-z 0-9 _ . @ -")
        key = "ygg_" + secrets.token_urlsafe(32)
        print(f"# the key (give it to the client; it is not stored anywhere): {key}")
        print("[[keys]]")
        print(f'name = "{args.name}"')
        print(f'role = "{args.role}"')
        print(f'sha256 = "{hash_key(key)}"')
        return 0
    key = sys.stdin.readline().strip()
    if not key:
        parser.error("no key on standard input")
    print(f'sha256 = "{hash_key(key)}"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
