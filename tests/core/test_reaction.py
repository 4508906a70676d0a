"""Reactions as decisions: the ruleset enumerates, the reacting side chooses, anything else is refused."""
from __future__ import annotations

import pytest

from engine.core.decision import Decision
from engine.core.errors import IllegalAction
from engine.core.policy import Policy, side_reactor
from engine.core.reaction import DECLINE, Trigger, always_decline, ask_reaction
from engine.core.ruleset import Ruleset
from engine.core.units import Unit


class _Watchers(Ruleset):
    """Each unit with `ready` set may strike the provoker or pass."""

    id = "reaction_test"
    name = "Reaction test"

    def legal_reactions(self, enc, unit, trigger):
        if not unit.state.get("ready"):
            return []
        return [Decision("strike", target=trigger.provoker), DECLINE]


class _Enc:
    def __init__(self, units):
        self.units = units


def _units():
    mover = Unit(0, "Mover", "pcs", (0, 0), 5, 5, {}, "", {}, {})
    watcher = Unit(1, "Watcher", "npcs", (1, 0), 5, 5, {}, "", {"ready": True}, {})
    idle = Unit(2, "Idle", "npcs", (1, 1), 5, 5, {}, "", {"ready": False}, {})
    return _Enc([mover, watcher, idle])


LEAVES = Trigger("leaves_threat", provoker=0, why="moving out of a threatened square")


def test_without_a_chooser_the_first_listed_reaction_is_taken():
    enc = _units()
    assert ask_reaction(_Watchers(), enc, enc.units[1], LEAVES, None) == Decision("strike", target=0)


def test_a_unit_without_reactions_is_not_asked():
    enc = _units()
    asked = []
    got = ask_reaction(_Watchers(), enc, enc.units[2], LEAVES, lambda *a: asked.append(a) or DECLINE)
    assert got is None and asked == []


def test_declining_gives_none_and_a_choice_outside_the_list_is_refused_by_name():
    enc, rs = _units(), _Watchers()
    assert ask_reaction(rs, enc, enc.units[1], LEAVES, always_decline) is None
    with pytest.raises(IllegalAction, match=r"Watcher cannot react to moving out of a threatened square with "
                                            r"strike on Watcher; allowed: strike on Mover, no reaction"):
        ask_reaction(rs, enc, enc.units[1], LEAVES, lambda e, u, t, opts: Decision("strike", target=1))


def test_side_reactor_asks_the_reacting_sides_policy():
    class Passive(Policy):
        def choose_reaction(self, enc, unit, trigger, options):
            return options[-1]

    enc, rs = _units(), _Watchers()
    react = side_reactor({"npcs": Passive()})
    assert ask_reaction(rs, enc, enc.units[1], LEAVES, react) is None
    enc.units[1].side = "pcs"  # a side without a policy of its own takes the usual answer
    assert ask_reaction(rs, enc, enc.units[1], LEAVES, react) == Decision("strike", target=0)
