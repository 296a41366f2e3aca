"""Quota counters and token buckets, on a clock the tests move by hand."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
from google.rpc import code_pb2, error_details_pb2  # type: ignore[import-untyped]

from server.api.quotas import (
    ANONYMOUS_DEFAULTS,
    QuotaBook,
    QuotaExceeded,
    QuotaPolicy,
    TokenBucket,
    parse_policy_spec,
    quota_status,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Who:
    quota_key: str
    name: str = "bob"
    quotas: QuotaPolicy = field(
        default_factory=lambda: QuotaPolicy(
            open_games=2,
            create_rate=1.0,
            create_burst=3,
            decision_rate=10.0,
            decision_burst=2,
            streams=1,
        )
    )


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(0.0) == pytest.approx(0.5)  # the next token in half a second
    assert bucket.take(0.25) == pytest.approx(0.25)  # nothing was taken by the refusal
    assert bucket.take(0.5) == 0.0
    assert not bucket.full(0.5) and bucket.full(2.0)
    assert TokenBucket(math.inf, 1, 0.0).take(0.0) == 0.0
    once = TokenBucket(0.0, 1, 0.0)
    assert once.take(0.0) == 0.0 and math.isinf(once.take(50.0))
    assert math.isinf(TokenBucket(5.0, 0, 0.0).take(9.0))  # a burst of 0 allows nothing


def test_open_games_and_creation_rate() -> None:
    clock = Clock()
    refused: list[tuple[str, str]] = []
    book = QuotaBook(clock=clock, on_refusal=lambda client, limit: refused.append((client, limit)))
    who = Who("key:bob")
    book.charge_create(who)
    book.charge_create(who)
    with pytest.raises(QuotaExceeded) as caught:
        book.charge_create(who)
    assert caught.value.limit == "open_games" and caught.value.retry_after_s is None
    assert book.open_games("key:bob") == 2
    book.game_over("key:bob")
    book.charge_create(who)  # the third token of the burst
    book.game_over("key:bob")
    with pytest.raises(QuotaExceeded) as caught:
        book.charge_create(who)
    assert caught.value.limit == "create_rate"
    assert caught.value.retry_after_s == pytest.approx(1.0)
    clock.now += 1.0
    book.charge_create(who)
    assert refused == [("bob", "open_games"), ("bob", "create_rate")]
    # Another identity has its own counters.
    book.charge_create(Who("key:ann", "ann"))


def test_decisions_and_streams() -> None:
    clock = Clock()
    book = QuotaBook(clock=clock)
    who = Who("anon:ipv4:1.2.3.4", "anonymous")
    book.charge_decision(who)
    book.charge_decision(who)
    with pytest.raises(QuotaExceeded) as caught:
        book.charge_decision(who)
    assert caught.value.retry_after_s == pytest.approx(0.1)
    lease = book.open_stream(who)
    with pytest.raises(QuotaExceeded, match="at most 1 streams"):
        book.open_stream(who)
    lease.release()
    lease.release()  # idempotent
    assert book.streams(who.quota_key) == 0
    with book.open_stream(who):
        assert book.streams(who.quota_key) == 1
    assert book.streams(who.quota_key) == 0


def test_restored_games_count_and_new_limits_apply_on_the_next_call() -> None:
    book = QuotaBook(clock=Clock())
    book.count_open_game("key:bob")
    book.count_open_game("key:bob")
    assert book.open_games("key:bob") == 2
    with pytest.raises(QuotaExceeded):
        book.charge_create(Who("key:bob"))  # its own policy (2 open games) applies now


def test_idle_anonymous_callers_are_forgotten_past_the_cap() -> None:
    clock = Clock()
    book = QuotaBook(clock=clock, max_tracked=3)
    busy = Who("anon:busy")
    book.charge_create(busy)  # holds an open game: never forgotten
    for i in range(10):
        book.charge_decision(Who(f"anon:{i}"))
        clock.now += 10  # buckets refill: idle
    assert book.tracked() <= 3
    assert book.open_games("anon:busy") == 1


def test_the_status_has_quota_failure_and_retry_info() -> None:
    status = quota_status(QuotaExceeded("bob", "create_rate", "at most 1 new games a second", 0.25))
    assert status.code == code_pb2.RESOURCE_EXHAUSTED
    assert status.message == (
        "quota exceeded for client 'bob': at most 1 new games a second; retry in 0.250 s"
    )
    failure = error_details_pb2.QuotaFailure()
    retry = error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(failure) and status.details[1].Unpack(retry)
    assert failure.violations[0].subject == "client:bob"
    assert failure.violations[0].quota_id == "create_rate"
    assert retry.retry_delay.ToMilliseconds() == 250
    counted = quota_status(QuotaExceeded("bob", "streams", "at most 1 streams", None))
    assert len(counted.details) == 1


def test_policy_specs() -> None:
    spec = parse_policy_spec("open_games=3, streams=unlimited", ANONYMOUS_DEFAULTS)
    assert spec.open_games == 3 and math.isinf(spec.streams)
    assert spec.create_rate == ANONYMOUS_DEFAULTS.create_rate
    assert all(math.isinf(v) for v in vars_of(parse_policy_spec("unlimited", ANONYMOUS_DEFAULTS)))
    assert parse_policy_spec("", ANONYMOUS_DEFAULTS) == ANONYMOUS_DEFAULTS
    for bad in ("open_games", "speed=3", "streams=-2", "streams=lots"):
        with pytest.raises(ValueError):
            parse_policy_spec(bad, ANONYMOUS_DEFAULTS)


def vars_of(policy: QuotaPolicy) -> list[float]:
    return [getattr(policy, name) for name in policy.__slots__]
