"""Data packs: the validator's errors (each names the file, the entry and the fault), the
digest, the registry of known packs, and the demo pack's honesty about what is invented."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from engine.core.errors import OptionsError
from engine.fire_and_axe import data_pack
from engine.fire_and_axe.__main__ import main, validate_command
from engine.fire_and_axe.data_pack import DataPackError, demo_pack, parse, validate_file
from engine.fire_and_axe.effect_kinds import EFFECT_KINDS
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.rune_effects import EFFECTS
from engine.fire_and_axe.snapshot import SnapshotError, from_snapshot, to_snapshot

DEMO_TEXT = resources.files("engine.fire_and_axe").joinpath("demo_pack.toml").read_text("utf-8")


def problems(text: str, source: str = "my-pack.toml") -> list[str]:
    with pytest.raises(DataPackError) as info:
        parse(text, source)
    assert str(info.value).startswith(f"{source}: ")
    return info.value.problems


def edit(old: str, new: str, count: int = 1) -> str:
    assert old in DEMO_TEXT, old
    return DEMO_TEXT.replace(old, new, count)


def block(kind: str, ident: str) -> str:
    """The TOML of one [[kind]] entry of the demo pack."""
    start = DEMO_TEXT.index(f'[[{kind}]]\nid = "{ident}"')
    end = DEMO_TEXT.find("\n[[", start + 1)
    return DEMO_TEXT[start : end if end > 0 else len(DEMO_TEXT)]


def test_the_demo_pack_is_valid() -> None:
    pack = parse(DEMO_TEXT, "demo")
    assert pack.digest == demo_pack().digest and len(pack.digest) == 64


def test_not_toml() -> None:
    assert problems("format = 1\n[pack\n")[0].startswith("not valid TOML")


def test_unknown_format_is_refused() -> None:
    assert problems(edit("format = 1", "format = 2")) == [
        "format: 2 is not a pack format this engine reads [1]"
    ]


def test_unknown_keys_are_refused() -> None:
    found = problems(edit("[pack]\n", "colour = 'red'\n[pack]\n"))
    assert any(p.startswith("top level: unknown key 'colour'") for p in found)
    found = problems(edit('name = "Faroe"\n', 'name = "Faroe"\nvalu = 2\n'))
    assert any(p.startswith("location 'faroe': unknown key 'valu'") for p in found)


def test_an_unknown_port_in_a_saga() -> None:
    found = problems(edit('ports = ["lindisfarne"]', 'ports = ["lindisfarn"]'))
    assert found == ["saga 'i-lindisfarne': unknown port 'lindisfarn'"]


def test_a_saga_listing_a_water_space() -> None:
    found = problems(edit('ports = ["lindisfarne"]', 'ports = ["w-north-sea"]'))
    assert found == ["saga 'i-lindisfarne': 'w-north-sea' is a water, not a port"]


def test_a_raid_saga_needs_towns() -> None:
    found = problems(edit('ports = ["lindisfarne"]', 'ports = ["nantes"]'))
    assert found == [
        "saga 'i-lindisfarne': raid Saga lists 'nantes', which has no town at set-up (no "
        "star): it could never be completed"
    ]


def test_adjacency_to_nowhere() -> None:
    found = problems(edit('["iona", "w-irish-sea"]', '["iona", "w-irish-se"]'))
    assert "adjacency to nowhere: 'w-irish-se' is no location" in found[0]
    assert found[0].startswith("map edge #")
    assert "location 'iona': is adjacent to nothing" in found


def test_duplicate_and_self_edges() -> None:
    found = problems(edit('["iona", "w-irish-sea"]', '["iona", "w-irish-sea"], ["iona", "iona"]'))
    assert any("a location is not adjacent to itself" in p for p in found)
    found = problems(
        edit('["iona", "w-irish-sea"]', '["iona", "w-irish-sea"], ["w-irish-sea", "iona"]')
    )
    assert any("duplicate edge" in p for p in found)


def test_a_zone_no_water_of_the_port_has() -> None:
    found = problems(
        edit(block("location", "iona"), block("location", "iona").replace("west", "east"))
    )
    assert found == [
        "location 'iona': zone 'east' is the zone of none of its water spaces (['west'], F2.3)"
    ]


def test_a_disconnected_island_is_reported() -> None:
    island = (
        block("location", "iona")
        .replace('"iona"', '"atlantis"', 1)
        .replace('name = "Iona"', 'name = "Atlantis"')
    )
    island = island.replace('region = "hebrides"\n', "")
    island = re.sub(r"rulebook = .*\n", "", island)
    water = '[[location]]\nid = "w-lost"\nname = "Lost Sea"\nkind = "water"\nzone = "west"\n\n'
    text = edit("# --- ports of the North", water + island + "\n# --- ports of the North")
    text = text.replace(
        '["iona", "w-irish-sea"],', '["iona", "w-irish-sea"], ["atlantis", "w-lost"],'
    )
    found = problems(text)
    assert found == ["map: cannot be reached from 'denmark': ['w-lost', 'atlantis']"]


def test_an_unknown_effect_kind() -> None:
    found = problems(edit('{ kind = "gain_vp", amount = 2 }', '{ kind = "steal_vp", amount = 2 }'))
    assert len(found) == 1
    assert found[0].startswith("rune 'skalds-tale' effect #1: unknown effect kind 'steal_vp'")
    assert "change_demand" in found[0]


def test_effect_parameters() -> None:
    found = problems(edit('{ kind = "gain_vp", amount = 2 }', '{ kind = "gain_vp", amount = 99 }'))
    assert found == ["rune 'skalds-tale' effect #1: gain_vp: amount must be in 1..10, not 99"]
    found = problems(edit('{ kind = "gain_vp", amount = 2 }', '{ kind = "gain_vp", amont = 2 }'))
    assert found == [
        "rune 'skalds-tale' effect #1: gain_vp takes no parameter 'amont' (it takes: ['amount'])"
    ]
    found = problems(
        edit('{ kind = "days_back", marker = "sailing", days = 2 }', '{ kind = "days_back" }')
    )
    assert found == ["rune 'long-day' effect #1: days_back needs 'marker'"]
    found = problems(edit('marker = "sailing"', 'marker = "rowing"'))
    assert "marker must be one of ['sailing', 'preparation'], not 'rowing'" in found[0]


def test_effect_timing_and_place_limits() -> None:
    long_day = block("rune", "long-day")
    found = problems(edit(long_day, long_day.replace('when = "own_turn"', 'when = "any"')))
    assert found == [
        "rune 'long-day': days_back acts on its player's own turn: the card needs when = 'own_turn'"
    ]
    second = block("rune", "second-wind")
    found = problems(edit(second, second.replace('where = "port"', 'where = "map"')))
    assert found == [
        "rune 'second-wind': extra_task acts at the ship's port: the card needs where = 'port'"
    ]


def test_two_choosing_effects_on_one_card() -> None:
    found = problems(
        edit(
            'effects = [{ kind = "change_demand" }]',
            'effects = [{ kind = "change_demand" }, { kind = "gain_goods" }]',
        )
    )
    assert found == [
        "rune 'change-of-demand': at most one effect may ask for a choice, not "
        "['change_demand', 'gain_goods']"
    ]


def test_rune_counts_that_do_not_add_up() -> None:
    found = problems(edit("count = 3\nconflict = false", "count = 4\nconflict = false"))
    assert found == ["rune: the counts add up to 34 cards: the game has 33"]
    ambush = block("rune", "ambush")
    found = problems(edit(ambush, ambush.replace("conflict = true", "conflict = false")))
    assert found == ["rune: 6 cards carry the conflict symbol: the game has 9"]


def test_saga_counts_that_do_not_add_up() -> None:
    found = problems(edit(block("saga", "i-lindisfarne"), ""))
    assert found == [
        "saga: 26 Saga cards: the game has 27",
    ]
    text = DEMO_TEXT
    for ident in ("i-lindisfarne", "i-bayeux", "i-island-trade", "i-baltic-trade"):
        text = text.replace(
            block("saga", ident), block("saga", ident).replace("age = 1", "age = 2")
        )
    found = problems(text)
    assert found == [
        "saga: Age 1 has 5 Saga card(s): set-up removes 3 per Age and reveals 3 of Age I, so "
        "it needs at least 6 (F3.4)"
    ]


def test_regions_of_three_and_star_counts() -> None:
    found = problems(
        edit('region = "iceland"\nrulebook = ["name", "region"]', 'rulebook = ["name"]')
    )
    assert found == [
        "region 'iceland': has 2 port(s) ['reykjanes', 'eyjafjordur']: a region has exactly "
        "3 (F2.5)"
    ]
    found = problems(
        edit('value = 2\nstars = 1\nregion = "iceland"', 'value = 2\nregion = "iceland"')
    )
    assert found == [
        "location: 11 ports with 1 star(s): the game has 12 small towns, one per such port (F3.2)",
        "saga 'ii-northern-raids': raid Saga lists 'horn', which has no town at set-up (no "
        "star): it could never be completed",
    ]
    paris = block("location", "paris")
    found = problems(edit(paris, paris.replace("stars = 3", 'stars = 3\nregion = "frankia"')))
    assert (
        "location 'paris': a large port (3 stars) belongs to no region (F2.5): remove 'region'"
        in found
    )


def test_the_dial_losses_and_treasures() -> None:
    found = problems(
        edit(
            "north = { best = 4, normal = 3, worst = 2 }",
            "north = { best = 2, normal = 3, worst = 2 }",
        )
    )
    assert found == ["wind_dial.north: best >= normal >= worst does not hold: [2, 3, 2]"]
    found = problems(edit("skulls = [1, 3, 5]", "skulls = [3, 1]"))
    assert found == ["losses.skulls: must be increasing positions in 1..7, not [3, 1]"]
    found = problems(edit("large = [6, 7, 8]", "large = [6, 7]"))
    assert found == ["treasures.large: has 2 values: the game has 3"]


def test_homelands_and_ids() -> None:
    found = problems(edit('id = "sweden"', 'id = "finland"'))
    assert (
        "location 'finland': a homeland's id must be one of ['denmark', 'norway', 'sweden']"
        in found
    )
    found = problems(edit('id = "lewis"', 'id = "Lewis Isle"'))
    assert any("id 'Lewis Isle' must be lower-case" in p for p in found)
    found = problems(edit('id = "lewis"', 'id = "iona"'))
    assert any("duplicate id 'iona'" in p for p in found)


def test_every_problem_at_once() -> None:
    text = edit('ports = ["lindisfarne"]', 'ports = ["nowhere"]')
    text = text.replace('{ kind = "gain_vp", amount = 2 }', '{ kind = "fly" }')
    assert len(problems(text)) == 2


def test_the_digest_ignores_comments_and_layout_but_not_content() -> None:
    plain = parse(DEMO_TEXT)
    reformatted = parse(re.sub(r"#[^\n\"]*\n", "\n", DEMO_TEXT).replace(" = ", "="))
    assert reformatted.digest == plain.digest
    assert parse(edit("value = 4\nstars = 3", "value = 5\nstars = 3")).digest != plain.digest


def test_a_second_pack_is_registered_by_digest_and_a_game_keeps_to_it(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(edit("value = 4\nstars = 3", "value = 5\nstars = 3"), encoding="utf-8")
    mine = data_pack.load(path)
    assert mine.digest in data_pack.known_digests() and mine.source == str(path)
    options = RULES.options(3, 1, {"data_pack": mine.digest})
    assert RULES.options_record(options)["data_pack"] == mine.digest
    state = RULES.new_game(options)
    assert state.board.value[state.board.index("paris")] == 5
    demo_state = RULES.new_game(RULES.options(3, 1, {}))
    assert state.state_hash() != demo_state.state_hash()
    snap = json.loads(json.dumps(to_snapshot(state)))
    assert from_snapshot(snap).state_hash() == state.state_hash()
    with pytest.raises(SnapshotError, match="made with data pack"):
        from_snapshot(snap, expect_pack="demo")


def test_an_unknown_pack_is_refused() -> None:
    with pytest.raises(OptionsError, match="no data pack with digest 'f00'"):
        RULES.options(3, 1, {"data_pack": "f00"})
    snap = to_snapshot(RULES.new_game(RULES.options(3, 1, {})))
    snap["data_pack"] = "0" * 64
    with pytest.raises(SnapshotError, match="which is not loaded"):
        from_snapshot(snap)


def test_validate_file_and_the_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(edit('ports = ["lindisfarne"]', 'ports = ["lindisfarn"]'), encoding="utf-8")
    pack, found = validate_file(bad)
    assert pack is None and found == [f"{bad}: saga 'i-lindisfarne': unknown port 'lindisfarn'"]
    out = io.StringIO()
    assert validate_command(str(bad), out) == 1
    assert out.getvalue().splitlines()[0] == found[0]
    out = io.StringIO()
    good = tmp_path / "good.toml"
    good.write_text(DEMO_TEXT, encoding="utf-8")
    assert validate_command(str(good), out) == 0
    assert demo_pack().digest in out.getvalue() and "NOT the published game" in out.getvalue()
    assert validate_file(tmp_path / "missing.toml")[1][0].endswith(
        "cannot be read: "
        + str(FileNotFoundError(2, "No such file or directory", str(tmp_path / "missing.toml")))
    )
    assert main(["validate", "--demo"]) == 0
    assert main(["validate", str(bad)]) == 1
    # As a command (python -m engine.fire_and_axe), with its exit status.
    for args, status, first in ((["--demo"], 0, "OK: "), ([str(bad)], 1, found[0])):
        done = subprocess.run(
            [sys.executable, "-m", "engine.fire_and_axe", "validate", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == status
        assert done.stdout.startswith(first), done.stdout


def test_the_packs_cards_cannot_be_changed_by_a_game() -> None:
    """Every game of a process shares its pack's Board, its cards and the effect vocabulary
    (and the options it was made with): one game must not change another's."""
    options = RULES.options(3, 1, {})
    board = RULES.new_game(options).board
    pack = board.pack
    rune = pack.runes[0]
    kind = EFFECT_KINDS["recover_crew"]
    shared: list[object] = [board, board.sagas[0], pack, pack.locations[0], rune, pack.sagas[0]]
    shared += [rune.effects[0], kind, kind.params[0], options]
    for thing in shared:
        first = dataclasses.fields(thing)[0].name  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(thing, first, None)


def test_every_effect_kind_is_implemented() -> None:
    assert set(EFFECTS) == set(EFFECT_KINDS)
    assert set(EFFECT_KINDS) >= {"change_demand", "turn_dial", "days_back", "recover_crew"}


# -- the demo pack is the rulebook where the rulebook speaks, and says where it is not -----


def test_the_demo_pack_says_it_is_not_the_published_game() -> None:
    pack = demo_pack()
    assert pack.demo and pack.not_published
    assert "NOT the published" in pack.name and "not the published" in pack.description
    assert "THIS IS NOT THE PUBLISHED BOARD OR THE PUBLISHED CARDS." in DEMO_TEXT[:400]
    for saga in pack.sagas:
        assert saga.rulebook or "(demo)" in saga.name
    for rune in pack.runes:
        assert rune.rulebook or "(demo)" in rune.name


def test_the_demo_pack_keeps_every_value_the_rulebook_gives() -> None:
    pack = demo_pack()
    by_id = {loc.id: loc for loc in pack.locations}
    named = ["seville", "balearics", "arles", "rome", "paris", "bayeux", "rouen", "nantes"]
    named += ["reykjanes", "horn", "constantinople", "kiev", "lyubech", "gnezdovo"]
    named += ["bjarmaland", "caithness", "faroe", "shetland", "orkney", "iona", "lindisfarne"]
    named += ["cork", "dublin", "man"]
    assert len(named) == 24 and all(by_id[p].kind == 1 for p in named)
    assert all(by_id[h].kind == 2 for h in ("denmark", "norway", "sweden"))
    values = {"reykjanes": 3, "constantinople": 5, "rome": 5, "kiev": 4, "faroe": 2}
    values |= {"shetland": 2, "orkney": 2, "iona": 3, "lindisfarne": 2}
    for port, value in values.items():
        assert by_id[port].value == value and "value" in by_id[port].rulebook
    regions = [{"faroe", "shetland", "orkney"}, {"bayeux", "rouen", "nantes"}]
    regions.append({"kiev", "lyubech", "gnezdovo"})
    for members in regions:
        (region,) = {by_id[p].region for p in members}
        assert region and {i for i, x in by_id.items() if x.region == region} == members
    assert by_id["reykjanes"].region == by_id["horn"].region != ""
    assert by_id["iona"].region != ""
    for port in ("paris", "arles", "lindisfarne"):
        assert by_id[port].region == ""
    for port in ("bayeux", "lyubech", "rome"):
        assert by_id[port].stars > 0  # they held towns
    for port in ("faroe", "shetland", "caithness"):
        assert by_id[port].zone == 3  # West
    assert by_id["bjarmaland"].zone == 0  # North
    dial = {z: pack.dial[i] for i, z in enumerate(("north", "east", "south", "west"))}
    assert (dial["south"][0], dial["west"][1], dial["east"][1], dial["north"][2]) == (7, 5, 4, 2)
    assert (dial["west"][0], dial["north"][1]) == (6, 3)
    assert [p for p in range(1, 5) if p in pack.skulls] == [1, 3]
    assert 5 in pack.small_treasures
    change = next(r for r in pack.runes if r.name == "Change of Demand")
    assert [e.kind for e in change.effects] == ["change_demand"]
    cdm = next(s for s in pack.sagas if set(s.ports) == {"cork", "dublin", "man"})
    assert (cdm.age, cdm.type, cdm.bonus_vp) == (2, 2, 0)


def _more(kind: str, block_of: Callable[[int], str], n: int) -> str:
    """The demo pack with ``n`` more entries of ``kind`` before its first one."""
    return DEMO_TEXT.replace(f"\n[[{kind}]]", "".join(map(block_of, range(n))) + f"\n[[{kind}]]", 1)


def test_at_most_250_locations_and_250_different_runes() -> None:
    """An action carries a location or a Rune card in 8 bits (actions.Action.code)."""
    pack = parse(DEMO_TEXT)

    def water(i: int) -> str:
        return f'\n[[location]]\nid = "x-{i}"\nname = "X {i}"\nkind = "water"\nzone = "north"\n'

    def rune(i: int) -> str:
        return (
            f'\n[[rune]]\nid = "r-{i}"\nname = "R {i} (demo)"\ncount = 1\nconflict = false\n'
            f'when = "any"\nwhere = "anywhere"\ntext = "x"\n'
            'effects = [{ kind = "change_demand" }]\n'
        )

    def over(text: str) -> list[str]:
        with pytest.raises(DataPackError) as info:
            parse(text)
        return [p for p in info.value.problems if "at most" in p]

    assert over(_more("location", water, 250 - len(pack.locations))) == []
    assert over(_more("location", water, 251 - len(pack.locations))) == [
        "location: 251 locations: at most 250"
    ]
    assert over(_more("rune", rune, 250 - len(pack.runes))) == []
    assert over(_more("rune", rune, 251 - len(pack.runes))) == [
        "rune: 251 different cards: at most 250"
    ]


PARIS = 'id = "paris"\nname = "Paris"\nkind = "port"\nzone = "west"\nvalue = 4\n'


def _paris(old: str, new: str) -> list[str]:
    """The problems of the demo pack with one line of Paris changed."""
    assert old in PARIS
    return problems(edit(PARIS, PARIS.replace(old, new)))


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("value = 4", "value = true", "location 'paris': 'value' must be an integer, not True"),
        ("value = 4", 'value = "4"', "location 'paris': 'value' must be an integer, not '4'"),
        ('name = "Paris"', "name = 5", "location 'paris': 'name' must be a str, not 5"),
        ("value = 4", "value = 0", "location 'paris': port value must be in 1..6, not 0"),
        ("value = 4", "value = 7", "location 'paris': port value must be in 1..6, not 7"),
        ('kind = "port"\n', "", "location 'paris': missing 'kind'"),
        ('zone = "west"\n', "", "location 'paris': missing 'zone'"),
    ],
)
def test_a_locations_field_of_the_wrong_type_or_range(old: str, new: str, problem: str) -> None:
    found = _paris(old, new)
    assert problem in found
    # A missing field is reported once, as missing: not also as an unknown kind or zone.
    assert not [p for p in found if "unknown kind" in p or "unknown zone" in p]


def test_a_port_value_of_1_and_of_6_is_accepted() -> None:
    for value in (1, 6):
        pack = parse(edit(PARIS, PARIS.replace("value = 4", f"value = {value}")))
        assert pack.locations[pack_index(pack, "paris")].value == value


def pack_index(pack: data_pack.Pack, ident: str) -> int:
    return [loc.id for loc in pack.locations].index(ident)


def test_an_entry_without_an_id_is_named_by_its_place() -> None:
    found = _paris('id = "paris"\n', "")
    assert any(p.endswith(": missing 'id'") and p.startswith("location #") for p in found)
    assert not [p for p in found if "must be lower-case" in p]


@pytest.mark.parametrize("value", ["5", "[1]", '"location"'])
def test_entries_must_be_an_array_of_tables(value: str) -> None:
    assert "location: must be an array of tables ([[location]])" in problems(
        f"format = 1\nlocation = {value}\n"
    )


@pytest.mark.parametrize("value", ['"name"', "[1]"])
def test_rulebook_must_be_a_list_of_field_names(value: str) -> None:
    found = problems(
        edit(PARIS, PARIS + f"rulebook = {value}\n").replace(
            'rulebook = ["name"]  # p.10', "# p.10", 1
        )
    )
    assert "location 'paris': 'rulebook' must be a list of field names" in found


def test_a_port_with_stars_other_than_0_1_or_3() -> None:
    for stars, problem in (
        ("2", "stars must be 0, 1 or 3, not 2"),
        ("true", "'stars' must be an integer, not True"),
    ):
        found = problems(edit(PARIS + "stars = 3\n", PARIS + f"stars = {stars}\n"))
        assert f"location 'paris': {problem}" in found


def test_the_maps_shape() -> None:
    assert "map: missing 'edges' (a list of [id, id] pairs)" in problems(
        edit("[map]\nedges = [", "[map]\nedgez = [")
    )
    found = problems(edit('["paris", "w-channel"]', '["paris"]'))
    assert "map edge #" in " ".join(found) and any(
        p.endswith("['paris']: an edge is a pair of location ids") for p in found
    )
    # Paris's one edge gone: it is adjacent to nothing (and nothing else is reported about it).
    found = problems(edit('["paris", "w-channel"], ', ""))
    assert [p for p in found if p.startswith("location 'paris'")] == [
        "location 'paris': is adjacent to nothing"
    ]
    assert not [p for p in found if "cannot be reached" in p]  # checked on a sound map only
    assert "map: unknown key 'edge' (known: edges)" in problems(
        edit("[map]\nedges = [", "[map]\nedge = 1\nedges = [")
    )
    found = problems(edit('["paris", "w-channel"]', '["paris", "nantes"]'))
    assert "location 'paris': touches no water space (F2.3: its zone is its water's)" in found


NORTH = "north = { best = 4, normal = 3, worst = 2 }"


@pytest.mark.parametrize(
    ("north", "found"),
    [
        ("north = { best = 7, normal = 3, worst = 0 }", []),  # both ends of 0..7
        (
            "north = { best = 8, normal = 3, worst = 2 }",
            ["wind_dial.north: best must be in 0..7 Fair Weather Days, not 8"],
        ),
        (
            "north = { best = 4, normal = 3, worst = -1 }",
            ["wind_dial.north: worst must be in 0..7 Fair Weather Days, not -1"],
        ),
        ("north = { best = 3, normal = 3, worst = 3 }", []),  # equal values hold
        ("north = 4", ["wind_dial.north: missing {best, normal, worst}"]),
    ],
)
def test_each_zone_of_the_wind_dial(north: str, found: list[str]) -> None:
    text = edit(NORTH, north)
    if found:
        assert problems(text) == found
    else:
        best, normal, worst = (int(x) for x in re.findall(r"-?\d+", north))
        assert parse(text).dial[0] == (best, normal, worst)


def test_the_wind_dial_must_be_a_table() -> None:
    text = edit("[wind_dial]\n" + NORTH, "[wind_dials]\n" + NORTH)
    assert "wind_dial: missing table [wind_dial] (north, east, south, west)" in problems(text)


@pytest.mark.parametrize("skulls", ["[1, true]", "1", "[1, 2.5]"])
def test_skulls_are_a_list_of_integers(skulls: str) -> None:
    found = problems(edit("skulls = [1, 3, 5]", f"skulls = {skulls}"))
    assert any(p.startswith("losses.skulls: must be a list of integers, not ") for p in found)


@pytest.mark.parametrize(
    ("old", "new", "found"),
    [
        ("skulls = [1, 3, 5]", "skulls = [1, 3, 7]", []),
        (
            "skulls = [1, 3, 5]",
            "skulls = [0, 3, 5]",
            ["losses.skulls: must be increasing positions in 1..7, not [0, 3, 5]"],
        ),
        (
            "skulls = [1, 3, 5]",
            "skulls = [1, 3, 8]",
            ["losses.skulls: must be increasing positions in 1..7, not [1, 3, 8]"],
        ),
        (
            "skulls = [1, 3, 5]",
            "skulls = []",
            ["losses.skulls: no skull: a weather check could never cost anything"],
        ),
        ("large = [6, 7, 8]", "large = [0, 7, 8]", []),
        (
            "large = [6, 7, 8]",
            "large = [-1, 7, 8]",
            ["treasures: a treasure is worth 0 VP or more"],
        ),
        ("[treasures]\n", "[treasure]\n", None),
    ],
)
def test_skulls_and_treasures_at_their_limits(old: str, new: str, found: list[str] | None) -> None:
    text = edit(old, new)
    if found == []:
        parse(text)
    elif found is None:
        assert "treasures: missing table [treasures] with small and large" in problems(text)
    else:
        assert problems(text) == found


SKALD = 'effects = [{ kind = "gain_vp", amount = 2 }]'


@pytest.mark.parametrize("effects", ["[]", '"gain_vp"', "[1]"])
def test_a_runes_effects_must_be_a_non_empty_list_of_tables(effects: str) -> None:
    assert problems(edit(SKALD, f"effects = {effects}")) == [
        "rune 'skalds-tale': 'effects' must be a non-empty list of tables {kind = ...}"
    ]


def test_a_runes_count_when_and_where() -> None:
    skald = block("rune", "skalds-tale")
    found = problems(edit(skald, skald.replace("count = 2", "count = 0")))
    assert "rune 'skalds-tale': count must be at least 1, not 0" in found
    found = problems(edit(skald, skald.replace('when = "any"', 'when = "never"')))
    assert found == ["rune 'skalds-tale': when must be one of ['any', 'own_turn'], not 'never'"]
    found = problems(edit(skald, skald.replace('where = "anywhere"', 'where = "inland"')))
    assert found == [
        "rune 'skalds-tale': where must be one of "
        "['anywhere', 'map', 'port', 'water', 'wintering'], not 'inland'"
    ]
    # when and where may be left out: any time, anywhere.
    plain = skald.replace('when = "any"\n', "").replace('where = "anywhere"\n', "")
    card = next(r for r in parse(edit(skald, plain)).runes if r.id == "skalds-tale")
    assert (card.when, card.where) == ("any", "anywhere")


def test_an_effects_parameter_left_out_takes_its_default() -> None:
    pack = parse(edit(SKALD, 'effects = [{ kind = "gain_vp" }]'))
    card = next(r for r in pack.runes if r.id == "skalds-tale")
    assert card.effects[0].number("amount") == 1


def test_a_field_of_the_wrong_type_is_reported_once() -> None:
    skald = block("rune", "skalds-tale")
    found = problems(edit(skald, skald.replace('when = "any"', "when = 5")))
    assert found == ["rune 'skalds-tale': 'when' must be a str, not 5"]
    found = _paris("value = 4\n", "")
    assert [p for p in found if p.startswith("location 'paris'")] == [
        "location 'paris': missing 'value'",
        "location 'paris': port value must be in 1..6, not 0",
    ]


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("[losses]\n", "[loss]\n", "losses: missing table [losses] with skulls = [positions]"),
        ("[pack]\n", "[pak]\n", "pack: missing table [pack] (id, name, demo, description)"),
    ],
)
def test_a_missing_table_is_named(old: str, new: str, problem: str) -> None:
    assert problem in problems(edit(old, new))


def _documented_params() -> list[tuple[str, str, int, int, int | None]]:
    """(kind, parameter, low, high, default) of each integer parameter in the effect
    vocabulary's table of docs/fire-and-axe.md."""
    doc = (Path(__file__).parents[2] / "docs" / "fire-and-axe.md").read_text(encoding="utf-8")
    out = []
    for kind, params in re.findall(r"^\| `(\w+)` \| ([^|]+) \|", doc, re.M):
        for name, low, high, default in re.findall(r"`(\w+)` (\d+)-(\d+)(?: \((\d+)\))?", params):
            out.append((kind, name, int(low), int(high), int(default) if default else None))
    return out


@pytest.mark.parametrize(
    ("kind", "name", "low", "high", "default"),
    _documented_params(),
    ids=[f"{k}.{n}" for k, n, *_ in _documented_params()],
)
def test_each_effect_parameter_has_its_documented_range_and_default(
    kind: str, name: str, low: int, high: int, default: int | None
) -> None:
    line = next(x for x in DEMO_TEXT.splitlines() if x.startswith(f'effects = [{{ kind = "{kind}"'))
    ident = DEMO_TEXT[: DEMO_TEXT.index(line)].rsplit('[[rune]]\nid = "', 1)[1].split('"')[0]
    extra = ', marker = "sailing"' if kind == "days_back" else ""

    def with_value(value: int | None) -> str:
        given = "" if value is None else f", {name} = {value}"
        return edit(line, f'effects = [{{ kind = "{kind}"{extra}{given} }}]')

    def number(value: int | None) -> int:
        card = next(r for r in parse(with_value(value)).runes if r.id == ident)
        return card.effects[0].number(name)

    assert (number(low), number(high)) == (low, high)
    for bad in (low - 1, high + 1):
        assert problems(with_value(bad)) == [
            f"rune {ident!r} effect #1: {kind}: {name} must be in {low}..{high}, not {bad}"
        ]
    if default is not None:
        assert number(None) == default


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            "[wind_dial]\n",
            "[wind_dial]\nup = 1\n",
            "wind_dial: unknown key 'up' (known: east, north, south, west)",
        ),
        ("[losses]\n", "[losses]\nx = 1\n", "losses: unknown key 'x' (known: skulls)"),
        (
            "[treasures]\n",
            "[treasures]\nx = 1\n",
            "treasures: unknown key 'x' (known: large, small)",
        ),
        (
            "small = [5, 1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 2]",
            "small = [5]",
            "treasures.small: has 1 values: the game has 12",
        ),
        (
            NORTH,
            "north = { best = 9, normal = 9, worst = 2 }",
            "wind_dial.north: normal must be in 0..7 Fair Weather Days, not 9",
        ),
    ],
)
def test_the_tables_name_their_problems(old: str, new: str, problem: str) -> None:
    assert problem in problems(edit(old, new))


def test_a_rune_without_a_count_is_reported_as_such_only() -> None:
    lore = block("rune", "rune-lore")
    assert "count = 1\n" in lore
    assert problems(edit(lore, lore.replace("count = 1\n", ""))) == [
        "rune 'rune-lore': missing 'count'"
    ]
