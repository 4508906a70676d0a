"""Special combat abilities ("5.8.3"): charge, desperate exertion, ready reaction, recover, total defense, overrun,
shove, trip; brawling accuracy."""
import pytest

from engine.core.reaction import DECLINE

from .helpers import (SWORD, C, actions, actor, all_of, first, floor, kinds, legal_squares, make, play_phase,
                      skip_movement, step, u, unit, why)


def _squares(b, action):
    return legal_squares(b, action)


# ---- charge --------------------------------------------------------------------------------------------------------
def _charge(rows=None, t_at=(5, 1), **over):
    b = make(rows or floor(8, 3), [unit("A", "pcs", (0, 1), SWORD, **over), unit("T", "npcs", t_at, SWORD, hp=40)])
    skip_movement(b)
    return b


def test_a_charge_moves_in_a_straight_line_then_strikes():
    b = _charge(accuracy=2)
    ev = play_phase(b, [8, 5], A=("charge", "T"))
    assert first(ev, "move").get("how") == "charges" and u(b, "A").pos == (4, 1)
    assert first(ev, "attack").get("why") == "melee strike" and u(b, "T").hp == 40 - 5


def test_a_charge_needs_a_clear_straight_line_within_the_speed_and_at_least_one_square():
    assert "charge" in actions(_charge())
    assert "charge" in actions(_charge(rows=floor(10, 3), t_at=(7, 1)))     # 6 squares to (6, 1), next to T
    assert "charge" not in actions(_charge(t_at=(1, 1)))                    # adjacent: no movement to make
    assert "charge" not in actions(_charge(rows=floor(10, 3), t_at=(8, 1)))  # beyond the speed
    b = make([".#......"], [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (4, 0), SWORD)])
    skip_movement(b)
    assert "charge" not in actions(b)                                       # a wall in the line
    assert "no straight, clear line" in why(b, "charge", "T")


def test_a_charge_line_is_straight_not_any_path():
    # from (0, 0) no line of the eight directions ends next to T at (5, 2) within 6 squares (east stays on row 0,
    # the diagonal passes (3, 3) and (4, 4)), though a walk reaches (4, 2) next to it
    b = make(floor(8, 5), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (5, 2), SWORD)])
    skip_movement(b)
    assert "charge" not in actions(b) and (4, 2) in legal_squares(b, "sprint_action")


def test_a_charge_lowers_all_defenses_by_2_only_after_the_phase():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), SWORD, hp=40),
                           unit("T", "npcs", (5, 1), SWORD, hp=40), unit("R", "npcs", (7, 2), "sling", hp=40)])
    skip_movement(b)
    # R's projectile strike in the same phase: Armor 10 (a static act, before the charge, and the -2 is not Swift)
    # R: 8, a glance for 1 // 2; A's charge strike on T: 1, a miss
    ev = play_phase(b, [8, 1, 1], A=("charge", "T"), R=("shoot", "A"))
    shot = first(ev, "attack")
    assert shot.actor == u(b, "R").id and shot.get("defense") == 10
    a = u(b, "A")
    assert [C.defense(b.enc, a, d) for d in C.DEFENSES] == [8, 8, 8, 8]
    play_phase(b)                                        # round 2's movement phase
    ev = play_phase(b, [1], R=("shoot", "A"))             # round 2: still -2
    assert first(ev, "attack").get("defense") == 8
    play_phase(b)                                        # round 3
    assert [C.defense(b.enc, a, d) for d in C.DEFENSES] == [10, 10, 10, 10]


def test_a_prone_creature_cannot_charge():
    assert "charge" not in actions(_charge(state={"prone": True}))


# ---- desperate exertion ----------------------------------------------------------------------------------------------
def _exerter(tolerance=2, fatigue=0, **over):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, fatigue_tolerance=tolerance, state={"fatigue": fatigue},
                                **over), unit("T", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    return b


def test_desperate_exertion_after_a_miss_rerolls_with_2_and_costs_two_fatigue_levels():
    b = _exerter()
    ev = play_phase(b, [5, 9, 4], A=("strike", "T"))     # 5: a miss; exertion 9 + 2 = 11: a hit
    ex, attack = first(ev, "exertion"), first(ev, "attack")
    assert (ex.get("was"), ex.get("total")) == (5, 11)
    assert attack.get("total") == 11 and attack.get("result") == "hit" and attack.get("exerted")
    assert u(b, "A").state["fatigue"] == 2 and u(b, "T").hp == 40 - 4


def test_desperate_exertion_after_a_glancing_blow_too():
    b = _exerter()
    ev = play_phase(b, [9, 8, 4], A=("strike", "T"))     # 9: a glance; 8 + 2 = 10: a hit
    assert first(ev, "attack").get("result") == "hit" and u(b, "T").hp == 40 - 4


def test_desperate_exertion_keeps_the_higher_result():
    b = _exerter()
    ev = play_phase(b, [9, 4, 6], A=("strike", "T"))     # 9: a glance; 4 + 2 = 6 is lower: 9 kept
    attack = first(ev, "attack")
    assert attack.get("total") == 9 and attack.get("result") == "glance" and not attack.get("exerted")
    assert u(b, "A").state["fatigue"] == 2 and u(b, "T").hp == 40 - 3


def test_desperate_exertion_only_once_a_roll():
    b = _exerter(tolerance=10)
    ev = play_phase(b, [2, 3], A=("strike", "T"))        # a miss, rerolled to 5: still a miss, no third roll
    assert len(all_of(ev, "exertion")) == 1 and u(b, "A").state["fatigue"] == 2


@pytest.mark.parametrize("tolerance,fatigue", [(1, 0), (3, 2)])
def test_no_desperate_exertion_beyond_the_fatigue_tolerance(tolerance, fatigue):
    b = _exerter(tolerance, fatigue)
    ev = play_phase(b, [5], A=("strike", "T"))
    assert not all_of(ev, "exertion") and u(b, "A").state["fatigue"] == fatigue


def test_no_desperate_exertion_after_a_hit():
    b = _exerter()
    ev = play_phase(b, [10, 1, 4], A=("strike", "T"))
    assert not all_of(ev, "exertion") and u(b, "A").state["fatigue"] == 0


def test_desperate_exertion_rerolls_a_brawling_attack():
    b = _exerter()
    ev = play_phase(b, [3, 9], A=("trip", "T"))          # 3 vs Fortitude 10; 9 + 2: a hit
    assert first(ev, "attack").get("result") == "hit" and u(b, "T").state["prone"]


# ---- ready reaction ------------------------------------------------------------------------------------------------
def _ready(rows=None, **over):
    b = make(rows or floor(8, 1), [unit("A", "pcs", (0, 0), SWORD, **over), unit("T", "npcs", (5, 0), SWORD, hp=40)])
    skip_movement(b)
    return b


def test_a_readied_strike_goes_off_after_an_enemy_charges_next_to_it():
    b = _ready(accuracy=2)
    # T's charge: 9 vs A's Armor 10, a glance for 4 // 2; then A's readied strike: 8 + 2 vs T's Armor 10, a hit for 6
    ev = play_phase(b, [9, 4, 8, 6], A=("ready",), T=("charge", "A"))
    assert [e.actor for e in all_of(ev, "attack")] == [u(b, "T").id, u(b, "A").id]      # after the charge completes
    assert first(ev, "readied").actor == u(b, "A").id and u(b, "T").pos == (1, 0)
    readied = all_of(ev, "attack")[1]
    assert readied.get("defense") == 10          # the charge's -2 comes only after the phase
    assert u(b, "T").hp == 40 - 6 and u(b, "A").hp == 20 - 2


def test_a_readied_strike_is_reactive_no_desperate_exertion():
    b = _ready(fatigue_tolerance=6)
    ev = play_phase(b, [1, 3], A=("ready",), T=("charge", "A"))      # T misses, A's readied 3 misses: no reroll
    assert not all_of(ev, "exertion") and u(b, "A").state["fatigue"] == 0


def test_a_readied_strike_does_nothing_if_no_enemy_comes_into_reach():
    b = _ready()
    ev = play_phase(b, A=("ready",), T=("total_defense",))
    assert first(ev, "ready").actor == u(b, "A").id and not all_of(ev, "readied") and not all_of(ev, "attack")


def test_a_readied_strike_goes_off_on_an_enemy_that_ends_a_sprint_next_to_it():
    b = _ready(accuracy=2)
    ev = play_phase(b, [8, 3], A=("ready",), T=("sprint_action", None, (1, 0)))
    assert first(ev, "readied").target == u(b, "T").id and u(b, "T").hp == 40 - 3


def test_a_readied_strike_waits_for_an_enemy_that_ends_its_act_in_reach_not_one_passing_by():
    # simplified: the text's reaction would also answer an enemy that only passes through reach
    b = make(floor(8, 3), [unit("A", "pcs", (3, 1), SWORD), unit("T", "npcs", (0, 0), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, A=("ready",), T=("sprint_action", None, (7, 0)))
    assert u(b, "T").pos == (7, 0) and not all_of(ev, "readied")


def test_a_readied_strike_goes_once():
    b = make(floor(8, 3), [unit("A", "pcs", (0, 1), SWORD), unit("T", "npcs", (5, 0), SWORD, hp=40),
                           unit("V", "npcs", (5, 2), SWORD, hp=40)])
    skip_movement(b)
    ev = play_phase(b, [1, 1, 2], A=("ready",), T=("charge", "A"), V=("charge", "A"))
    assert len(all_of(ev, "readied")) == 1


# ---- recover ---------------------------------------------------------------------------------------------------------
def _hurt(**state):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, dr=6, hp_now=4, dr_now=0, state=state),
                           unit("T", "npcs", (1, 0), SWORD, hp=40)])
    skip_movement(b)
    return b


def test_recover_regains_all_damage_resistance_and_half_the_hit_points_for_two_fatigue_levels():
    b = _hurt()
    a = u(b, "A")
    assert (a.hp - a.state["dr"], a.state["dr"]) == (4, 0)
    ev = play_phase(b, A=("recover",))
    assert first(ev, "recover").get("hp") == 10
    assert (a.hp - a.state["dr"], a.state["dr"], a.state["fatigue"]) == (14, 6, 2)


def test_recover_never_goes_past_the_maximum():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, hp_now=15), unit("T", "npcs", (1, 0), SWORD)])
    skip_movement(b)
    play_phase(b, A=("recover",))
    assert u(b, "A").hp == 20


def test_recover_is_swift_its_removed_conditions_do_not_count_in_the_same_phase():
    b = _hurt(prone=True, brief=[["all", 2, 9]])
    assert C.defense(b.enc, u(b, "A"), "armor") == 10 - 2 - 2
    ev = play_phase(b, [9, 3], A=("recover",), T=("strike", "A"))      # 9 vs Armor 10 after recovering: a glance
    strike = first(ev, "attack")
    assert strike.get("defense") == 10 and strike.get("result") == "glance"
    a = u(b, "A")
    assert a.state["prone"] is False and a.state["brief"] == []
    assert a.state["dr"] == 6 - 1 and a.hp - a.state["dr"] == 14      # the glancing blow's 1 on the resistance


def test_recover_once_per_short_rest():
    b = _hurt()
    play_phase(b, A=("recover",))
    play_phase(b)
    assert "recover" not in actions(b) and "recovered already" in why(b, "recover")


# ---- total defense ---------------------------------------------------------------------------------------------------
def test_total_defense_is_swift_plus_2_to_all_defenses_against_the_same_phases_attacks():
    b = make(floor(3, 3), [unit("A", "pcs", (1, 1), SWORD), unit("T", "npcs", (2, 1), SWORD, accuracy=2),
                           unit("U", "npcs", (0, 1), SWORD, brawling=2)])
    skip_movement(b)
    # A's total defense first (Swift); then T's strike 9 + 2 vs Armor 12 (a glance), U's trip 9 + 2 vs Fortitude 12
    ev = play_phase(b, [9, 3, 9], A=("total_defense",), T=("strike", "A"), U=("trip", "A"))
    assert [(e.get("defense"), e.get("result")) for e in all_of(ev, "attack")] == [(12, "glance"), (12, "glance")]
    assert not u(b, "A").state["prone"]
    play_phase(b)                                        # the next round
    assert [C.defense(b.enc, u(b, "A"), d) for d in C.DEFENSES] == [10, 10, 10, 10]


# ---- overrun ---------------------------------------------------------------------------------------------------------
def _overrun(react=None, **over):
    return make(floor(7, 1), [unit("A", "pcs", (0, 0), SWORD, brawling=3, **over), unit("B", "npcs", (2, 0), SWORD)],
                react=react)


def test_overrun_squares_are_past_an_enemy_in_a_straight_line_never_on_it():
    b = _overrun()
    assert _squares(b, "overrun_move") == {(3, 0), (4, 0), (5, 0), (6, 0)}


def test_an_overrun_past_a_blocker_it_beats_with_brawling_vs_fortitude():
    b = _overrun()
    ev = play_phase(b, [7], A=("overrun_move", None, (4, 0)))       # 7 + 3 vs Fortitude 10: through
    attack = first(ev, "attack")
    assert attack.get("why") == "overrun" and attack.get("defense") == 10 and attack.get("bonus") == 3
    assert u(b, "A").pos == (4, 0) and u(b, "B").pos == (2, 0)
    assert u(b, "A").state["fatigue"] == 1                        # as a movement: one fatigue level


def test_an_overrun_that_misses_a_blocker_stops_before_it():
    b = _overrun()
    play_phase(b, [4], A=("overrun_move", None, (4, 0)))            # 4 + 3 = 7: a miss
    assert u(b, "A").pos == (1, 0)


def test_a_creature_in_the_way_may_avoid_the_overrun_and_let_it_pass():
    offered = []

    def avoid(enc, unit, trigger, options):
        offered.append((unit.name, trigger.kind, options))
        return DECLINE

    b = _overrun(react=avoid)
    ev = play_phase(b, A=("overrun_move", None, (5, 0)))            # no attack roll
    assert first(ev, "avoid").actor == u(b, "B").id and not all_of(ev, "attack")
    assert u(b, "A").pos == (5, 0)
    name, kind, options = offered[0]
    assert (name, kind) == ("B", "overrun") and [d.action for d in options] == ["block", DECLINE.action]


def test_an_overrun_as_the_standard_action_costs_no_fatigue():
    b = _overrun()
    skip_movement(b)
    play_phase(b, [8], A=("overrun", None, (4, 0)))
    assert u(b, "A").pos == (4, 0) and u(b, "A").state["fatigue"] == 0


# ---- shove -----------------------------------------------------------------------------------------------------------
def _shove(width=10, t_size="medium", brawling=2, **over):
    b = make(floor(width, 1), [unit("A", "pcs", (0, 0), SWORD, brawling=brawling, **over),
                               unit("T", "npcs", (1, 0), SWORD, size=t_size)])
    skip_movement(b)
    return b


def test_a_shove_that_hits_pushes_the_target_5_ft_per_5_ft_moved_up_to_half_speed():
    b = _shove()
    ev = play_phase(b, [8], A=("shove", "T"))                   # 8 + 2 vs Fortitude 10
    assert first(ev, "attack").get("defense") == 10
    assert (u(b, "A").pos, u(b, "T").pos) == ((3, 0), (4, 0))     # half of 6 squares
    assert first(ev, "shoved").get("squares") == 3


def test_a_critical_shove_moves_the_full_speed_if_the_shover_can_carry_the_target():
    b = _shove(brawling=12)
    play_phase(b, [8], A=("shove", "T"))                         # 20 vs 10: a critical hit
    assert (u(b, "A").pos, u(b, "T").pos) == ((6, 0), (7, 0))
    b = _shove(brawling=12, t_size="large")                       # too big to carry: half speed only
    play_phase(b, [8], A=("shove", "T"))
    assert u(b, "T").pos == (4, 0)


def test_a_shove_that_misses_moves_nobody():
    b = _shove()
    play_phase(b, [5], A=("shove", "T"))
    assert (u(b, "A").pos, u(b, "T").pos) == ((0, 0), (1, 0))


def test_a_shove_stops_at_a_wall():
    b = make(["...#"], [unit("A", "pcs", (0, 0), SWORD, brawling=2), unit("T", "npcs", (1, 0), SWORD)])
    skip_movement(b)
    play_phase(b, [8], A=("shove", "T"))
    assert (u(b, "A").pos, u(b, "T").pos) == ((1, 0), (2, 0))


def test_a_creature_two_sizes_larger_cannot_be_shoved():
    assert "shove" in actions(_shove(t_size="large"))
    assert "shove" not in actions(_shove(t_size="huge"))


# ---- trip and brawling accuracy --------------------------------------------------------------------------------------
def test_a_trip_that_hits_knocks_prone_at_the_phases_end_minus_2_armor_and_reflex_half_speed():
    b = make(floor(10, 1), [unit("A", "pcs", (0, 0), SWORD, brawling=2),
                            unit("T", "npcs", (1, 0), SWORD, fortitude=9, reflex=12)])
    skip_movement(b)
    ev = play_phase(b, [7], A=("trip", "T"))                      # 7 + 2 vs Fortitude 9
    assert first(ev, "attack").get("defense") == 9 and first(ev, "condition").get("condition") == "prone"
    t = u(b, "T")
    assert [C.defense(b.enc, t, d) for d in C.DEFENSES] == [10 - 2, 9, 12 - 2, 10]
    assert b.enc.round == 2 and actor(b) == "A"          # round 2: T's movement at half speed
    step(b, "end_turn")
    assert max(x for x, _ in legal_squares(b, "move")) == 1 + 3


def test_a_trip_needs_a_free_hand():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, shield=True), unit("T", "npcs", (1, 0), SWORD)])
    skip_movement(b)
    assert not actions(b) & {"trip", "grapple"}
    assert "needs a free hand" in why(b, "trip", "T")


def test_brawling_accuracy_comes_from_strength_not_strike_accuracy():
    spec = dict(unit("A", "pcs", (0, 0), SWORD, level=4, strength=3, accuracy=7))
    del spec["brawling"]
    b = make(floor(3, 1), [spec, unit("T", "npcs", (1, 0), SWORD)])
    skip_movement(b)
    ev = play_phase(b, [1], A=("trip", "T"))
    assert first(ev, "attack").get("bonus") == 4 // 2 + 3
    assert kinds(ev).count("attack") == 1
