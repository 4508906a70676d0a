"""Doors: opening or closing one next to you is a move action ([CRB] Manipulate an Item); a closed door blocks
movement, sight and effect, an open one neither; a door cannot be closed on someone standing in it."""
from engine.core.narration import narrate_events

from .helpers import LASER, act, actions, end, first, legal_squares, make, step, u, unit, why

# A wall down the middle with a closed door at (3, 1); A west of it, T east, out of sight.
ROOMS = ["...#...",
         "...+...",
         "...#..."]


def _doors(at=(2, 1), foe=(6, 1), rows=ROOMS):
    return make(rows, [unit("A", "pcs", at, LASER), unit("T", "npcs", foe, LASER)])


def test_a_closed_door_blocks_the_way_and_the_shot():
    b = _doors()
    assert "ranged_attack" not in actions(b)
    assert not {sq for sq in legal_squares(b, "move") if sq[0] > 3}


def test_opening_the_door_is_a_move_action_that_opens_the_way():
    b = _doors()
    assert legal_squares(b, "open_door") == {(3, 1)}
    ev = step(b, "open_door", square=(3, 1))
    assert first(ev, "door").data == {"square": (3, 1), "open": True}
    assert b.enc.grid.kind(b.enc.grid.index(3, 1)) == "open_door"
    assert b.enc.budget == {"standard": 1, "move": 0, "swift": 1}
    assert "ranged_attack" in actions(b)          # the line of sight through the doorway
    assert "A opens the door at (3, 1)" in narrate_events(ev, b.enc, b.ruleset)


def test_a_door_two_squares_away_is_not_at_hand():
    b = _doors(at=(1, 1))
    assert "open_door" not in actions(b)
    assert "not next to A" in why(b, "open_door", square=(3, 1))


def test_closing_the_door_shuts_the_foe_out_again():
    b = _doors()
    step(b, "open_door", square=(3, 1))
    end(b)
    end(b)  # T's turn
    ev = step(b, "open_door", square=(3, 1))
    assert first(ev, "door").data["open"] is False
    assert "ranged_attack" not in actions(b)


def test_no_door_is_closed_on_someone_in_the_doorway():
    rows = ["...#...", ".../...", "...#..."]  # the door stands open
    b = _doors(foe=(3, 1), rows=rows)
    assert "open_door" not in actions(b)
    assert "someone stands in the doorway" in why(b, "open_door", square=(3, 1))


def test_a_square_without_a_door_is_refused_with_a_reason():
    b = _doors()
    assert "no door at (2, 0)" in why(b, "open_door", square=(2, 0))


def test_no_move_action_left_no_door():
    b = _doors()
    step(b, "move", square=(2, 2))
    step(b, "move", square=(2, 0))  # the second move paid with the standard action
    assert "open_door" not in actions(b)
    assert "needs a move action" in why(b, "open_door", square=(3, 1))


def test_the_heuristic_opens_the_door_to_reach_a_foe_out_of_sight():
    from engine.policies.heuristic import HeuristicPolicy
    b = _doors()
    b.dice.push(*[10] * 40)
    d = HeuristicPolicy(0).choose(b)
    assert (d.action, d.square) == ("open_door", (3, 1))
    assert u(b, "A").pos == (2, 1)


def test_the_gm_types_door_x_y_at_the_table():
    from agents.autopilot.words import parse_decision
    b = _doors()
    assert parse_decision("door 3 1", b) == act("open_door", square=(3, 1))
    assert parse_decision("open 3 1", b) == act("open_door", square=(3, 1))
