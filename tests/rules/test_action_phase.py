"""§5 Action phase: Rage reset, clockwise turns, 0-Rage skips, Pass, end of the phase."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import Area, Phase, Step, Unit
from engine.core.errors import NotYourDecisionError


def test_rage_is_reset_to_the_rage_stat_and_first_player_starts(h):
    """§5: each clan's current Rage is set to its Rage stat; the first player acts first
    (000/004 example: Raven raised Rage two steps and starts the Action phase with 8)."""
    state = h.scenario(
        3,
        [
            {"stats": {"rage": 3}, "rage": 0},
            {"stats": {"rage": 1}, "rage": 2},
            {"stats": {"rage": 5}, "rage": 1},
        ],
        phase="draft",
        first_player=2,
    )
    h.draft_all(state)
    assert state.phase == Phase.ACTION
    assert [c.rage for c in state.clans] == [8, 6, 12]
    assert state.turn == 2
    assert h.awaiting(state) == [2]


def test_turns_go_clockwise_one_action_each(h):
    """§5: one action per turn, then the player to the left."""
    state = h.scenario(3, [{}, {}, {}], first_player=1, turn=1)
    order = []
    for _ in range(6):
        seat = h.awaiting(state)[0]
        order.append(seat)
        h.act(state, seat, h.K.INVADE, Unit.WARRIOR, Area.GIMLE if seat else Area.ELVAGAR)
    assert order == [1, 2, 0, 1, 2, 0]
    assert [c.rage for c in state.clans] == [4, 4, 4]


def test_zero_rage_players_are_skipped_and_cannot_act(h):
    """§5: a player with 0 Rage takes no action at all, not even a free one."""
    state = h.scenario(
        3,
        [
            {"figures": {"Elvagar": ["warrior"]}},
            {"rage": 0, "hand": ["manheim"], "figures": {"Gimle": ["warrior"]}},
            {},
        ],
    )
    assert h.legal(state, 1) == []
    with pytest.raises(NotYourDecisionError):
        h.act(state, 1, h.K.QUEST, h.card(state, 1, "manheim"))
    h.act(state, 0, h.K.INVADE, Unit.LEADER, Area.HORGR)
    assert state.turn == 2
    h.act(state, 2, h.K.INVADE, Unit.LEADER, Area.UTGARD)
    assert state.turn == 0


def test_an_action_that_cannot_be_paid_in_full_is_not_offered(h):
    """§5: with 1 Rage a ship (STR 2) cannot invade, a warrior (STR 1) can."""
    state = h.scenario(2, [{"rage": 1}, {}])
    units = {a.a for a in h.legal(state, 0) if a.kind == h.K.INVADE}
    assert units == {Unit.LEADER, Unit.WARRIOR}
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.SHIP, Area.NORTH_FJORD))


def test_pass_drops_rage_to_zero_and_the_player_is_skipped(h):
    """§5: passing loses all remaining Rage; that player takes no more turns."""
    state = h.scenario(3, [{}, {}, {}])
    h.act(state, 0, h.K.PASS)
    assert state.clans[0].rage == 0
    assert state.turn == 1
    h.act(state, 1, h.K.INVADE, Unit.WARRIOR, Area.GIMLE)
    h.act(state, 2, h.K.INVADE, Unit.WARRIOR, Area.GIMLE)
    assert state.turn == 1
    assert state.phase == Phase.ACTION


def test_phase_ends_when_every_player_has_zero_rage(h):
    """§5: the phase ends at once when all players are at 0 Rage."""
    state = h.scenario(
        3,
        [{"hand": ["tyrs_bash"]}, {"rage": 0}, {"rage": 1}],
        first_player=2,
        turn=2,
    )
    h.act(state, 2, h.K.INVADE, Unit.WARRIOR, Area.GIMLE)
    assert state.clans[2].rage == 0
    assert state.phase == Phase.ACTION and state.turn == 0
    h.act(state, 0, h.K.PASS)
    assert state.phase == Phase.DISCARD
    assert state.step == Step.DISCARD
    assert h.awaiting(state) == [0]


def test_phase_ends_when_every_live_province_is_pillaged_even_with_rage_left(h):
    """§5: the phase also ends at once when every non-destroyed province has been pillaged
    this Age (even if Rage remains)."""
    state = h.scenario(
        3,
        [{"hand": ["tyrs_bash"], "figures": {"Yggdrasil": ["warrior"]}}, {}, {}],
        destroyed=["Horgr", "Utgard"],
        pillaged=["Myrkulor", "Elvagar", "Angerboda", "Muspelheim", "Andlang", "Gimle"],
    )
    h.act(state, 0, h.K.PILLAGE, Area.YGGDRASIL)
    h.decline_calls(state)
    assert state.pillaged[Area.YGGDRASIL]
    assert all(c.rage > 0 for c in state.clans)
    assert state.phase == Phase.DISCARD


def test_phase_continues_while_some_live_province_is_unpillaged(h):
    state = h.scenario(
        3,
        [{"figures": {"Yggdrasil": ["warrior"]}}, {}, {}],
        destroyed=["Horgr", "Utgard"],
        pillaged=["Myrkulor", "Elvagar", "Angerboda", "Andlang", "Gimle"],
    )
    h.act(state, 0, h.K.PILLAGE, Area.YGGDRASIL)
    assert state.phase == Phase.ACTION
    assert state.turn == 1


def test_pillaged_rage_reward_shows_in_the_next_action_phase(h):
    """board.md: a Rage reward raises the stat now and the Rage of the next Action phase."""
    state = h.scenario(2, [{"figures": {"Myrkulor": ["warrior"]}, "rage": 2}, {"rage": 0}])
    h.act(state, 0, h.K.PILLAGE, Area.MYRKULOR)
    assert state.clans[0].rage == 2
    h.act(state, 0, h.K.PASS)
    assert state.age == 2 and state.phase == Phase.DRAFT
    h.draft_all(state)
    assert state.phase == Phase.ACTION
    assert [c.rage for c in state.clans] == [7, 6]
    assert state.turn == 1, "the first player token passed left"
