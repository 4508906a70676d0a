"""The heuristic's starship knowledge: decision roles and costs (a subclass of the core's defaults,
engine/core/tactics.py). Firing is an attack; moves, shifts, surges and withdrawals are moves."""
from __future__ import annotations

from engine.core.ruleset import Cost
from engine.core.tactics import WASTE, DefaultTactics, DefaultView


class StarshipTactics(DefaultTactics):
    attack_cost = Cost("attack")
    move_cost = Cost("move")

    def __init__(self, ruleset):
        super().__init__(ruleset)
        self.kinds = dict(self.kinds)
        self.kinds.update({k: "misc" for k in ("aid", "aid_ally", "feint", "tractor_beam", "ram", "jump",
                                                "start_jump", "complete_jump", "total_defense", "fight_defensively",
                                                "escape", "damage_control", "operate_sensors", "cease_fire")})
        self.kinds["shift"] = "move"
        self.kinds["withdraw"] = "run"  # a full round spent moving, as a surge

    def view(self, enc, a) -> "StarshipView":
        return StarshipView(self, enc, a)


class StarshipView(DefaultView):
    def key_squares(self) -> set | None:
        """Next to the actor and next to each enemy (ramming, point defense); the heuristic looks at these and a coarse
        lattice of the rest (a ship's moves reach far, and squares a lattice apart differ little in open space); all
        squares while a shot or an aid is pending."""
        enc = self.enc
        if enc.flags.get("pending") is not None:
            return None
        g = enc.grid
        out = set(g.within(self.a.pos, 1))
        for e in self.enemies:
            out.update(g.within(e.pos, 1))
        return out

    def misc_value(self, d, threat_here: float, can_strike) -> float:
        key = d.action
        a = self.a
        if key == "damage_control":
            missing = a.stats["hp"] - (a.hp - a.state["sp"])
            return min(missing, 11.0) * 0.8 if missing > 0 else WASTE
        if key == "complete_jump":
            return 0.1  # a jump begun is finished
        if key == "escape":
            return 2.0
        if key == "total_defense":
            return 0.3 * threat_here if not can_strike() else WASTE
        return super().misc_value(d, threat_here, can_strike)
