"""The heuristic's Rise knowledge: decision roles (a subclass of the core's defaults, engine/core/tactics.py) and the
worth of Rise's special combat abilities. Strikes are attacks; a charge is an attack at the end of a straight move;
moves and sprints are moves (a sprint costs a fatigue level)."""
from __future__ import annotations

from engine.core.grid import PASSABLE
from engine.core.ruleset import Cost
from engine.core.tactics import WASTE, DefaultTactics, DefaultView

from . import combat as C
from .estimates import BRAWL_WORTH, brawl, threat_estimate
from .ruleset import FATIGUE

FATIGUE_COST = 1.5      # expected damage a fatigue level beyond tolerance is worth avoiding
TOTAL_DEFENSE_SHARE = 0.3
HURL_COST = 1.5        # a thrown weapon is gone for the fight


class RiseTactics(DefaultTactics):
    attack_cost = Cost("standard")
    move_cost = Cost("movement")

    def __init__(self, ruleset):
        super().__init__(ruleset)
        self.kinds = dict(self.kinds)
        self.kinds.update({k: "misc" for k in ("grapple", "trip", "shove", "throw", "shove_move", "split_target",
                                                "overrun", "overrun_move", "sprint_action")})
        self.kinds["charge"] = "charge"
        self.kinds["sprint"] = "move"

    def view(self, enc, a) -> "RiseView":
        return RiseView(self, enc, a)


class RiseView(DefaultView):
    def __init__(self, tac, enc, a):
        super().__init__(tac, enc, a)
        self._memo: dict = {}  # `estimates.threat_estimate`'s memo: what stays the same while units take other squares
        self._beside: dict[int, float] = {}  # per enemy, the expected damage of its best strike from beside the actor
        self._sprints: list | None = None

    def threat_of(self, attacker, target):
        return threat_estimate(self.rs, self.enc, attacker, target, self._memo)

    def provoked(self, d) -> float:
        """What a decision costs beyond its role: the fatigue levels it takes the actor past its tolerance."""
        if d.action == "hurl":
            w = C.weapon_for(self.a, d.option)
            return HURL_COST * (1 + (d.option >= C.DUAL)) * (1 if w is None or "thrown" in w["tags"] else 2)
        levels = FATIGUE.get(d.action)
        if not levels:
            return 0.0
        s = self.a.state
        over = max(0, s["fatigue"] + levels - self.a.stats["fatigue_tolerance"]) - C.fatigue_penalty(self.a)
        return FATIGUE_COST * over + 0.2 * levels

    def state_key(self):
        """None: square values are not shared between decision points. A Rise creature decides once a movement phase
        and its commitment in the action phase changes the state, so the core's key (with the phase) repeated on 5 of
        1,323 decision points of the training workload, and building it cost more than the repeats saved."""
        return None

    def threat(self, pos) -> float:
        """In the movement phase the enemies move at the same moment: an enemy whose sprint reaches a square next to
        pos threatens pos as if it stood there (its best strike from next to the actor), or as from where it stands,
        whichever is worse. In the action phase, or on a copy with the enemies where they will move
        (`Encounter.anticipated`), the core's threat from where they stand."""
        enc = self.enc
        if enc.phase_index != 0 or enc.anticipated:
            return super().threat(pos)
        got = self._threat.get(pos)
        if got is None:
            rs, a, g = self.rs, self.a, enc.grid
            if self._sprints is None:  # per attacker, how far its sprint takes it (-1: grappling, it cannot move)
                self._sprints = [(e, -1 if e.state["grapple"] else 2 * rs.speed(e)) for e in self._attackers]
            codes, width, height = g.kind_codes(), g.width, g.height
            x, y = pos
            here = a.pos
            a.pos = pos
            total = 0.0
            try:
                for e, sprint in self._sprints:
                    beside = None
                    ex, ey = e.pos
                    if sprint >= 0 and g.distance(e.pos, pos) - 1 <= sprint:
                        nx, ny = x + (ex > x) - (ex < x), y + (ey > y) - (ey < y)  # the square beside pos towards e
                        if (nx != x or ny != y) and 0 <= nx < width and 0 <= ny < height \
                                and PASSABLE[codes[ny * width + nx]]:
                            beside = self._from_beside(e, (nx, ny))
                    # a charge ends in a melee strike, which the strike from beside counts already
                    dmg = threat_estimate(rs, enc, e, a, self._memo, charge=beside is None)[1]
                    total += dmg if beside is None or dmg >= beside else beside
            finally:
                a.pos = here
            got = self._threat[pos] = total
        return got

    def _from_beside(self, e, near) -> float:
        """The expected damage of e's best strike on the actor from the square near next to it (e placed there): the
        same from every square beside the actor, for `threat_estimate` remembers strikes by what of the squares they
        depend on (an adjacent target; a line to it always clear)."""
        got = self._beside.get(e.id)
        if got is None:
            start = e.pos
            e.pos = near
            try:
                got = self._beside[e.id] = self.threat_of(e, self.a)[1]
            finally:
                e.pos = start
        return got

    def key_squares(self) -> set:
        """Next to the actor, and within 2 squares of each enemy (melee reach, long weapons, where a shot is adjacent):
        the heuristic looks at these and a coarse lattice of the rest (a sprint reaches far, and squares a lattice
        apart away from the enemies differ little)."""
        g = self.enc.grid
        out = set(g.within(self.a.pos, 1))
        for e in self.enemies:
            out.update(g.within(e.pos, 2))
        return out

    def end_square(self, d):
        if d.action == "charge":
            t = self.enc.units[d.target]
            w = C.weapon_for(self.a, d.option)
            sq = self.rs.charge_square(self.enc, self.a, t, C.melee_reach(w)) if w is not None else None
            return sq or self.a.pos
        return super().end_square(d)

    def misc_value(self, d, threat_here: float, can_strike) -> float:
        key, a, enc = d.action, self.a, self.enc
        if key in BRAWL_WORTH:
            t = enc.units[d.target]
            return BRAWL_WORTH[key] * self.danger(t) * brawl(enc, a, t, ("fortitude",)) if not can_strike() else WASTE
        if key == "split_target":
            return self.rs.estimate(enc, a, d).expected_damage
        if key == "escape":
            return 2.0
        if key == "maintain":
            return 0.5
        if key == "total_defense":
            return TOTAL_DEFENSE_SHARE * threat_here if not can_strike() else WASTE
        if key == "recover":
            lost = a.max_hp - a.hp
            return 0.5 * lost - 2 * FATIGUE_COST if lost > a.max_hp / 2 else WASTE
        if key == "stand":
            return 1.0
        return super().misc_value(d, threat_here, can_strike)
