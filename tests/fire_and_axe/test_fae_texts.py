"""What people read: every kind of decision described, places, Runes, goods and items named
at the edges of their tables (the first and the last, one past the end), and the data-pack
command's summary and arguments."""

from __future__ import annotations

import pytest

from engine.fire_and_axe import __main__ as command
from engine.fire_and_axe.actions import DIAL_TURN_NAMES, Action, ActionKind, describe
from engine.fire_and_axe.data_pack import demo_pack
from engine.fire_and_axe.ids import GOOD_NAMES, ITEM_NAMES

K = ActionKind
PLACES = ("Denmark", "Norway", "Kiev")
RUNES = ("Change of Demand", "Storm")


def test_every_kind_of_decision_is_described() -> None:
    texts = {
        Action(K.LOAD_CREW): "load crew",
        Action(K.LOAD_GOOD, 0): "load tusk",
        Action(K.LOAD_GOOD, 2): "load fur",
        Action(K.LEAVE_WINTERING, 0): "leave the Wintering Zone for Denmark",
        Action(K.DRAW_RUNE): "draw a Rune",
        Action(K.SAIL, 2): "sail -> Kiev",
        Action(K.TRADE, 1): "trade fish",
        Action(K.RAID): "raid",
        Action(K.RAID_AGAIN): "roll again",
        Action(K.RAID_STOP): "stop raiding",
        Action(K.SETTLE, 3): "settle with 3 dice",
        Action(K.CONVERT): "settle with the last crewmember",
        Action(K.DECLINE): "keep the last crewmember aboard",
        Action(K.LOSE, 0): "lose tusk",
        Action(K.LOSE, 3): "lose crew",
        Action(K.PLAY_RUNE, 0, 0, 1): "play Change of Demand (choice 1)",
        Action(K.PLAY_RUNE, 1, 1, 0): "play Storm, turning the dial clockwise (choice 0)",
        Action(K.DISCARD_RUNE, 0, 2): (
            "discard Change of Demand, turning the dial counter-clockwise"
        ),
        Action(K.DISCARD_RUNE, 1, 0): "discard Storm",
        Action(K.WINTER): "return to the Wintering Zone",
        Action(K.END_TURN): "end the turn",
        Action(K.PASS): "pass",
    }
    assert {kind for kind, *_ in texts} == set(K)
    for action, text in texts.items():
        assert describe(action, PLACES, RUNES) == text


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action(K.LOAD_GOOD, len(GOOD_NAMES)), "load no goods type 3"),
        (Action(K.LOSE, len(ITEM_NAMES)), "lose no item 4"),
        (Action(K.SAIL, len(PLACES)), "sail -> location #3"),
        (Action(K.LEAVE_WINTERING, 0), "leave the Wintering Zone for Denmark"),
        (Action(K.PLAY_RUNE, len(RUNES), 0, 0), "play Rune #2 (choice 0)"),
        (
            Action(K.DISCARD_RUNE, 0, len(DIAL_TURN_NAMES)),
            "discard Change of Demand, turning the dial no turn 3",
        ),
    ],
)
def test_names_stop_at_the_end_of_their_tables(action: Action, text: str) -> None:
    assert describe(action, PLACES, RUNES) == text


def test_without_the_packs_names_places_and_runes_are_numbers() -> None:
    assert describe(Action(K.SAIL, 0)) == "sail -> location #0"
    assert describe(Action(K.DISCARD_RUNE, 0, 0)) == "discard Rune #0"


def test_the_summary_of_a_pack_counts_what_it_holds() -> None:
    text = command.summary(demo_pack())
    lines = text.split("\n")
    assert lines[0] == f"OK: {demo_pack().name} (id demo-invented-v1, format 1)"
    assert lines[2] == "  37 ports, 15 water spaces, 3 Homelands, 80 edges"
    assert lines[3] == "  33 Rune cards (16 different), 27 Saga cards"
    assert lines[4].endswith("NOT the published game")


def test_the_command_needs_a_command_and_a_pack(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["validate"]):
        with pytest.raises(SystemExit) as stopped:
            command.main(argv)
        assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "the following arguments are required: command" in err
    assert "one of the arguments file --demo is required" in err
