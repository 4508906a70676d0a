"""Stat blocks: strict validation (an error names the field), the shipped templates, the AC formula."""
import copy

import pytest

from engine.core.errors import InputError
from engine.rulesets.swurpg import combat as C
from engine.rulesets.swurpg import stats as S

from .helpers import BLASTER, FRAG, KNIFE, RS, unit


def _make(**over):
    return RS.make_unit(0, unit("X", "pcs", (0, 0), KNIFE, **over), "test")


def _bad(spec_over=None, weapon=None):
    spec = unit("X", "pcs", (0, 0), *( [weapon] if weapon else [KNIFE]), **(spec_over or {}))
    with pytest.raises(InputError) as e:
        RS.make_unit(0, spec, "test")
    return e.value


@pytest.mark.parametrize("over,where,what", [
    ({"flying": 30}, "test", "unknown unit field 'flying'"),
    ({"hp": 0}, "hp", "hp 0"),
    ({"str": 31}, "str", "not an ability score"),
    ({"speed": 33}, "speed", "steps of 5"),
    ({"size": "colossal"}, "size", "colossal"),
    ({"resist": ["blaster"]}, "resist", "'blaster' is not a damage type"),
    ({"vulnerable": ["wet"]}, "vulnerable", "not a damage type"),
    ({"immune": ["fear"]}, "immune", "not a damage type"),
    ({"dr": {"energy": -1}}, "dr", "dr energy"),
    ({"traits": ["jedi_reflexes"]}, "traits", "jedi_reflexes"),
    ({"saves": ["luck"]}, "saves", "luck"),
    ({"skills": {"piloting": 3}}, "skills", "piloting"),
    ({"armor": {"category": "power"}}, "armor.category", "power"),
    ({"armor": {"category": "light", "weight": 3}}, "armor", "unknown armor field 'weight'"),
    ({"armor_proficiency": ["none"]}, "armor_proficiency", "none"),
    ({"regeneration": -2}, "regeneration", "regeneration"),
    ({"wield": ["lightsaber"]}, "wield", "lightsaber"),
    ({"hp": "lots"}, "hp", "'hp' must be"),
])
def test_bad_stat_blocks_name_the_field(over, where, what):
    e = _bad(over)
    assert where in e.where and what in e.what


@pytest.mark.parametrize("weapon,where,what", [
    ({**KNIFE, "type": "laser"}, "weapons[0].type", "damage type 'laser'"),
    ({**KNIFE, "kind": "bow"}, "weapons[0].kind", "bow"),
    ({**KNIFE, "damage": "2x6"}, "weapons[0].damage", "2x6"),
    ({**KNIFE, "hands": 3}, "weapons[0].hands", "hands 3"),
    ({**KNIFE, "sharp": True}, "weapons[0]", "unknown weapon field 'sharp'"),
    ({**BLASTER, "range": 0}, "weapons[0].range", "needs a range"),
    ({**BLASTER, "range": 62}, "weapons[0].range", "steps of 5"),
    ({**BLASTER, "long": 30}, "weapons[0].long", "shorter"),
    ({**KNIFE, "thrown": True}, "weapons[0].range", "needs a range"),
    ({k: v for k, v in FRAG.items() if k != "dc"}, "weapons[0]", "save DC"),
    ({**FRAG, "count": 0}, "weapons[0]", "how many"),
    ({**KNIFE, "autofire": True}, "weapons[0].autofire", "full auto"),
    ({**KNIFE, "condition": "sleepy", "condition_dc": 10}, "weapons[0].condition", "sleepy"),
    ({**KNIFE, "condition": "bleeding"}, "weapons[0].condition_dc", "save DC"),
    ({**KNIFE, "save": "luck"}, "weapons[0].save", "luck"),
    ({**KNIFE, "stun_dc": "ten"}, "weapons[0].stun_dc", "'stun_dc' must be"),
])
def test_bad_weapons_name_the_field(weapon, where, what):
    e = _bad(weapon=weapon)
    assert where in e.where and what in e.what


def test_at_most_four_weapons():
    e = _bad({"weapons": [dict(KNIFE, name=f"k{n}") for n in range(5)]})
    assert "weapons" in e.where


def test_every_template_loads():
    names = sorted(S.templates())
    assert {"stormtrooper", "smuggler", "jedi", "besalisk_brute", "battle_droid"} <= set(names)
    for n, name in enumerate(names):
        unit_ = RS.make_unit(n, {"name": name, "side": "npcs", "at": [0, 0], "template": name}, "test")
        RS.check_unit(unit_, "test")
        assert unit_.hp == unit_.max_hp == unit_.stats["hp"] > 0


def test_a_template_with_overrides_is_validated_again():
    with pytest.raises(InputError) as e:
        RS.make_unit(0, {"name": "S", "side": "npcs", "at": [0, 0], "template": "stormtrooper", "size": "big"}, "t")
    assert "size" in e.value.where
    with pytest.raises(InputError):
        RS.make_unit(0, {"name": "S", "side": "npcs", "at": [0, 0], "template": "nobody"}, "t")


@pytest.mark.parametrize("hp_now", [0, 17, "full"])
def test_hp_now_within_the_maximum(hp_now):
    with pytest.raises(InputError) as e:
        RS.make_unit(0, {"name": "S", "side": "npcs", "at": [0, 0], "template": "stormtrooper", "hp_now": hp_now}, "t")
    assert "hp_now" in e.value.what


# ---- armor class -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("over,ac", [
    ({}, 10),
    ({"dex": 16}, 13),                                                                   # unarmored: 10 + Dex
    ({"dex": 8}, 9),
    ({"dex": 18, "armor": {"category": "light", "bonus": 2}}, 16),                       # light: the full Dex
    ({"dex": 18, "armor": {"category": "medium", "bonus": 5, "max_dex": 2}}, 17),        # capped at +2
    ({"dex": 18, "armor": {"category": "heavy", "bonus": 8, "max_dex": 0}}, 18),
    ({"dex": 8, "armor": {"category": "heavy", "bonus": 8, "max_dex": 0}}, 17),          # a penalty is not capped
    ({"dex": 14, "shield": 2}, 14),
    ({"size": "small"}, 11), ({"size": "tiny"}, 12), ({"size": "large"}, 9), ({"size": "huge"}, 8),
    ({"size": "gargantuan"}, 6),
    ({"dex": 16, "ac_bonus": 2}, 15),                                                    # Defensive Training
    ({"dex": 14, "armor": {"category": "medium", "bonus": 5, "max_dex": 2}, "shield": 1, "size": "small",
      "ac_bonus": 1}, 10 + 2 + 5 + 1 + 1 + 1),
    # armor of a category it is not proficient with gives no bonus
    ({"armor": {"category": "heavy", "bonus": 8, "max_dex": 0}, "armor_proficiency": ["light", "medium"]}, 10),
    ({"armor": {"category": "light", "bonus": 2}, "armor_proficiency": ["light"]}, 12),
    ({"dex": 14, "armor": {"category": "none", "bonus": 3}}, 12),
])
def test_armor_class(over, ac):
    assert C.armor_class(_make(**over)) == ac


@pytest.mark.parametrize("name,ac", [("stormtrooper", 10 + 1 + 5), ("jedi", 10 + 3 + 2), ("security_guard", 10 + 1 + 2 + 2),
                                     ("smuggler", 10 + 3 + 1), ("battle_droid", 13)])
def test_template_armor_classes(name, ac):
    assert C.armor_class(RS.make_unit(0, {"name": name, "side": "npcs", "at": [0, 0], "template": name}, "t")) == ac


def test_stat_block_defaults():
    x = _make()
    assert x.stats["prof"] == 2 and x.stats["speed"] == 30 and x.stats["size"] == "medium"
    assert x.state["wield"] == [0] and x.state["reaction"] and x.state["death"] == [0, 0]


def test_grenades_are_not_in_hand_at_the_start_and_count():
    x = RS.make_unit(0, unit("X", "pcs", (0, 0), FRAG, KNIFE), "t")
    assert x.state["wield"] == [1] and x.state["ammo"] == [2, -1]
