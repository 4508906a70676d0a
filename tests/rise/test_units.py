"""Rise stat blocks: the template library, hit points and damage resistance, defaults (brawling = half level +
Strength, initiative = Dexterity), and bad stat blocks refused naming the field and the fix."""
import pytest

from engine.core.errors import InputError

from .helpers import RS, SWORD, floor, make, u, unit


def test_the_templates_build_and_carry_their_weapons():
    names = sorted(RS.templates())
    assert len(names) >= 6
    b = make(floor(9, 1), [{"name": n, "side": "pcs" if k % 2 else "npcs", "at": [k, 0], "template": n}
                           for k, n in enumerate(names)])
    bandit = u(b, "bandit")
    assert [w["name"] for w in bandit.stats["weapons"]] == ["broadsword", "smallsword"]
    assert bandit.hp == bandit.stats["hp"] + bandit.stats["dr"] == bandit.max_hp
    assert u(b, "goblin").stats["minion"] is True


def test_hit_points_count_damage_resistance_and_a_creature_may_start_hurt():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, hp=12, dr=5, hp_now=7, dr_now=2),
                           unit("B", "npcs", (2, 0), SWORD)])
    a = u(b, "A")
    assert (a.hp, a.max_hp, a.state["dr"]) == (7 + 2, 12 + 5, 2)


def test_brawling_defaults_to_half_level_plus_strength_and_initiative_to_dexterity():
    spec = unit("A", "pcs", (0, 0), SWORD, level=5, strength=2, dexterity=3)
    del spec["brawling"], spec["initiative"]
    b = make(floor(3, 1), [spec, unit("B", "npcs", (2, 0), SWORD)])
    assert u(b, "A").stats["brawling"] == 5 // 2 + 2 and RS.initiative_bonus(u(b, "A")) == 3


@pytest.mark.parametrize("over,words", [
    ({"weapons": [{"name": "x", "damage": "1d6", "tags": {"flaming": 1}}]}, ["tags.flaming", "Rise weapon tags"]),
    ({"weapons": ["sabre"]}, ["weapons[0]", "unknown weapon 'sabre'", "weapons.yaml"]),
    ({"weapons": [SWORD, SWORD, SWORD]}, ["weapons", "at most 2"]),
    ({"hp_now": 99}, ["hp_now 99", "1..20"]),
    ({"size": "tiny"}, [".size", "small, medium, large, huge"]),
    ({"speed": 33}, [".speed", "multiple of 5 ft"]),
    ({"state": {"bogus": 1}}, ["bogus", "Rise keys"]),
    ({"weapons": [{"name": "x", "damage": "1d6", "tags": {"keen": 0}}]}, ["tags.keen", "keen: 1"]),
])
def test_a_bad_stat_block_is_refused_naming_the_field_and_the_fix(over, words):
    with pytest.raises(InputError) as e:
        make(floor(3, 1), [unit("A", "pcs", (0, 0), **{"weapons": [SWORD], **over}), unit("B", "npcs", (2, 0))])
    assert all(w in str(e.value) for w in words), str(e.value)
