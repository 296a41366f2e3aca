"""Properties of the generated gRPC API v1 (yggdrasil/v1, generated from proto/ by `make proto`)."""

from __future__ import annotations

import keyword
from collections.abc import Iterator

import pytest
from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FileDescriptor,
    ServiceDescriptor,
)

from yggdrasil.v1 import (
    blood_rage_pb2,
    diagnostics_service_pb2,
    diagnostics_service_pb2_grpc,
    game_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
)

FILES: tuple[FileDescriptor, ...] = (
    blood_rage_pb2.DESCRIPTOR,
    game_pb2.DESCRIPTOR,
    game_service_pb2.DESCRIPTOR,
    diagnostics_service_pb2.DESCRIPTOR,
)

# The engine's ids in engine order; proto value = engine id + 1 (0 is UNSPECIFIED).
AREAS = (
    "YGGDRASIL", "MYRKULOR", "ELVAGAR", "ANGERBODA", "MUSPELHEIM", "HORGR", "UTGARD", "ANDLANG",
    "GIMLE", "NORTH_FJORD", "EAST_FJORD", "SOUTH_FJORD", "WEST_FJORD",
)  # fmt: skip
UNITS = (
    "LEADER", "WARRIOR", "SHIP", "TROLL", "DWARF_CHIEFTAIN", "SEA_SERPENT", "VALKYRIE",
    "DARK_ELF", "FIRE_GIANT", "FROST_GIANT", "SOLDIER_OF_HEL", "VOLUR_WITCH",
)  # fmt: skip
PHASES = ("DRAFT", "ACTION", "DISCARD", "QUEST", "RAGNAROK", "RELEASE_VALHALLA", "GAME_OVER")
CLANS = ("WOLF", "RAVEN", "SERPENT", "BEAR", "RAM")
STATS = ("RAGE", "AXES", "HORNS")

GAME_SERVICE_RPCS = {
    "CreateGame",
    "JoinGame",
    "GetView",
    "SubmitAction",
    "WatchGame",
    "ListGames",
    "GetResult",
    "GetReplay",
    "GetCatalog",
}

ACTION_KINDS = (
    "draft_pick", "pass_turn", "invade", "march", "march_more", "march_done", "upgrade", "quest",
    "pillage", "free_invade", "decline", "call_to_battle", "battle_card", "no_card", "keep_card",
    "keep_none", "raise_stat", "late_card", "save_figure", "accept", "keep_revealed",
    "keep_figure", "move_leader", "challenge", "sacrifice", "invade_from_valhalla",
)  # fmt: skip


def _messages(d: Descriptor | FileDescriptor) -> Iterator[Descriptor]:
    children = d.message_types_by_name.values() if isinstance(d, FileDescriptor) else d.nested_types
    for m in children:
        yield m
        yield from _messages(m)


def _all_messages() -> list[Descriptor]:
    return [m for f in FILES for m in _messages(f)]


def _all_enums() -> list[EnumDescriptor]:
    enums = [e for f in FILES for e in f.enum_types_by_name.values()]
    enums += [e for m in _all_messages() for e in m.enum_types]
    return enums


def _snake_upper(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0:
            out.append("_")
        out.append(ch.upper())
    return "".join(out)


def _enum_suffixes(enum: EnumDescriptor) -> list[str]:
    prefix = _snake_upper(enum.name) + "_"
    assert all(v.name.startswith(prefix) for v in enum.values), enum.full_name
    return [v.name[len(prefix) :] for v in sorted(enum.values, key=lambda v: v.number)]


def test_every_enum_starts_with_unspecified_zero() -> None:
    enums = _all_enums()
    assert len(enums) >= 15
    for enum in enums:
        zero = enum.values_by_number.get(0)
        assert zero is not None, enum.full_name
        assert zero.name == _snake_upper(enum.name) + "_UNSPECIFIED", enum.full_name


@pytest.mark.parametrize(
    ("enum", "names"),
    [
        (blood_rage_pb2.Area.DESCRIPTOR, AREAS),
        (blood_rage_pb2.Unit.DESCRIPTOR, UNITS),
        (blood_rage_pb2.Phase.DESCRIPTOR, PHASES),
        (blood_rage_pb2.Clan.DESCRIPTOR, CLANS),
        (blood_rage_pb2.Stat.DESCRIPTOR, STATS),
    ],
)
def test_domain_enums_are_engine_ids_plus_one(enum: EnumDescriptor, names: tuple[str, ...]) -> None:
    assert _enum_suffixes(enum) == ["UNSPECIFIED", *names]
    assert [v.number for v in sorted(enum.values, key=lambda v: v.number)] == list(
        range(len(names) + 1)
    )


def test_area_and_unit_counts() -> None:
    assert len(blood_rage_pb2.Area.DESCRIPTOR.values) == 14
    assert len(blood_rage_pb2.Unit.DESCRIPTOR.values) == 13
    assert blood_rage_pb2.AREA_YGGDRASIL == 1
    assert blood_rage_pb2.AREA_WEST_FJORD == 13
    assert blood_rage_pb2.UNIT_VOLUR_WITCH == 12


def _service(svc: ServiceDescriptor) -> dict[str, tuple[bool, bool]]:
    return {m.name: (m.client_streaming, m.server_streaming) for m in svc.methods}


def test_game_service_lists_the_rpcs() -> None:
    methods = _service(game_service_pb2.DESCRIPTOR.services_by_name["GameService"])
    assert set(methods) >= GAME_SERVICE_RPCS
    assert methods["WatchGame"] == (False, True)
    for name in GAME_SERVICE_RPCS - {"WatchGame"}:
        assert methods[name] == (False, False), name
    # The generated gRPC module exposes a client stub and a servicer for it.
    assert hasattr(game_service_pb2_grpc, "GameServiceStub")
    assert hasattr(game_service_pb2_grpc, "add_GameServiceServicer_to_server")


def test_diagnostics_service_has_unary_ping() -> None:
    methods = _service(diagnostics_service_pb2.DESCRIPTOR.services_by_name["DiagnosticsService"])
    assert methods == {"Ping": (False, False)}
    assert hasattr(diagnostics_service_pb2_grpc, "DiagnosticsServiceStub")


def test_game_payloads_sit_in_oneofs_at_field_10() -> None:
    """Game-agnostic envelopes carry Blood Rage at field 10, so a second game adds field 11."""
    envelopes: list[tuple[Descriptor, str]] = [
        (game_pb2.GameOptions.DESCRIPTOR, "game"),
        (game_pb2.Action.DESCRIPTOR, "game"),
        (game_pb2.View.DESCRIPTOR, "game"),
        (game_pb2.GameResult.DESCRIPTOR, "game"),
        (game_pb2.Event.DESCRIPTOR, "payload"),
        (game_service_pb2.GetCatalogResponse.DESCRIPTOR, "game"),
    ]
    for desc, oneof in envelopes:
        field = desc.fields_by_name["blood_rage"]
        assert field.number == 10, desc.full_name
        assert field.containing_oneof is not None, desc.full_name
        assert field.containing_oneof.name == oneof, desc.full_name
        assert field.message_type is not None, desc.full_name
        assert field.message_type.name.startswith("BloodRage"), desc.full_name


def test_action_kinds_and_legal_index() -> None:
    kinds = blood_rage_pb2.BloodRageAction.DESCRIPTOR.oneofs_by_name["kind"]
    assert [f.name for f in kinds.fields] == list(ACTION_KINDS)
    choice = game_service_pb2.SubmitActionRequest.DESCRIPTOR.oneofs_by_name["choice"]
    assert {f.name for f in choice.fields} == {"action", "legal_index"}
    # legal_index 0 is a real index: the oneof must still report it as set.
    req = game_service_pb2.SubmitActionRequest(legal_index=0)
    assert req.WhichOneof("choice") == "legal_index"


def test_hidden_cards_can_be_blanked() -> None:
    """Another seat's draft pick travels with the card unset, not as instance 0."""
    hidden = blood_rage_pb2.BloodRageAction(draft_pick=blood_rage_pb2.DraftPick())
    shown = blood_rage_pb2.BloodRageAction(draft_pick=blood_rage_pb2.DraftPick(card=0))
    assert not hidden.draft_pick.HasField("card")
    assert shown.draft_pick.HasField("card")
    assert hidden.SerializeToString() != shown.SerializeToString()


def test_round_trip_of_a_submit_request() -> None:
    action = game_pb2.Action(
        blood_rage=blood_rage_pb2.BloodRageAction(
            march=blood_rage_pb2.March(
                from_area=blood_rage_pb2.AREA_GIMLE,
                to_area=blood_rage_pb2.AREA_YGGDRASIL,
                unit=blood_rage_pb2.UNIT_WARRIOR,
            )
        )
    )
    req = game_service_pb2.SubmitActionRequest(
        game_id="g1", seat_token="t", action=action, state_version=7, idempotency_key="k"
    )
    back = game_service_pb2.SubmitActionRequest.FromString(req.SerializeToString())
    assert back == req
    assert back.action.blood_rage.WhichOneof("kind") == "march"
    assert back.action.blood_rage.march.to_area == blood_rage_pb2.AREA_YGGDRASIL


def test_no_field_is_a_python_keyword() -> None:
    for msg in _all_messages():
        for field in msg.fields:
            assert not keyword.iskeyword(field.name), f"{msg.full_name}.{field.name}"


def test_version_mismatch_detail() -> None:
    detail = game_pb2.VersionMismatch(
        reason=game_pb2.VersionMismatch.REASON_STALE_VERSION,
        submitted_state_version=3,
        current_state_version=5,
    )
    assert game_pb2.VersionMismatch.FromString(detail.SerializeToString()) == detail
