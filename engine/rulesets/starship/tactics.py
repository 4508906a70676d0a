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
