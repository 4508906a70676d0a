"""Encounter files: every error is an InputError naming the file line and the fix, never a traceback."""
import textwrap

import pytest

from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.errors import InputError

GOOD = """\
ruleset: saga
name: Test
map: |
  ########
  #......#
  #..c...#
  #......#
  ########
units:
  - {name: Kira, side: pcs, template: jedi_knight, at: [1, 1]}
  - {name: Trooper 1, side: npcs, template: trooper, at: [6, 3], tactics: {flee_below: 0.25}}
"""


def error(text: str) -> InputError:
    with pytest.raises(InputError) as e:
        parse_encounter(text, "enc.yaml")
    return e.value


def test_good_file_loads():
    enc = parse_encounter(GOOD, "enc.yaml")
    assert [u.name for u in enc.units] == ["Kira", "Trooper 1"]
    assert enc.units[1].pos == (6, 3) and enc.units[1].tactics == {"flee_below": 0.25}
    assert enc.grid.kind(enc.grid.index(3, 2)) == "low_cover" and enc.name == "Test"


@pytest.mark.parametrize("old,new,line,words", [
    ("  #......#\n  #..c", "  #.....#\n  #..c", 5, "same length"),               # unequal rows
    ("at: [1, 1]", "at: [0, 1]", 10, "wall"),                                   # unit in a wall
    ("at: [6, 3]", "at: [1, 1]", 11, "same square"),                            # unit on a unit
    ("at: [6, 3]", "at: [9, 3]", 11, "outside"),                                # outside the map
    ("at: [6, 3]", "at: [6]", 11, "[x, y]"),                                     # malformed position
    ("template: trooper", "template: stormtrooper", 11, "template"),            # unknown template
    ("side: npcs", "side: empire", 11, "pcs"),                                  # unknown side
    ("tactics: {flee_below: 0.25}", "tactics: {hide: true}", 11, "flee_below"), # unknown tactic
    ("tactics: {flee_below: 0.25}", "tactics: {flee_below: 3}", 11, "flee_below"),
    ("name: Test\n", "name: Test\nwizard: yes\n", 3, "allowed keys"),           # unknown top-level key
    ("#..c...#", "#..?...#", 6, "legend"),                                      # unknown map symbol
    ("name: Trooper 1", "name: Kira", 11, "own name"),                          # duplicate names
    ("ruleset: saga", "ruleset: chess", 1, "saga"),                             # unknown ruleset
])
def test_errors_name_the_line_and_the_fix(old, new, line, words):
    assert old in GOOD
    e = error(GOOD.replace(old, new, 1))
    assert f"line {line}" in e.where, (e.where, str(e))
    assert e.fix, str(e)
    assert words in str(e), str(e)


def test_bad_legend_terrain_names_the_legend_line():
    e = error(GOOD.replace("units:", 'legend: {"c": lava}\nunits:'))
    assert "line 9" in e.where and "lava" in e.what and "low_cover" in e.fix
    e = error(GOOD.replace("units:", 'legend: {"cc": wall}\nunits:'))
    assert "line 9" in e.where and "one character" in str(e)


def test_legend_override_is_used():
    enc = parse_encounter(GOOD.replace("units:", 'legend: {"c": difficult}\nunits:'), "enc.yaml")
    assert enc.grid.kind(enc.grid.index(3, 2)) == "difficult"


@pytest.mark.parametrize("text,line", [
    ("ruleset: saga\nmap: |\n  ...\nunits: [\n", 5),
    ("ruleset: saga\n  name: x\n map: y\n", 2),
    ("ruleset: saga\nunits:\n  - {name: A, side: pcs\n", 4),
])
def test_bad_yaml_names_a_line(text, line):
    e = error(text)
    assert "YAML" in e.what and e.where == f"enc.yaml line {line}" and e.fix
    if "{name" in text:
        assert "on line 3" in e.what  # where the unclosed mapping began


@pytest.mark.parametrize("text,words", [
    ("just a string", "mapping"),
    ("ruleset: saga\nunits: []\n", "map"),
    ("ruleset: saga\nmap: |\n  ...\nunits: 3\n", "non-empty list"),
    ("ruleset: saga\nmap: 5\nunits: [{name: a, side: pcs, at: [0, 0]}]\n", "map"),
    (GOOD.replace("name: Test\n", "name: Test\nround_limit: 0\n"), "round_limit"),
    (GOOD.replace("{name: Kira, ", "{"), "name"),
])
def test_structural_errors(text, words):
    e = error(text)
    assert words in str(e)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_encounter(tmp_path / "nope.yaml")
    p = tmp_path / "ok.yaml"
    p.write_text(GOOD)
    assert load_encounter(p).name == "Test"


def test_every_shipped_encounter_loads():
    from pathlib import Path
    files = sorted(Path(__file__).resolve().parents[2].glob("configs/encounters/**/*.yaml"))
    assert files
    for f in files:
        enc = load_encounter(f)
        assert enc.units


@pytest.mark.parametrize("old,new,where,words", [
    ("#..c...#", "#..?...#", "enc.yaml line 6 (map row y=2)", "the square at [3, 2] (x, y from 0, as in at:)"),
    ("  #......#\n  #..c", "  #.....#\n  #..c", "enc.yaml line 5 (map row y=1)",
     "map row y=1 has 7 squares but the first row (y=0) has 8"),
])
def test_map_errors_give_squares_as_at_counts_them(old, new, where, words):
    """A square in a map error is x, y counted from 0, as `at:` writes it (a unit put `at:` that square is the
    one named), and the file line next to it."""
    e = error(GOOD.replace(old, new, 1))
    assert e.where == where and words in e.what, str(e)
    if "?" in new:
        moved = GOOD.replace(old, new, 1).replace("at: [1, 1]", "at: [3, 2]")
        assert "Kira at [3, 2]" in str(error(moved.replace("?", "#")))  # the same square, named the same way
