"""The starship toy through Battle: two moves + one attack in any order, or one full-round action; the
500-ft shift only when the ship moved no distance."""
import pytest

from engine.core.battle import Battle
from engine.core.dice import ScriptedDice
from engine.core.errors import IllegalAction

from .common import END, Decision, build, squares_of, targets_of
from .toy_starship import RULESET as RS

ROWS = ["." * 12] * 5


def battle(faces=(), hp=None):
    units = [{"name": "Wing", "side": "pcs", "template": "fighter", "at": [1, 2]},
             {"name": "Raider", "side": "npcs", "template": "corvette", "at": [6, 2], **({"hp": hp} if hp else {})}]
    enc = build(RS, ROWS, units)
    b = Battle(enc, RS, ScriptedDice(list(faces)))
    b.start({0: 20, 1: 1})
    return b


@pytest.mark.parametrize("order", [
    ["move", "move", "fire"], ["fire", "move", "move"], ["move", "fire", "move"]])
def test_two_moves_and_an_attack_in_any_order(order):
    b = battle(faces=[2] * 3)
    squares = iter([(2, 2), (3, 2)])
    for step in order:
        assert b.actor.name == "Wing"
        b.step(Decision("fire", 1) if step == "fire" else Decision("move", square=next(squares)))
    # everything spent: the turn ended by itself
    assert b.actor.name == "Raider" and b.enc.units[0].pos == (3, 2)


def test_no_third_move_and_no_second_attack():
    b = battle(faces=[2])
    b.step(Decision("move", square=(2, 2)))
    b.step(Decision("move", square=(3, 2)))
    assert squares_of(b.legal(), "move") == set() and targets_of(b.legal(), "fire") == {1}
    with pytest.raises(IllegalAction, match="move action"):
        b.step(Decision("move", square=(4, 2)))
    b = battle(faces=[2])
    b.step(Decision("fire", 1))
    with pytest.raises(IllegalAction, match="attack action"):
        b.step(Decision("fire", 1))


def test_full_round_only_when_nothing_was_spent_and_it_ends_the_turn():
    b = battle(faces=[15, 3, 3, 15, 3, 3], hp=40)
    assert targets_of(b.legal(), "broadside") == {1} and squares_of(b.legal(), "surge")
    b.step(Decision("broadside", 1))  # two attacks
    assert b.enc.units[1].hp == 40 - 12
    assert b.legal() == [END] + [d for d in b.legal() if d.action == "shift"]  # only a shift may follow
    b2 = battle(faces=[2])
    b2.step(Decision("move", square=(2, 2)))
    assert targets_of(b2.legal(), "broadside") == set() and not squares_of(b2.legal(), "surge")
    with pytest.raises(IllegalAction, match="full-round"):
        b2.step(Decision("broadside", 1))


def test_shift_only_when_the_ship_did_not_move():
    b = battle()
    assert (2, 1) in squares_of(b.legal(), "shift")
    b.step(Decision("move", square=(2, 2)))
    assert squares_of(b.legal(), "shift") == set()
    with pytest.raises(IllegalAction, match="moved this turn"):
        b.step(Decision("shift", square=(3, 3)))
    # shift first: then no moving, but the move actions still serve for other things
    b = battle(hp=None)
    b.enc.units[0].hp = 5
    b.step(Decision("shift", square=(2, 1)))
    assert squares_of(b.legal(), "move") == set() and Decision("damage_control") in b.legal()
    with pytest.raises(IllegalAction, match="500-ft shift"):
        b.step(Decision("move", square=(3, 1)))
    b.step(Decision("damage_control"))
    assert b.enc.units[0].hp == 7 and b.enc.units[0].pos == (2, 1)


def test_full_round_keeps_the_shift_but_surge_forbids_it():
    b = battle(faces=[2, 2])
    b.step(Decision("broadside", 1))
    assert b.actor.name == "Wing" and b.enc.budget == {"move": 0, "attack": 0, "shift": 1}
    assert squares_of(b.legal(), "shift") and all(d.action in ("shift", "end_turn") for d in b.legal())
    b.step(Decision("shift", square=(1, 1)))
    assert b.actor.name == "Raider"
    b = battle()
    b.step(Decision("surge", square=(5, 2)))
    assert b.enc.units[0].pos == (5, 2) and b.actor.name == "Raider"  # nothing left: not even a shift
