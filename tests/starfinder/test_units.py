"""Stat blocks: the templates, strict validation that names the field and the fix, saved play states, an encounter's
`state:`, the shipped encounters."""
import copy
import json
from pathlib import Path

import pytest
import yaml

from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.errors import InputError
from engine.core.state import Encounter
from engine.rulesets.starfinder import stats as S

from .helpers import KNIFE, LASER, RS, make, floor, step, u, unit

ROOT = Path(__file__).resolve().parents[2]


def test_the_templates():
    names = set(RS.templates())
    assert {"soldier", "operative", "envoy", "mystic", "technomancer", "security_robot", "space_goblin",
            "ganger"} <= names
    for name in names:
        unit_ = RS.make_unit(0, {"name": name, "side": "pcs", "at": [0, 0], "template": name}, name)
        st = unit_.stats
        assert unit_.hp == unit_.max_hp == st["hp"] + st["sp"] and st["weapons"]
        RS.check_unit(unit_, name)
    soldier = RS.make_unit(0, {"name": "S", "side": "pcs", "at": [0, 0], "template": "soldier"}, "s")
    assert (soldier.hp, soldier.state["sp"], soldier.stats["eac"], soldier.stats["kac"]) == (36, 18, 15, 17)
    robot = RS.make_unit(0, {"name": "R", "side": "npcs", "at": [0, 0], "template": "security_robot"}, "r")
    assert not robot.stats["intelligent"] and "mind" in robot.stats["immune"] and RS.threatens(robot)
    goblin = RS.make_unit(0, {"name": "G", "side": "npcs", "at": [0, 0], "template": "space_goblin"}, "g")
    assert goblin.stats["cr"] == 0.5


@pytest.mark.parametrize("over,field", [
    ({"armour": 3}, "armour"),                                                   # an unknown field
    ({"eac": "15"}, "eac"),                                                      # a wrong type
    ({"speed": 32}, "speed"),                                                    # feet in steps of 5
    ({"cr": "one"}, "cr"),
    ({"immune": ["lasers"]}, "immune"),
    ({"resist": {"P": 5}}, "resist"),                                            # resistance is to energy
    ({"weapons": [{**KNIFE, "kind": "sword"}]}, "kind"),
    ({"weapons": [{**KNIFE, "type": "X"}]}, "type"),
    ({"weapons": [{**KNIFE, "damage": "lots"}]}, "lots"),
    ({"weapons": [{**LASER, "critical": "explode 1d6"}]}, "critical"),
    ({"weapons": [{**LASER, "range": 0}]}, "range"),
    ({"weapons": [{"name": "g", "kind": "grenade", "damage": "1d6", "range": 20}]}, "explode"),
    ({"weapons": [{"name": "g", "kind": "grenade", "damage": "1d6", "range": 20, "explode": 10}]}, "dc"),
    ({"weapons": [{**KNIFE, "maneuvers": ["headbutt"]}]}, "maneuvers"),
    ({"weapons": [{**KNIFE, "sharp": True}]}, "sharp"),
    ({"abilities": [{"name": "x", "target": "enemy"}]}, "effect"),
    ({"abilities": [{"name": "x", "damage": "1d6", "save": "will"}]}, "dc"),
    ({"abilities": [{"name": "x", "condition": "angry"}]}, "condition"),
    ({"abilities": [{"name": "x", "damage": "1d6", "target": "area"}]}, "radius"),
    ({"abilities": [{"name": "x", "heal": "1d6", "target": "enemy"}]}, "target"),
    ({"wield": ["banana"]}, "wield"),
    ({"hp_now": 99}, "hp_now"),
    ({"sp_now": 5}, "sp_now"),
])
def test_bad_stat_blocks_are_refused_naming_the_field(over, field):
    text = yaml.safe_dump({"ruleset": "starfinder", "map": "....\n", "units": [
        unit("A", "pcs", (0, 0), KNIFE, **over), unit("T", "npcs", (3, 0))]}, sort_keys=False)
    with pytest.raises(InputError) as e:
        parse_encounter(text, "bad.yaml", RS)
    assert field in str(e.value) and "bad.yaml line" in str(e.value)


def test_an_unknown_template_names_the_known_ones():
    with pytest.raises(InputError) as e:
        RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": "vesk"}, "here")
    assert "soldier" in str(e.value)


def test_a_template_with_overrides_and_a_wounded_start():
    b = make(floor(4, 1), [{"name": "K", "side": "pcs", "at": [0, 0], "template": "soldier", "hp_now": 9,
                            "sp_now": 4, "eac": 16},
                           {"name": "G", "side": "npcs", "at": [3, 0], "template": "ganger"}])
    k = u(b, "K")
    assert (k.hp, k.state["sp"], k.stats["eac"]) == (13, 4, 16)


@pytest.mark.parametrize("corrupt,field", [
    (lambda x: x["state"].pop("sp"), "state"),
    (lambda x: x["state"].update(wield=[7]), "wield"),
    (lambda x: x["state"].update(conds={"angry": -1}), "conds"),
    (lambda x: x["state"].update(conds={"prone": "yes"}), "conds"),
    (lambda x: x["state"].update(sp=99), "sp"),
    (lambda x: x["state"].update(ammo=[1]), "ammo"),
    (lambda x: x["state"].update(burn=["hot"]), "burn"),
    (lambda x: x["state"].update(tricks=["dazed"]), "tricks"),
    (lambda x: x["stats"].update(eac="x"), "eac"),
    (lambda x: x.update(max_hp=3), "max_hp"),
])
def test_check_unit_refuses_a_broken_play_state(corrupt, field):
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE, LASER, sp=5), unit("T", "npcs", (3, 0))])
    d = b.enc.to_dict()
    corrupt(d["units"][0])
    enc = Encounter.from_dict(d)
    with pytest.raises(InputError) as e:
        RS.check_unit(enc.units[0], "units[0]")
    assert field in str(e.value)


def test_an_encounter_can_set_the_play_state():
    text = yaml.safe_dump({"ruleset": "starfinder", "map": "....\n", "units": [
        {**unit("A", "pcs", (0, 0), KNIFE), "state": {"conds": {"prone": -1}, "zero_g": True}},
        unit("T", "npcs", (3, 0))]}, sort_keys=False)
    enc = parse_encounter(text, "s.yaml", RS)
    assert enc.units[0].state["conds"] == {"prone": -1} and enc.units[0].state["zero_g"]
    bad = text.replace("prone: -1", "prone: forever")
    with pytest.raises(InputError) as e:
        parse_encounter(bad, "s.yaml", RS)
    assert "prone" in str(e.value)


def test_a_battle_state_round_trips_through_json():
    b = make(floor(6, 3), [unit("A", "pcs", (0, 1), KNIFE, LASER, sp=4), unit("T", "npcs", (5, 1), KNIFE)])
    step(b, "ranged_attack", "T", faces=[1])
    d = b.enc.to_dict()
    again = Encounter.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d and RS.legal_actions(again, again.actor) == RS.legal_actions(b.enc, b.enc.actor)


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "encounters" / "starfinder").glob("*.yaml")))
def test_the_shipped_encounters_load_with_both_sides(path):
    enc = load_encounter(path, RS)
    sides = {x.side for x in enc.units}
    assert sides == {"pcs", "npcs"} and enc.grid.width <= 16 and enc.grid.height <= 16
    assert max(sum(x.side == s for x in enc.units) for s in sides) <= 4


def test_validation_leaves_a_template_unchanged():
    before = copy.deepcopy(S.templates()["soldier"])
    RS.make_unit(0, {"name": "S", "side": "pcs", "at": [0, 0], "template": "soldier", "eac": 20}, "s")
    assert S.templates()["soldier"] == before
