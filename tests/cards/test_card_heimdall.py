"""Heimdall's Eye / Gaze (late play after the reveal: pillager first, then clockwise, round
and round, several per player) and Heimdall's Watch (discard, Glory, a second secret round)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import Area, Step
from engine.blood_rage.snapshot import to_snapshot
from engine.blood_rage.state import PromptKind

E = Area.ELVAGAR


def _late_log(g, s, plays):
    """Answer LATE_CARD prompts: ``plays`` maps seat -> list of answers, each 'eye'/'gaze'
    or None (decline), in the order that seat is asked. Returns the seats asked, in order."""
    asked = []
    while g.prompt(s) and g.prompt(s)[0] == PromptKind.LATE_CARD:
        seat = g.prompt(s)[1]
        asked.append(seat)
        choice = plays[seat].pop(0)
        if choice is None:
            g.act(s, seat, g.K.DECLINE)
        else:
            g.act(s, seat, g.K.LATE_CARD, g.card(s, seat, choice))
    assert all(not v for v in plays.values()), f"unused answers {plays}"
    return asked


def test_late_eye_pillager_first_clockwise_round_and_round_several(g):
    """Seat 1 pillages. Late offers: seat 1 (declines), seat 2 skipped (no late card), seat 0
    (plays an Eye); someone played, so another round: seat 1 plays its Eye, seat 0 its second
    Eye; a third round asks nobody (no late card left) and the battle resolves."""
    s = g.state(
        3,
        [
            {
                "hand": ["tyrs_smite", "heimdalls_eye", "heimdalls_eye"],
                "figures": {"Elvagar": ["warrior"]},
            },
            {"hand": ["tyrs_crush", "heimdalls_eye"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_rage"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=2,
        turn=1,
    )
    g.pillage(s, 1, E)
    g.play(s, {1: "tyrs_crush", 2: "tyrs_rage", 0: "tyrs_smite"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 1)
    eye1 = g.card(s, 1, "heimdalls_eye")
    assert g.legal(s, 1) == [g.A(g.K.LATE_CARD, eye1), g.A(g.K.DECLINE)]
    asked = _late_log(
        g, s, {1: [None, "heimdalls_eye"], 0: ["heimdalls_eye", "heimdalls_eye"], 2: []}
    )
    assert asked == [1, 0, 1, 0]
    winner, totals = g.result(s)
    assert totals == {1: 3 + 4 + 2, 2: 2 + 6, 0: 1 + 5 + 2 + 2}
    assert winner == 0 and not s.pillaged[E]
    assert g.discard(s) == ["heimdalls_eye", "heimdalls_eye", "tyrs_smite"]
    assert g.hand(s, 1) == ["heimdalls_eye", "tyrs_crush"]
    assert s.clans[0].glory == 3


def test_late_round_ends_when_nobody_plays(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush", "heimdalls_eye"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_rage", "heimdalls_eye"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_rage"})
    assert _late_log(g, s, {0: [None], 1: [None]}) == [0, 1]
    assert g.result(s) == (-1, {0: 7, 1: 7})
    assert g.hand(s, 0) == ["heimdalls_eye", "tyrs_crush"]


def test_late_gaze_turns_the_battle(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush", "heimdalls_gaze"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_rage"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_rage"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 0)
    g.act(s, 0, g.K.LATE_CARD, g.card(s, 0, "heimdalls_gaze"))
    assert g.result(s) == (0, {0: 3 + 4 + 3, 1: 2 + 6})
    assert g.discard(s) == ["heimdalls_gaze", "tyrs_crush"] and s.pillaged[E]


def test_late_gaze_declined(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush", "heimdalls_gaze"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_rage"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_rage"})
    g.act(s, 0, g.K.DECLINE)
    assert g.result(s) == (1, {0: 7, 1: 8})
    assert g.hand(s, 0) == ["heimdalls_gaze", "tyrs_crush"]


def test_eye_and_gaze_together_late(g):
    """A player may play several late cards, of both kinds (an Age 2 Eye kept into Age 3)."""
    s = g.state(
        3,
        [
            {
                "hand": ["tyrs_crush", "heimdalls_gaze", "heimdalls_eye_2"],
                "figures": {"Elvagar": ["leader"]},
            },
            {"hand": ["tyrs_rage"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "tyrs_rage"})
    assert _late_log(g, s, {0: ["heimdalls_eye", "heimdalls_gaze"], 1: []}) == [0, 0]
    assert g.result(s) == (0, {0: 3 + 4 + 2 + 3, 1: 8})


# -- Heimdall's Watch ----------------------------------------------------------------------


@pytest.mark.parametrize("age", [2, 3])
def test_heimdalls_watch_discards_pays_glory_and_replays(g, age):
    crush = f"tyrs_crush_{age}"
    s = g.state(
        3,
        [
            {"hand": [f"heimdalls_watch_{age}", crush], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": [f"tyrs_rage_{age}", "tyrs_bash_1"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
            {"figures": {"Angerboda": ["warrior"]}},
        ],
        age=age,
    )
    g.act(s, 0, g.K.PILLAGE, E)
    assert g.decline_calls(s) == [2]
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_rage"})
    # Discarded, 0 + 6 Glory, and a new secret round without a new Call to Battle.
    assert s.step == Step.BATTLE_CARDS and g.awaiting(s) == [0, 1]
    assert s.clans[0].glory == 6
    assert g.discard(s) == ["heimdalls_watch", "tyrs_rage"]
    assert s.battle.played[0] == [] and s.battle.played[1] == []
    g.play(s, {0: "tyrs_crush", 1: "tyrs_bash"})
    assert g.result(s) == (0, {0: 3 + 4, 1: 2 + 2})
    assert s.clans[0].glory == 6 + 3
    assert g.discard(s) == ["heimdalls_watch", "tyrs_crush", "tyrs_rage"]
    assert g.hand(s, 1) == ["tyrs_bash"], "the loser takes back only the second card"
    assert g.valhalla(s, 1) == ["warrior", "warrior"] and s.pillaged[E]
    assert len(g.events(s, "pillage_started")) == 1


def test_the_watchs_second_round_is_stored_as_a_round_of_cards_begun(g):
    """Between the Watch and the second reveal the battle waits for new cards like any
    round: not revealed, at the first stage, its place in it 0 (a stored game's snapshot and
    hash hold these)."""
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_rage", "tyrs_bash_1"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_rage"})
    assert s.step == Step.BATTLE_CARDS
    battle = to_snapshot(s)["battle"]
    assert (battle["revealed"], battle["stage"], battle["cursor"]) == (False, 0, 0)
    assert battle["reveals"] == 1 and battle["choice"] == [-1, -1, -2]


def test_heimdalls_watch_counts_late_cards_and_offers_them_again(g):
    """A late Eye is revealed before the Watch resolves: it is discarded and counted; the
    second round offers late cards again."""
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_smite_2"], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": ["tyrs_crush", "heimdalls_eye", "heimdalls_eye", "tyrs_bash_1"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_crush"})
    g.act(s, 1, g.K.LATE_CARD, g.card(s, 1, "heimdalls_eye"))
    g.act(s, 1, g.K.DECLINE)  # second late round: seat 0 has no late card
    assert s.clans[0].glory == 4 + 2
    assert g.discard(s) == ["heimdalls_eye", "heimdalls_watch", "tyrs_crush"]
    g.play(s, {0: "tyrs_smite", 1: "tyrs_bash"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 1)
    g.act(s, 1, g.K.LATE_CARD, g.card(s, 1, "heimdalls_eye"))
    assert g.result(s) == (0, {0: 3 + 5, 1: 2 + 2 + 2})
    assert s.clans[0].glory == 6 + 3
    assert g.hand(s, 1) == ["heimdalls_eye", "tyrs_bash"]


def test_heimdalls_watch_participant_without_cards_plays_nothing(g):
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_rage"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_smite"})
    assert s.clans[0].glory == 5
    assert g.awaiting(s) == [0], "seat 1 has no card left"
    g.play(s, {0: "tyrs_rage"})
    assert g.result(s) == (0, {0: 9, 1: 2})
    assert g.hand(s, 1) == []


def test_heimdalls_watch_by_a_non_pillager(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_crush", "tyrs_rage"], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": ["heimdalls_watch", "tyrs_smite"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_crush", 1: "heimdalls_watch"})
    assert g.glory(s)[:2] == [0, 4]
    g.play(s, {0: "tyrs_rage", 1: "tyrs_smite"})
    assert g.result(s) == (0, {0: 9, 1: 7})
    assert g.glory(s)[:2] == [3, 4]
    assert g.at(s, 0, E) == ["leader"] and g.valhalla(s, 1) == ["warrior", "warrior"]
