"""The enemies' intent: what the heuristic would have each enemy do now, as an observation block.

A model of the other side (`engine.policies.intent.HeuristicIntent`): for every enemy the heuristic's plan if that
enemy acted at this moment, made on a copy of the battle. In a simultaneous phase (Rise) that is what a heuristic
enemy commits in this phase; in sequential turns a guess at the enemy's next turn. Against other opponents
(players at the table, other policies) it is the guess of a sensible player.

Per enemy row of the observation (the other side in unit-id order, `max_per_side` rows), `width(max_per_side)`
values: whether the plan attacks one of the observer's side; whether it ends on another square; whether it holds a
decision that is neither an attack nor a move (a total defense, drawing a weapon, ...); which of the observer's rows
it attacks (one-hot: the acting unit, then its allies in unit-id order, as the unit rows); where the enemy stands at
the end of the plan relative to the acting unit (dx / map width, dy / map height). Rows of absent or downed enemies
are zeros.
"""
from __future__ import annotations

import numpy as np

from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit
from engine.policies.intent import ATTACKS, MOVES, HeuristicIntent


def width(max_per_side: int) -> int:
    """Values per enemy row."""
    return 3 + max_per_side + 2


class EnemyIntent:
    """Fills the intent block (`max_per_side * width(max_per_side)` floats) for the acting unit of an encounter."""

    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int):
        from engine.policies.heuristic import tactics_for

        self.ruleset, self.max_per_side = ruleset, max_per_side
        self.W, self.H = float(max(1, map_w)), float(max(1, map_h))
        self.size = max_per_side * width(max_per_side)
        self.model = HeuristicIntent(ruleset)
        self.tactics = tactics_for(ruleset)

    def fill(self, enc: Encounter, actor: Unit, out: np.ndarray) -> None:
        """The block for `actor` into `out`."""
        out.fill(0.0)
        if enc.over or actor is not enc.actor:
            return
        side = actor.side
        mine = [actor] + [u for u in enc.units if u.side == side and u.id != actor.id][:self.max_per_side - 1]
        slot = {u.id: i for i, u in enumerate(mine)}
        enemies = [u for u in enc.units if u.side != side][:self.max_per_side]
        plans = self.model.plans(enc, actor, [e for e in enemies if e.active])
        w, n = width(self.max_per_side), self.max_per_side
        ax, ay = actor.pos
        kind, units = self.tactics.kind, enc.units
        for row, e in enumerate(enemies):
            if not e.active:
                continue
            o = row * w
            x, y = e.pos
            for d in plans.get(e.id, ()):
                k = kind(d)
                t = d.target
                if k in ATTACKS and t is not None and 0 <= t < len(units) and units[t].side == side:
                    out[o] = 1.0
                    if t in slot:
                        out[o + 3 + slot[t]] = 1.0
                elif k not in MOVES:
                    out[o + 2] = 1.0
                if d.square is not None or k == "charge":
                    sq = self.tactics.view(enc, e).end_square(d)
                    if sq is not None:
                        x, y = sq
            out[o + 1] = float((x, y) != e.pos)
            out[o + 3 + n] = (x - ax) / self.W
            out[o + 4 + n] = (y - ay) / self.H
