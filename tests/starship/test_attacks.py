"""The attack action: one weapon, then `fire_next` for the others (each target chosen after the earlier results) or
`cease_fire`; range increments and the beam's ten; -4 beside an ally; no attack of opportunity for firing; natural 20
and 1; critical threats and confirmation; fire-linked guns and multipliers; damage reduction, shields, hull; ammo."""
import pytest

from .helpers import (GUN, LASER, PD, actions, actor, all_of, end, first, floor, kinds, legal_shots, make, ship,
                      step, u, why)


def _duel(weapon=LASER, dist=3, width=None, target=None, **over):
    """A (pcs, the weapon, overrides) at (0, 0) against T (npcs) `dist` squares east on a one-row map."""
    width = width or dist + 1
    return make(floor(width, 1), [ship("A", "pcs", (0, 0), weapon, **over),
                                  target or ship("T", "npcs", (dist, 0), LASER)])


def _hit(b, target="T", option=0, action="fire", faces=(15,)):
    return step(b, action, target, option=option, faces=faces)


# ---- range -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dist,penalty", [(1, 0), (2, 0), (3, -2), (4, -2), (5, -4), (9, -8), (20, -18)])
def test_minus_2_per_range_increment_beyond_the_first(dist, penalty):
    b = _duel({**LASER, "attack": 5}, dist)          # range increment 2 squares
    atk = first(step(b, "fire", "T", faces=[1]), "attack")
    assert atk.get("bonus") == 5 + penalty and atk.get("total") == 1 + 5 + penalty


def test_beams_reach_at_most_ten_increments():
    b = _duel(LASER, 21, target=ship("T", "npcs", (21, 0), LASER))   # 11 increments of 2
    assert legal_shots(b) == set()
    assert "beyond the laser's range" in why(b, "fire", "T")
    b = _duel(LASER, 20)
    assert legal_shots(b) == {(0, "T")}


@pytest.mark.parametrize("dist", [21, 40])
def test_projectiles_have_unlimited_range(dist):
    b = _duel(GUN, dist, target=ship("T", "npcs", (dist, 0), LASER))
    assert legal_shots(b) == {(0, "T")}
    atk = first(step(b, "fire", "T", faces=[1]), "attack")
    assert atk.get("bonus") == -2 * (-(-dist // 2) - 1)


def test_no_shot_without_line_of_sight():
    b = make([".#."], [ship("A", "pcs", (0, 0), GUN), ship("T", "npcs", (2, 0), LASER)])
    assert "fire" not in actions(b)


# ---- allies beside the target ---------------------------------------------------------------------------------------
def test_minus_4_when_the_target_is_next_to_an_ally():
    b = make(floor(6, 2), [ship("A", "pcs", (0, 0), {**LASER, "attack": 6}), ship("B", "pcs", (3, 1), LASER),
                           ship("T", "npcs", (2, 0), LASER)])
    atk = first(step(b, "fire", "T", faces=[1]), "attack")
    assert atk.get("bonus") == 6 - 4 and "next to an ally" in atk.get("notes")


def test_no_penalty_for_the_targets_own_allies_or_a_distant_ally():
    b = make(floor(6, 2), [ship("A", "pcs", (0, 0), {**LASER, "attack": 6}), ship("B", "pcs", (5, 1), LASER),
                           ship("T", "npcs", (2, 0), LASER), ship("T2", "npcs", (3, 1), LASER)])
    atk = first(step(b, "fire", "T", faces=[1]), "attack")
    assert atk.get("bonus") == 6


# ---- no attack of opportunity ---------------------------------------------------------------------------------------
def test_firing_provokes_no_point_defense():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, point_defense=PD))
    ev = step(b, "fire", "T", faces=[1])          # only the shot's own d20 is rolled
    assert "aoo" not in kinds(ev) and u(b, "T").state["reaction"] is True
    assert len(all_of(ev, "attack")) == 1


# ---- natural 20 and 1 -------------------------------------------------------------------------------------------------
def test_a_natural_20_always_hits():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, defense=40))
    ev = step(b, "fire", "T", faces=[20, 1, 4])   # the threat is not confirmed (1 + 0 < 40): normal damage
    atk = first(ev, "attack")
    assert atk.get("hit") and not atk.get("crit") and first(ev, "damage").get("amount") == 4


def test_a_natural_1_always_misses():
    b = _duel({**LASER, "attack": 30}, 1)
    ev = step(b, "fire", "T", faces=[1])
    assert not first(ev, "attack").get("hit") and "damage" not in kinds(ev) and u(b, "T").hp == 50


@pytest.mark.parametrize("face,hit", [(9, False), (10, True), (19, True)])
def test_a_hit_meets_the_defense(face, hit):
    b = _duel(LASER, 1)
    ev = step(b, "fire", "T", faces=[face] + ([3] if hit else []))
    assert first(ev, "attack").get("hit") is hit and first(ev, "attack").get("defense") == 10
    assert u(b, "T").hp == (47 if hit else 50)


# ---- critical hits ----------------------------------------------------------------------------------------------------
def test_a_confirmed_threat_doubles_the_damage_dice():
    b = _duel({**LASER, "critical": 19}, 1)
    ev = step(b, "fire", "T", faces=[19, 10, 3, 5])   # threat, confirmed (10 >= 10), 1d6 twice
    assert first(ev, "attack").get("crit") and first(ev, "damage").get("amount") == 8
    assert b.dice.asked[1][1].endswith("confirm the critical hit")


def test_an_unconfirmed_threat_deals_normal_damage():
    b = _duel({**LASER, "critical": 19}, 1)
    ev = step(b, "fire", "T", faces=[19, 9, 3])
    assert not first(ev, "attack").get("crit") and first(ev, "damage").get("amount") == 3


def test_a_roll_below_the_threat_range_asks_no_confirmation():
    b = _duel({**LASER, "critical": 19}, 1)
    ev = step(b, "fire", "T", faces=[18, 3])
    assert not first(ev, "attack").get("crit") and len(b.dice.asked) == 2


def test_the_default_threat_is_a_natural_20_only():
    b = _duel(LASER, 1)
    ev = step(b, "fire", "T", faces=[19, 3])
    assert not first(ev, "attack").get("crit") and first(ev, "damage").get("amount") == 3


def test_a_threat_that_misses_is_no_critical():
    b = _duel({**LASER, "critical": 15}, 1, target=ship("T", "npcs", (1, 0), LASER, defense=18))
    ev = step(b, "fire", "T", faces=[16])
    assert not first(ev, "attack").get("hit") and len(b.dice.asked) == 1


# ---- damage dice ------------------------------------------------------------------------------------------------------
def test_fire_linked_guns_add_a_die_each():
    b = _duel({**LASER, "linked": 3}, 1)
    ev = step(b, "fire", "T", faces=[15, 1, 2, 3])
    assert first(ev, "damage_roll").get("expr") == "3d6" and first(ev, "damage").get("amount") == 6


def test_fire_linked_critical_doubles_all_the_dice():
    b = _duel({**LASER, "linked": 2}, 1)
    ev = step(b, "fire", "T", faces=[20, 12, 1, 2, 3, 4])
    assert first(ev, "damage").get("amount") == 10


def test_the_multiplier_multiplies_the_rolled_damage():
    b = _duel({**LASER, "multiplier": 3}, 1)
    ev = step(b, "fire", "T", faces=[15, 4])
    assert first(ev, "damage").get("amount") == 12 and u(b, "T").hp == 38


def test_the_multiplier_comes_before_damage_reduction():
    b = _duel({**LASER, "multiplier": 2}, 1, target=ship("T", "npcs", (1, 0), LASER, dr=5))
    ev = step(b, "fire", "T", faces=[15, 4])
    assert first(ev, "damage").get("amount") == 8 - 5


# ---- damage reduction, shields, hull ------------------------------------------------------------------------------------
def test_damage_reduction_applies_to_each_hit():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, dr=2), **{"weapons": [LASER, {**LASER, "name": "l2"}]})
    ev = step(b, "fire", "T", faces=[15, 5])
    ev += step(b, "fire_next", "T", option=1, faces=[15, 6])
    assert [e.get("amount") for e in all_of(ev, "damage")] == [3, 4] and u(b, "T").hp == 43


def test_damage_reduction_can_stop_a_hit():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, dr=6))
    ev = step(b, "fire", "T", faces=[15, 6])
    assert first(ev, "damage").get("amount") == 0 and u(b, "T").hp == 50


def test_shields_take_damage_before_the_hull():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, sp=5, dr=1))
    t = u(b, "T")
    assert t.hp == 55 and t.max_hp == 55
    ev = step(b, "fire", "T", faces=[15, 4])            # 4 - 1 = 3, all on the shields
    assert first(ev, "damage").get("shields") == 3 and t.state["sp"] == 2 and t.hp == 52
    end(b)
    end(b)
    ev = step(b, "fire", "T", faces=[15, 6])            # 5: 2 on the shields, 3 on the hull
    assert first(ev, "damage").get("shields") == 2 and t.state["sp"] == 0 and t.hp == 47


def test_zero_hull_takes_the_ship_out_of_the_fight():
    b = make(floor(3, 1), [ship("A", "pcs", (0, 0), LASER), ship("T", "npcs", (1, 0), LASER, hp_now=3),
                           ship("T2", "npcs", (2, 0), LASER)])
    ev = step(b, "fire", "T", faces=[15, 3])
    down = first(ev, "down")
    t = u(b, "T")
    assert down.target == t.id and t.down and t.hp == 0 and not t.state["fled"]
    end(b)
    assert actor(b) == "T2"           # T, out of the fight, gets no turn


def test_a_ship_with_hull_left_stays_in():
    b = _duel(LASER, 1, target=ship("T", "npcs", (1, 0), LASER, hp_now=4))
    ev = step(b, "fire", "T", faces=[15, 3])
    assert "down" not in kinds(ev) and not u(b, "T").down and u(b, "T").hp == 1


# ---- several weapons in one attack action ----------------------------------------------------------------------------------
def _battery():
    return make(floor(4, 2), [ship("A", "pcs", (0, 0), LASER, {**LASER, "name": "l2"}, {**GUN, "name": "g3"}),
                              ship("T", "npcs", (2, 0), LASER, hp_now=3), ship("T2", "npcs", (2, 1), LASER)])


def test_after_one_shot_only_the_other_weapons_or_cease_fire():
    b = _battery()
    step(b, "fire", "T", faces=[1])
    assert actions(b) == {"end_turn", "fire_next", "cease_fire"}
    assert legal_shots(b, "fire_next") == {(1, "T"), (2, "T"), (1, "T2"), (2, "T2")}
    assert "middle of its attack action" in why(b, "move", square=(0, 1))
    step(b, "fire_next", "T2", option=2, faces=[1])
    assert legal_shots(b, "fire_next") == {(1, "T"), (1, "T2")}


def test_each_target_is_chosen_after_the_earlier_results():
    b = _battery()
    step(b, "fire", "T", faces=[15, 3])            # T is destroyed by the first shot
    assert u(b, "T").down
    assert legal_shots(b, "fire_next") == {(1, "T2"), (2, "T2")}
    step(b, "fire_next", "T2", option=1, faces=[1])
    step(b, "fire_next", "T2", option=2, faces=[1])
    # every weapon fired: the attack action is over, the move actions remain
    assert "fire_next" not in actions(b) and "move" in actions(b) and "fire" not in actions(b)


def test_cease_fire_ends_the_attack_action():
    b = _battery()
    step(b, "fire", "T2", faces=[1])
    step(b, "cease_fire")
    assert "fire_next" not in actions(b) and "fire" not in actions(b) and "move" in actions(b)
    assert "follows a shot" in why(b, "fire_next", "T2", option=1)


def test_fire_next_needs_a_first_shot():
    b = _battery()
    assert "fire_next" not in actions(b)
    assert "follows a shot" in why(b, "fire_next", "T", option=1)


def test_a_weapon_fires_once_per_attack_action():
    b = _battery()
    step(b, "fire", "T2", option=1, faces=[1])
    assert (1, "T2") not in legal_shots(b, "fire_next") and (0, "T2") in legal_shots(b, "fire_next")


def test_the_attack_action_ends_when_no_weapon_left_can_reach():
    b = make(floor(12, 1), [ship("A", "pcs", (0, 0), {**LASER, "range": 1}, {**GUN, "name": "g2", "range": 1}),
                            ship("T", "npcs", (11, 0), LASER)])
    assert legal_shots(b) == {(1, "T")}               # 11 increments: beyond the beam, not the projectile
    atk = first(step(b, "fire", "T", option=1, faces=[1]), "attack")
    assert atk.get("bonus") == -20
    assert "fire_next" not in actions(b) and "move" in actions(b)   # nothing left to fire: the action is over


# ---- ammunition -------------------------------------------------------------------------------------------------------
def test_ammunition_runs_out():
    b = _duel({**GUN, "ammo": 2}, 1, width=3, target=None)
    a = u(b, "A")
    assert a.state["ammo"] == [2]
    step(b, "fire", "T", faces=[1])
    assert a.state["ammo"] == [1]
    end(b)
    end(b)
    step(b, "fire", "T", faces=[1])
    assert a.state["ammo"] == [0]
    end(b)
    end(b)
    assert "fire" not in actions(b)
    assert "empty" in why(b, "fire", "T")


def test_weapons_without_ammo_are_unlimited():
    b = _duel(LASER, 1)
    step(b, "fire", "T", faces=[1])
    assert u(b, "A").state["ammo"] == [-1]


def test_an_empty_weapon_leaves_the_others():
    b = make(floor(3, 1), [ship("A", "pcs", (0, 0), {**GUN, "ammo": 1}, LASER, state={"ammo": [0, -1]}),
                           ship("T", "npcs", (1, 0), LASER)])
    assert legal_shots(b) == {(1, "T")}
