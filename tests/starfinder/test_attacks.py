"""Attacks: ability modifiers by kind of attack, EAC vs KAC, range increments, natural 1 and 20, critical hits and
their effects, Stamina before Hit Points, death and dying, cover, flanking, prone, blinded."""
import pytest

from .helpers import (BATON, FRAG, KNIFE, LASER, PLAIN, RIFLE, SHURIKEN, all_of, end, first, floor, legal_targets,
                      make, step, u, unit, why)


# ---- ability modifiers: melee Str / Str, operative Dex / Str, ranged Dex / -, thrown Str / Str ------------------
@pytest.mark.parametrize("weapon,action,stats,faces,bonus,damage", [
    (KNIFE, "melee_attack", {"str": 3, "dex": 1}, [10, 2], 3, 2 + 3),       # melee: Str to attack and damage
    (BATON, "melee_attack", {"str": 3, "dex": 1}, [12, 2], 1, 2 + 3),       # operative: Dex to attack, Str to damage
    (LASER, "ranged_attack", {"str": 3, "dex": 1}, [12, 2], 1, 2),          # ranged: Dex to attack, none to damage
    (SHURIKEN, "throw", {"str": 3, "dex": 1}, [10, 2], 3, 2 + 3),           # thrown: Str to attack and to damage
    (KNIFE, "melee_attack", {"str": -1, "bab": 2}, [12, 3], 1, 3 - 1),      # base attack bonus + a Str penalty
])
def test_ability_modifiers_by_kind_of_attack(weapon, action, stats, faces, bonus, damage):
    at = (1, 0) if weapon["kind"] == "melee" else (2, 0)  # not adjacent for a shot: no attack of opportunity
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), weapon, **stats), unit("T", "npcs", at, KNIFE)])
    ev = step(b, action, "T", faces=faces)
    assert first(ev, "attack").get("bonus") == bonus
    assert first(ev, "damage").get("amount") == damage


def test_weapon_attack_bonus_from_the_stat_block_adds():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**KNIFE, "attack": 4}, str=1, bab=2),
                           unit("T", "npcs", (1, 0), KNIFE)])
    assert first(step(b, "melee_attack", "T", faces=[5, 1]), "attack").get("bonus") == 2 + 1 + 4


# ---- EAC vs KAC by damage type ------------------------------------------------------------------------------------
@pytest.mark.parametrize("types,defense,name", [
    ("F", 10, "EAC"), ("E", 10, "EAC"), ("So", 10, "EAC"), ("A", 10, "EAC"), ("C", 10, "EAC"),
    ("P", 12, "KAC"), ("B", 12, "KAC"), ("S", 12, "KAC"),
    ("E & P", 12, "KAC"),   # a kinetic part makes it a kinetic attack, even with energy damage too
])
def test_energy_attacks_target_eac_and_kinetic_ones_kac(types, defense, name):
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), {**LASER, "type": types}), unit("T", "npcs", (3, 0), KNIFE)])
    atk = first(step(b, "ranged_attack", "T", faces=[1]), "attack")
    assert (atk.get("defense"), atk.get("defense_name")) == (defense, name)


# ---- range increments ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("squares,penalty", [
    (1, 0), (6, 0),            # within the first 30-ft increment: no penalty
    (7, -2), (12, -2),         # 35-60 ft: one full increment beyond the first (or fraction thereof)
    (13, -4), (18, -4),        # 65-90 ft
    (60, -18),                 # 300 ft: the tenth increment, the maximum
])
def test_range_increments_cost_2_each_beyond_the_first(squares, penalty):
    b = make(floor(squares + 1, 1), [unit("A", "pcs", (0, 0), RIFLE), unit("T", "npcs", (squares, 0))])
    atk = first(step(b, "ranged_attack", "T", faces=[1]), "attack")
    assert atk.get("bonus") == penalty


def test_beyond_ten_increments_is_out_of_range():
    b = make(floor(62, 1), [unit("A", "pcs", (0, 0), RIFLE), unit("T", "npcs", (61, 0), KNIFE)])
    assert "ranged_attack" not in {d.action for d in b.legal()}
    assert "maximum range of 300 ft" in why(b, "ranged_attack", "T")


@pytest.mark.parametrize("squares,legal", [(10, True), (11, False)])
def test_thrown_weapons_reach_five_increments(squares, legal):
    b = make(floor(squares + 1, 1), [unit("A", "pcs", (0, 0), SHURIKEN), unit("T", "npcs", (squares, 0), KNIFE)])
    assert ("T" in legal_targets(b, "throw")) == legal


def test_a_thrown_weapon_leaves_the_hand_and_counts_down():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), SHURIKEN), unit("T", "npcs", (3, 0), KNIFE)])
    step(b, "throw", "T", faces=[1])
    a = u(b, "A")
    assert a.state["ammo"][0] == 4 and a.state["wield"] == []


# ---- natural 1 and 20, critical hits ---------------------------------------------------------------------------------
@pytest.mark.parametrize("face,bonus_str,hit,crit,damage_faces,damage", [
    (20, 0, True, True, [3, 4], 3 + 4),        # 20 meets KAC 12: a critical hit, damage rolled twice
    (20, 5, True, True, [3, 4], 3 + 5 + 4 + 5),  # each roll with all its bonuses
    (1, 30, False, False, [], None),            # a natural 1 always misses
    (11, 0, False, False, [], None),            # 11 < 12: a miss
    (12, 0, True, False, [2], 2),               # meets the AC: a hit
])
def test_natural_rolls_and_critical_hits(face, bonus_str, hit, crit, damage_faces, damage):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE, str=bonus_str), unit("T", "npcs", (1, 0), KNIFE)])
    ev = step(b, "melee_attack", "T", faces=[face, *damage_faces])
    atk = first(ev, "attack")
    assert (atk.get("hit"), atk.get("crit")) == (hit, crit)
    dmg = all_of(ev, "damage")
    assert (dmg[0].get("amount") if dmg else None) == damage


def test_a_natural_20_below_the_ac_hits_for_normal_damage():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE, str=-9), unit("T", "npcs", (1, 0), KNIFE)])
    ev = step(b, "melee_attack", "T", faces=[20, 4])   # 20 - 9 = 11 < KAC 12
    atk = first(ev, "attack")
    assert atk.get("hit") and not atk.get("crit")
    assert first(ev, "damage").get("amount") == 1      # 4 - 9, at least 1


# ---- critical effects ------------------------------------------------------------------------------------------------
def test_burn_critical_sets_the_target_burning_until_it_saves():
    burner = {**LASER, "critical": "burn 1d6"}
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), burner), unit("T", "npcs", (2, 0), KNIFE)])
    step(b, "ranged_attack", "T", faces=[20, 2, 3])
    t = u(b, "T")
    assert "burning" in t.state["conds"] and t.hp == 30 - 5
    end(b, faces=[4])                            # A ends; T's turn starts: 4 fire damage
    assert t.hp == 30 - 5 - 4
    end(b, faces=[13])                           # T's turn ends: Reflex 13 vs DC 10 + 4 fails
    assert "burning" in t.state["conds"]
    end(b, faces=[2])                            # A's turn ends; T burns 2
    end(b, faces=[12])                           # Reflex 12 vs DC 12: the flames are out
    assert "burning" not in t.state["conds"] and t.hp == 30 - 5 - 4 - 2


def test_knockdown_critical_knocks_prone():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**KNIFE, "critical": "knockdown"}),
                           unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "melee_attack", "T", faces=[20, 1, 1])
    assert "prone" in u(b, "T").state["conds"]


@pytest.mark.parametrize("save_face,staggered", [(9, True), (10, False)])
def test_staggered_critical_allows_a_fortitude_save(save_face, staggered):
    w = {**KNIFE, "critical": "staggered", "dc": 10}
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), w), unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "melee_attack", "T", faces=[20, 1, 1, save_face])
    assert ("staggered" in u(b, "T").state["conds"]) == staggered


def test_arc_critical_leaps_to_the_closest_creature_within_10_ft():
    w = {**LASER, "type": "E", "critical": "arc 1d6"}
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), w), unit("T", "npcs", (3, 0), KNIFE),
                           unit("N", "npcs", (4, 0), KNIFE), unit("F", "npcs", (5, 0), KNIFE)])
    ev = step(b, "ranged_attack", "T", faces=[20, 1, 1, 5])
    arc = first(ev, "arc")
    assert u(b, "N").id == arc.target and u(b, "N").hp == 25 and u(b, "F").hp == 30


# ---- Stamina, Hit Points, death and dying ----------------------------------------------------------------------------
def test_damage_takes_stamina_first_then_hit_points():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**KNIFE, "damage": "1d10"}),
                           unit("T", "npcs", (1, 0), KNIFE, hp=10, sp=5, rp=1)])
    t = u(b, "T")
    assert (t.hp, t.max_hp, t.state["sp"]) == (15, 15, 5)
    dmg = first(step(b, "melee_attack", "T", faces=[15, 7]), "damage")
    assert (dmg.get("sp"), dmg.get("hp"), t.state["sp"], t.hp) == (5, 2, 0, 8)


@pytest.mark.parametrize("rp,hp,damage,dead", [
    (0, 5, 5, True),        # no Resolve Points (most NPCs): dead at 0 HP
    (2, 5, 5, False),       # a character with Resolve: dying (down, not dead)
    (2, 5, 5 + 10, True),   # damage left over at 0 HP reaching the maximum HP kills outright
    (2, 5, 5 + 9, False),
])
def test_zero_hit_points(rp, hp, damage, dead):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**KNIFE, "damage": "1d20"}),
                           unit("T", "npcs", (1, 0), KNIFE, hp=10, rp=rp, hp_now=hp),
                           unit("U", "npcs", (2, 0), KNIFE)])
    step(b, "melee_attack", "T", faces=[15, damage])
    t = u(b, "T")
    assert t.down and t.dead == dead and t.hp == 0


# ---- cover, flanking, prone, blinded ---------------------------------------------------------------------------------
def test_low_cover_gives_plus_4_and_soft_cover_from_a_creature():
    b = make(["....c.."], [unit("A", "pcs", (0, 0), LASER), unit("T", "npcs", (6, 0), KNIFE)])
    atk = first(step(b, "ranged_attack", "T", faces=[1]), "attack")
    assert atk.get("defense") == 10 + 4 and "cover +4" in atk.get("notes")
    b = make(floor(7, 1), [unit("A", "pcs", (0, 0), LASER), unit("T", "npcs", (6, 0), KNIFE),
                           unit("M", "pcs", (3, 0), KNIFE)])
    atk = first(step(b, "ranged_attack", "T", faces=[1]), "attack")
    assert atk.get("defense") == 10 + 4 and "soft cover +4" in atk.get("notes")


def test_low_cover_is_ignored_from_nearer_the_obstacle_than_the_target():
    b = make([".c.....", "......."], [unit("A", "pcs", (0, 0), LASER), unit("T", "npcs", (6, 0), KNIFE)])
    assert first(step(b, "ranged_attack", "T", faces=[1]), "attack").get("defense") == 10


def test_flanking_gives_plus_2_in_melee():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE),
                           unit("B", "pcs", (2, 0), KNIFE)])
    atk = first(step(b, "melee_attack", "T", faces=[1]), "attack")
    assert atk.get("bonus") == 2 and "flanking +2" in atk.get("notes")


@pytest.mark.parametrize("who,action,weapon,bonus,defense", [
    ("T", "melee_attack", KNIFE, 0, 12 - 4),    # prone target: -4 AC against melee
    ("T", "ranged_attack", LASER, 0, 10 + 4),   # +4 AC against ranged attacks
    ("A", "melee_attack", KNIFE, -4, 12),       # prone attacker: -4 on melee attacks
    ("A", "ranged_attack", LASER, 0, 10),       # no penalty on ranged ones
])
def test_prone(who, action, weapon, bonus, defense):
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), weapon), unit("T", "npcs", (1 if weapon is KNIFE else 3, 0),
                                                                   KNIFE)])
    u(b, who).state["conds"]["prone"] = -1
    atk = first(step(b, action, "T", faces=[1]), "attack")
    assert (atk.get("bonus"), atk.get("defense")) == (bonus, defense)


@pytest.mark.parametrize("miss_roll,hit", [(50, False), (51, True)])
def test_blinded_attackers_miss_half_their_hits(miss_roll, hit):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE)])
    u(b, "A").state["conds"]["blinded"] = -1
    ev = step(b, "melee_attack", "T", faces=[15, miss_roll] + ([2] if hit else []))
    assert first(ev, "attack").get("hit") == hit


def test_flat_footed_minus_2_once_for_several_causes():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("T", "npcs", (1, 0), KNIFE)])
    u(b, "T").state["conds"].update({"flat_footed": -1, "blinded": -1})
    assert first(step(b, "melee_attack", "T", faces=[1]), "attack").get("defense") == 10


def test_grenades_add_strength_to_attack_not_damage():
    b = make(floor(6, 3), [unit("A", "pcs", (0, 1), FRAG, str=3, dex=1), unit("T", "npcs", (4, 1), KNIFE)])
    ev = step(b, "explode_attack", square=(4, 1), faces=[10, 4, 1])   # hit; damage 4; T's Reflex 1 fails
    assert first(ev, "attack_point").get("bonus") == 3
    assert first(ev, "damage").get("amount") == 4


def test_unused_plain_block_is_a_valid_unit():
    b = make(floor(2, 1), [unit("A", "pcs", (0, 0)), unit("T", "npcs", (1, 0))])
    assert u(b, "A").hp == PLAIN["hp"]


@pytest.mark.parametrize("types,over,damage", [
    ("P", {"dr": 3}, 6 - 3),                  # damage reduction stops kinetic damage
    ("F", {"dr": 3}, 6),                      # but not energy
    ("F", {"resist": {"F": 5}}, 6 - 5),       # energy resistance to its own type
    ("F", {"resist": {"C": 5}}, 6),
    ("E & P", {"dr": 2, "resist": {"E": 2}}, (3 - 2) + (3 - 2)),   # a two-type attack splits between them
])
def test_damage_reduction_and_energy_resistance(types, over, damage):
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), {**LASER, "type": types, "damage": "1d6"}),
                           unit("T", "npcs", (3, 0), **over)])
    step(b, "ranged_attack", "T", faces=[19, 6])
    assert u(b, "T").hp == 30 - damage


def test_bleeding_hurts_at_the_start_of_each_turn():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {**KNIFE, "critical": "bleed 1d4"}),
                           unit("T", "npcs", (1, 0), KNIFE)])
    step(b, "melee_attack", "T", faces=[20, 1, 1])
    t = u(b, "T")
    assert "bleeding" in t.state["conds"] and t.state["bleed"] == "1d4"
    end(b, faces=[3])
    assert t.hp == 30 - 2 - 3
