"""server.convert, convert_views and convert_events: every engine enum and action kind has its
API form; filtering of secrets."""

from __future__ import annotations

import random
from enum import IntEnum
from typing import Any

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.board import TOKEN_NAMES, Region, Token
from engine.blood_rage.cards import CARDS, CardType, Marking, Slot
from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.ids import Area, Clan, DraftMode, Phase, Stat, Step, Unit
from engine.blood_rage.rules import default_of as default_action
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import PromptKind
from engine.blood_rage.view import SPECTATOR, view
from protocol import envelopes
from protocol.blood_rage import WIRE
from protocol.blood_rage import actions as br_actions
from protocol.blood_rage import catalog as br_catalog
from protocol.blood_rage import events as br_events
from protocol.blood_rage import values as br_values
from protocol.envelopes import view_to_pb
from protocol.wire import ConversionError, ViewEnvelope
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

# (engine enum, proto enum, proto value prefix): proto value = engine value + 1, same name.
PLUS_ONE: list[tuple[type[IntEnum], object, str]] = [
    (Area, br.Area, "AREA_"),
    (Unit, br.Unit, "UNIT_"),
    (Stat, br.Stat, "STAT_"),
    (Clan, br.Clan, "CLAN_"),
    (Phase, br.Phase, "PHASE_"),
    (DraftMode, br.DraftMode, "DRAFT_MODE_"),
    (CardType, br.CardType, "CARD_TYPE_"),
]


@pytest.mark.parametrize(("engine_enum", "proto_enum", "prefix"), PLUS_ONE)
def test_plus_one_enums_map_every_member(
    engine_enum: type[IntEnum], proto_enum: object, prefix: str
) -> None:
    for member in engine_enum:
        name = proto_enum.Name(int(member) + 1)  # type: ignore[attr-defined]
        assert name == prefix + member.name, (member, name)


def test_converters_of_plus_one_enums() -> None:
    assert all(br_values.area_to_pb(a) == br.Area.Value("AREA_" + a.name) for a in Area)
    assert all(br_values.unit_to_pb(u) == br.Unit.Value("UNIT_" + u.name) for u in Unit)
    assert all(br_values.stat_to_pb(s) == br.Stat.Value("STAT_" + s.name) for s in Stat)
    assert all(br_values.phase_to_pb(p) == br.Phase.Value("PHASE_" + p.name) for p in Phase)
    assert all(
        br_actions.draft_mode_to_pb(d) == br.DraftMode.Value("DRAFT_MODE_" + d.name)
        for d in DraftMode
    )
    assert all(
        br_actions.draft_mode_from_pb(br_actions.draft_mode_to_pb(d)) == d for d in DraftMode
    )
    # Reserve, Valhalla and box are not areas.
    assert br_values.area_to_pb(13) == br_values.area_to_pb(14) == br.AREA_UNSPECIFIED


def test_enums_with_other_numbering_map_every_member() -> None:
    for slot in Slot:
        expected = "UPGRADE_SLOT_" + ("UNSPECIFIED" if slot == Slot.NONE else slot.name)
        assert br.UpgradeSlot.Name(br_values.upgrade_slot_to_pb(slot)) == expected
    for marking in Marking:
        name = br.CardMarking.Name(br_values.marking_to_pb(marking))
        assert name == "CARD_MARKING_" + marking.name
    for region in Region:
        expected = "REGION_" + ("UNSPECIFIED" if region == Region.NONE else region.name)
        assert br.Region.Name(br_values.region_to_pb(region)) == expected
    assert set(br_values.REWARD_BY_TOKEN) == set(TOKEN_NAMES)
    assert len(Token) == len(TOKEN_NAMES)
    assert len(set(br_values.REWARD_BY_TOKEN.values())) == len(TOKEN_NAMES)


def test_every_engine_step_and_prompt_has_an_api_step() -> None:
    decisions = {"draft_pick", "action", "march", "call_to_battle", "battle_cards", "discard"}
    for step in Step:
        api = br_values.step_to_pb(step.name.lower(), None)
        assert api != br.STEP_OTHER, step
        assert (api != br.STEP_NONE) == (step.name.lower() in decisions), step
    for prompt in PromptKind:
        assert prompt.name.lower() in br_values.STEP_BY_PROMPT, f"no API step for prompt {prompt}"
    assert br_values.step_to_pb("some_future_step", None) == br.STEP_OTHER
    assert br_values.step_to_pb("action", "some_future_prompt") == br.STEP_OTHER


def test_every_action_kind_has_an_api_form_and_round_trips() -> None:
    oneof = br.BloodRageAction.DESCRIPTOR.oneofs_by_name["kind"]
    names = {f.name for f in oneof.fields}
    assert set(br_actions.ACTION_FIELDS) == set(ActionKind), "every ActionKind needs a table line"
    for kind in ActionKind:
        field, args = br_actions.ACTION_FIELDS[kind]
        assert field in names
        action = Action(kind, *[1 + i for i in range(len(args))])
        message = gp.Action(blood_rage=br_actions.action_to_pb(action))
        assert message.blood_rage.WhichOneof("kind") == field
        assert br_actions.action_from_pb(message) == action
        wire = gp.Action.FromString(message.SerializeToString())
        assert br_actions.action_from_pb(wire) == action


def test_card_zero_and_area_zero_survive_the_round_trip() -> None:
    for action in (
        Action(ActionKind.DRAFT_PICK, 0),
        Action(ActionKind.INVADE, 0, 0),
        Action(ActionKind.MARCH, 0, 12, 11),
    ):
        message = gp.Action(blood_rage=br_actions.action_to_pb(action))
        assert br_actions.action_from_pb(message) == action


@pytest.mark.parametrize(
    "message",
    [
        gp.Action(),
        gp.Action(blood_rage=br.BloodRageAction()),
        gp.Action(blood_rage=br.BloodRageAction(draft_pick=br.DraftPick())),
        gp.Action(blood_rage=br.BloodRageAction(invade=br.Invade(area=br.AREA_GIMLE))),
        gp.Action(blood_rage=br.BloodRageAction(raise_stat=br.RaiseStat(stat=77))),  # type: ignore[arg-type]
        gp.Action(blood_rage=br.BloodRageAction(no_card=br.NoCard())),
        gp.Action(blood_rage=br.BloodRageAction(draft_pick=br.DraftPick(card=-4))),
    ],
)
def test_malformed_actions_are_refused(message: gp.Action) -> None:
    with pytest.raises(ConversionError):
        br_actions.action_from_pb(message)


def test_secret_decisions_are_blanked_for_others() -> None:
    pick = br_actions.hidden_action_to_pb(Action(ActionKind.DRAFT_PICK, 17))
    assert pick is not None
    assert pick.WhichOneof("kind") == "draft_pick" and not pick.draft_pick.HasField("card")
    assert br_actions.hidden_action_to_pb(Action(ActionKind.KEEP_CARD, 17)) is None
    assert br_actions.hidden_action_to_pb(Action(ActionKind.KEEP_NONE)) is None
    assert "#" not in br_actions.hidden_action_label(Action(ActionKind.BATTLE_CARD, 17))
    assert "[#17]" in br_actions.action_label(Action(ActionKind.BATTLE_CARD, 17))


def test_private_engine_events_reach_only_their_audience() -> None:
    state = new_game(3, 4)
    before = br_events.public_facts(state)
    seat = 1
    card = state.packs[seat][0]
    state.events = []
    from engine.blood_rage.flow import apply

    apply(state, seat, Action(ActionKind.DRAFT_PICK, card))
    raw, state.events = state.events, None
    events = br_events.convert_events(raw, before, br_events.public_facts(state))
    assert len(events) == 1  # the private "picked" duplicate is dropped
    (event,) = events
    assert event.audience == seat
    assert event.full.blood_rage.action_applied.action.draft_pick.card == card
    assert event.public is not None
    hidden = event.public.blood_rage.action_applied
    assert hidden.seat == seat and not hidden.action.draft_pick.HasField("card")
    assert str(card) not in hidden.label


def test_views_convert_for_seats_and_spectators() -> None:
    state = new_game(4, 9)
    env = ViewEnvelope(
        game_id="g",
        status=gp.GAME_STATUS_IN_PROGRESS,
        seats=envelopes.seat_infos(["a", "b", "c", "d"], [True] * 4),
        last_sequence=5,
        game_options={"draft_mode": 0},
    )
    seat_view = view_to_pb(WIRE, view(state, 2), env)
    assert seat_view.viewer_seat == 2
    assert seat_view.blood_rage.step == br.STEP_DRAFT_PICK
    assert seat_view.blood_rage.draft_round == 1
    assert [c.instance for c in seat_view.blood_rage.own.draft_pack] == state.packs[2]
    assert len(seat_view.legal_actions) == len(state.packs[2])
    assert sorted(seat_view.awaiting_seats) == [0, 1, 2, 3]
    assert len(seat_view.blood_rage.provinces) == 9
    assert len(seat_view.blood_rage.ragnarok_slots) == 3
    assert seat_view.blood_rage.clans[1].name == "b"
    spectator = view_to_pb(WIRE, view(state, SPECTATOR), env)
    assert not spectator.HasField("viewer_seat")
    assert not spectator.legal_actions
    assert not spectator.blood_rage.HasField("own")
    # Public parts are identical whoever looks.
    assert seat_view.blood_rage.provinces == spectator.blood_rage.provinces
    # Unknown keys in the engine's dict are ignored, missing ones default.
    extended = dict(view(state, SPECTATOR), brand_new_field={"x": 1})
    assert view_to_pb(WIRE, extended, env) == spectator
    assert view_to_pb(WIRE, {}, env).blood_rage.age == 0


def test_catalog_lists_every_card_area_and_unit() -> None:
    catalog = br_catalog.catalog()
    assert [c.card_id for c in catalog.cards] == [c.id for c in CARDS]
    assert len(catalog.areas) == len(Area)
    assert [u.unit for u in catalog.units] == [br_values.unit_to_pb(u) for u in Unit]
    assert len(catalog.stat_tracks) == 3
    yggdrasil = catalog.areas[0]
    assert yggdrasil.area == br.AREA_YGGDRASIL and len(yggdrasil.adjacent) == 8
    assert all(a.fjord for a in catalog.areas[9:])
    monsters = [c for c in catalog.cards if c.monster != br.UNIT_UNSPECIFIED]
    assert monsters and all(c.type == br.CARD_TYPE_UPGRADE for c in monsters)
    assert any(c.late_play for c in catalog.cards)
    # Names and texts as printed (issue 29, point 14): Ragnarök with its ö.
    ragnarok = [c.name for c in catalog.cards if "Ragnar" in c.text + c.name]
    assert ragnarok, "no card text names Ragnarök"
    assert not [c.name for c in catalog.cards if "Ragnarok" in c.text + c.name]


def test_default_decision_prefers_pass_like_actions() -> None:
    invade = Action(ActionKind.INVADE, 1, 2)
    assert default_action([invade, Action(ActionKind.PASS)]) == Action(ActionKind.PASS)
    assert default_action([Action(ActionKind.FREE_INVADE, 0, 3), Action(ActionKind.DECLINE)]) == (
        Action(ActionKind.DECLINE)
    )
    assert default_action([Action(ActionKind.MARCH_MORE, 1), Action(ActionKind.MARCH_DONE)]) == (
        Action(ActionKind.MARCH_DONE)
    )
    keep = [Action(ActionKind.KEEP_CARD, 5), Action(ActionKind.KEEP_NONE)]
    assert default_action(keep) == Action(ActionKind.KEEP_NONE)
    picks = [Action(ActionKind.DRAFT_PICK, 9), Action(ActionKind.DRAFT_PICK, 4)]
    assert default_action(picks) == picks[0]
    with pytest.raises(ValueError):
        default_action([])


def _facts_of(full: dict[str, Any]) -> br_events.PublicFacts:
    """The public facts as the spectator view shows them (the view is the reference)."""
    token = {name: i for i, name in enumerate(TOKEN_NAMES)}
    return br_events.PublicFacts(
        full["players"],
        full["age"],
        full["first_player"],
        tuple(c["glory"] for c in full["clans"]),
        tuple(
            tuple(c["stats"][name]["step"] - 1 for name in ("rage", "axes", "horns"))
            for c in full["clans"]
        ),
        tuple(
            -1 if p["pillage_token"] is None else token[p["pillage_token"]]
            for p in full["provinces"]
        ),
    )


def test_public_facts_match_the_spectator_view_through_a_game() -> None:
    """Events are derived from public_facts, not from whole views: they must agree with the
    view on every fact events read, at every step of a game (Glory, stats, tokens and Ages
    change)."""
    state = new_game(4, 11)
    rng = random.Random(3)
    checked = 0
    while state.step != Step.GAME_OVER:
        assert br_events.public_facts(state) == _facts_of(view(state, SPECTATOR))
        seat = awaiting(state)[0]
        actions = legal_actions(state, seat)
        apply_unchecked(state, seat, actions[rng.randrange(len(actions))])
        checked += 1
    assert br_events.public_facts(state) == _facts_of(view(state, SPECTATOR))
    assert checked > 100


def test_stat_and_glory_changes_come_only_from_engine_events_and_must_add_up() -> None:
    state = new_game(4, 5)
    before = br_events.public_facts(state)
    after_state = state.copy()
    after_state.clans[1].steps[0] += 1
    # A step taken without a stat event saying why is refused, not published (nor derived).
    with pytest.raises(br_events.EngineEventError, match="seat 1's stat 0 went from step 1"):
        br_events.convert_events((), before, br_events.public_facts(after_state))
    step = {
        "type": "stat",
        "seat": 1,
        "stat": 0,
        "step": 1,
        "previous": 0,
        "reason": "pillage",
        "card": -1,
        "area": 3,
    }
    (event,) = br_events.convert_events([(-1, step)], before, br_events.public_facts(after_state))
    stat = event.full.blood_rage.stat_changed
    assert (stat.seat, stat.level.step, stat.level.value, stat.previous_step) == (1, 2, 7, 1)
    assert stat.reason == br.STAT_REASON_PILLAGE and stat.area == br.AREA_ANGERBODA
    # Glory that changed without a glory event saying why is refused, not published.
    after_state.clans[2].glory += 7
    with pytest.raises(br_events.EngineEventError, match="seat 2's Glory went from 0 to 7"):
        br_events.convert_events([(-1, step)], before, br_events.public_facts(after_state))
    told = (-1, {"type": "glory", "seat": 2, "delta": 7, "glory": 7, "reason": "quest"})
    (stat_event, glory) = br_events.convert_events(
        [(-1, step), told], before, br_events.public_facts(after_state)
    )
    assert glory.full.blood_rage.glory_changed.reason == br.GLORY_REASON_QUEST
    assert stat_event.full.blood_rage.WhichOneof("kind") == "stat_changed", "in the given order"


@pytest.mark.parametrize(
    ("audience", "payload", "complaint"),
    [
        (-1, {"type": "game_ended_somehow"}, "does not report"),  # a type nobody converts
        (2, {"type": "release", "age": 1, "released": [0, 0]}, "seat 2 only"),  # made private
        (-1, {"type": "kept", "seat": 0, "card": 3}, "private event"),  # made public
        (-1, {"type": "glory", "seat": 0, "delta": 1, "reason": "luck"}, "cannot name"),
        (-1, {"type": "stat", "seat": 0, "stat": 0, "step": 1, "reason": "luck"}, "cannot"),
    ],
)
def test_engine_events_the_api_cannot_report_are_refused(
    audience: int, payload: dict[str, Any], complaint: str
) -> None:
    facts = br_events.public_facts(new_game(2, 5))
    with pytest.raises(br_events.EngineEventError, match=complaint):
        br_events.convert_events([(audience, payload)], facts, facts)
