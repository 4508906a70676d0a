"""The anticipating heuristic: the heuristic, planning a simultaneous phase against where it will leave the others.

In a simultaneous phase (Rise) every creature chooses against the state the phase began with, and then all move
together: the plain heuristic places a creature by where the others stand now. This one scores the same decisions
on a copy of the battle in which the others stand where the phase will take them: its own side's creatures where
their committed movements end (a side knows what it decided), the enemies where the heuristic's plan for each ends
(`engine.policies.intent`, a model of the other side: against a heuristic it is what the enemy commits, against
people a guess). The copy is marked `Encounter.anticipated`, so that a ruleset's square values do not count the
others' movements a second time (Rise's movement-phase threat). Outside simultaneous phases, in a phase without
movements or when nobody else moves, it scores as the heuristic.

In a simultaneous phase it also guards: the enemies' plans say which of them will attack the acting unit in this
phase, and a choice that takes effect before the phase's attacks land (`Ruleset.foresee`: Rise's Swift total defense
and recover) is worth the chance it takes off those attacks downing the unit, times what the unit is worth to its
side (as the heuristic prices an enemy's kill: `KILL_BONUS` plus twice the damage it deals). The heuristic prices
such a choice by the threat of every enemy in reach, though the enemies have already chosen whom they strike.
"""
from __future__ import annotations

import itertools

from typing import TYPE_CHECKING

from engine.core.battle import Battle
from engine.core.decision import Decision

from .heuristic import KILL_BONUS, HeuristicPolicy, tactics_for
from .intent import ATTACKS, MOVES, HeuristicIntent

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

GUARD_WEIGHT = 1.5  # of the unit's worth, per unit of chance taken off the planned attacks downing it
MAX_ATTACKS = 8  # planned attacks on one unit whose hits are counted together (2**8 outcomes)


def past_chance(attacks: list[tuple[float, float]], hp: int) -> float:
    """The chance that attacks, each (hit chance, expected damage), together deal more than hp, a hit dealing its
    mean damage (expected damage / hit chance)."""
    attacks = [(h, e / h) for h, e in attacks[:MAX_ATTACKS] if h > 0 and e > 0]
    total = 0.0
    for hits in itertools.product((False, True), repeat=len(attacks)):
        p, dealt = 1.0, 0.0
        for (h, mean), hit in zip(attacks, hits):
            p *= h if hit else 1.0 - h
            dealt += mean if hit else 0.0
        if dealt > hp:
            total += p
    return total


class AnticipatingPolicy(HeuristicPolicy):
    """The heuristic, which in a simultaneous phase scores its choices where the others' movements will leave them."""

    name = "anticipating"
    honours_tactics = True  # units' `tactics` (flee_below, prefer_targets), as the heuristic

    def __init__(self, seed: int | None = 0):
        super().__init__(seed)
        self._intent: dict[str, HeuristicIntent] = {}  # per ruleset id

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._intent = {}

    def _plans(self, enc: "Encounter", rs, a: "Unit") -> dict[int, list[Decision]]:
        """The heuristic's plans of the acting unit's enemies for this phase."""
        intent = self._intent.get(rs.id)
        if intent is None:
            intent = self._intent[rs.id] = HeuristicIntent(rs)
        return intent.plans(enc, a, [u for u in enc.units if u.side != a.side and u.active])

    def guarded(self, battle: "Battle", scored: list[tuple[Decision, float]]) -> list[tuple[Decision, float]]:
        """`scored` with each choice that takes effect before the phase's attacks land (`Ruleset.foresee`) raised by
        `GUARD_WEIGHT` x the unit's worth x the chance it takes off the enemies' planned attacks on the unit taking it
        past its hit points; unchanged outside a simultaneous phase or when no enemy plans to attack the unit."""
        enc, rs = battle.enc, battle.ruleset
        if not rs.simultaneous or rs.phases[enc.phase_index] not in rs.simultaneous or enc.anticipated:
            return scored
        tac = tactics_for(rs)
        kinds = [tac.kind(d) for d, _ in scored]
        if "misc" not in kinds:
            return scored
        a = enc.actor
        attacks = [(uid, d) for uid, ds in self._plans(enc, rs, a).items() for d in ds
                   if d.target == a.id and tac.kind(d) in ATTACKS]
        if not attacks:
            return scored

        def chance(e: "Encounter") -> float:
            ests = [rs.estimate(e, e.units[uid], d) for uid, d in attacks]
            return past_chance([(x.hit_chance, x.expected_damage) for x in ests], e.units[a.id].hp)

        now = chance(enc)
        if now <= 0:
            return scored
        worth = KILL_BONUS + 2.0 * max((rs.estimate(enc, a, d).expected_damage for (d, _), k in zip(scored, kinds)
                                        if k in ATTACKS), default=0.0)
        out = []
        sim = None  # a copy foresee has not changed (it changes one only when it returns True)
        for (d, v), k in zip(scored, kinds):
            if k == "misc":
                if sim is None:
                    sim = enc.clone()
                if rs.foresee(sim, sim.units[a.id], d):
                    v += GUARD_WEIGHT * worth * (now - chance(sim))
                    sim = None
            out.append((d, v))
        return out

    def anticipated(self, battle: "Battle") -> "Encounter | None":
        """A copy of the battle's encounter with the other units at the end of their movements this phase (the
        acting unit's side: committed; the enemies: the heuristic's plan), or None outside a simultaneous phase or
        when no other unit moves."""
        enc, rs = battle.enc, battle.ruleset
        if not rs.simultaneous or rs.phases[enc.phase_index] not in rs.simultaneous or enc.anticipated:
            return None
        a = enc.actor
        tac = tactics_for(rs)
        if not rs.economy.can_pay(rs.new_budget(enc, a), *tac.move_cost):
            return None  # a phase without movements (Rise's action phase): nobody plans one in it
        plans = self._plans(enc, rs, a)
        ends: dict[int, tuple[int, int]] = {}
        mine = [(uid, ds) for uid, ds in enc.pending.items() if enc.units[uid].side == a.side and uid != a.id]
        for uid, ds in mine + list(plans.items()):  # an enemy's hidden commitment is never read, only its plan
            for d in ds:
                if d.square is not None and tac.kind(d) in MOVES:
                    ends[uid] = d.square
        ends = {uid: sq for uid, sq in ends.items() if sq != enc.units[uid].pos}
        if not ends:
            return None
        sim = enc.clone()
        for uid, sq in ends.items():
            sim.units[uid].pos = sq
        sim.anticipated = True
        return sim

    def _scores(self, battle: "Battle", prune: bool = False, best: bool = False) -> list[tuple[Decision, float]]:
        sim = self.anticipated(battle)
        scored = None
        if sim is not None:
            legal = set(battle.legal())  # a square another unit will have left is still taken now
            scored = [x for x in super()._scores(Battle(sim, battle.ruleset, battle.dice), prune) if x[0] in legal]
        return self.guarded(battle, scored or super()._scores(battle, prune, best))
