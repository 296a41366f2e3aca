"""Rules and event contents as a frontend meets them through the gRPC API (issue 12, points
1-5): the Tyr's Prowess / Loki's Trickery ruling, the kept card, end-game card bonuses, the
reason of every Glory change and the figures Ragnarök destroys."""

from __future__ import annotations

from typing import Any

from api_support import Stub
from api_table import Table

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
