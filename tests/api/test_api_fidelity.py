"""Rules and event contents as a frontend meets them through the gRPC API (issue 12, points
1-5): the Tyr's Prowess / Loki's Trickery ruling, the kept card, end-game card bonuses, the
reason of every Glory change and the figures Ragnarök destroys."""

from __future__ import annotations

from typing import Any

from api_support import Stub
from api_table import Table

from tests.scenario_tokens import TOKENS
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_service_pb2 as gs


def _scenario(clans: list[dict[str, Any]], players: int = 3, **fields: Any) -> dict[str, Any]:
    clans = clans + [{} for _ in range(players - len(clans))]
    return {
        "players": players,
        "seed": 3,
        "phase": "action",
        "turn": 0,
        "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
        "pillage_tokens": TOKENS,
        "clans": clans,
        **fields,
    }


def _rage(view: Any) -> list[int]:
    return [c.rage for c in view.blood_rage.clans]


# -- 1. Tyr's Prowess resolves before Loki's Trickery ------------------------------------


async def test_prowess_keeps_a_card_before_trickery_takes_rage(stub: Stub) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [
                {
                    "upgrades": ["tyrs_prowess"],
                    "hand": ["tyrs_crush"],
                    "rage": 1,
                    "figures": {"Elvagar": ["leader", "warrior", "warrior"]},
                },
                {"hand": ["lokis_trickery_1"], "figures": {"Elvagar": ["warrior"]}},
            ],
            age=2,
        ),
    )
    await table.act(0, "pillage Elvagar")
    await table.decline_calls()
    await table.act(0, "play Tyr's Crush")
    await table.act(1, "play Loki's Trickery")
    view = await table.view()
    assert view.blood_rage.prompt.kind == "prowess" and view.blood_rage.prompt.seat == 0
    assert _rage(view)[:2] == [1, 6], "Trickery waits for Prowess"
    await table.act(0, "keep Tyr's Crush")
    view = await table.view(0)
    assert _rage(view)[:2] == [0, 6], "Prowess spent the last Rage: none left for Trickery"
    assert [c.card_id for c in view.blood_rage.own.hand] == ["tyrs_crush_2"]


# -- 2. The kept card: its owner sees it, everyone sees that there is one -----------------


def _has_kept(view: Any) -> list[bool]:
    return [c.has_kept_card for c in view.blood_rage.clans]


async def test_kept_card_reaches_its_owner_and_its_existence_everyone(stub: Stub) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [{"hand": ["tyrs_smash", "alfheim"]}, {"hand": ["tyrs_smite"]}],
            phase="discard",
            first_player=2,
        ),
    )
    await table.act(0, "keep Alfheim")
    own = (await table.view(0)).blood_rage.own
    assert own.kept_card.card_id == "alfheim_1", "the owner sees its choice at once"
    assert _has_kept(await table.view()) == [False, False, False], "secret until all chose"
    assert not (await table.view(1)).blood_rage.own.HasField("kept_card")
    await table.act(1, "keep no card")
    for seat in (None, 0, 1, 2):
        assert _has_kept(await table.view(seat)) == [True, False, False]
    for seat in (1, 2):
        assert not (await table.view(seat)).blood_rage.own.HasField("kept_card")
    while (await table.view()).blood_rage.step == br.STEP_DRAFT_PICK:  # Age 2's draft
        view = await table.view()
        for seat in [s for s in view.awaiting_seats if s not in view.committed_seats]:
            await table.act(seat, "pick")
    own = (await table.view(0)).blood_rage.own
    assert own.kept_card.card_id == "alfheim_1" and len(own.hand) == 7
    assert own.kept_card.instance in [c.instance for c in own.hand]
    await table.act(0, "commit quest Alfheim")
    view = await table.view(0)
    assert not view.blood_rage.own.HasField("kept_card")
    assert _has_kept(view) == [False, False, False]


# -- 4. Every GloryChanged says why, one event per source ---------------------------------


def _glory(table: Table) -> list[tuple[int, int, int, str, int]]:
    """(seat, delta, reason, card_id, area) of every GloryChanged so far, in order."""
    return [(g.seat, g.delta, g.reason, g.card_id, g.area) for g in table.of_kind("glory_changed")]


async def test_battle_pillage_and_card_glory_are_three_events(stub: Stub) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [
                {"hand": ["thors_hammer"], "figures": {"Muspelheim": ["leader", "warrior"]}},
                {"hand": ["tyrs_smash"], "figures": {"Muspelheim": ["warrior"]}},
            ]
        ),
    )
    await table.act(0, "pillage Muspelheim")
    await table.decline_calls()
    await table.act(0, "play Thor's Hammer")
    await table.act(1, "play Tyr's Smash")
    (resolved,) = table.of_kind("battle_resolved")
    assert resolved.winner == 0
    muspelheim = br.AREA_MUSPELHEIM
    assert _glory(table) == [
        (0, 3, br.GLORY_REASON_CARD, "thors_hammer_1", muspelheim),  # "if you win"
        (0, 5, br.GLORY_REASON_PILLAGE, "", muspelheim),  # the Glory token
        (0, 3, br.GLORY_REASON_BATTLE, "", muspelheim),  # Axes 3
    ]
    assert [g.glory for g in table.of_kind("glory_changed")] == [3, 8, 11]
    assert (await table.view()).blood_rage.clans[0].glory == 11
    for g in table.of_kind("glory_changed"):
        assert not g.HasField("other_seat") and g.stat == br.STAT_UNSPECIFIED


async def test_backstab_takes_glory_from_the_winner_in_two_events(stub: Stub) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [
                {"hand": ["tyrs_crush"], "glory": 1, "figures": {"Gimle": ["leader"]}},
                {"hand": ["lokis_backstab"], "figures": {"Gimle": ["warrior"]}},
            ],
            age=2,
        ),
    )
    await table.act(0, "pillage Gimle")
    await table.decline_calls()
    await table.act(0, "play Tyr's Crush")
    await table.act(1, "play Loki's Backstab")
    stab = [g for g in table.of_kind("glory_changed") if g.card_id == "lokis_backstab_2"]
    assert [(g.seat, g.delta, g.glory, g.other_seat, g.area) for g in stab] == [
        (0, -1, 0, 1, br.AREA_GIMLE),  # the winner had only 1 Glory to lose
        (1, 1, 1, 0, br.AREA_GIMLE),
    ]


# -- 3, 4, 5. Quests, Ragnarok (each destroyed figure), release and their cards -------------


async def test_quest_ragnarok_and_release_glory_and_the_figures_ragnarok_destroys(
    stub: Stub,
) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [
                {
                    "quests": ["alfheim"],
                    "upgrades": ["odins_throne"],
                    "figures": {"Gimle": ["leader"]},
                },
                {
                    "upgrades": ["odins_inspiration", "lokis_dragons", "lokis_domain"],
                    "figures": {"Muspelheim": ["warrior", "leader"], "East fjord": ["ship"]},
                },
            ],
        ),
    )
    for seat in (0, 1, 2):  # the Action phase ends; nobody holds a card to keep
        await table.act(seat, "pass")
    await table.act(0, "raise axes")  # the fulfilled quest's stat step
    (quests,) = table.of_kind("quest_results")
    assert [(q.seat, q.card.card_id, q.fulfilled, q.glory) for q in quests.quests] == [
        (0, "alfheim_1", True, 5 + 5)  # printed 5, doubled by Odin's Throne
    ]
    (ragnarok,) = table.of_kind("ragnarok")
    assert ragnarok.age == 1 and ragnarok.province == br.AREA_MUSPELHEIM
    assert sorted((d.seat, d.unit, d.area) for d in ragnarok.destroyed) == [
        (1, br.UNIT_LEADER, br.AREA_MUSPELHEIM),
        (1, br.UNIT_WARRIOR, br.AREA_MUSPELHEIM),
        (1, br.UNIT_SHIP, br.AREA_EAST_FJORD),
    ]
    glory = _glory(table)
    assert glory[:2] == [
        (0, 5, br.GLORY_REASON_QUEST, "alfheim_1", br.AREA_UNSPECIFIED),
        (0, 5, br.GLORY_REASON_CARD, "odins_throne_3", br.AREA_UNSPECIFIED),
    ]
    assert (1, 6, br.GLORY_REASON_RAGNAROK, "", br.AREA_MUSPELHEIM) in glory  # 3 figures x 2
    assert (1, 6, br.GLORY_REASON_CARD, "odins_inspiration_2", br.AREA_MUSPELHEIM) in glory
    assert (1, 4, br.GLORY_REASON_CARD, "lokis_dragons_1", br.AREA_EAST_FJORD) in glory
    assert (1, 3, br.GLORY_REASON_CARD, "lokis_domain_1", br.AREA_UNSPECIFIED) in glory  # 3 back
    assert sum(g[1] for g in glory if g[0] == 1) == (await table.view()).blood_rage.clans[1].glory


async def test_end_of_game_card_and_stat_bonuses_are_reported_apart(stub: Stub) -> None:
    table = await Table.create(
        stub,
        _scenario(
            [
                {
                    "upgrades": ["thors_conquest"],
                    "stats": {"rage": 4, "axes": 6},
                    "glory": 7,
                    "figures": {"Elvagar": ["leader"], "Andlang": ["warrior", "warrior"]},
                },
                {"stats": {"horns": 5}},
            ],
            age=3,
        ),
    )
    for seat in (0, 1, 2):
        await table.act(seat, "pass")
    end = [g for g in table.of_kind("glory_changed")]
    assert [(g.seat, g.delta, g.reason, g.card_id, g.stat) for g in end] == [
        (0, 9, br.GLORY_REASON_CARD, "thors_conquest_3", br.STAT_UNSPECIFIED),  # 3 figures
        (0, 10, br.GLORY_REASON_END_GAME, "", br.STAT_RAGE),
        (0, 20, br.GLORY_REASON_END_GAME, "", br.STAT_AXES),
        (1, 10, br.GLORY_REASON_END_GAME, "", br.STAT_HORNS),
    ]
    (scoring,) = table.of_kind("end_game_scoring")
    result = (await table.stub.GetResult(gs.GetResultRequest(game_id=table.game_id))).result
    for bonuses in (scoring.bonuses, result.blood_rage.bonuses):
        assert [(b.seat, b.card_bonus, b.stat_bonus, b.glory) for b in bonuses] == [
            (0, 9, 30, 7 + 9 + 30),
            (1, 0, 10, 10),
            (2, 0, 0, 0),
        ]
