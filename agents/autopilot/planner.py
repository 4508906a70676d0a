"""Plan the acting unit's whole turn without touching the real state (for `tactician suggest`).

The plan is played on a clone with simulated (seeded) dice. Every decision after the first one that
rolled dice is marked `depends_on_roll`: the GM should ask again once the table has rolled.

The plan's JSON shape is `FORMAT` version `VERSION` (the README's `tactician suggest` section shows it): every
decision entry has the same keys, a decision is always {action, target, square, option} (null where unused) and
an estimate is an object or null (the ruleset has none for that decision).
"""
from __future__ import annotations

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import Dice, SeededDice
from engine.core.narration import narrate_events
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter

from .chooser import Chooser, estimate_of
from .words import command_for

FORMAT, VERSION = "tactician-suggest", 1


class CountingDice(Dice):
    """Wraps a Dice and counts the faces asked for."""

    def __init__(self, inner: Dice):
        self.inner, self.count = inner, 0

    def face(self, sides: int, why: str) -> int:
        self.count += 1
        return self.inner.face(sides, why)


def decision_json(d: Decision) -> dict:
    """A decision with every key, null where unused: {action, target, square, option}."""
    return {"action": d.action, "target": d.target, "square": list(d.square) if d.square is not None else None,
            "option": d.option}


def plan_turn(enc: Encounter, ruleset: Ruleset, chooser: Chooser, seed: int | None = 0, explain: bool = False,
              alternatives: int = 4, max_decisions: int = 60, policy: str | None = None) -> dict:
    """The acting unit's turn as a JSON-able dict (`FORMAT`, `VERSION`): the actor, and its decisions in order,
    each with its command, estimate and narration; with `explain` also its probability, the tactics applied and
    the alternatives (each with its probability and estimate). `policy` is recorded as given."""
    if enc.over:
        raise ValueError(f"the battle is over ({enc.winner})")
    work = enc.clone()
    for k in [k for k in work.__dict__ if k.startswith("_") and "cache" in k]:
        work.__dict__.pop(k, None)
    dice = CountingDice(SeededDice(seed))
    battle = Battle(work, ruleset, dice)
    actor = work.actor
    if actor is None:
        raise ValueError("nobody is acting in this state")
    key = (work.round, work.turn, work.phase_index)
    out = {"format": FORMAT, "version": VERSION, "policy": policy,
           "actor": {"id": actor.id, "name": actor.name, "side": actor.side}, "round": work.round,
           "budget": dict(work.budget), "depends_on_roll": False, "decisions": []}
    rolled = False
    for _ in range(max_decisions):
        if work.over or (work.round, work.turn, work.phase_index) != key or work.actor_id != actor.id:
            break
        prop = chooser.propose(battle)
        d = prop.decision
        entry = {"decision": decision_json(d), "command": command_for(d, work, ruleset),
                 "text": ruleset.describe(d, work), "depends_on_roll": rolled,
                 "estimate": _estimate_json(prop.estimate)}
        if explain:
            entry["probability"] = round(prop.prob, 4)
            entry["tactics"] = list(prop.notes)
            entry["alternatives"] = [{"decision": decision_json(a), "command": command_for(a, work, ruleset),
                                      "probability": round(p, 4), "estimate": _estimate_json(estimate_of(battle, a))}
                                     for a, p in prop.alternatives(alternatives)]
        before = dice.count
        events = battle.step(d)
        mine = [e for e in events if e.kind not in ("turn_start", "round_start", "initiative")]
        entry["narration"] = narrate_events(mine, work, ruleset)
        entry["rolls"] = dice.count - before
        out["decisions"].append(entry)
        rolled = rolled or dice.count > before
        if d.action == "end_turn":
            break
    out["depends_on_roll"] = rolled
    return out


def _estimate_json(est) -> dict | None:
    return None if est is None else est.to_dict()
