"""Every change of Glory is one engine event saying why (issue 12, point 4): a won battle,
the pillage reward, a quest, Ragnarök, each card text and each end-of-game stat bonus, never
two sources merged. Each test checks the exact events (all public) of one source."""

from __future__ import annotations

from typing import Any

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Stat, Step
from engine.blood_rage.state import EMPTY

K = ActionKind
E, MUS, GIMLE, NORTH = Area.ELVAGAR, Area.MUSPELHEIM, Area.GIMLE, Area.NORTH_FJORD


def _glory(
    seat: int,
    delta: int,
    total: int,
    reason: str,
    *,
    card: int = EMPTY,
    area: int = EMPTY,
    stat: int = EMPTY,
    other_seat: int = EMPTY,
) -> tuple[int, dict[str, Any]]:
    return (
        -1,
        {
            "type": "glory",
            "seat": seat,
            "delta": delta,
            "glory": total,
            "reason": reason,
            "card": card,
            "area": area,
            "stat": stat,
            "other_seat": other_seat,
        },
    )


def _glory_events(state) -> list[tuple[int, dict[str, Any]]]:
    return [(a, p) for a, p in state.events if p["type"] == "glory"]


def _recorded(h, clans: list[dict[str, Any]], players: int = 3, **fields: Any):
    state = h.scenario(players, clans, **({"phase": "action", "turn": 0} | fields))
    state.events = []
    return state


def _won_battle(h, card: str, upgrades=(), extra=(), age: int = 1, defender=None):
    """Seat 0 (its leader, plus ``extra`` figures) wins in Elvagar against two warriors of
    seat 1, which has no card to play, playing ``card``; both warriors die."""
    s = _recorded(
        h,
        [
            {
                "hand": [card],
                "upgrades": list(upgrades),
                "figures": {"Elvagar": ["leader", *extra]},
            },
            defender or {"figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=age,
    )
    apply(s, 0, Action(K.PILLAGE, E))
    h.decline_calls(s)
    h.play_cards(s, {0: card, **({1: h.key(s.clans[1].hand[0])} if s.clans[1].hand else {})})
    assert s.battle is None and s.clans[0].glory > 0
    return s


AXES = 3  # Axes on its first step: the Glory of a won battle


def test_a_won_battle(h) -> None:
    s = _won_battle(h, "tyrs_smite")
    assert _glory_events(s) == [_glory(0, AXES, AXES, "battle", area=E)]


def test_the_pillage_reward_and_the_frost_giants_second_reward(h) -> None:
    s = _recorded(h, [{"figures": {"Muspelheim": ["warrior"]}}])
    apply(s, 0, Action(K.PILLAGE, MUS))
    assert _glory_events(s) == [_glory(0, 5, 5, "pillage", area=MUS)]
    s = _recorded(
        h,
        [{"upgrades": ["frost_giant"], "figures": {"Muspelheim": ["frost_giant"]}}],
        age=3,
        ragnarok=["Gimle", "Horgr", "Myrkulor"],
    )
    giant = s.clans[0].slots[3]
    apply(s, 0, Action(K.PILLAGE, MUS))
    assert _glory_events(s) == [
        _glory(0, 5, 5, "pillage", area=MUS),
        _glory(0, 5, 10, "card", card=giant, area=MUS),
    ]


def _to_quests(h, clans: list[dict[str, Any]], players: int = 3, **fields: Any):
    s = _recorded(h, clans, players, **fields)
    for seat in range(players):
        apply(s, seat, Action(K.PASS))
    return s


def test_a_quest_and_odins_throne_doubling_it(h) -> None:
    s = _to_quests(h, [{"quests": ["alfheim"], "figures": {"Gimle": ["leader"]}}])
    (quest,) = [p["card"] for _, p in s.events if p["type"] == "quest"]
    assert _glory_events(s) == [_glory(0, 5, 5, "quest", card=quest)]
    s = _to_quests(
        h,
        [
            {
                "quests": ["alfheim_2"],
                "upgrades": ["odins_throne"],
                "figures": {"Gimle": ["leader"]},
            }
        ],
        age=2,
        ragnarok=["Muspelheim", "Horgr", "Myrkulor"],
    )
    (quest,) = [p["card"] for _, p in s.events if p["type"] == "quest"]
    throne = s.clans[0].slots[5]
    assert _glory_events(s) == [
        _glory(0, 7, 7, "quest", card=quest),
        _glory(0, 7, 14, "card", card=throne),
    ]


def test_ragnarok_and_odins_inspiration_doubling_it(h) -> None:
    s = _to_quests(
        h,
        [
            {"figures": {"Muspelheim": ["warrior", "warrior"]}},
            {"upgrades": ["odins_inspiration"], "figures": {"Muspelheim": ["leader"]}},
        ],
    )
    inspiration = s.clans[1].slots[5]
    assert _glory_events(s) == [
        _glory(0, 4, 4, "ragnarok", area=MUS),  # 2 figures x 2 Glory in Age 1
        _glory(1, 2, 2, "ragnarok", area=MUS),
        _glory(1, 2, 4, "card", card=inspiration, area=MUS),
    ]


def test_release_cards_of_loki(h) -> None:
    s = _to_quests(
        h,
        [
            {"upgrades": ["lokis_domain"], "figures": {"Valhalla": ["warrior", "warrior"]}},
            {"upgrades": ["lokis_eminence"], "figures": {"Valhalla": ["leader"]}},
            {"upgrades": ["lokis_wrath"], "figures": {"Valhalla": ["warrior"]}},
        ],
        players=4,
        age=3,
    )
    domain, eminence, wrath = (s.clans[seat].slots[5] for seat in (0, 1, 2))
    assert [e for e in _glory_events(s) if e[1]["reason"] == "card"] == [
        _glory(0, 2, 2, "card", card=domain),  # 1 per figure back from Valhalla
        _glory(1, 2, 2, "card", card=eminence),  # 2 per figure
        _glory(2, 3, 3, "card", card=wrath),  # 3 per figure
    ]


def test_end_of_game_thors_conquest_and_each_stat_bonus(h) -> None:
    s = _to_quests(
        h,
        [
            {
                "upgrades": ["thors_conquest"],
                "stats": {"rage": 4, "axes": 5, "horns": 6},
                "figures": {"Elvagar": ["leader", "warrior"]},
            }
        ],
        age=3,
    )
    assert s.step == Step.GAME_OVER
    conquest = s.clans[0].slots[5]
    assert _glory_events(s) == [
        _glory(0, 6, 6, "card", card=conquest),  # 3 per figure on the board
        _glory(0, 10, 16, "end_game", stat=Stat.RAGE),
        _glory(0, 10, 26, "end_game", stat=Stat.AXES),
        _glory(0, 20, 46, "end_game", stat=Stat.HORNS),
    ]


# -- card texts in a battle (reported at the battle's province) ------------------------------


def test_thors_hammer(h) -> None:
    s = _won_battle(h, "thors_hammer")
    hammer = s.discard[0]
    assert _glory_events(s) == [
        _glory(0, 3, 3, "card", card=hammer, area=E),
        _glory(0, AXES, 3 + AXES, "battle", area=E),
    ]


def test_thors_ascension(h) -> None:
    s = _won_battle(h, "thors_ascension", age=3)
    assert _glory_events(s)[0] == _glory(0, 3, 3, "card", card=s.discard[0], area=E)


def test_odins_judgement_counts_every_figure_destroyed(h) -> None:
    s = _won_battle(h, "odins_judgement", age=3)
    assert _glory_events(s)[0] == _glory(0, 4, 4, "card", card=s.discard[0], area=E)


def test_thors_glory_after_two_enemy_kills(h) -> None:
    s = _won_battle(h, "tyrs_smite", upgrades=["thors_glory"])
    assert _glory_events(s)[0] == _glory(0, 2, 2, "card", card=s.clans[0].slots[5], area=E)


def test_the_valkyrie(h) -> None:
    s = _won_battle(h, "tyrs_crush", upgrades=["valkyrie"], extra=["valkyrie"], age=2)
    assert s.clans[1].glory == 0 and h.valhalla(s, 1) == 2
    assert _glory_events(s)[0] == _glory(0, 4, 4, "card", card=s.clans[0].slots[3], area=E)


def test_dragons_of_a_ship_lost_in_a_battle(h) -> None:
    defender = {
        "upgrades": ["lokis_dragons"],
        "figures": {"Elvagar": ["warrior"], "North fjord": ["ship"]},
    }
    s = _won_battle(h, "tyrs_smite", defender=defender)
    dragons = s.clans[1].slots[2]
    assert _glory_events(s)[0] == _glory(1, 4, 4, "card", card=dragons, area=NORTH)


def test_lokis_backstab_is_two_events_and_takes_at_most_what_there_is(h) -> None:
    defender = {"hand": ["lokis_backstab"], "figures": {"Elvagar": ["warrior"]}}
    s = _recorded(
        h,
        [{"hand": ["tyrs_crush"], "glory": 3, "figures": {"Elvagar": ["leader"]}}, defender],
        age=2,
    )
    apply(s, 0, Action(K.PILLAGE, E))
    h.decline_calls(s)
    h.play_cards(s, {0: "tyrs_crush", 1: "lokis_backstab"})
    stab = h.card(s, 1, "lokis_backstab")  # a loser takes its card back
    assert _glory_events(s)[:2] == [
        _glory(0, -2, 1, "card", card=stab, area=E, other_seat=1),
        _glory(1, 2, 2, "card", card=stab, area=E, other_seat=0),
    ]


def test_heimdalls_watch(h) -> None:
    s = _recorded(
        h,
        [
            {"hand": ["heimdalls_watch", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite", "tyrs_bash"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    apply(s, 0, Action(K.PILLAGE, E))
    h.decline_calls(s)
    watch = h.card(s, 0, "heimdalls_watch")
    h.play_cards(s, {0: "heimdalls_watch", 1: "tyrs_smite"})
    assert _glory_events(s) == [_glory(0, 5, 5, "card", card=watch, area=E)]  # Smite's +5


def test_glory_events_add_up_to_every_clans_glory_in_random_games() -> None:
    """Nothing changes Glory without an event (the server refuses such a decision)."""
    import random

    from engine.blood_rage.flow import legal_actions
    from engine.blood_rage.setup import new_game

    rng = random.Random(12)
    reasons: set[str] = set()
    for seed in range(6):
        s = new_game(2 + seed % 4, seed)
        s.events = []
        while s.step != Step.GAME_OVER:
            seat = awaiting(s)[0]
            actions = legal_actions(s, seat)
            apply(s, seat, actions[rng.randrange(len(actions))])
        told = [0] * s.players
        for _, p in _glory_events(s):
            assert p["delta"] != 0
            told[p["seat"]] += p["delta"]
            assert p["glory"] == told[p["seat"]], "the total after each event"
            reasons.add(p["reason"])
        assert told == [c.glory for c in s.clans]
    assert {"battle", "ragnarok"} <= reasons
