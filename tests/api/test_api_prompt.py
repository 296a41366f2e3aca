"""A pending prompt reaches the API view: who must answer, which card asks, what is at stake."""

from __future__ import annotations

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.view import view
from protocol.blood_rage import WIRE
from protocol.blood_rage import values as br_values
from protocol.envelopes import view_to_pb
from protocol.wire import ViewEnvelope
from yggdrasil.v1 import blood_rage_pb2 as br


def _envelope() -> ViewEnvelope:
    return ViewEnvelope(
        game_id="g",
        status=2,
        seats=[],
        last_sequence=0,
        game_options={"draft_mode": 0},
        deadline_unix_ms=0,
        result=None,
    )


def test_friggas_protection_prompt_is_in_the_view() -> None:
    state = from_scenario(
        {
            "players": 3,
            "age": 2,
            "phase": "action",
            "turn": 0,
            "ragnarok": ["Horgr", "Gimle", "Utgard"],
            "destroyed": ["Myrkulor"],
            "clans": [
                {"hand": ["tyrs_rage"], "figures": {"Elvagar": ["leader", "warrior"]}},
                {
                    "hand": ["tyrs_crush"],
                    "upgrades": ["friggas_protection"],
                    "figures": {"Elvagar": ["warrior", "warrior"]},
                },
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, state.clans[1].hand[0]))
    for viewer in (1, 0, -1):
        pb = view_to_pb(WIRE, view(state, viewer), _envelope())
        prompt = pb.blood_rage.prompt
        assert prompt.kind == "protect" and prompt.seat == 1
        assert prompt.source_card_key == "friggas_protection"
        assert [(d.unit, d.area) for d in prompt.doomed] == [
            (br_values.unit_to_pb(Unit.WARRIOR), br_values.area_to_pb(Area.ELVAGAR))
        ] * 2
        assert pb.blood_rage.step == br.STEP_BATTLE_CHOICE
    answering = view_to_pb(WIRE, view(state, 1), _envelope())
    assert [a.label for a in answering.legal_actions] == [
        "pay 1 Rage to save warrior in Elvagar",
        "save no figure (Frigga's Protection)",  # what a decline declines
    ]
    details = [a.action.blood_rage.details for a in answering.legal_actions]
    assert details[0].rage_cost == 1 and details[1].offer == "protect"
