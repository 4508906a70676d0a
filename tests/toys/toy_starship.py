"""A starship turn: two move actions and one attack action in any order, or one full-round action (only
when nothing was spent); a 500-ft shift (one square) only if the ship moved no distance this turn."""
from __future__ import annotations

from engine.core.economy import Economy
from engine.core.grid import DIRECTIONS
from engine.rulesets import register

from .common import END, Decision, Event, ToyRuleset, catalogue


class ToyStarship(ToyRuleset):
    id = "toy_starship"
    name = "Toy starship turn"
    env_name = "ToyStarship"
    economy = Economy(slots={"move": 2, "attack": 1, "shift": 1}, full_round="full_round",
                      full_round_needs=("move", "attack"))
    catalogue = catalogue(
        {"key": "move", "name": "Move", "cost": "move", "target": "square"},
        {"key": "damage_control", "name": "Damage control", "cost": "move"},
        {"key": "fire", "name": "Fire", "cost": "attack", "target": "enemy"},
        {"key": "shift", "name": "500-ft shift", "cost": "shift", "target": "square"},
        {"key": "broadside", "name": "Broadside", "cost": "full_round", "target": "enemy"},
        {"key": "surge", "name": "Surge forward", "cost": "full_round", "target": "square"},
    )
    STRIKES = {"fire": 1, "broadside": 2}
    TEMPLATES = {
        "fighter": {"hp": 10, "speed": 3, "attack": 4, "defense": 14, "damage": "2d6", "reach": 0, "range": 6,
                    "initiative": 3},
        "corvette": {"hp": 18, "speed": 2, "attack": 2, "defense": 11, "damage": "3d6", "reach": 0, "range": 8,
                     "initiative": 0},
    }

    def legal_actions(self, enc, a):
        out = [END]
        if not a.active:
            return out
        b, econ, g, f = enc.budget, self.economy, enc.grid, enc.flags
        targets = [e for e in enc.enemies(a) if self.in_range(enc, a, e)]
        if b["move"] and not f.get("shifted"):
            out += [Decision("move", square=g.xy(i)) for i in self.move_squares(enc, a, a.stats["speed"])]
        if b["move"] and a.hp < a.max_hp:
            out.append(Decision("damage_control"))
        if b["attack"]:
            out += [Decision("fire", e.id) for e in targets]
        if b["shift"] and not f.get("moved"):
            out += [Decision("shift", square=g.xy(i)) for i in self.move_squares(enc, a, 1)]
        if econ.can_pay(b, "full_round"):
            out += [Decision("broadside", e.id) for e in targets]
            if not f.get("shifted"):
                out += [Decision("surge", square=sq) for sq in self._surge_squares(enc, a)]
        return out

    def _surge_squares(self, enc, a):
        g, occupied = enc.grid, enc.occupied()
        out = []
        for d in DIRECTIONS:
            for sq in g.ray(a.pos, d, 4 * a.stats["speed"]):
                if not g.passable(g.index(*sq)) or sq in occupied:
                    break
                out.append(sq)
        return out

    def why_illegal(self, enc, a, d):
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not a starship action"
        f, b = enc.flags, enc.budget
        if d.action == "shift" and f.get("moved"):
            return f"{a.name} moved this turn, so it cannot take a 500-ft shift"
        if d.action in ("move", "surge") and f.get("shifted"):
            return f"{a.name} took a 500-ft shift this turn, so it cannot also move"
        if spec.cost == "full_round" and not self.economy.can_pay(b, "full_round"):
            return f"{spec.name} is a full-round action and {a.name} has already acted this turn"
        if not self.economy.can_pay(b, spec.cost):
            return f"{spec.name} needs a {spec.cost} action; {a.name} has {self.economy.describe(b)} left"
        return f"{spec.name} is not possible for {a.name} there (out of range, blocked or occupied)"

    def apply(self, enc, a, d, dice, react=None):
        spec = self.catalogue[d.action]
        paid = self.economy.pay(enc.budget, spec.cost)
        ev = [Event("action", a.id, d.target, action=d.action, square=d.square, paid=paid)]
        if d.action in ("move", "surge"):
            enc.flags["moved"] = True
            a.pos = d.square
            ev.append(Event("moved", a.id, square=a.pos))
        elif d.action == "shift":
            enc.flags["shifted"] = True
            a.pos = d.square
            ev.append(Event("moved", a.id, square=a.pos, shift=True))
        elif d.action == "damage_control":
            a.hp = min(a.max_hp, a.hp + 2)
            ev.append(Event("healed", a.id, amount=2))
        elif d.action == "fire":
            ev += self.strike(enc, a, enc.units[d.target], dice, "shot")
        elif d.action == "broadside":
            t = enc.units[d.target]
            for _ in range(2):
                if t.active:
                    ev += self.strike(enc, a, t, dice, "broadside")
        return ev


RULESET = ToyStarship()
register(RULESET)
