"""Rise-style rounds: a movement phase (each creature moves in initiative order, seeing the others), then
an action phase in which every creature commits its action without seeing the others' choices and all
results land together when the phase ends (two creatures can kill each other)."""
from __future__ import annotations

from engine.core.economy import Economy
from engine.rulesets import register

from .common import END, Decision, Event, ToyRuleset, catalogue


class ToyRise(ToyRuleset):
    id = "toy_rise"
    name = "Toy Rise rounds"
    env_name = "ToyRise"
    phases = ("movement", "action")
    simultaneous = frozenset({"action"})
    economy = Economy(slots={"move": 1, "action": 1})
    catalogue = catalogue(
        {"key": "move", "name": "Move", "cost": "move", "target": "square"},
        {"key": "strike", "name": "Melee strike", "cost": "action", "target": "enemy"},
        {"key": "shoot", "name": "Projectile strike", "cost": "action", "target": "enemy"},
        {"key": "recover", "name": "Recover", "cost": "action"},
    )
    STRIKES = {"strike": 1, "shoot": 1}
    TEMPLATES = {
        "warrior": {"hp": 10, "speed": 5, "attack": 4, "defense": 13, "damage": "1d8+2", "reach": 1, "range": 0,
                    "initiative": 1},
        "archer": {"hp": 8, "speed": 6, "attack": 3, "defense": 12, "damage": "1d6+1", "reach": 1, "range": 8,
                   "initiative": 2},
    }

    def new_budget(self, enc, unit):
        phase = self.phases[enc.phase_index]
        return self.economy.new_budget(move=int(phase == "movement"), action=int(phase == "action"))

    def budget_after(self, enc, a, d):
        """The movement phase is followed by the action phase of the same round: its action is still to come."""
        if self.phases[enc.phase_index] == "movement":
            return self.economy.new_budget(move=0, action=1)
        return super().budget_after(enc, a, d)

    def legal_actions(self, enc, a):
        out = [END]
        if not a.active:
            return out
        b, g = enc.budget, enc.grid
        if b["move"]:
            out += [Decision("move", square=g.xy(i)) for i in self.move_squares(enc, a, a.stats["speed"])]
        if b["action"]:
            for e in enc.enemies(a):
                if self.in_reach(enc, a, e):
                    out.append(Decision("strike", e.id))
                if a.stats["range"] and self.in_range(enc, a, e):
                    out.append(Decision("shoot", e.id))
            if a.hp < a.max_hp:
                out.append(Decision("recover"))
        return out

    def why_illegal(self, enc, a, d):
        spec = self.catalogue.get(d.action)
        if spec is None:
            return f"'{d.action}' is not an action of {self.name}"
        phase = self.phases[enc.phase_index]
        own = "movement" if spec.cost == "move" else "action"
        if own != phase:
            return f"{spec.name} is taken in the {own} phase; this is the {phase} phase"
        if not enc.budget.get(spec.cost):
            return f"{a.name} has already taken its {own} this phase"
        return f"{spec.name} is not possible for {a.name} now (out of reach, out of range or blocked)"

    def apply(self, enc, a, d, dice, react=None):
        spec = self.catalogue[d.action]
        self.economy.pay(enc.budget, spec.cost)
        ev = [Event("action", a.id, d.target, action=d.action, square=d.square)]
        if d.action == "move":
            a.pos = d.square
            ev.append(Event("moved", a.id, square=a.pos))
        elif d.action in ("strike", "shoot"):
            ev += self.strike(enc, a, enc.units[d.target], dice, spec.name.lower())
        elif d.action == "recover":
            a.hp = min(a.max_hp, a.hp + 3)
            ev.append(Event("healed", a.id, amount=3))
        return ev


RULESET = ToyRise()
register(RULESET)
