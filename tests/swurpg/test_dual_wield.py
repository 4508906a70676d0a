"""Dual wielding: -5 on both attacks while two weapons are wielded (less with Dual Wielder I / II: -3 / -1 as
implemented), the off-hand attack as a Bonus Action only after a main-hand attack, its damage the dice and the
weapon's upgrades only, the 1.5 kg light rule, four-armed Strength 14+ wielding two two-handed weapons."""
import pytest

from engine.core.errors import InputError

from .helpers import AXE, BLASTER, KNIFE, RS, actions, first, floor, legal_targets, make, step, u, unit, why

PISTOL = {**BLASTER, "name": "pistol", "light": True}
HOLDOUT = {"name": "holdout", "kind": "ranged", "damage": "1d4", "type": "energy", "range": 30, "long": 90,
           "light": True}
VIBRO = {"name": "vibroblade", "kind": "melee", "damage": "1d6", "type": "slashing", "light": True}
AXE2 = {**AXE, "name": "axe two"}


def _gunner(*weapons, wield=None, at=(3, 0), **over):
    weapons = weapons or (PISTOL, HOLDOUT)
    wield = [w["name"] for w in weapons[:2]] if wield is None else wield
    return make(floor(5, 1), [unit("A", "pcs", (0, 0), *weapons, wield=wield, **over),
                              unit("T", "npcs", at, KNIFE, hp=60)])


@pytest.mark.parametrize("traits,penalty", [([], 5), (["dual_wielder_1"], 3), (["dual_wielder_2"], 1),
                                            (["dual_wielder_1", "dual_wielder_2"], 1)])
def test_both_attacks_take_the_dual_wield_penalty(traits, penalty):
    b = _gunner(dex=14, traits=traits)
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 2 + 2 - penalty
    assert first(step(b, "off_hand", "T", faces=[2]), "attack").get("bonus") == 2 + 2 - penalty


def test_one_weapon_in_hand_no_penalty():
    b = _gunner(wield=["pistol"], dex=14)
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 4


def test_wielding_two_without_the_off_hand_attack_still_takes_the_penalty_but_forces_no_bonus_action():
    b = _gunner(dex=14)
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 4 - 5
    assert b.actor is u(b, "A") and "off_hand" in actions(b)   # the Bonus Action may be left unused
    step(b, "end_turn")
    assert b.actor is u(b, "T")


def test_stowing_the_off_hand_weapon_ends_the_penalty():
    b = _gunner(dex=14)
    step(b, "stow")
    assert u(b, "A").state["wield"] == [0]
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 4


def test_the_off_hand_attack_follows_a_main_hand_attack_only():
    b = _gunner()
    assert "off_hand" not in actions(b)
    assert "follows a main-hand attack" in why(b, "off_hand", "T")
    step(b, "dodge")                       # the Action spent on something else
    assert "off_hand" not in actions(b)


def test_the_off_hand_attack_is_the_bonus_action_once():
    b = _gunner()
    step(b, "attack", "T", faces=[2])
    assert "T" in legal_targets(b, "off_hand")
    step(b, "off_hand", "T", faces=[2])
    assert b.actor is u(b, "A") and b.enc.budget["bonus"] == 0
    assert "off_hand" not in actions(b)
    assert "Bonus Action" in why(b, "off_hand", "T")


def test_off_hand_damage_is_dice_and_weapon_upgrades_only():
    sword = {**VIBRO, "name": "sword", "light": False}
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), sword, {**VIBRO, "bonus_damage": 1}, str=16,
                                wield=["sword", "vibroblade"], traits=["dual_wielder_2"]),
                           unit("T", "npcs", (1, 0), KNIFE, hp=60)])
    main = step(b, "attack", "T", faces=[15, 4])
    assert first(main, "damage").get("amount") == 4 + 3            # main hand: + Str
    off = step(b, "off_hand", "T", faces=[15, 4])
    assert first(off, "damage").get("amount") == 4 + 1             # off hand: the dice + its upgrade, no Str


def test_off_hand_ranged_damage_has_no_dex_even_for_a_dex_damage_weapon():
    b = _gunner(PISTOL, {**HOLDOUT, "dex_damage": True}, dex=18)
    step(b, "attack", "T", faces=[15, 3])
    assert first(step(b, "off_hand", "T", faces=[15, 3]), "damage").get("amount") == 3


def test_an_off_hand_critical_doubles_the_dice_only():
    b = _gunner(PISTOL, {**HOLDOUT, "bonus_damage": 2}, dex=18)
    step(b, "attack", "T", faces=[2])
    assert first(step(b, "off_hand", "T", faces=[20, 3, 4]), "damage").get("amount") == 3 + 4 + 2


@pytest.mark.parametrize("off,ok", [
    ({**VIBRO, "light": False, "mass": 1.5}, True),     # 1.5 kg: light for the off hand
    ({**VIBRO, "light": False, "mass": 1.0}, True),     # a 1 kg lightsaber
    ({**VIBRO, "light": False, "mass": 1.6}, False),    # heavier: not light
    ({**VIBRO, "light": False}, False),                 # no mass given, not light
    ({**VIBRO, "light": True, "mass": 3.0}, True),      # the light property
])
def test_the_off_hand_weapon_must_be_light_or_at_most_1_5_kg(off, ok):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), VIBRO, {**off, "name": "second"}, wield=["vibroblade", "second"]),
                           unit("T", "npcs", (1, 0), KNIFE, hp=60)])
    step(b, "attack", "T", faces=[2])
    assert ("off_hand" in actions(b)) == ok
    if not ok:
        assert "no light weapon" in why(b, "off_hand", "T")


def test_four_armed_str_14_wields_two_two_handed_weapons_still_at_minus_5():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), AXE, AXE2, str=14, traits=["four_armed"],
                                wield=["axe", "axe two"]), unit("T", "npcs", (1, 0), KNIFE, hp=60)])
    assert u(b, "A").state["wield"] == [0, 1]
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 2 + 2 - 5
    assert "T" in legal_targets(b, "off_hand")      # any weapon in the off hand for four arms
    assert first(step(b, "off_hand", "T", faces=[2]), "attack").get("bonus") == 2 + 2 - 5


@pytest.mark.parametrize("over", [
    {"str": 13, "traits": ["four_armed"]},   # four arms, too weak
    {"str": 18},                             # strong, two arms
])
def test_two_two_handed_weapons_are_refused_otherwise(over):
    with pytest.raises(InputError) as e:
        RS.make_unit(0, unit("A", "pcs", (0, 0), AXE, AXE2, wield=["axe", "axe two"], **over), "test")
    assert "wield" in e.value.where and "two-handed" in e.value.what


def test_a_two_handed_weapon_and_another_are_refused_without_four_arms():
    with pytest.raises(InputError) as e:
        RS.make_unit(0, unit("A", "pcs", (0, 0), AXE, KNIFE, wield=["axe", "knife"]), "test")
    assert "wield" in e.value.where


def test_three_weapons_in_hand_are_refused():
    with pytest.raises(InputError) as e:
        RS.make_unit(0, unit("A", "pcs", (0, 0), KNIFE, VIBRO, PISTOL, wield=["knife", "vibroblade", "pistol"]),
                     "test")
    assert "wield" in e.value.where


def test_the_smuggler_template_dual_wields_with_dual_wielder_i():
    b = make(floor(5, 1), [{"name": "S", "side": "pcs", "at": [0, 0], "template": "smuggler"},
                           unit("T", "npcs", (3, 0), KNIFE, hp=60)])
    # Dex 17 (+3) + prof 2 + the DL-18's +1, less 3 for dual wielding with Dual Wielder I
    assert first(step(b, "attack", "T", faces=[2]), "attack").get("bonus") == 3 + 2 + 1 - 3
    assert first(step(b, "off_hand", "T", faces=[2]), "attack").get("bonus") == 3 + 2 - 3
