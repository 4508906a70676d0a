"""Strikes: melee (adjacent, Long reach 2, line of effect), projectile (-4 adjacent, -4 longshot beyond short range,
nothing beyond long range), thrown (the Thrown tag's range, else 10/20 ft at -2; -4 longshot; the weapon leaves the
hand), accuracy against Armor, exploding 10s, critical hits (beat the defense by 10; Keen), glancing blows (miss by
2 or less: half damage; Impact widens it), power added once, Sweeping and Resonating, the unarmed 'punch or kick',
the fatigue penalty."""
import pytest

from .helpers import (BOW, DAGGER, MAIN, SLING, SPEAR, SWORD, C, actions, all_of, first, floor, make, play_phase,
                      skip_movement, u, unit)


def _duel(weapon, at=(1, 0), rows=None, target=None, **stats):
    """A (pcs, the weapon, stats) at (0, 0) against T (npcs, 40 hp) at `at`, in the action phase."""
    b = make(rows or floor(16, 1), [unit("A", "pcs", (0, 0), *([weapon] if weapon else []), **stats),
                                    target or unit("T", "npcs", at, SWORD, hp=40)])
    skip_movement(b)
    return b


def _targets(b, action, option=MAIN):
    return {b.enc.units[d.target].pos for d in b.legal() if d.action == action and d.option == option}


def _strike(b, action="strike", faces=(), option=MAIN):
    ev = play_phase(b, faces, A=(action, "T", None, option))
    return first(ev, "attack"), [e.get("amount") for e in all_of(ev, "damage")]


# ---- accuracy, results and damage ------------------------------------------------------------------------------------
@pytest.mark.parametrize("stats,faces,total,result,damage", [
    ({"accuracy": 3}, [7, 4], 10, "hit", [4]),                        # 7 + 3 = 10 vs Armor 10: a hit (meets it)
    ({"accuracy": 3, "power": 2}, [8, 4], 11, "hit", [4 + 2]),         # power added once
    ({}, [10, 10, 3, 2, 5], 23, "crit", [2 + 5]),                      # 10s explode: 23 beats 10 by 13, a critical
    ({"accuracy": 11}, [9, 2, 5], 20, "crit", [2 + 5]),                # beat by 10: critical, the dice rolled twice
    ({"accuracy": 11, "power": 3}, [9, 2, 5], 20, "crit", [2 + 5 + 3]),  # power still once on a critical
    ({"accuracy": 11}, [8, 6], 19, "hit", [6]),                        # beat by 9: a plain hit
    ({}, [9, 5], 9, "glance", [5 // 2]),                               # miss by 1: a glancing blow, half damage
    ({"power": 2}, [8, 5], 8, "glance", [(5 + 2) // 2]),               # miss by 2: half of dice and power
    ({}, [7], 7, "miss", []),                                          # miss by 3: nothing (no damage roll)
    ({"accuracy": -3}, [9], 6, "miss", []),
])
def test_a_melee_strike_against_armor(stats, faces, total, result, damage):
    b = _duel(SWORD, **stats)
    attack, dealt = _strike(b, faces=faces)
    assert (attack.get("total"), attack.get("defense"), attack.get("result")) == (total, 10, result)
    assert dealt == damage and u(b, "T").hp == 40 - sum(damage)


def test_the_defense_is_the_targets_armor():
    b = _duel(SWORD, target=unit("T", "npcs", (1, 0), SWORD, hp=40, armor=14, fortitude=3, reflex=3))
    attack, _ = _strike(b, faces=[9])
    assert attack.get("defense") == 14 and attack.get("result") == "miss"


def test_exploding_tens_keep_rolling():
    b = _duel(SWORD)
    attack, _ = _strike(b, faces=[10, 10, 10, 1, 3, 3])
    assert attack.get("faces") == [10, 10, 10, 1] and attack.get("total") == 31 and attack.get("result") == "crit"


@pytest.mark.parametrize("keen,face,result", [(1, 7, "crit"), (1, 6, "hit"), (2, 5, "crit"), (2, 4, "hit"),
                                              (0, 7, "hit")])
def test_keen_adds_2_a_tag_for_critical_hits_only(keen, face, result):
    # accuracy 11: a face of 7 totals 18, 2 short of a critical against Armor 10
    w = {"name": "keen blade", "damage": "1d6", "tags": {"keen": keen} if keen else {}}
    b = _duel(w, accuracy=11)
    attack, _ = _strike(b, faces=[face] + [1] * (2 if result == "crit" else 1))
    assert attack.get("total") == face + 11 and attack.get("result") == result


def test_keen_never_turns_a_miss_into_a_critical_hit():
    b = _duel({"name": "very keen", "damage": "1d6", "tags": {"keen": 6}})
    attack, dealt = _strike(b, faces=[9, 4])          # 9 + 12 for criticals would beat 10 by 11, but 9 misses
    assert attack.get("result") == "glance" and dealt == [2]


@pytest.mark.parametrize("impact,face,result", [(0, 8, "glance"), (0, 7, "miss"), (1, 6, "glance"), (1, 5, "miss"),
                                                (2, 2, "glance"), (2, 1, "miss")])
def test_impact_widens_the_glancing_blow(impact, face, result):
    # plain: miss by 2 or less; Impact: by 4 or less [Rise]; two Impact (a dual strike with two): by 8 or less
    w = {"name": "maul", "damage": "1d6", "tags": {"impact": impact} if impact else {}}
    b = _duel(w)
    attack, dealt = _strike(b, faces=[face] + ([6] if result == "glance" else []))
    assert attack.get("result") == result and dealt == ([3] if result == "glance" else [])


def test_a_creature_with_no_weapon_in_hand_punches_or_kicks_for_1d4():
    b = _duel(None, accuracy=2)
    attack, dealt = _strike(b, faces=[8, 4])
    assert attack.get("weapon") == "punch or kick" and dealt == [4]
    assert b.dice.asked[-1][0] == 4                     # a d4


def test_the_fatigue_penalty_counts_levels_beyond_the_tolerance():
    b = _duel(SWORD, accuracy=3, fatigue_tolerance=1, state={"fatigue": 3})
    attack, _ = _strike(b, faces=[9, 1])
    assert attack.get("bonus") == 3 - 2 and attack.get("total") == 10


def test_fatigue_within_the_tolerance_costs_nothing():
    b = _duel(SWORD, accuracy=3, fatigue_tolerance=3, state={"fatigue": 3})
    attack, _ = _strike(b, faces=[9, 1])
    assert attack.get("bonus") == 3


# ---- melee reach and line of effect ----------------------------------------------------------------------------------
def test_a_melee_strike_reaches_adjacent_creatures_only():
    for at, ok in (((1, 0), True), ((1, 1), True), ((2, 0), False)):
        b = _duel(SWORD, at=at, rows=floor(6, 3))
        assert (at in _targets(b, "strike")) is ok


def test_a_long_weapon_reaches_two_squares():
    assert (2, 0) in _targets(_duel(SPEAR, at=(2, 0)), "strike")
    assert not _targets(_duel(SPEAR, at=(3, 0)), "strike")
    b = _duel(SPEAR, at=(2, 0), accuracy=2)
    attack, dealt = _strike(b, faces=[8, 7])
    assert attack.get("result") == "hit" and dealt == [7]


def test_a_wall_blocks_the_line_of_effect_of_a_long_reach():
    assert not _targets(_duel(SPEAR, at=(2, 0), rows=[".#..."]), "strike")


# ---- projectile strikes ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x,bonus,notes", [(1, -4, ["adjacent target"]), (2, 0, []), (6, 0, []),
                                           (7, -4, ["longshot"]), (12, -4, ["longshot"])])
def test_a_projectile_strike_adjacent_and_longshot(x, bonus, notes):
    b = _duel(SLING, at=(x, 0))                        # 30/60 ft: short 6 squares, long 12
    attack, _ = _strike(b, "shoot", faces=[1])
    assert attack.get("bonus") == bonus and attack.get("notes") == notes
    assert attack.get("why") == "projectile strike" and attack.get("defense") == 10


def test_a_ranged_strike_needs_line_of_effect():
    assert _targets(_duel(SLING, at=(4, 0), rows=["....."]), "shoot")
    assert not _targets(_duel(SLING, at=(4, 0), rows=["..#.."]), "shoot")
    assert not _targets(_duel(DAGGER, at=(4, 0), rows=["..#.."]), "hurl")


def test_a_projectile_weapon_cannot_reach_beyond_its_long_range_nor_strike_in_melee():
    assert not _targets(_duel(SLING, at=(13, 0)), "shoot")
    b = _duel(BOW, at=(1, 0))
    assert _targets(b, "shoot") and not _targets(b, "strike") and not _targets(b, "hurl")


# ---- thrown strikes ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weapon,x,bonus,notes", [
    (DAGGER, 1, 0, []),                                  # Thrown (30/60): no adjacent penalty for a thrown weapon
    (DAGGER, 6, 0, []),
    (DAGGER, 7, -4, ["longshot"]),
    (SWORD, 2, -2, ["improvised throw"]),                # no Thrown tag: 10/20 ft, -2
    (SWORD, 3, -6, ["improvised throw", "longshot"]),
    (SWORD, 4, -6, ["improvised throw", "longshot"]),
])
def test_a_thrown_strike_uses_the_thrown_range_or_10_20_at_minus_2(weapon, x, bonus, notes):
    b = _duel(weapon, at=(x, 0))
    attack, _ = _strike(b, "hurl", faces=[1])
    assert attack.get("bonus") == bonus and attack.get("notes") == notes and attack.get("why") == "thrown strike"


@pytest.mark.parametrize("weapon,x", [(DAGGER, 13), (SWORD, 5)])
def test_a_thrown_strike_cannot_reach_beyond_the_long_range(weapon, x):
    assert not _targets(_duel(weapon, at=(x, 0)), "hurl")


def test_a_thrown_weapon_leaves_the_hand():
    b = _duel(DAGGER, at=(1, 0), accuracy=2)
    _strike(b, "hurl", faces=[8, 3])
    assert u(b, "A").state["held"] == [False]
    play_phase(b)                                        # round 2's movement phase
    assert "hurl" not in actions(b)                      # nothing left to throw
    attack, dealt = _strike(b, faces=[9, 4])
    assert attack.get("weapon") == "punch or kick" and dealt == [4]


# ---- weapon tags on hits ---------------------------------------------------------------------------------------------
def test_sweeping_deals_a_glancing_blow_to_another_adjacent_enemy_on_a_hit():
    b = make(floor(4, 3), [unit("A", "pcs", (1, 1), "kukri", accuracy=0),
                           unit("T", "npcs", (2, 1), SWORD, hp=40), unit("U", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, [8, 4, 3], A=("strike", "T"))        # kukri +3: 11 hits T for 4; U takes (3) // 2
    assert first(ev, "sweep").target == u(b, "U").id
    assert (u(b, "T").hp, u(b, "U").hp) == (40 - 4, 40 - 1)


def test_no_sweep_on_a_glancing_blow():
    b = make(floor(4, 3), [unit("A", "pcs", (1, 1), "kukri", accuracy=-4),
                           unit("T", "npcs", (2, 1), SWORD, hp=40), unit("U", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, [9, 4], A=("strike", "T"))           # 9 + 3 - 4 = 8: a glancing blow
    assert not all_of(ev, "sweep") and u(b, "U").hp == 40


def test_resonating_lowers_the_armor_of_a_damaged_target_briefly():
    b = _duel("warhammer", accuracy=2)
    t = u(b, "T")
    _strike(b, faces=[8, 3])                             # round 1: a hit for 3
    assert C.defense(b.enc, t, "armor") == 10 - 2
    assert C.defense(b.enc, t, "fortitude") == 10
    play_phase(b)                                        # round 2 (movement): still there
    assert b.enc.round == 2 and C.defense(b.enc, t, "armor") == 8
    play_phase(b)                                        # round 2's action phase ends
    play_phase(b)                                        # round 3 (movement)
    assert b.enc.round == 3 and C.defense(b.enc, t, "armor") == 10
