"""What the heuristic would have a unit do now: the tactician's model of another unit's next choices.

A plan is made on a copy of the battle with the unit as the acting one, its budget fresh, played by the heuristic
(its tie-breaking jitter restarted, so the plan depends on the state alone) until it would end its turn; no dice of
the real battle are rolled and the battle is not touched. In a simultaneous phase (Rise) every choice is made
against the state the phase began with, so the plan is what a heuristic unit commits in this phase (its hidden
choice is never read: the copy drops it); in sequential turns it is what the unit would do if its turn came now.
Against other players (people at the table, other policies) it is the guess of a sensible player.

Used by the observation's intent block (`envs/intent.py`) and by the anticipating heuristic
(`engine/policies/anticipating.py`).
"""
from __future__ import annotations

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import SeededDice
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

MAX_DECISIONS = 4  # of one unit's plan (a phase or turn rarely holds more than three)
MOVES = ("move", "withdraw", "run")  # the tactics' kinds of decision that end on another square
ATTACKS = ("attack", "charge")  # the tactics' kinds of decision that attack a target


class HeuristicIntent:
    """The heuristic's plans for the units of one ruleset, kept while what they depend on stays the same."""

    def __init__(self, ruleset: Ruleset):
        from .heuristic import HeuristicPolicy

        self.ruleset = ruleset
        self.heuristic = HeuristicPolicy(0)
        self._key: tuple | None = None
        self._kept: dict[int, list[Decision]] = {}

    def plan(self, enc: Encounter, unit: Unit) -> list[Decision]:
        """The heuristic's decisions for `unit` if it acted now (empty if it would only end its turn)."""
        rs = self.ruleset
        if enc.over or not rs.can_act(enc, unit):
            return []
        sim = enc.clone()
        sim.pending.pop(unit.id, None)
        sim.turn = sim.order.index(unit.id)
        u = sim.units[unit.id]
        sim.version += 1
        sim.budget = rs.new_budget(sim, u)
        sim.flags = {}
        dice = SeededDice(0)
        rs.start_turn(sim, u, dice)
        if sim.over or not rs.can_act(sim, u):
            return []
        b = Battle(sim, rs, dice)
        out: list[Decision] = []
        heur = self.heuristic
        while len(out) < MAX_DECISIONS and sim.winner is None and sim.actor is u:
            d = max(heur.scores(b, seed=0), key=lambda x: x[1])[0]
            if d == END:
                break
            out.append(d)
            b.step(d)
        return out

    def plans(self, enc: Encounter, actor: Unit, units: list[Unit]) -> dict[int, list[Decision]]:
        """The plans of `units` (by id) at the acting unit's decision, made again only when what they depend on
        changes. In a simultaneous phase the state stays the phase's start until it resolves (choices are hidden):
        once a phase. In sequential turns once a turn of the acting unit, and again when hit points change (its
        attacks) or another unit's square (a GM's correction); its own moves in its turn do not make them again. The
        key holds the encounter itself, so that its id is not reused by another while the plans are kept."""
        rs = self.ruleset
        if rs.phases[enc.phase_index] in rs.simultaneous:
            key = (enc, enc.round, enc.phase_index, None, tuple((u.hp, u.pos) for u in enc.units))
        else:
            key = (enc, enc.round, enc.phase_index, enc.turn,
                   tuple((u.hp, None if u is actor else u.pos) for u in enc.units))
        old = self._key
        if old is None or key[0] is not old[0] or key[1:] != old[1:]:
            self._key, self._kept = key, {}
        got = self._kept
        for u in units:
            if u.id not in got:
                got[u.id] = self.plan(enc, u)
        return got
