"""The turn loop: initiative, rounds, phases, the action budget, start/end-of-turn effects, victory.

`Battle` drives an `Encounter` with a `Ruleset` and a `Dice`. It is ruleset-neutral: sequential turns
(Saga, 5e-style, starship) and phased rounds with simultaneous phases (Rise) run through the same code.
"""
from __future__ import annotations

from typing import Iterable

from .decision import END, Decision
from .dice import Dice
from .errors import IllegalAction, InputError
from .events import Event, new_event
from .ruleset import React, Ruleset
from .state import Encounter


class Battle:
    """A battle in progress. `legal()` is the one source of legality; `step()` refuses anything else."""

    def __init__(self, enc: Encounter, ruleset: Ruleset, dice: Dice, react: React | None = None):
        if enc.ruleset != ruleset.id:
            raise InputError(f"the encounter is for ruleset '{enc.ruleset}', not '{ruleset.id}'", "ruleset",
                             f"load it with the '{enc.ruleset}' ruleset")
        if not 0 <= enc.phase_index < len(ruleset.phases):
            raise InputError(f"phase {enc.phase_index} does not exist in {ruleset.name} "
                             f"(phases: {', '.join(ruleset.phases)})", "phase_index", "save the state again")
        self.enc, self.ruleset, self.dice, self.react = enc, ruleset, dice, react
        self._legal_version = -1
        self._legal: list[Decision] = []
        self._witnesses = (0, 0)  # indices of two active units of different sides (`_check_victory`)
        # the ruleset's turn structure (class attributes, which the interpreter looks up slowly on an instance)
        self._phases, self._simultaneous = ruleset.phases, ruleset.simultaneous

    # ---- setup --------------------------------------------------------------------------------------
    def start(self, initiative: dict[int, int] | None = None) -> list[Event]:
        """Roll (or take the GM's) initiative and begin round 1."""
        enc, rs = self.enc, self.ruleset
        events: list[Event] = []
        for u in enc.units:
            if initiative is not None and u.id in initiative:
                enc.initiative[u.id] = int(initiative[u.id])
            else:
                face = self.dice.d20(f"{u.name}'s initiative")
                enc.initiative[u.id] = face + rs.initiative_bonus(u)
            events.append(Event("initiative", u.id, value=enc.initiative[u.id]))
        enc.order = sorted(range(len(enc.units)),
                           key=lambda i: (-enc.initiative[i], -rs.initiative_bonus(enc.units[i]), i))
        enc.round, enc.turn, enc.phase_index = 1, 0, 0
        events += rs.start_round(enc, self.dice)
        events += self._begin_turn(first=True)
        return events

    # ---- queries ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.enc.winner is not None  # `enc.over`, one property call less (the env loops ask often)

    @property
    def actor(self):
        return self.enc.actor

    @property
    def phase(self) -> str:
        return self._phases[self.enc.phase_index]

    def legal(self) -> list[Decision]:
        """Every decision the acting unit may take now (cached until the state changes)."""
        enc = self.enc
        if self._legal_version != enc.version:
            actor = enc.actor
            self._legal = [] if actor is None else self.ruleset.legal_actions(enc, actor)
            self._legal_version = enc.version
        return self._legal

    def is_legal(self, decision: Decision) -> bool:
        # a list scan, not a set: the decision is usually one of the list's own (interned) objects, found by
        # identity, and hashing every legal decision of every state would cost more
        return decision in self.legal()

    # ---- play ---------------------------------------------------------------------------------------
    def step(self, decision: Decision) -> list[Event]:
        """Apply one decision of the acting unit; raises IllegalAction (state unchanged) if not legal."""
        enc, rs = self.enc, self.ruleset
        if enc.winner is not None:
            raise IllegalAction(f"the battle is over ({enc.winner} won)" if enc.winner != "draw"
                                else "the battle is over (a draw)")
        if not self.is_legal(decision):
            raise IllegalAction(rs.why_illegal(enc, enc.actor, decision))
        actor = enc.units[enc.order[enc.turn]]  # there is one: something is legal
        enc.version += 1
        if decision == END:
            return self._end_turn()
        if self._simultaneous and self._phases[enc.phase_index] in self._simultaneous:
            events = self._commit(actor, decision)
        else:
            events = rs.apply(enc, actor, decision, self.dice, self.react)
        events += self._check_victory()
        if enc.winner is not None:
            return events
        if not rs.can_act(enc, actor):
            events += self._end_turn()
        else:
            legal = self.legal()
            if len(legal) == 1 and legal[0] == END:
                events += self._end_turn()
        return events

    def play(self, decisions: Iterable[Decision]) -> list[Event]:
        events: list[Event] = []
        for d in decisions:
            events += self.step(d)
        return events

    # ---- internals ----------------------------------------------------------------------------------
    def _commit(self, actor, decision: Decision) -> list[Event]:
        return self.ruleset.commit(self.enc, actor, decision)

    def _begin_turn(self, first: bool = False) -> list[Event]:
        """Start the turn of the unit at `enc.turn`, skipping those that cannot act."""
        enc, rs, phases = self.enc, self.ruleset, self._phases
        events: list[Event] = []
        for _ in range(len(enc.order) * (len(phases) + 1) * 2 + 2):
            if enc.winner is not None:
                return events
            unit = enc.units[enc.order[enc.turn]]
            if rs.can_act(enc, unit):
                enc.version += 1  # a new actor: legal() cached for the previous one is stale
                enc.budget = rs.new_budget(enc, unit)
                enc.flags = {}
                events.append(new_event("turn_start", unit.id, None, {"round": enc.round,
                                                                      "phase": phases[enc.phase_index]}))
                events += rs.start_turn(enc, unit, self.dice)
                events += self._check_victory()
                if enc.winner is None and rs.can_act(enc, unit):
                    return events
            events += self._advance()
        return events

    def _end_turn(self) -> list[Event]:
        enc, rs = self.enc, self.ruleset
        actor = enc.units[enc.order[enc.turn]]  # called on a turn in progress
        events = [new_event("turn_end", actor.id, None, {})]
        events += rs.end_turn(enc, actor, self.dice)
        events += self._check_victory()
        if enc.winner is not None:
            return events
        events += self._advance()
        events += self._begin_turn()
        return events

    def _advance(self) -> list[Event]:
        """Move `turn` to the next slot of the order; close phases and rounds on the way."""
        enc, rs = self.enc, self.ruleset
        enc.turn += 1
        if enc.turn < len(enc.order):
            return []
        events: list[Event] = []
        enc.turn = 0
        phase = self.phase
        if phase in self._simultaneous and enc.pending:
            pending, enc.pending = enc.pending, {}
            events.append(Event("phase_resolves", None, phase=phase))
            events += rs.resolve_simultaneous(enc, phase, pending, self.dice, self.react)
            events += self._check_victory()
            if enc.winner is not None:
                return events
        enc.phase_index += 1
        if enc.phase_index >= len(self._phases):
            enc.phase_index = 0
            enc.round += 1
            if enc.round > enc.round_limit and not enc.over:
                enc.winner = "draw"
                events.append(Event("round_limit", None, rounds=enc.round_limit))
                return events
            events.append(Event("round_start", None, round=enc.round))
            events += rs.start_round(enc, self.dice)
        return events

    def _check_victory(self) -> list[Event]:
        enc = self.enc
        if enc.winner is not None:
            return []
        units = enc.units
        i, j = self._witnesses
        if j < len(units):  # the two active units of two sides found last time, most often both still are
            a, b = units[i], units[j]
            if not a.down and not b.down and a.side != b.side:
                return []
        first = None
        for j, u in enumerate(units):  # stops at the second side with an active unit: the common case, cheaply
            if not u.down:
                if first is None:
                    first, i = u.side, j
                elif u.side != first:
                    self._witnesses = (i, j)
                    return []
        enc.winner = "draw" if first is None else first
        return [Event("victory", None, winner=enc.winner, round=enc.round)]
