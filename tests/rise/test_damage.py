"""Damage: damage resistance before hit points; a vital wound for damage beyond the hit points left (or any at 0) and
its vital roll (1d10 - 2 per earlier vital wound: 0 or less dead, 1-4 unconscious, else the creature fights on at -1
accuracy and defenses a wound); minions out at their first vital wound; subdual damage knocks out instead of
killing; no desperate exertion on a vital roll."""
import pytest

from .helpers import (RS, SWORD, C, all_of, first, floor, make, play_phase, skip_movement, u, unit)

CLUB = {"name": "club", "damage": "1d6", "tags": {"subdual": True}}


def _hit(weapon=SWORD, t_over=None, a_over=None):
    """A (pcs, accuracy 5) next to T (npcs); in the action phase. A face of 5 hits, of 10+ is a critical hit."""
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), weapon, **{"accuracy": 5, **(a_over or {})}),
                           unit("T", "npcs", (1, 0), SWORD, **(t_over or {}))])
    skip_movement(b)
    return b


def _strike(b, faces):
    return play_phase(b, faces, A=("strike", "T"))


def _left(t):
    """(hit points, damage resistance) left."""
    return t.hp - t.state["dr"], t.state["dr"]


def test_damage_resistance_takes_damage_before_hit_points():
    b = _hit(t_over={"hp": 10, "dr": 4})
    t = u(b, "T")
    ev = _strike(b, [5, 3])
    assert first(ev, "damage").get("resisted") == 3 and _left(t) == (10, 1)
    play_phase(b)
    ev = _strike(b, [5, 6])
    assert first(ev, "damage").get("resisted") == 1 and _left(t) == (5, 0)
    assert RS.unit_summary(t)["hp"] == 5 and RS.unit_summary(t)["dr"] == 0
    assert not all_of(ev, "vital_wound")


def test_damage_beyond_the_hit_points_left_is_a_vital_wound_with_a_vital_roll():
    b = _hit(t_over={"hp": 3, "dr": 2})
    ev = _strike(b, [5, 6, 7])                   # 6: 2 on the resistance, 3 on the hit points, 1 beyond; vital roll 7
    wound = first(ev, "vital_wound")
    assert (wound.get("roll"), wound.get("wounds"), wound.get("result")) == (7, 1, "fights on")
    t = u(b, "T")
    assert _left(t) == (0, 0) and not t.down and t.state["vital"] == 1


def test_any_damage_at_0_hit_points_is_a_vital_wound():
    b = _hit(t_over={"hp": 5, "hp_now": 1, "state": {"vital": 0}})
    ev = _strike(b, [5, 2, 8])                                  # 2 damage on 1 hit point: beyond it
    assert first(ev, "vital_wound").get("roll") == 8
    play_phase(b)
    ev = _strike(b, [5, 1, 9])                                  # 1 damage at 0 hit points: another, rolled at -2
    wound = first(ev, "vital_wound")
    assert (wound.get("roll"), wound.get("wounds"), wound.get("result")) == (9 - 2, 2, "fights on")


def test_damage_that_leaves_exactly_0_hit_points_is_not_a_vital_wound():
    b = _hit(t_over={"hp": 4})
    ev = _strike(b, [5, 4])             # 4 damage on 4 hit points (today a vital roll is asked: the dice run out)
    assert not all_of(ev, "vital_wound") and _left(u(b, "T")) == (0, 0) and not u(b, "T").down


@pytest.mark.parametrize("earlier,face,roll,result,dead", [
    (0, 1, 1, "unconscious", False), (0, 4, 4, "unconscious", False), (0, 5, 5, "fights on", False),
    (0, 10, 10, "fights on", False),
    (1, 2, 0, "dead", True), (1, 3, 1, "unconscious", False), (1, 7, 5, "fights on", False),
    (2, 4, 0, "dead", True), (2, 9, 5, "fights on", False), (3, 6, 0, "dead", True),
])
def test_the_vital_roll_is_1d10_minus_2_per_earlier_vital_wound(earlier, face, roll, result, dead):
    b = _hit(t_over={"hp": 3, "hp_now": 1, "state": {"vital": earlier}})
    ev = _strike(b, [5, 6, face])
    wound = first(ev, "vital_wound")
    assert (wound.get("roll"), wound.get("result"), wound.get("wounds")) == (roll, result, earlier + 1)
    t = u(b, "T")
    assert t.down is (result != "fights on") and t.dead is dead
    if result != "fights on":
        assert first(ev, "down").get("dead") is dead and b.enc.winner == "pcs"


def test_a_vital_wound_is_minus_1_to_accuracy_and_every_defense():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD, accuracy=3, state={"vital": 2}),
                           unit("T", "npcs", (1, 0), SWORD, brawling=0, state={"vital": 1})])
    skip_movement(b)
    assert [C.defense(b.enc, u(b, "T"), d) for d in C.DEFENSES] == [9, 9, 9, 9]
    ev = play_phase(b, [5, 4], A=("strike", "T"), T=("trip", "A"))      # both miss
    strike, trip = all_of(ev, "attack")
    assert (strike.get("bonus"), strike.get("defense")) == (3 - 2, 9)
    assert (trip.get("bonus"), trip.get("defense")) == (0 - 1, 10 - 2)


def test_a_minion_is_out_at_its_first_vital_wound_without_a_vital_roll():
    b = _hit(t_over={"hp": 3, "minion": True})
    ev = _strike(b, [5, 6])                                     # no vital roll: every face is used already
    wound = first(ev, "vital_wound")
    assert wound.get("roll") is None and wound.get("result") == "dead" and u(b, "T").dead


def test_subdual_damage_knocks_out_instead_of_killing():
    b = _hit(CLUB, t_over={"hp": 3, "hp_now": 1, "state": {"vital": 1}})
    ev = _strike(b, [5, 6, 2])                                  # vital roll 2 - 2 = 0: would be dead
    assert first(ev, "vital_wound").get("result") == "unconscious"
    assert u(b, "T").down and not u(b, "T").dead
    b = _hit(CLUB, t_over={"hp": 3, "minion": True})
    ev = _strike(b, [5, 6])
    assert first(ev, "vital_wound").get("result") == "unconscious" and not u(b, "T").dead


def test_subdual_still_lets_a_good_vital_roll_fight_on():
    b = _hit(CLUB, t_over={"hp": 3})
    ev = _strike(b, [5, 6, 8])
    assert first(ev, "vital_wound").get("result") == "fights on" and not u(b, "T").down


def test_no_desperate_exertion_on_a_vital_roll():
    b = _hit(t_over={"hp": 3, "fatigue_tolerance": 10})
    ev = _strike(b, [5, 6, 1])                                  # a vital roll of 1: unconscious, not rerolled
    assert not all_of(ev, "exertion") and first(ev, "vital_wound").get("result") == "unconscious"
    assert u(b, "T").state["fatigue"] == 0


def test_a_critical_hit_rolls_the_damage_dice_twice():
    b = _hit(t_over={"hp": 40}, a_over={"power": 2})
    ev = _strike(b, [10, 5, 3, 6])                               # 20 vs 10: a critical hit
    assert first(ev, "attack").get("result") == "crit" and first(ev, "damage").get("amount") == 3 + 6 + 2
