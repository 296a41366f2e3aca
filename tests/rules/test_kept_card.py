"""The card kept in the Discard phase (§6) as views show it (§11): its owner sees which card it
is from the moment the choices take effect until that card leaves the hand; everyone sees that
the clan holds one, but not before every seat has chosen."""

from __future__ import annotations

import json

import pytest

from engine.blood_rage.ids import Area
from engine.blood_rage.snapshot import from_snapshot, to_snapshot
from engine.core.errors import ScenarioError


def _discard(h):
    """Age 1 Discard phase: seat 0 holds two cards, seat 1 one, seat 2 none."""
    return h.scenario(
        3,
        [{"hand": ["tyrs_smash", "alfheim"]}, {"hand": ["tyrs_smite"]}, {}],
        phase="discard",
        first_player=2,
    )


def _kept(h, state, seat):
    private = h.view(state, seat)["private"]
    return private["kept"]["instance"] if private["kept"] else None


def _has_kept(h, state, viewer=-1):
    return [c["has_kept_card"] for c in h.view(state, viewer)["clans"]]


def test_the_kept_card_is_secret_until_every_seat_has_chosen(h):
    s = _discard(h)
    alfheim = h.card(s, 0, "alfheim")
    h.act(s, 0, h.K.KEEP_CARD, alfheim)
    assert h.view(s, 0)["private"]["keep"]["instance"] == alfheim, "the owner sees its choice"
    for viewer in (-1, 0, 1, 2):
        assert _has_kept(h, s, viewer) == [False, False, False], "no choice has taken effect"
    assert f'"instance": {alfheim}' not in h.view_text(s, 1)


def test_owner_sees_the_kept_card_and_everyone_sees_that_there_is_one(h):
    s = _discard(h)
    alfheim = h.card(s, 0, "alfheim")
    h.act(s, 0, h.K.KEEP_CARD, alfheim)
    h.act(s, 1, h.K.KEEP_NONE)
    assert s.clans[0].hand == [alfheim] and s.clans[1].hand == []
    assert _kept(h, s, 0) == alfheim
    assert _kept(h, s, 1) is None
    for viewer in (-1, 0, 1, 2):
        assert _has_kept(h, s, viewer) == [True, False, False]
    for viewer in (-1, 1, 2):
        assert f'"instance": {alfheim}' not in h.view_text(s, viewer)


def test_the_mark_lasts_through_the_next_draft_until_the_card_is_played(h):
    s = _discard(h)
    alfheim = h.card(s, 0, "alfheim")
    h.act(s, 0, h.K.KEEP_CARD, alfheim)
    h.act(s, 1, h.K.KEEP_NONE)
    h.draft_all(s)  # Age 2: six new cards join the kept one
    assert s.age == 2 and len(s.clans[0].hand) == 7 and alfheim in s.clans[0].hand
    assert _kept(h, s, 0) == alfheim and _has_kept(h, s) == [True, False, False]
    assert h.awaiting(s) == [0], "seat 0 is the first player of Age 2"
    h.act(s, 0, h.K.QUEST, alfheim)
    assert _kept(h, s, 0) is None and _has_kept(h, s) == [False, False, False]


def test_a_kept_card_taken_back_after_a_lost_battle_is_no_longer_marked(h):
    s = h.scenario(
        3,
        [
            {"hand": ["tyrs_smash_1"], "kept": "tyrs_smash_1", "figures": {"Elvagar": ["warrior"]}},
            {"hand": ["tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
        ],
        age=2,
        phase="action",
        turn=1,
    )
    assert _has_kept(h, s) == [True, False, False]
    h.act(s, 1, h.K.PILLAGE, Area.ELVAGAR)
    h.decline_calls(s)
    h.play_cards(s, {0: "tyrs_smash", 1: "tyrs_crush"})
    assert h.keys(s.clans[0].hand) == ["tyrs_smash"], "the loser takes its card back"
    assert _kept(h, s, 0) is None and _has_kept(h, s) == [False, False, False]


def test_age_3_discards_the_kept_card_too(h):
    s = h.scenario(3, [{"hand": ["tyrs_smash_1"], "kept": "tyrs_smash_1"}], age=3, phase="discard")
    assert s.clans[0].hand == [] and _has_kept(h, s) == [False, False, False]


def test_snapshots_keep_the_mark_and_format_1_reads_as_none(h):
    s = _discard(h)
    h.act(s, 0, h.K.KEEP_CARD, h.card(s, 0, "tyrs_smash"))
    h.act(s, 1, h.K.KEEP_NONE)
    data = json.loads(json.dumps(to_snapshot(s)))
    assert from_snapshot(data).clans[0].kept == s.clans[0].kept >= 0
    old = {**data, "format": 1, "clans": [dict(c) for c in data["clans"]]}
    for c in old["clans"]:
        del c["kept"]
    assert from_snapshot(old).clans[0].kept == -1
    assert from_snapshot(old).state_hash() == s.state_hash(), "the mark is not hashed"


def test_scenarios_refuse_a_kept_card_not_in_the_hand(h):
    with pytest.raises(ScenarioError, match=r"clans\[0\]\.kept: 'alfheim' is not a card"):
        h.scenario(3, [{"hand": ["tyrs_smash_1"], "kept": "alfheim"}], age=2, phase="action")


def test_playing_another_card_of_the_hand_keeps_the_mark(h):
    """The kept card stays marked while another card leaves the hand (a quest committed)."""
    s = h.scenario(3, [{"hand": ["manheim_2", "tyrs_rage"], "kept": "tyrs_rage"}], age=2)
    rage = h.card(s, 0, "tyrs_rage")
    h.act(s, 0, h.K.QUEST, h.card(s, 0, "manheim"))
    assert _kept(h, s, 0) == rage and _has_kept(h, s) == [True, False, False]


def test_keeping_no_card_stores_no_kept_card(h):
    """A clan that kept nothing has no kept card: -1 (none), as stored in a snapshot."""
    s = _discard(h)
    h.act(s, 0, h.K.KEEP_NONE)
    h.act(s, 1, h.K.KEEP_NONE)
    assert [c["kept"] for c in to_snapshot(s)["clans"]] == [-1, -1, -1]
