"""Attacks: ranged Dex + proficiency with dice-only damage, melee Str (finesse Dex) to hit and Str to damage, unarmed
1 + Str, natural 20 and 1, advantage and disadvantage and their cancelling, prone, cover and full cover, long range,
a foe within 5 ft, stun weapons."""
import pytest

from .helpers import (BLASTER, CLUB, KNIFE, SABER, all_of, cond, end, first, floor, legal_targets, make, step, u,
                      unit, why)

SPEAR = {"name": "spear", "kind": "melee", "damage": "1d6", "type": "piercing", "reach": True}
BATON = {"name": "stun baton", "kind": "melee", "damage": "1d6", "type": "bludgeoning", "stun_dc": 10}


def _duel(weapon, at=(1, 0), width=5, target=None, **stats):
    """A (pcs, the weapon, stats) at (0, 0) against T (npcs) at `at`."""
    return make(floor(width, 1), [unit("A", "pcs", (0, 0), weapon, **stats),
                                  target or unit("T", "npcs", at, KNIFE)])


# ---- attack bonus and damage by kind of weapon ------------------------------------------------------------------------
@pytest.mark.parametrize("weapon,at,stats,faces,bonus,damage", [
    (BLASTER, (3, 0), {"dex": 14, "str": 18}, [10, 4], 2 + 2, 4),           # ranged: Dex + prof, damage the dice only
    (BLASTER, (3, 0), {"dex": 18, "prof": 3}, [10, 5], 4 + 3, 5),           # no Dex to damage either
    ({**BLASTER, "attack": 1, "bonus_damage": 2}, (3, 0), {"dex": 12}, [10, 3], 1 + 2 + 1, 3 + 2),  # upgrades add
    ({**BLASTER, "dex_damage": True}, (3, 0), {"dex": 16}, [10, 3], 3 + 2, 3 + 3),  # a bowcaster-style Dex weapon
    (CLUB, (1, 0), {"str": 16, "dex": 18}, [10, 2], 3 + 2, 2 + 3),          # melee: Str to hit and to damage
    (CLUB, (1, 0), {"str": 8}, [15, 4], -1 + 2, 4 - 1),                     # a Str penalty applies to both
    (SABER, (1, 0), {"str": 12, "dex": 16}, [10, 5], 3 + 2, 5 + 1),         # finesse: Dex to hit, still Str to damage
    (SABER, (1, 0), {"str": 16, "dex": 12}, [10, 5], 3 + 2, 5 + 3),         # finesse, Str higher: Str to hit
    ({**SABER, "attack": 2, "bonus_damage": 1}, (1, 0), {"str": 10, "dex": 14}, [10, 5], 2 + 2 + 2, 5 + 0 + 1),
])
def test_attack_bonus_and_damage_by_kind(weapon, at, stats, faces, bonus, damage):
    b = _duel(weapon, at, **stats)
    ev = step(b, "attack", "T", faces=faces)
    atk = first(ev, "attack")
    assert atk.get("bonus") == bonus and atk.get("total") == faces[0] + bonus and atk.get("hit")
    assert first(ev, "damage").get("amount") == damage


@pytest.mark.parametrize("stats,damage", [({"str": 14}, 1 + 2), ({"str": 10}, 1), ({"str": 18, "dex": 20}, 1 + 4)])
def test_an_unarmed_strike_deals_1_plus_str_without_dice(stats, damage):
    b = _duel(BLASTER, **stats)
    ev = step(b, "unarmed", "T", faces=[15])   # the only die is the attack's d20
    assert first(ev, "attack").get("bonus") == (stats["str"] - 10) // 2 + 2
    assert first(ev, "damage").get("amount") == damage
    assert b.dice.asked == [(20, "A's unarmed strike on T")]


def test_unarmed_strike_needs_a_creature_within_5_ft():
    b = _duel(BLASTER, at=(2, 0))
    assert "unarmed" not in {d.action for d in b.legal()}
    assert "not within 5 ft" in why(b, "unarmed", "T")


def test_a_trait_that_permits_it_puts_dex_in_the_unarmed_strike():
    # "1 + STR modifier damage (or DEX if the character has a trait that permits it)"
    b = _duel(BLASTER, str=12, dex=16, traits=["finesse_unarmed"])
    ev = step(b, "unarmed", "T", faces=[10])
    assert first(ev, "attack").get("bonus") == 3 + 2 and first(ev, "damage").get("amount") == 1 + 3


# ---- natural 20 and natural 1 ----------------------------------------------------------------------------------------
def test_a_natural_20_hits_any_ac_and_doubles_the_dice_not_the_modifier():
    b = _duel(CLUB, str=16, target=unit("T", "npcs", (1, 0), KNIFE, ac_bonus=30, hp=50))
    ev = step(b, "attack", "T", faces=[20, 3, 5])
    atk = first(ev, "attack")
    assert atk.get("hit") and atk.get("crit") and atk.get("total") < atk.get("defense")
    assert first(ev, "damage").get("amount") == 3 + 5 + 3


def test_a_ranged_critical_doubles_only_the_dice_too():
    b = _duel({**BLASTER, "bonus_damage": 2}, at=(3, 0), dex=16)
    ev = step(b, "attack", "T", faces=[20, 6, 6])
    assert first(ev, "damage").get("amount") == 6 + 6 + 2


def test_a_natural_1_misses_whatever_the_bonus():
    b = _duel(BLASTER, at=(3, 0), dex=30, prof=6)       # +16: a 1 would total 17 against AC 10
    atk = first(step(b, "attack", "T", faces=[1]), "attack")
    assert atk.get("total") >= atk.get("defense") and not atk.get("hit")
    assert u(b, "T").hp == 30


@pytest.mark.parametrize("face,hit", [(8, True), (7, False), (19, True)])
def test_meeting_the_ac_hits(face, hit):
    b = _duel(BLASTER, at=(3, 0))          # +2 against AC 10
    ev = step(b, "attack", "T", faces=[face] + ([1] if hit else []))
    assert first(ev, "attack").get("hit") == hit and not first(ev, "attack").get("crit")


# ---- advantage and disadvantage ----------------------------------------------------------------------------------------
def _shot(attacker_conds=None, target_conds=None, at=(3, 0), width=5):
    return make(floor(width, 1), [
        unit("A", "pcs", (0, 0), BLASTER, state={"conds": attacker_conds or {}}),
        unit("T", "npcs", at, KNIFE, state={"conds": target_conds or {}})])


@pytest.mark.parametrize("a_conds,t_conds,faces,face,rolled", [
    ({}, {}, [5], 5, 1),                                                     # neither: one d20
    ({}, {"blinded": cond()}, [3, 15, 1], 15, 2),                            # advantage: the higher
    ({"poisoned": cond()}, {}, [15, 3], 3, 2),                               # disadvantage: the lower
    ({"poisoned": cond()}, {"blinded": cond()}, [6], 6, 1),                  # one of each: a plain roll
    # two sources of disadvantage (poisoned, dazed) and one of advantage still cancel: one d20
    ({"poisoned": cond(), "dazed": cond(9)}, {"blinded": cond()}, [6], 6, 1),
    ({}, {"stunned": cond()}, [2, 14, 1], 14, 2),                            # attackers have advantage on stunned
])
def test_advantage_disadvantage_and_cancelling(a_conds, t_conds, faces, face, rolled):
    b = _shot(a_conds, t_conds)
    atk = first(step(b, "attack", "T", faces=faces), "attack")
    assert atk.get("face") == face and len(atk.get("faces")) == rolled


def test_long_range_gives_disadvantage_and_beyond_it_no_shot():
    # blaster: 60 ft normal, 240 ft long
    b = _shot(at=(12, 0), width=50)
    assert len(first(step(b, "attack", "T", faces=[2]), "attack").get("faces")) == 1     # 60 ft: normal range
    b = _shot(at=(13, 0), width=50)
    atk = first(step(b, "attack", "T", faces=[15, 4]), "attack")                      # 65 ft: long range
    assert atk.get("face") == 4 and "long range" in atk.get("notes")
    assert "T" in legal_targets(_shot(at=(48, 0), width=50), "attack")                 # 240 ft
    b = _shot(at=(49, 0), width=50)                                                     # 245 ft: out of range
    assert "T" not in legal_targets(b, "attack")
    assert "out of range" in why(b, "attack", "T")


def test_a_foe_within_5_ft_gives_a_ranged_attack_disadvantage():
    b = make(floor(5, 2), [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (4, 0), KNIFE),
                           unit("E", "npcs", (1, 1), KNIFE)])
    atk = first(step(b, "attack", "T", faces=[15, 2]), "attack")
    assert atk.get("face") == 2 and "foe within 5 ft" in atk.get("notes")


def test_an_incapacitated_foe_within_5_ft_gives_no_disadvantage():
    b = make(floor(5, 2), [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (4, 0), KNIFE),
                           unit("E", "npcs", (1, 1), KNIFE, state={"conds": {"stunned": cond(-1, "con", 12)}})])
    atk = first(step(b, "attack", "T", faces=[15, 1]), "attack")
    assert atk.get("faces") == [15]


def test_a_melee_attack_has_no_disadvantage_from_the_adjacent_foe():
    b = _duel(CLUB)
    assert first(step(b, "attack", "T", faces=[15, 1]), "attack").get("faces") == [15]


# ---- prone ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weapon,at,a_prone,t_prone,bonus", [
    (CLUB, (1, 0), False, True, 2 + 5),        # melee against a prone creature: +5
    (BLASTER, (3, 0), False, True, 2 - 5),     # ranged against a prone creature: -5
    (CLUB, (1, 0), True, False, 2 - 5),        # a prone attacker's melee: -5
    (CLUB, (1, 0), True, True, 2),             # both prone, melee: +5 - 5
    (BLASTER, (3, 0), True, False, 2),         # a prone shooter's ranged attack: no penalty
])
def test_prone_modifiers(weapon, at, a_prone, t_prone, bonus):
    b = make(floor(5, 1), [
        unit("A", "pcs", (0, 0), weapon, state={"conds": {"prone": cond()} if a_prone else {}}),
        unit("T", "npcs", at, KNIFE, state={"conds": {"prone": cond()} if t_prone else {}})])
    atk = first(step(b, "attack", "T", faces=[2]), "attack")
    assert atk.get("bonus") == bonus and atk.get("total") == 2 + bonus


# ---- cover ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("row,ac", [(".....", 10), ("..c..", 12), ("..C..", 14), (".cC..", 14)])
def test_cover_adds_to_ac_against_ranged_attacks(row, ac):
    b = make([row], [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (4, 0), KNIFE)])
    atk = first(step(b, "attack", "T", faces=[2]), "attack")
    assert atk.get("defense") == ac and atk.get("cover") == ac - 10


def test_full_cover_cannot_be_targeted():
    b = make(["..#..", "....."], [unit("A", "pcs", (0, 0), BLASTER), unit("T", "npcs", (4, 0), KNIFE)])
    assert "T" not in legal_targets(b, "attack")
    assert "full cover" in why(b, "attack", "T")


# ---- stun weapons ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("prof,save_face,con,stunned", [
    (2, 11, 10, True),      # DC 10 + 2 = 12: 11 fails
    (2, 12, 10, False),     # 12 makes it
    (3, 12, 10, True),      # DC 13 with proficiency 3
    (2, 10, 14, False),     # Con +2: 12
])
def test_a_stun_weapon_forces_a_con_save_against_base_dc_plus_prof_and_deals_no_damage(prof, save_face, con, stunned):
    b = _duel(BATON, prof=prof, str=16, target=unit("T", "npcs", (1, 0), KNIFE, con=con))
    ev = step(b, "attack", "T", faces=[15, save_face])
    save = first(ev, "save")
    assert save.get("ability") == "con" and save.get("dc") == 10 + prof
    assert ("stunned" in u(b, "T").state["conds"]) == stunned
    assert u(b, "T").hp == 30 and not all_of(ev, "damage")


def test_a_stunned_target_repeats_the_save_at_the_end_of_its_turns():
    b = _duel(BATON, target=unit("T", "npcs", (1, 0), KNIFE))
    step(b, "attack", "T", faces=[15, 3])              # stunned (DC 12); A's turn ends by itself
    t = u(b, "T")
    assert b.actor is t and {d.action for d in b.legal()} == {"end_turn"}
    end(b, faces=[11])                                 # fails again: still stunned
    assert "stunned" in t.state["conds"]
    end(b)                                             # A
    end(b, faces=[12])                                 # makes it: the condition ends
    assert "stunned" not in t.state["conds"]


def test_a_stun_weapon_missing_does_nothing():
    b = _duel(BATON)
    ev = step(b, "attack", "T", faces=[2])
    assert not all_of(ev, "save") and not u(b, "T").state["conds"]


# ---- reach ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weapon,at,legal", [(CLUB, (1, 0), True), (CLUB, (2, 0), False), (SPEAR, (2, 0), True),
                                             (SPEAR, (3, 0), False)])
def test_melee_reach(weapon, at, legal):
    assert ("T" in legal_targets(_duel(weapon, at), "attack")) == legal


def test_a_thrown_melee_weapon_hits_with_str_at_range_and_is_gone_for_the_encounter():
    """A vibroknife thrown at a foe 3 squares off: Str + proficiency to hit and Str to damage (the melee formulas),
    the ranged modifiers (none here), and the knife leaves the hand: it is not drawn again."""
    from .helpers import make, step, u, unit
    knife = {"name": "vibroknife", "kind": "melee", "damage": "1d4", "type": "piercing", "light": True, "thrown": True,
             "range": 20, "long": 60}
    club = {"name": "club", "kind": "melee", "damage": "1d6", "type": "bludgeoning"}
    b = make(["." * 8] * 3, [unit("Thrower", "pcs", (1, 1), knife, club, str=14), unit("Foe", "npcs", (4, 1))])
    ev = step(b, "attack", "Foe", faces=[10, 3])
    atk = next(e for e in ev if e.kind == "attack")
    assert atk.get("why") == "throw" and atk.get("bonus") == 4 and atk.get("hit")   # 2 Str + 2 proficiency
    assert next(e for e in ev if e.kind == "damage").get("amount") == 5             # 3 + 2 Str
    s = u(b, "Thrower").state
    assert s["wield"] == [] and s["ammo"][0] == 0
    assert {d.option for d in b.legal() if d.action == "draw"} == {1}                # the club, not the knife
