"""The enemies' intent: what the heuristic would have each enemy do now, as an observation block.

A model of the other side: for every enemy the heuristic's plan if that enemy acted at this moment (a copy of the
battle with the enemy as the acting unit, its budget fresh, played by the heuristic until it would end its turn; no
dice of the real battle are rolled and the battle is not touched). In a simultaneous phase (Rise) every choice is
made against the state the phase began with, so the plan is what a heuristic enemy commits in this phase (its
hidden choice is never read: the copy drops it); in sequential turns it is what the enemy would do if its turn came
at the start of the acting unit's turn (made again after the acting unit's attacks), a guess at its next turn.
Against other opponents (players at the table, other policies) it is the guess of a sensible player.

Per enemy row of the observation (the other side in unit-id order, `max_per_side` rows), `width(max_per_side)`
values: whether the plan attacks one of the observer's side; whether it ends on another square; whether it holds a
decision that is neither an attack nor a move (a total defense, drawing a weapon, ...); which of the observer's rows
it attacks (one-hot: the acting unit, then its allies in unit-id order, as the unit rows); where the enemy stands at
the end of the plan relative to the acting unit (dx / map width, dy / map height). Rows of absent or downed enemies
are zeros.
"""
from __future__ import annotations

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

ATTACKS = ("attack", "charge")
MOVES = ("move", "withdraw", "run")
MAX_DECISIONS = 4  # of one enemy's plan (a phase or turn rarely holds more than three)


def width(max_per_side: int) -> int:
    """Values per enemy row."""
    return 3 + max_per_side + 2


class EnemyIntent:
    """Fills the intent block (`max_per_side * width(max_per_side)` floats) for the acting unit of an encounter."""

    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int):
        from engine.policies.heuristic import HeuristicPolicy, tactics_for

        self.ruleset, self.max_per_side = ruleset, max_per_side
        self.W, self.H = float(max(1, map_w)), float(max(1, map_h))
        self.size = max_per_side * width(max_per_side)
        self.heuristic = HeuristicPolicy(0)
        self.tactics = tactics_for(ruleset)
        # the plans kept, and what they were made for (`_plans`)
        self._key: tuple | None = None
        self._plans_kept: dict[int, list[Decision]] = {}

    def plan(self, enc: Encounter, enemy: Unit) -> list[Decision]:
        """The heuristic's decisions for `enemy` if it acted now (empty if it would only end its turn)."""
        rs = self.ruleset
        if enc.over or not rs.can_act(enc, enemy):
            return []
        sim = enc.clone()
        sim.pending.pop(enemy.id, None)
        sim.turn = sim.order.index(enemy.id)
        e = sim.units[enemy.id]
        sim.version += 1
        sim.budget = rs.new_budget(sim, e)
        sim.flags = {}
        dice = SeededDice(0)
        rs.start_turn(sim, e, dice)
        if sim.over or not rs.can_act(sim, e):
            return []
        b = Battle(sim, rs, dice)
        out: list[Decision] = []
        heur = self.heuristic
        while len(out) < MAX_DECISIONS and sim.winner is None and sim.actor is e:
            # the heuristic's choice (`choose`), its tie-breaking jitter restarted: the plan depends on the state alone
            d = max(heur.scores(b, seed=0), key=lambda x: x[1])[0]
            if d == END:
                break
            out.append(d)
            b.step(d)
        return out

    def _plans(self, enc: Encounter, actor: Unit, enemies: list[Unit]) -> dict[int, list[Decision]]:
        """The enemies' plans, made again only when what they depend on changes. In a simultaneous phase the state
        stays the phase's start until it resolves (choices are hidden): once a phase. In sequential turns once a
        turn of the acting unit, and again when hit points change (its attacks) or another unit's square (a GM's
        correction); its own moves in its turn do not make them again. The key holds the encounter itself, so that
        its id is not reused by another while the plans are kept."""
        rs = self.ruleset
        if rs.phases[enc.phase_index] in rs.simultaneous:
            key = (enc, enc.round, enc.phase_index, None, tuple((u.hp, u.pos) for u in enc.units))
        else:
            key = (enc, enc.round, enc.phase_index, enc.turn,
                   tuple((u.hp, None if u is actor else u.pos) for u in enc.units))
        old = self._key
        if old is None or key[0] is not old[0] or key[1:] != old[1:]:
            self._key, self._plans_kept = key, {}
        got = self._plans_kept
        for e in enemies:
            if e.id not in got:
                got[e.id] = self.plan(enc, e)
        return got

    def fill(self, enc: Encounter, actor: Unit, out: np.ndarray) -> None:
        """The block for `actor` into `out`."""
        out.fill(0.0)
        if enc.over or actor is not enc.actor:
            return
        side = actor.side
        mine = [actor] + [u for u in enc.units if u.side == side and u.id != actor.id][:self.max_per_side - 1]
        slot = {u.id: i for i, u in enumerate(mine)}
        enemies = [u for u in enc.units if u.side != side][:self.max_per_side]
        plans = self._plans(enc, actor, [e for e in enemies if e.active])
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
