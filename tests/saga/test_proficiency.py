"""Weapon proficiency: -5 on attacks with a weapon outside the stat block's Weapon Proficiency feats (issue 24: not
modelled), in the attack rolls, the estimates, the observation's C figures and a two-weapon full attack."""
import pytest

from engine.core.decision import Decision
from engine.core.errors import InputError
from engine.rulesets.saga import combat as C
from engine.rulesets.saga import stats as S

from .helpers import KNIFE, PISTOL, SABER, SWORD, all_of, first, floor, make, step, u, unit

VIBRO = {"name": "vibroblade", "kind": "melee", "damage": "2d6", "proficiency": "advanced_melee"}
CLAWS = {"name": "claws", "kind": "melee", "damage": "1d6", "natural": True}


@pytest.mark.parametrize("weapon,proficient,bonus", [
    (SWORD, None, 0),                        # no `proficient`: every weapon
    (SWORD, ["simple"], 0),                  # a melee weapon's group defaults to simple
    (SWORD, ["pistols"], -5),
    (VIBRO, ["simple"], -5),
    (VIBRO, ["advanced_melee"], 0),
    (SABER, ["simple"], -5),                 # a lightsaber's group defaults to lightsabers
    (SABER, ["lightsabers"], 0),
    ({**SWORD, "improvised": True}, ["simple"], -5),  # improvised is "treated as not proficient": -5 once
    ({**SWORD, "improvised": True}, ["pistols"], -5),
    (CLAWS, [], 0),                          # natural weapons need no proficiency
    (PISTOL, ["rifles"], -5),
    (PISTOL, ["pistols"], 0),
    ({**PISTOL, "group": "rifle"}, ["pistols"], -5),  # a ranged weapon's group from its range group
])
def test_non_proficient_weapon_minus_5(weapon, proficient, bonus):
    over = {} if proficient is None else {"proficient": proficient}
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), weapon, **over), unit("T", "npcs", (1, 0), SWORD)])
    action = "ranged_attack" if weapon["kind"] == "ranged" else "melee_attack"
    a, t = u(b, "A"), u(b, "T")
    est = b.ruleset.estimate(b.enc, a, Decision(action, t.id))
    assert est.hit_chance == C.hit_chance(bonus, 10)
    ev = step(b, action, "T", faces=[1, 1] if action == "ranged_attack" else [1])
    assert [e.get("bonus") for e in all_of(ev, "attack") if e.actor == a.id] == [bonus]


def test_two_weapon_full_attack_adds_minus_5_for_the_weapon_not_proficient_with():
    """-10 on both attacks (no Dual Weapon Mastery), and -5 more on the vibroblade's (Attacking with Two Weapons)."""
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE, VIBRO, proficient=["simple"]),
                           unit("T", "npcs", (1, 0), SWORD, hp=100)])
    u(b, "A").state["hands"] = [0, 1]
    b.enc.version += 1
    ev = step(b, "full_attack", "T", faces=[1, 1])
    assert [e.get("bonus") for e in all_of(ev, "attack")] == [-10, -15]
    assert first(ev, "full_attack").get("penalty") == -10


@pytest.mark.parametrize("block,message", [
    ({"proficient": ["blasters"]}, "unknown weapon proficiency ['blasters']"),
    ({"proficient": "pistols"}, "'proficient' must be a list"),
    ({"weapons": [{**SWORD, "proficiency": "swords"}]}, "weapon proficiency 'swords'"),
])
def test_proficiency_fields_are_checked(block, message):
    spec = {"name": "A", "side": "pcs", "at": [0, 0], "template": "thug", **block}
    with pytest.raises(InputError) as e:
        S.make_unit(0, spec, "test.yaml line 3 (units[0])")
    assert message in str(e.value) and "test.yaml line 3" in str(e.value)


def test_templates_have_their_classes_proficiencies():
    got = {name: S._template_stats(name)["proficient"] for name in S.templates()}
    assert got == {"trooper": ["pistols", "rifles", "simple"], "battle_droid": ["pistols", "rifles"],
                   "bounty_hunter": ["pistols", "rifles", "simple"], "smuggler": ["pistols", "simple"],
                   "jedi_knight": ["lightsabers", "simple"], "beast": [],
                   "thug": ["advanced_melee", "pistols", "simple"]}
    lacking = {(name, w["name"]) for name in S.templates() for w in S._template_stats(name)["weapons"]
               if not C.proficient(S._template_stats(name), w)}
    assert lacking == {("bounty_hunter", "vibroblade"), ("smuggler", "vibrodagger")}
