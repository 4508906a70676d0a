"""Condition track, damage threshold, stun; movement, attacks of opportunity, withdraw, run, prone."""
import pytest

from .helpers import PISTOL, RIFLE, SWORD, act, actions, all_of, end, first, floor, kinds, make, step, u, unit, why


@pytest.mark.parametrize("ct,penalty", [(0, 0), (1, -1), (2, -2), (3, -5), (4, -10)])
def test_condition_track_penalties(ct, penalty):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (1, 0), SWORD)])
    a = u(b, "A")
    a.state["ct"] = ct
    b.enc.version += 1
    s = b.ruleset.unit_summary(a)
    assert (s["reflex"], s["fortitude"], s["will"]) == (10 + penalty,) * 3
    assert first(step(b, "melee_attack", "T", faces=[1]), "attack").get("bonus") == penalty


def test_damage_threshold_moves_down_the_track():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, str=5), unit("T", "npcs", (1, 0), SWORD, threshold=10)])
    ev = step(b, "melee_attack", "T", faces=[15, 4])  # 4 + 5 = 9 < 10: no step
    assert "condition" not in kinds(ev)
    step(b, "end_turn")
    step(b, "end_turn")
    ev = step(b, "melee_attack", "T", faces=[15, 5])  # 10 >= threshold 10: -1 step
    assert first(ev, "condition").get("penalty") == -1 and u(b, "T").state["ct"] == 1


def test_helpless_at_the_bottom_cannot_act():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, str=5), unit("T", "npcs", (1, 0), SWORD, threshold=5),
                           unit("C", "npcs", (2, 0), SWORD)])
    u(b, "T").state["ct"] = 4
    ev = step(b, "melee_attack", "T", faces=[15, 1])
    assert u(b, "T").state["ct"] == 5 and u(b, "T").down and not u(b, "T").dead
    assert "coup_de_grace" not in actions(b)  # a full-round action, and A has acted
    step(b, "end_turn")
    assert b.actor.name == "C"  # T is skipped


@pytest.mark.parametrize("amount,threshold,dead", [(30, 30, True), (30, 31, False)])
def test_zero_hp_dead_only_if_over_threshold(amount, threshold, dead):
    t = unit("T", "npcs", (1, 0), SWORD, threshold=threshold, hp=30)
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), {"name": "cannon", "kind": "melee", "damage": "30"}), t,
                           unit("C", "npcs", (2, 0), SWORD)])
    step(b, "melee_attack", "T", faces=[15])
    assert u(b, "T").down and u(b, "T").dead == dead


def test_stun_half_damage_and_two_steps():
    stunner = {**PISTOL, "modes": ["lethal", "stun"]}
    b = make(floor(5, 1), [unit("A", "pcs", (0, 0), stunner), unit("T", "npcs", (4, 0), SWORD, threshold=10)])
    step(b, "switch_mode", option=0)
    ev = step(b, "ranged_attack", "T", faces=[15, 4, 4, 4])
    assert first(ev, "damage").get("amount") == 6 and u(b, "T").state["ct"] == 2


def test_recover_three_swifts_across_consecutive_rounds():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (2, 0), SWORD)])
    a = u(b, "A")
    a.state["ct"] = 2
    step(b, "recover")
    step(b, "recover")
    step(b, "end_turn")
    step(b, "end_turn")
    ev = step(b, "recover")  # the third, next round
    assert a.state["ct"] == 1 and first(ev, "condition").get("why") == "recover"


def test_recover_progress_lost_after_a_skipped_round():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (2, 0), SWORD)])
    a = u(b, "A")
    a.state["ct"] = 2
    step(b, "recover")
    for _ in range(4):
        step(b, "end_turn")
    assert a.state["recover"] == 0
    step(b, "recover")
    assert a.state["ct"] == 2 and a.state["recover"] == 1


def test_no_recover_with_persistent_condition_or_full_track():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, persistent=True), unit("T", "npcs", (2, 0), SWORD)])
    u(b, "A").state["ct"] = 1
    b.enc.version += 1
    assert "persistent" in why(b, "recover")
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (2, 0), SWORD)])
    assert "top of the condition track" in why(b, "recover")


def test_half_speed_at_minus_10():
    b = make(floor(9, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (8, 0), PISTOL)])
    u(b, "A").state["ct"] = 4
    b.enc.version += 1
    assert max(d.square[0] for d in b.legal() if d.action == "move") == 3


# ---- attacks of opportunity, withdraw, run ---------------------------------------------------------------
def test_leaving_a_threatened_square_provokes_once_per_round():
    units = [unit("A", "pcs", (1, 1), SWORD), unit("T", "npcs", (0, 1), SWORD), unit("B", "pcs", (1, 0), SWORD)]
    b = make(floor(6, 3), units, order=["A", "B", "T"])
    ev = step(b, "move", square=(4, 1), faces=[1])
    assert first(ev, "aoo").actor == u(b, "T").id and u(b, "A").pos == (4, 1)
    step(b, "end_turn")
    ev = step(b, "move", square=(4, 0))  # T has used its attack of opportunity this round
    assert "aoo" not in kinds(ev)


def test_move_within_reach_without_leaving_is_free_and_path_avoids_threats():
    b = make(floor(6, 3), [unit("A", "pcs", (3, 1), SWORD), unit("T", "npcs", (0, 1), SWORD)])
    ev = step(b, "move", square=(5, 1))
    assert "aoo" not in kinds(ev)


def test_withdraw_first_square_is_safe_then_half_speed():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), SWORD), unit("T", "npcs", (0, 1), SWORD)])
    sq = {d.square for d in b.legal() if d.action == "withdraw"}
    assert (2, 1) in sq and (4, 1) in sq and (5, 1) not in sq  # half of speed 6
    ev = step(b, "withdraw", square=(4, 1))
    assert "aoo" not in kinds(ev) and u(b, "A").pos == (4, 1)


def test_withdraw_impossible_when_escape_needs_two_squares():
    units = [unit("A", "pcs", (1, 1), SWORD), unit("T", "npcs", (0, 1), SWORD, reach=2, size="large")]
    b = make(floor(8, 3), units)
    assert "withdraw" not in actions(b)
    assert "cannot withdraw" in why(b, "withdraw", square=(5, 1))


# A (speed 6, half 3) at (1, 1) withdraws from T at (0, 0): one move, every second diagonal of it counting 2 from
# the first square on (issue 24: the count restarted after the first square, so (4, 3) at 1 + 2 + 1 was allowed).
@pytest.mark.parametrize("rows,square,legal", [
    (floor(8, 8), (4, 3), False),  # (2,2) 1, (3,3) 2, (4,3) 1: 4 squares of movement
    (floor(8, 8), (4, 4), False),  # 1 + 2 + 1
    (floor(8, 8), (3, 3), True),   # 1 + 2
    (floor(8, 8), (4, 2), True),   # (2,2) 1, then two straight: 3
    (floor(8, 8), (4, 1), True),   # straight: 3
    (["........", "..~.....", ".~~.....", "........"], (3, 3), False),  # difficult (2,2): 2, a second diagonal 2
    (["........", "..~.....", ".~~.....", "........"], (3, 2), True),   # 2 + 1
    (["........", ".....~..", "........", "........"], (4, 3), False),  # (2,1) 1, (3,2) 1, (4,3) 2: second diagonal
])
def test_withdraw_is_one_move_of_half_speed_counting_diagonals_throughout(rows, square, legal):
    b = make(rows, [unit("A", "pcs", (1, 1), SWORD), unit("T", "npcs", (0, 0), SWORD)])
    assert ((square in {d.square for d in b.legal() if d.action == "withdraw"}) == legal), square
    if legal:
        ev = step(b, "withdraw", square=square)
        assert u(b, "A").pos == square and "aoo" not in kinds(ev)
    else:
        assert "at most half speed (3 squares)" in why(b, "withdraw", square=square)


# The other multi-square movements count their diagonals over the whole walk too: a run (4 x speed 1) and a charge
# (speed 4) from (0, 0) down the diagonal, difficult terrain doubling a square's cost.
@pytest.mark.parametrize("action,rows,square,legal", [
    ("run", floor(8, 8), (3, 3), True),    # 1 + 2 + 1 = 4
    ("run", floor(8, 8), (4, 4), False),   # + 2
    ("run", ["........", ".~......", "........", "........"], (2, 2), True),   # 2 + 2
    ("run", ["........", ".~......", "........", "........"], (3, 3), False),  # 2 + 2 + 1
    ("charge", floor(8, 8), (4, 4), True),  # to (3, 3): 1 + 2 + 1
    ("charge", ["........", "........", "..~.....", "........", "........"], (4, 4), False),  # 1 + 4 + 1
])
def test_run_and_charge_count_diagonals_over_the_whole_line(action, rows, square, legal):
    units = [unit("A", "pcs", (0, 0), SWORD, speed=1 if action == "run" else 4)]
    if action == "charge":
        units.append(unit("T", "npcs", square, SWORD))
    else:
        units.append(unit("T", "npcs", (7, 0), PISTOL))
    b = make(rows, units)
    if action == "run":
        assert (square in {d.square for d in b.legal() if d.action == "run"}) == legal
    else:
        assert ("charge" in actions(b)) == legal


# Move events give the movement spent (`cost`) besides the squares stepped (issue 24: narration said "(3 squares)"
# for a move costing 4). A at (12, 2) unless said; T a sword (at (0, 0) for the withdrawal, else far off).
@pytest.mark.parametrize("rows,action,square,a_at,t_at,want", [
    (floor(16, 8), "move", (14, 5), (12, 2), (0, 7), [("moves", 3, 4)]),     # 2 diagonals (1 + 2) and 1 straight
    (["................", "................", "................", ".............~~."], "move", (13, 3), (12, 2),
     (0, 0), [("moves", 1, 2)]),                                             # difficult terrain double
    (floor(16, 8), "withdraw", (3, 3), (1, 1), (0, 0), [("withdraws", 1, 1), ("moves on", 1, 2)]),  # 2nd diagonal
    (floor(16, 8), "run", (15, 5), (12, 2), (0, 7), [("runs", 3, 4)]),
    (floor(16, 8), "charge", "T", (0, 0), (4, 4), [("charges", 3, 4)]),      # ends at (3, 3)
])
def test_move_events_give_the_movement_spent(rows, action, square, a_at, t_at, want):
    b = make(rows, [unit("A", "pcs", a_at, SWORD), unit("T", "npcs", t_at, SWORD)])
    if action == "charge":
        ev = step(b, "charge", "T", faces=[1])
    else:
        ev = step(b, action, square=square)
    assert [(e.get("how"), e.get("squares"), e.get("cost")) for e in all_of(ev, "move")] == want


def test_a_move_cut_short_costs_what_was_walked():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), SWORD, hp=1), unit("T", "npcs", (0, 1), SWORD)])
    ev = step(b, "move", square=(4, 1), faces=[20, 1])  # the attack of opportunity drops A where it stands
    assert u(b, "A").down and [(e.get("squares"), e.get("cost")) for e in all_of(ev, "move")] == [(3, 0)]


@pytest.mark.parametrize("heavy,limit", [(False, 24), (True, 18)])
def test_run_straight_line_4x_or_3x_in_heavy_armor(heavy, limit):
    b = make(floor(30, 3), [unit("A", "pcs", (0, 1), SWORD, heavy_armor=heavy), unit("T", "npcs", (29, 0), PISTOL)])
    runs = {d.square for d in b.legal() if d.action == "run"}
    assert max(x for x, y in runs if y == 1) == limit
    assert (3, 2) not in runs  # not on a straight line
    assert "straight line" in why(b, "run", square=(3, 2))
    step(b, "run", square=(limit, 1))
    assert u(b, "A").pos == (limit, 1) and b.actor.name == "T"


def test_run_stops_at_walls_and_enemies():
    b = make(["......#.."], [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (8, 0), PISTOL)])
    assert max(d.square[0] for d in b.legal() if d.action == "run") == 5


def test_prone_stand_up_and_acrobatics():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), SWORD, trained=["acrobatics"], acrobatics=5),
                           unit("T", "npcs", (3, 0), PISTOL)])
    step(b, "fall_prone")
    assert "move" not in actions(b) and "prone" in why(b, "move", square=(1, 0))
    ev = step(b, "stand_up_acrobatics", faces=[9])  # 9 + 5 = 14 < DC 15
    assert u(b, "A").state["prone"] and first(ev, "check").get("dc") == 15
    ev = step(b, "stand_up_acrobatics", faces=[10])
    assert not u(b, "A").state["prone"]
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (3, 0), PISTOL)])
    step(b, "fall_prone")
    assert "not trained in Acrobatics" in why(b, "stand_up_acrobatics")
    step(b, "stand_up")
    assert b.enc.budget["move"] == 0 and not u(b, "A").state["prone"]
