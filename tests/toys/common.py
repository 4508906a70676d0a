"""Shared pieces of the toy rulesets: tiny stat blocks, unit building, a d20 strike and its estimates, walking with
reactions.

Toy rulesets exist to prove the core carries every turn structure the real rulesets need; their rules
are deliberately small. Each `toy_*.py` module registers its ruleset on import (tests/conftest.py
imports them, so the conformance suite covers them too).
"""
from __future__ import annotations

import yaml

from engine.core.decision import END, Decision
from engine.core.dice import Dice, parse_dice
from engine.core.errors import InputError
from engine.core.events import Event
from engine.core.grid import Grid
from engine.core.ruleset import ActionSpec, Estimate, Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

STAT_KEYS = {"hp": int, "speed": int, "attack": int, "defense": int, "damage": str, "reach": int,
             "range": int, "initiative": int}
UNIT_KEYS = {"name", "side", "template", "at", "tactics"}


def catalogue(*specs: dict) -> dict[str, ActionSpec]:
    out = {"end_turn": ActionSpec("end_turn", "End turn", "free")}
    for d in specs:
        out[d["key"]] = ActionSpec.from_dict(d, f"toy action {d['key']}")
    return out


def hit_chance(attack: int, defense: int) -> float:
    """P(d20 + attack >= defense), a natural 20 always hitting and a natural 1 always missing."""
    return sum(1 for face in range(2, 20) if face + attack >= defense) / 20 + 1 / 20


def at_least(expr, hp: int) -> float:
    """P(a roll of the dice expression >= hp)."""
    ways = {expr.bonus: 1}
    for _ in range(expr.count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, expr.sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    return sum(n for total, n in ways.items() if total >= hp) / sum(ways.values())


class ToyRuleset(Ruleset):
    """Base of the toys: stat blocks of STAT_KEYS, d20 + attack vs defense, damage dice, down at 0 HP."""

    metric = "chebyshev"
    sides = ("pcs", "npcs")
    TEMPLATES: dict[str, dict] = {}
    STRIKES: dict[str, int] = {}  # per attack action, the strikes it makes (for `estimate`)

    def templates(self) -> dict[str, dict]:
        return self.TEMPLATES

    def make_unit(self, uid: int, spec: dict, where: str) -> Unit:
        stats = dict(self.TEMPLATES.get(spec.get("template") or "", {}))
        if spec.get("template") and spec["template"] not in self.TEMPLATES:
            raise InputError(f"unknown template '{spec['template']}'", where,
                             f"{self.name} templates: {', '.join(sorted(self.TEMPLATES))}")
        for k, v in spec.items():
            if k in UNIT_KEYS:
                continue
            if k not in STAT_KEYS:
                raise InputError(f"unknown stat '{k}'", where, f"stats: {', '.join(STAT_KEYS)}")
            if not isinstance(v, STAT_KEYS[k]) or isinstance(v, bool):
                raise InputError(f"'{k}' must be a {STAT_KEYS[k].__name__}", where)
            stats[k] = v
        missing = set(STAT_KEYS) - set(stats)
        if missing:
            raise InputError(f"missing stat(s) {sorted(missing)}", where, "use a template or give them all")
        parse_dice(stats["damage"])
        return Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), stats["hp"], stats["hp"], stats,
                    spec.get("template") or "", self.initial_state(stats), spec.get("tactics") or {})

    def initial_state(self, stats: dict) -> dict:
        return {}

    def initiative_bonus(self, unit: Unit) -> int:
        return unit.stats["initiative"]

    # ---- estimates --------------------------------------------------------------------------------------
    def can_strike(self, enc: Encounter, a: Unit, t: Unit) -> bool:
        """Whether a can strike t from where it stands: in reach, or within range with a line of effect."""
        return self.in_reach(enc, a, t) or (a.stats["range"] > 0 and self.in_range(enc, a, t))

    def estimate(self, enc: Encounter, a: Unit, d: Decision) -> Estimate:
        """An attack action's `STRIKES` strikes on its target: hit chance of any, expected damage, kill chance (a
        single strike's damage reaching the hit points)."""
        n = self.STRIKES.get(d.action, 0)
        if not n or d.target is None:
            return Estimate()
        t = enc.units[d.target]
        p = hit_chance(a.stats["attack"], t.stats["defense"])
        expr = parse_dice(a.stats["damage"])
        kill = p * at_least(expr, t.hp)
        return Estimate(1 - (1 - p) ** n, n * p * expr.mean, 1 - (1 - kill) ** n)

    def threat_estimate(self, enc: Encounter, a: Unit, t: Unit) -> tuple[float, float]:
        if not a.active or not self.can_strike(enc, a, t):
            return 0.0, 0.0
        p = hit_chance(a.stats["attack"], t.stats["defense"])
        return p, p * parse_dice(a.stats["damage"]).mean

    # ---- helpers ---------------------------------------------------------------------------------------
    def enemy_squares(self, enc: Encounter, a: Unit) -> list[int]:
        return [enc.grid.index(*u.pos) for u in enc.enemies(a)]

    def ally_squares(self, enc: Encounter, a: Unit) -> list[int]:
        return [enc.grid.index(*u.pos) for u in enc.allies(a)]

    def in_reach(self, enc: Encounter, a: Unit, t: Unit, pos=None) -> bool:
        return enc.grid.distance(pos or a.pos, t.pos) <= a.stats["reach"]

    def in_range(self, enc: Encounter, a: Unit, t: Unit) -> bool:
        g = enc.grid
        return g.distance(a.pos, t.pos) <= a.stats["range"] and g.line_of_effect(a.pos, t.pos)

    def move_squares(self, enc: Encounter, a: Unit, squares: int) -> dict[int, int]:
        r = enc.grid.reachable(a.pos, squares, self.enemy_squares(enc, a), self.ally_squares(enc, a))
        r.pop(enc.grid.index(*a.pos), None)
        return r

    def strike(self, enc: Encounter, a: Unit, t: Unit, dice: Dice, why: str = "strike") -> list[Event]:
        """d20 + attack vs defense; a hit deals the damage dice; 0 HP or less: down."""
        face = dice.d20(f"{a.name}'s {why} on {t.name}")
        total = face + a.stats["attack"]
        hit = face == 20 or (face != 1 and total >= t.stats["defense"])
        ev = [Event("attack", a.id, t.id, face=face, total=total, defense=t.stats["defense"], hit=hit, why=why)]
        if hit:
            amount, faces = dice.roll(parse_dice(a.stats["damage"]), f"{a.name}'s damage on {t.name}")
            ev += self.damage(enc, a, t, amount)
        return ev

    def damage(self, enc: Encounter, a: Unit, t: Unit, amount: int) -> list[Event]:
        t.hp -= amount
        ev = [Event("damage", a.id, t.id, amount=amount, hp=t.hp)]
        if t.hp <= 0 and not t.down:
            t.down = True
            ev.append(Event("down", a.id, t.id))
        return ev


def build(ruleset: Ruleset, rows: list[str], units: list[dict], round_limit: int = 20) -> Encounter:
    """An encounter from map rows and unit entries, through the real encounter-file parser."""
    from engine.core.encounter_file import parse_encounter

    text = yaml.safe_dump({"ruleset": ruleset.id, "map": "\n".join(rows) + "\n", "units": units,
                           "round_limit": round_limit}, sort_keys=False)
    return parse_encounter(text, "toy", ruleset)


def squares_of(legal: list[Decision], action: str) -> set[tuple[int, int]]:
    return {d.square for d in legal if d.action == action}


def targets_of(legal: list[Decision], action: str) -> set[int]:
    return {d.target for d in legal if d.action == action}


__all__ = ["END", "ToyRuleset", "build", "catalogue", "squares_of", "targets_of", "Decision", "Event"]
