"""A 5e-style turn: movement in feet (split before and after the Action), one Action, one Bonus Action,
one free object interaction (a second one costs the Action), and one Reaction per round, spent on an
opportunity attack when an enemy leaves reach and refreshed at the start of the unit's own turn."""
from __future__ import annotations

from engine.core.economy import Economy
from engine.core.reaction import DECLINE, Trigger, ask_reaction
from engine.core.ruleset import Cost
from engine.rulesets import register

from .common import END, Decision, Event, ToyRuleset, catalogue

FEET = 5


class Toy5e(ToyRuleset):
    id = "toy_5e"
    name = "Toy 5e-style turn"
    env_name = "Toy5e"
    economy = Economy(slots={"action": 1, "bonus": 1, "object": 1, "feet": 30},
                      trades={"object": ("object", "action")})
    catalogue = catalogue(
        {"key": "move", "name": "Move", "cost": "feet", "target": "square"},
        {"key": "attack", "name": "Attack", "cost": "action", "target": "enemy"},
        {"key": "dash", "name": "Dash", "cost": "action"},
        {"key": "disengage", "name": "Disengage", "cost": "action"},
        {"key": "offhand", "name": "Off-hand attack", "cost": "bonus", "target": "enemy"},
        {"key": "interact", "name": "Draw or stow a weapon", "cost": "object"},
    )
    STRIKES = {"attack": 1, "offhand": 1}
    TEMPLATES = {
        "fighter": {"hp": 12, "speed": 6, "attack": 5, "defense": 15, "damage": "1d8+3", "reach": 1, "range": 0,
                    "initiative": 1},
        "goblin": {"hp": 7, "speed": 6, "attack": 4, "defense": 13, "damage": "1d6+2", "reach": 1, "range": 0,
                   "initiative": 2},
    }

    def initial_state(self, stats: dict) -> dict:
        return {"reaction": True, "drawn": True}

    def new_budget(self, enc, unit):
        return self.economy.new_budget(feet=unit.stats["speed"] * FEET)

    def start_turn(self, enc, unit, dice):
        unit.state["reaction"] = True
        return []

    def effective_cost(self, enc, a, d):
        """A move spends the feet of its walk (`_walk`)."""
        if d.action == "move":
            path, _ = self._walk(enc, a, d.square)
            return Cost("feet", FEET * enc.grid.path_cost(a.pos, path))
        return super().effective_cost(enc, a, d)

    def budget_after(self, enc, a, d):
        """A Dash adds a move's feet to what is left."""
        left = super().budget_after(enc, a, d)
        if d.action == "dash":
            left["feet"] += a.stats["speed"] * FEET
        return left

    def can_strike(self, enc, a, t):
        return a.state["drawn"] and super().can_strike(enc, a, t)

    def legal_actions(self, enc, a):
        out = [END]
        if not a.active:
            return out
        b, econ, g = enc.budget, self.economy, enc.grid
        if b["feet"] >= FEET:
            for i in self.move_squares(enc, a, b["feet"] // FEET):
                out.append(Decision("move", square=g.xy(i)))
        foes = [e for e in enc.enemies(a) if self.in_reach(enc, a, e)] if a.state["drawn"] else []
        if b["action"]:
            out += [Decision("attack", e.id) for e in foes]
            out += [Decision("dash"), Decision("disengage")]
        if b["bonus"] and enc.flags.get("attacked"):
            out += [Decision("offhand", e.id) for e in foes]
        if econ.can_pay(b, "object"):
            out.append(Decision("interact"))
        return out

    def why_illegal(self, enc, a, d):
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not an action of {self.name}"
        b = enc.budget
        if d.action == "move":
            return f"{d.square} is not reachable with the {b['feet']} feet of movement {a.name} has left"
        if spec.cost in ("action", "bonus") and not b[spec.cost]:
            return f"{a.name} has already used its {spec.cost.replace('_', ' ')} this turn"
        if d.action == "offhand":
            return "an off-hand attack needs the Attack action first, and a target in reach"
        return f"{spec.name} is not possible for {a.name} right now (target out of reach or not an enemy)"

    def apply(self, enc, a, d, dice, react=None):
        spec = self.catalogue[d.action]
        ev = [Event("action", a.id, d.target, action=d.action, square=d.square)]
        if d.action == "move":
            return ev + self._move(enc, a, d.square, dice, react)
        self.economy.pay(enc.budget, spec.cost)
        if d.action in ("attack", "offhand"):
            enc.flags["attacked"] = True
            ev += self.strike(enc, a, enc.units[d.target], dice, spec.name.lower())
        elif d.action == "dash":
            enc.budget["feet"] += a.stats["speed"] * FEET
        elif d.action == "disengage":
            enc.flags["disengaged"] = True
        elif d.action == "interact":
            a.state["drawn"] = not a.state["drawn"]
        return ev

    def _walk(self, enc, a, goal):
        """(the squares a walks to goal, avoiding the reach of enemies that can still react where it can; those
        enemies)."""
        g = enc.grid
        safe = enc.flags.get("disengaged")
        watchers = [] if safe else [e for e in enc.enemies(a) if e.state["reaction"] and e.state["drawn"]]
        danger = {g.index(x, y): 1 for e in watchers for (x, y) in g.within(e.pos, e.stats["reach"])}
        return g.path(a.pos, goal, enc.budget["feet"] // FEET, self.enemy_squares(enc, a), danger), watchers

    def legal_reactions(self, enc, unit, trigger):
        """An opportunity attack on the provoker while the unit has its reaction (then DECLINE)."""
        if not (unit.active and unit.state["reaction"] and enc.units[trigger.provoker].active):
            return []
        return [Decision("opportunity_attack", trigger.provoker), DECLINE]

    def _move(self, enc, a, goal, dice, react):
        g = enc.grid
        path, watchers = self._walk(enc, a, goal)
        self.economy.pay(enc.budget, "feet", amount=g.path_cost(a.pos, path) * FEET)
        ev = []
        for sq in path:
            for e in watchers:
                reach = e.stats["reach"]
                leaves = g.distance(e.pos, a.pos) <= reach < g.distance(e.pos, sq)
                trigger = Trigger("opportunity_attack", a.id, "leaving reach")
                if leaves and ask_reaction(self, enc, e, trigger, react) is not None:
                    e.state["reaction"] = False
                    ev.append(Event("provoked", a.id, e.id))
                    ev += self.strike(enc, e, a, dice, "opportunity attack")
            if not a.active:
                return ev
            a.pos = sq
        ev.append(Event("moved", a.id, square=a.pos))
        return ev


RULESET = Toy5e()
register(RULESET)
