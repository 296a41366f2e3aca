"""What the engine records as events, checked where it happens: each kind's audience (-1 for
everyone, else the one seat that may see it) and every field, in scenarios of the rules.

The server converts these into API events; checking them here means a conversion cannot hide
an engine mistake (a renamed key, a flipped flag, a public event made private). Glory events
have their own module (test_glory_events.py); this one covers every other kind, and the last
test makes sure no kind the engine can emit goes unchecked, or unknown to the server.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import FIG_LEADER, FIG_SHIP, FIG_WARRIORS, Area, Step, Unit, monster_fig
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import PromptKind
from protocol.blood_rage.events import EVENT_CONVERTERS, PRIVATE_EVENTS

K = ActionKind
E, MUS, GIMLE = Area.ELVAGAR, Area.MUSPELHEIM, Area.GIMLE
ALL = -1


def _recorded(h, clans: list[dict[str, Any]], **fields: Any):
    state = h.scenario(3, clans, **({"phase": "action", "turn": 0} | fields))
    state.events = []
    return state


def _events(state, *kinds: str) -> list[tuple[int, dict[str, Any]]]:
    """(audience, payload) of the events of these kinds, in order."""
    return [(a, p) for a, p in state.events if p["type"] in kinds]


def _decline_calls(state) -> None:
    while state.step == Step.CALL_TO_BATTLE and not state.prompts:
        apply(state, awaiting(state)[0], Action(K.DECLINE))


def test_draft_picks_are_private_and_rounds_and_phases_public() -> None:
    state = new_game(3, 4)
    state.events = []
    picks = {}
    for seat in awaiting(state):
        picks[seat] = legal_actions(state, seat)[0]
        apply(state, seat, picks[seat])
    assert _events(state, "action", "picked", "draft_round") == [
        *[
            event
            for seat in (0, 1, 2)
            for event in (
                (
                    seat,
                    {
                        "type": "action",
                        "seat": seat,
                        "action": picks[seat].code(),
                        "text": str(picks[seat]),
                    },
                ),
                (seat, {"type": "picked", "seat": seat, "card": picks[seat][1]}),
            )
        ],
        (ALL, {"type": "draft_round", "age": 1, "round": 1, "passed": True}),
    ]
    while state.step == Step.DRAFT_PICK:
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    assert _events(state, "phase")[-1] == (ALL, {"type": "phase", "age": 1, "phase": "action"})
    public, seat = Action(K.PASS), state.turn
    state.events = []
    rage = state.clans[seat].rage
    apply(state, seat, public)
    assert _events(state, "action")[0] == (
        ALL,
        {
            "type": "action",
            "seat": seat,
            "action": public.code(),
            "text": "pass",
            "details": {"rage_cost": rage},  # passing gives up the Rage left
        },
    )


def test_the_last_draft_round_passes_no_pack() -> None:
    state = new_game(3, 4)
    state.events = []
    while state.step == Step.DRAFT_PICK:
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    assert _events(state, "draft_round") == [
        (ALL, {"type": "draft_round", "age": 1, "round": r, "passed": r < 6}) for r in range(1, 7)
    ]
    assert all(type(p["round"]) is int for _, p in _events(state, "draft_round"))


def test_an_undefended_pillage_is_a_pillage_without_battle(h) -> None:
    s = _recorded(h, [{"figures": {"Muspelheim": ["warrior"]}}])
    apply(s, 0, Action(K.PILLAGE, MUS))
    _decline_calls(s)
    assert _events(s, "pillage_started", "pillage", "pillage_reward") == [
        (ALL, {"type": "pillage_started", "seat": 0, "province": MUS}),
        (
            ALL,
            {"type": "pillage", "seat": 0, "province": MUS, "battle": False, "success": True},
        ),
        (
            ALL,
            {"type": "pillage_reward", "seat": 0, "province": MUS, "reward": "glory5", "times": 1},
        ),
    ]


def _battle(h, defender_upgrades: list[str], defenders: list[str], age: int = 2):
    s = _recorded(
        h,
        [
            {"hand": ["heimdalls_eye", "tyrs_rage"], "figures": {"Elvagar": ["leader", "warrior"]}},
            {
                "hand": ["tyrs_crush"],
                "upgrades": defender_upgrades,
                "figures": {"Elvagar": defenders},
            },
        ],
        age=age,
    )
    apply(s, 0, Action(K.PILLAGE, E))
    _decline_calls(s)
    return s


def test_a_won_battle_reports_cards_late_cards_outcome_and_losses(h) -> None:
    s = _battle(h, ["friggas_protection"], ["warrior", "warrior"])
    rage, crush = h.card(s, 0, "tyrs_rage"), h.card(s, 1, "tyrs_crush")
    eye = h.card(s, 0, "heimdalls_eye")
    apply(s, 0, Action(K.BATTLE_CARD, rage))
    apply(s, 1, Action(K.BATTLE_CARD, crush))
    assert _events(s, "battle_card_chosen", "battle_revealed") == [
        (0, {"type": "battle_card_chosen", "seat": 0, "card": rage}),
        (1, {"type": "battle_card_chosen", "seat": 1, "card": crush}),
        (ALL, {"type": "battle_revealed", "province": E, "cards": {0: [rage], 1: [crush]}}),
    ]
    apply(s, 0, Action(K.LATE_CARD, eye))
    while s.prompts and s.prompts[0].kind == PromptKind.LATE_CARD:
        apply(s, awaiting(s)[0], Action(K.DECLINE))
    assert s.prompts[0].kind == PromptKind.PROTECT
    apply(s, 1, Action(K.SAVE_FIGURE, Unit.WARRIOR, E))
    assert _events(
        s, "late_card", "battle_resolved", "figure_saved", "figures_destroyed", "pillage"
    ) == [
        (ALL, {"type": "late_card", "seat": 0, "card": eye}),
        (
            ALL,
            {
                "type": "figure_saved",
                "seat": 1,
                "unit": Unit.WARRIOR,
                "area": E,
                "card": s.clans[1].slots[5],  # the clan upgrade whose text saved it
            },
        ),
        (
            ALL,
            {
                "type": "figures_destroyed",
                "cause": "battle",
                "destroyed": [[1, FIG_WARRIORS[1], E]],
                "card": -1,  # a rule, no card
            },
        ),
        (  # once the losers' figures are gone (Frigga's Protection saved one)
            ALL,
            {
                "type": "battle_resolved",
                "province": E,
                "winner": 0,
                "totals": {0: 12, 1: 6},
                "destroyed": [[1, FIG_WARRIORS[1], E]],
            },
        ),
        (ALL, {"type": "pillage", "seat": 0, "province": E, "battle": True, "success": True}),
    ]


def test_a_lost_battle_is_a_pillage_that_failed(h) -> None:
    s = _recorded(
        h,
        [
            {"hand": ["tyrs_bash"], "figures": {"Elvagar": ["warrior"]}},
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["leader"]}},
        ],
    )
    apply(s, 0, Action(K.PILLAGE, E))
    _decline_calls(s)
    h.play_cards(s, {0: "tyrs_bash", 1: "tyrs_smite"})
    assert _events(s, "battle_resolved", "pillage", "pillage_reward", "figures_destroyed") == [
        (
            ALL,
            {"type": "figures_destroyed", "cause": "battle", "destroyed": [[0, 1, E]], "card": -1},
        ),
        (
            ALL,
            {
                "type": "battle_resolved",
                "province": E,
                "winner": 1,
                "totals": {0: 3, 1: 8},
                "destroyed": [[0, 1, E]],
            },
        ),
        (ALL, {"type": "pillage", "seat": 0, "province": E, "battle": True, "success": False}),
    ]


def test_figures_destroyed_by_a_card_name_the_card(h) -> None:
    troll = _recorded(
        h,
        [
            {"upgrades": ["troll"], "rage": 5},
            {"figures": {"Elvagar": ["warrior", "warrior", "leader"]}},
        ],
    )
    apply(troll, 0, Action(K.INVADE, Unit.TROLL, E))
    card = troll.clans[0].slots[3]
    assert _events(troll, "figures_destroyed") == [
        (
            ALL,
            {
                "type": "figures_destroyed",
                "cause": "effect",
                "destroyed": [[1, FIG_WARRIORS[0], E], [1, FIG_WARRIORS[1], E]],
                "card": card,
            },
        )
    ]
    sacrifice = _recorded(
        h, [{"upgrades": ["friggas_sacrifice"], "figures": {"Elvagar": ["leader", "warrior"]}}]
    )
    card = sacrifice.clans[0].slots[5]
    apply(sacrifice, 0, Action(K.SACRIFICE, Unit.WARRIOR, E))
    apply(sacrifice, 0, Action(K.SACRIFICE, Unit.LEADER, E))
    assert _events(sacrifice, "figures_destroyed") == [
        (
            ALL,
            {
                "type": "figures_destroyed",
                "cause": "own_choice",
                "destroyed": [[0, fig, E]],
                "card": card,
            },
        )
        for fig in (FIG_WARRIORS[0], FIG_LEADER)
    ]


def test_odins_smite_and_odins_tide_name_their_card(h) -> None:
    s = _recorded(
        h,
        [
            {"hand": ["odins_smite"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["odins_tide"], "figures": {"Elvagar": ["warrior", "warrior", "leader"]}},
        ],
    )
    smite, tide = h.card(s, 0, "odins_smite"), h.card(s, 1, "odins_tide")
    apply(s, 0, Action(K.PILLAGE, E))
    _decline_calls(s)
    h.play_cards(s, {0: "odins_smite", 1: "odins_tide"})
    apply(s, awaiting(s)[0], Action(K.KEEP_FIGURE, Unit.LEADER, E))
    destroyed = _events(s, "figures_destroyed")
    assert destroyed[0] == (
        ALL,
        {
            "type": "figures_destroyed",
            "cause": "effect",
            "destroyed": [[1, FIG_WARRIORS[0], E]],
            "card": smite,
        },
    )
    assert destroyed[1] == (
        ALL,
        {
            "type": "figures_destroyed",
            "cause": "own_choice",
            "destroyed": [[1, FIG_WARRIORS[1], E]],
            "card": tide,
        },
    )


def test_the_volur_witch_retreat_is_public(h) -> None:
    s = _battle(h, ["volur_witch"], ["volur_witch"], age=3)
    h.play_cards(s, {0: "tyrs_rage", 1: "tyrs_crush"})
    while s.prompts and s.prompts[0].kind == PromptKind.LATE_CARD:
        apply(s, awaiting(s)[0], Action(K.DECLINE))
    witch = s.clans[1].slots[3]
    apply(s, 1, Action(K.ACCEPT))
    assert _events(s, "witch_retreat", "figures_destroyed") == [
        (
            ALL,
            {
                "type": "witch_retreat",
                "seat": 1,
                "unit": Unit.VOLUR_WITCH,
                "from": E,
                "to": Area.YGGDRASIL,
                "card": witch,
            },
        )
    ]
    assert s.clans[1].loc[monster_fig(Unit.VOLUR_WITCH)] == Area.YGGDRASIL


def test_heimdalls_watch_reports_the_glory_of_the_discarded_cards(h) -> None:
    s = _recorded(
        h,
        [
            {"hand": ["heimdalls_watch", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite", "tyrs_bash"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    apply(s, 0, Action(K.PILLAGE, E))
    _decline_calls(s)
    watch = h.card(s, 0, "heimdalls_watch")
    h.play_cards(s, {0: "heimdalls_watch", 1: "tyrs_smite"})
    assert _events(s, "heimdalls_watch") == [
        (
            ALL,
            {"type": "heimdalls_watch", "seat": 0, "glory": 5, "card": watch, "province": E},
        )
    ]


def test_end_of_age_events(h) -> None:
    s = _recorded(
        h,
        [
            {
                "quests": ["alfheim", "manheim"],
                "hand": ["tyrs_smash", "tyrs_bash"],
                "figures": {"Gimle": ["leader"]},
            },
            {
                "hand": ["tyrs_smite"],
                "figures": {"Muspelheim": ["warrior"], "East fjord": ["ship"]},
            },
        ],
    )
    alfheim, manheim = s.clans[0].quests
    for seat in (0, 1, 2):
        apply(s, seat, Action(K.PASS))
    smash = h.card(s, 0, "tyrs_smash")
    apply(s, 0, Action(K.KEEP_CARD, smash))
    apply(s, 1, Action(K.KEEP_NONE))
    apply(s, 0, Action(K.RAISE_STAT, 1))
    assert _events(s, "phase", "kept", "quest", "ragnarok", "release") == [
        (ALL, {"type": "phase", "age": 1, "phase": "discard"}),
        (0, {"type": "kept", "seat": 0, "card": smash}),
        (1, {"type": "kept", "seat": 1, "card": -2}),  # keeps nothing
        (ALL, {"type": "phase", "age": 1, "phase": "quest"}),
        (ALL, {"type": "quest", "seat": 0, "card": alfheim, "success": True, "glory": 5}),
        (ALL, {"type": "quest", "seat": 0, "card": manheim, "success": False, "glory": 0}),
        (ALL, {"type": "phase", "age": 1, "phase": "ragnarok"}),
        (
            ALL,
            {
                "type": "ragnarok",
                "age": 1,
                "province": MUS,
                "deaths": {1: 2},
                "destroyed": [[1, FIG_WARRIORS[0], MUS], [1, FIG_SHIP, Area.EAST_FJORD]],
            },
        ),
        (ALL, {"type": "phase", "age": 1, "phase": "release_valhalla"}),
        (ALL, {"type": "release", "age": 1, "released": [0, 2, 0]}),
        (ALL, {"type": "phase", "age": 2, "phase": "draft"}),
    ]


def test_game_over_reports_every_final_glory(h) -> None:
    s = _recorded(
        h,
        [{"glory": 4, "stats": {"axes": 4}, "figures": {"Gimle": ["leader"]}}, {"glory": 9}],
        age=3,
        ragnarok=["Muspelheim", "Elvagar", "Myrkulor"],
    )
    for seat in (0, 1, 2):
        apply(s, seat, Action(K.PASS))
    assert s.step == Step.GAME_OVER
    assert _events(s, "game_over") == [(ALL, {"type": "game_over", "glory": [14, 9, 0]})]
    assert s.clans[0].loc[FIG_LEADER] == GIMLE


def _stat(seat: int, stat: int, step: int, reason: str, *, card: int = -1, area: int = -1):
    return (
        ALL,
        {
            "type": "stat",
            "seat": seat,
            "stat": stat,
            "step": step,
            "previous": step - 1,
            "reason": reason,
            "card": card,
            "area": area,
        },
    )


def test_a_stat_step_is_reported_where_it_is_taken_with_why(h) -> None:
    """Yggdrasil's reward raises all three stats before the battle's Glory (which is the
    Axes after it): the events say so in that order."""
    s = _recorded(
        h,
        [
            {"hand": ["tyrs_smash"], "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Yggdrasil": ["warrior"]}},
        ],
    )
    apply(s, 0, Action(K.PILLAGE, Area.YGGDRASIL))
    _decline_calls(s)
    h.play_cards(s, {0: "tyrs_smash"})
    kinds = [p["type"] for _, p in _events(s, "pillage", "stat", "glory", "pillage_reward")]
    assert kinds == ["pillage", "stat", "stat", "stat", "pillage_reward", "glory"]
    assert _events(s, "stat") == [
        _stat(0, stat, 1, "pillage", area=Area.YGGDRASIL) for stat in (0, 1, 2)
    ]
    assert _events(s, "glory")[0][1]["delta"] == 4, "Axes on its second step: 4 Glory"


def test_a_quest_step_and_a_card_step_say_so(h) -> None:
    s = _recorded(h, [{"quests": ["alfheim"], "figures": {"Gimle": ["leader"]}}])
    for seat in (0, 1, 2):
        apply(s, seat, Action(K.PASS))
    apply(s, 0, Action(K.RAISE_STAT, 2))
    assert _events(s, "stat") == [_stat(0, 2, 1, "quest")]
    spears = _recorded(
        h,
        [
            {
                "upgrades": ["lord_of_spears"],
                "figures": {"Elvagar": ["leader"]},
                "stats": {"axes": 6},
            }
        ],
        age=3,
    )
    card = spears.clans[0].slots[0]
    apply(spears, 0, Action(K.PILLAGE, E))
    _decline_calls(spears)
    # Elvagar's token (Horns), then Lord of Spears: +1 to each stat, but Axes is on its last
    # step already (a lost step reports nothing).
    assert _events(spears, "stat") == [
        _stat(0, 2, 1, "pillage", area=E),
        _stat(0, 0, 1, "card", card=card, area=E),
        _stat(0, 2, 2, "card", card=card, area=E),
    ]


def test_rage_a_card_text_moves_is_reported(h) -> None:
    s = _recorded(
        h,
        [
            {"hand": ["tyrs_smash"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["lokis_trickery"], "figures": {"Elvagar": ["warrior"]}},
        ],
    )
    trickery = h.card(s, 1, "lokis_trickery")
    apply(s, 0, Action(K.PILLAGE, E))
    _decline_calls(s)
    h.play_cards(s, {0: "tyrs_smash", 1: "lokis_trickery"})
    assert _events(s, "rage") == [
        (
            ALL,
            {"type": "rage", "seat": 0, "delta": -1, "rage": 5, "card": trickery, "other_seat": 1},
        ),
        (
            ALL,
            {"type": "rage", "seat": 1, "delta": 1, "rage": 7, "card": trickery, "other_seat": 0},
        ),
    ]


def test_a_decisions_event_says_what_it_cost_and_what_it_answered(h) -> None:
    s = h.scenario(
        4,
        [{"hand": ["thors_domain", "experts_in_arms"], "rage": 9}],
        phase="action",
        turn=0,
        age=2,
    )
    s.events = []
    domain, experts = h.card(s, 0, "thors_domain"), h.card(s, 0, "experts_in_arms")
    apply(s, 0, Action(K.UPGRADE, domain, 0))
    for seat in (1, 2, 3):
        apply(s, seat, Action(K.PASS))
    apply(s, 0, Action(K.UPGRADE, experts, 0))
    apply(s, 0, Action(K.FREE_INVADE, Unit.WARRIOR, E))  # Experts in Arms' free invade
    apply(s, 0, Action(K.ACCEPT))  # Thor's Domain: pillage Elvagar at once
    actions = [p for _, p in _events(s, "action")]
    assert actions[0]["details"] == {"rage_cost": 1, "card": domain, "slot": 5}
    assert actions[1]["details"] == {"rage_cost": 6}  # a pass gives up all the Rage left
    assert actions[4]["details"] == {"rage_cost": 2, "card": experts, "slot": 2}
    assert actions[5]["details"] == {"unit": Unit.WARRIOR, "area": E, "strength": 2}
    assert actions[6]["details"] == {"rage_cost": 2, "offer": "thors_domain", "area": E}
    assert actions[6]["text"] == "Thor's Domain: pay 2 Rage to pillage Elvagar now"
    assert s.clans[0].rage == 9 - 1 - 2 - 2
    assert _events(s, "pillage_started") == [
        (ALL, {"type": "pillage_started", "seat": 0, "province": E})
    ]


def test_every_kind_the_engine_emits_is_checked_and_known_to_the_server() -> None:
    """A new event kind needs an exact expected payload in these tests (this module, or
    test_glory_events.py for Glory) and a converter in the server, which refuses kinds it does
    not know."""
    here = Path(__file__).resolve()
    rules_folder = here.parents[2] / "engine" / "blood_rage"
    engine_source = "\n".join(p.read_text() for p in rules_folder.glob("*.py"))
    tests_source = here.read_text() + here.with_name("test_glory_events.py").read_text()
    emitted = set(re.findall(r'"type": "(\w+)"', engine_source))
    expected = set(re.findall(r'"type": "(\w+)"', tests_source))
    assert emitted >= {"action", "glory", "game_over", "release"}, emitted
    assert emitted == expected, f"kinds without a test: {emitted - expected}"
    assert emitted == set(EVENT_CONVERTERS) | PRIVATE_EVENTS | {"action"}
