"""The WatchGame promise, held figure by figure (issue 29, point 5): applying a game's events
in order onto the first view gives every later view. Random games are played through the
server's own game objects (the conversions the gRPC service serves); after every decision a
model of the board kept from the events alone (``event_replay.Board``) must equal what the
spectator's view and seat 0's view show: every figure of every clan where it is, Glory, stat
steps, Rage left, and the provinces destroyed and pillaged. On the way each Glory change is
checked against the stats the events have set (a won battle's Glory is the Axes of the
moment: issue 29, point 1).

Some games start from positions rich in cards (Age 3, every clan with upgrades of all three Ages
and a hand of cards of all Ages) so that every card text runs: the test counts each card text
that ran and fails if one never did.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from event_replay import Board, counted_card_texts, rich_position

from engine.blood_rage.effects import HOOKS
from server.games.game import Game
from server.games.record import GameSettings
from server.games.refusal import Refusal
from server.games.registry import GameRegistry
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from server.stores.memory import MemoryStore
from yggdrasil.v1 import blood_rage_pb2 as br

SPECTATOR = -1
PLAIN_GAMES = 8  # from the normal set-up, 2-5 players, both draft modes
RICH_GAMES = 44  # from card-rich positions (every card text runs in 40 of them)


class _Games:
    def __init__(self) -> None:
        self.registry = GameRegistry(MemoryStore(), Metrics(new_registry(process_collectors=False)))
        self.decisions = 0
        self.applied: Counter[str] = Counter()

    async def create(self, rng: random.Random, number: int, rich: bool) -> Game:
        players = 2 + number % 4
        if not rich:
            settings = GameSettings(
                players=players, seed=number, options={"draft_mode": int(number % 3 == 2)}
            )
            return await self.registry.create(settings)
        while True:  # a random position the rules accept (enough cards left to draft, ...)
            scenario = json.dumps(rich_position(rng, players))
            try:
                return await self.registry.create(GameSettings(players, 0), scenario)
            except Refusal:
                continue

    async def play(self, game: Game, rng: random.Random, viewers: tuple[int, ...]) -> None:
        players = game.state.players
        for seat in range(players):
            await game.join(seat, f"seat {seat}")
        boards = {viewer: Board.of(game.view(viewer)) for viewer in viewers}
        seen = game.last_sequence
        while game.status == 2:  # IN_PROGRESS
            seat = next(s for s in range(players) if game.rules.legal_actions(game.state, s))
            count = len(game.rules.legal_actions(game.state, seat))
            await game.submit(seat, None, rng.randrange(count), game.state.version)
            self.decisions += 1
            if game.compacted and seen + 1 < game.first_kept_sequence:
                # Over and unwatched, a game drops its events; a watcher gets them rebuilt.
                assert game.recover_events(seen + 1)
            for stored in game.events_from(seen + 1):
                for viewer, board in boards.items():
                    board.apply(stored.for_viewer(viewer))
                seen = stored.sequence
            for viewer, board in boards.items():
                expected = Board.of(game.view(viewer)).facts()
                assert board.facts() == expected, (
                    f"viewer {viewer}, version {game.version}: the events give another board"
                )
        self.applied.update(boards[SPECTATOR].applied)
        game.close()


@pytest.mark.parametrize("rich", [False, True], ids=["set-up", "card-rich"])
async def test_events_applied_onto_the_first_view_give_every_later_view(rich: bool) -> None:
    configure_logging("WARNING")
    games = _Games()
    rng = random.Random(29 + rich)
    with counted_card_texts() as ran:
        for number in range(RICH_GAMES if rich else PLAIN_GAMES):
            game = await games.create(rng, number, rich)
            # A seat's events and view hold its secrets too: seat 0 follows the plain games.
            await games.play(game, rng, (SPECTATOR,) if rich else (SPECTATOR, 0))
    assert games.decisions > (1800 if rich else 1000)
    if rich:
        every = {(moment, key) for moment, table in HOOKS.items() for key in table}
        assert not sorted(every - set(ran)), (
            f"card texts that never ran: {sorted(every - set(ran))}"
        )
    moving = {"figures_destroyed", "ragnarok", "valhalla_released", "stat_changed"}
    assert moving <= set(games.applied), games.applied
    if rich:  # the events only the card texts make
        assert {"figure_retreated", "rage_changed", "figure_saved"} <= set(games.applied)


async def test_the_glory_of_a_pillage_of_yggdrasil_counts_the_axes_it_gave() -> None:
    """The issue's example: Wolf wins at Yggdrasil, whose reward raises all three stats; the
    battle's Glory is then Axes on their new step, and the events say so in that order."""
    registry = GameRegistry(MemoryStore(), Metrics(new_registry(process_collectors=False)))
    scenario = {
        "players": 2,
        "age": 1,
        "phase": "action",
        "turn": 0,
        "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
        "clans": [
            {"hand": ["tyrs_smash"], "stats": {"axes": 4}, "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Yggdrasil": ["warrior"]}},
        ],
    }
    game = await registry.create(GameSettings(2, 0), json.dumps(scenario))
    for seat in (0, 1):
        await game.join(seat, "")
    board = Board.of(game.view(SPECTATOR))
    start = game.last_sequence
    for label in ("pillage Yggdrasil", "play Tyr's Smash"):
        seat = next(s for s in (0, 1) if game.rules.legal_actions(game.state, s))
        labels = [a.label for a in game.view(seat).legal_actions]
        index = next(i for i, text in enumerate(labels) if text.startswith(label))
        await game.submit(seat, None, index, game.state.version)
    kinds = []
    for stored in game.events_from(start + 1):
        event = stored.for_viewer(SPECTATOR)
        board.apply(event)  # checks the Glory against the Axes the stat events set
        if event.WhichOneof("payload") == "blood_rage":
            kinds.append(event.blood_rage.WhichOneof("kind"))
    order = [k for k in kinds if k in ("pillage_result", "stat_changed", "glory_changed")]
    assert order == ["pillage_result", *["stat_changed"] * 3, "glory_changed"]
    glory = [e for e in game.events_from(start + 1) if e.full.blood_rage.HasField("glory_changed")]
    assert glory[0].full.blood_rage.glory_changed.delta == 8, "Axes on step 5 give 8 Glory"
    assert board.facts() == Board.of(game.view(SPECTATOR)).facts()
    assert br.STAT_REASON_PILLAGE in {
        e.full.blood_rage.stat_changed.reason
        for e in game.events_from(start + 1)
        if e.full.blood_rage.HasField("stat_changed")
    }
