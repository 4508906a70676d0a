"""engine.core.state.Encounter: clone independence, lossless JSON round trip, InputError on bad JSON."""
import copy
import json
import random

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import InputError
from engine.core.policy import RandomPolicy
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

SAGA = """
ruleset: saga
name: Round trip
map: |
  ##########
  #....c...#
  #..+.....#
  #..~~..C.#
  ##########
units:
  - {name: Kira, side: pcs, template: jedi_knight, at: [1, 1]}
  - {name: Vex, side: pcs, template: smuggler, at: [1, 3]}
  - {name: Trooper 1, side: npcs, template: trooper, at: [8, 1]}
  - {name: Trooper 2, side: npcs, template: trooper, at: [8, 3], tactics: {flee_below: 0.25}}
"""


def saga_battle(seed=0):
    rs = get_ruleset("saga")
    b = Battle(parse_encounter(SAGA, "rt.yaml"), rs, SeededDice(seed))
    b.start()
    return b


def test_clone_is_independent():
    b = saga_battle()
    enc = b.enc
    enc.extra["objects"] = {"12": {"hp": 5}}
    enc.flags["moved"] = [1, 2]
    c = enc.clone()
    before = copy.deepcopy(enc.to_dict())
    c.units[0].hp -= 5
    c.units[0].pos = (2, 1)
    c.units[0].state["prone"] = True
    c.budget["standard"] = 0
    c.flags["moved"].append(3)
    c.extra["objects"]["12"]["hp"] = 0
    c.grid.open_doors.add(c.grid.index(3, 2))
    c.initiative[0] = -5
    c.order.reverse()
    c.round += 3
    assert enc.to_dict() == before
    assert c.to_dict() != before


def test_round_trip_at_the_start_and_mid_battle_then_plays_on_identically():
    rng = random.Random(7)
    for seed in range(3):
        b = saga_battle(seed)
        p = RandomPolicy(seed)
        checked = 0
        while not b.over:
            if rng.random() < 0.15:
                d = b.enc.to_dict()
                restored = Encounter.from_dict(json.loads(json.dumps(d)))
                assert restored.to_dict() == d
                b2 = Battle(restored, b.ruleset, SeededDice(0))
                b2.dice.setstate(b.dice.getstate())
                assert b2.legal() == b.legal()
                choice = p.choose(b)
                assert [e.to_dict() for e in b.step(choice)] == [e.to_dict() for e in b2.step(choice)]
                assert b.enc.to_dict() == b2.enc.to_dict()
                checked += 1
            else:
                b.step(p.choose(b))
        assert checked > 3


def good_dict():
    return json.loads(json.dumps(saga_battle().enc.to_dict()))


@pytest.mark.parametrize("path,value,field", [
    (["map"], None, "map"),
    (["map", "rows"], "#..#", "map.rows"),
    (["map", "rows"], ["###", "#."], "map"),
    (["map", "open_doors"], [9999], "map.open_doors"),
    (["units"], {"a": 1}, "units"),
    (["units", 1], "Vex", "units[1]"),
    (["units", 1, "hp"], "ten", "units[1].hp"),
    (["units", 2, "pos"], [1], "units[2].pos"),
    (["units", 2, "pos"], [0, 0], "units[2].pos"),      # inside a wall
    (["units", 3, "pos"], [8, 1], "units[3].pos"),      # on another unit
    (["units", 3, "pos"], [40, 1], "units[3].pos"),     # outside the map
    (["units", 0, "down"], "no", "units[0].down"),
    (["units", 1, "id"], 5, "units[1].id"),
    (["round"], "1", "round"),
    (["budget"], {"standard": "one"}, "budget"),
    (["turn"], 17, "turn"),
    (["order"], [0, 9], "order"),
    (["pending"], {"0": [{"target": 1}]}, "pending"),
    (["winner"], 3, "winner"),
    (["format"], 99, "format"),
])
def test_from_dict_names_the_bad_field(path, value, field):
    d = good_dict()
    node = d
    for k in path[:-1]:
        node = node[k]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    with pytest.raises(InputError) as e:
        Encounter.from_dict(d)
    assert field in str(e.value), str(e.value)


def test_from_dict_refuses_non_objects():
    for bad in ([], "state", None, 3):
        with pytest.raises(InputError):
            Encounter.from_dict(bad)


def test_missing_optional_fields_take_defaults():
    d = good_dict()
    for k in ("flags", "extra", "pending", "phase_index", "name"):
        d.pop(k)
    enc = Encounter.from_dict(d)
    assert enc.flags == {} and enc.extra == {} and enc.pending == {} and enc.phase_index == 0
