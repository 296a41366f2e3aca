"""Events: every event a game records has exactly the documented keys (engine/fire_and_axe/
events.py), in the order things happened, and only the drawer sees the Rune it drew."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from engine.fire_and_axe import flow
from engine.fire_and_axe.events import EFFECT_EVENT_KEYS, EVENT_KEYS, PRIVATE_EVENTS, VP_KEYS
from engine.fire_and_axe.ids import FISH, FUR
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import K, act, loc, of_type, record, rig, scenario, seats

Events = list[tuple[int, dict[str, Any]]]


def recorded_game(players: int, seed: int, options: dict[str, object]) -> tuple[Events, list[int]]:
    s = RULES.new_game(RULES.options(players, seed, options))
    start = [p.vp for p in s.seats]
    events = record(s)
    rnd = random.Random(seed)
    while RULES.result(s) is None:
        who = flow.awaiting(s)[0]
        moves = flow.legal_actions(s, who)
        flow.apply_unchecked(s, who, moves[rnd.randrange(len(moves))])
    gained = [p.vp - v for p, v in zip(s.seats, start, strict=True)]
    return events, gained


def check(audience: int, e: dict[str, Any]) -> None:
    kind = e["type"]
    assert kind in EVENT_KEYS, kind
    keys = set(EVENT_KEYS[kind])
    if kind == "vp":
        keys |= VP_KEYS[e["reason"]]
    if kind == "rune_effect":
        keys |= EFFECT_EVENT_KEYS[e["effect"]]
    assert set(e) == keys, (kind, sorted(set(e) ^ keys))
    if kind in PRIVATE_EVENTS:
        assert audience == e["seat"]
    else:
        assert audience == -1


def test_every_event_has_its_documented_keys_and_audience() -> None:
    seen: Counter[str] = Counter()
    for players, seed, options in (
        (2, 1, {}),
        (3, 2, {"rune_timing": "any_time"}),
        (5, 4, {"settle_region_block": "any"}),
    ):
        events, gained = recorded_game(players, seed, options)
        assert json.loads(json.dumps(events)) == [list(x) for x in events]
        for audience, e in events:
            check(audience, e)
            seen[e["type"]] += 1
        per_seat = [0] * players
        for e in of_type(events, "vp"):
            per_seat[e["seat"]] += e["delta"]
        assert per_seat == gained  # every VP has its event
    missing = set(EVENT_KEYS) - set(seen)
    assert missing <= {"player_out", "turn_skipped", "weather_skipped", "settle_declined"}


def test_the_rare_events_too() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 2, "hand": ["calm-seas"]}),
    )
    s.seats[0].loc = loc(s, "n-norwegian-sea")
    events = record(s)
    act(s, K.PLAY_RUNE, s.board.rune_index("calm-seas"), 0, 0)
    act(s, K.SAIL, loc(s, "n-barents-sea"))
    s2 = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Man", "crew": 2}),
    )
    events2 = record(s2)
    rig(s2, 1, 6)
    act(s2, K.SETTLE, 2)
    act(s2, K.DECLINE)
    out_ports = ["brattahlid", "reykjanes", "eyjafjordur", "halogaland", "faroe", "shetland"]
    out_ports += ["orkney", "iona", "lewis", "man", "cork", "lisbon", "algeciras", "balearics"]
    out_ports += ["cagliari"]
    s3 = scenario(
        players=2,
        turn=1,
        settlements={p: 0 for p in out_ports},  # every crewmember of seat 0 settled
        seats=seats({}, {"location": "e-rivers", "crew": 2}, players=2),
    )
    events3 = record(s3)
    act(s3, K.END_TURN)
    for audience, e in events + events2 + events3:
        check(audience, e)
    assert of_type(events, "weather_skipped") and of_type(events2, "settle_declined")
    assert of_type(events3, "player_out") and of_type(events3, "turn_skipped")


def test_events_follow_the_order_of_the_rules() -> None:
    s = scenario(
        days={"sailing": 2},
        towns={"Bjarmaland": 4},
        sagas={"spaces": ["ii-northern-raids", "i-hebrides", "i-gardariki-trade"]},
        seats=seats(
            {"location": "n-barents-sea", "crew": 3, "goods": {"fur": 1}}, {"towns": ["Horn"]}
        ),
    )
    events = record(s)
    act(s, K.SAIL, loc(s, "bjarmaland"))  # Sailing 3 in the North: a loss
    act(s, K.LOSE, FUR)
    rig(s, 5)
    act(s, K.RAID)
    types = [e["type"] for _, e in events if e["type"] != "action"]
    assert types[:4] == ["sailed", "weather", "item_lost", "raid_roll"]
    assert types[4:8] == ["town_taken", "vp", "saga_completed", "vp"]
    assert (
        of_type(events, "vp")[0]["reason"] == "treasure"
        and of_type(events, "vp")[1]["reason"] == "saga"
    )


def test_only_the_drawer_sees_its_rune() -> None:
    s = scenario(seats=seats({"location": "Sweden", "crew": 1}))
    top = s.rune_deck[-1]
    events = record(s)
    act(s, K.DRAW_RUNE)
    public = [e for audience, e in events if audience == -1]
    private = [(audience, e) for audience, e in events if audience != -1]
    assert private == [
        (
            0,
            {
                "type": "rune_card",
                "seat": 0,
                "rune": top,
                "id": s.board.runes[top].id,
                "name": s.board.runes[top].name,
            },
        )
    ]
    assert all("rune" not in e for e in public)
    assert of_type(events, "rune_drawn") == [{"type": "rune_drawn", "seat": 0, "hand": 1}]


def test_the_action_event_names_the_decision() -> None:
    s = scenario(seats=seats({"location": "Lindisfarne", "crew": 1, "goods": {"fish": 1}}))
    events = record(s)
    act(s, K.TRADE, FISH)
    assert events[0] == (
        -1,
        {"type": "action", "seat": 0, "action": (K.TRADE | FISH << 5), "text": "trade fish"},
    )
