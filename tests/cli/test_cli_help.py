"""What ``yggdrasil --help`` and its commands' help tell a newcomer (issue 29, point 11): a
line for every command, help for every option, which clan each seat number is, the keys of
``play``, the warning that a token on the command line is visible to other users; and that a
2-player draft says a pack gives two picks before it passes on."""

from __future__ import annotations

import argparse

import pytest

from clients.blood_rage.render import prompt_text
from clients.cli import build_parser
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_every_command_has_a_line_in_the_overview_and_a_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    overview = _help([], capsys)
    commands = _commands()
    assert {"create", "join", "play", "watch", "list", "result", "abort", "replay", "bot"} <= set(
        commands
    )
    for name, command in commands.items():
        assert command.description, f"{name} has no description"
        line = next((row for row in overview.splitlines() if row.split()[:1] == [name]), "")
        assert len(line.split()) > 1, f"{name} has no line of its own in --help"


def test_every_option_of_every_command_says_what_it_does() -> None:
    for name, command in _commands().items():
        for action in command._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"yggdrasil {name} {action.option_strings or action.dest}"


def test_seats_are_named_by_clan_and_play_lists_its_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    play = " ".join(_help(["play"], capsys).split())
    assert "0 Wolf, 1 Raven, 2 Serpent, 3 Bear, 4 Ram" in play
    for key in ("m ", "l ", "c ", "r ", "h ", "q "):
        assert f"\n  {key}" in _help(["play"], capsys), key
    assert "--token" in play and "visible to other users" in play.split("--token TOKEN", 2)[2]
    listing = " ".join(_help(["list"], capsys).split())
    assert "--status {aborted,finished,in-progress,open} only the games" in listing


def _draft_view(players: int, pack: int, picked: int) -> gp.View:
    view = gp.View()
    bv = view.blood_rage
    bv.step = br.STEP_DRAFT_PICK
    for seat in range(players):
        bv.clans.add(seat=seat)
    for instance in range(pack):
        bv.own.draft_pack.add(instance=instance, card_id="tyrs_rage_1")
    for instance in range(picked):
        bv.own.pending_picks.add(instance=100 + instance, card_id="tyrs_rage_1")
    return view


def test_a_two_player_draft_says_a_pack_gives_two_picks() -> None:
    first = prompt_text(_draft_view(players=2, pack=8, picked=0))
    assert "you pick two cards from this pack before it passes on" in first
    assert first.endswith("pick the first.")
    assert prompt_text(_draft_view(players=2, pack=7, picked=1)).endswith("pick the second.")
    # With more players one card is taken from each pack, and nothing says otherwise.
    assert "two cards" not in prompt_text(_draft_view(players=3, pack=8, picked=0))
