"""Rounds of two simultaneous phases: a movement phase then an action phase; every creature commits hidden, the phase
resolves when the last has committed, against the state the phase began with; damage and conditions land at the
phase's end, so two creatures can down each other; movement: speed, half speed prone, standing, sprints, conflicts
between movers; why a choice is refused."""
import pytest

from .helpers import (SWORD, actions, actor, all_of, end, first, floor, legal_squares, make, play_phase,
                      skip_movement, step, u, unit, why)


def _pair(rows=None, a_at=(0, 0), b_at=(1, 0), **over):
    return make(rows or floor(5, 1), [unit("A", "pcs", a_at, SWORD, **over), unit("B", "npcs", b_at, SWORD, **over)])


# ---- the round ---------------------------------------------------------------------------------------------------
def test_a_round_is_a_movement_phase_then_an_action_phase_for_every_creature():
    b = _pair()
    seen = []
    for _ in range(4):
        seen.append((b.enc.round, b.phase, actor(b)))
        end(b)
    assert seen == [(1, "movement", "A"), (1, "movement", "B"), (1, "action", "A"), (1, "action", "B")]
    assert (b.enc.round, b.phase, actor(b)) == (2, "movement", "A")


def test_the_movement_phase_offers_only_movements_and_the_action_phase_only_actions():
    b = _pair(floor(5, 3), b_at=(3, 1))
    assert actions(b) <= {"end_turn", "move", "sprint", "overrun_move", "stand", "shove_move"}
    assert "move" in actions(b) and "strike" not in actions(b)
    skip_movement(b)
    assert not actions(b) & {"move", "sprint", "overrun_move", "stand"}
    assert {"sprint_action", "total_defense", "ready", "recover"} <= actions(b)


@pytest.mark.parametrize("action,square,phase_word", [("move", (1, 0), "movement phase; this is the action phase"),
                                                      ("sprint", (1, 0), "movement phase; this is the action phase")])
def test_why_a_movement_in_the_action_phase_is_refused(action, square, phase_word):
    b = _pair(floor(5, 2), b_at=(4, 1))
    skip_movement(b)
    assert phase_word in why(b, action, square=square)


def test_why_a_strike_in_the_movement_phase_is_refused():
    b = _pair()
    assert "taken in the action phase; this is the movement phase" in why(b, "strike", "B")


# ---- hidden commitments ----------------------------------------------------------------------------------------------
def test_a_commitment_is_hidden_and_nothing_happens_until_the_last_creature_commits():
    b = _pair(floor(8, 1), b_at=(7, 0))
    ev = step(b, "move", square=(3, 0))
    committed = first(ev, "committed")
    assert committed.actor == u(b, "A").id and committed.target is None and committed.data == {}
    assert not all_of(ev, "move") and u(b, "A").pos == (0, 0)          # not moved yet
    assert actor(b) == "B" and b.phase == "movement"
    ev = step(b, "move", square=(5, 0))
    assert first(ev, "phase_resolves").get("phase") == "movement"
    assert (u(b, "A").pos, u(b, "B").pos) == ((3, 0), (5, 0))


def test_an_action_committed_is_not_resolved_before_the_phase_ends():
    b = _pair()
    skip_movement(b)
    ev = step(b, "strike", "B")                   # nothing rolls at commitment
    assert not all_of(ev, "attack") and b.dice.asked == [] and actor(b) == "B"
    ev = play_phase(b, [5])                       # B ends: A's strike resolves (5 vs Armor 10: a miss)
    assert first(ev, "attack").get("total") == 5 and first(ev, "attack").get("result") == "miss"


def test_choices_are_legal_against_the_state_at_the_phase_start():
    # A commits to move to (3, 0); B, choosing next, still sees that square free (A has not moved yet)
    b = _pair(floor(8, 1), b_at=(6, 0))
    step(b, "move", square=(3, 0))
    assert (3, 0) in legal_squares(b, "move") and (4, 0) in legal_squares(b, "move")


def test_a_creature_tripped_in_a_phase_still_charges_in_it():
    # A's trip hits, but prone lands at the end of the phase: B's charge (illegal while prone) was chosen and goes
    b = make(floor(6, 3), [unit("A", "pcs", (0, 1), SWORD, brawling=3), unit("C", "pcs", (5, 1), SWORD),
                           unit("B", "npcs", (1, 1), SWORD)])
    skip_movement(b)
    step(b, "trip", "B")
    step(b, "end_turn")                     # C
    assert actor(b) == "B" and "charge" in actions(b)
    # A's trip: 8 + 3 vs Fortitude 10, a hit; B charges C: 9 vs Armor 10, a glancing blow for 4 // 2
    ev = play_phase(b, [8, 9, 4], B=("charge", "C"))
    assert [(a.get("why"), a.get("result")) for a in all_of(ev, "attack")] == [("trip", "hit"),
                                                                               ("melee strike", "glance")]
    assert u(b, "B").pos == (4, 1) and u(b, "C").hp == 20 - 2
    assert u(b, "B").state["prone"] is True          # landed after the charge


def test_two_creatures_can_down_each_other():
    # both hit; the damage of both lands at the end of the phase, after both strikes were made
    b = _pair(hp=4, accuracy=2)
    skip_movement(b)
    # A: 8 + 2 vs 10 hits for 6; B: 9 + 2 hits for 5; B's vital roll 1, A's 2: both unconscious
    ev = play_phase(b, [8, 6, 9, 5, 1, 2], A=("strike", "B"), B=("strike", "A"))
    assert [e.target for e in all_of(ev, "vital_wound")] == [u(b, "B").id, u(b, "A").id]
    assert u(b, "A").down and u(b, "B").down and b.enc.winner == "draw"


# ---- movement ------------------------------------------------------------------------------------------------------
def _runner(rows=None, **over):
    return make(rows or floor(16, 2), [unit("A", "pcs", (0, 0), SWORD, **over), unit("B", "npcs", (15, 1), SWORD)])


def _furthest(b, action):
    return max(x for x, y in legal_squares(b, action))


def test_a_move_goes_up_to_the_speed():
    b = _runner()
    assert _furthest(b, "move") == 6                       # 30 ft: 6 squares
    assert _furthest(_runner(speed=40), "move") == 8
    ev = play_phase(b, A=("move", None, (6, 0)))
    assert u(b, "A").pos == (6, 0) and first(ev, "move").get("squares") == 6


def test_a_prone_creature_moves_at_half_speed_or_stands_up_with_its_movement():
    b = _runner(state={"prone": True})
    assert _furthest(b, "move") == 3 and _furthest(b, "sprint") == 6
    assert "stand" in actions(b) and "overrun_move" not in actions(b)
    play_phase(b, A=("stand",))
    assert u(b, "A").state["prone"] is False and u(b, "A").pos == (0, 0)
    assert _furthest(b, "sprint_action") == 12                 # standing again: full speed in the action phase


def test_a_standing_creature_has_no_stand():
    assert "stand" not in actions(_runner())


def test_a_sprint_as_the_movement_doubles_the_speed_for_a_fatigue_level():
    b = _runner()
    assert _furthest(b, "sprint") == 12
    ev = play_phase(b, A=("sprint", None, (12, 0)))
    assert u(b, "A").pos == (12, 0) and u(b, "A").state["fatigue"] == 1
    assert first(ev, "fatigue").get("levels") == 1


def test_a_sprint_as_the_standard_action_doubles_the_speed_without_fatigue():
    b = _runner()
    skip_movement(b)
    assert _furthest(b, "sprint_action") == 12
    play_phase(b, A=("sprint_action", None, (12, 0)))
    assert u(b, "A").pos == (12, 0) and u(b, "A").state["fatigue"] == 0


def test_movers_resolve_in_initiative_order_and_never_end_on_an_occupied_square():
    # P and Q (allies) both commit to (4, 0): P, first in initiative, gets it; Q stops on its path's last free square
    b = make(floor(8, 2), [unit("P", "pcs", (0, 0), SWORD), unit("Q", "pcs", (0, 1), SWORD),
                           unit("B", "npcs", (7, 1), SWORD)])
    ev = play_phase(b, P=("move", None, (4, 0)), Q=("move", None, (4, 0)))
    p, q = u(b, "P"), u(b, "Q")
    assert p.pos == (4, 0) and q.pos != p.pos and b.enc.grid.distance(q.pos, (4, 0)) == 1
    assert [e.get("planned") for e in all_of(ev, "move")] == [(4, 0), (4, 0)]



def test_a_mover_stops_before_a_square_an_enemy_moved_into_earlier_in_the_phase():
    # a corridor: B (first in initiative) moves to (3, 0); A's move to (4, 0) stops before B, at (2, 0)
    b = make(floor(8, 1), [unit("B", "npcs", (7, 0), SWORD), unit("A", "pcs", (0, 0), SWORD)])
    play_phase(b, B=("move", None, (3, 0)), A=("move", None, (4, 0)))
    assert u(b, "B").pos == (3, 0)
    assert u(b, "A").pos == (2, 0)


def test_a_mover_whose_goal_an_enemy_took_first_ends_on_the_last_free_square_before_it():
    b = make(floor(8, 3), [unit("B", "npcs", (6, 1), SWORD), unit("A", "pcs", (0, 1), SWORD)])
    play_phase(b, B=("move", None, (3, 1)), A=("move", None, (3, 1)))
    assert u(b, "B").pos == (3, 1)
    assert u(b, "A").pos == (2, 1)


def test_a_mover_does_not_reroute_around_an_enemy_that_moved_into_its_way():
    # the straight way (0, 1) -> (5, 1) is the only 5-square path at the phase's start; B steps onto it first
    b = make(floor(8, 3), [unit("B", "npcs", (7, 1), SWORD), unit("A", "pcs", (0, 1), SWORD)])
    play_phase(b, B=("move", None, (3, 1)), A=("move", None, (5, 1)))
    assert u(b, "A").pos == (2, 1)


def test_a_strike_resolves_on_the_phase_start_positions_before_its_target_sprints_away():
    # strikes are static acts: they resolve before the acts that move, on the squares the phase began with
    b = _pair(floor(12, 1), accuracy=2)
    skip_movement(b)
    ev = play_phase(b, [8, 5], A=("strike", "B"), B=("sprint_action", None, (8, 0)))
    assert first(ev, "attack").get("result") == "hit" and u(b, "B").hp == 20 - 5 and u(b, "B").pos == (8, 0)


def test_a_surprised_creature_does_nothing_in_round_1():
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), SWORD), unit("B", "npcs", (3, 0), SWORD,
                                                                   state={"surprised": True})])
    for _ in range(2):                                   # round 1: only A takes its phase turns
        assert actor(b) == "A"
        end(b)
    assert b.enc.round == 2 and actor(b) == "A"
    end(b)
    assert actor(b) == "B"
