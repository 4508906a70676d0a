"""Moving at tactical speed and point defense's attacks of opportunity; ramming; jumping to cruising speed (at once
or started and completed); surging forward; withdrawing."""
import pytest

from engine.core.reaction import always_decline

from .helpers import (GUN, LASER, PD, TRACTOR, actions, actor, all_of, defense, end, first, floor, kinds,
                      legal_squares, legal_targets, make, ship, step, u, why)


# ---- move at tactical speed -------------------------------------------------------------------------------------------
def test_a_move_action_covers_the_tactical_speed():
    b = make(floor(12, 5), [ship("A", "pcs", (0, 2), LASER, speed=4), ship("T", "npcs", (11, 2), LASER)])
    sq = legal_squares(b, "move")
    assert (4, 2) in sq and (5, 2) not in sq and (0, 2) not in sq
    assert (3, 4) in sq and (4, 4) not in sq     # every second diagonal step counts 2: (4, 4) is 5 squares away
    step(b, "move", square=(4, 2))
    assert u(b, "A").pos == (4, 2) and (8, 2) in legal_squares(b, "move")


def test_a_refused_square_says_why():
    b = make(["......", "..#...", "......"], [ship("A", "pcs", (0, 1), LASER, speed=2),
                                              ship("T", "npcs", (5, 1), LASER), ship("B", "pcs", (0, 0), LASER)])
    assert why(b, "move", square=(2, 1)) == "(2, 1) is wall, not a square a ship can enter"
    assert why(b, "move", square=(0, 0)) == "B is at (0, 0)"
    assert why(b, "move", square=(0, 1)) == "A is already at (0, 1)"
    assert why(b, "move", square=(4, 1)) == ("(4, 1) is not reachable within 2 squares from (0, 1) (A's tactical "
                                             "speed of 2; walls and enemy ships block the way)")
    assert "twice" in why(b, "withdraw", square=(5, 0)) and "within 4 squares" in why(b, "withdraw", square=(5, 0))
    assert why(b, "shift", square=(3, 1)).endswith("(3, 1) is 3 squares away")
    assert "straight along one of the eight directions" in why(b, "surge", square=(3, 2))


def test_ships_block_enemy_squares():
    b = make(floor(6, 1), [ship("A", "pcs", (0, 0), LASER), ship("T", "npcs", (2, 0), LASER)])
    assert legal_squares(b, "move") == {(1, 0)}


def _pd(t_over=None, **a_over):
    """A (pcs) at (1, 1) beside T (npcs, point defense) at (0, 1); B (pcs) at (1, 0), also beside T."""
    return make(floor(10, 3), [ship("A", "pcs", (1, 1), LASER, **a_over), ship("B", "pcs", (1, 0), LASER),
                               ship("T", "npcs", (0, 1), LASER, point_defense={**PD, "attack": 2},
                                    **(t_over or {}))])


def test_leaving_a_square_next_to_point_defense_provokes():
    b = _pd()
    ev = step(b, "move", square=(5, 1), faces=[8, 4])        # 8 + 2 against 10: 1d6 = 4
    aoo = first(ev, "aoo")
    assert aoo.actor == u(b, "T").id and aoo.target == u(b, "A").id
    atk = first(ev, "attack")
    assert atk.get("why") == "point defense" and atk.get("total") == 10 and atk.get("hit")
    assert u(b, "A").hp == 46 and u(b, "T").state["reaction"] is False


def test_point_defense_fires_once_a_round():
    b = _pd()
    step(b, "move", square=(5, 1), faces=[1])
    end(b)
    assert actor(b) == "B"
    ev = step(b, "move", square=(5, 0))
    assert "aoo" not in kinds(ev)
    end(b)
    end(b)                                                    # T's turn: its reaction is back
    assert actor(b) == "A" and u(b, "T").state["reaction"] is True
    step(b, "move", square=(1, 1))
    ev = step(b, "move", square=(5, 2), faces=[1])
    assert "aoo" in kinds(ev)


def test_no_attack_of_opportunity_from_a_ship_without_point_defense():
    b = make(floor(10, 3), [ship("A", "pcs", (1, 1), LASER), ship("T", "npcs", (0, 1), LASER)])
    ev = step(b, "move", square=(5, 1))
    assert "aoo" not in kinds(ev) and "attack" not in kinds(ev)


def test_moving_away_from_no_threatened_square_provokes_nothing():
    b = _pd()
    step(b, "move", square=(5, 1), faces=[1])
    ev = step(b, "move", square=(8, 1))
    assert "aoo" not in kinds(ev)


def test_point_defense_may_be_declined():
    b = make(floor(10, 3), [ship("A", "pcs", (1, 1), LASER), ship("T", "npcs", (0, 1), LASER, point_defense=PD)],
             react=always_decline)
    ev = step(b, "move", square=(5, 1))
    assert "aoo" not in kinds(ev) and u(b, "T").state["reaction"] is True


# ---- ram --------------------------------------------------------------------------------------------------------------
def _ram(t_over=None, **a_over):
    """A (pcs, medium, pilot 0) at (0, 1) rams T (npcs, tiny) at (4, 1)."""
    return make(floor(10, 3), [ship("A", "pcs", (0, 1), LASER, **a_over),
                               ship("T", "npcs", (4, 1), LASER, **{"size": "tiny", **(t_over or {})}),
                               ship("T2", "npcs", (6, 1), LASER, size="tiny")])


def test_ram_closes_in_and_hits_on_pilot_against_5_plus_defense():
    b = _ram()
    assert defense(b, "T") == 12
    ev = step(b, "ram", "T", faces=[17, 1, 2, 3, 4])        # 17 >= 5 + 12; tiny collision: 4d6 = 10
    assert u(b, "A").pos in {(3, 0), (3, 1), (3, 2)}
    r = first(ev, "ram")
    assert r.get("ok") and r.get("dc") == 17 and r.get("total") == 17
    assert [e.get("amount") for e in all_of(ev, "damage")] == [10, 10]
    assert u(b, "T").hp == 40 and u(b, "A").hp == 40
    assert b.enc.budget["move"] == 1


def test_a_failed_ram_deals_no_damage():
    b = _ram()
    ev = step(b, "ram", "T", faces=[16])
    assert not first(ev, "ram").get("ok") and "damage" not in kinds(ev)
    assert u(b, "T").hp == 50 and u(b, "A").hp == 50


def test_collision_damage_is_the_smaller_ships_and_each_subtracts_its_dr():
    b = _ram(t_over={"size": "large", "dr": 3}, size="small", dr=1, pilot=20)
    ev = step(b, "ram", "T", faces=[10] + [1] * 6)           # the smaller is small: 6d6 = 6
    assert b.dice.asked[-1][0] == 6 and len(b.dice.asked) == 7
    dmg = {e.target: e.get("amount") for e in all_of(ev, "damage")}
    assert dmg == {u(b, "T").id: 6 - 3, u(b, "A").id: 6 - 1}


def test_the_targets_point_defense_fires_before_the_ram():
    b = _ram(t_over={"point_defense": {**PD, "attack": 5}})
    ev = step(b, "ram", "T", faces=[6, 3, 17, 1, 1, 1, 1])   # point defense 11 against 10: 3, then the ram
    ks = kinds(ev)
    assert ks.index("aoo") < ks.index("ram")
    assert first(ev, "aoo").actor == u(b, "T").id and u(b, "A").hp == 50 - 3 - 4


def test_a_ship_destroyed_by_point_defense_does_not_ram():
    b = _ram(t_over={"point_defense": {**PD, "attack": 5}}, hp_now=2)
    ev = step(b, "ram", "T", faces=[10, 5])
    assert u(b, "A").down and "ram" not in kinds(ev)


def test_one_ram_per_target_a_round():
    b = _ram()
    step(b, "ram", "T", faces=[1])
    assert "T" not in legal_targets(b, "ram")
    assert "T2" in legal_targets(b, "ram")               # a different target is still possible
    end(b)
    for _ in range(2):
        end(b)
    assert actor(b) == "A" and "T" in legal_targets(b, "ram")


def test_a_ram_needs_the_target_within_reach():
    b = make(floor(12, 1), [ship("A", "pcs", (0, 0), LASER, speed=3), ship("T", "npcs", (5, 0), LASER)])
    assert "ram" not in actions(b)
    b = make(floor(12, 1), [ship("A", "pcs", (0, 0), LASER, speed=4), ship("T", "npcs", (5, 0), LASER)])
    assert "ram" in actions(b)


# ---- jump to cruising speed ----------------------------------------------------------------------------------------------
def _jump(t_over=None, **a_over):
    return make(floor(10, 3), [ship("A", "pcs", (1, 1), LASER, **a_over), ship("B", "pcs", (9, 0), LASER),
                               ship("T", "npcs", (0, 1), LASER, **(t_over or {})),
                               ship("T2", "npcs", (9, 2), LASER)])


def test_jumping_leaves_the_battle_down_but_not_dead():
    b = _jump()
    ev = step(b, "jump")
    a = u(b, "A")
    assert "escaped" in kinds(ev) and a.state["fled"] and a.down and not a.dead
    assert actor(b) == "B" and b.enc.winner is None


def test_the_last_ship_of_a_side_jumping_away_ends_the_battle():
    b = make(floor(10, 1), [ship("A", "pcs", (0, 0), LASER), ship("T", "npcs", (9, 0), LASER)])
    step(b, "jump")
    assert b.enc.winner == "npcs"


def test_jumping_provokes_point_defense_beside_the_ship():
    b = _jump(t_over={"point_defense": PD})
    ev = step(b, "jump", faces=[12, 3])
    ks = kinds(ev)
    assert ks.index("aoo") < ks.index("escaped") and u(b, "A").hp == 47


def test_jumping_provokes_no_distant_point_defense():
    b = make(floor(10, 3), [ship("A", "pcs", (3, 1), LASER), ship("B", "pcs", (9, 0), LASER),
                            ship("T", "npcs", (0, 1), LASER, point_defense=PD)])
    ev = step(b, "jump")
    assert "aoo" not in kinds(ev) and "escaped" in kinds(ev)


def test_a_ship_destroyed_while_jumping_does_not_escape():
    b = _jump(t_over={"point_defense": PD}, hp_now=2)
    ev = step(b, "jump", faces=[12, 3])
    a = u(b, "A")
    assert "escaped" not in kinds(ev) and a.down and a.dead and not a.state["fled"]


def test_no_jump_while_held_by_a_tractor_beam():
    b = make(floor(10, 3), [ship("T", "npcs", (0, 1), LASER, tractor=TRACTOR), ship("A", "pcs", (2, 1), LASER),
                            ship("B", "pcs", (9, 0), LASER)])
    step(b, "tractor_beam", "A", faces=[15])
    end(b)
    assert actor(b) == "A" and not {"jump", "start_jump"} & actions(b)
    assert "held by a tractor beam" in why(b, "jump")


def test_start_jump_then_complete_it_next_turn_first():
    b = _jump()
    step(b, "operate_sensors")
    step(b, "start_jump")
    assert u(b, "A").state["jumping"]
    assert actor(b) == "B"                 # nothing else after starting it: the turn passed by itself
    for _ in range(3):
        end(b)
    assert actor(b) == "A" and actions(b) == {"end_turn", "complete_jump"}
    assert "completing it comes first" in why(b, "move", square=(2, 1))
    ev = step(b, "complete_jump")
    assert "escaped" in kinds(ev) and u(b, "A").state["fled"] and not u(b, "A").dead


def test_a_started_jump_not_completed_is_abandoned():
    b = _jump()
    step(b, "start_jump")
    for _ in range(3):
        end(b)
    end(b)
    assert not u(b, "A").state["jumping"] and not u(b, "A").down
    for _ in range(3):
        end(b)
    assert actor(b) == "A" and "move" in actions(b)


def test_completing_a_jump_provokes_point_defense():
    b = _jump(t_over={"point_defense": PD})
    step(b, "start_jump")
    for _ in range(3):
        end(b)
    ev = step(b, "complete_jump", faces=[1])
    assert "aoo" in kinds(ev) and "escaped" in kinds(ev)


def test_a_started_jump_cannot_be_completed_while_held():
    """'Not while held by a tractor beam': a ship caught after starting its jump cannot finish it."""
    b = make(floor(10, 3), [ship("A", "pcs", (2, 1), LASER), ship("B", "pcs", (9, 0), LASER),
                            ship("T", "npcs", (0, 1), LASER, tractor=TRACTOR)])
    step(b, "start_jump")
    end(b)
    step(b, "tractor_beam", "A", faces=[15])
    end(b)
    assert actor(b) == "A" and u(b, "A").state["grappled_by"] is not None
    assert "complete_jump" not in actions(b)


# ---- surge forward ----------------------------------------------------------------------------------------------------
def _surge(**a_over):
    return make(floor(12, 3), [ship("A", "pcs", (0, 1), LASER, speed=2, pilot_dex=3, **a_over),
                               ship("T", "npcs", (11, 2), LASER)])


def test_surge_is_up_to_four_times_speed_in_a_straight_line():
    b = _surge()
    sq = legal_squares(b, "surge")
    assert (8, 1) in sq and (9, 1) not in sq
    assert (1, 2) in sq and (1, 0) in sq and (2, 2) not in sq and (8, 2) not in sq   # diagonals yes, bends no
    step(b, "surge", square=(8, 1))
    assert u(b, "A").pos == (8, 1)


def test_surge_stops_at_a_ship_in_the_way():
    b = make(floor(12, 1), [ship("A", "pcs", (0, 0), LASER, speed=2), ship("T", "npcs", (5, 0), LASER)])
    assert legal_squares(b, "surge") == {(1, 0), (2, 0), (3, 0), (4, 0)}


def test_a_surging_ship_loses_its_pilots_dex_and_dodge_until_its_next_turn():
    b = _surge()
    assert defense(b, "A") == 13
    step(b, "surge", square=(8, 1))
    a = u(b, "A")
    assert defense(b, "A", "T") == 10
    a.state["dodge"] = 4                   # a dodge bonus counts for nothing while surging
    assert defense(b, "A", "T") == 10
    a.state["dodge"] = 0
    assert actor(b) == "T"
    atk = first(step(b, "fire", "A", faces=[20, 1, 2]), "attack")
    assert atk.get("defense") == 10
    end(b)
    assert actor(b) == "A" and defense(b, "A") == 13


def test_surge_provokes_point_defense():
    b = make(floor(12, 3), [ship("A", "pcs", (1, 1), LASER), ship("T", "npcs", (0, 1), LASER, point_defense=PD),
                            ship("T2", "npcs", (11, 0), LASER)])
    ev = step(b, "surge", square=(6, 1), faces=[1])
    assert "aoo" in kinds(ev) and u(b, "A").pos == (6, 1)


# ---- withdraw ---------------------------------------------------------------------------------------------------------
def test_withdraw_is_up_to_twice_speed():
    b = make(floor(12, 1), [ship("A", "pcs", (0, 0), LASER, speed=3), ship("T", "npcs", (11, 0), LASER)])
    sq = legal_squares(b, "withdraw")
    assert (6, 0) in sq and (7, 0) not in sq
    step(b, "withdraw", square=(6, 0))
    assert u(b, "A").pos == (6, 0) and actor(b) == "T"


def test_withdrawing_from_the_starting_square_does_not_provoke():
    b = make(floor(12, 3), [ship("A", "pcs", (1, 1), LASER), ship("T", "npcs", (0, 1), LASER, point_defense=PD)])
    ev = step(b, "withdraw", square=(7, 1))
    assert "aoo" not in kinds(ev) and u(b, "A").pos == (7, 1) and u(b, "T").state["reaction"] is True


def test_withdrawing_through_another_threatened_square_provokes():
    b = make(floor(12, 2), [ship("A", "pcs", (1, 1), LASER, speed=3),
                            ship("T", "npcs", (2, 0), LASER, point_defense=PD)])
    ev = step(b, "withdraw", square=(6, 1), faces=[15, 2])    # (2, 1) and (3, 1) are next to T too
    assert all_of(ev, "aoo") and len(all_of(ev, "aoo")) == 1 and u(b, "A").hp == 48
    assert u(b, "A").pos == (6, 1)
