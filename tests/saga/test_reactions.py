"""Saga's attacks of opportunity are reactions the reacting side chooses (engine/core/reaction.py)."""
from __future__ import annotations

import pytest

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import ScriptedDice
from engine.core.errors import IllegalAction
from engine.core.reaction import DECLINE, Trigger

from .helpers import RS, SWORD, PISTOL, all_of, floor, make, step, u, unit

UNITS = [unit("A", "pcs", (1, 1), PISTOL), unit("G", "npcs", (2, 1), SWORD)]


def _with_react(react):
    b = make(floor(6, 3), UNITS)
    return Battle(b.enc, RS, ScriptedDice([]), react=react)


def test_leaving_a_threatened_square_asks_the_threatening_unit_which_reaction():
    asked = []

    def react(enc, unit, trigger, options):
        asked.append((unit.name, trigger.kind, trigger.provoker, trigger.why, options))
        return options[0]

    b = _with_react(react)
    ev = step(b, "move", square=(4, 1), faces=[20, 3])  # G's attack of opportunity: natural 20, then damage
    g, a = u(b, "G"), u(b, "A")
    assert asked == [("G", "attack_of_opportunity", a.id, "moving out of a threatened square",
                      [Decision("attack_of_opportunity", a.id), DECLINE])]
    assert [e.actor for e in all_of(ev, "aoo")] == [g.id] and g.state["aoo_used"]


def test_a_declined_attack_of_opportunity_lets_the_mover_go_and_keeps_the_reaction():
    b = _with_react(lambda enc, unit, trigger, options: DECLINE)
    ev = step(b, "move", square=(4, 1))
    assert not all_of(ev, "aoo") and [e.actor for e in all_of(ev, "aoo_declined")] == [u(b, "G").id]
    assert u(b, "A").pos == (4, 1) and u(b, "A").hp == u(b, "A").max_hp and not u(b, "G").state["aoo_used"]


def test_no_reaction_is_offered_once_the_round_s_one_is_spent_and_a_foreign_choice_is_refused():
    b = make(floor(6, 3), UNITS)
    g, a = u(b, "G"), u(b, "A")
    trigger = Trigger("attack_of_opportunity", a.id, "moving out of a threatened square")
    assert RS.legal_reactions(b.enc, g, trigger) == [Decision("attack_of_opportunity", a.id), DECLINE]
    g.state["aoo_used"] = True
    assert RS.legal_reactions(b.enc, g, trigger) == []
    g.state["aoo_used"] = False
    bad = _with_react(lambda enc, unit, trigger, options: Decision("attack_of_opportunity", unit.id))
    with pytest.raises(IllegalAction, match="G cannot react to moving out of a threatened square"):
        step(bad, "move", square=(4, 1))
