"""How strong a side is before the fight, for drawing sides of different stat blocks that are still a fair fight.

A side's fighting strength is its hit points times its damage a round (Lanchester's square law: two sides that
trade aimed fire are even when the products are equal). A stat block's damage a round against another is what the
ruleset's own `threat_estimate` says of its best attack from the better of a few distances on an open map, so the
measure knows every ruleset's attacks, defenses and reach without a line of its own.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .grid import Grid
from .state import Encounter

if TYPE_CHECKING:
    from .ruleset import Ruleset

_DUEL_MAP = ["#########"] + ["#.......#"] * 3 + ["#########"]
_DISTANCES = (1, 2, 4, 6)  # squares between the two: reach, point blank, short and longer range
_DAMAGE: dict[tuple[str, str, str], float] = {}  # (ruleset id, attacker template, target template) -> damage
_HP: dict[tuple[str, str], int] = {}


def template_damage(ruleset: "Ruleset", attacker: str, target: str) -> float:
    """Expected damage of `attacker`'s best single attack on `target` (template names), unhurt, from the better of a
    few distances on an open map (remembered per ruleset and pair)."""
    key = (ruleset.id, attacker, target)
    got = _DAMAGE.get(key)
    if got is None:
        got = 0.0
        for d in _DISTANCES:
            a = ruleset.make_unit(0, {"name": "A", "side": ruleset.sides[0], "template": attacker, "at": [1, 2]},
                                  "balance")
            t = ruleset.make_unit(1, {"name": "B", "side": ruleset.sides[1], "template": target, "at": [1 + d, 2]},
                                  "balance")
            enc = Encounter(ruleset.id, "duel", Grid(_DUEL_MAP, None, ruleset.metric), [a, t], 20)
            got = max(got, ruleset.threat_estimate(enc, a, t)[1])
        _DAMAGE[key] = got
    return got


def template_hp(ruleset: "Ruleset", template: str) -> int:
    """The template's full hit points, as the core counts them."""
    key = (ruleset.id, template)
    got = _HP.get(key)
    if got is None:
        got = _HP[key] = ruleset.make_unit(0, {"name": "A", "side": ruleset.sides[0], "template": template,
                                                "at": [1, 1]}, "balance").max_hp
    return got


def strength(ruleset: "Ruleset", side: list[tuple[str, float]], enemies: list[str]) -> float:
    """Fighting strength of `side` ((template, share of its hit points it starts with) per unit) against `enemies`
    (templates): its hit points times its damage a round, each unit's damage the mean over the enemies (0 with no
    enemies)."""
    if not enemies:
        return 0.0
    hp = sum(template_hp(ruleset, t) * share for t, share in side)
    damage = sum(sum(template_damage(ruleset, t, e) for e in enemies) / len(enemies) for t, _ in side)
    return hp * damage


def imbalance(ruleset: "Ruleset", a: list[tuple[str, float]], b: list[tuple[str, float]]) -> float:
    """How far apart two sides' strengths are: |ln(strength a / strength b)| (0: even; ln 1.25 ~ 0.22: one side a
    quarter stronger); infinite when a side can do no damage at all."""
    sa = strength(ruleset, a, [t for t, _ in b])
    sb = strength(ruleset, b, [t for t, _ in a])
    if sa <= 0 or sb <= 0:
        return 0.0 if sa == sb else math.inf
    return abs(math.log(sa / sb))
