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
