"""The turn: two move actions and one attack action in any order, or one full-round action; the 500-ft shift only in
a round the ship moves no distance; the surprise round's single action; free actions; a fixed initiative order."""
import pytest

from engine.core.dice import ScriptedDice

from .helpers import (GUN, LASER, RS, actions, actor, all_of, end, floor, legal_squares, make, ship, step, u, why)


def _duel(**over):
    """A (pcs, a gun with unlimited range) at (0, 1) against T (npcs) far to the east."""
    return make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN, **over), ship("T", "npcs", (15, 1), GUN)])


def test_a_round_is_two_moves_one_attack_and_one_shift():
    b = _duel()
    assert b.enc.budget == {"move": 2, "attack": 1, "shift": 1}


@pytest.mark.parametrize("order", [("move", "move", "fire"), ("move", "fire", "move"), ("fire", "move", "move")])
def test_two_moves_and_an_attack_in_any_order(order):
    b = _duel()
    x = 0
    for n, what in enumerate(order):
        assert actor(b) == "A"
        if what == "move":
            x += 2
            step(b, "move", square=(x, 1))
            assert u(b, "A").pos == (x, 1)
        else:
            ev = step(b, "fire", "T", faces=[1])     # a natural 1: a miss, no damage dice
            assert all_of(ev, "attack")
        if n < 2:
            assert actor(b) == "A"
    # all three spent: nothing but END was left, so the turn passed by itself
    assert actor(b) == "T"


def test_no_third_move_action():
    b = _duel()
    step(b, "move", square=(2, 1))
    step(b, "move", square=(4, 1))
    assert "move" not in actions(b) and "ram" not in actions(b)
    assert "no move action left" in why(b, "move", square=(5, 1))
    assert "fire" in actions(b)


def test_no_second_attack_action():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN), ship("T", "npcs", (15, 1), GUN),
                            ship("T2", "npcs", (15, 2), GUN)])
    step(b, "fire", "T", faces=[1])
    assert not {"fire", "fire_next", "total_defense", "feint"} & actions(b)
    assert "no attack action left" in why(b, "total_defense")


@pytest.mark.parametrize("full", ["surge", "withdraw", "jump"])
@pytest.mark.parametrize("spent", ["move", "fire", "operate_sensors"])
def test_a_full_round_action_needs_all_three_actions_untouched(full, spent):
    b = _duel()
    assert full in actions(b)
    if spent == "move":
        step(b, "move", square=(1, 1))
    elif spent == "fire":
        step(b, "fire", "T", faces=[1])
    else:
        step(b, spent)
    assert full not in actions(b)
    square = None if full == "jump" else (2, 1)
    assert "full-round action needs the whole round" in why(b, full, square=square)


def test_a_full_round_action_takes_the_moves_and_the_attack():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN), ship("T", "npcs", (15, 1), GUN),
                            ship("T2", "npcs", (15, 2), GUN)])
    budget = b.enc.budget
    step(b, "withdraw", square=(5, 1))
    assert budget["move"] == 0 and budget["attack"] == 0 and u(b, "A").pos == (5, 1)
    assert actor(b) == "T"   # nothing but END left (no shift either): the turn passed by itself


# ---- the 500-ft shift -------------------------------------------------------------------------------------------------
def test_the_shift_is_one_square_in_any_direction():
    b = make(floor(5, 5), [ship("A", "pcs", (2, 2), GUN), ship("T", "npcs", (4, 4), GUN)])
    assert legal_squares(b, "shift") == {(1, 1), (2, 1), (3, 1), (1, 2), (3, 2), (1, 3), (2, 3), (3, 3)}
    step(b, "shift", square=(1, 1))
    assert u(b, "A").pos == (1, 1) and "shift" not in actions(b)   # once a round


def test_no_move_after_the_shift():
    b = _duel()
    step(b, "shift", square=(1, 1))
    assert "move" not in actions(b) and "ram" not in actions(b)
    assert "500-ft shift" in why(b, "move", square=(3, 1))
    # the attack action and other move actions remain
    assert {"fire", "operate_sensors"} <= actions(b)


def test_no_shift_after_moving():
    b = _duel()
    step(b, "move", square=(1, 1))
    assert "shift" not in actions(b)
    assert "has moved this round" in why(b, "shift", square=(2, 1))


def test_the_shift_goes_before_during_or_after_actions_that_move_no_distance():
    b = _duel()
    step(b, "operate_sensors")
    assert "shift" in actions(b)
    step(b, "fire", "T", faces=[1])
    step(b, "shift", square=(1, 2))
    assert u(b, "A").pos == (1, 2)


def test_the_shift_goes_with_a_full_round_jump():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN), ship("B", "pcs", (0, 2), GUN),
                            ship("T", "npcs", (15, 1), GUN)])
    step(b, "shift", square=(1, 1))
    assert "jump" in actions(b)
    ev = step(b, "jump")
    assert all_of(ev, "escaped") and u(b, "A").state["fled"]


@pytest.mark.parametrize("full", ["surge", "withdraw"])
def test_no_shift_after_a_surge_or_a_withdrawal(full):
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN), ship("T", "npcs", (15, 1), GUN),
                            ship("T2", "npcs", (15, 2), GUN)])
    budget = b.enc.budget
    step(b, full, square=(3, 1))
    assert budget["shift"] == 1 and u(b, "A").pos == (3, 1)
    assert actor(b) == "T"   # the shift left unspent is not legal: only END was, so the turn passed by itself


@pytest.mark.parametrize("full", ["surge", "withdraw"])
def test_no_surge_or_withdrawal_after_a_shift(full):
    """Surge forward and withdraw 'do not get a 500-ft shift'."""
    b = _duel()
    step(b, "shift", square=(1, 1))
    assert full not in actions(b)


# ---- the surprise round -------------------------------------------------------------------------------------------------
def _surprised():
    return make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN, {**GUN, "name": "gun 2"}, state={"limited": True}),
                               ship("T", "npcs", (15, 1), GUN)])


def test_the_surprise_round_allows_one_move_or_attack_action():
    b = _surprised()
    assert b.enc.budget["shift"] == 0 and "shift" not in actions(b)
    assert not {"surge", "withdraw", "jump"} & actions(b)
    step(b, "move", square=(2, 1))
    assert actor(b) == "T"          # no second move, no attack: the turn passed by itself


def test_the_surprise_round_refusals_say_so():
    b = _surprised()
    assert "surprise round" in why(b, "surge", square=(8, 1)) and "full-round" in why(b, "surge", square=(8, 1))
    assert "surprise round" in why(b, "shift", square=(1, 1)) and "shift" in why(b, "shift", square=(1, 1))


def test_the_surprise_round_attack_leaves_no_move():
    b = _surprised()
    step(b, "fire", "T", faces=[1])
    assert "fire_next" in actions(b)      # still the one attack action: its other weapon may fire
    step(b, "fire_next", "T", option=1, faces=[1])
    assert actor(b) == "T"


def test_the_surprise_round_is_only_round_one():
    b = _surprised()
    end(b)
    end(b)
    assert b.enc.round == 2 and actor(b) == "A"
    assert b.enc.budget == {"move": 2, "attack": 1, "shift": 1}
    step(b, "move", square=(2, 1))
    assert "move" in actions(b) and "fire" in actions(b)


def test_an_unsurprised_ship_gets_the_full_round_one():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN), ship("T", "npcs", (15, 1), GUN, state={"limited": True})])
    assert b.enc.budget == {"move": 2, "attack": 1, "shift": 1}
    end(b)
    assert actor(b) == "T" and b.enc.budget["move"] == 1 and b.enc.budget["shift"] == 0


# ---- free actions -------------------------------------------------------------------------------------------------
def test_free_actions_cost_nothing():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 1), GUN, {**GUN, "name": "gun 2"}),
                            ship("T", "npcs", (15, 1), GUN)])
    step(b, "fight_defensively")
    assert b.enc.budget == {"move": 2, "attack": 1, "shift": 1}
    step(b, "fire", "T", faces=[1])
    before = dict(b.enc.budget)
    step(b, "cease_fire")
    assert b.enc.budget == before and b.enc.budget["move"] == 2


def test_ending_the_turn_is_always_possible_and_unused_actions_are_lost():
    b = _duel()
    end(b)
    assert actor(b) == "T"
    end(b)
    assert actor(b) == "A" and b.enc.round == 2 and b.enc.budget == {"move": 2, "attack": 1, "shift": 1}


# ---- initiative ---------------------------------------------------------------------------------------------------
def test_every_round_uses_the_same_initiative_order():
    b = make(floor(16, 3), [ship("A", "pcs", (0, 0), GUN), ship("B", "pcs", (0, 2), GUN),
                            ship("T", "npcs", (15, 1), GUN)], order=["T", "A", "B"])
    seen = []
    for _ in range(9):
        seen.append((b.enc.round, actor(b)))
        end(b)
    assert seen == [(r, n) for r in (1, 2, 3) for n in ("T", "A", "B")]


def test_initiative_is_a_d20_plus_the_ship_initiative_bonus():
    from engine.core.battle import Battle
    from engine.core.encounter_file import parse_encounter
    import yaml
    units = [ship("A", "pcs", (0, 0), GUN, initiative=3), ship("T", "npcs", (5, 0), GUN, pilot=7, initiative=None)]
    text = yaml.safe_dump({"ruleset": "starship", "name": "t", "map": "......\n", "units": units}, sort_keys=False)
    enc = parse_encounter(text, "t.yaml", RS)
    b = Battle(enc, RS, ScriptedDice([10, 7]))
    b.start()
    assert enc.initiative == {0: 13, 1: 14}       # without its own, the pilot's bonus is the initiative bonus
    assert actor(b) == "T"
