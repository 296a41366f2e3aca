"""The INFO lines of a game's life: created, seat claimed, started, finished, left memory.

With the decisions' ``action_applied`` lines (``server.ops.logs.log_action_applied``) these are
what a server logs at INFO: a person running ``make serve`` can follow every game, and an
aggregator can count them, without the per-RPC access lines (DEBUG unless
``YGGDRASIL_ACCESS_LOG`` is on). Each function logs exactly one line and reads what it
needs from the game; nothing secret goes in (the seed stays out: it would tell the cards
still to come).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from structlog.typing import FilteringBoundLogger

if TYPE_CHECKING:
    from server.games.game import Game

__all__ = [
    "game_aborted",
    "game_created",
    "game_finished",
    "game_left_memory",
    "game_started",
    "seat_claimed",
]


def game_created(logger: FilteringBoundLogger, game: Game) -> None:
    s = game.settings
    logger.info(
        "game_created",
        game_id=game.id,
        players=s.players,
        draft_mode=s.draft_mode,
        decision_time_limit_ms=s.decision_time_limit_ms,
        from_scenario=bool(game.record.scenario_json),
    )


def seat_claimed(logger: FilteringBoundLogger, game: Game, seat: int) -> None:
    claimed = game.claimed()
    logger.info(
        "seat_claimed",
        game_id=game.id,
        seat=seat,
        name=game.names[seat],
        seats_claimed=sum(claimed),
        players=len(claimed),
    )


def game_started(logger: FilteringBoundLogger, game: Game) -> None:
    logger.info("game_started", game_id=game.id, players=game.state.players)


def game_finished(logger: FilteringBoundLogger, game: Game) -> None:
    result = game.result
    seats = sorted(result.seats, key=lambda r: r.seat) if result is not None else []
    logger.info(
        "game_finished",
        game_id=game.id,
        winners=list(result.winners) if result is not None else [],
        glory=[r.score for r in seats],
        version=game.version,
    )


def game_aborted(logger: FilteringBoundLogger, game: Game, cause: str, reason: str) -> None:
    logger.info(
        "game_aborted",
        game_id=game.id,
        cause=cause,
        reason=reason,
        version=game.version,
        creator=game.record.creator.partition(":")[2] if game.record.creator else "",
    )


def game_left_memory(logger: FilteringBoundLogger, game: Game, *, durable: bool) -> None:
    logger.info(
        "game_left_memory",
        game_id=game.id,
        status=game.status.name.lower(),
        still_served_from_store=durable,
    )
