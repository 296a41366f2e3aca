"""Games nobody plays end: the abandonment clocks, and AbortGame.

A game that is left alone would hold its memory, its place under ``--max-games`` and its
creator's open-games quota for ever. So the server aborts (status ABORTED, durably, watchers
told with a GameAborted event, ``yggdrasil_games_aborted_total{cause}`` counted):

* an OPEN game that is not complete ``--open-game-timeout-s`` after it was created (default
  30 minutes: a table waiting that long for its players is not going to start);
* an IN_PROGRESS game without a decision time limit that saw no decision for
  ``--idle-game-timeout-s`` (default 24 hours). A game with a limit never stalls: its clock
  decides for absent seats.

Both clocks run on the game's Unix times as the store keeps them (creation; the last claim or
decision), so they survive restarts: a game abandoned before a restart is aborted at the first
sweep after it. 0 turns a clock off. A game a lazy restart has not rebuilt yet
(``server.games.dormant``) is judged on the same times from the store's index, and rebuilt only
if it is to be aborted.

``AbortGame`` aborts on request: the game's creator (the same API key, or whoever shows the
creator token CreateGame returned: an anonymous caller's address proves nothing, many clients
may share one, and one could claim another's behind a proxy) or an admin key may.
``Game.abort`` does the work; this module decides when and who.
"""

from __future__ import annotations

import asyncio
import hmac
import math
from dataclasses import dataclass
from typing import Protocol

import structlog

from server.games import game_log
from server.games.dormant import Dormant
from server.games.game import Game
from server.games.record import Status
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.stores.contract import AbortRecord
from server.stores.token_hashes import creator_token_hash
from yggdrasil.v1 import game_pb2


class Requester(Protocol):
    """Who asks to abort a game, as far as abandonment cares: the key its games are created
    under (``GameRecord.creator``), a name for the reason text, and whether it is an admin
    (the API's caller, ``server.api.identity.Identity``, is one)."""

    @property
    def quota_key(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def is_admin(self) -> bool: ...

    @property
    def anonymous(self) -> bool: ...


__all__ = [
    "CAUSE_NAMES",
    "MAX_REASON_LENGTH",
    "AbandonPolicy",
    "Abandonment",
    "Requester",
    "describe_seconds",
]

MAX_REASON_LENGTH = 200
OPEN_TIMEOUT = int(game_pb2.GameAborted.CAUSE_OPEN_TIMEOUT)
IDLE_TIMEOUT = int(game_pb2.GameAborted.CAUSE_IDLE_TIMEOUT)
REQUESTED = int(game_pb2.GameAborted.CAUSE_REQUESTED)
CAUSE_NAMES = {OPEN_TIMEOUT: "open_timeout", IDLE_TIMEOUT: "idle_timeout", REQUESTED: "requested"}


@dataclass(frozen=True, slots=True)
class AbandonPolicy:
    """How long a game may be left alone (seconds; 0: for ever)."""

    open_timeout_s: float = 1800.0
    idle_timeout_s: float = 86400.0

    def sweep_interval_s(self) -> float:
        """How often to look: a tenth of the shorter clock, between 50 ms and a minute."""
        clocks = [t for t in (self.open_timeout_s, self.idle_timeout_s) if t > 0]
        if not clocks:
            return math.inf
        return min(60.0, max(0.05, min(clocks) / 10))


def describe_seconds(seconds: float) -> str:
    """``90`` -> ``1.5 min``; ``86400`` -> ``24 h`` (for abort reasons)."""
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


class Abandonment:
    """Aborts the abandoned games of a registry, and the games callers ask to abort."""

    def __init__(self, registry: GameRegistry, policy: AbandonPolicy) -> None:
        self.registry = registry
        self.policy = policy
        self._task: asyncio.Task[None] | None = None
        self._logger = structlog.get_logger("yggdrasil.games")

    # -- the clocks ----------------------------------------------------------------------------

    def due(self, now_ms: int) -> list[tuple[Game | Dormant, int, str]]:
        """(game, cause, reason) of every hosted game, rebuilt or dormant, abandoned at
        ``now_ms``."""
        policy = self.policy
        out: list[tuple[Game | Dormant, int, str]] = []
        hosted: list[Game | Dormant] = [*self.registry.games.values()]
        hosted += self.registry.dormant.values()
        for game in hosted:
            if isinstance(game, Game) and (game.closed or game.lock.locked()):
                continue  # being changed right now: not abandoned
            created = (
                game.created_unix_ms if isinstance(game, Dormant) else (game.record.created_unix_ms)
            )
            if game.status == Status.OPEN and policy.open_timeout_s > 0:
                age_s = (now_ms - created) / 1000
                if age_s >= policy.open_timeout_s:
                    waited = describe_seconds(policy.open_timeout_s)
                    out.append(
                        (game, OPEN_TIMEOUT, f"abandoned: not every seat claimed after {waited}")
                    )
            elif (
                game.status == Status.IN_PROGRESS
                and policy.idle_timeout_s > 0
                and game.settings.decision_time_limit_ms == 0
            ):
                idle_s = (now_ms - game.activity_unix_ms) / 1000
                if idle_s >= policy.idle_timeout_s:
                    waited = describe_seconds(policy.idle_timeout_s)
                    out.append((game, IDLE_TIMEOUT, f"abandoned: no decision for {waited}"))
        return out

    async def sweep(self, now_ms: int | None = None) -> int:
        """Abort every game abandoned now; returns how many were aborted."""
        now = self.registry.clock.wall_ms() if now_ms is None else now_ms
        aborted = 0
        for found, cause, reason in self.due(now):
            try:
                game = await self.registry.wake(found.id) if isinstance(found, Dormant) else found
                await self._abort(game, cause, reason)
            except Refusal as refusal:  # it ended meanwhile, or the store refused: next sweep
                self._logger.warning("game_not_aborted", game_id=found.id, problem=refusal.message)
                continue
            aborted += 1
        return aborted

    def start(self) -> None:
        interval = self.policy.sweep_interval_s()
        if self._task is None and math.isfinite(interval):
            self._task = asyncio.get_running_loop().create_task(self._forever(interval))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _forever(self, interval: float) -> None:
        while not self.registry.closing:
            await asyncio.sleep(interval)
            if not self.registry.closing:
                await self.sweep()

    # -- on request ----------------------------------------------------------------------------

    async def request(
        self, game: Game, identity: Requester, reason: str, creator_token: str = ""
    ) -> AbortRecord:
        """AbortGame: PERMISSION_DENIED unless ``identity`` is an admin, the API key that
        created the game, or shows its ``creator_token``; FAILED_PRECONDITION if the game is
        already over."""
        if len(reason) > MAX_REASON_LENGTH:
            raise Refusal("INVALID_ARGUMENT", f"reason is at most {MAX_REASON_LENGTH} characters")
        creator = game.record.creator
        proof = game.record.creator_token_hash
        shown = bool(creator_token and proof) and hmac.compare_digest(
            creator_token_hash(game.store.token_key, game.id, creator_token), proof
        )
        same_key = bool(creator) and creator == identity.quota_key and not identity.anonymous
        if not (identity.is_admin or same_key or shown):
            raise Refusal(
                "PERMISSION_DENIED",
                "only the game's creator (its API key, or the creator_token CreateGame "
                "returned) or an admin key may abort it",
            )
        mine = same_key or shown
        who = "its creator" if mine else "an admin"
        text = f"aborted by {who} ({identity.name})" + (f": {reason}" if reason else "")
        return await self._abort(game, REQUESTED, text)

    async def _abort(self, game: Game, cause: int, reason: str) -> AbortRecord:
        record = await game.abort(cause, reason)
        name = CAUSE_NAMES.get(cause, "unknown")
        self.registry.metrics.games_aborted(name)
        game_log.game_aborted(game.logger, game.id, name, reason, game.version, game.record.creator)
        return record
