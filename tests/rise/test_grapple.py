"""Grappling ("5.8.3 Grapple / Maintain Grapple / Escape Grapple / Throw", "5.8.4 Grappling"): a brawling attack vs.
Fortitude and Reflex, a critical hit controls; -2 Armor and Reflex unless controlling; one hand busy; no movement
but shoving every grappler; maintain grapple sets the escape defense (0 if unused); the controller lets go for free;
taking control of a grapple; throwing a grappled creature 10 ft + 5 ft per 2 Strength."""
import pytest

from .helpers import (SWORD, C, actions, all_of, first, floor, make, play_phase, skip_movement, step,
                      u, unit, why)


def _grapplers(rows=None, a_over=None, b_over=None, grappled=False, control=None):
    """A (pcs, brawling 2) at (1, 0) and B (npcs) at (2, 0); `grappled`: already grappling each other (`control`: the
    name of the one in control). In the action phase."""
    a_state, b_state = {}, {}
    if grappled:
        a_state = {"grapple": [1], "control": control == "A"}
        b_state = {"grapple": [0], "control": control == "B"}
    b = make(rows or floor(8, 1), [unit("A", "pcs", (1, 0), **{"brawling": 2, **(a_over or {})}, state=a_state),
                                   unit("B", "npcs", (2, 0), **{**(b_over or {})}, state=b_state)])
    skip_movement(b)
    return b


def test_a_grapple_is_a_brawling_attack_against_the_higher_of_fortitude_and_reflex():
    b = _grapplers(b_over={"fortitude": 8, "reflex": 12})
    ev = play_phase(b, [9], A=("grapple", "B"))                    # 9 + 2 vs 12: a glancing blow, no grapple
    attack = first(ev, "attack")
    assert (attack.get("why"), attack.get("bonus"), attack.get("defense")) == ("grapple", 2, 12)
    assert u(b, "A").state["grapple"] == [] and not all_of(ev, "grappled")


def test_a_grapple_that_hits_grapples_both_without_control():
    b = _grapplers()
    ev = play_phase(b, [8], A=("grapple", "B"))
    assert first(ev, "grappled").get("control") is False
    a, t = u(b, "A"), u(b, "B")
    assert a.state["grapple"] == [t.id] and t.state["grapple"] == [a.id]
    assert not a.state["control"] and not t.state["control"]
    for x in (a, t):                                           # -2 Armor and Reflex for both
        assert [C.defense(b.enc, x, d) for d in C.DEFENSES] == [8, 10, 8, 10]


def test_a_critical_grapple_controls_it_and_the_controller_has_no_penalty():
    b = _grapplers(a_over={"brawling": 10})
    ev = play_phase(b, [9], A=("grapple", "B"))                    # 19 vs 10... not 20: a hit
    assert first(ev, "grappled").get("control") is False
    b = _grapplers(a_over={"brawling": 11})
    ev = play_phase(b, [9], A=("grapple", "B"))                    # 20 vs 10: a critical hit
    assert first(ev, "grappled").get("control") is True
    a, t = u(b, "A"), u(b, "B")
    assert a.state["control"] and not t.state["control"]
    assert C.defense(b.enc, a, "armor") == 10 and C.defense(b.enc, t, "armor") == 8


def test_a_grapple_lands_at_the_end_of_the_phase():
    # B's strike in the same phase is against A's Armor 10: the grapple's -2 comes when the phase ends
    b = _grapplers(b_over={"accuracy": 2, "weapons": [SWORD]})
    ev = play_phase(b, [8, 9, 3], A=("grapple", "B"), B=("strike", "A"))
    strike = [e for e in all_of(ev, "attack") if e.get("why") == "melee strike"][0]
    assert strike.get("defense") == 10 and u(b, "A").state["grapple"]


def test_a_grapple_needs_a_free_hand():
    b = _grapplers(a_over={"weapons": [SWORD], "shield": True})
    assert "grapple" not in actions(b) and "needs a free hand" in why(b, "grapple", "B")
    # one hand holds the grapple: a grappler with a weapon in its other hand has none left to grapple or trip
    b = _grapplers(a_over={"weapons": [SWORD]}, b_over={"weapons": [SWORD]}, grappled=True)
    assert not actions(b) & {"grapple", "trip"}


def test_a_grappler_cannot_use_a_heavy_weapon_nor_dual_strike():
    b = _grapplers(a_over={"weapons": ["greataxe"]}, grappled=True)
    assert "strike" not in actions(b)
    b = _grapplers(a_over={"weapons": [SWORD, "dagger"], "dexterity": 2}, grappled=True)
    assert {d.option for d in b.legal() if d.action == "strike"} == {0, 1}


def test_a_grappler_cannot_move_charge_sprint_or_overrun():
    b = make(floor(8, 3), [unit("A", "pcs", (1, 1), brawling=2, state={"grapple": [1]}),
                           unit("B", "npcs", (2, 1), state={"grapple": [0]}), unit("C", "npcs", (6, 1))])
    assert not actions(b) & {"move", "sprint", "overrun_move"}
    assert "cannot move without shoving" in why(b, "move", square=(0, 1))
    skip_movement(b)
    assert not actions(b) & {"charge", "sprint_action", "overrun"}


def test_a_grappler_moves_by_shoving_every_creature_grappling_it_as_a_movement():
    b = make(floor(8, 1), [unit("A", "pcs", (1, 0), brawling=2, state={"grapple": [1]}),
                           unit("B", "npcs", (2, 0), state={"grapple": [0]})])
    assert "shove_move" in actions(b)
    ev = play_phase(b, [8], A=("shove_move", "B"))            # 8 + 2 vs Fortitude 10: 3 squares, together
    assert first(ev, "attack").get("why") == "shove"
    assert (u(b, "A").pos, u(b, "B").pos) == ((4, 0), (5, 0))
    assert u(b, "A").state["grapple"] == [u(b, "B").id]          # still grappling, still adjacent


# ---- maintain, escape, release ---------------------------------------------------------------------------------------
def test_an_escape_unopposed_by_maintain_grapple_is_against_0():
    b = _grapplers(grappled=True, b_over={"brawling": -3})
    ev = play_phase(b, [2], B=("escape",))                       # 2 - 3 = -1 vs 0: a glancing blow, still held
    attack = first(ev, "attack")
    assert attack.get("defense") == 0 and attack.get("why") == "escape grapple" and attack.get("result") == "glance"
    assert u(b, "B").state["grapple"] == [u(b, "A").id]


def test_an_escape_that_beats_0_ends_the_grapple():
    b = _grapplers(grappled=True)
    ev = play_phase(b, [1], B=("escape",))
    assert first(ev, "attack").get("result") == "hit" and first(ev, "grapple_ends")
    assert u(b, "A").state["grapple"] == [] and u(b, "B").state["grapple"] == []


def test_maintain_grapple_is_free_and_its_result_is_the_escape_defense():
    b = _grapplers(grappled=True)
    assert "maintain" in actions(b)
    step(b, "maintain")
    assert "maintain" not in actions(b) and "escape" in actions(b)     # once a round; the standard action is left
    # maintain (Swift, first): 7 + 2 = 9; B's escape 8 vs 9: a glancing blow, still grappled
    ev = play_phase(b, [7, 8], B=("escape",))
    assert first(ev, "maintain").get("total") == 9
    escape = [e for e in all_of(ev, "attack") if e.get("why") == "escape grapple"][0]
    assert escape.get("defense") == 9 and escape.get("result") == "glance"
    assert u(b, "B").state["grapple"] == [u(b, "A").id]


def test_maintain_grapple_resolves_before_an_escape_whatever_the_initiative():
    b = make(floor(8, 1), [unit("B", "npcs", (2, 0), state={"grapple": [1]}),
                           unit("A", "pcs", (1, 0), brawling=2, state={"grapple": [0]})])
    skip_movement(b)
    ev = play_phase(b, [6, 9], B=("escape",), A=("maintain",))     # A: 6 + 2 = 8; B's 9 beats it
    assert [e.kind for e in ev if e.kind in ("maintain", "attack")] == ["maintain", "attack"]
    assert first(ev, "attack").get("defense") == 8 and first(ev, "grapple_ends")


def test_a_maintain_grapple_result_is_for_its_round_only():
    b = _grapplers(grappled=True)
    play_phase(b, [7], A=("maintain",))                        # round 1: 9
    play_phase(b)                                              # round 2's movement phase
    assert u(b, "A").state["maintain"] == -1
    ev = play_phase(b, [1], B=("escape",))                      # round 2, no maintain: against 0
    assert first(ev, "attack").get("defense") == 0 and first(ev, "grapple_ends")


def test_only_a_grappler_may_maintain_or_escape():
    b = _grapplers()
    assert not actions(b) & {"maintain", "escape", "release"}
    assert "not in a grapple" in why(b, "escape")


def test_the_controller_lets_go_for_free_and_keeps_its_standard_action():
    b = _grapplers(grappled=True, control="A", a_over={"weapons": [SWORD], "accuracy": 2})
    assert "release" in actions(b)
    step(b, "release")
    assert "strike" in actions(b)
    ev = play_phase(b, [8, 4], A=("strike", "B"))
    assert first(ev, "grapple_ends") and u(b, "A").state["grapple"] == [] and u(b, "B").hp == 20 - 4
    assert not u(b, "A").state["control"]


def test_a_grappler_without_control_cannot_let_go_for_free():
    b = _grapplers(grappled=True)
    assert "release" not in actions(b)


@pytest.mark.parametrize("face,control_after", [(8, None), (9, "B")])
def test_grappling_the_controller_takes_control_away_or_takes_it(face, control_after):
    # A controls (no penalty: Reflex 10); B grapples A: a hit (8 + 2) leaves nobody in control, a critical hit
    # (9 + 11) gives B the control
    b = _grapplers(grappled=True, control="A", b_over={"brawling": 11 if face == 9 else 2})
    play_phase(b, [face], B=("grapple", "A"))
    assert u(b, "A").state["control"] is False
    assert u(b, "B").state["control"] is (control_after == "B")


def test_a_grappler_taken_out_of_the_fight_lets_go():
    b = _grapplers(grappled=True, b_over={"hp": 2, "minion": True}, a_over={"weapons": [SWORD], "accuracy": 4})
    play_phase(b, [8, 5], A=("strike", "B"))
    assert u(b, "B").down and u(b, "A").state["grapple"] == []


# ---- throw -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("strength,squares", [(0, 2), (1, 2), (2, 3), (3, 3), (4, 4)])
def test_a_thrown_creature_flies_10_ft_plus_5_per_2_strength(strength, squares):
    b = _grapplers(rows=floor(12, 1), grappled=True, a_over={"strength": strength})
    assert "throw" in actions(b)
    ev = play_phase(b, [8], A=("throw", "B"))                    # 8 + 2 vs Fortitude 10
    assert first(ev, "attack").get("why") == "throw" and first(ev, "attack").get("defense") == 10
    assert u(b, "B").pos == (2 + squares, 0) and first(ev, "thrown").get("squares") == squares
    assert u(b, "A").state["grapple"] == [] and u(b, "B").state["grapple"] == []


def test_a_throw_that_misses_keeps_the_grapple():
    b = _grapplers(grappled=True)
    play_phase(b, [3], A=("throw", "B"))
    assert u(b, "B").pos == (2, 0) and u(b, "A").state["grapple"] == [u(b, "B").id]


def test_only_a_grappled_creature_the_thrower_can_carry_is_thrown():
    assert "throw" not in actions(_grapplers())
    assert "throw" not in actions(_grapplers(grappled=True, b_over={"size": "large"}))


def test_an_escape_may_use_flexibility_instead_of_brawling():
    b = _grapplers(grappled=True, b_over={"brawling": 1, "flexibility": 5})
    ev = play_phase(b, [6, 4], A=("maintain",), B=("escape",))      # maintain 6 + 2 = 8; escape 4 + 5 = 9
    escape = [e for e in all_of(ev, "attack") if e.get("why") == "escape grapple"][0]
    assert escape.get("bonus") == 5 and escape.get("result") == "hit" and u(b, "B").state["grapple"] == []
