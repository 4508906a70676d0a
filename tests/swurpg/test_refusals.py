"""What the rules answer when they refuse a decision: the condition it misses, in a GM's words (an action's own
conditions; the shared ones, budget and range, are tested with each action)."""
from __future__ import annotations

from .helpers import BLASTER, CLUB, FRAG, KNIFE, RIFLE, floor, make, step, u, unit, why


def _pair(a_weapons=(BLASTER, KNIFE), a_over=None, t_over=None, rows=None):
    """A (pcs) at (0, 0) with T (pcs, its ally) beside it at (1, 0) and E (npcs) at (5, 0)."""
    return make(rows or floor(7, 2), [unit("A", "pcs", (0, 0), *a_weapons, **(a_over or {})),
                                      unit("T", "pcs", (1, 0), CLUB, **(t_over or {})),
                                      unit("E", "npcs", (5, 0), CLUB)])


def test_drawing_and_picking_up_say_what_is_wrong_with_the_weapon():
    b = _pair()
    assert why(b, "draw", option=0) == "A already holds the blaster"
    assert why(b, "draw", option=7) == "A has no weapon 7 (its weapons: 0 blaster, 1 knife)"
    assert why(b, "pick_up", option=1) == "A's knife is not on the ground"
    u(b, "A").state["dropped"].append(1)
    b.enc.version += 1  # a change made by hand: the legal decisions are worked out again
    assert why(b, "draw", option=1) == "the knife is on the ground: pick it up"
    b = _pair(a_weapons=(BLASTER, FRAG))
    assert "thrown from the belt" in why(b, "draw", option=1)


def test_care_for_an_ally_says_what_the_ally_lacks():
    b = _pair(a_over={"medpacs": 1})
    assert why(b, "stabilize", "T") == "T is not dying"
    assert why(b, "extinguish", "T") == "T is not burning"
    assert why(b, "treat_bleeding", "T") == "T is not bleeding"
    assert why(b, "medpac", "T") == "T is unhurt"
    b = _pair(a_over={"medpacs": 0}, t_over={"hp_now": 10})
    assert why(b, "medpac", "T") == "A has no medpac left"


def test_one_hand_and_condition_refusals():
    b = _pair()
    assert why(b, "stow") == "A holds fewer than two weapons: nothing to stow"
    assert why(b, "escape") == "A is not grappled"
    assert "not frightened" in why(b, "bonus_disengage")
    step(b, "dodge")
    assert why(b, "drop_prone") == "A has taken its Action: dropping prone comes before it"


def test_area_attacks_name_what_an_area_needs():
    b = _pair(a_weapons=(BLASTER,))
    assert why(b, "autofire", square=(4, 0)) == "A holds no weapon with autofire"
    assert why(b, "grenade", square=(4, 0)) == "A has no grenade left"
    b = _pair(a_weapons=(RIFLE, FRAG), rows=floor(12, 2))
    assert "must hold a creature, leave A out" in why(b, "autofire", square=(8, 0))
    assert why(b, "grenade", square=(10, 1)).endswith("within 40 ft in line of effect, where its area catches a "
                                                      "creature: (10, 1) is not such a square")


def test_help_needs_an_ally():
    b = make(floor(4, 1), [unit("A", "pcs", (0, 0), KNIFE), unit("E", "npcs", (1, 0), CLUB)])
    assert why(b, "help", "E") == "A has no ally left for Help to give advantage against E"


def test_a_door_out_of_reach():
    b = _pair(rows=["......+", "......."])
    assert why(b, "open_door", square=(6, 0)) == "the door at (6, 0) is not next to A"
