"""Quotas per client identity: what one caller may take of a server that many share.

Each identity (an API key, or an anonymous caller counted per peer address; see
``server.apikeys``) has a :class:`QuotaPolicy`:

* ``open_games``: games it created that are still OPEN or IN_PROGRESS;
* ``create_rate``/``create_burst``: a token bucket on CreateGame;
* ``decision_rate``/``decision_burst``: a token bucket on decisions (SubmitAction, and any other
  RPC that decides for a seat);
* ``streams``: WatchGame (and other long-lived) streams open at once.

:class:`QuotaBook` keeps the counters and is the one place every RPC checks them, so a new RPC
(a bidirectional play session, say) counts against the same quotas by calling
:meth:`QuotaBook.charge_decision` and :meth:`QuotaBook.open_stream` too. Going over a quota
raises :class:`QuotaExceeded`; :func:`quota_status` turns it into the RPC's status:
RESOURCE_EXHAUSTED with a message naming the limit, and google.rpc ``QuotaFailure`` and
``RetryInfo`` details (RetryInfo only where waiting helps: the rates, not the counts).

Nothing here awaits or locks: the server runs on one event loop, so a check and its charge
happen together. In a cluster two counts are kept for the whole cluster instead
(``server.cluster.shared_quotas``): open games by the store when a game is created
(``open_games_in_store``), streams by leases in the store (``shared_streams``, the one await:
:meth:`QuotaBook.open_stream_async`). The rates stay per node.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Protocol

from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2  # type: ignore[import-untyped]

__all__ = [
    "ANONYMOUS_DEFAULTS",
    "KEY_DEFAULTS",
    "UNLIMITED",
    "QuotaBook",
    "QuotaExceeded",
    "QuotaHolder",
    "QuotaPolicy",
    "SharedStreams",
    "StreamLease",
    "TokenBucket",
    "parse_policy",
    "parse_policy_spec",
    "quota_status",
]

UNLIMITED = math.inf


@dataclass(frozen=True, slots=True)
class QuotaPolicy:
    """What one identity may take. ``math.inf`` means no limit; rates are per second."""

    open_games: float
    create_rate: float
    create_burst: float
    decision_rate: float
    decision_burst: float
    streams: float

    def describe(self) -> dict[str, float | str]:
        """The policy as printable values ("unlimited" for no limit)."""
        return {f.name: _shown(getattr(self, f.name)) for f in fields(self)}


def _shown(value: float) -> float | str:
    return "unlimited" if math.isinf(value) else value


# Defaults (docs/operations.md lists them): an anonymous caller (counted per peer address) may
# keep 100 games open, create a game every 0.2 s on average with bursts of 50, decide 500 times
# a second with bursts of 1,000 and hold 256 streams; a caller with an API key ten times that,
# except the rate of decisions (one key may drive a whole tournament: 2,000 a second).
ANONYMOUS_DEFAULTS = QuotaPolicy(
    open_games=100,
    create_rate=5.0,
    create_burst=50,
    decision_rate=500.0,
    decision_burst=1000,
    streams=256,
)
KEY_DEFAULTS = QuotaPolicy(
    open_games=1000,
    create_rate=50.0,
    create_burst=500,
    decision_rate=2000.0,
    decision_burst=4000,
    streams=2560,
)

_FIELDS = tuple(f.name for f in fields(QuotaPolicy))


def _quota_value(name: str, value: Any) -> float:
    if isinstance(value, str) and value.strip().lower() in ("unlimited", "inf", "none"):
        return UNLIMITED
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name}: expected a number >= 0 or 'unlimited', got {value!r}")
    number = float(value)
    if math.isnan(number) or number < 0:
        raise ValueError(f"{name}: expected a number >= 0 or 'unlimited', got {value!r}")
    return number


def parse_policy(values: Mapping[str, Any], base: QuotaPolicy) -> QuotaPolicy:
    """``base`` with the quotas ``values`` sets (ValueError naming an unknown or bad one)."""
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown quota {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    return replace(base, **{name: _quota_value(name, v) for name, v in values.items()})


def parse_policy_spec(text: str, base: QuotaPolicy) -> QuotaPolicy:
    """``base`` changed by a spec such as ``open_games=20,streams=unlimited``; ``unlimited``
    alone lifts every limit."""
    text = text.strip()
    if text.lower() == "unlimited":
        return QuotaPolicy(*(UNLIMITED for _ in _FIELDS))
    values: dict[str, str | float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, raw = part.partition("=")
        if not sep:
            raise ValueError(f"expected NAME=VALUE, got {part!r}")
        raw = raw.strip()
        try:
            values[name.strip()] = float(raw)
        except ValueError:
            values[name.strip()] = raw
    return parse_policy(values, base)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; starts full. A burst below 1
    never holds a whole token: nothing is allowed."""

    __slots__ = ("_at", "_level", "burst", "rate")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._level = self.burst
        self._at = now

    def take(self, now: float) -> float:
        """Take one token: 0.0 if there was one, else the seconds until there is one (and
        nothing is taken)."""
        if math.isinf(self.rate):
            return 0.0
        level = min(self.burst, self._level + (now - self._at) * self.rate)
        self._at = now
        if level >= 1.0:
            self._level = level - 1.0
            return 0.0
        self._level = level
        if self.rate <= 0 or self.burst < 1:
            return math.inf
        return (1.0 - level) / self.rate

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled (its state can be forgotten)."""
        return math.isinf(self.rate) or self._level + (now - self._at) * self.rate >= self.burst


class QuotaExceeded(Exception):
    """An identity went over one of its quotas (nothing was charged)."""

    def __init__(
        self, client: str, limit: str, description: str, retry_after_s: float | None
    ) -> None:
        super().__init__(description)
        self.client = client
        self.limit = limit
        self.description = description
        self.retry_after_s = retry_after_s

    @property
    def message(self) -> str:
        wait = ""
        if self.retry_after_s is not None and math.isfinite(self.retry_after_s):
            wait = f"; retry in {max(self.retry_after_s, 0.001):.3f} s"
        return f"quota exceeded for client {self.client!r}: {self.description}{wait}"


def quota_status(exc: QuotaExceeded) -> status_pb2.Status:
    """The google.rpc.Status of a refusal: RESOURCE_EXHAUSTED, QuotaFailure, RetryInfo."""
    failure = error_details_pb2.QuotaFailure(
        violations=[
            error_details_pb2.QuotaFailure.Violation(
                subject=f"client:{exc.client}",
                description=exc.description,
                quota_id=exc.limit,
            )
        ]
    )
    details = [_packed(failure)]
    if exc.retry_after_s is not None and math.isfinite(exc.retry_after_s):
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(max(1_000_000, int(exc.retry_after_s * 1e9)))
        details.append(_packed(error_details_pb2.RetryInfo(retry_delay=delay)))
    return status_pb2.Status(
        code=code_pb2.RESOURCE_EXHAUSTED, message=exc.message[:1024], details=details
    )


def _packed(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


@dataclass(eq=False, slots=True)
class _Usage:
    """The counters of one identity."""

    policy: QuotaPolicy
    name: str  # shown in messages, logs and metrics
    creates: TokenBucket
    decisions: TokenBucket
    open_games: int = 0
    streams: int = 0

    def idle(self, now: float) -> bool:
        return (
            self.open_games == 0
            and self.streams == 0
            and self.creates.full(now)
            and self.decisions.full(now)
        )


class SharedStreams(Protocol):
    """Streams counted across a cluster (``server.cluster.shared_quotas.StreamLeases``)."""

    async def acquire(self, quota_key: str, limit: float) -> str | None: ...

    def release(self, lease: str) -> None: ...


class StreamLease:
    """One open stream counted against its identity; :meth:`release` once (idempotent)."""

    __slots__ = ("_book", "_key", "_shared")

    def __init__(self, book: QuotaBook, key: str) -> None:
        self._book = book
        self._key: str | None = key
        self._shared: tuple[SharedStreams, str] | None = None  # its cluster-wide lease

    def release(self) -> None:
        key, self._key = self._key, None
        if key is not None:
            self._book._stream_closed(key)
        shared, self._shared = self._shared, None
        if shared is not None:
            shared[0].release(shared[1])

    def __enter__(self) -> StreamLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# Anonymous identities kept at most (least recently seen forgotten first, never one with open
# games or streams): one per peer address, so a flood of addresses cannot grow it for ever.
MAX_TRACKED = 10_000

RefusalHook = Callable[[str, str], None]  # (client name, limit) of every refusal


class QuotaHolder(Protocol):
    """Whom quotas are counted for (``server.api.identity.Identity``)."""

    @property
    def quota_key(self) -> str: ...  # one per key, or per anonymous peer address

    @property
    def name(self) -> str: ...  # shown in messages, logs and metrics

    @property
    def quotas(self) -> QuotaPolicy: ...


class QuotaBook:
    """The quota counters of every identity, keyed by ``Identity.quota_key``.

    ``on_refusal`` is called with (client name, limit name) for each refusal (metrics)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_refusal: RefusalHook | None = None,
        max_tracked: int = MAX_TRACKED,
    ) -> None:
        self._clock = clock
        self._usage: OrderedDict[str, _Usage] = OrderedDict()
        self._on_refusal = on_refusal
        self._max_tracked = max_tracked
        # A cluster node: the store counts open games when a game is created (the API passes
        # the limit: server.stores.contract.GameStore.create), and streams are leased from it.
        self.open_games_in_store = False
        self.shared_streams: SharedStreams | None = None

    # -- the counters of one identity ---------------------------------------------------------

    def _of(self, who: QuotaHolder) -> _Usage:
        key, name, policy = who.quota_key, who.name, who.quotas
        usage = self._usage.get(key)
        now = self._clock()
        if usage is None:
            usage = _Usage(
                policy,
                name,
                TokenBucket(policy.create_rate, policy.create_burst, now),
                TokenBucket(policy.decision_rate, policy.decision_burst, now),
            )
            self._usage[key] = usage
            self._forget_idle(now)
        else:
            self._usage.move_to_end(key)
            if usage.policy != policy:  # the keys file changed: new limits, counts kept
                usage.policy = policy
                usage.creates = TokenBucket(policy.create_rate, policy.create_burst, now)
                usage.decisions = TokenBucket(policy.decision_rate, policy.decision_burst, now)
            usage.name = name
        return usage

    def _forget_idle(self, now: float) -> None:
        if len(self._usage) <= self._max_tracked:
            return
        for key in list(self._usage):
            if len(self._usage) <= self._max_tracked:
                break
            if self._usage[key].idle(now):
                del self._usage[key]

    def _refuse(self, usage: _Usage, limit: str, text: str, retry: float | None) -> QuotaExceeded:
        if self._on_refusal is not None:
            self._on_refusal(usage.name, limit)
        return QuotaExceeded(usage.name, limit, text, retry)

    # -- checks (each raises QuotaExceeded, or charges) -------------------------------------

    def charge_create(self, who: QuotaHolder) -> None:
        """Count a game about to be created (undo with :meth:`game_over` if it is not)."""
        usage = self._of(who)
        policy = usage.policy
        if not self.open_games_in_store and usage.open_games + 1 > policy.open_games:
            raise self.refuse_open_games(who)
        wait = usage.creates.take(self._clock())
        if wait > 0:
            raise self._refuse(
                usage,
                "create_rate",
                f"at most {policy.create_rate:g} new games a second (bursts of "
                f"{int(policy.create_burst)})",
                wait,
            )
        usage.open_games += 1

    def refuse_open_games(self, who: QuotaHolder) -> QuotaExceeded:
        """The refusal of a game over the open-games quota (counted here, or by the store)."""
        usage = self._of(who)
        return self._refuse(
            usage,
            "open_games",
            f"at most {int(usage.policy.open_games)} open or in-progress games created by this "
            "client; finish or abort some first",
            None,
        )

    def game_over(self, key: str) -> None:
        """A game this identity created finished, was aborted, or was never created."""
        usage = self._usage.get(key)
        if usage is not None and usage.open_games > 0:
            usage.open_games -= 1

    def count_open_game(self, key: str) -> None:
        """Count a game restored at start-up for the identity ``key`` (no limit is checked:
        the game exists already). Its limits are those of its next call."""
        usage = self._usage.get(key)
        if usage is None:
            now = self._clock()
            placeholder = ANONYMOUS_DEFAULTS
            usage = self._usage[key] = _Usage(
                placeholder,
                key.partition(":")[2] if key.startswith("key:") else "anonymous",
                TokenBucket(placeholder.create_rate, placeholder.create_burst, now),
                TokenBucket(placeholder.decision_rate, placeholder.decision_burst, now),
            )
        usage.open_games += 1

    def charge_decision(self, who: QuotaHolder) -> None:
        """Count one decision."""
        usage = self._of(who)
        policy = usage.policy
        wait = usage.decisions.take(self._clock())
        if wait > 0:
            raise self._refuse(
                usage,
                "decision_rate",
                f"at most {policy.decision_rate:g} decisions a second (bursts of "
                f"{int(policy.decision_burst)})",
                wait,
            )

    def open_stream(self, who: QuotaHolder) -> StreamLease:
        """Count one stream until the returned lease is released."""
        usage = self._of(who)
        policy = usage.policy
        if usage.streams + 1 > policy.streams:
            raise self._refuse(
                usage,
                "streams",
                f"at most {int(policy.streams)} streams open at once; close some first",
                None,
            )
        usage.streams += 1
        return StreamLease(self, who.quota_key)

    async def open_stream_async(self, who: QuotaHolder) -> StreamLease:
        """:meth:`open_stream`, and in a cluster the stream's lease from the store (the
        count across every node; QuotaExceeded at the limit). If the store cannot be reached
        the stream is let through on the node's own count (a quota never blocks play on a
        database hiccup; the store refuses what matters then anyway)."""
        lease = self.open_stream(who)
        shared = self.shared_streams
        limit = self._of(who).policy.streams
        if shared is None or math.isinf(limit):
            return lease
        try:
            held = await shared.acquire(who.quota_key, limit)
        except Exception:
            return lease
        except BaseException:
            lease.release()
            raise
        if held is None:
            lease.release()
            usage = self._of(who)
            raise self._refuse(
                usage,
                "streams",
                f"at most {int(limit)} streams open at once (across the cluster); close some "
                "first",
                None,
            )
        lease._shared = (shared, held)
        return lease

    def _stream_closed(self, key: str) -> None:
        usage = self._usage.get(key)
        if usage is not None and usage.streams > 0:
            usage.streams -= 1

    # -- reading ------------------------------------------------------------------------------

    def open_games(self, key: str) -> int:
        usage = self._usage.get(key)
        return 0 if usage is None else usage.open_games

    def open_games_by_client(self) -> dict[str, int]:
        """Open or in-progress games by quota key (clients with none left out)."""
        return {key: u.open_games for key, u in self._usage.items() if u.open_games}

    def streams(self, key: str) -> int:
        usage = self._usage.get(key)
        return 0 if usage is None else usage.streams

    def tracked(self) -> int:
        return len(self._usage)
