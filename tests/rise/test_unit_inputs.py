"""Rise bad input: stat blocks checked strictly (an error names the field), the shipped templates and weapons, damage
already taken (`hp_now` / `dr_now`), a saved play state checked (`check_unit`), and the shipped encounters (they load,
and their JSON round trip is lossless)."""
import copy
import json
from pathlib import Path

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.errors import InputError
from engine.core.policy import RandomPolicy
from engine.core.state import Encounter
from engine.rulesets import get_ruleset
from engine.rulesets.rise import stats as S

RS = get_ruleset("rise")
ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = sorted((ROOT / "configs" / "encounters" / "rise").glob("*.yaml"))
SWORD = {"name": "sword", "damage": "1d6"}


def _spec(**over) -> dict:
    return {"name": "X", "side": "pcs", "at": [0, 0], "template": "bandit", **over}


def _make(**over):
    return RS.make_unit(0, _spec(**over), "test")


def _bad(**over) -> InputError:
    with pytest.raises(InputError) as e:
        _make(**over)
    return e.value


def _w(**over) -> dict:
    """A written-out weapon: a sword with the given fields (tags: {...} among them)."""
    return {**SWORD, **over}


# ---- stat blocks ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("over,where,what", [
    ({"mana": 3}, "test (X)", "unknown creature field 'mana'"),
    ({"hp": "lots"}, ".hp", "'hp' must be int"),
    ({"hp": 12.5}, ".hp", "'hp' must be int"),
    ({"accuracy": 2.5}, ".accuracy", "'accuracy' must be int"),
    ({"level": True}, ".level", "'level' must be int"),
    ({"power": "3"}, ".power", "'power' must be int"),
    ({"brawling": "x"}, ".brawling", "'brawling' must be int"),
    ({"initiative": 1.5}, ".initiative", "'initiative' must be int"),
    ({"shield": "yes"}, ".shield", "'shield' must be bool"),
    ({"minion": 1}, ".minion", "'minion' must be bool"),
    ({"pronoun": 3}, ".pronoun", "'pronoun' must be str"),
    ({"size": "gigantic"}, ".size", "size 'gigantic'"),
    ({"size": 3}, ".size", "'size' must be str"),
    ({"size": "Medium"}, ".size", "size 'Medium'"),
    ({"hp": 0}, "test (X)", "hp must be 1 or more"),
    ({"hp": -4}, "test (X)", "hp must be 1 or more"),
    ({"dr": -1}, "test (X)", "dr 0 or more"),
    ({"speed": 0}, ".speed", "speed 0"),
    ({"speed": -5}, ".speed", "speed -5"),
    ({"speed": 32}, ".speed", "multiple of 5 ft"),
    ({"armor": -1}, ".armor", "armor -1"),
    ({"fortitude": -2}, ".fortitude", "fortitude -2"),
    ({"reflex": -1}, ".reflex", "reflex -1"),
    ({"mental": -1}, ".mental", "mental -1"),
    ({"fatigue_tolerance": -1}, ".fatigue_tolerance", "fatigue_tolerance must be 0 or more"),
    ({"weapons": "broadsword"}, ".weapons", "'weapons' must be list"),
    ({"weapons": ["broadsword", "smallsword", "dagger"]}, ".weapons", "at most 2 weapons"),
])
def test_bad_stat_blocks_name_the_field(over, where, what):
    e = _bad(**over)
    assert where in e.where and what in e.what


def test_a_full_stat_block_without_a_template_needs_every_required_field():
    spec = {"name": "X", "side": "pcs", "at": [0, 0], "hp": 10, "armor": 5, "fortitude": 5, "reflex": 5}
    with pytest.raises(InputError) as e:
        RS.make_unit(0, spec, "test")
    assert "missing field 'mental'" in e.value.what
    unit = RS.make_unit(0, {**spec, "mental": 5}, "test")
    st = unit.stats
    assert (st["level"], st["speed"], st["size"], st["fatigue_tolerance"], st["weapons"]) == (1, 30, "medium", 2, [])
    assert st["brawling"] == 0 and st["initiative"] == 0


def test_unknown_templates_are_refused():
    e = _bad(template="dragon")
    assert "unknown template 'dragon'" in e.what


# ---- weapons --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weapon,where,what", [
    ("lightsaber", "weapons[0]", "unknown weapon 'lightsaber'"),
    ("Broadsword", "weapons[0]", "unknown weapon 'Broadsword'"),
    (7, "weapons[0]", "weapon must be a mapping"),
    ({"name": "w"}, "weapons[0]", "missing field 'damage'"),
    (_w(weight=3), "weapons[0]", "unknown weapon field 'weight'"),
    (_w(damage="2x6"), "weapons[0].damage", "2x6"),
    (_w(damage=6), "weapons[0].damage", "'damage' must be str"),
    (_w(accuracy="1"), "weapons[0].accuracy", "'accuracy' must be int"),
    (_w(exotic="yes"), "weapons[0].exotic", "'exotic' must be bool"),
    (_w(tags=["light"]), "weapons[0].tags", "'tags' must be dict"),
    (_w(tags={"flaming": 1}), "weapons[0].tags.flaming", "unknown weapon tag 'flaming'"),
    (_w(tags={"Light": True}), "weapons[0].tags.Light", "unknown weapon tag 'Light'"),
    (_w(tags={"light": 1}), "weapons[0].tags.light", "tag 'light' takes true"),
    (_w(tags={"heavy": False}), "weapons[0].tags.heavy", "tag 'heavy' takes true"),
    (_w(tags={"keen": 0}), "weapons[0].tags.keen", "tag 'keen' takes a count"),
    (_w(tags={"sweeping": True}), "weapons[0].tags.sweeping", "tag 'sweeping' takes a count"),
    (_w(tags={"resonating": "two"}), "weapons[0].tags.resonating", "tag 'resonating' takes a count"),
    (_w(tags={"impact": -1}), "weapons[0].tags.impact", "tag 'impact' takes a count"),
])
def test_bad_weapons_name_the_field(weapon, where, what):
    e = _bad(weapons=[weapon])
    assert e.where.endswith(where) and what in e.what


@pytest.mark.parametrize("tag,value", [
    ("thrown", [60, 30]), ("thrown", [0, 30]), ("projectile", [-30, 60]), ("thrown", "30/60"), ("thrown", 30),
    ("projectile", [30]), ("projectile", [30, 60, 90]), ("thrown", [30.0, 60]), ("projectile", [True, 60]),
    ("thrown", None),
])
def test_bad_ranges_name_the_tag(tag, value):
    e = _bad(weapons=[_w(tags={tag: value})])
    assert e.where.endswith(f"weapons[0].tags.{tag}") and "is not a range" in e.what


def test_a_weapon_is_projectile_or_thrown_not_both():
    e = _bad(weapons=[_w(tags={"thrown": [30, 60], "projectile": [30, 60]})])
    assert e.where.endswith("weapons[0].tags") and "not both" in e.what


def test_the_off_hand_weapon_is_named_in_the_error():
    e = _bad(weapons=["broadsword", _w(tags={"flaming": 1})])
    assert e.where.endswith("weapons[1].tags.flaming")


def test_written_out_weapons_get_defaults_and_checked_tags():
    w = _make(weapons=[{"damage": "1d8", "tags": {"thrown": [20, 40], "keen": 2, "light": True}}]).stats["weapons"][0]
    assert w == {"name": "weapon 1", "damage": "1d8", "accuracy": 0, "exotic": False,
                 "tags": {"thrown": [20, 40], "keen": 2, "light": True}}
    assert _make(weapons=[_w(tags={"thrown": [30, 30]})]).stats["weapons"][0]["tags"]["thrown"] == [30, 30]


def test_every_weapon_of_weapons_yaml_loads():
    raw = yaml.safe_load((Path(S.__file__).parent / "weapons.yaml").read_text())
    known = S.weapon_list()
    assert set(known) == set(raw) and len(known) >= 10
    for key, w in known.items():
        assert w["name"] == key.replace("_", " ")
        assert set(w) == set(S.WEAPON_KEYS) and set(w["tags"]) <= set(S.TAGS)
        for tag, v in w["tags"].items():
            if tag in S.FLAG_TAGS:
                assert v is True
            elif tag in S.COUNT_TAGS:
                assert type(v) is int and v >= 1
            else:
                assert len(v) == 2 and 0 < v[0] <= v[1]
        unit = _make(weapons=[key])
        assert unit.stats["weapons"] == [w] and unit.state["held"] == [True]
        RS.check_unit(unit, "test")


def test_a_named_weapon_is_a_copy_not_the_shared_list_entry():
    unit = _make(weapons=["spear"])
    unit.stats["weapons"][0]["tags"]["thrown"][0] = 5
    assert S.weapon_list()["spear"]["tags"]["thrown"] == [30, 60]


# ---- templates ------------------------------------------------------------------------------------------------------
def test_the_shipped_templates_are_the_expected_ones():
    assert set(RS.templates()) == {"bandit", "duelist", "archer", "shieldbearer", "brute", "wolf", "hammerer",
                                   "goblin"}


@pytest.mark.parametrize("name", sorted(S.templates()))
def test_every_template_loads(name):
    t = S.templates()[name]
    unit = RS.make_unit(0, {"name": "X", "side": "pcs", "at": [0, 0], "template": name}, "test")
    st = unit.stats
    assert unit.template == name
    assert unit.hp == unit.max_hp == t["hp"] + t.get("dr", 0) and unit.state["dr"] == t.get("dr", 0)
    assert len(st["weapons"]) == len(t["weapons"]) and unit.state["held"] == [True] * len(t["weapons"])
    assert st["size"] in S.SIZES and st["speed"] % 5 == 0
    assert st["brawling"] == t.get("brawling", t.get("level", 1) // 2 + t.get("strength", 0))
    assert st["initiative"] == t.get("initiative", t.get("dexterity", 0))
    assert unit.state == {**S.initial_state(st), "dr": t.get("dr", 0)}
    RS.check_unit(unit, "test")


def test_a_template_field_can_be_overridden_and_the_template_is_untouched():
    unit = _make(hp=30, speed=40, weapons=["kukri", "kukri"])
    assert unit.stats["hp"] == 30 and unit.max_hp == 30 + 6 and unit.stats["speed"] == 40
    assert [w["name"] for w in unit.stats["weapons"]] == ["kukri", "kukri"]
    assert S.templates()["bandit"]["hp"] == 14 and S.templates()["bandit"]["weapons"] == ["broadsword", "smallsword"]
    assert _make().stats["hp"] == 14


# ---- damage already taken -------------------------------------------------------------------------------------------
def test_damage_already_taken():
    unit = _make(hp_now=9, dr_now=2)                   # bandit: 14 hit points, 6 damage resistance
    assert unit.hp == 11 and unit.max_hp == 20 and unit.state["dr"] == 2
    assert RS.unit_summary(unit)["hp"] == 9 and RS.unit_summary(unit)["dr"] == 2
    RS.check_unit(unit, "test")
    unit = _make(dr_now=0)
    assert unit.hp == 14 and unit.state["dr"] == 0


@pytest.mark.parametrize("over,what", [
    ({"hp_now": 0}, "hp_now 0"), ({"hp_now": 15}, "hp_now 15"), ({"hp_now": -3}, "hp_now -3"),
    ({"hp_now": "full"}, "hp_now 'full'"), ({"hp_now": True}, "hp_now True"), ({"hp_now": 7.5}, "hp_now 7.5"),
    ({"dr_now": -1}, "dr_now -1"), ({"dr_now": 7}, "dr_now 7"), ({"dr_now": True}, "dr_now True"),
    ({"dr_now": "none"}, "dr_now 'none'"),
])
def test_bad_damage_taken_is_refused(over, what):
    e = _bad(**over)
    assert what in e.what


def test_hp_now_is_checked_against_the_overridden_hit_points():
    assert _make(hp=30, hp_now=25).hp == 25 + 6
    e = _bad(hp=10, hp_now=12)
    assert "hp_now 12 must be 1..10" in e.what


# ---- saved play states ----------------------------------------------------------------------------------------------
def _saved():
    """A started battle's state (a bandit with two weapons, an archer) as `Encounter.to_dict` writes it."""
    text = yaml.safe_dump({"ruleset": "rise", "name": "t", "map": "......\n", "units": [
        _spec(name="A"), {"name": "T", "side": "npcs", "at": [5, 0], "template": "archer"}]}, sort_keys=False)
    b = Battle(parse_encounter(text, "t.yaml", RS), RS, SeededDice(0))
    b.start()
    return b.enc.to_dict()


def _check(corrupt):
    d = _saved()
    corrupt(d["units"][0])
    enc = Encounter.from_dict(json.loads(json.dumps(d)))
    with pytest.raises(InputError) as e:
        RS.check_unit(enc.units[0], "units[0]")
    return e.value


@pytest.mark.parametrize("corrupt,where,what", [
    (lambda x: x["state"].update(held=[True]), "state.held", "each of the 2 weapons"),
    (lambda x: x["state"].update(held=[True, "yes"]), "state.held", "'held'"),
    (lambda x: x["state"].update(fatigue=-1), "state.fatigue", "fatigue must be 0 or more"),
    (lambda x: x["state"].update(vital=-2), "state.vital", "vital must be 0 or more"),
    (lambda x: x["state"].update(vital=1.5), "state.vital", "'vital' is 1.5"),
    (lambda x: x["state"].update(prone="yes"), "state.prone", "'prone' is 'yes'"),
    (lambda x: x["state"].update(grapple=["T"]), "state.grapple", "grapple must list creature ids"),
    (lambda x: x["state"].update(grapple=3), "state.grapple", "'grapple' is 3"),
    (lambda x: x["state"].update(brief="none"), "state.brief", "'brief'"),
    (lambda x: x["state"].update(surprised=1), "state.surprised", "'surprised' is 1"),
    (lambda x: x["state"].update(dr=7), "state.dr", "dr 7"),
    (lambda x: x["state"].update(dr=-1), "state.dr", "dr -1"),
    (lambda x: x.update(hp=4), "state.dr", "hp 4"),            # less than the damage resistance it claims
    (lambda x: x.update(hp=21), "state.dr", "hp 21"),          # more than its maximum
    (lambda x: x.update(max_hp=30), "max_hp", "max_hp 30"),
    (lambda x: x["state"].pop("fatigue"), "state", "lacks ['fatigue']"),
    (lambda x: x["state"].update(stunned=True), "state", "unknown keys ['stunned']"),
    (lambda x: x["stats"].update(size="vast"), "stats.size", "size 'vast'"),
    (lambda x: x["stats"].update(mana=2), "stats", "unknown creature field 'mana'"),
    (lambda x: x["stats"].update(hp="14"), "stats.hp", "'hp' must be int"),
    (lambda x: x["stats"]["weapons"][0]["tags"].update(flaming=1), "stats.weapons[0].tags.flaming",
     "unknown weapon tag 'flaming'"),
    (lambda x: x["stats"]["weapons"][1]["tags"].update(light=2), "stats.weapons[1].tags.light", "takes true"),
    (lambda x: x["stats"]["weapons"].append({"name": "w", "damage": "1d4"}), "stats.weapons", "at most 2"),
])
def test_check_unit_refuses_a_broken_play_state(corrupt, where, what):
    e = _check(corrupt)
    assert e.where == f"units[0].{where}" and what in e.what


def test_a_saved_play_state_that_is_not_a_mapping_is_refused():
    d = _saved()
    d["units"][0]["state"] = "fine"
    with pytest.raises(InputError) as e:
        Encounter.from_dict(d)
    assert e.value.where == "units[0].state"
    unit = _make()
    unit.state = ["fine"]
    with pytest.raises(InputError) as e:
        RS.check_unit(unit, "units[0]")
    assert e.value.where == "units[0].state" and "must be a mapping" in e.value.what


def test_check_unit_accepts_a_saved_state_and_a_good_correction():
    d = _saved()
    enc = Encounter.from_dict(json.loads(json.dumps(d)))
    for n, x in enumerate(enc.units):
        RS.check_unit(x, f"units[{n}]")
    a = enc.units[0]
    a.state.update(fatigue=3, vital=1, prone=True, held=[True, False], dr=0)
    a.hp = 5
    RS.check_unit(a, "units[0]")


def _encounter_with_state(state: dict) -> str:
    return yaml.safe_dump({"ruleset": "rise", "name": "t", "map": "......\n", "units": [
        {**_spec(name="A"), "state": state}, {"name": "T", "side": "npcs", "at": [5, 0], "template": "archer"}]},
        sort_keys=False)


@pytest.mark.parametrize("state,what", [
    ({"fatigue": -1}, "fatigue must be 0 or more"),
    ({"held": [True]}, "each of the 2 weapons"),
    ({"prone": "yes"}, "'prone' is 'yes'"),
    ({"dr": 9}, "dr 9"),
    ({"grapple": ["T"]}, "grapple must list creature ids"),
    ({"stunned": True}, "unknown play-state key 'stunned'"),
])
def test_an_encounter_file_with_a_bad_play_state_is_refused(state, what):
    with pytest.raises(InputError) as e:
        parse_encounter(_encounter_with_state(state), "t.yaml", RS)
    assert what in e.value.what and "t.yaml" in e.value.where


def test_an_encounter_file_can_set_the_play_state():
    state = {"fatigue": 2, "prone": True, "surprised": True, "held": [True, False]}
    enc = parse_encounter(_encounter_with_state(state), "t.yaml", RS)
    s = enc.units[0].state
    assert (s["fatigue"], s["prone"], s["surprised"], s["held"]) == (2, True, True, [True, False])


# Gaps of `check_unit` (engine/rulesets/rise/stats.py): it checks that `brief` is a list and `grapple` a list of ints
# but not what is in them, so these states pass every check and then crash the battle (start_round reads b[2] of each
# brief entry, brief_penalty unpacks three; the grapple ids index enc.units). xfail until they are refused.
@pytest.mark.parametrize("brief", [[["all", 2]], ["x"], [["all", "two", 3]], [["legs", 2, 3]]])
def test_a_malformed_brief_entry_is_refused(brief):
    try:
        parse_encounter(_encounter_with_state({"brief": brief}), "t.yaml", RS)
    except InputError as e:
        assert "brief" in str(e)
        return
    raise AssertionError(f"brief {brief!r} accepted")


@pytest.mark.xfail(reason="nothing checks that grapple ids name other creatures of the encounter",
                   raises=AssertionError, strict=False)
def test_a_grapple_with_a_creature_that_does_not_exist_is_refused():
    try:
        parse_encounter(_encounter_with_state({"grapple": [7]}), "t.yaml", RS)
    except InputError as e:
        assert "grapple" in str(e)
        return
    raise AssertionError("grapple [7] accepted in a 2-creature encounter")


# ---- the shipped encounters -----------------------------------------------------------------------------------------
def test_the_shipped_encounters_are_there():
    names = {p.stem for p in ENCOUNTERS}
    assert "skirmish_4v4" in names and len(names) >= 4


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_the_shipped_encounters_load_with_both_sides(path):
    enc = load_encounter(path, RS)
    assert enc.ruleset == "rise" and enc.name and enc.round_limit >= 10
    sides = [x.side for x in enc.units]
    assert set(sides) == {"pcs", "npcs"} and max(sides.count("pcs"), sides.count("npcs")) <= 4
    assert enc.grid.width <= 16 and enc.grid.height <= 16
    for n, x in enumerate(enc.units):
        RS.check_unit(x, f"units[{n}]")
    assert yaml.safe_load(path.read_text())["description"].strip()


def test_the_bench_skirmish_is_a_mirrored_4v4_on_16x16():
    enc = load_encounter(ROOT / "configs" / "encounters" / "rise" / "skirmish_4v4.yaml", RS)
    g = enc.grid
    assert (g.width, g.height) == (16, 16)
    assert all(g.rows[y][x] == g.rows[15 - y][15 - x] for y in range(16) for x in range(16))
    pcs = sorted((x.template, (15 - x.pos[0], 15 - x.pos[1])) for x in enc.units if x.side == "pcs")
    npcs = sorted((x.template, x.pos) for x in enc.units if x.side == "npcs")
    assert len(pcs) == 4 and pcs == npcs


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_the_shipped_encounters_round_trip_through_json(path):
    enc = load_encounter(path, RS)
    d = enc.to_dict()
    again = Encounter.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    for a, b in zip(enc.units, again.units):
        assert (a.name, a.side, a.pos, a.hp, a.max_hp, a.template, a.tactics) == \
            (b.name, b.side, b.pos, b.hp, b.max_hp, b.template, b.tactics)
        assert a.stats == b.stats and a.state == b.state
        RS.check_unit(b, b.name)
    assert again.grid.rows == enc.grid.rows and again.round_limit == enc.round_limit
    # mid-battle too: the restored state plays on exactly as the original
    b1 = Battle(enc.clone(), RS, SeededDice(3))
    b1.start()
    policy = RandomPolicy(3)
    for _ in range(40):
        if b1.over:
            break
        b1.step(policy.choose(b1))
    d = b1.enc.to_dict()
    restored = Encounter.from_dict(json.loads(json.dumps(d)))
    assert restored.to_dict() == d
    b2 = Battle(restored, RS, SeededDice(0))
    b2.dice.setstate(b1.dice.getstate())
    if not b1.over:
        assert b2.legal() == b1.legal()
        choice = policy.choose(b1)
        assert [e.to_dict() for e in b1.step(choice)] == [e.to_dict() for e in b2.step(choice)]
        assert b1.enc.to_dict() == b2.enc.to_dict()


def test_a_tampered_saved_encounter_is_refused_by_check_unit():
    enc = load_encounter(ENCOUNTERS[0], RS)
    d = copy.deepcopy(enc.to_dict())
    d["units"][0]["state"]["held"] = []
    again = Encounter.from_dict(d)
    with pytest.raises(InputError) as e:
        RS.check_unit(again.units[0], "units[0]")
    assert e.value.where == "units[0].state.held"
