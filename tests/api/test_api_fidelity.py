"""Rules and event contents as a frontend meets them through the gRPC API (issue 12, points
1-5): the Tyr's Prowess / Loki's Trickery ruling, the kept card, end-game card bonuses, the
reason of every Glory change and the figures Ragnarök destroys."""

from __future__ import annotations

from typing import Any

from api_support import Stub
from api_table import Table

from yggdrasil.v1 import blood_rage_pb2 as br

TOKENS = {
    "Myrkulor": "rage",
    "Elvagar": "horns",
    "Angerboda": "rage",
    "Muspelheim": "glory5",
    "Horgr": "rage",
    "Utgard": "horns",
    "Andlang": "axes",
    "Gimle": "axes",
}


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
