"""Fire & Axe in the terminal at 80×24: every position of random five-player games fits (the
board with every port, the seats, the Sagas, the tracks, the demo pack said plainly, the
decision, every action reachable a page at a time), labels and events say what they mean,
the help fits, ``c`` shows the Runes, and a person plays through the CLI's PlaySession against
bots on a served game to its end."""

from __future__ import annotations

import random
import re

import pytest

from clients.fire_and_axe.names import Catalog
from clients.fire_and_axe.render import (
    action_labels,
    card_details,
    describe_event,
    render_result,
    to_text,
    view_text,
)
from clients.fire_and_axe.screen import help_screen, render_screen, rows_of
from clients.fire_and_axe.terminal import TERMINAL
from engine.core.contract import SPECTATOR
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.scenario import from_scenario
from engine.fire_and_axe.state import GameState, Step
from protocol.fire_and_axe.wire import WIRE
from tests.fire_and_axe.fae_client_support import catalog, play_until, view_of
from yggdrasil.v1 import game_pb2 as gp

WIDTH, HEIGHT = 80, 24
ROWS = HEIGHT - 1  # the input line
COLOURS = ("Red", "Blue", "Yellow", "Green", "Purple")
CATALOG = catalog()
PORT_SHORTS = ("Reykja", "Kiev4", "Consta", "Lindis", "Faroe", "Rome5")


def _screens(view: gp.View, events: list[str] | None = None) -> list[str]:
    first = render_screen(view, CATALOG, width=WIDTH, height=ROWS, events=events or [])
    pages = [first]
    for page in range(1, first.pages):
        pages.append(
            render_screen(view, CATALOG, width=WIDTH, height=ROWS, events=events or [], page=page)
        )
    assert [s.page for s in pages] == list(range(first.pages))
    return [to_text(s.renderable, WIDTH) for s in pages]


def _numbers_on(text: str) -> set[int]:
    """Action numbers as the action lines write them (``3 Kiev``, ``→ 3 …``, ``· 3 …``)."""
    found = set()
    for line in text.splitlines():
        for match in re.finditer(r"(?:^|→ |· )(\d+) ", line):
            found.add(int(match.group(1)))
    return found


def _check_fits(view: gp.View, events: list[str] | None = None) -> list[str]:
    texts = _screens(view, events)
    numbers: set[int] = set()
    for text in texts:
        lines = text.splitlines()
        assert len(lines) <= ROWS, text
        assert all(len(line) <= WIDTH for line in lines), text
        assert "DEMO PACK" in text and "NOT the published game" in text
        assert "Days " in text and "Wind " in text and "Demand " in text
        for zone in ("N│", "E│", "S│", "W│"):  # the board, every zone
            assert zone in text, text
        for port in PORT_SHORTS:
            assert port in text, (port, text)
        assert "Tu/Fi/Fu" in text and "Sagas" in text
        for seat in range(len(view.seats)):
            assert re.search(rf"^[ ▶]\s+{COLOURS[seat]}(?![a-z])", text, re.MULTILINE), text
        if view.legal_actions:
            assert "YOUR DECISION" in text
            numbers |= _numbers_on(text)
    if view.legal_actions:
        assert numbers == set(range(1, len(view.legal_actions) + 1)), texts
    return texts


def _random_positions(players: int, seed: int, count: int) -> list[GameState]:
    """``count`` positions of a random game, about one in 60 decisions (each a copy): from the
    set-up deep into the game (random games take about 10,000 decisions)."""
    state = RULES.new_game(RULES.options(players, seed, {"rune_timing": "any_time"}))
    rng = random.Random(seed)
    out = []
    while len(out) < count and RULES.result(state) is None:
        seat = RULES.awaiting(state)[0]
        if rng.random() < 1 / 60:
            out.append(state.copy())
        RULES.apply_unchecked(state, seat, rng.choice(RULES.legal_actions(state, seat)))
    return out


def test_every_position_of_random_five_player_games_fits_80_by_24() -> None:
    steps: set[int] = set()
    ages: set[int] = set()
    for seed in (1, 2):
        for state in _random_positions(5, seed, 40):
            seat = RULES.awaiting(state)[0]
            steps.add(state.step)
            ages.add(state.age)
            events = [f"Red sails Faroe → North Sea (Day {i})" for i in range(4)]
            _check_fits(view_of(state, seat), events)
            _check_fits(view_of(state, SPECTATOR))
    # Rune windows and later Ages came up (paging: the next test).
    assert {Step.MAIN, Step.WINDOW} <= steps and len(ages) > 1, (steps, ages)


def test_a_long_menu_is_paged_and_the_latest_event_stays() -> None:
    text = """
    {"players": 5, "seed": 3, "turn": 0, "first_player": 0,
     "seats": [{"location": "Kiev", "crew": 2, "goods": {"tusk": 1, "fur": 1},
                "hand": ["change-of-demand", "hidden-cargo", "plunder"]},
               {"location": "Lyubech", "crew": 3, "goods": {"fish": 2}},
               {"location": "Gnezdovo", "crew": 2, "goods": {"fur": 1}},
               {"location": "wintering"}, {"location": "wintering"}]}
    """
    state = from_scenario(text)
    view = view_of(state, 0)
    assert len(view.legal_actions) > 30
    events = [f"Blue trades fish at Lyubech (event {i})" for i in range(6)]
    texts = _check_fits(view, events)
    assert len(texts) > 1
    assert "m: more" in texts[0] and "m: first page" in texts[-1]
    assert "(event 5)" in texts[0]
    whole = "\n".join(texts)
    # Runes by name, with what each choice means: goods, a seat's goods, the dial.
    assert "play Change of Demand → " in whole and "fur" in whole
    assert re.search(r"play Plunder \(demo\) → .*Blue's fish", whole)
    assert "dial ↻" in whole and "dial ↺" in whole
    assert re.search(r"trade → \d+ tusk \(4 VP\)", whole)


def test_labels_say_what_a_sail_costs_and_what_a_trade_brings() -> None:
    # Yellow in the North Sea with 6 Sailing Days spent; the North's Fair Weather Days are 2
    # at set-up (F3.3): a Sail into the North covers the skulls at 1 and 3 (two items).
    text = """
    {"players": 3, "seed": 1, "turn": 2, "first_player": 0, "days": {"sailing": 4},
     "demand": "fur",
     "seats": [{"location": "wintering"}, {"location": "wintering"},
               {"location": "Faroe", "crew": 3, "goods": {"fur": 1, "fish": 1}}]}
    """
    state = from_scenario(text)
    labels = action_labels(view_of(state, 2), CATALOG)
    north = [label for label in labels if label.startswith("sail ") and "☠" in label]
    assert north, labels
    assert any(label == "trade fur (2 +2 VP)" for label in labels), labels
    assert any(label == "trade fish (2 VP)" for label in labels), labels


def test_the_demo_pack_is_said_plainly_and_another_pack_by_its_name() -> None:
    state = play_until(3, 4, lambda s: s.turns >= 2)
    text = view_text(view_of(state, 0), CATALOG, width=120)
    assert "DEMO PACK: invented board and cards, NOT the published game" in text
    view = view_of(state, 0)
    view.fire_and_axe.pack.demo = False
    view.fire_and_axe.pack.name = "My own copy"
    text = view_text(view, CATALOG, width=120)
    assert "DEMO PACK" not in text and "pack My own copy" in text


def test_without_a_catalog_places_and_cards_read_as_numbers() -> None:
    state = play_until(3, 5, lambda s: s.turns >= 3)
    view = view_of(state, RULES.awaiting(state)[0])
    text = view_text(view, Catalog(), width=100)
    assert "YOUR DECISION" in text and "#" in text


def test_events_say_what_happened_and_why() -> None:
    """Every event of a random game gets a line of its own words (no fallback), with the
    pack's names; a drawn card is named to its drawer only."""
    state = RULES.new_game(RULES.options(4, 9, {}))
    state.events = []
    rng = random.Random(9)
    kinds: set[str] = set()
    lines: list[str] = []
    for _ in range(3000):
        if RULES.result(state) is not None:
            break
        seat = RULES.awaiting(state)[0]
        before = WIRE.public_facts(state)
        state.events = []
        RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))
        for converted in WIRE.convert_events(state.events, before, WIRE.public_facts(state)):
            for event in (converted.full, converted.public):
                if event is None:
                    continue
                kind = event.fire_and_axe.WhichOneof("kind")
                assert kind is not None
                kinds.add(kind)
                line = describe_event(event, {0: "ann"}, CATALOG)
                assert kind.replace("_", " ") not in line, line  # no fallback
                lines.append(line)
    assert {"sailed", "loaded", "turn_ended", "rune_drawn", "vp_changed"} <= kinds
    text = "\n".join(lines)
    assert "Red (ann)" in text
    assert re.search(r"draws a Rune: .+ \(\d in hand\)", text)  # the drawer's copy
    assert re.search(r"draws a Rune \(\d in hand\)", text)  # everyone else's


def test_the_services_own_events_are_said_too() -> None:
    """A seat's first screen begins with the service's events (its seat claimed, the game
    started), not with a line saying the client does not know them."""
    names = {0: "ann"}
    claimed = gp.Event(seat_claimed=gp.SeatClaimed(seat=1, name="bo"))
    assert describe_event(claimed, names) == "bo took seat 1 (Blue)"
    started = gp.Event(status_changed=gp.StatusChanged(status=gp.GAME_STATUS_IN_PROGRESS))
    assert describe_event(started, names) == "The game is now in progress"
    late = gp.Event(timed_out=gp.DecisionTimedOut(seat=0))
    assert describe_event(late, names) == "Red (ann) ran out of time"
    ended = gp.Event(game_ended=gp.GameEnded(result=gp.GameResult(winners=[0, 2])))
    assert describe_event(ended, names) == "Game over. Winner(s): Red (ann), Yellow"
    aborted = gp.Event(game_aborted=gp.GameAborted(reason="idle"))
    assert describe_event(aborted, names) == "The game was aborted (idle)"
    assert describe_event(gp.Event(), names) == "(an event this client does not know)"


def test_help_and_own_cards_fit_80_by_24() -> None:
    text = to_text(help_screen(), WIDTH)
    assert rows_of(help_screen(), WIDTH) <= ROWS - 1
    for needed in ("N│", "t T", "⌂R", "@B", "☠2", "▲", "Days", "m "):
        assert needed in text, needed
    state = from_scenario(
        '{"players": 2, "seed": 1, "seats": [{"location": "Kiev", "crew": 2, '
        '"hand": ["change-of-demand", "berserkers"]}, {"location": "wintering"}]}'
    )
    cards = card_details(view_of(state, 0), CATALOG)
    assert cards is not None
    shown = to_text(cards, WIDTH)
    assert "Change of Demand" in shown and "Berserkers (demo)" in shown
    assert "invented cards" in shown
    assert card_details(view_of(state, 1), CATALOG) is None


def test_the_result_names_the_winner_and_the_tallies() -> None:
    state = play_until(3, 6, lambda s: RULES.result(s) is not None, limit=60_000)
    view = view_of(state, 0, status=gp.GAME_STATUS_FINISHED)
    result = gp.GameResult()
    WIRE.fill_result(RULES.result(state), RULES.view(state, SPECTATOR), result)
    r = RULES.result(state)
    assert r is not None
    for seat in range(3):
        entry = result.seats.add()
        entry.seat = seat
        entry.score = r.scores[seat]
        entry.rank = r.ranks[seat]
        entry.winner = seat in r.winners
    text = to_text(render_result(result, {0: "ann"}), WIDTH)
    assert "WINNER" in text and "ann" in text and "Sagas D/N/S" in text
    view.result.CopyFrom(result)
    assert "WINNER" in view_text(view, CATALOG, width=100)
    assert TERMINAL.seat_name(4) == "Purple"


@pytest.mark.parametrize("seat", [0, 1])
def test_the_terminal_kit_draws_through_the_registry(seat: int) -> None:
    from clients.games import kit

    terminal = kit("fire_and_axe").terminal
    state = play_until(2, 8, lambda s: s.turns >= 2)
    view = view_of(state, seat)
    screen = terminal.render_screen(view, CATALOG, width=WIDTH, height=ROWS)
    assert rows_of(screen.renderable, WIDTH) <= ROWS


def test_what_is_under_way_is_said() -> None:
    from tests.fire_and_axe.fae_support import K, act, loc, seats
    from tests.fire_and_axe.fae_support import scenario as fae_scenario

    s = fae_scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 3, "goods": {"fish": 1, "fur": 1}}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    text = view_text(view_of(s, 0), CATALOG, width=120)
    assert "Weather: 1 item(s) to lose now" in text
    assert "lose → " in text and "fish" in text
    act(s, K.LOSE, 1)
    text = view_text(view_of(s, 0), CATALOG, width=120)
    assert "Losses chart: 1 fish" in text and "skulls covered 1" in text
