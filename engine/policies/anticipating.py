"""The anticipating heuristic: the heuristic, planning a simultaneous phase against where it will leave the others.

In a simultaneous phase (Rise) every creature chooses against the state the phase began with, and then all move
together: the plain heuristic places a creature by where the others stand now. This one scores the same decisions
on a copy of the battle in which the others stand where the phase will take them: its own side's creatures where
their committed movements end (a side knows what it decided), the enemies where the heuristic's plan for each ends
(`engine.policies.intent`, a model of the other side: against a heuristic it is what the enemy commits, against
people a guess). The copy is marked `Encounter.anticipated`, so that a ruleset's square values do not count the
others' movements a second time (Rise's movement-phase threat). Outside simultaneous phases, in a phase without
movements (Rise's action phase) or when nobody else moves, it is the heuristic itself.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.battle import Battle
from engine.core.decision import Decision

from .heuristic import HeuristicPolicy, tactics_for
from .intent import MOVES, HeuristicIntent

if TYPE_CHECKING:
    from engine.core.state import Encounter


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
        intent = self._intent.get(rs.id)
        if intent is None:
            intent = self._intent[rs.id] = HeuristicIntent(rs)
        plans = intent.plans(enc, a, [u for u in enc.units if u.side != a.side and u.active])
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
        if sim is None:
            return super()._scores(battle, prune, best)
        legal = set(battle.legal())  # a square another unit will have left is still taken now
        scored = [x for x in super()._scores(Battle(sim, battle.ruleset, battle.dice), prune) if x[0] in legal]
        return scored or super()._scores(battle, prune, best)
