"""Stat blocks: strict validation (an error names the field), the shipped templates, the Defense formula, hull plus
shields, damage already taken, a saved play state checked."""
import copy

import pytest
import yaml

from engine.core.encounter_file import parse_encounter
from engine.core.errors import InputError
from engine.rulesets.starship import stats as S

from .helpers import GUN, LASER, RS, ship


def _make(*weapons, **over):
    return RS.make_unit(0, ship("X", "pcs", (0, 0), *(weapons or (LASER,)), **over), "test")


def _bad(*weapons, **over):
    with pytest.raises(InputError) as e:
        _make(*weapons, **over)
    return e.value


@pytest.mark.parametrize("over,where,what", [
    ({"warp": 3}, "test", "unknown ship field 'warp'"),
    ({"size": "enormous"}, ".size", "size 'enormous'"),
    ({"speed": 0}, ".speed", "speed 0"),
    ({"hp": 0}, "test", "hp must be 1 or more"),
    ({"dr": -1}, "test", "dr 0 or more"),
    ({"hp": "lots"}, ".hp", "'hp' must be int"),
    ({"pilot": 2.5}, ".pilot", "'pilot' must be int"),
    ({"damage_control": "lots"}, ".damage_control", "'lots'"),
    ({"point_defense": {"guns": 2}}, ".point_defense", "unknown point defense field 'guns'"),
    ({"point_defense": {"damage": "3x6"}}, ".point_defense.damage", "3x6"),
    ({"tractor": {"strength": 2}}, ".tractor", "unknown tractor beam field 'strength'"),
])
def test_bad_stat_blocks_name_the_field(over, where, what):
    e = _bad(**over)
    assert where in e.where and what in e.what


@pytest.mark.parametrize("weapon,where,what", [
    ({**LASER, "kind": "missile"}, "weapons[0].kind", "kind 'missile'"),
    ({**LASER, "critical": 1}, "weapons[0].critical", "critical 1"),
    ({**LASER, "critical": 21}, "weapons[0].critical", "critical 21"),
    ({**LASER, "range": 0}, "weapons[0].range", "range 0"),
    ({**LASER, "multiplier": 0}, "weapons[0].multiplier", "multiplier 0"),
    ({**LASER, "linked": 0}, "weapons[0].linked", "linked 0"),
    ({**LASER, "ammo": -1}, "weapons[0].ammo", "ammo -1"),
    ({**LASER, "damage": "2x6"}, "weapons[0].damage", "2x6"),
    ({**LASER, "heat": 3}, "weapons[0]", "unknown weapon field 'heat'"),
    ({k: v for k, v in LASER.items() if k != "range"}, "weapons[0]", "missing field 'range'"),
])
def test_bad_weapons_name_the_field(weapon, where, what):
    e = _bad(weapon)
    assert where in e.where and what in e.what


@pytest.mark.parametrize("crit", [2, 19, 20])
def test_critical_threat_ranges_accepted(crit):
    assert _make({**LASER, "critical": crit}).stats["weapons"][0]["critical"] == crit


def test_at_most_four_weapons():
    four = [{**LASER, "name": f"l{n}"} for n in range(4)]
    assert len(_make(*four).stats["weapons"]) == 4
    e = _bad(*four, {**GUN, "name": "g5"})
    assert e.where.endswith(".weapons") and "at most 4 weapons" in e.what


def test_weapon_defaults():
    w = _make({"name": "w", "damage": "2d8", "range": 3}).stats["weapons"][0]
    assert (w["kind"], w["multiplier"], w["linked"], w["ammo"], w["critical"], w["attack"]) == \
        ("beam", 1, 1, 0, 20, 0)


@pytest.mark.parametrize("name", sorted(S.templates()))
def test_every_template_loads(name):
    t = S.templates()[name]
    unit = RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": name}, "test")
    st = unit.stats
    assert st["defense"] == 10 + S.SIZES[t["size"]] + t.get("armor", 0) + t.get("pilot_dex", 0)
    assert unit.hp == unit.max_hp == t["hp"] + t.get("sp", 0) and unit.state["sp"] == t.get("sp", 0)
    assert unit.state["ammo"] == [w.get("ammo", 0) or -1 for w in t["weapons"]]
    RS.check_unit(unit, "test")


def test_the_shipped_templates_are_the_expected_ones():
    assert set(RS.templates()) == {"light_fighter", "heavy_fighter", "interceptor", "bomber", "light_freighter",
                                   "gunship", "corvette"}


@pytest.mark.parametrize("size,armor,dex,expected", [
    ("medium", 0, 0, 10), ("diminutive", 2, 3, 10 + 4 + 2 + 3), ("colossal", 5, 0, 10 - 8 + 5),
    ("huge", 3, 1, 10 - 2 + 3 + 1), ("fine", 0, 0, 18), ("small", 1, -1, 10 + 1 + 1 - 1),
])
def test_defense_is_10_plus_size_armor_and_pilot_dex(size, armor, dex, expected):
    assert _make(size=size, armor=armor, pilot_dex=dex).stats["defense"] == expected


def test_a_given_defense_is_kept():
    assert _make(size="tiny", armor=4, defense=25).stats["defense"] == 25


def test_initiative_defaults_to_the_pilot_bonus():
    assert _make(pilot=7, initiative=None).stats["initiative"] == 7
    assert _make(pilot=7, initiative=2).stats["initiative"] == 2


def test_a_template_field_can_be_overridden():
    unit = RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": "gunship", "speed": 9}, "test")
    assert unit.stats["speed"] == 9 and unit.stats["hp"] == 120
    with pytest.raises(InputError) as e:
        RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": "gunship", "warp": 1}, "test")
    assert "unknown ship field 'warp'" in e.value.what
    with pytest.raises(InputError) as e:
        RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": "star_destroyer"}, "test")
    assert "unknown template 'star_destroyer'" in e.value.what


# ---- hull and shields ---------------------------------------------------------------------------------------------
def test_hp_is_hull_plus_shields():
    unit = _make(hp=40, sp=15)
    assert unit.hp == unit.max_hp == 55 and unit.state["sp"] == 15
    assert RS.unit_summary(unit)["hull"] == 40 and RS.unit_summary(unit)["shields"] == 15


def test_damage_already_taken():
    unit = _make(hp=40, sp=15, hp_now=30, sp_now=5)
    assert unit.hp == 35 and unit.max_hp == 55 and unit.state["sp"] == 5
    assert RS.unit_summary(unit)["hull"] == 30


@pytest.mark.parametrize("over,what", [
    ({"hp_now": 0}, "hp_now 0"), ({"hp_now": 41}, "hp_now 41"), ({"hp_now": "full"}, "hp_now 'full'"),
    ({"sp_now": 16}, "sp_now 16"), ({"sp_now": -1}, "sp_now -1"), ({"hp_now": True}, "hp_now True"),
])
def test_bad_damage_taken_is_refused(over, what):
    e = _bad(hp=40, sp=15, **over)
    assert what in e.what


# ---- saved play states ----------------------------------------------------------------------------------------------------
def _state_error(state):
    units = [ship("A", "pcs", (0, 0), LASER, GUN, sp=10, state=state), ship("T", "npcs", (3, 0), LASER)]
    text = yaml.safe_dump({"ruleset": "starship", "name": "t", "map": "....\n", "units": units}, sort_keys=False)
    with pytest.raises(InputError) as e:
        parse_encounter(text, "t.yaml", RS)
    return e.value


@pytest.mark.parametrize("state,where,what", [
    ({"ammo": [1]}, "state.ammo", "for each of the 2 weapons"),
    ({"ammo": [1, -2]}, "state.ammo", "'ammo'"),
    ({"sp": 11}, "state.sp", "sp 11"),
    ({"dodge": -2}, "state.dodge", "dodge must be 0 or more"),
    ({"fled": "yes"}, "state.fled", "'fled' is 'yes'"),
    ({"grappled_by": "T"}, "state.grappled_by", "'grappled_by'"),
    ({"shields_up": True}, "", "unknown play-state key 'shields_up'"),
])
def test_a_bad_play_state_is_refused(state, where, what):
    e = _state_error(state)
    assert where in e.where and what in e.what


def test_a_good_play_state_is_kept():
    units = [ship("A", "pcs", (0, 0), LASER, GUN, state={"ammo": [-1, 3], "limited": True, "dodge": 2}),
             ship("T", "npcs", (3, 0), LASER)]
    text = yaml.safe_dump({"ruleset": "starship", "name": "t", "map": "....\n", "units": units}, sort_keys=False)
    enc = parse_encounter(text, "t.yaml", RS)
    a = enc.unit("A")
    assert a.state["ammo"] == [-1, 3] and a.state["limited"] and a.state["dodge"] == 2


def test_check_unit_refuses_a_tampered_unit():
    unit = _make(hp=40, sp=10)
    RS.check_unit(unit, "saved")
    bad = copy.deepcopy(unit)
    bad.max_hp = 60
    with pytest.raises(InputError) as e:
        RS.check_unit(bad, "saved")
    assert "max_hp 60" in e.value.what and e.value.where == "saved.max_hp"
    bad = copy.deepcopy(unit)
    del bad.state["jumping"]
    with pytest.raises(InputError) as e:
        RS.check_unit(bad, "saved")
    assert "lacks ['jumping']" in e.value.what
    bad = copy.deepcopy(unit)
    bad.hp = 5                               # less than the shields it claims
    with pytest.raises(InputError) as e:
        RS.check_unit(bad, "saved")
    assert e.value.where == "saved.state.sp"
    bad = copy.deepcopy(unit)
    bad.stats = {**bad.stats, "size": "vast"}
    with pytest.raises(InputError) as e:
        RS.check_unit(bad, "saved")
    assert e.value.where == "saved.stats.size"
