"""The data-pack loader reports EVERY problem of a pack, not only the first of a kind (one
fault must not hide the entries after it), and the ``validate`` command's words: the count
line under the problems, no "DEMO DATA" line for a published pack, stdout by default.

A validator that stopped at the first bad edge, zone or effect would send a pack author round
the loop once per fault; worse, a dropped edge reads as a second, invented fault elsewhere."""

from __future__ import annotations

import io
import json
import re
import runpy
import sys
from pathlib import Path

import pytest

from engine.fire_and_axe import data_pack
from engine.fire_and_axe.__main__ import summary, validate_command
from engine.fire_and_axe.data_pack import demo_pack, known_digests, parse
from tests.fire_and_axe.test_fae_data_pack import DEMO_TEXT, block, edit, problems


def with_first_edges(*edges: str) -> str:
    """The demo pack with ``edges`` put before every other edge of the map."""
    return edit("edges = [\n", "edges = [\n  " + ", ".join(edges) + ",\n")


# -- the map: a bad edge does not hide the edges after it --------------------------------------


@pytest.mark.parametrize(
    ("edge", "fault"),
    [
        ('"iona"', "an edge is a pair of location ids"),
        ('"ab"', "an edge is a pair of location ids"),  # two characters are not two ids
        ('["iona", 3]', "an edge is a pair of location ids"),
        ("[1, 2]", "an edge is a pair of location ids"),
        ('["iona", "nowhere"]', "adjacency to nowhere: 'nowhere' is no location"),
        ('["iona", "iona"]', "a location is not adjacent to itself"),
    ],
)
def test_a_bad_first_edge_is_the_only_problem(edge: str, fault: str) -> None:
    found = problems(with_first_edges(edge))
    assert len(found) == 1 and found[0].startswith("map edge #1 ") and found[0].endswith(fault)


def test_a_duplicate_edge_is_the_only_problem() -> None:
    found = problems(
        with_first_edges('["denmark", "n-iceland-sea"]', '["n-iceland-sea", "denmark"]')
    )
    assert found == ["map edge #2 ['n-iceland-sea', 'denmark']: duplicate edge"]


def test_every_location_adjacent_to_nothing_is_named() -> None:
    water = block("location", "n-norwegian-sea")
    lost = [
        water.replace('"n-norwegian-sea"', f'"n-lost-{i}"').replace("Norwegian", f"Lost {i}")
        for i in (1, 2)
    ]
    text = edit('[[location]]\nid = "denmark"', "\n".join(lost) + '\n[[location]]\nid = "denmark"')
    assert problems(text) == [
        "location 'n-lost-1': is adjacent to nothing",
        "location 'n-lost-2': is adjacent to nothing",
    ]


# -- the Wind Dial: a missing zone does not hide a bad one after it ------------------------------


def test_a_missing_zone_and_a_bad_zone_after_it_are_both_named() -> None:
    text = edit("north = { best = 4, normal = 3, worst = 2 }\n", "")
    text = text.replace(
        "east = { best = 6, normal = 4, worst = 2 }", "east = { best = 9, normal = 4, worst = 2 }"
    )
    assert problems(text) == [
        "wind_dial.north: missing {best, normal, worst}",
        "wind_dial.east: best must be in 0..7 Fair Weather Days, not 9",
    ]


# -- Rune effects: each effect and each parameter is checked -------------------------------------

LONG_DAY = 'effects = [{ kind = "days_back", marker = "sailing", days = 2 }]'


def rune_effects(effects: str) -> list[str]:
    return problems(edit(LONG_DAY, f"effects = [{effects}]"))


def test_an_unknown_effect_does_not_hide_the_next_effect() -> None:
    found = rune_effects('{ kind = "nope" }, { kind = "days_back", marker = "sailing", days = 9 }')
    assert len(found) == 2
    assert found[0].startswith("rune 'long-day' effect #1: unknown effect kind 'nope'")
    assert found[1] == "rune 'long-day' effect #2: days_back: days must be in 1..7, not 9"


def test_a_missing_parameter_does_not_hide_a_bad_one_after_it() -> None:
    assert rune_effects('{ kind = "days_back", days = 9 }') == [
        "rune 'long-day' effect #1: days_back needs 'marker'",
        "rune 'long-day' effect #1: days_back: days must be in 1..7, not 9",
    ]


def test_a_bad_parameter_does_not_hide_a_bad_one_after_it() -> None:
    assert rune_effects('{ kind = "days_back", marker = "dawn", days = 9 }') == [
        "rune 'long-day' effect #1: days_back: marker must be one of ['sailing', "
        "'preparation'], not 'dawn'",
        "rune 'long-day' effect #1: days_back: days must be in 1..7, not 9",
    ]


# -- the registry of known packs ------------------------------------------------------------------


def test_the_demo_pack_is_known_before_anything_asked_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a fresh process (no game made yet) the list of known packs already names the demo
    pack: the registry is empty until the demo pack is first read."""
    digest = demo_pack().digest
    monkeypatch.setattr(data_pack, "_KNOWN", {})
    demo_pack.cache_clear()
    try:
        assert known_digests() == [digest]
    finally:
        monkeypatch.undo()
        demo_pack.cache_clear()
        assert demo_pack() is data_pack._KNOWN[digest]  # the one object every Board holds


# -- the validate command's words ---------------------------------------------------------------


def test_the_count_of_problems_closes_the_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(with_first_edges('["iona", "iona"]', '["iona", "nowhere"]'), encoding="utf-8")
    out = io.StringIO()
    assert validate_command(str(bad), out) == 1
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{bad}: map edge #") for line in lines[:2])
    assert lines[2] == f"2 problem(s): {bad} is not a usable data pack"


def test_a_published_pack_is_not_called_demo_data(tmp_path: Path) -> None:
    text = edit("\ndemo = true\n", "\ndemo = false\n")
    pack = parse(text, "published.toml")
    assert not pack.demo and "DEMO DATA" not in summary(pack)
    assert "DEMO DATA" in summary(demo_pack())
    good = tmp_path / "published.toml"
    good.write_text(text, encoding="utf-8")
    out = io.StringIO()
    assert validate_command(str(good), out) == 0
    assert out.getvalue() == summary(pack) + "\n" and len(out.getvalue().splitlines()) == 4


def test_the_command_writes_to_stdout_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "demo.toml"
    good.write_text(DEMO_TEXT, encoding="utf-8")
    assert validate_command(str(good)) == 0
    assert capsys.readouterr().out.startswith("OK: ")


# -- entries: tables only, named by number without an id, rulebook fields present ---------------


def test_an_array_with_something_else_than_tables_is_refused() -> None:
    found = problems('format = 1\nlocation = [{ id = "denmark" }, 3]\n')
    assert "location: must be an array of tables ([[location]])" in found


def test_an_entry_without_an_id_is_named_by_its_number() -> None:
    count = DEMO_TEXT.count("[[location]]")
    found = problems(
        DEMO_TEXT + '\n[[location]]\nname = "Nowhere"\nkind = "moon"\nzone = "north"\n'
    )
    assert f"location #{count + 1}: missing 'id'" in found
    assert any(p.startswith(f"location #{count + 1}: unknown kind 'moon'") for p in found)


def test_a_rulebook_field_the_entry_lacks_is_named() -> None:
    denmark = block("location", "denmark")
    assert 'rulebook = ["name"]' in denmark and "stars" not in denmark
    text = edit(denmark, denmark.replace('rulebook = ["name"]', 'rulebook = ["name", "stars"]'))
    assert problems(text) == [
        "location 'denmark': 'rulebook' names 'stars', which this entry does not have"
    ]


# -- one fault, one problem: each check of a location, a region and a Saga ------------------------

SEA = block("location", "n-norwegian-sea")
IRISH_SEA = block("location", "w-irish-sea")  # Iona's only water
ICELAND_SEA = block("location", "n-iceland-sea")  # the only northern water of Horn and others
PARIS = block("location", "paris")
IONA = block("location", "iona")
LINDISFARNE = block("saga", "i-lindisfarne")


def in_block(entry: str, old: str, new: str) -> str:
    assert old in entry, old
    return edit(entry, entry.replace(old, new))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            in_block(SEA, 'kind = "water"', 'kind = "sea"'),
            ["location 'n-norwegian-sea': unknown kind 'sea' (known: water, port, homeland)"],
        ),
        (
            in_block(IRISH_SEA, 'kind = "water"', 'kind = "lake"'),
            ["location 'w-irish-sea': unknown kind 'lake' (known: water, port, homeland)"],
        ),
        (
            in_block(ICELAND_SEA, 'zone = "north"', 'zone = "up"'),
            ["location 'n-iceland-sea': unknown zone 'up' (known: north, east, south, west)"],
        ),
        (
            in_block(SEA, 'zone = "north"', 'zone = "up"'),
            ["location 'n-norwegian-sea': unknown zone 'up' (known: north, east, south, west)"],
        ),
        (
            in_block(PARIS, "stars = 3\n", 'stars = 3\nregion = "frankia"\n'),
            [
                "location 'paris': a large port (3 stars) belongs to no region (F2.5): remove "
                "'region'",
                "region 'frankia': has 4 port(s) ['bayeux', 'rouen', 'nantes', 'paris']: a "
                "region has exactly 3 (F2.5)",
            ],
        ),
        (
            in_block(IONA, 'region = "hebrides"', 'region = "nowhere"'),
            [
                "region 'hebrides': has 2 port(s) ['caithness', 'lewis']: a region has exactly "
                "3 (F2.5)",
                "region 'nowhere': has 1 port(s) ['iona']: a region has exactly 3 (F2.5)",
            ],
        ),
        (
            in_block(LINDISFARNE, "age = 1", "age = 4"),
            ["saga 'i-lindisfarne': age must be 1, 2 or 3, not 4"],
        ),
        (
            in_block(LINDISFARNE, 'homeland = "norway"', 'homeland = "iceland"'),
            [
                "saga 'i-lindisfarne': homeland must be one of ['denmark', 'norway', 'sweden'], "
                "not 'iceland'"
            ],
        ),
        (
            in_block(LINDISFARNE, 'type = "raid"', 'type = "pillage"'),
            [
                "saga 'i-lindisfarne': type must be one of ['raid', 'trade', 'settle'], "
                "not 'pillage'"
            ],
        ),
        (
            in_block(LINDISFARNE, 'ports = ["lindisfarne"]', "ports = []"),
            ["saga 'i-lindisfarne': 'ports' must be a non-empty list of port ids"],
        ),
        (
            in_block(LINDISFARNE, 'ports = ["lindisfarne"]', 'ports = ["lindisfarne", 3]'),
            ["saga 'i-lindisfarne': 'ports' must be a non-empty list of port ids"],
        ),
        (
            in_block(
                LINDISFARNE, 'ports = ["lindisfarne"]', 'ports = ["lindisfarne", "lindisfarne"]'
            ),
            ["saga 'i-lindisfarne': a port is listed twice in ['lindisfarne', 'lindisfarne']"],
        ),
        (
            in_block(LINDISFARNE, "bonus_vp = 2", "bonus_vp = -1"),
            ["saga 'i-lindisfarne': bonus_vp must be 0 or more, not -1"],
        ),
        (edit(LINDISFARNE, ""), ["saga: 26 Saga cards: the game has 27"]),
        (
            DEMO_TEXT.replace("[map]\n", "[mapx]\n").replace(
                "format = 1", "format = 1\nmap = 3", 1
            ),
            [
                "top level: unknown key 'mapx' (known: format, location, losses, map, pack, rune, "
                "saga, treasures, wind_dial)",
                "map: must be a table",
            ],
        ),
    ],
)
def test_one_fault_gives_its_own_problem(text: str, expected: list[str]) -> None:
    """Each fault is reported once, by the check it breaks; an unknown kind reads as water and
    an unknown zone as north, so that the water a port relies on (Iona's Irish Sea, Horn's
    Iceland Sea) does not come back as a second, invented fault of that port."""
    assert problems(text) == expected


def test_python_dash_m_runs_the_command_and_exits_with_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m engine.fire_and_axe validate ...`` in this process (what a subprocess test
    cannot show of the module's own code): the exit status is the command's."""
    bad = tmp_path / "bad.toml"
    bad.write_text(with_first_edges('["iona", "iona"]'), encoding="utf-8")
    for args, status in ((["--demo"], 0), ([str(bad)], 1)):
        monkeypatch.setattr(sys, "argv", ["python -m engine.fire_and_axe", "validate", *args])
        monkeypatch.delitem(sys.modules, "engine.fire_and_axe.__main__", raising=False)
        with pytest.raises(SystemExit) as done:
            runpy.run_module("engine.fire_and_axe", run_name="__main__")
        assert done.value.code == status
        out = capsys.readouterr().out
        assert out.startswith("OK: ") if status == 0 else out.startswith(f"{bad}: map edge #1")


def test_the_map_is_walked_from_a_homeland_whatever_comes_first() -> None:
    """Two seas joined only to each other and listed before every other location: they are
    the part that cannot be reached, from the first Homeland, not the other way round."""
    water = block("location", "n-norwegian-sea")
    lost = [
        water.replace('"n-norwegian-sea"', f'"n-lost-{i}"').replace("Norwegian", f"Lost {i}")
        for i in (1, 2)
    ]
    text = edit('[[location]]\nid = "denmark"', "\n".join(lost) + '\n[[location]]\nid = "denmark"')
    text = text.replace("edges = [\n", 'edges = [\n  ["n-lost-1", "n-lost-2"],\n', 1)
    assert problems(text) == ["map: cannot be reached from 'denmark': ['n-lost-1', 'n-lost-2']"]


NORTH = "north = { best = 4, normal = 3, worst = 2 }"


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        (
            "north = { best = 4, normal = 3, worst = 2, calm = 1 }",
            ["wind_dial.north: unknown key 'calm' (known: best, normal, worst)"],
        ),
        (
            "north = { best = 4, normal = 2, worst = 3 }",
            ["wind_dial.north: best >= normal >= worst does not hold: [4, 2, 3]"],
        ),
        # A missing value reads as 0 in the checks that follow: the report shows what it checked.
        ("north = { best = 4, normal = 3 }", ["wind_dial.north: missing 'worst'"]),
        (
            "north = { best = 4, worst = 2 }",
            [
                "wind_dial.north: missing 'normal'",
                "wind_dial.north: best >= normal >= worst does not hold: [4, 0, 2]",
            ],
        ),
    ],
)
def test_a_wind_dial_zone_is_checked_key_by_key(zone: str, expected: list[str]) -> None:
    assert problems(edit(NORTH, zone)) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'id = "demo-invented-v1"\n',
            'id = "demo-invented-v1"\nyear = 2026\n',
            "pack: unknown key 'year' (known: demo, description, id, name)",
        ),
        (
            "[map]\n",
            "[map]\nscale = 2\n",
            "map: unknown key 'scale' (known: edges)",
        ),
        (
            "[wind_dial]\n",
            "[wind_dial]\ncentre = { best = 1, normal = 1, worst = 1 }\n",
            "wind_dial: unknown key 'centre' (known: east, north, south, west)",
        ),
        (
            "[losses]\n",
            "[losses]\ncrowns = [2]\n",
            "losses: unknown key 'crowns' (known: skulls)",
        ),
        (
            "[treasures]\n",
            "[treasures]\nhuge = [9]\n",
            "treasures: unknown key 'huge' (known: large, small)",
        ),
        (
            'id = "i-lindisfarne"\n',
            'id = "i-lindisfarne"\ncolour = "red"\n',
            "saga 'i-lindisfarne': unknown key 'colour' (known: age, bonus_vp, homeland, id, "
            "name, ports, rulebook, type)",
        ),
        (
            'id = "long-day"\n',
            'id = "long-day"\ncolour = "red"\n',
            "rune 'long-day': unknown key 'colour' (known: conflict, count, effects, id, name, "
            "rulebook, text, when, where)",
        ),
    ],
)
def test_an_unknown_key_of_any_table_is_named(old: str, new: str, expected: str) -> None:
    assert problems(edit(old, new)) == [expected]


@pytest.mark.parametrize(
    "effects",
    ["5", '"days_back"', "[]", '{ kind = "days_back" }', "[1]", '[{ kind = "gain_vp" }, 1]'],
)
def test_effects_must_be_a_non_empty_list_of_tables(effects: str) -> None:
    assert problems(edit(LONG_DAY, f"effects = {effects}")) == [
        "rune 'long-day': 'effects' must be a non-empty list of tables {kind = ...}"
    ]


def test_an_effect_kind_that_is_not_a_name_is_unknown() -> None:
    found = rune_effects("{ kind = [1] }")
    assert len(found) == 1
    assert found[0].startswith("rune 'long-day' effect #1: unknown effect kind [1] (the engine")


def test_a_rune_or_saga_without_an_id_is_named_by_its_number() -> None:
    runes, sagas = DEMO_TEXT.count("[[rune]]"), DEMO_TEXT.count("[[saga]]")
    rune = '\n[[rune]]\nname = "Nameless"\ncount = 1\nwhen = "never"\n'
    rune += 'effects = [{ kind = "gain_vp", amount = 1 }]\n'
    found = problems(DEMO_TEXT + rune)
    assert f"rune #{runes + 1}: missing 'id'" in found
    assert f"rune #{runes + 1}: when must be one of ['any', 'own_turn'], not 'never'" in found
    saga = '\n[[saga]]\nname = "Nameless"\nage = 4\nhomeland = "norway"\ntype = "raid"\n'
    saga += 'ports = ["lindisfarne"]\n'
    found = problems(DEMO_TEXT + saga)
    assert f"saga #{sagas + 1}: missing 'id'" in found
    assert f"saga #{sagas + 1}: age must be 1, 2 or 3, not 4" in found


# -- the digest: how stored games and clients name the demo pack ----------------------------------


def test_the_demo_packs_digest_is_the_one_clients_and_stored_games_name() -> None:
    """Stored games name their pack by digest and the web client's recorded views carry it:
    a change in what the digest is taken of (any field of the content, its layout) would
    orphan them. The pack text is the same, so the digest must be too."""
    fixture = Path(__file__).parents[2] / "clients/web/test/fixtures/fae-catalog.json"
    recorded = json.loads(fixture.read_text(encoding="utf-8"))["fireAndAxe"]["defaultPack"]
    assert parse(DEMO_TEXT, "again.toml").digest == recorded == demo_pack().digest


def test_a_saga_or_rune_may_leave_out_what_has_a_default() -> None:
    """A Saga without a name or bonus is named by its id and worth no bonus; a Rune without
    when, where or text is played at any time, anywhere, with no text."""
    saga = block("saga", "i-lindisfarne")
    text = edit(
        saga, saga.replace('name = "The Holy Island (demo)"\n', "").replace("bonus_vp = 2\n", "")
    )
    pack = parse(text)
    holy = next(s for s in pack.sagas if s.id == "i-lindisfarne")
    assert (holy.name, holy.bonus_vp) == ("i-lindisfarne", 0)
    rune = block("rune", "change-of-demand")
    bare = re.sub(r"\n(when|where|text) = [^\n]*", "", rune)
    assert bare != rune
    pack = parse(edit(rune, bare))
    card = next(r for r in pack.runes if r.id == "change-of-demand")
    assert (card.when, card.where, card.text) == ("any", "anywhere", "")


def to_age_two(text: str, ident: str) -> str:
    start = text.index(f'id = "{ident}"\n')
    return text[:start] + text[start:].replace("age = 3", "age = 2", 1)


def test_a_saga_with_no_bonus_is_valid_and_each_age_keeps_enough_sagas() -> None:
    saga = block("saga", "i-lindisfarne")
    free = parse(edit(saga, saga.replace("bonus_vp = 2", "bonus_vp = 0")))
    assert next(s for s in free.sagas if s.id == "i-lindisfarne").bonus_vp == 0
    third = re.findall(r'id = "(iii-[^"]+)"\nname = [^\n]*\nage = 3', DEMO_TEXT)
    assert len(third) == 9
    text = DEMO_TEXT
    for ident in third[:5]:  # 4 of Age III left: 3 removed at set-up, 1 to draw (F3.4)
        text = to_age_two(text, ident)
    parse(text)
    assert problems(to_age_two(text, third[5])) == [
        "saga: Age 3 has 3 Saga card(s): set-up removes 3 per Age, so it needs at least 4 (F3.4)"
    ]


def test_a_missing_field_is_reported_once_not_again_through_its_default() -> None:
    """A Rune without its conflict symbol counts as one without it (the 9 conflict cards
    still add up); a Saga without an Age counts in Age I (which, at its minimum of 6, is
    not reported short as well)."""
    rune = block("rune", "change-of-demand")
    assert problems(edit(rune, rune.replace("conflict = false\n", ""))) == [
        "rune 'change-of-demand': missing 'conflict'"
    ]
    first = re.findall(r'id = "(i-[^"]+)"\nname = [^\n]*\nage = 1', DEMO_TEXT)
    assert len(first) == 9
    text = DEMO_TEXT
    for ident in first[:3]:  # 6 of Age I left: 3 removed and 3 shown at set-up (F3.4)
        start = text.index(f'id = "{ident}"\n')
        text = text[:start] + text[start:].replace("age = 1", "age = 2", 1)
    parse(text)
    start = text.index(f'id = "{first[3]}"\n')
    text = text[:start] + text[start:].replace("age = 1\n", "", 1)
    assert problems(text) == [f"saga '{first[3]}': missing 'age'"]


def test_a_saga_without_a_known_type_is_checked_as_a_raid() -> None:
    """A missing type is reported once (it reads as 'raid', the first type); an unknown type
    is reported and the Saga is still checked as a raid Saga, so its ports' towns are too."""
    saga = block("saga", "i-lindisfarne")
    assert problems(edit(saga, saga.replace('type = "raid"\n', ""))) == [
        "saga 'i-lindisfarne': missing 'type'"
    ]
    odd = saga.replace('type = "raid"', 'type = "pillage"').replace('"lindisfarne"]', '"nantes"]')
    assert problems(edit(saga, odd)) == [
        "saga 'i-lindisfarne': type must be one of ['raid', 'trade', 'settle'], not 'pillage'",
        "saga 'i-lindisfarne': raid Saga lists 'nantes', which has no town at set-up (no star): "
        "it could never be completed",
    ]


def test_pack_header_saga_ports_age_two_and_non_ascii_names() -> None:
    assert problems(edit('id = "demo-invented-v1"\n', "")) == ["pack: missing 'id'"]
    saga = block("saga", "i-lindisfarne")
    assert problems(edit(saga, saga.replace('["lindisfarne"]', '"lindisfarne"'))) == [
        "saga 'i-lindisfarne': 'ports' must be a non-empty list of port ids"
    ]
    second = re.findall(r'id = "(ii-[^"]+)"\nname = [^\n]*\nage = 2', DEMO_TEXT)
    text = DEMO_TEXT
    for ident in second[:-3]:  # 3 of Age II left, one fewer than set-up needs (F3.4)
        start = text.index(f'id = "{ident}"\n')
        text = text[:start] + text[start:].replace("age = 2", "age = 3", 1)
    assert problems(text) == [
        "saga: Age 2 has 3 Saga card(s): set-up removes 3 per Age, so it needs at least 4 (F3.4)"
    ]
    norse = parse(edit('name = "Iona"', 'name = "Ióna Þórsey"'))
    assert norse.digest != demo_pack().digest and len(norse.digest) == 64
