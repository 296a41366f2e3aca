"""The INFO lines of a game's life: created, seat claimed, started, finished, left memory.

With the decisions' ``action_applied`` lines (``server.ops.logs.log_action_applied``) these are
what a server logs at INFO: a person running ``make serve`` can follow every game, and an
aggregator can count them, without the per-RPC access lines (DEBUG unless
``YGGDRASIL_ACCESS_LOG`` is on). Each function logs exactly one line from the values it is
given; nothing secret goes in (the seed stays out: it would tell the cards still to come).
"""

from __future__ import annotations

from collections.abc import Sequence

from structlog.typing import FilteringBoundLogger

from protocol.envelopes import GameResultPb
from server.games.record import GameSettings, Status

__all__ = [
    "game_aborted",
    "game_created",
    "game_finished",
    "game_left_memory",
    "game_started",
    "seat_claimed",
]


def game_created(
    logger: FilteringBoundLogger, game_id: str, settings: GameSettings, from_scenario: bool
) -> None:
    logger.info(
        "game_created",
        game_id=game_id,
        game=settings.game,
        players=settings.players,
        **settings.options,
        decision_time_limit_ms=settings.decision_time_limit_ms,
        from_scenario=from_scenario,
    )


def seat_claimed(
    logger: FilteringBoundLogger, game_id: str, seat: int, name: str, claimed: Sequence[bool]
) -> None:
    logger.info(
        "seat_claimed",
        game_id=game_id,
        seat=seat,
        name=name,
        seats_claimed=sum(claimed),
        players=len(claimed),
    )


def game_started(logger: FilteringBoundLogger, game_id: str, players: int) -> None:
    logger.info("game_started", game_id=game_id, players=players)


def game_finished(
    logger: FilteringBoundLogger, game_id: str, result: GameResultPb | None, version: int
) -> None:
    seats = sorted(result.seats, key=lambda r: r.seat) if result is not None else []
    logger.info(
        "game_finished",
        game_id=game_id,
        winners=list(result.winners) if result is not None else [],
        scores=[r.score for r in seats],
        version=version,
    )


def game_aborted(
    logger: FilteringBoundLogger,
    game_id: str,
    cause: str,
    reason: str,
    version: int,
    creator: str,
) -> None:
    logger.info(
        "game_aborted",
        game_id=game_id,
        cause=cause,
        reason=reason,
        version=version,
        creator=creator.partition(":")[2] if creator else "",
    )


def game_left_memory(
    logger: FilteringBoundLogger, game_id: str, status: Status, *, durable: bool
) -> None:
    logger.info(
        "game_left_memory",
        game_id=game_id,
        status=status.name.lower(),
        still_served_from_store=durable,
    )
