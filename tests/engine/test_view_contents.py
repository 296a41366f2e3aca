"""Every field of a seat's view (engine/blood_rage/view.py), for a position small enough to work
out by hand: a two-player battle in Elvagar, the Raven (seat 1) has committed its card, the Wolf
(seat 0) has yet to. The server builds its protobuf views from these dicts."""

from __future__ import annotations

from typing import Any

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Area
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view
from tests.scenario_tokens import TOKENS


def _battle() -> GameState:
    state = from_scenario(
        {
            "players": 2,
            "seed": 5,
            "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
            "pillage_tokens": TOKENS,
            "destroyed": ["Utgard", "Andlang", "Horgr"],
            "clans": [
                {
                    "hand": ["tyrs_bash_1", "manheim"],
                    "upgrades": ["troll"],
                    "glory": 4,
                    "stats": {"axes": 2},
                    "figures": {"Elvagar": ["leader", "troll"], "Valhalla": ["warrior"]},
                },
                {
                    "hand": ["tyrs_smash_1"],
                    "quests": ["alfheim"],
                    "figures": {"Elvagar": ["warrior"], "North fjord": ["ship"]},
                },
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    return state


def _card(instance: int, card: str, name: str) -> dict[str, Any]:
    return {"instance": instance, "card": card, "name": name}


def _figures(where: dict[str, list[str]], extra: list[tuple[str, str]]) -> list[dict[str, str]]:
    """Leader, 8 warriors, ship, then monsters: where each is ('reserve' unless named)."""
    out = []
    placed = {unit: list(places) for unit, places in where.items()}
    for unit in ["leader"] + ["warrior"] * 8 + ["ship"]:
        places = placed.get(unit, [])
        out.append({"unit": unit, "location": places.pop(0) if places else "reserve"})
    out += [{"unit": unit, "location": location} for unit, location in extra]
    return out


def _stats(rage: int, axes: int, horns: int) -> dict[str, dict[str, int]]:
    track = {
        "rage": (6, 7, 8, 9, 12, 12),
        "axes": (3, 4, 5, 6, 8, 8),
        "horns": (4, 5, 6, 7, 10, 10),
    }
    steps = {"rage": rage, "axes": axes, "horns": horns}
    return {
        s: {"step": steps[s], "value": track[s][steps[s] - 1]} for s in ("rage", "axes", "horns")
    }


def _province(area, token, ragnarok_age=None, destroyed=False):
    return {
        "area": area,
        "destroyed": destroyed,
        "pillage_token": None if destroyed else token,
        "pillaged": False,
        "ragnarok_age": ragnarok_age,
    }


def _expected_public() -> dict[str, Any]:
    wolf = {
        "seat": 0,
        "clan": "Wolf",
        "stats": _stats(1, 2, 1),
        "rage": 6,
        "glory": 4,
        "hand_count": 2,
        "quest_count": 0,
        "pack_count": 0,
        "has_kept_card": False,
        "upgrades": [None, None, None, _card(0, "troll_1", "Troll"), None, None, None, None],
        "figures": _figures(
            {"leader": ["Elvagar"], "warrior": ["Valhalla"]}, [("troll", "Elvagar")]
        ),
        "end_stat_bonus": 0,
        "end_card_bonus": 0,
    }
    raven = {
        "seat": 1,
        "clan": "Raven",
        "stats": _stats(1, 1, 1),
        "rage": 6,
        "glory": 0,
        "hand_count": 0,
        "quest_count": 1,
        "pack_count": 0,
        "has_kept_card": False,
        "upgrades": [None] * 8,
        "figures": _figures({"warrior": ["Elvagar"], "ship": ["North fjord"]}, []),
        "end_stat_bonus": 0,
        "end_card_bonus": 0,
    }
    return {
        "players": 2,
        "age": 1,
        "phase": "action",
        "step": "battle_cards",
        "version": 2,
        "first_player": 0,
        "turn": 0,
        "awaiting": [0],
        "simultaneous": True,
        "committed": [1],
        "prompt": None,
        "provinces": [
            _province("Yggdrasil", "all_stats"),
            _province("Myrkulor", "rage", 3),
            _province("Elvagar", "horns"),
            _province("Angerboda", "rage"),
            _province("Muspelheim", "glory5", 1),
            _province("Horgr", "rage", destroyed=True),
            _province("Utgard", "horns", destroyed=True),
            _province("Andlang", "axes", destroyed=True),
            _province("Gimle", "axes", 2),
        ],
        "doom": "Muspelheim",
        # Age 1's 20 cards (two players): 2 in a hand, 1 chosen, 1 quest, the Troll on a sheet.
        "deck_sizes": [0, 20, 20],
        "discard": [],
        "unseen_count": 20 - 5,
        "clans": [wolf, raven],
        "battle": {
            "province": "Elvagar",
            "pillager": 0,
            "participants": [0, 1],
            "committed": [1],
            "revealed": {},
            "cancelled": [],
            "strengths": {"0": 3 + 2, "1": 1 + 2},  # leader + Troll; warrior + ship
            "totals": None,
            "winner": None,
            "reveal_round": 0,
            "killed": [0, 0],
        },
        "march": None,
        "march_moved": [],
        "doomed_count": 0,
        "result": None,
    }


def test_the_view_of_the_seat_that_committed_its_card():
    state = _battle()
    expected = _expected_public()
    expected["viewer"] = 1
    expected["private"] = {
        "hand": [],
        "pack": [],
        "picks_left": 0,
        "pending_picks": [],
        "quests": [_card(15, "alfheim_1", "Alfheim")],
        "battle_card": _card(34, "tyrs_smash_1", "Tyr's Smash"),
        "keep": None,
        "kept": None,
    }
    expected["legal_actions"] = []
    assert view(state, 1) == expected


def test_the_view_of_the_seat_that_chooses():
    state = _battle()
    bash, manheim = state.clans[0].hand
    expected = _expected_public()
    expected["viewer"] = 0
    expected["private"] = {
        "hand": [_card(bash, "tyrs_bash_1", "Tyr's Bash"), _card(manheim, "manheim_1", "Manheim")],
        "pack": [],
        "picks_left": 0,
        "pending_picks": [],
        "quests": [],
        "battle_card": None,
        "keep": None,
        "kept": None,
    }
    expected["legal_actions"] = [
        {
            "index": i,
            "code": Action(ActionKind.BATTLE_CARD, card).code(),
            "kind": ActionKind.BATTLE_CARD,
            "args": [card, 0, 0],
            "label": label,
            "details": {},
        }
        for i, (card, label) in enumerate(
            [(bash, f"play Tyr's Bash [#{bash}]"), (manheim, f"play Manheim [#{manheim}]")]
        )
    ]
    assert view(state, 0) == expected


def test_a_spectator_sees_the_public_part_only():
    state = _battle()
    expected = _expected_public()
    expected["viewer"] = -1
    expected["private"] = None
    expected["legal_actions"] = []
    assert view(state) == expected
    assert view(state, 2) == expected, "a seat number past the players is a spectator"


def test_a_participant_without_cards_is_not_among_the_choosers():
    """Seat 2 fights with an empty hand (it plays nothing): the simultaneous choice is
    between seats 0 and 1 only, so once seat 1 has chosen only seat 1 has committed."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["tyrs_bash_1"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["tyrs_smash_1"], "figures": {"Elvagar": ["warrior"]}},
                {"figures": {"Elvagar": ["warrior"]}},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    seen = view(state, 2)
    assert seen["battle"]["participants"] == [0, 1, 2]
    assert seen["awaiting"] == [0] and seen["simultaneous"]
    assert seen["committed"] == [1] and seen["battle"]["committed"] == [1]


def test_the_discard_views_of_a_kept_troll():
    """Card instance 0 (the Troll) kept for the next Age: its owner sees it chosen, then
    kept; the others see only that a card is kept. Seat 2 has no card to keep."""
    state = from_scenario(
        {
            "players": 3,
            "phase": "discard",
            "clans": [{"hand": ["tyrs_bash_1"]}, {"hand": ["troll", "tyrs_smash_1"]}, {}],
        }
    )
    troll = _card(0, "troll_1", "Troll")
    apply(state, 1, Action(ActionKind.KEEP_CARD, 0))
    mine = view(state, 1, include_state=True)
    assert mine["engine_state"]["keep"][:2] == [-1, 0]
    assert mine["private"]["keep"] == troll and mine["private"]["kept"] is None
    assert mine["committed"] == [1] and mine["awaiting"] == [0] and mine["simultaneous"]
    assert view(state, 0)["private"]["keep"] is None
    apply(state, 0, Action(ActionKind.KEEP_NONE))
    mine = view(state, 1)
    assert mine["private"]["keep"] is None and mine["private"]["kept"] == troll
    assert mine["private"]["hand"] == [troll]
    assert [c["has_kept_card"] for c in view(state, 0)["clans"]] == [False, True, False]


def test_keeping_no_card_is_a_choice_made():
    state = from_scenario(
        {
            "players": 3,
            "phase": "discard",
            "clans": [{"hand": ["tyrs_bash_1"]}, {"hand": ["troll"]}, {}],
        }
    )
    apply(state, 1, Action(ActionKind.KEEP_NONE))
    assert view(state, 2)["committed"] == [1] and view(state, 2)["awaiting"] == [0]


def test_a_committed_troll_is_shown_to_its_owner_and_counted_for_all():
    """Card instance 0 (the Troll) played as a battle card, not revealed yet."""
    state = from_scenario(
        {
            "players": 2,
            "clans": [
                {"hand": ["tyrs_bash_1"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["troll"], "figures": {"Elvagar": ["warrior"]}},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, 0))
    assert view(state, 1)["private"]["battle_card"] == _card(0, "troll_1", "Troll")
    assert view(state, 0)["battle"]["committed"] == [1]


def test_legal_actions_carry_all_three_arguments():
    state = from_scenario({"players": 2, "clans": [{"figures": {"Elvagar": ["warrior"]}}, {}]})
    actions = view(state, 0)["legal_actions"]
    march = next(a for a in actions if a["kind"] == ActionKind.MARCH)
    assert march["args"] == [Area.ELVAGAR, Area.YGGDRASIL, 1]
    assert march["label"] == "march warrior Elvagar -> Yggdrasil"
    invade = next(a for a in actions if a["kind"] == ActionKind.INVADE)
    assert invade["args"] == [0, Area.MYRKULOR, 0], "the leader first, the first province"
    assert [a["index"] for a in actions] == list(range(len(actions)))


def test_card_bonuses_wait_for_the_end_of_the_game():
    state = from_scenario(
        {
            "players": 2,
            "age": 3,
            "clans": [{"upgrades": ["thors_conquest"], "figures": {"Elvagar": ["leader"]}}, {}],
        }
    )
    assert [c["end_card_bonus"] for c in view(state)["clans"]] == [0, 0]


def test_the_view_at_the_end_of_the_game():
    """After the last Ragnarok: the result, and each clan's end-game bonuses (stat steps;
    Thor's Conquest, 3 Glory per figure on the board)."""
    state = from_scenario(
        {
            "players": 2,
            "age": 3,
            "phase": "ragnarok",
            "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
            "clans": [
                {
                    "upgrades": ["thors_conquest"],
                    "glory": 10,
                    "stats": {"rage": 4, "axes": 5, "horns": 6},
                    "figures": {"Elvagar": ["leader", "warrior"], "North fjord": ["ship"]},
                },
                {"glory": 41, "figures": {"Angerboda": ["warrior"]}},
            ],
        }
    )
    seen = view(state, 1)
    assert seen["phase"] == "game_over" and seen["turn"] is None and seen["doom"] is None
    wolf, raven = seen["clans"]
    assert (wolf["end_stat_bonus"], wolf["end_card_bonus"]) == (10 + 10 + 20, 3 * 3)
    assert (raven["end_stat_bonus"], raven["end_card_bonus"]) == (0, 0)
    glory = [10 + 40 + 9, 41]
    assert seen["result"] == {"glory": glory, "winners": [0], "ranks": [1, 2]}
    assert [c["glory"] for c in seen["clans"]] == glory


def test_frigga_grace_after_a_rage_reward_excludes_rage():
    """The excluded stat is Rage (stat 0) when the reward was Rage."""
    state = from_scenario(
        {
            "players": 3,
            "pillage_tokens": TOKENS,
            "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
            "clans": [
                {"hand": ["friggas_grace"], "figures": {"Angerboda": ["leader"]}},
                {"figures": {"Angerboda": ["warrior"]}},
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ANGERBODA))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    prompt = view(state, 0)["prompt"]
    assert prompt["kind"] == "raise_stat" and prompt["excluded_stat"] == "rage"
