"""The action economy (standard, move, swift or one full action, and their trades) and movement (move your speed,
guarded step, crawl, stand up, drop prone, draw, reload), with conditions that limit them."""
import pytest

from engine.core.decision import END

from .helpers import (KNIFE, LASER, RIFLE, actions, end, first, floor, legal_squares, make, step, u, unit, why)


def _solo(**over):
    return make(floor(14, 3), [unit("A", "pcs", (0, 1), LASER, **over), unit("T", "npcs", (13, 1))])


def test_a_turn_is_a_standard_a_move_and_a_swift_action():
    b = _solo()
    assert b.enc.budget == {"standard": 1, "move": 1, "swift": 1}
    assert {"ranged_attack", "move", "drop_prone", "run", "full_attack_ranged"} <= actions(b)


@pytest.mark.parametrize("cost,budget,paid,left", [
    ("move", {"standard": 1, "move": 0, "swift": 1}, ["standard"], {"standard": 0, "move": 0, "swift": 1}),
    ("swift", {"standard": 1, "move": 1, "swift": 0}, ["move"], {"standard": 1, "move": 0, "swift": 0}),
    ("swift", {"standard": 1, "move": 0, "swift": 0}, ["standard"], {"standard": 0, "move": 0, "swift": 0}),
    ("move", {"standard": 0, "move": 1, "swift": 1}, ["move"], {"standard": 0, "move": 0, "swift": 1}),
])
def test_standard_pays_for_move_or_swift_and_move_for_swift(cost, budget, paid, left):
    econ = _solo().ruleset.economy
    assert econ.pay(budget, cost) == paid and budget == left


@pytest.mark.parametrize("cost,budget", [
    ("standard", {"standard": 0, "move": 1, "swift": 1}),   # nothing pays for a standard action but itself
    ("move", {"standard": 0, "move": 0, "swift": 1}),       # a swift action never pays for a move
    ("full", {"standard": 1, "move": 1, "swift": 0}),       # a full action needs all three untouched
])
def test_what_cannot_be_paid(cost, budget):
    assert not _solo().ruleset.economy.can_pay(budget, cost)


def test_two_moves_then_the_swift_action():
    b = _solo()
    step(b, "move", square=(1, 1))
    step(b, "move", square=(2, 1))
    assert b.enc.budget == {"standard": 0, "move": 0, "swift": 1}
    step(b, "drop_prone")
    assert b.enc.actor.name == "T"  # nothing left: the turn ended by itself


def test_a_swift_action_cannot_pay_for_a_move():
    b = _solo()
    step(b, "move", square=(1, 1))
    step(b, "move", square=(2, 1))
    assert not {"move", "guarded_step", "draw"} & actions(b) and "drop_prone" in actions(b)


def test_a_full_action_needs_the_whole_turn():
    b = _solo()
    step(b, "drop_prone")  # even a swift action spent first rules out a full action
    assert not {"run", "withdraw", "full_attack_ranged", "charge"} & actions(b)
    assert "full action" in why(b, "withdraw", square=(3, 1))


def test_a_full_action_ends_the_turn():
    b = _solo()
    step(b, "run", square=(12, 1))
    assert b.enc.actor.name == "T"


def test_staggered_allows_a_single_move_or_standard_action_and_no_full_action():
    b = _solo()
    u(b, "A").state["conds"]["staggered"] = -1
    assert not {"run", "withdraw", "full_attack_ranged"} & actions(b)
    step(b, "move", square=(2, 1))
    assert "ranged_attack" not in actions(b) and "drop_prone" in actions(b)


@pytest.mark.parametrize("cond", ["stunned", "dazed"])
def test_stunned_or_dazed_takes_no_actions(cond):
    b = _solo()
    u(b, "A").state["conds"][cond] = -1
    assert b.legal() == [END]


# ---- movement --------------------------------------------------------------------------------------------------------
def test_move_your_speed_in_squares_of_5_ft():
    b = _solo(speed=30)
    squares = legal_squares(b, "move")
    assert (6, 1) in squares and (7, 1) not in squares
    ev = step(b, "move", square=(6, 1))
    assert first(ev, "move").get("cost") == 6


@pytest.mark.parametrize("cond", ["entangled", "blinded"])
def test_half_speed(cond):
    b = _solo(speed=30)
    u(b, "A").state["conds"][cond] = -1
    squares = legal_squares(b, "move")
    assert (3, 1) in squares and (4, 1) not in squares


@pytest.mark.parametrize("cond", ["grappled", "pinned", "off_kilter"])
def test_conditions_that_stop_movement(cond):
    b = _solo()
    u(b, "A").state["conds"][cond] = -1
    assert not {"move", "guarded_step", "run", "withdraw", "crawl"} & actions(b)


def test_difficult_terrain_costs_double_and_stops_a_guarded_step():
    b = make([".~..", "....", "...."], [unit("A", "pcs", (0, 0), LASER), unit("T", "npcs", (3, 2))])
    assert (1, 0) not in legal_squares(b, "guarded_step") and (1, 1) in legal_squares(b, "guarded_step")
    assert "not into difficult terrain" in why(b, "guarded_step", square=(1, 0))
    assert (1, 0) in legal_squares(b, "move")


def test_guarded_step_is_5_ft():
    b = _solo()
    assert legal_squares(b, "guarded_step") == {(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)}


def test_prone_units_crawl_or_stand_up():
    b = _solo()
    u(b, "A").state["conds"]["prone"] = -1
    assert "move" not in actions(b) and "guarded_step" not in actions(b)
    assert legal_squares(b, "crawl") == {(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)}
    assert "stand up" in why(b, "move", square=(3, 1))
    step(b, "stand_up")
    assert "prone" not in u(b, "A").state["conds"] and b.enc.budget["move"] == 0


def test_drop_prone_is_a_swift_action():
    b = _solo()
    step(b, "drop_prone")
    assert "prone" in u(b, "A").state["conds"] and b.enc.budget == {"standard": 1, "move": 1, "swift": 0}


def test_enemies_block_movement_allies_can_be_passed_but_not_ended_on():
    b = make(["....", "#.##"], [unit("A", "pcs", (0, 0), LASER), unit("F", "pcs", (1, 0)),
                               unit("T", "npcs", (3, 0))])
    squares = legal_squares(b, "move")
    assert (2, 0) in squares and (1, 0) not in squares and (3, 0) not in squares


# ---- drawing and reloading -------------------------------------------------------------------------------------------
def test_draw_a_weapon_is_a_move_action_and_stows_what_no_longer_fits():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), LASER, KNIFE, RIFLE), unit("T", "npcs", (3, 0))])
    a = u(b, "A")
    assert a.state["wield"] == [0, 1]      # a pistol and a knife in hand from the start
    step(b, "draw", option=2)              # the two-handed rifle: both others are put away
    assert a.state["wield"] == [2] and b.enc.budget["move"] == 0


def test_reload_refills_the_weapon_in_hand():
    gun = {**LASER, "capacity": 2, "usage": 1}
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), gun), unit("T", "npcs", (3, 0))])
    a = u(b, "A")
    step(b, "ranged_attack", "T", faces=[1])
    step(b, "reload", option=0)
    assert a.state["ammo"][0] == 2
    end(b)
    end(b)
    step(b, "ranged_attack", "T", faces=[1])
    end(b)
    end(b)
    step(b, "ranged_attack", "T", faces=[1])
    assert a.state["ammo"][0] == 0
    end(b)
    end(b)
    assert "ranged_attack" not in actions(b) and "reload" in actions(b)
    assert "draw one, or reload" in why(b, "ranged_attack", "T")


def test_initiative_uses_the_stat_block_modifier():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), KNIFE, initiative=4), unit("T", "npcs", (2, 0), dex=3)])
    assert b.ruleset.initiative_bonus(u(b, "A")) == 4 and b.ruleset.initiative_bonus(u(b, "T")) == 3
