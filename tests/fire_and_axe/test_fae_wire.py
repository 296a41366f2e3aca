"""Fire & Axe on the wire (protocol/fire_and_axe): actions both ways, views, events in the
engine's order, options and the data-pack choice, results, the catalog."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.contract import SPECTATOR
from engine.fire_and_axe.actions import Action, ActionKind
from engine.fire_and_axe.data_pack import demo_pack, parse
from engine.fire_and_axe.events import EVENT_KEYS
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import GameState
from protocol import envelopes
from protocol import registry as wires
from protocol.fire_and_axe import packs
from protocol.fire_and_axe.actions import ACTION_FIELDS, action_from_pb, action_to_pb
from protocol.fire_and_axe.events import EVENT_CONVERTERS, EngineEventError, convert_events
from protocol.fire_and_axe.wire import WIRE
from protocol.wire import ConversionError, ViewEnvelope
from tests.fire_and_axe.test_fae_hosting import OTHER_TEXT
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

ENVELOPE = ViewEnvelope("g", gp.GAME_STATUS_IN_PROGRESS, [], 0, {})

# Engine event type -> the FireAndAxeEvent field it becomes ("rune_card" joins its draw).
EVENT_FIELD = {
    "action": "action_applied",
    "turn_start": "turn_started",
    "final_marker_placed": "final_marker_placed",
    "player_out": "player_out",
    "turn_skipped": "turn_skipped",
    "turn_end": "turn_ended",
    "loaded": "loaded",
    "left_wintering": "left_wintering",
    "returned": "returned",
    "ship_lost": "ship_lost",
    "sailed": "sailed",
    "weather": "weather_checked",
    "weather_skipped": "weather_skipped",
    "item_lost": "item_lost",
    "dial_turned": "dial_turned",
    "traded": "traded",
    "raid_roll": "raid_rolled",
    "town_taken": "town_taken",
    "raid_stopped": "raid_stopped",
    "settle_roll": "settle_rolled",
    "settled": "settled",
    "settle_declined": "settle_declined",
    "rune_drawn": "rune_drawn",
    "runes_reshuffled": "runes_reshuffled",
    "rune_played": "rune_played",
    "rune_discarded": "rune_discarded",
    "rune_effect": "rune_effect",
    "demand_changed": "demand_changed",
    "vp": "vp_changed",
    "saga_revealed": "saga_revealed",
    "saga_discarded": "saga_discarded",
    "saga_completed": "saga_completed",
    "age": "age_started",
    "final_markers_taken": "final_markers_taken",
    "game_over": "game_over",
}


Raw = list[tuple[int, dict[str, Any]]]


def played(
    seed: int, players: int = 3, **options: object
) -> Iterator[tuple[GameState, int, Action, Raw]]:
    """A uniformly random game: (state after, seat, action, the decision's engine events)."""
    rng = random.Random(seed)
    state = RULES.new_game(RULES.options(players, seed, dict(options)))
    while RULES.result(state) is None:
        seat = RULES.awaiting(state)[0]
        action = rng.choice(RULES.legal_actions(state, seat))
        state.events = []
        RULES.apply(state, seat, action)
        yield state, seat, action, state.events


def test_the_registry_finds_the_wire() -> None:
    assert wires.wire("fire_and_axe") is WIRE
    assert wires.wire_for_kind(gp.GAME_KIND_FIRE_AND_AXE) is WIRE
    assert wires.wire_for_field("fire_and_axe") is WIRE
    assert WIRE.rules is RULES and WIRE.kind == 2


def test_every_action_kind_has_a_field_numbered_after_it() -> None:
    assert set(ACTION_FIELDS) == set(ActionKind)
    fields = fa.FireAndAxeAction.DESCRIPTOR.oneofs_by_name["kind"].fields
    by_name = {f.name: f.number for f in fields}
    for kind, (field, _) in ACTION_FIELDS.items():
        assert by_name[field] == kind + 1


def test_actions_round_trip_in_random_games() -> None:
    seen: set[int] = set()
    for seed, options in ((1, {}), (2, {"rune_timing": "any_time"})):
        state = RULES.new_game(RULES.options(3, seed, options))
        rng = random.Random(seed)
        for _ in range(3000):
            if RULES.result(state) is not None:
                break
            seat = RULES.awaiting(state)[0]
            for action in RULES.legal_actions(state, seat):
                message = WIRE.action_to_pb(action)
                assert WIRE.action_from_pb(message) == action
                assert RULES.action_from_code(action.code()) == action
                seen.add(action[0])
            RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))
    # the common kinds all met (LOSE, CONVERT, DECLINE need dice and weather to line up)
    assert {ActionKind.SAIL, ActionKind.PLAY_RUNE, ActionKind.PASS, ActionKind.LOAD_GOOD} <= seen


def test_action_fields_carry_the_engine_values() -> None:
    play = action_to_pb(Action(ActionKind.PLAY_RUNE, 7, 2, 9))
    assert play.play_rune.rune == 7 and play.play_rune.choice == 9
    assert play.play_rune.dial == fa.FIRE_AND_AXE_DIAL_TURN_COUNTER_CLOCKWISE
    assert (
        action_to_pb(Action(ActionKind.LOAD_GOOD, 0)).load_goods.good == fa.FIRE_AND_AXE_GOOD_TUSK
    )
    assert action_to_pb(Action(ActionKind.LOSE, 3)).lose.item == fa.FIRE_AND_AXE_ITEM_CREW
    assert action_to_pb(Action(ActionKind.SAIL, 41)).sail.to == 41
    assert action_to_pb(Action(ActionKind.PASS)).HasField("pass_window")


@pytest.mark.parametrize(
    "message",
    [
        gp.Action(),
        gp.Action(blood_rage=br.BloodRageAction(pass_turn=br.PassTurn())),
        gp.Action(fire_and_axe=fa.FireAndAxeAction()),
        gp.Action(fire_and_axe=fa.FireAndAxeAction(trade=fa.FireAndAxeAction.Trade())),
        gp.Action(fire_and_axe=fa.FireAndAxeAction(trade=fa.FireAndAxeAction.Trade(good=4))),
        gp.Action(fire_and_axe=fa.FireAndAxeAction(sail=fa.FireAndAxeAction.Sail(to=256))),
        gp.Action(fire_and_axe=fa.FireAndAxeAction(sail=fa.FireAndAxeAction.Sail(to=-1))),
        gp.Action(
            fire_and_axe=fa.FireAndAxeAction(
                discard_rune=fa.FireAndAxeAction.DiscardRune(rune=1, dial=3)
            )
        ),
    ],
)
def test_malformed_actions_are_refused(message: gp.Action) -> None:
    with pytest.raises(ConversionError):
        action_from_pb(message)


def test_events_keep_the_engine_order_and_hide_drawn_cards() -> None:
    types: set[str] = set()
    draws = 0
    for _state, seat, action, raw in played(5, 3, rune_timing="any_time"):
        converted = convert_events(raw)
        public_raw = [p for a, p in raw if p["type"] != "rune_card"]
        assert len(converted) == len(public_raw)
        for event, payload in zip(converted, public_raw, strict=True):
            types.add(payload["type"])
            field = event.full.fire_and_axe.WhichOneof("kind")
            assert field == EVENT_FIELD[payload["type"]], payload
            if field == "rune_drawn":
                draws += 1
                drawn = event.full.fire_and_axe.rune_drawn
                assert event.audience == drawn.seat and drawn.HasField("rune")
                assert event.public is not None
                hidden = event.public.fire_and_axe.rune_drawn
                assert not hidden.HasField("rune") and hidden.seat == drawn.seat
                assert hidden.hand_count == drawn.hand_count
            else:
                assert event.audience == -1 and event.public is None
        first = converted[0].full.fire_and_axe.action_applied
        assert (first.seat, first.code) == (seat, action.code())
        assert first.label and "#" not in first.label  # the pack's names, not numbers
    assert draws > 0
    assert {"sailed", "weather", "vp", "turn_end", "game_over", "dial_turned"} <= types


def test_every_public_event_type_has_a_converter() -> None:
    joined = {"action", "rune_drawn", "rune_card"}
    assert set(EVENT_CONVERTERS) == set(EVENT_KEYS) - joined
    assert set(EVENT_FIELD) == set(EVENT_KEYS) - {"rune_card"}
    names = {f.name for f in fa.FireAndAxeEvent.DESCRIPTOR.oneofs_by_name["kind"].fields}
    assert set(EVENT_FIELD.values()) == names


def test_what_the_api_cannot_report_is_refused() -> None:
    with pytest.raises(EngineEventError, match="does not report"):
        convert_events([(-1, {"type": "comet"})])
    with pytest.raises(EngineEventError, match="private event"):
        convert_events([(1, {"type": "sailed", "seat": 1})])
    with pytest.raises(EngineEventError, match="without its public draw"):
        convert_events([(1, {"type": "rune_card", "seat": 1, "rune": 3})])
    with pytest.raises(EngineEventError, match="never told"):
        convert_events([(-1, {"type": "rune_drawn", "seat": 1, "hand": 2})])


def test_event_values_are_the_engines() -> None:
    raw = [
        (-1, {"type": "sailed", "seat": 1, "from": 3, "to": 9, "sailing": 2, "days": 4}),
        (-1, {"type": "vp", "seat": 2, "delta": 5, "vp": 12, "reason": "treasure", "port": 8}),
        (-1, {"type": "age", "age": 2, "seat": -1}),
        (
            -1,
            {
                "type": "rune_effect",
                "seat": 0,
                "effect": "opponent_loses_goods",
                "target": 2,
                "good": "fur",
                "goods": 2,
            },
        ),
    ]
    sailed, vp, age, effect = (e.full.fire_and_axe for e in convert_events(raw))
    assert (sailed.sailed.from_location, sailed.sailed.to_location, sailed.sailed.days) == (3, 9, 4)
    assert vp.vp_changed.reason == fa.FireAndAxeEvent.VP_REASON_TREASURE and vp.vp_changed.port == 8
    assert not vp.vp_changed.HasField("saga")
    assert age.age_started.age == 2 and not age.age_started.HasField("seat")
    e = effect.rune_effect
    assert (e.target_seat, e.good, e.amount) == (2, fa.FIRE_AND_AXE_GOOD_FUR, 2)


def _view(state: GameState, viewer: int, include_state: bool = False) -> gp.View:
    return envelopes.view_to_pb(WIRE, RULES.view(state, viewer, include_state), ENVELOPE)


def test_views_show_the_table_by_pack_index_and_the_own_hand_only() -> None:
    for state, _seat, _action, _raw in played(9, 4):
        if state.version == 400:
            break
    board = state.board
    spectator = _view(state, SPECTATOR)
    assert spectator.kind == gp.GAME_KIND_FIRE_AND_AXE and not spectator.HasField("viewer_seat")
    assert not spectator.fire_and_axe.HasField("own") and not spectator.legal_actions
    payload = spectator.fire_and_axe
    assert payload.pack.digest == demo_pack().digest and payload.pack.demo
    assert [p.port for p in payload.ports] == list(board.ports)
    for s, seat_view in enumerate(payload.seats):
        p = state.seats[s]
        assert seat_view.HasField("location") == (p.loc >= 0)
        if p.loc >= 0:
            assert seat_view.location == p.loc
        assert seat_view.hand_count == len(p.hand) and list(seat_view.goods) == p.cargo
    for s in range(4):
        mine = _view(state, s)
        assert mine.viewer_seat == s and list(mine.fire_and_axe.own.hand) == state.seats[s].hand
    active = RULES.awaiting(state)[0]
    mine = _view(state, active)
    legal = RULES.legal_actions(state, active)
    assert [e.code for e in mine.legal_actions] == [a.code() for a in legal]
    assert [e.index for e in mine.legal_actions] == list(range(len(legal)))
    assert all(
        WIRE.action_from_pb(e.action) == a for e, a in zip(mine.legal_actions, legal, strict=True)
    )
    assert [e.label for e in mine.legal_actions] == [WIRE.label(state, a) for a in legal]


def test_the_engine_state_of_a_view_is_redacted() -> None:
    state = RULES.new_game(RULES.options(3, 77, {}))
    snap = json.loads(_view(state, 1, include_state=True).fire_and_axe.engine_state_json)
    assert snap["seed"] == 0 and snap["rng"] == 0 and set(snap["rune_deck"]) == {-1}
    assert snap["seats"][1]["hand"] == state.seats[1].hand
    assert set(snap["seats"][0]["hand"]) == {-1}


def test_results_say_why_and_what_each_seat_took() -> None:
    state = [s for s, _seat, _action, _raw in played(3, 2)][-1]
    result = RULES.result(state)
    assert result is not None
    out = envelopes.result_to_pb(WIRE, result, ["a", "b"], RULES.view(state, SPECTATOR))
    assert [s.score for s in out.seats] == list(result.scores)
    details = out.fire_and_axe
    assert details.end_reason != fa.FIRE_AND_AXE_END_REASON_UNSPECIFIED
    assert details.pack.demo and len(details.seats) == 2
    for tally, p in zip(details.seats, state.seats, strict=True):
        assert tally.towns == len(p.towns) and tally.settlements == p.settlements
        assert sum(tally.sagas_by_homeland) == len(p.sagas)


# -- options and the data-pack choice ----------------------------------------------------------


@pytest.fixture
def other_pack(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "other.toml"
    path.write_text(OTHER_TEXT, encoding="utf-8")
    yield path
    packs.reset()


def _options(**mine: object) -> gp.GameOptions:
    return gp.GameOptions(player_count=3, fire_and_axe=fa.FireAndAxeOptions(**mine))  # type: ignore[arg-type]


def test_options_from_the_api() -> None:
    got = WIRE.options_from_pb(
        _options(
            settle_region_block=fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY,
            rune_timing=fa.FIRE_AND_AXE_RUNE_TIMING_ANY_TIME,
            no_conflict=True,
            first_player=2,
        )
    )
    assert got == {
        "settle_region_block": "any",
        "rune_timing": "any_time",
        "no_conflict": True,
        "first_player": 2,
        "data_pack": demo_pack().digest,
    }
    plain = WIRE.options_from_pb(gp.GameOptions(player_count=3))
    assert plain["settle_region_block"] == "all" and plain["first_player"] is None
    with pytest.raises(ConversionError):
        WIRE.options_from_pb(_options(rune_timing=7))  # type: ignore[arg-type]


def test_options_to_the_api_and_back() -> None:
    record = RULES.options_record(RULES.options(3, 1, {"settle_region_block": "any"}))
    out = gp.GameOptions()
    WIRE.options_to_pb(record, out)
    mine = out.fire_and_axe
    assert mine.data_pack == demo_pack().digest and mine.pack.demo and mine.pack.name
    assert mine.settle_region_block == fa.FIRE_AND_AXE_SETTLE_BLOCK_ANY
    assert not mine.HasField("first_player") and not mine.data_pack_toml
    back = WIRE.options_from_pb(out)
    assert RULES.options_record(RULES.options(3, 1, back)) == record


def test_a_pack_is_named_by_demo_id_or_digest(other_pack: Path) -> None:
    demo = demo_pack().digest
    assert packs.resolve("") == demo and packs.resolve("demo") == demo
    assert packs.resolve(demo) == demo and packs.resolve("demo-invented-v1") == demo
    with pytest.raises(ConversionError, match="this server offers: demo-invented-v1"):
        packs.resolve("my-copy")
    pack = packs.offer_file(other_pack)
    assert packs.default_digest() == pack.digest  # the first file offered is the default
    assert packs.resolve("") == pack.digest and packs.resolve("test-copy-of-demo") == pack.digest
    assert [p.digest for p in packs.offered()] == [demo, pack.digest]
    catalog = WIRE.catalog()
    assert isinstance(catalog, fa.FireAndAxeCatalog)
    assert catalog.default_pack == pack.digest
    assert [p.info.digest for p in catalog.packs][:2] == [demo, pack.digest]


def test_a_pack_of_ones_own_is_privileged_and_travels_whole() -> None:
    plain = _options(data_pack="demo")
    assert WIRE.privileged_options(plain) is None
    own = _options(data_pack_toml=OTHER_TEXT)
    assert "data_pack_toml" in (WIRE.privileged_options(own) or "")
    got = WIRE.options_from_pb(own)
    assert got["data_pack_toml"] == OTHER_TEXT and "data_pack" not in got
    record = RULES.options_record(RULES.options(3, 2, got))
    digest = parse(OTHER_TEXT).digest
    summary, replay = gp.GameOptions(), gp.GameOptions()
    WIRE.options_to_pb(record, summary)
    WIRE.options_to_pb(record, replay, full=True)
    assert summary.fire_and_axe.data_pack == digest and not summary.fire_and_axe.data_pack_toml
    assert replay.fire_and_axe.data_pack_toml == OTHER_TEXT
    assert replay.fire_and_axe.pack.id == "test-copy-of-demo"
    with pytest.raises(ConversionError, match="longer than"):
        WIRE.options_from_pb(_options(data_pack_toml="#" * (600 * 1024)))


def test_the_catalog_is_the_packs_board_and_cards() -> None:
    catalog = WIRE.catalog()
    assert isinstance(catalog, fa.FireAndAxeCatalog)
    demo = next(p for p in catalog.packs if p.info.digest == demo_pack().digest)
    assert demo.info.demo and "NOT the published" in demo.info.name
    pack = demo_pack()
    assert [loc.id for loc in demo.locations] == [loc.id for loc in pack.locations]
    for loc in demo.locations:
        assert loc.index == demo.locations[loc.index].index
        for other in loc.adjacent:
            assert loc.index in demo.locations[other].adjacent
    assert sum(r.count for r in demo.runes) == 33 and len(demo.sagas) == 27
    ports = {loc.index for loc in demo.locations if loc.kind == fa.FIRE_AND_AXE_LOCATION_KIND_PORT}
    assert all(set(s.ports) <= ports for s in demo.sagas)
    assert sorted(demo.small_treasures) == sorted(pack.small_treasures)
    change = next(r for r in demo.runes if r.name == "Change of Demand")
    assert [e.kind for e in change.effects] == ["change_demand"] and change.rulebook
