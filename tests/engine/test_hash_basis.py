"""What a battle just begun contributes to the state hash and to a snapshot.

A durable game stores the state hash after every action (server/games/game.py, the log's hash
chain) and snapshots of the whole state; a stored game must verify and restore the same in
years (docs/durability.md). So the starting values of a battle's fields are part of what is
stored, even those the rules set again before reading them."""

from __future__ import annotations

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Step
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.snapshot import to_snapshot
from engine.blood_rage.state import GameState, Prompt, PromptKind


def test_a_call_to_battle_by_seat_1_hashes_and_snapshots_as_begun():
    """Three players; seat 1 pillages Elvagar, seat 2 (in Angerboda, next to it) is asked
    first: the order runs from the pillager's left (2, 0) to the pillager (1)."""
    state = from_scenario(
        {
            "players": 3,
            "turn": 1,
            "clans": [
                {"figures": {"Elvagar": ["warrior"]}},
                {"figures": {"Elvagar": ["leader"]}},
                {"figures": {"Angerboda": ["warrior"]}},
            ],
        }
    )
    apply(state, 1, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    assert state.step == Step.CALL_TO_BATTLE and awaiting(state) == [2]
    battle = [
        *(Area.ELVAGAR, 1),  # province, pillager
        *(0, 0, 0, 0, 0),  # pos, moved, revealed, stage, cursor
        *(0, 0, -1),  # late_played, reveals, winner
        *(0, 0),  # participants, monsters (none yet)
        *(3, -1, -1, -1),  # choice: nobody has chosen
        0,  # cancelled
        *(3, 0, 0, 0),  # totals
        *(3, 0, 0, 0),  # killed
        *(0, 0, 0),  # each seat's played cards
    ]
    assert list(state.canonical())[-len(battle) :] == battle
    snapshot = to_snapshot(state)["battle"]
    assert snapshot["order"] == [2, 0, 1] and snapshot["pos"] == 0
    assert (snapshot["revealed"], snapshot["stage"], snapshot["cursor"]) == (False, 0, 0)
    assert snapshot["totals"] == [0, 0, 0] and snapshot["destroyed"] == []


def test_a_scenario_position_snapshots_no_draft_picks():
    """Outside the draft every seat has 0 cards left to pick, one count per seat."""
    state = from_scenario({"players": 3, "clans": [{}, {}, {}]})
    assert to_snapshot(state)["picks"] == [0, 0, 0]


def test_the_hash_tells_apart_positions_that_differ_in_one_value():
    """Two positions alike but for one card of a hand, one committed quest, the march under
    way, a question's argument, a doomed figure or a revealed card hash differently: the
    hash covers the values of those lists, not only their lengths."""
    base = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["tyrs_bash_1", "tyrs_smash_1"], "quests": ["alfheim_1"]},
                {"hand": ["odins_smite_1"], "quests": ["manheim_1"]},
                {},
            ],
        }
    )
    apply(base, 0, Action(ActionKind.PASS))  # seat 1 to act: nothing else changes below
    smite, manheim = base.clans[1].hand[0], base.clans[1].quests[0]

    def hand(s: GameState, card: int) -> None:
        s.clans[0].hand[0] = card

    def quest(s: GameState, card: int) -> None:
        s.clans[0].quests[0] = card

    def march(s: GameState, to: int) -> None:
        s.march = (Area.ELVAGAR, to) if to >= 0 else None

    def prompt(s: GameState, stat: int) -> None:
        s.prompts = [Prompt(PromptKind.RAISE_STAT, 1, stat, 0)]

    def doomed(s: GameState, figure: int) -> None:
        s.doomed = [(1, figure)]

    pairs = [
        (hand, base.clans[0].hand[0], smite),
        (quest, base.clans[0].quests[0], manheim),
        (march, -1, Area.ANGERBODA),
        (march, Area.GIMLE, Area.ANGERBODA),
        (prompt, 0, 1),
        (doomed, 2, 3),
    ]
    for change, first, second in pairs:
        one, other = base.copy(), base.copy()
        change(one, first)
        change(other, second)
        assert one.state_hash() != other.state_hash(), (change.__name__, first, second)
        change(other, first)
        assert one.state_hash() == other.state_hash(), change.__name__


def test_the_hash_tells_apart_revealed_cards():
    state = from_scenario(
        {
            "players": 2,
            "clans": [
                {"hand": ["tyrs_bash_1"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["heimdalls_sight_1"], "figures": {"Elvagar": ["warrior"]}},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    assert state.step == Step.BATTLE_CARDS
    one, other = state.copy(), state.copy()
    assert one.battle is not None and other.battle is not None
    one.battle.played[0] = [5]
    other.battle.played[0] = [6]
    assert one.state_hash() != other.state_hash()
