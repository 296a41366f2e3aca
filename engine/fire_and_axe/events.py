"""Every event Fire & Axe records, and the keys each one carries.

Set ``state.events = []`` and every change is appended as ``(audience, payload)``, in the order
the rules did things: audience ``-1`` for everyone, or the one seat that may see it (only
``rune_card``). Each payload is a JSON-able dict whose ``"type"`` names it. Locations, Runes
and Sagas are indices into the game's data pack (``board.Board``: ``ids``/``names``,
``runes``, ``sagas``); seats are ints; goods and items are names (``tusk``, ``fish``, ``fur``,
``crew``); ``goods`` lists are ``[tusk, fish, fur]`` counts. The wire conversion reads them
(tests/fire_and_axe/test_events.py checks every emitted event against :data:`EVENT_KEYS`).

=======================  ======================================================================
type                     keys (besides ``type``) — what happened and why
=======================  ======================================================================
action                   seat, action (its code), text: a decision, as taken
turn_start               seat, turn (turns started so far, the first is 1)
final_marker_placed      seat, placed (1-3), last_turn (the third: the game ends with this turn,
                         F12.2-F12.3)
player_out               seat: all its crew are Settlements; its turns are skipped (F9.4)
turn_skipped             seat
turn_end                 seat, how (declared | last_crew | voluntary, F10), chart ([tusk, fish,
                         fur, crew] discarded from the Losses chart, F10.3)
loaded                   seat, item, preparation, days (F5.1)
left_wintering           seat, homeland (F5.3)
returned                 seat, location (where it was), goods (discarded), crew (sent home):
                         the voluntary return (F8.4)
ship_lost                seat, cause (weather | raid | settle | settled), location, goods
                         (discarded): no crew left, back to the Wintering Zone (F10.2a)
sailed                   seat, from, to, sailing, days (F5.6)
weather                  seat, zone, fwd, sailing, excess, skulls (positions covered now, F6.3)
weather_skipped          seat: calm_weather spared this Sail its check
item_lost                seat, item, cause (weather: onto the Losses chart; raid | settle: a
                         failed die sends it to its owner's supply, F7.4a, F7.5b)
dial_turned              seat, quarters (+ clockwise), cause (rune_played | rune_discarded |
                         rune), blue, red (zones), fwd ([north, east, south, west])
traded                   seat, port, good, value, in_demand (F7.3)
raid_roll                seat, port, roll, bonus, target (effective value), success, attempt
town_taken               seat, port, size (small | large), treasure (revealed, F7.4a)
raid_stopped             seat, port
settle_roll              seat, port, dice, bonus, target, failures, success (F7.5b)
settled                  seat, port, settlements (its count), left (crew not settled)
settle_declined          seat, port (F7.5b.5)
rune_drawn               seat, hand (its size): public
rune_card                seat, rune, id, name: the drawn card, to that seat only
runes_reshuffled         deck: the discards became the deck (F5.5)
rune_played              seat, rune, id, name, dial (-1, 0 or 1 quarter turn, F8.2)
rune_discarded           seat, rune, id, name, dial
rune_effect              seat, effect (its kind), and per kind (:data:`EFFECT_EVENT_KEYS`)
demand_changed           seat, old, new (F8.3a)
vp                       seat, delta, vp (new total), reason, and per reason (:data:`VP_KEYS`)
saga_revealed            saga, id, space
saga_discarded           saga, id, why (fulfilled: already done when revealed, F11.4;
                         impossible: a Trade Saga no token can complete any more)
saga_completed           seat, saga, id, bonus_vp (F11.3)
age                      age, seat (who revealed its first card; -1 at set-up, F11.5)
final_markers_taken      seat, markers (F11.7)
game_over                reason (final_rounds | sagas_done | all_out), vp (per seat, final)
=======================  ======================================================================

``vp`` reasons: ``start_bonus`` (F3.8), ``trade`` and ``demand`` (port, good; F7.3a),
``treasure`` (port; F7.4a), ``saga`` (saga; F11.3), ``rune`` (gain_vp), and at the end
``bloodiest_axe`` (towns), ``settlement`` (port) and ``saga_set`` (homeland, sagas), F13.
"""

from __future__ import annotations

from typing import Final

EVENT_KEYS: Final[dict[str, frozenset[str]]] = {
    k: frozenset(v.split()) | {"type"}
    for k, v in {
        "action": "seat action text",
        "turn_start": "seat turn",
        "final_marker_placed": "seat placed last_turn",
        "player_out": "seat",
        "turn_skipped": "seat",
        "turn_end": "seat how chart",
        "loaded": "seat item preparation days",
        "left_wintering": "seat homeland",
        "returned": "seat location goods crew",
        "ship_lost": "seat cause location goods",
        "sailed": "seat from to sailing days",
        "weather": "seat zone fwd sailing excess skulls",
        "weather_skipped": "seat",
        "item_lost": "seat item cause",
        "dial_turned": "seat quarters cause blue red fwd",
        "traded": "seat port good value in_demand",
        "raid_roll": "seat port roll bonus target success attempt",
        "town_taken": "seat port size treasure",
        "raid_stopped": "seat port",
        "settle_roll": "seat port dice bonus target failures success",
        "settled": "seat port settlements left",
        "settle_declined": "seat port",
        "rune_drawn": "seat hand",
        "rune_card": "seat rune id name",
        "runes_reshuffled": "deck",
        "rune_played": "seat rune id name dial",
        "rune_discarded": "seat rune id name dial",
        "rune_effect": "seat effect",
        "demand_changed": "seat old new",
        "vp": "seat delta vp reason",
        "saga_revealed": "saga id space",
        "saga_discarded": "saga id why",
        "saga_completed": "seat saga id bonus_vp",
        "age": "age seat",
        "final_markers_taken": "seat markers",
        "game_over": "reason vp",
    }.items()
}
"""Each event type and the keys every payload of it has (the extra keys of ``vp`` and
``rune_effect`` are in :data:`VP_KEYS` and :data:`EFFECT_EVENT_KEYS`)."""

PRIVATE_EVENTS: Final = frozenset({"rune_card"})
"""Events addressed to one seat only; every other event is for everyone."""

VP_KEYS: Final[dict[str, frozenset[str]]] = {
    "start_bonus": frozenset(),
    "trade": frozenset({"port", "good"}),
    "demand": frozenset({"port", "good"}),
    "treasure": frozenset({"port"}),
    "saga": frozenset({"saga"}),
    "rune": frozenset(),
    "bloodiest_axe": frozenset({"towns"}),
    "settlement": frozenset({"port"}),
    "saga_set": frozenset({"homeland", "sagas"}),
}
"""The reasons of ``vp`` events and the keys each adds."""

EFFECT_EVENT_KEYS: Final[dict[str, frozenset[str]]] = {
    "days_back": frozenset({"preparation", "sailing"}),
    "recover_crew": frozenset({"crew"}),
    "gain_goods": frozenset({"good", "goods"}),
    "opponent_loses_crew": frozenset({"target", "crew"}),
    "opponent_loses_goods": frozenset({"target", "good", "goods"}),
    "attack_bonus": frozenset({"bonus"}),
    "extra_task": frozenset({"port"}),
    "draw_runes": frozenset({"drawn"}),
    "recover_losses": frozenset({"items"}),
    "calm_weather": frozenset(),
}
"""The ``rune_effect`` events by effect kind and the keys each adds. ``change_demand`` and
``turn_dial`` report as ``demand_changed`` and ``dial_turned``; ``gain_vp`` as ``vp``."""
