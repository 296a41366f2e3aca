"""What each legal action of the rules says before it is taken (issue 29's labels and
details, read where a frontend reads them: the ``legal_actions`` of the seat's view).

The Rage a decision costs as blood-rage.md §5 prices it (an invade the unit's STR, a ship 2,
a march 1, an upgrade the card's cost, a pass all the Rage left, a pillage nothing), the
unit, the area it goes to and its STR there, the card and slot of an upgrade and the card it
replaces; and what a ``decline`` of the Call to Battle declines."""

from __future__ import annotations

from typing import Any

from engine.blood_rage.actions import ActionKind
from engine.blood_rage.cards import Slot
from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.view import view

K = ActionKind
YGG, MYR, E, ANG, GIM = Area.YGGDRASIL, Area.MYRKULOR, Area.ELVAGAR, Area.ANGERBODA, Area.GIMLE
NORTH = Area.NORTH_FJORD


def offered(state: Any, seat: int) -> dict[tuple[int, ...], tuple[str, dict[str, Any]]]:
    """The seat's legal actions as its view lists them: (kind, a, b, c) -> (label, details)."""
    out = {}
    for entry in view(state, seat)["legal_actions"]:
        out[(entry["kind"], *entry["args"])] = (entry["label"], entry["details"])
    return out


def test_an_action_phase_decision_says_its_cost_unit_area_and_strength(h) -> None:
    s = h.scenario(
        4,
        [{"rage": 4, "upgrades": ["troll"], "figures": {"Elvagar": ["leader"]}}],
        age=2,
    )
    got = offered(s, 0)
    assert got[(K.INVADE, Unit.WARRIOR, MYR, 0)] == (
        "invade warrior -> Myrkulor",
        {"rage_cost": 1, "unit": Unit.WARRIOR, "area": MYR, "strength": 1},
    )
    assert got[(K.INVADE, Unit.SHIP, NORTH, 0)] == (
        "invade ship -> North fjord",
        {"rage_cost": 2, "unit": Unit.SHIP, "area": NORTH, "strength": 2},
    )
    # The Troll (cards.md: STR 2) invades for its STR.
    assert got[(K.INVADE, Unit.TROLL, GIM, 0)] == (
        "invade Troll -> Gimle",
        {"rage_cost": 2, "unit": Unit.TROLL, "area": GIM, "strength": 2},
    )
    # A march costs 1 whatever moves; the leader has STR 3, in Yggdrasil (area 0) too.
    assert got[(K.MARCH, E, YGG, Unit.LEADER)] == (
        "march leader Elvagar -> Yggdrasil",
        {"rage_cost": 1, "unit": Unit.LEADER, "area": YGG, "strength": 3},
    )
    assert got[(K.MARCH, E, ANG, Unit.LEADER)][1] == {
        "rage_cost": 1,
        "unit": Unit.LEADER,
        "area": ANG,
        "strength": 3,
    }
    # A pillage costs nothing and places nothing; a pass gives up all 4 Rage left.
    assert got[(K.PILLAGE, E, 0, 0)] == ("pillage Elvagar", {})
    assert got[(K.PASS, 0, 0, 0)] == ("pass", {"rage_cost": 4})


def test_a_warrior_upgrade_sets_the_strength_and_cost_of_one_warrior(h) -> None:
    """With a Warrior upgrade of STR 2 (Experts in Arms, cards.md: warriors STR 2) one
    warrior invades for 2 Rage and stands with STR 2."""
    s = h.scenario(4, [{"rage": 5, "upgrades": ["experts_in_arms"]}], age=2)
    got = offered(s, 0)
    assert got[(K.INVADE, Unit.WARRIOR, E, 0)][1] == {
        "rage_cost": 2,
        "unit": Unit.WARRIOR,
        "area": E,
        "strength": 2,
    }
    leader = {"unit": Unit.LEADER, "area": E, "strength": 3}  # a leader invades for free
    assert got[(K.INVADE, Unit.LEADER, E, 0)][1] == leader


def test_the_dark_elf_has_str_3_only_in_yggdrasil(h) -> None:
    """cards.md: the Dark Elf (STR 1) may invade Yggdrasil directly, STR 3 while there; it
    invades for its printed 1 Rage either way."""
    s = h.scenario(3, [{"rage": 5, "upgrades": ["dark_elf"]}], age=2)
    got = offered(s, 0)
    assert got[(K.INVADE, Unit.DARK_ELF, YGG, 0)] == (
        "invade Dark Elf -> Yggdrasil",
        {"rage_cost": 1, "unit": Unit.DARK_ELF, "area": YGG, "strength": 3},
    )
    assert got[(K.INVADE, Unit.DARK_ELF, MYR, 0)][1] == {
        "rage_cost": 1,
        "unit": Unit.DARK_ELF,
        "area": MYR,
        "strength": 1,
    }


def test_an_upgrade_names_its_card_slot_and_the_card_it_replaces(h) -> None:
    s = h.scenario(3, [{"rage": 5, "hand": ["dark_elf"], "upgrades": ["troll"]}], age=2)
    elf, troll = h.card(s, 0, "dark_elf"), s.clans[0].slots[3]
    assert h.key(troll) == "troll"
    got = offered(s, 0)
    # Monster slot 1 holds the Troll; slot 2 is empty.
    assert got[(K.UPGRADE, elf, 0, 0)] == (
        f"upgrade Dark Elf [#{elf}] (slot 1)",
        {"rage_cost": 1, "card": elf, "slot": Slot.MONSTER, "replaces": troll},
    )
    assert got[(K.UPGRADE, elf, 1, 0)] == (
        f"upgrade Dark Elf [#{elf}] (slot 2)",
        {"rage_cost": 1, "card": elf, "slot": Slot.MONSTER},
    )


def test_a_march_under_way_names_where_more_figures_go(h) -> None:
    """After the leader marched Elvagar -> Angerboda, another figure of Elvagar may follow
    (blood-rage.md §5): its details name Angerboda, and it costs nothing more."""
    s = h.scenario(3, [{"rage": 4, "figures": {"Elvagar": ["leader", "warrior"]}}])
    h.act(s, 0, K.MARCH, E, ANG, Unit.LEADER)
    got = offered(s, 0)
    assert got[(K.MARCH_MORE, Unit.WARRIOR, 0, 0)] == (
        "march another warrior",
        {"unit": Unit.WARRIOR, "area": ANG, "strength": 1},
    )
    assert got[(K.MARCH_DONE, 0, 0, 0)] == ("end march", {})


def test_a_call_to_battle_names_the_battles_province(h) -> None:
    """Seat 1 is called to Elvagar's battle from Yggdrasil and Myrkulor (both adjacent): each
    call says what goes where at what STR (the unit, not the area it comes from), and
    declining names the battle it stays out of."""
    s = h.scenario(
        3,
        [
            {"rage": 4, "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Myrkulor": ["leader"], "Yggdrasil": ["warrior"]}},
        ],
    )
    h.act(s, 0, K.PILLAGE, E)
    assert h.awaiting(s) == [1]
    assert offered(s, 1) == {
        (K.CALL_TO_BATTLE, YGG, Unit.WARRIOR, 0): (
            "call warrior from Yggdrasil to battle",
            {"unit": Unit.WARRIOR, "area": E, "strength": 1},
        ),
        (K.CALL_TO_BATTLE, MYR, Unit.LEADER, 0): (
            "call leader from Myrkulor to battle",
            {"unit": Unit.LEADER, "area": E, "strength": 3},
        ),
        (K.DECLINE, 0, 0, 0): (
            "decline the Call to Battle in Elvagar",
            {"offer": "call_to_battle", "area": E},
        ),
    }


def test_declining_a_battle_in_yggdrasil_names_yggdrasil(h) -> None:
    """Yggdrasil is area 0 and adjacent to every outer province: seat 1's warrior in
    Myrkulor is called to it, and its decline names it."""
    s = h.scenario(
        3,
        [
            {"rage": 4, "figures": {"Yggdrasil": ["leader"]}},
            {"figures": {"Myrkulor": ["warrior"]}},
        ],
    )
    h.act(s, 0, K.PILLAGE, YGG)
    assert h.awaiting(s) == [1]
    assert offered(s, 1) == {
        (K.CALL_TO_BATTLE, MYR, Unit.WARRIOR, 0): (
            "call warrior from Myrkulor to battle",
            {"unit": Unit.WARRIOR, "area": YGG, "strength": 1},
        ),
        (K.DECLINE, 0, 0, 0): (
            "decline the Call to Battle in Yggdrasil",
            {"offer": "call_to_battle", "area": YGG},
        ),
    }
