"""Attack-action and move-action options: aid another, feint, total defense, fighting defensively, the tractor beam
and escaping it, damage control, operating sensors."""
import pytest

from .helpers import (GUN, LASER, PD, TRACTOR, actions, actor, all_of, defense, end, first, floor, kinds,
                      legal_squares, legal_targets, make, ship, step, u, why)


# ---- aid another ------------------------------------------------------------------------------------------------------
def _aid(**a_over):
    """A aids B against T (order A, B, T, T2)."""
    return make(floor(8, 3), [ship("A", "pcs", (0, 0), LASER, **a_over), ship("B", "pcs", (0, 2), GUN),
                              ship("T", "npcs", (2, 1), LASER), ship("T2", "npcs", (7, 2), GUN)])


def test_aid_is_an_attack_roll_against_defense_10_then_the_ally_is_chosen():
    b = _aid()
    ev = step(b, "aid", "T", option=0, faces=[10])
    assert first(ev, "aid").get("ok") and first(ev, "aid").get("total") == 10
    assert actions(b) == {"end_turn", "aid_ally"} and legal_targets(b, "aid_ally") == {"B"}
    assert "aid_ally" in why(b, "move", square=(1, 0))
    step(b, "aid_ally", "B")
    assert b.enc.budget["attack"] == 0 and "move" in actions(b)


def test_a_failed_aid_gives_nothing():
    b = _aid()
    ev = step(b, "aid", "T", option=0, faces=[9])
    assert not first(ev, "aid").get("ok") and "aid_ally" not in actions(b)
    assert u(b, "B").state["aid"] == []


def test_aid_uses_the_weapon_attack_bonus_and_a_natural_1_fails():
    b = _aid(weapons=[{**LASER, "attack": 5}])
    assert first(step(b, "aid", "T", faces=[5]), "aid").get("ok")
    b = _aid(weapons=[{**LASER, "attack": 20}])
    assert not first(step(b, "aid", "T", faces=[1]), "aid").get("ok")


def test_aid_on_attack_gives_plus_2_against_that_enemy_on_the_allys_next_turn():
    b = _aid()
    step(b, "aid", "T", option=0, faces=[12])
    step(b, "aid_ally", "B")
    end(b)
    assert actor(b) == "B"
    atk = first(step(b, "fire", "T", faces=[1]), "attack")
    assert atk.get("bonus") == 2 and "aided" in atk.get("notes")
    end(b)
    assert u(b, "B").state["aid"] == []     # it was for that turn only


def test_aid_on_attack_is_against_that_enemy_only():
    b = _aid()
    step(b, "aid", "T", option=0, faces=[12])
    step(b, "aid_ally", "B")
    end(b)
    atk = first(step(b, "fire", "T2", faces=[1]), "attack")
    assert atk.get("bonus") == -6 and "aided" not in atk.get("notes")   # 7 squares: 4 increments of 2, no aid


def test_aid_on_defense_gives_plus_2_defense_against_that_enemy():
    b = _aid()
    step(b, "aid", "T", option=1, faces=[12])
    step(b, "aid_ally", "B")
    assert defense(b, "B", "T") == 12 and defense(b, "B", "T2") == 10 and defense(b, "A", "T") == 10
    end(b)
    end(b)                                  # B's turn ends: the aid is spent
    assert defense(b, "B", "T") == 10


def test_no_aid_without_an_ally_or_beyond_weapon_range():
    b = make(floor(8, 1), [ship("A", "pcs", (0, 0), LASER), ship("T", "npcs", (2, 0), LASER)])
    assert "aid" not in actions(b) and why(b, "aid", "T") == "A has no ally left to aid"
    assert why(b, "aid_ally", "T") == "T is not an ally of A"
    b = make(floor(30, 2), [ship("A", "pcs", (0, 0), LASER), ship("B", "pcs", (0, 1), LASER),
                            ship("T", "npcs", (2, 0), LASER), ship("T2", "npcs", (29, 0), LASER)])
    assert legal_targets(b, "aid") == {"T"}
    assert why(b, "aid", "T2") == "aid another needs one of A's weapons able to fire at T2"


# ---- feint ------------------------------------------------------------------------------------------------------------
def _feint(bluff=5, sense=0):
    return make(floor(8, 3), [ship("A", "pcs", (0, 1), LASER, bluff=bluff), ship("B", "pcs", (0, 2), LASER),
                              ship("T", "npcs", (2, 1), LASER, pilot_dex=4, sense_motive=sense)])


def test_a_feint_is_bluff_against_sense_motive_and_costs_the_attack_action():
    b = _feint()
    ev = step(b, "feint", "T", faces=[10, 14])      # 15 against 14
    f = first(ev, "feint")
    assert f.get("ok") and f.get("mine") == 15 and f.get("theirs") == 14
    assert "fire" not in actions(b) and b.enc.budget["attack"] == 0


def test_a_tie_is_no_feint():
    b = _feint()
    ev = step(b, "feint", "T", faces=[10, 15])
    assert not first(ev, "feint").get("ok") and defense(b, "T", "A") == 14


def test_the_feinters_next_attack_ignores_the_pilots_dex():
    b = _feint()
    assert defense(b, "T") == 14
    step(b, "feint", "T", faces=[10, 1])
    assert defense(b, "T", "A") == 10 and defense(b, "T", "B") == 14
    end(b)
    end(b)
    end(b)
    assert actor(b) == "A" and b.enc.round == 2
    atk = first(step(b, "fire", "T", faces=[10, 2]), "attack")
    assert atk.get("defense") == 10 and atk.get("hit")
    assert defense(b, "T", "A") == 14            # the next attack only


def test_a_feint_lapses_after_the_feinters_next_turn():
    b = _feint()
    step(b, "feint", "T", faces=[10, 1])
    for _ in range(3):
        end(b)
    assert defense(b, "T", "A") == 10
    end(b)                                       # A's round-2 turn ends without attacking
    assert defense(b, "T", "A") == 14


# ---- total defense and fighting defensively ---------------------------------------------------------------------------------
def test_total_defense_is_plus_4_dodge_until_the_next_turn():
    b = make(floor(8, 1), [ship("A", "pcs", (0, 0), LASER), ship("T", "npcs", (7, 0), LASER)])
    step(b, "total_defense")
    assert defense(b, "A") == 14 and "fire" not in actions(b)
    end(b)
    assert actor(b) == "T" and defense(b, "A", "T") == 14
    atk = first(step(b, "fire", "A", faces=[13]), "attack")      # 13 - 6 (4 increments) against 14
    assert atk.get("defense") == 14 and not atk.get("hit")
    end(b)
    assert actor(b) == "A" and defense(b, "A") == 10


def test_total_defense_counts_against_point_defense_during_later_moves():
    b = make(floor(8, 1), [ship("A", "pcs", (1, 0), LASER), ship("T", "npcs", (0, 0), LASER, point_defense=PD)])
    step(b, "total_defense")
    ev = step(b, "move", square=(4, 0), faces=[12])              # 12 + 0 against 14: a miss
    atk = first(ev, "attack")
    assert first(ev, "aoo").actor == u(b, "T").id
    assert atk.get("defense") == 14 and not atk.get("hit") and u(b, "A").hp == 50


def test_fighting_defensively_is_minus_4_attacks_plus_2_dodge():
    b = make(floor(8, 1), [ship("A", "pcs", (0, 0), LASER, {**LASER, "name": "l2"}),
                           ship("T", "npcs", (1, 0), LASER)])
    step(b, "fight_defensively")
    assert "fight_defensively" not in actions(b) and defense(b, "A") == 10   # the +2 comes with the attack
    atk = first(step(b, "fire", "T", faces=[13]), "attack")
    assert atk.get("bonus") == -4 and not atk.get("hit") and defense(b, "A") == 12
    atk = first(step(b, "fire_next", "T", option=1, faces=[1]), "attack")
    assert atk.get("bonus") == -4                                # every attack of the round
    end(b)
    assert defense(b, "A", "T") == 12
    end(b)
    assert actor(b) == "A" and defense(b, "A") == 10
    assert first(step(b, "fire", "T", faces=[1]), "attack").get("bonus") == 0


def test_fighting_defensively_is_declared_before_firing():
    b = make(floor(8, 1), [ship("A", "pcs", (0, 0), LASER, {**LASER, "name": "l2"}),
                           ship("T", "npcs", (1, 0), LASER)])
    step(b, "fire", "T", faces=[1])
    assert "fight_defensively" not in actions(b)
    assert why(b, "fire_next", "T", option=0) == "the laser has fired in this attack action"
    assert why(b, "fire_next", "T", option=5) == "A has no weapon 5 (its weapons: 0 laser, 1 l2)"


# ---- tractor beam -----------------------------------------------------------------------------------------------------
def _tractor(dist=2, t_over=None):
    return make(floor(10, 3), [ship("A", "pcs", (0, 1), LASER, tractor={**TRACTOR, "attack": 2}),
                               ship("T", "npcs", (dist, 1), LASER, pilot=3, **(t_over or {}))])


def test_the_tractor_beam_is_an_attack_roll_against_defense():
    b = _tractor()
    ev = step(b, "tractor_beam", "T", faces=[7])                 # 9 against 10: a miss
    assert not first(ev, "attack").get("hit") and u(b, "T").state["grappled_by"] is None
    b = _tractor()
    ev = step(b, "tractor_beam", "T", faces=[8])
    assert "grappled" in kinds(ev)
    assert u(b, "T").state["grappled_by"] == u(b, "A").id and u(b, "A").state["grappling"] == u(b, "T").id


def test_the_tractor_beam_has_a_range():
    assert "tractor_beam" in actions(_tractor(3))
    assert "tractor_beam" not in actions(_tractor(4))
    assert why(_tractor(4), "tractor_beam", "T") == "T is beyond the tractor beam's 3 squares or out of sight"
    assert why(_tractor(), "escape") == "A is not held by a tractor beam"
    assert "tractor_beam" not in actions(make(floor(4, 1), [ship("A", "pcs", (0, 0), LASER),
                                                            ship("T", "npcs", (1, 0), LASER)]))


def test_a_held_ship_cannot_move_shift_or_jump():
    b = _tractor()
    step(b, "tractor_beam", "T", faces=[15])
    end(b)
    assert actor(b) == "T"
    got = actions(b)
    assert not {"move", "shift", "ram", "surge", "withdraw", "jump", "start_jump"} & got
    assert {"escape", "fire", "operate_sensors"} <= got
    assert "held by a tractor beam" in why(b, "move", square=(3, 0))


def test_escape_is_pilot_against_the_tractor_beam():
    b = _tractor()
    step(b, "tractor_beam", "T", faces=[15])
    end(b)
    ev = step(b, "escape", faces=[10, 11])                       # 13 against 13: still held
    assert not first(ev, "escape").get("ok") and u(b, "T").state["grappled_by"] is not None
    b = _tractor()
    step(b, "tractor_beam", "T", faces=[15])
    end(b)
    ev = step(b, "escape", faces=[11, 11])                       # 14 against 13: free
    assert first(ev, "escape").get("ok") and u(b, "T").state["grappled_by"] is None
    assert u(b, "A").state["grappling"] is None
    assert "move" in actions(b)


def test_the_grappler_moving_away_lets_go():
    b = _tractor()
    step(b, "tractor_beam", "T", faces=[15])
    ev = step(b, "move", square=(0, 0))
    assert "grapple_ends" in kinds(ev) and u(b, "T").state["grappled_by"] is None


def test_one_tractor_beam_hold_at_a_time():
    b = make(floor(10, 3), [ship("A", "pcs", (0, 1), LASER, tractor=TRACTOR), ship("T", "npcs", (2, 1), LASER),
                            ship("T2", "npcs", (2, 2), LASER)])
    step(b, "tractor_beam", "T", faces=[15])
    end(b)
    end(b)
    end(b)
    assert actor(b) == "A" and "tractor_beam" not in actions(b)


# ---- damage control ----------------------------------------------------------------------------------------------------
def _repair(**over):
    return make(floor(10, 1), [ship("A", "pcs", (0, 0), LASER, **over), ship("T", "npcs", (9, 0), LASER)])


def test_damage_control_needs_the_system():
    assert "damage_control" not in actions(_repair(hp_now=30))
    assert why(_repair(hp_now=30), "damage_control") == "A has no damage control system"
    assert "damage_control" in actions(_repair(hp_now=30, damage_control="1d10"))


def test_damage_control_repairs_the_hull_not_beyond_full():
    b = _repair(hp_now=45, damage_control="1d10")
    ev = step(b, "damage_control", faces=[8])
    assert first(ev, "damage_control").get("amount") == 5 and u(b, "A").hp == 50
    b = _repair(hp_now=30, damage_control="2d6")
    step(b, "damage_control", faces=[3, 4])
    assert u(b, "A").hp == 37 and b.enc.budget["move"] == 1


def test_no_damage_control_at_full_hull_even_with_shields_down():
    b = _repair(sp=10, sp_now=0, damage_control="1d10")
    assert "damage_control" not in actions(b)
    assert why(b, "damage_control") == "A's hull is undamaged (damage control repairs hull, not shields)"
    b = _repair(sp=10, sp_now=0, hp_now=40, damage_control="1d10")
    step(b, "damage_control", faces=[4])
    assert u(b, "A").hp == 44 and u(b, "A").state["sp"] == 0     # hull only, the shields stay down


def test_damage_control_once_a_round():
    b = _repair(hp_now=20, damage_control="1d10")
    step(b, "damage_control", faces=[2])
    assert b.enc.budget["move"] == 1 and "damage_control" not in actions(b)
    end(b)
    end(b)
    assert "damage_control" in actions(b)


# ---- operate sensors ----------------------------------------------------------------------------------------------------
def test_operate_sensors_gives_plus_2_this_turn():
    b = make(floor(10, 1), [ship("A", "pcs", (0, 0), GUN), ship("T", "npcs", (1, 0), LASER)])
    step(b, "operate_sensors")
    assert b.enc.budget["move"] == 1 and "operate_sensors" not in actions(b)
    atk = first(step(b, "fire", "T", faces=[8, 3]), "attack")     # 8 + 2 against 10
    assert atk.get("bonus") == 2 and atk.get("hit") is True and "sensor lock" in atk.get("notes")
    end(b)
    end(b)
    assert actor(b) == "A"
    assert first(step(b, "fire", "T", faces=[1]), "attack").get("bonus") == 0


def test_the_sensor_lock_is_the_users_own():
    b = make(floor(10, 1), [ship("A", "pcs", (0, 0), GUN), ship("T", "npcs", (1, 0), GUN)])
    step(b, "operate_sensors")
    end(b)
    assert first(step(b, "fire", "A", faces=[1]), "attack").get("bonus") == 0
