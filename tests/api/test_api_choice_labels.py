"""What a legal action says before it is taken (issue 29, points 3 and 4), in random games
from the set-up and from card-rich positions: every ``decline`` is labelled with what it
declines and names the offer it answers (its ``details.offer``), the Call to Battle included;
and the Rage an Action-phase decision is said to cost is the Rage it takes."""

from __future__ import annotations

import json
import random
from collections import Counter

from event_replay import rich_position

from engine.blood_rage import ScenarioError
from engine.blood_rage.actions import ActionKind
from engine.blood_rage.ids import Step
from engine.blood_rage.rules import BloodRageRules
from engine.blood_rage.state import GameState

K = ActionKind
# Decisions of the Action phase whose Rage is paid as they are applied (a pass gives up what
# is left).
PAID = (K.INVADE, K.MARCH, K.UPGRADE, K.PASS)


def _games(rng: random.Random, rules: BloodRageRules) -> list[GameState]:
    states = []
    for number in range(6):
        options = rules.options(2 + number % 4, number, {"draft_mode": number % 2})
        states.append(rules.new_game(options))
    for number in range(40):
        while True:
            try:
                states.append(rules.from_scenario(json.dumps(rich_position(rng, 2 + number % 4))))
                break
            except ScenarioError:  # not every random position is one the rules accept
                continue
    return states


def test_a_decline_says_what_it_declines_and_a_cost_is_what_is_paid() -> None:
    rules = BloodRageRules()
    rng = random.Random(29)
    offers: Counter[str] = Counter()
    costs_checked = 0
    for state in _games(rng, rules):
        while rules.result(state) is None:
            seat = next(s for s in range(state.players) if rules.legal_actions(state, s))
            legal = rules.view(state, seat)["legal_actions"]
            for entry in legal:
                if entry["kind"] != K.DECLINE:
                    continue
                offer = entry["details"].get("offer", "")
                assert offer, entry
                assert entry["label"] != "decline" and len(entry["label"]) > len("decline "), entry
                offers[offer] += 1
            choice = rng.randrange(len(legal))
            entry = legal[choice]
            rage = state.clans[seat].rage
            in_action = state.step == Step.ACTION and not state.prompts
            rules.apply(state, seat, rules.legal_actions(state, seat)[choice])
            if in_action and entry["kind"] in PAID:
                taken = rage - state.clans[seat].rage
                cost = entry["details"].get("rage_cost", 0)
                assert taken == cost, (entry, taken)
                costs_checked += 1
    assert costs_checked > 500
    every = {"call_to_battle", "free_invade", "thors_domain", "witch_retreat", "protect"}
    every |= {"late_card", "succor", "blessing", "prowess", "move_leader"}
    assert every <= set(offers), offers
