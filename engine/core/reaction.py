"""Reactions as decisions: what happens when a unit's act lets others answer it out of turn.

A resolver that reaches a moment where other units may react (an attack of opportunity as a unit leaves a
threatened square, a 5e-style reaction, a readied action going off) describes that moment as a `Trigger` and
calls `ask_reaction`. The ruleset enumerates the reacting unit's legal reactions (`Ruleset.legal_reactions`,
always ending with `DECLINE`), the reacting side chooses one through a `React` callback (its policy, or the GM
at the table), and the resolver carries out the choice. Without a callback the ruleset's first listed reaction
is taken: the rulesets list the usual answer first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .decision import Decision
from .errors import IllegalAction

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .state import Encounter
    from .units import Unit

DECLINE = Decision("no_reaction")


@dataclass(frozen=True)
class Trigger:
    """A moment that offers reactions.

    `kind` is the ruleset's name for it ('leaves_threat', 'ranged_in_threat', 'casts', ...), `provoker` the unit
    whose act triggers it, `why` the GM's words for it ("moving out of a threatened square") and `data` anything
    else the ruleset's reactions need to know (the square left, the spell cast).
    """

    kind: str
    provoker: int
    why: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)


# React(encounter, reacting unit, trigger, its legal reactions) -> the chosen one (DECLINE to let it pass).
React = Callable[["Encounter", "Unit", Trigger, list[Decision]], Decision]


def ask_reaction(ruleset: "Ruleset", enc: "Encounter", unit: "Unit", trigger: Trigger,
                 react: React | None) -> Decision | None:
    """The reaction `unit` takes to `trigger`, or None when it has none or declines.

    The choice must be one of the legal reactions; anything else raises IllegalAction naming them."""
    options = ruleset.legal_reactions(enc, unit, trigger)
    if not options:
        return None
    choice = options[0] if react is None else react(enc, unit, trigger, options)
    if choice not in options:
        allowed = ", ".join(ruleset.describe_reaction(d, enc) for d in options)
        raise IllegalAction(f"{unit.name} cannot react to {trigger.why or trigger.kind} with "
                            f"{ruleset.describe_reaction(choice, enc)}; allowed: {allowed}")
    return None if choice == DECLINE else choice


def always_decline(enc: "Encounter", unit: "Unit", trigger: Trigger, options: list[Decision]) -> Decision:
    """A React that lets every trigger pass."""
    return DECLINE
