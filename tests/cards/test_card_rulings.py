"""The "Rulings (timing and interactions)" of cards.md, one test (or more) per ruling.

Rulings covered in the per-card files: Troll/Fire Giant on invade not march and the Fire Giant's
fjords (test_card_monsters), Dark Elf in Yggdrasil (test_card_monsters), replacing a monster
(test_card_monsters), Tyr's Challenge's second reward, Frigga's Domain's cost and Odin's Throne
(test_card_clan_upgrades), late Eye/Gaze and Heimdall's Watch's second round
(test_card_heimdall)."""

from __future__ import annotations

import pytest

from engine.blood_rage.cards import card_of
from engine.blood_rage.ids import Area, Step, Unit
from engine.blood_rage.snapshot import from_snapshot, to_snapshot
from engine.blood_rage.state import PromptKind
from engine.core.errors import IllegalActionError

E, ANG = Area.ELVAGAR, Area.ANGERBODA


# -- Order: cancel, then discard, then everything else, each clockwise from the pillager ---


@pytest.mark.parametrize("watch_seat", [0, 1])
def test_primacy_cancels_an_opponents_watch_before_it_discards(g, watch_seat):
    """Cancel comes before discard even when the Watch belongs to the pillager (seat 0)."""
    prim_seat = 1 - watch_seat
    hands = {watch_seat: ["heimdalls_watch", "tyrs_crush"], prim_seat: ["thors_primacy"]}
    s = g.state(
        3,
        [
            {"hand": hands[0], "figures": {"Elvagar": ["leader"]}},
            {"hand": hands[1], "figures": {"Elvagar": ["warrior", "warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {watch_seat: "heimdalls_watch", prim_seat: "thors_primacy"})
    assert len(g.events(s, "battle_revealed")) == 1, "no second round of cards"
    strength = {0: 3, 1: 2}
    assert g.result(s) == (
        prim_seat,
        {watch_seat: strength[watch_seat], prim_seat: strength[prim_seat] + 3},
    )
    assert s.clans[watch_seat].glory == 0, "the cancelled Watch pays no Glory"
    assert g.hand(s, watch_seat) == ["heimdalls_watch", "tyrs_crush"]
    assert g.discard(s) == ["thors_primacy"]


# -- A cancellation holds for one reveal (decision, issue 30 gap 12) -------------------------


def _watch_then_primacy(g):
    """Age 3. Round 1: seat 0 (pillager, Heimdall's Watch) against seat 1's Tyr's Crush:
    the Watch discards both and pays 0 + 4 Glory. Round 2: seat 0 reveals Thor's Ascension
    and seat 1 Thor's Primacy; seat 0 still holds Heimdall's Gaze (offered after the
    reveal) and owns Frigga's Protection (asked when it loses)."""
    s = g.state(
        3,
        [
            {
                "upgrades": ["friggas_protection"],
                "hand": ["heimdalls_watch_3", "thors_ascension", "heimdalls_gaze"],
                "figures": {"Elvagar": ["leader"]},
            },
            {
                "hand": ["tyrs_crush_3", "thors_primacy"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "tyrs_crush"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 0)
    g.act(s, 0, g.K.DECLINE)  # the Gaze waits for the second round
    assert g.glory(s)[:2] == [4, 0] and g.view(s)["battle"]["reveal_round"] == 1
    assert g.awaiting(s) == [0, 1], "the second round's cards"
    return s


def test_a_primacy_of_the_second_reveal_cancels_that_reveals_cards(g):
    """The second round's Primacy cancels the texts of the second round's opposing cards
    (Thor's Ascension), and the view lists those: what the first round revealed is gone."""
    s = _watch_then_primacy(g)
    g.play(s, {0: "thors_ascension", 1: "thors_primacy"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 0)
    ascension = s.battle.played[0][0]
    battle = g.view(s)["battle"]
    assert battle["reveal_round"] == 2 and battle["cancelled"] == []
    g.act(s, 0, g.K.DECLINE)
    assert g.prompt(s) == (PromptKind.PROTECT, 0), "seat 0 lost: 3 + 1 against 2 + 3"
    battle = g.view(s)["battle"]
    assert [c["instance"] for c in battle["cancelled"]] == [ascension]
    assert battle["totals"] == {"0": 4, "1": 5} and battle["winner"] == 1


def test_a_new_reveal_starts_without_the_cancellations_of_the_one_before(g):
    """**Decision**: a cancellation holds for the reveal it was made in. Thor's Primacy
    cancels "every opponent's revealed card": the cards revealed with it, which Heimdall's
    Watch discards; the cards of a new reveal are new. With the printed cards no game
    reaches a new reveal after a cancellation (a Primacy cancels every opponent's Watch,
    cards.md; seed 003: "la Primacía de Thor triunfa ... incluso la Guardia de Heimdall";
    and nobody reveals both), so the position is written into a snapshot, the engine's
    format for a game it restores: the first round's Crush marked cancelled, then the
    second round revealed. That reveal starts with no cancellation."""
    s = _watch_then_primacy(g)
    crush = next(c for c in s.discard if card_of(c).key == "tyrs_crush")
    data = to_snapshot(s)
    data["battle"]["cancelled"] = [crush]
    del data["hash"]
    s = from_snapshot(data)
    assert [c["instance"] for c in g.view(s)["battle"]["cancelled"]] == [crush]
    g.play(s, {0: "thors_ascension", 1: "thors_primacy"})
    assert g.prompt(s) == (PromptKind.LATE_CARD, 0)
    assert g.view(s)["battle"]["cancelled"] == [], "the old cancellation is gone"
    g.act(s, 0, g.K.DECLINE)
    cancelled = g.view(s)["battle"]["cancelled"]
    assert [c["card"] for c in cancelled] == ["thors_ascension_3"]


def test_discard_comes_before_the_pillagers_smite(g):
    """Seat 0 (pillager) reveals Odin's Smite, seat 1 Heimdall's Watch: the Watch (discard
    group) resolves first and the Smite is discarded before it can destroy anything."""
    s = g.state(
        3,
        [
            {"hand": ["odins_smite_1", "tyrs_crush"], "figures": {"Elvagar": ["leader"]}},
            {
                "hand": ["heimdalls_watch", "tyrs_bash_1"],
                "figures": {"Elvagar": ["warrior", "warrior"]},
            },
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "odins_smite", 1: "heimdalls_watch"})
    assert s.step == Step.BATTLE_CARDS
    assert g.at(s, 1, E) == ["warrior", "warrior"] and g.valhalla(s, 1) == []
    assert s.clans[1].glory == 1
    g.play(s, {0: "tyrs_crush", 1: "tyrs_bash"})
    assert g.result(s) == (0, {0: 7, 1: 4})


def _tide_vs_smite(g, pillager):
    s = g.state(
        3,
        [
            {"hand": ["odins_tide"], "figures": {"Angerboda": ["leader", "warrior"]}},
            {"hand": ["odins_smite_1"], "figures": {"Angerboda": ["warrior", "warrior"]}},
        ],
        age=2,
        turn=pillager,
    )
    g.pillage(s, pillager, ANG)
    g.play(s, {0: "odins_tide", 1: "odins_smite"})
    return s


def test_other_texts_clockwise_from_the_pillager_tide_first(g):
    """Seat 0 pillages: its Tide resolves before seat 1's Smite. Seat 0 keeps its warrior,
    which the Smite then destroys: seat 0 fights on with its card alone (ruling: a clan that
    loses its last figure to Smite/Tide stays in the battle)."""
    s = _tide_vs_smite(g, 0)
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 0)
    g.act(s, 0, g.K.KEEP_FIGURE, Unit.WARRIOR, ANG)
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 1)
    g.act(s, 1, g.K.KEEP_FIGURE, Unit.WARRIOR, ANG)
    assert g.result(s) == (1, {0: 0 + 1, 1: 1 + 1})
    assert g.valhalla(s, 0) == ["leader", "warrior"]
    assert g.hand(s, 0) == ["odins_tide"], "still a loser of this battle: card back"


def test_other_texts_clockwise_from_the_pillager_smite_first(g):
    """Seat 1 pillages: its Smite kills seat 0's only warrior first, so the Tide leaves seat 0
    (one figure left) alone and only seat 1 chooses."""
    s = _tide_vs_smite(g, 1)
    assert g.valhalla(s, 0) == ["warrior"]
    assert g.prompt(s) == (PromptKind.TIDE_KEEP, 1)
    g.act(s, 1, g.K.KEEP_FIGURE, Unit.WARRIOR, ANG)
    assert g.result(s) == (0, {1: 1 + 1, 0: 3 + 1})
    assert g.at(s, 0, ANG) == ["leader"]


# -- Heimdall's Sight at its revealed value in the Watch's total ---------------------------


def test_sight_counts_its_revealed_value_in_the_watch_total(g):
    s = g.state(
        3,
        [
            {"hand": ["heimdalls_watch", "tyrs_rage"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["heimdalls_sight_1"], "figures": {"Elvagar": ["warrior"]}},
            {"hand": ["tyrs_crush"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "heimdalls_watch", 1: "heimdalls_sight", 2: "tyrs_crush"})
    assert s.clans[0].glory == 0 + 4 + 4, "Watch 0 + Sight (= Crush) 4 + Crush 4"
    assert g.awaiting(s) == [0]
    g.play(s, {0: "tyrs_rage"})
    assert g.result(s) == (0, {0: 9, 1: 1, 2: 1})
    assert s.clans[0].glory == 8 + 3


# -- Tyr's Prowess before Loki's Trickery (seed 003; the 2015 FAQ said the reverse) ----------


def _prowess_trickery(g, rage, hand=("tyrs_crush",), played=("tyrs_crush",), trickery=True):
    """Seat 0 (Tyr's Prowess, ``rage`` Rage) wins in Elvagar against seat 1, who played
    Loki's Trickery (or Tyr's Smash when ``trickery`` is False)."""
    loser_card = "lokis_trickery_1" if trickery else "tyrs_smash_1"
    s = g.state(
        3,
        [
            {
                "upgrades": ["tyrs_prowess"],
                "hand": list(hand),
                "rage": rage,
                "figures": {"Elvagar": ["leader", "warrior", "warrior"]},
            },
            {"hand": [loser_card], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: played[0], 1: loser_card})
    assert g.result(s)[0] == 0
    return s


def test_prowess_spends_its_rage_before_trickery_takes_any(g):
    """With 1 Rage the winner keeps its card; Trickery then finds no Rage to take."""
    s = _prowess_trickery(g, rage=1)
    assert g.prompt(s) == (PromptKind.PROWESS, 0), "Prowess is offered before Trickery acts"
    assert g.rage(s)[:2] == [1, 6], "Trickery has not taken anything yet"
    g.act(s, 0, g.K.KEEP_REVEALED, s.battle.played[0][0])
    assert g.rage(s)[:2] == [0, 6], "nothing was left for Trickery"
    assert g.hand(s, 0) == ["tyrs_crush"] and g.discard(s) == []


def test_trickery_takes_1_of_the_rage_prowess_left(g):
    s = _prowess_trickery(g, rage=2)
    g.act(s, 0, g.K.KEEP_REVEALED, s.battle.played[0][0])
    assert g.rage(s)[:2] == [0, 7], "Prowess paid 1, Trickery took the last 1"
    assert g.hand(s, 0) == ["tyrs_crush"]


def test_trickery_takes_1_when_prowess_is_declined(g):
    s = _prowess_trickery(g, rage=1)
    g.act(s, 0, g.K.DECLINE)
    assert g.rage(s)[:2] == [0, 7]
    assert g.discard(s) == ["tyrs_crush"] and g.hand(s, 0) == []


def test_prowess_without_trickery_leaves_the_loser_alone(g):
    s = _prowess_trickery(g, rage=1, trickery=False)
    g.act(s, 0, g.K.KEEP_REVEALED, s.battle.played[0][0])
    assert g.rage(s)[:2] == [0, 6]


def test_trickery_cancelled_by_primacy_takes_nothing_after_prowess(g):
    s = _prowess_trickery(g, rage=2, hand=("thors_primacy",), played=("thors_primacy",))
    g.act(s, 0, g.K.DECLINE)
    assert g.rage(s)[:2] == [2, 6], "a cancelled Trickery never acts"


# -- Loki's Poison beats Tyr's Prowess -----------------------------------------------------


def test_poison_takes_the_cards_prowess_cannot_keep_them(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["tyrs_prowess"],
                "hand": ["tyrs_rage"],
                "rage": 5,
                "figures": {"Elvagar": ["leader"]},
            },
            {"hand": ["lokis_poison"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_rage", 1: "lokis_poison"})
    assert g.result(s) == (0, {0: 9, 1: 1})
    assert g.prompt(s) is None
    assert g.hand(s, 1) == ["lokis_poison", "tyrs_rage"] and g.hand(s, 0) == []
    assert s.clans[0].rage == 5 and g.discard(s) == []


# -- A clan whose last figure dies to Odin's Smite stays in and can win --------------------


def test_defender_losing_last_figure_to_smite_wins_on_its_card(g):
    s = g.state(
        3,
        [
            {"hand": ["odins_smite"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "odins_smite", 1: "tyrs_smite"})
    assert g.result(s) == (1, {0: 4, 1: 0 + 5})
    assert g.valhalla(s, 1) == ["warrior"] and g.valhalla(s, 0) == ["leader"]
    assert s.clans[1].glory == 3 and not s.pillaged[E]
    assert g.discard(s) == ["tyrs_smite"] and g.hand(s, 0) == ["odins_smite"]


def test_pillager_losing_last_figure_to_smite_still_pillages(g):
    s = g.state(
        3,
        [
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["warrior"]}},
            {"hand": ["odins_smite"], "figures": {"Elvagar": ["leader"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "tyrs_smite", 1: "odins_smite"})
    assert g.result(s) == (0, {0: 5, 1: 4})
    assert g.at(s, 0, E) == [] and s.pillaged[E]
    assert g.steps(s, 0) == [1, 1, 2] and s.clans[0].glory == 3


# -- Frigga's Grace: a different stat from the reward's -------------------------------------


def test_friggas_grace_may_not_raise_the_rewards_stat(g):
    s = g.state(
        3,
        [
            {"hand": ["friggas_grace"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {0: "friggas_grace"})
    assert g.A(g.K.RAISE_STAT, g.HORNS) not in g.legal(s, 0)
    before = s.state_hash()
    with pytest.raises(IllegalActionError):
        g.act(s, 0, g.K.RAISE_STAT, g.HORNS)
    assert s.state_hash() == before
    g.act(s, 0, g.K.RAISE_STAT, g.AXES)
    assert g.steps(s, 0) == [1, 2, 2]


# -- "Everything else" includes the win/lose texts: clockwise from the pillager ------------


@pytest.mark.parametrize(
    "card,rage,glory",
    [
        ("thors_hammer_1", 6, 3 + 3),  # Gain 3 Glory if you win
        ("thors_ascension", 6 + 3, 3 + 3),  # If you win, gain 3 Rage and 3 Glory
        ("odins_judgement", 6, 2 + 3),  # 2 Glory per figure destroyed (one warrior)
    ],
)
def test_pillagers_win_text_resolves_before_the_losers_poison(g, card, rage, glory):
    """The pillager's text comes first in the "everything else" group (cards.md Rulings:
    "inside each group, start with the pillager and go clockwise"); the loser's Loki's Poison
    then takes the card into its hand. The win text must not be lost."""
    s = g.state(
        3,
        [
            {"hand": [card], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_poison"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: card.removesuffix("_1"), 1: "lokis_poison"})
    assert g.result(s)[0] == 0
    assert g.hand(s, 1) == sorted(["lokis_poison", card.removesuffix("_1")])
    assert (s.clans[0].rage, s.clans[0].glory) == (rage, glory)


def test_pillagers_hammer_resolves_before_the_losers_backstab(g):
    """Pillager (0 Glory) wins with Thor's Hammer: the Hammer's 3 Glory comes first, then the
    loser's Backstab takes 2 of them; the Axes Glory is the rules' last step (blood-rage.md §5
    Resolution)."""
    s = g.state(
        3,
        [
            {"hand": ["thors_hammer_1"], "figures": {"Angerboda": ["leader"]}},
            {"hand": ["lokis_backstab"], "figures": {"Angerboda": ["warrior"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    g.play(s, {0: "thors_hammer", 1: "lokis_backstab"})
    assert g.result(s)[0] == 0
    assert g.glory(s)[:2] == [3 - 2 + 3, 2]


# -- Thor's Domain is offered once per invade (found by mutation testing) ------------------


def test_succors_warrior_is_not_offered_thors_domain_again(g):
    """The leader's invade of Elvagar offers Frigga's Succor and Thor's Domain; Succor's
    free warrior joins that invade and brings no second Thor's Domain. Before, it did: with
    4 Rage the clan accepted both and paid 4 Rage for one pillage (and with 3 the second
    offer asked 2 Rage it could no longer pay)."""
    s = g.state(4, [{"upgrades": ["friggas_succor", "thors_domain"], "rage": 4}], age=2)
    s.events = []
    g.act(s, 0, g.K.INVADE, Unit.LEADER, Area.ELVAGAR)
    assert [(p.kind, p.a) for p in s.prompts] == [
        (PromptKind.SUCCOR, Area.ELVAGAR),
        (PromptKind.THORS_DOMAIN, Area.ELVAGAR),
    ]
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, Area.ELVAGAR)
    assert [(p.kind, p.a) for p in s.prompts] == [(PromptKind.THORS_DOMAIN, Area.ELVAGAR)]
    g.act(s, 0, g.K.ACCEPT)
    assert s.clans[0].rage == 2
    assert len(g.events(s, "pillage_started")) == 1
    assert g.at(s, 0, Area.ELVAGAR) == ["leader", "warrior"]
