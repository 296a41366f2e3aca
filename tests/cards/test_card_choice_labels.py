"""What the answers to a card's offer say before one is taken (issue 29's labels and
details, read from the ``legal_actions`` of the asked seat's view): each ``decline`` says
what it gives up and names the offer (``details.offer``) and what it is about; a paid answer
says its Rage (cards.md: Thor's Domain 2, Frigga's Protection 1, Tyr's Prowess 1, Tyr's
Challenge 2, Frigga's Domain 1 instead of the usual cost); a free answer costs nothing."""

from __future__ import annotations

from typing import Any

from engine.blood_rage.cards import Slot, card_of
from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.state import PromptKind
from engine.blood_rage.view import view

YGG, MYR, E, ANG = Area.YGGDRASIL, Area.MYRKULOR, Area.ELVAGAR, Area.ANGERBODA


def offered(state: Any, seat: int) -> dict[tuple[int, ...], tuple[str, dict[str, Any]]]:
    """The seat's legal actions as its view lists them: (kind, a, b, c) -> (label, details)."""
    out = {}
    for entry in view(state, seat)["legal_actions"]:
        out[(entry["kind"], *entry["args"])] = (entry["label"], entry["details"])
    return out


def test_thors_domain_with_exactly_2_rage_says_it_costs_2(g) -> None:
    """The leader invades for free, leaving exactly the 2 Rage Thor's Domain asks."""
    s = g.state(4, [{"upgrades": ["thors_domain"], "rage": 2}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) == (PromptKind.THORS_DOMAIN, 0)
    assert offered(s, 0) == {
        (g.K.ACCEPT, 0, 0, 0): (
            "Thor's Domain: pay 2 Rage to pillage Elvagar now",
            {"rage_cost": 2, "offer": "thors_domain", "area": E},
        ),
        (g.K.DECLINE, 0, 0, 0): (
            "decline Thor's Domain (do not pillage Elvagar)",
            {"offer": "thors_domain", "area": E},
        ),
    }


def test_frigga_succor_offers_a_free_warrior_where_the_clan_invaded(g) -> None:
    s = g.state(3, [{"upgrades": ["friggas_succor"], "rage": 3}])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, MYR)
    assert g.prompt(s) == (PromptKind.SUCCOR, 0)
    assert offered(s, 0) == {
        (g.K.FREE_INVADE, Unit.WARRIOR, MYR, 0): (
            "free invade warrior -> Myrkulor",
            {"unit": Unit.WARRIOR, "area": MYR, "strength": 1},
        ),
        (g.K.DECLINE, 0, 0, 0): (
            "decline Frigga's Succor (no free warrior in Myrkulor)",
            {"offer": "succor", "area": MYR},
        ),
    }


def test_a_monster_upgrades_free_invade_costs_nothing_and_names_the_monster(g) -> None:
    s = g.state(3, [{"hand": ["troll"], "rage": 3}])
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "troll"), 0)
    assert g.prompt(s) == (PromptKind.FREE_INVADE, 0)
    got = offered(s, 0)
    assert got[(g.K.FREE_INVADE, Unit.TROLL, ANG, 0)] == (
        "free invade Troll -> Angerboda",
        {"unit": Unit.TROLL, "area": ANG, "strength": 2},
    )
    assert got[(g.K.DECLINE, 0, 0, 0)] == (
        "decline the free invade (your Troll stays in reserve)",
        {"offer": "free_invade", "unit": Unit.TROLL},
    )


def test_lokis_blessing_names_the_province_lost(g) -> None:
    s = g.state(
        4,
        [
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["leader"]}},
            {"upgrades": ["lokis_blessing"], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_smite"})
    assert g.prompt(s) == (PromptKind.BLESSING, 1)
    assert offered(s, 1) == {
        (g.K.FREE_INVADE, Unit.WARRIOR, E, 0): (
            "free invade warrior -> Elvagar",
            {"unit": Unit.WARRIOR, "area": E, "strength": 1},
        ),
        (g.K.DECLINE, 0, 0, 0): (
            "decline Loki's Blessing (no free warrior in Elvagar)",
            {"offer": "blessing", "area": E},
        ),
    }


def test_the_volur_witch_is_offered_the_retreat_from_where_she_stands(g) -> None:
    s = g.state(
        3,
        [
            {"upgrades": ["volur_witch"], "rage": 1, "figures": {"Myrkulor": ["volur_witch"]}},
            {"rage": 0},
            {"rage": 0},
        ],
        age=3,
    )
    g.act(s, 0, g.K.PASS)
    assert g.prompt(s) == (PromptKind.WITCH_RETREAT, 0)
    about = {"offer": "witch_retreat", "unit": Unit.VOLUR_WITCH, "area": YGG}
    assert offered(s, 0) == {
        (g.K.ACCEPT, 0, 0, 0): ("Volur Witch: retreat from Myrkulor to Yggdrasil", about),
        (g.K.DECLINE, 0, 0, 0): (
            "decline the Volur Witch's retreat (she stays in Myrkulor)",
            about,
        ),
    }


def test_a_late_card_and_playing_none(g) -> None:
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": ["tyrs_bash_1", "tyrs_smash_1", "heimdalls_eye"],
                "figures": {"Elvagar": ["warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_bash"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 1)
    eye = g.card(s, 1, "heimdalls_eye")
    assert offered(s, 1) == {
        (g.K.LATE_CARD, eye, 0, 0): (f"play Heimdall's Eye [#{eye}] late", {}),
        (g.K.DECLINE, 0, 0, 0): ("play no card late", {"offer": "late_card"}),
    }


def test_frigga_protection_saving_a_figure_costs_1_rage(g) -> None:
    s = g.state(
        3,
        [
            {"hand": ["tyrs_smite"], "figures": {"Angerboda": ["leader"]}},
            {"upgrades": ["friggas_protection"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_smite"})
    assert g.prompt(s) == (PromptKind.PROTECT, 1)
    assert offered(s, 1) == {
        (g.K.SAVE_FIGURE, Unit.WARRIOR, ANG, 0): (
            "pay 1 Rage to save warrior in Angerboda",
            {"rage_cost": 1},
        ),
        (g.K.DECLINE, 0, 0, 0): ("save no figure (Frigga's Protection)", {"offer": "protect"}),
    }


def test_tyrs_prowess_keeping_a_revealed_card_costs_1_rage(g) -> None:
    s = g.state(
        3,
        [
            {
                "hand": ["tyrs_bash_1"],
                "upgrades": ["tyrs_prowess"],
                "figures": {"Elvagar": ["leader"]},
            },
            {"hand": ["tyrs_smash_1"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    bash = g.card(s, 0, "tyrs_bash")
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_bash", 1: "tyrs_smash"})
    assert g.prompt(s) == (PromptKind.PROWESS, 0)
    assert offered(s, 0) == {
        (g.K.KEEP_REVEALED, bash, 0, 0): (
            f"keep Tyr's Bash [#{bash}] for 1 Rage",
            {"rage_cost": 1},
        ),
        (g.K.DECLINE, 0, 0, 0): ("keep no revealed card (Tyr's Prowess)", {"offer": "prowess"}),
    }


def test_lord_of_hammers_moving_the_leader_names_where_and_its_strength(g) -> None:
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Myrkulor": ["warrior", "warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    assert g.prompt(s) == (PromptKind.MOVE_LEADER, 0)
    got = offered(s, 0)
    assert got[(g.K.MOVE_LEADER, MYR, 0, 0)] == (
        "move leader to Myrkulor",
        {"unit": Unit.LEADER, "area": MYR, "strength": 3},
    )
    assert got[(g.K.DECLINE, 0, 0, 0)] == (
        "leave your leader where it is (Lord of Hammers)",
        {"offer": "move_leader"},
    )


def test_tyrs_challenge_costs_2_rage(g) -> None:
    s = g.state(
        3,
        [
            {"upgrades": ["tyrs_challenge"], "figures": {"Elvagar": ["leader"]}, "rage": 3},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
        pillaged=["Elvagar"],
    )
    assert offered(s, 0)[(g.K.CHALLENGE, E, 0, 0)] == (
        "Tyr's Challenge: pillage Elvagar again",
        {"rage_cost": 2},
    )


def test_frigga_domain_invades_from_valhalla_for_1_rage(g) -> None:
    """cards.md: 1 Rage instead of the usual cost, even for the Experts' STR 2 warrior."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["friggas_domain", "experts_in_arms"],
                "rage": 3,
                "figures": {"Valhalla": ["warrior"]},
            }
        ],
        age=3,
    )
    assert offered(s, 0)[(g.K.INVADE_FROM_VALHALLA, Unit.WARRIOR, E, 0)] == (
        "invade warrior from Valhalla -> Elvagar",
        {"rage_cost": 1, "unit": Unit.WARRIOR, "area": E, "strength": 2},
    )


def test_with_two_offers_queued_the_answers_are_the_first_ones(g) -> None:
    """Frigga's Succor and Thor's Domain both follow the leader's invade: the decline on
    offer is Succor's (the view's prompt), Thor's Domain waits behind it."""
    s = g.state(4, [{"upgrades": ["friggas_succor", "thors_domain"], "rage": 4}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert [p.kind for p in s.prompts] == [PromptKind.SUCCOR, PromptKind.THORS_DOMAIN]
    assert offered(s, 0)[(g.K.DECLINE, 0, 0, 0)] == (
        "decline Frigga's Succor (no free warrior in Elvagar)",
        {"offer": "succor", "area": E},
    )


def test_the_witchs_retreat_costs_nothing_whatever_rage_is_left(g) -> None:
    """She loses Angerboda's battle with 5 Rage left: retreating is free (cards.md)."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["volur_witch"],
                "rage": 5,
                "figures": {"Angerboda": ["volur_witch", "warrior"]},
            },
            {"figures": {"Angerboda": ["leader", "warrior", "warrior"]}},
        ],
        age=3,
        turn=1,
    )
    g.pillage(s, 1, ANG)
    assert g.prompt(s) == (PromptKind.WITCH_RETREAT, 0)
    about = {"offer": "witch_retreat", "unit": Unit.VOLUR_WITCH, "area": YGG}
    assert offered(s, 0) == {
        (g.K.ACCEPT, 0, 0, 0): ("Volur Witch: retreat from Angerboda to Yggdrasil", about),
        (g.K.DECLINE, 0, 0, 0): (
            "decline the Volur Witch's retreat (she stays in Angerboda)",
            about,
        ),
    }


def test_a_clan_upgrade_names_the_card_in_the_slot_it_takes(g) -> None:
    """Clan slots 1 and 2 hold Thor's Domain and Tyr's Challenge, slot 3 is empty: each
    upgrade into a full slot names the card it replaces (cards.md: 3 Clan slots)."""
    s = g.state(
        4,
        [{"upgrades": ["thors_domain", "tyrs_challenge"], "hand": ["friggas_succor"], "rage": 5}],
        age=2,
    )
    succor = g.card(s, 0, "friggas_succor")
    domain, challenge = s.clans[0].slots[5], s.clans[0].slots[6]
    assert [card_of(domain).key, card_of(challenge).key] == ["thors_domain", "tyrs_challenge"]
    got = {k: d for k, (_, d) in offered(s, 0).items() if k[0] == g.K.UPGRADE}
    base = {"rage_cost": 2, "card": succor, "slot": Slot.CLAN}
    assert got == {
        (g.K.UPGRADE, succor, 0, 0): {**base, "replaces": domain},
        (g.K.UPGRADE, succor, 1, 0): {**base, "replaces": challenge},
        (g.K.UPGRADE, succor, 2, 0): base,
    }
