"""No engine event is dropped on its way to the API (issue 29, point 5), and none moves.

Every kind of event the engine emits (read from its source, as tests/rules does) has its own
API event, named in ``API_KIND`` below; a new kind fails here until it has one. Then random
games, from the set-up and from card-rich positions, are converted decision by decision, and
the API events must be the engine's, one for one and in the engine's order: the decision's
ActionApplied, and for every other public engine event the API event of its kind (the quests
the Quest phase reveals together are one QuestResults). A converter that stopped emitting, or
an event put elsewhere in the sequence, fails.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from event_replay import rich_position

from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import GameState
from engine.blood_rage.view import SPECTATOR, view
from engine.core.errors import ScenarioError
from protocol.blood_rage.events import (
    EVENT_CONVERTERS,
    PRIVATE_EVENTS,
    convert_events,
    public_facts,
)

# Engine event kind -> the BloodRageEvent field that carries it.
API_KIND: dict[str, str] = {
    "action": "action_applied",
    "phase": "phase_started",
    "draft_round": "draft_round_ended",
    "pillage_started": "pillage_started",
    "battle_revealed": "battle_revealed",
    "late_card": "late_card_played",
    "heimdalls_watch": "battle_cards_discarded",
    "figure_saved": "figure_saved",
    "witch_retreat": "figure_retreated",
    "figures_destroyed": "figures_destroyed",
    "battle_resolved": "battle_resolved",
    "pillage": "pillage_result",
    "pillage_reward": "pillage_reward_taken",
    "stat": "stat_changed",
    "glory": "glory_changed",
    "rage": "rage_changed",
    "quest": "quest_results",
    "ragnarok": "ragnarok",
    "release": "valhalla_released",
    "game_over": "end_game_scoring",
}


def test_every_engine_event_kind_has_an_api_event_of_its_own() -> None:
    source = Path(__file__).resolve().parents[2] / "engine" / "blood_rage"
    emitted = set(
        re.findall(r'"type": "(\w+)"', "\n".join(p.read_text() for p in source.glob("*.py")))
    )
    assert emitted == set(API_KIND) | PRIVATE_EVENTS, (
        f"no API kind named: {emitted - set(API_KIND)}"
    )
    assert set(EVENT_CONVERTERS) == set(API_KIND) - {"action"}
    assert len(set(API_KIND.values())) == len(API_KIND), "two engine kinds share an API kind"


def _check_decision(
    raw: list[tuple[int, dict[str, Any]]], converted: list[Any], seen: Counter[str]
) -> None:
    """The API events of one decision are its engine events, one for one, in order."""
    expected: list[str] = []
    for audience, payload in raw:
        kind = payload["type"]
        if kind in PRIVATE_EVENTS and audience >= 0:
            continue  # a private duplicate of the seat's own ActionApplied
        seen[kind] += 1
        api = API_KIND[kind]
        if kind == "quest" and expected and expected[-1] == api:
            continue  # the quests revealed together are one QuestResults
        expected.append(api)
    got = [event.full.blood_rage.WhichOneof("kind") for event in converted]
    assert got == expected, f"engine {[p['type'] for _, p in raw]} became {got}"


def _play(state: GameState, rng: random.Random, seen: Counter[str]) -> int:
    decisions = 0
    while True:
        waiting = [s for s in awaiting(state) if legal_actions(state, s)]
        if not waiting:
            return decisions
        seat = waiting[0]
        before = public_facts(state)
        state.events = []
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
        raw, state.events = state.events, None
        final = view(state, SPECTATOR) if not awaiting(state) else None
        converted = convert_events(raw, before, public_facts(state), final_view=final)
        _check_decision(raw, converted, seen)
        decisions += 1


def test_engine_events_reach_the_api_one_for_one_in_their_order() -> None:
    rng = random.Random(2929)
    seen: Counter[str] = Counter()
    decisions = 0
    for number in range(6):
        decisions += _play(new_game(2 + number % 4, number), rng, seen)
    made = 0
    while made < 40:
        try:
            state = from_scenario(rich_position(rng, 2 + made % 4), hosted=True)
        except ScenarioError:
            continue
        decisions += _play(state, rng, seen)
        made += 1
    assert decisions > 2000
    never = sorted(set(API_KIND) - set(seen))
    assert not never, f"engine event kinds no game produced: {never}"
