"""Server configuration: defaults, overridden by environment, overridden by flags.

Every option has a ``YGGDRASIL_*`` environment variable and a command-line
flag; see :data:`OPTIONS`.  An environment variable set to the empty string
counts as unset.  Bad values fail early: a flag with ``argparse``'s usual
error (exit status 2), an environment variable with a ``ValueError`` that
names the variable.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from engine import registry
from protocol.registry import all_wires
from protocol.wire import Wire
from server.api.quotas import ANONYMOUS_DEFAULTS, QuotaPolicy, parse_policy_spec
from server.cluster.client_address import TrustedProxies
from server.ops.tls import TlsFiles

__all__ = ["OPTIONS", "Option", "ServerConfig", "build_arg_parser", "game_options"]

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _int_in(low: int, high: int | None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise ValueError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            raise ValueError(f"expected an integer in {bounds}, got {value}")
        return value

    return parse


def _non_negative_float(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"expected a finite number >= 0, got {text!r}")
    return value


def _keepalive_seconds(text: str) -> float:
    value = _non_negative_float(text)
    if not 0.1 <= value <= 3600:
        raise ValueError(f"expected seconds from 0.1 to 3600, got {text!r}")
    return value


def _connection_seconds(text: str) -> float:
    value = _non_negative_float(text)
    if value < 0.1:
        raise ValueError(f"expected seconds >= 0.1, got {text!r}")
    return value


def _non_empty(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


def _host(text: str) -> str:
    return _non_empty(text).strip()


def _path(text: str) -> Path:
    return Path(_non_empty(text))


# The largest request the server reads (a scenario is a few KB; gRPC's default is 4 MiB).
MAX_REQUEST_BYTES = 1024 * 1024

STORE_KINDS = ("sqlite", "memory", "postgres")


def _store_kind(text: str) -> str:
    kind = text.strip().lower()
    if kind not in STORE_KINDS:
        raise ValueError(f"expected one of {', '.join(STORE_KINDS)}, got {text!r}")
    return kind


def _lease_seconds(text: str) -> float:
    value = _non_negative_float(text)
    if not 0.05 <= value <= 600:
        raise ValueError(f"expected seconds from 0.05 to 600, got {text!r}")
    return value


def _address(text: str) -> str:
    value = _non_empty(text).strip()
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected host:port, got {text!r}")
    return value


def _batch_delay_ms(text: str) -> float:
    value = _non_negative_float(text)
    if value > 1000:
        raise ValueError(f"expected milliseconds from 0 to 1000, got {text!r}")
    return value


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected on/off (or true/false, 1/0), got {text!r}")


def _quota_spec(text: str) -> str:
    parse_policy_spec(text, ANONYMOUS_DEFAULTS)  # ValueError names what is wrong
    return text.strip()


def _proxies(text: str) -> str:
    TrustedProxies.parse(text)  # ValueError names the entry that is not an address
    return text.strip()


SEED_CHOICES = ("keys", "anyone")
RESTORE_MODES = ("lazy", "eager")


def _restore_mode(text: str) -> str:
    mode = text.strip().lower()
    if mode not in RESTORE_MODES:
        raise ValueError(f"expected one of {', '.join(RESTORE_MODES)}, got {text!r}")
    return mode


def _seed_choice(text: str) -> str:
    choice = text.strip().lower()
    if choice not in SEED_CHOICES:
        raise ValueError(f"expected one of {', '.join(SEED_CHOICES)}, got {text!r}")
    return choice


def _log_level(text: str) -> str:
    level = text.strip().upper()
    if level == "WARN":
        level = "WARNING"
    if level not in _LOG_LEVELS:
        raise ValueError(f"expected one of {', '.join(_LOG_LEVELS)}, got {text!r}")
    return level


_TLS_FILES = ("tls_cert", "tls_key", "tls_client_ca", "tls_node_ca")

# Options whose empty value is their default (nothing changed, nobody trusted).
_MAY_BE_EMPTY = ("anonymous_quota", "trusted_proxies")


@dataclass(frozen=True)
class Option:
    """One setting: its field, environment variable, flag and parser."""

    name: str
    parse: Callable[[str], Any]
    help: str
    metavar: str

    @property
    def env_var(self) -> str:
        return "YGGDRASIL_" + self.name.upper()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


OPTIONS: tuple[Option, ...] = (
    Option("host", _host, "address to listen on (default 127.0.0.1)", "ADDR"),
    Option("port", _int_in(0, 65535), "gRPC port; 0 picks a free one (default 50051)", "PORT"),
    Option(
        "metrics_port",
        _int_in(-1, 65535),
        "Prometheus /metrics port; 0 picks a free one, -1 disables (default 9464)",
        "PORT",
    ),
    Option("data_dir", _path, "directory for game logs and snapshots (default ./data)", "DIR"),
    Option(
        "store",
        _store_kind,
        "where game logs go: sqlite (durable, <data-dir>/games.sqlite3; the default), "
        "postgres (a cluster's shared store: --database-url; docs/cluster.md) or "
        "memory (lost on exit; for tests and benchmarks)",
        "KIND",
    ),
    Option(
        "fsync",
        _bool,
        "sync every commit to disk (default on; off risks acknowledged decisions on a "
        "machine crash: benchmarks only)",
        "ON|OFF",
    ),
    Option(
        "restore",
        _restore_mode,
        "how a restart hosts the unfinished games again: lazy (read their index, serve at "
        "once, rebuild each game from its log on first use or when its clock is due; the "
        "default) or eager (rebuild every game before serving; docs/durability.md)",
        "MODE",
    ),
    Option(
        "admin_token",
        _non_empty,
        "token that enables scenario CreateGame and a game's privileged options (such as a "
        "data pack of the caller's own) (default: disabled); "
        "prefer the environment variable, flags are visible to other users",
        "TOKEN",
    ),
    Option(
        "api_keys",
        _path,
        "TOML file of API keys (names, roles, quotas, SHA-256 of each key); re-read when it "
        "changes (default: none, only anonymous callers and the admin token)",
        "FILE",
    ),
    Option(
        "require_api_key",
        _bool,
        "refuse callers without an API key with UNAUTHENTICATED (default off: anonymous "
        "callers get the anonymous quotas, counted per peer address)",
        "ON|OFF",
    ),
    Option(
        "anonymous_quota",
        _quota_spec,
        "quotas of anonymous callers, e.g. 'open_games=20,streams=64' or 'unlimited' "
        "(names: open_games, create_rate, create_burst, decision_rate, decision_burst, "
        "streams; defaults in docs/operations.md)",
        "SPEC",
    ),
    Option(
        "trusted_proxies",
        _proxies,
        "addresses or CIDR blocks of proxies in front of the server (Envoy; in a cluster "
        "also the nodes, which relay calls): for a call from one of them an anonymous "
        "caller is counted by the client address in x-forwarded-for (default: none, the "
        "peer address always)",
        "ADDRS",
    ),
    Option(
        "seed_choice",
        _seed_choice,
        "whose asked-for seed deals a new game: keys (admin and tournament API keys only; "
        "anyone else's is mixed with server randomness: a seed reveals every hidden card; "
        "the default) or anyone (every creator's: only for a server whose players all trust "
        "every creator, such as a bot lab)",
        "keys|anyone",
    ),
    Option(
        "cluster_secret_file",
        _path,
        "file of the cluster's shared secret(s) that sign node-to-node calls, one per line: the "
        "first signs, all are accepted; re-read when it changes and on SIGHUP (rotation); a "
        "cluster node (--store postgres) needs it or --cluster-secret (docs/cluster.md)",
        "FILE",
    ),
    Option(
        "cluster_secret",
        _non_empty,
        "the cluster's shared secret(s) instead of a file, comma-separated (the first signs); "
        "rotating them needs a restart; prefer the environment variable, flags are visible",
        "SECRETS",
    ),
    Option(
        "tls_cert",
        _path,
        "PEM certificate (chain) of the gRPC port: with --tls-key the port speaks TLS only; "
        "re-read when it changes (default: none, plaintext; docs/operations.md, TLS)",
        "FILE",
    ),
    Option("tls_key", _path, "PEM private key of --tls-cert (re-read when it changes)", "FILE"),
    Option(
        "tls_client_ca",
        _path,
        "PEM CA certificate(s): every caller must present a certificate they signed (mutual "
        "TLS: a cluster node's port, reached by Envoy and the other nodes only; needs "
        "--tls-cert)",
        "FILE",
    ),
    Option(
        "tls_node_ca",
        _path,
        "PEM CA certificate(s) a cluster node checks the other nodes' certificates with when "
        "it relays a call to them over TLS (default: --tls-client-ca)",
        "FILE",
    ),
    Option(
        "database_url",
        _non_empty,
        "PostgreSQL URL of --store postgres (default: empty, so libpq's PG* variables such "
        "as PGHOST, PGUSER, PGDATABASE apply); prefer the environment, flags are visible",
        "URL",
    ),
    Option(
        "node_id",
        _non_empty,
        "this node's name in a cluster (default: host name and port)",
        "NAME",
    ),
    Option(
        "node_address",
        _address,
        "host:port other nodes reach this node's gRPC port at, to forward calls to the "
        "game's owner (default: --host and the bound port)",
        "HOST:PORT",
    ),
    Option(
        "lease_ttl_s",
        _lease_seconds,
        "a node's lease lasts this long after each renewal, by the database's clock; a "
        "dead node's games wait this long for a takeover (default 5)",
        "SECONDS",
    ),
    Option(
        "lease_renew_s",
        _lease_seconds,
        "seconds between lease renewals (default 1)",
        "SECONDS",
    ),
    Option(
        "lease_margin_s",
        _lease_seconds,
        "a node stops serving this long before its lease could expire, on its own clock "
        "(default 1; covers clock-rate drift and a slow renewal reply)",
        "SECONDS",
    ),
    Option(
        "pool_size",
        _int_in(1, 1000),
        "most PostgreSQL connections of one node (default 8)",
        "N",
    ),
    Option(
        "store_batch_max",
        _int_in(1, 10_000),
        "most decisions the PostgreSQL store commits in one transaction (group commit; "
        "1: each on its own; default 256)",
        "N",
    ),
    Option(
        "store_batch_delay_ms",
        _batch_delay_ms,
        "longest a decision waits for others to join its PostgreSQL batch; 0: a batch "
        "leaves as soon as a connection is free, and grows with the load (default 0)",
        "MS",
    ),
    Option(
        "store_batch_in_flight",
        _int_in(1, 1000),
        "PostgreSQL batches being committed at once, each on a pooled connection (below "
        "--pool-size; default 2)",
        "N",
    ),
    Option(
        "open_game_timeout_s",
        _non_negative_float,
        "abort an OPEN game whose seats are not all claimed this long after its creation; "
        "0: never (default 1800)",
        "SECONDS",
    ),
    Option(
        "idle_game_timeout_s",
        _non_negative_float,
        "abort an IN_PROGRESS game without a decision time limit after this long without a "
        "decision; 0: never (default 86400)",
        "SECONDS",
    ),
    Option(
        "max_spectators_per_game",
        _int_in(0, None),
        "spectator streams one game may have open at once (its seats' streams are counted "
        "apart; default 1000)",
        "N",
    ),
    Option(
        "connection_idle_s",
        _connection_seconds,
        "close a client connection with no call for this long; a TCP connection that never "
        "completes its HTTP/2 handshake is closed after this long or 20 s (default 300)",
        "SECONDS",
    ),
    Option(
        "connection_age_s",
        _non_negative_float,
        "ask a client to reconnect once its connection is this old (GOAWAY); 0: never "
        "(default 7200)",
        "SECONDS",
    ),
    Option(
        "connection_age_grace_s",
        _non_negative_float,
        "calls still open on a connection that has been asked to reconnect get this long "
        "before they are cut (streams end UNAVAILABLE and clients resume; default 600)",
        "SECONDS",
    ),
    Option(
        "max_streams_per_connection",
        _int_in(1, 1_000_000),
        "calls one connection may have open at once; clients queue past it (default 256)",
        "N",
    ),
    Option("snapshot_every", _int_in(1, None), "snapshot every N actions (default 50)", "N"),
    Option(
        "finished_game_retention_s",
        _non_negative_float,
        "seconds a finished game stays in memory (default 600)",
        "SECONDS",
    ),
    Option("log_level", _log_level, "DEBUG, INFO, WARNING, ERROR or CRITICAL", "LEVEL"),
    Option(
        "access_log",
        _bool,
        "log one `rpc` line per call at INFO (default off: at DEBUG; INFO logs one line per "
        "decision and per game lifecycle event)",
        "ON|OFF",
    ),
    Option(
        "grace_period_s",
        _non_negative_float,
        "seconds in-flight RPCs get on shutdown (default 5)",
        "SECONDS",
    ),
    Option("max_games", _int_in(1, None), "most games hosted at once (default 10000)", "N"),
    Option(
        "keepalive_s",
        _keepalive_seconds,
        "ping a client connection idle this long; one that does not answer within the same "
        "time (20 s at most) is dropped and its streams end (default 60)",
        "SECONDS",
    ),
)


@cache
def game_options() -> tuple[Option, ...]:
    """The settings the registered games' wires declare (``protocol.wire.ServerOption``), as
    options like the server's own: a flag and a ``YGGDRASIL_*`` variable each. ValueError if
    one's name is taken (by the server or another game)."""
    found: list[Option] = []
    taken = {o.name for o in OPTIONS}
    for wire in all_wires():
        for declared in wire.server_options():
            if declared.name in taken:
                raise ValueError(
                    f"the server option {declared.name!r} of game {wire.rules.name} is taken"
                )
            taken.add(declared.name)
            found.append(Option(declared.name, declared.check, declared.help, declared.metavar))
    return tuple(found)


@dataclass(frozen=True)
class ServerConfig:
    """Settings of one server process."""

    host: str = "127.0.0.1"
    port: int = 50051
    metrics_port: int = 9464
    data_dir: Path = Path("data")
    store: str = "sqlite"
    fsync: bool = True
    restore: str = "lazy"
    admin_token: str | None = field(default=None, repr=False)
    api_keys: Path | None = None
    require_api_key: bool = False
    anonymous_quota: str = ""
    trusted_proxies: str = ""
    seed_choice: str = "keys"
    cluster_secret_file: Path | None = None
    cluster_secret: str | None = field(default=None, repr=False)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None
    tls_node_ca: Path | None = None
    database_url: str | None = field(default=None, repr=False)
    node_id: str | None = None
    node_address: str | None = None
    lease_ttl_s: float = 5.0
    lease_renew_s: float = 1.0
    lease_margin_s: float = 1.0
    pool_size: int = 8
    store_batch_max: int = 256
    store_batch_delay_ms: float = 0.0
    store_batch_in_flight: int = 2
    open_game_timeout_s: float = 1800.0
    idle_game_timeout_s: float = 86400.0
    max_spectators_per_game: int = 1000
    connection_idle_s: float = 300.0
    connection_age_s: float = 7200.0
    connection_age_grace_s: float = 600.0
    max_streams_per_connection: int = 256
    snapshot_every: int = 50
    finished_game_retention_s: float = 600.0
    game_settings: Mapping[str, str] = field(default_factory=dict)
    """The values of the settings the games' wires declare (:func:`game_options`), by name."""
    log_level: str = "INFO"
    access_log: bool = False
    grace_period_s: float = 5.0
    max_games: int = 10000
    keepalive_s: float = 60.0

    def __post_init__(self) -> None:
        # Re-check values given directly to the constructor.
        for option in OPTIONS:
            value = getattr(self, option.name)
            if value is None or (option.name in _MAY_BE_EMPTY and value == ""):
                continue
            try:
                parsed = option.parse(str(value))
            except ValueError as exc:
                raise ValueError(f"{option.name}: {exc}") from None
            if option.name in ("log_level", "store", "seed_choice", "restore"):
                object.__setattr__(self, option.name, parsed)
        declared = {o.name: o for o in game_options()}
        settings: dict[str, str] = {}
        for name, value in self.game_settings.items():
            if name not in declared:
                raise ValueError(f"no game has a server option {name!r}")
            try:
                settings[name] = declared[name].parse(value) if value != "" else ""
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
        object.__setattr__(self, "game_settings", settings)
        # Accept a str from callers that ignore the annotation.
        object.__setattr__(self, "data_dir", Path(self.data_dir))
        if self.api_keys is not None:
            object.__setattr__(self, "api_keys", Path(self.api_keys))
        if self.cluster_secret_file is not None:
            object.__setattr__(self, "cluster_secret_file", Path(self.cluster_secret_file))
        self._check_tls()
        if self.metrics_port > 0 and self.metrics_port == self.port:
            raise ValueError(f"port and metrics_port are both {self.port}")
        if self.store == "postgres" and self.store_batch_in_flight >= self.pool_size:
            raise ValueError(
                f"store_batch_in_flight ({self.store_batch_in_flight}) must be below pool_size "
                f"({self.pool_size}): the other writes and the reads need connections too"
            )
        if not 0 < self.lease_renew_s < self.lease_ttl_s - self.lease_margin_s:
            raise ValueError(
                f"lease_renew_s ({self.lease_renew_s}) must be shorter than lease_ttl_s "
                f"({self.lease_ttl_s}) minus lease_margin_s ({self.lease_margin_s})"
            )

    def _check_tls(self) -> None:
        for name in _TLS_FILES:
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, Path(value))
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together: give both, or neither")
        if self.tls_cert is None and (self.tls_client_ca or self.tls_node_ca):
            raise ValueError("tls_client_ca and tls_node_ca need tls_cert and tls_key")

    @property
    def tls_files(self) -> TlsFiles | None:
        """The TLS material of the gRPC port (None: plaintext)."""
        if self.tls_cert is None or self.tls_key is None:
            return None
        return TlsFiles(self.tls_cert, self.tls_key, self.tls_client_ca, self.tls_node_ca)

    @property
    def grpc_options(self) -> list[tuple[str, int]]:
        """Channel arguments of the gRPC server.

        Keepalive: a client that vanished without closing its connection (a phone that lost
        its network, a killed VM) would otherwise hold its WatchGame streams, their watchers
        and their memory for the kernel's TCP timeout, hours. Clients may ping as often as
        once a second while a call is open (the SDK pings every 20 s), with no data between.
        SO_REUSEPORT is off: a second server on the same port and data directory would start
        and split the traffic.

        Bounded connections (docs/operations.md): a connection with no call is closed after
        ``connection_idle_s``, one that never completes its HTTP/2 handshake sooner; old
        connections are asked to reconnect after ``connection_age_s`` (their calls get
        ``connection_age_grace_s``); a client that pings more often than once a second is
        told to calm down and then dropped; ``max_streams_per_connection`` calls per
        connection; requests of at most MAX_REQUEST_BYTES."""
        ping_ms = int(self.keepalive_s * 1000)
        answer_ms = min(ping_ms, 20_000)
        idle_ms = int(self.connection_idle_s * 1000)
        bounds = [
            ("grpc.max_connection_idle_ms", idle_ms),
            ("grpc.server_handshake_timeout_ms", min(idle_ms, 20_000)),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 1000),
            ("grpc.http2.max_ping_strikes", 2),
            ("grpc.max_concurrent_streams", self.max_streams_per_connection),
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
        ]
        if self.connection_age_s > 0:
            bounds += [
                ("grpc.max_connection_age_ms", int(self.connection_age_s * 1000)),
                ("grpc.max_connection_age_grace_ms", int(self.connection_age_grace_s * 1000)),
            ]
        return [
            *bounds,
            ("grpc.so_reuseport", 0),
            ("grpc.keepalive_time_ms", ping_ms),
            # Both: with gRPC 1.85 the keepalive timeout alone let an unanswered ping wait
            # (still open after 40 s); the ping timeout ends the connection.
            ("grpc.keepalive_timeout_ms", answer_ms),
            ("grpc.http2.ping_timeout_ms", answer_ms),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", 1000),
            ("grpc.http2.max_pings_without_data", 0),
        ]

    @property
    def anonymous_policy(self) -> QuotaPolicy:
        """The quotas of anonymous callers (the defaults changed by ``anonymous_quota``)."""
        return parse_policy_spec(self.anonymous_quota, ANONYMOUS_DEFAULTS)

    @property
    def proxies(self) -> TrustedProxies:
        """The proxies whose x-forwarded-for is believed (``server.cluster.client_address``)."""
        return TrustedProxies.parse(self.trusted_proxies)

    def settings_for(self, wire: Wire) -> dict[str, str]:
        """The values of ``wire``'s server options ("" where not set), for ``wire.configure``."""
        return {o.name: self.game_settings.get(o.name, "") for o in wire.server_options()}

    @property
    def store_path(self) -> Path:
        """The SQLite game store's file."""
        return self.data_dir / "games.sqlite3"

    @property
    def metrics_enabled(self) -> bool:
        """False when metrics_port is -1."""
        return self.metrics_port != -1

    @property
    def scenario_create_enabled(self) -> bool:
        """Whether scenario CreateGame is allowed (an admin token is set)."""
        return self.admin_token is not None

    @classmethod
    def from_env_and_args(
        cls,
        argv: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        *,
        prog: str | None = None,
    ) -> ServerConfig:
        """Defaults, then ``YGGDRASIL_*`` from ``env``, then flags from ``argv``.

        ``argv`` defaults to ``sys.argv[1:]`` and ``env`` to ``os.environ``.
        """
        environ: Mapping[str, str] = os.environ if env is None else env
        values: dict[str, Any] = {}
        games = game_options()
        for option in (*OPTIONS, *games):
            raw = environ.get(option.env_var)
            if raw is None or raw == "":
                continue
            try:
                values[option.name] = option.parse(raw)
            except ValueError as exc:
                raise ValueError(f"{option.env_var}: {exc}") from None
        parser = build_arg_parser(prog)
        args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
        values.update(vars(args))
        values["game_settings"] = {o.name: values.pop(o.name) for o in games if o.name in values}
        try:
            return cls(**values)
        except ValueError as exc:
            parser.error(str(exc))


def _argparse_type(option: Option) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option.name
    return parse


def build_arg_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser (only flags actually given appear in its result)."""
    games = ", ".join(game.name for game in registry.GAMES)
    parser = argparse.ArgumentParser(
        prog=prog,
        description=f"Yggdrasil: a gRPC server hosting board games ({games}).",
        argument_default=argparse.SUPPRESS,
    )
    for option in (*OPTIONS, *game_options()):
        parser.add_argument(
            option.flag,
            dest=option.name,
            type=_argparse_type(option),
            metavar=option.metavar,
            help=f"{option.help} [env {option.env_var}]",
        )
    return parser
