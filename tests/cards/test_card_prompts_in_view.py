"""The view shows the offer a card text made (blood-rage.md §11: everyone sees whose decision
is awaited and on what): its kind, seat, source card and the facts the answer is about."""

from __future__ import annotations

from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.state import PromptKind
from engine.blood_rage.view import view

E, ANG = Area.ELVAGAR, Area.ANGERBODA


def _prompt(s, viewer=-1):
    return view(s, viewer)["prompt"]


def test_free_invade_names_the_unit(g):
    s = g.state(3, [{"hand": ["troll"]}])
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, "troll"), 0)
    assert _prompt(s) == {
        "kind": "free_invade",
        "seat": 0,
        "source": "",
        "unit": "troll",
        "queued": 0,
    }


def test_succor_and_thors_domain_name_the_area_and_queue(g):
    """Two offers at once: the view shows the first and how many wait behind it."""
    s = g.state(4, [{"upgrades": ["friggas_succor", "thors_domain"]}], age=2)
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert _prompt(s, 2) == {
        "kind": "succor",
        "seat": 0,
        "source": "friggas_succor",
        "area": "Elvagar",
        "queued": 1,
    }
    g.act(s, 0, g.K.DECLINE)
    assert _prompt(s) == {
        "kind": "thors_domain",
        "seat": 0,
        "source": "thors_domain",
        "area": "Elvagar",
        "queued": 0,
    }


def test_frigga_grace_names_the_stat_it_may_not_raise(g):
    s = g.state(
        3,
        [
            {"hand": ["friggas_grace"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "friggas_grace"})
    assert _prompt(s) == {
        "kind": "raise_stat",
        "seat": 0,
        "source": "",
        "excluded_stat": "horns",  # Elvagar's reward is Horns
        "queued": 0,
    }


def test_lord_of_axes_raise_stat_excludes_nothing(g):
    s = g.state(3, [{"upgrades": ["lord_of_axes"], "figures": {"Elvagar": ["leader"]}}], age=2)
    g.pillage(s, 0, E)
    assert _prompt(s) == {"kind": "raise_stat", "seat": 0, "source": "", "queued": 0}


def test_protection_lists_the_doomed_figures_of_its_seat_only(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_smite"], "figures": {"Angerboda": ["leader"]}},
            {
                "upgrades": ["friggas_protection"],
                "figures": {"Angerboda": ["warrior", "warrior"], "North fjord": ["ship"]},
            },
            {"figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "tyrs_smite"})
    assert g.prompt(s) == (PromptKind.PROTECT, 1)
    prompt = _prompt(s, 0)
    assert prompt["kind"] == "protect" and prompt["seat"] == 1
    assert prompt["source"] == "friggas_protection"
    assert sorted(prompt["doomed"], key=lambda d: d["unit"]) == [
        {"unit": "ship", "location": "North fjord"},
        {"unit": "warrior", "location": "Angerboda"},
        {"unit": "warrior", "location": "Angerboda"},
    ]


def test_succor_not_offered_without_a_warrior_in_reserve(g):
    """Every warrior is in Valhalla (they do not count against Horns): no free warrior."""
    s = g.state(3, [{"upgrades": ["friggas_succor"], "figures": {"Valhalla": ["warrior"] * 8}}])
    g.act(s, 0, g.K.INVADE, Unit.LEADER, E)
    assert g.prompt(s) is None and s.turn == 1


def test_battle_totals_appear_once_compared(g):
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
    g.pillage(s, 0, E)
    assert view(s)["battle"]["totals"] is None
    g.play(s, {0: "tyrs_bash", 1: "tyrs_smash"})
    assert g.prompt(s) == (PromptKind.PROWESS, 0)
    battle = view(s)["battle"]
    assert battle["totals"] == {"0": 5, "1": 4} and battle["winner"] == 0
