"""The heuristic's SWURPG knowledge: decision roles, the move's cost in feet, and what the turn's other actions are
worth (a subclass of the core's defaults, engine/core/tactics.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.ruleset import Cost
from engine.core.tactics import WASTE, DefaultTactics, DefaultView

if TYPE_CHECKING:
    from engine.core.decision import Decision

DODGE_SHARE = 0.4     # of the threat on the actor: what a Dodge saves when it has nothing to hit
HELP_SHARE = 0.3      # of the best ally's expected damage on the foe: what Help adds (advantage on one attack)


class SwurpgTactics(DefaultTactics):
    attack_cost = Cost("action")
    move_cost = Cost("feet", 5)

    def __init__(self, ruleset):
        super().__init__(ruleset)
        self.kinds = dict(self.kinds)
        self.kinds.update({k: "misc" for k in ("autofire", "grenade", "help", "grapple", "dash", "disengage",
                                                "bonus_disengage", "dodge")})
        self.kinds["crawl"] = "move"

    def view(self, enc, a) -> "SwurpgView":
        return SwurpgView(self, enc, a)


class SwurpgView(DefaultView):
    def misc_value(self, d: "Decision", threat_here: float, can_strike) -> float:
        key = d.action
        if key == "dodge":
            return DODGE_SHARE * threat_here if not can_strike() else WASTE
        if key == "help":
            t = self.enc.units[d.target]
            allies = [u for u in self.enc.units if u.side == self.a.side and u is not self.a and not u.down]
            best = max((self.rs.threat_estimate(self.enc, u, t)[1] for u in allies), default=0.0)
            return HELP_SHARE * best if not can_strike() else WASTE
        if key == "disengage":
            return 0.5 * threat_here - 0.5 if not can_strike() and threat_here > 0 else WASTE
        if key in ("draw", "pick_up"):
            wield = self.a.state["wield"]
            n = d.option
            return self._wield_value([n] + wield[1:2] if len(wield) == 2 and self.rs.main_weapon(self.a) != n
                                     else [n])
        if key == "stow":
            return self._wield_value(self.a.state["wield"][:1])
        return super().misc_value(d, threat_here, can_strike)

    def _wield_value(self, new: list[int]) -> float:
        """What holding the weapons `new` instead adds to the actor's best attack on a foe from where it stands (a
        drawn weapon, or the -5 of two weapons shed by sheathing the off-hand one, serves the rest of the fight: its
        gain counts twice), less a little for the interaction."""
        rs, enc, a = self.rs, self.enc, self.a
        s = a.state

        def best() -> float:
            return max((rs.threat_estimate(enc, a, e)[1] for e in self.enemies), default=0.0)
        now = best()
        wield = s["wield"]
        s["wield"] = new
        try:
            then = best()
        finally:
            s["wield"] = wield
        gain = 2.0 * (then - now)
        return gain - 0.1 if gain > 0 else WASTE
