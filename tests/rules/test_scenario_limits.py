"""Scenario fields at their limits (docs/engine.md, "Scenarios"; the server's CreateGame takes
them): the last value accepted and the first refused, with a message naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from engine.blood_rage.cards import card_of
from engine.blood_rage.ids import Area, Step
from engine.blood_rage.scenario import from_scenario, to_scenario
from engine.core.errors import ScenarioError

RAGNAROK = ["Muspelheim", "Gimle", "Myrkulor"]


def _tokens(**changes: str) -> dict[str, str]:
    """The pillage tokens of the outer provinces, with ``changes``."""
    tokens = {
        "Myrkulor": "rage",
        "Elvagar": "horns",
        "Angerboda": "rage",
        "Muspelheim": "glory5",
        "Horgr": "rage",
        "Utgard": "horns",
        "Andlang": "axes",
        "Gimle": "axes",
    }
    return {**tokens, **changes}


def _data(players: Any = 2, clans: list[dict[str, Any]] | None = None, **fields: Any):
    clans = list(clans or [])
    count = players if type(players) is int else 2
    clans += [{}] * (count - len(clans))
    return {"players": players, "ragnarok": RAGNAROK, "clans": clans, **fields}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_data(players=6), "players must be a whole number from 2 to 5, not 6"),
        (_data(players=True), "players must be a whole number from 2 to 5, not True"),
        (_data(players="3"), "players must be a whole number from 2 to 5, not '3'"),
        (_data(seed=2**64), f"seed must be a whole number from 0 to {2**64 - 1}, not {2**64}"),
        (_data(seed=-1), "seed must be a whole number from 0 to"),
        (_data(age=4), "age must be a whole number from 1 to 3, not 4"),
        (_data(phase=3), "phase must be one of"),
        (_data(phase=["action"]), "phase must be one of"),
        (_data(first_player=2), "first_player must be a whole number from 0 to 1, not 2"),
        (_data(turn=2), "turn must be a whole number from 0 to 1, not 2"),
        (_data(ragnarok=["Muspelheim", "Gimle"]), "ragnarok lists the three provinces"),
        (_data(ragnarok="Gimle"), "ragnarok lists the three provinces"),
        (
            _data(ragnarok=["North fjord", "Gimle", "Myrkulor"]),
            "ragnarok: 'North fjord' is not a province",
        ),
        (_data(destroyed=["East fjord"]), "destroyed: 'East fjord' is not a province"),
        (_data(destroyed="Horgr"), "destroyed must be a list, not str"),
        (_data(pillaged=["West fjord"]), "pillaged: 'West fjord' is not a province"),
        (_data(pillaged="Horgr"), "pillaged must be a list, not str"),
        (
            _data(pillage_tokens={"Myrkulor": "rage"}),
            "pillage_tokens gives a token for each of the 8 outer provinces",
        ),
        (
            _data(
                pillage_tokens={
                    "South fjord": "rage",
                    "Elvagar": "rage",
                    "Angerboda": "rage",
                    "Muspelheim": "glory5",
                    "Horgr": "axes",
                    "Utgard": "horns",
                    "Andlang": "axes",
                    "Gimle": "horns",
                }
            ),
            "pillage_tokens: 'South fjord' is not a province",
        ),
        ({**_data(), "clans": [{}]}, "clans must list 2 clans, one per seat"),
        ({**_data(), "clans": {}}, "clans must list 2 clans, one per seat"),
        (_data(decks=["tyrs_rage"]), "decks must be"),
        (
            _data(clans=[{"stats": {"rage": 7}}]),
            "clans[0].stats.rage must be a whole number from 1 to 6, not 7",
        ),
        (
            _data(clans=[{"rage": 100}]),
            "clans[0].rage must be a whole number from 0 to 99, not 100",
        ),
        (
            _data(clans=[{"glory": -1000}]),
            "clans[0].glory must be a whole number from -999 to 9999",
        ),
        (
            _data(clans=[{"glory": 10000}]),
            "clans[0].glory must be a whole number from -999 to 9999",
        ),
        (_data(clans=[{"figures": {"Elvagar": [5]}}]), "unknown unit"),
        (
            _data(clans=[{"upgrades": ["lord_of_hammers", "lord_of_axes"]}]),
            "no free leader slot for Lord of Axes (at most 1)",
        ),
        # What is refused before it could break something further on.
        (_data(colour="red"), "unknown scenario field(s): ['colour']"),
        (_data(draft="fast"), "draft must be 'normal' or 'no_draft', not 'fast'"),
        (_data(phase="battle"), "phase must be one of"),
        (_data(first_player=True), "first_player must be a whole number from 0 to 1, not True"),
        (_data(ragnarok=[5, "Gimle", "Horgr"]), "ragnarok: unknown place 5"),
        (_data(ragnarok="abc"), "ragnarok lists the three provinces"),
        (_data(ragnarok=["Yggdrasil", "Gimle", "Horgr"]), "three different outer provinces"),
        (_data(destroyed=["Yggdrasil"]), "Yggdrasil is never destroyed"),
        (_data(destroyed=["Horgr"], pillaged=["Horgr"]), "pillaged: Horgr is destroyed"),
        (_data(pillage_tokens=["rage"] * 8), "pillage_tokens gives a token for each of the 8"),
        (_data(pillage_tokens=_tokens(Elvagar="gold")), "pillage_tokens: unknown token 'gold'"),
        (
            _data(pillage_tokens=_tokens(Elvagar="all_stats")),
            "pillage_tokens: unknown token 'all_stats'",
        ),
        (_data(pillage_tokens=_tokens(Gimle="rage")), "must use the 8 outer tokens"),
        ({**_data(), "clans": {"a": {}, "b": {}}}, "clans must list 2 clans, one per seat"),
        (_data(clans=[[]]), "clans[0] must be an object, not list"),
        (_data(clans=[{"colour": "red"}]), "clans[0]: unknown field(s) ['colour']"),
        (_data(clans=[{"hand": [5]}]), "clans[0].hand: a card is named by a string, not 5"),
        (_data(clans=[{"upgrades": ["tyrs_bash"]}]), "Tyr's Bash is not an upgrade card"),
        (_data(clans=[{"figures": {"box": ["warrior"]}}]), "cannot be placed in the box"),
        (_data(clans=[{"figures": {"Elvagar": ["dragon"]}}]), "unknown unit 'dragon'"),
        (
            _data(clans=[{"figures": {"South fjord": ["ship"]}}], destroyed=["Utgard", "Andlang"]),
            "South fjord supports no live province",
        ),
        (
            _data(
                clans=[
                    {"stats": {"horns": 6}, "figures": {"Gimle": ["leader"] + ["warrior"] * 4}},
                    {"figures": {"Gimle": ["warrior"]}},
                ]
            ),
            "Gimle holds 6 figures but has only 5 villages",
        ),
    ],
)
def test_refused_scenarios_name_what_is_wrong(data, message):
    with pytest.raises(ScenarioError) as info:
        from_scenario(data)
    assert message in str(info.value)


@pytest.mark.parametrize("text", ["[]", '"action"', "3"])
def test_a_scenario_is_a_json_object(text):
    with pytest.raises(ScenarioError, match="a scenario is a JSON object"):
        from_scenario(text)


def test_the_listed_tokens_and_a_drawn_layout():
    state = from_scenario(_data(pillage_tokens=_tokens()))
    assert from_scenario(_data(pillage_tokens=_tokens())).token == state.token
    layouts = {tuple(from_scenario(_data(seed=seed)).token) for seed in range(6)}
    assert len(layouts) > 1, "without pillage_tokens the seed shuffles them"
    for layout in layouts:
        assert sorted(layout[1:]) == sorted(state.token[1:]), "the 8 outer tokens"


def test_a_destroyed_provinces_token_is_gone_and_its_place_pillaged_by_nobody():
    """Gimle, the last province by number, destroyed at set-up: no token."""
    state = from_scenario(
        _data(destroyed=["Gimle", "Horgr"], ragnarok=["Muspelheim", "Utgard", "Myrkulor"])
    )
    assert state.token[Area.GIMLE] == -1 and state.token[Area.HORGR] == -1
    assert state.token[Area.MYRKULOR] >= 0


def test_a_scenario_deals_shuffled_decks():
    """A draft to come deals from a deck shuffled by the seed, not in card order."""
    dealt = [from_scenario(_data(phase="draft", seed=seed)).packs[0] for seed in (1, 2)]
    assert dealt[0] != dealt[1]
    assert dealt[0] != sorted(dealt[0])


def test_the_turn_is_read_in_the_action_phase_only():
    """A Discard-phase position whose first player has no Rage left is fine: nobody acts."""
    data = _data(phase="discard", clans=[{"rage": 0, "hand": ["tyrs_bash_1"]}, {"rage": 0}])
    assert from_scenario(data).step == Step.DISCARD


def test_kept_names_the_first_copy_of_its_card_in_the_hand():
    state = from_scenario(
        _data(
            players=3,
            clans=[{"hand": ["odins_smite", "tyrs_bash", "odins_smite"], "kept": "odins_smite"}],
        )
    )
    assert state.clans[0].kept == state.clans[0].hand[0] != state.clans[0].hand[2]


def test_the_last_values_accepted():
    state = from_scenario(
        _data(
            players=5,
            seed=2**64 - 1,
            age=3,
            first_player=4,
            turn=4,
            clans=[
                {"stats": {"rage": 6, "axes": 6, "horns": 6}, "rage": 99, "glory": 9999},
                {},
                {},
                {},
                {"glory": -999},
            ],
        )
    )
    assert (state.players, state.seed, state.age, state.first_player, state.turn) == (
        5,
        2**64 - 1,
        3,
        4,
        4,
    )
    assert state.clans[0].steps == [5, 5, 5] and state.clans[0].rage == 99
    assert [state.clans[0].glory, state.clans[4].glory] == [9999, -999]
    assert from_scenario(_data(seed=0)).seed == 0
    assert from_scenario(_data()).seed == 0, "no seed given: 0"


def test_without_a_ragnarok_list_three_are_drawn():
    state = from_scenario({"players": 3, "seed": 4, "clans": [{}, {}, {}]})
    assert len(state.ragnarok) == 3 and len(set(state.ragnarok)) == 3
    assert 0 not in state.ragnarok


def test_a_release_scenario_has_destroyed_its_ages_province():
    """After Age 1's Ragnarok (a scenario in its Release phase), that province is destroyed,
    not Age 3's."""
    state = from_scenario(_data(phase="release"))
    assert state.age == 2, "the release ends Age 1"
    assert state.destroyed[Area.MUSPELHEIM] and not state.destroyed[Area.MYRKULOR]


def test_spent_ages_are_unseen_and_a_deck_may_be_stacked():
    """In Age 2 (Action phase) Age 1's and Age 2's leftover cards are spent (unseen); Age 3's
    deck is whole, with the named card on top."""
    state = from_scenario(_data(age=2, decks={"3": ["tyrs_judgement"]}, players=5))
    assert state.decks[0] == [] and state.decks[1] == []
    assert card_of(state.decks[2][0]).key == "tyrs_judgement"
    assert len(state.decks[2]) == 42, "five players: every Age 3 card"
    assert len(state.unseen) == 42 + 42


@pytest.mark.parametrize(
    ("fields", "held", "ok"),
    [
        ({"age": 1}, 4, True),  # Age 2's deck keeps 16 of 20: exactly two hands of 8
        ({"age": 1}, 5, False),
        ({"age": 2, "phase": "draft"}, 5, False),  # Age 2's own draft is still to come
        ({"age": 2}, 5, True),  # Age 2 already dealt: only Age 3 must deal
        ({"age": 1, "phase": "draft"}, 0, False),  # Age 1's draft to come, its cards held
        ({"age": 2, "phase": "draft"}, 0, True),  # Age 1 is spent: its cards may be held
    ],
)
def test_a_hosted_scenario_keeps_enough_cards_for_the_drafts_to_come(fields, held, ok):
    """Two players: each draft deals 2 x 8 of an Age's 20 cards. The Wolf holds ``held``
    Age 2 cards (none: five Age 1 cards)."""
    age2 = ["tyrs_rage", "tyrs_crush", "heimdalls_watch", "odins_tide", "lokis_backstab"]
    age1 = ["tyrs_smite", "tyrs_bash", "odins_smite", "thors_hammer", "lokis_trickery"]
    hand = [f"{k}_2" for k in age2[:held]] or [f"{k}_1" for k in age1]
    data = _data(clans=[{"hand": hand}], **fields)
    if ok:
        assert from_scenario(data, hosted=True).players == 2
    else:
        with pytest.raises(ScenarioError, match="fewer than its draft deals \\(16\\)"):
            from_scenario(data, hosted=True)
    assert from_scenario(data).players == 2, "only a hosted game needs the cards"


def test_a_hosted_scenario_keeps_enough_age_3_cards():
    """Age 2: Age 3's draft is still to come; holding 5 of its 20 cards leaves 15 < 16."""
    age3 = ["tyrs_crush_3", "thors_primacy", "lokis_poison", "odins_judgement", "tyrs_rage_3"]
    data = _data(age=2, clans=[{"hand": age3[:4]}, {"hand": age3[4:]}])
    with pytest.raises(ScenarioError, match="Age 3 cards that its deck keeps 15"):
        from_scenario(data, hosted=True)
    data = _data(age=2, clans=[{"hand": age3[:4]}])
    assert from_scenario(data, hosted=True).age == 2


def test_a_hosted_scenario_must_leave_a_decision():
    data = _data(age=3, phase="ragnarok")
    assert from_scenario(data).step == Step.GAME_OVER
    with pytest.raises(ScenarioError, match="nobody has a decision left"):
        from_scenario(data, hosted=True)


def test_a_kept_troll_is_written_back():
    """Card instance 0 (the Troll) kept from Age 1 is named in the written scenario."""
    state = from_scenario(_data(age=2, clans=[{"hand": ["troll"], "kept": "troll"}]))
    assert state.clans[0].kept == 0
    assert to_scenario(state)["clans"][0]["kept"] == "troll_1"
