"""Observation encoder: a fixed-size float vector whatever the map and unit count.

Layout:
  globals   round / limit, the budget left (each counter / its turn maximum), phase
  units     1 + (max_per_side - 1) + max_per_side rows: the actor, its allies, the other side
            (allies and others in unit-id order, the order the action codec uses for target slots);
            each row: present, active, hp fraction, hp / 50, x, y, dx, dy (relative to the actor), distance,
            the ruleset's unit features, the actor's best attack on it (hit chance, expected damage / hp),
            its best attack on the actor (hit chance, expected damage / actor hp)
  map       planes of a (2R+1)^2 window around the actor: impassable, low cover, heavy cover, difficult,
            closed door, ally, enemy, threatened by an enemy (the ruleset's `threatens`), off map
"""
from __future__ import annotations

import numpy as np

from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

PLANES = ("impassable", "low_cover", "heavy_cover", "difficult", "door", "ally", "enemy", "threatened", "off_map")
BASE_UNIT = 9 + 4


class ObservationEncoder:
    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int, radius: int = 7):
        self.ruleset, self.max_per_side, self.map_w, self.map_h, self.radius = \
            ruleset, max_per_side, map_w, map_h, radius
        self.slot_names = list(ruleset.economy.slots)
        self.n_global = 2 + len(self.slot_names) + len(ruleset.phases)
        self.unit_width = BASE_UNIT + ruleset.n_unit_features
        self.n_rows = 2 * max_per_side
        self.side = 2 * radius + 1
        self.size = self.n_global + self.n_rows * self.unit_width + len(PLANES) * self.side * self.side
        self._plane_at = {"wall": 0, "window": 0, "heavy_cover": 2, "low_cover": 1, "difficult": 3, "door": 4}

    def encode(self, enc: Encounter, actor: Unit, out: np.ndarray | None = None) -> np.ndarray:
        obs = np.zeros(self.size, dtype=np.float32) if out is None else out
        if out is not None:
            obs.fill(0.0)
        rs = self.ruleset
        # globals
        g = [enc.round / max(1, enc.round_limit), float(enc.over)]
        for k in self.slot_names:
            g.append(enc.budget.get(k, 0) / max(1, rs.economy.slots[k]))
        g += [float(i == enc.phase_index) for i in range(len(rs.phases))]
        obs[:self.n_global] = g
        # units
        mine = [u for u in enc.units if u.side == actor.side and u.id != actor.id]
        other = [u for u in enc.units if u.side != actor.side]
        rows: list[Unit | None] = [actor] + mine[:self.max_per_side - 1]
        rows += [None] * (self.max_per_side - len(rows))
        rows += other[:self.max_per_side] + [None] * (self.max_per_side - min(len(other), self.max_per_side))
        base = self.n_global
        ax, ay = actor.pos
        grid = enc.grid
        W, H = max(1, self.map_w), max(1, self.map_h)
        for r, u in enumerate(rows):
            if u is None:
                continue
            x, y = u.pos
            dist = grid.distance(actor.pos, u.pos)
            feats = [1.0, float(u.active), u.hp / max(1, u.max_hp), u.hp / 50, x / W, y / H,
                     (x - ax) / W, (y - ay) / H, dist / 20]
            feats += rs.unit_features(enc, u)
            if u.side != actor.side and u.active:
                p, dmg = rs.threat_estimate(enc, actor, u)
                q, back = rs.threat_estimate(enc, u, actor)
                feats += [p, dmg / max(1, u.hp), q, back / max(1, actor.hp)]
            else:
                feats += [0.0, 0.0, 0.0, 0.0]
            start = base + r * self.unit_width
            obs[start:start + len(feats)] = feats
        # map planes
        base += self.n_rows * self.unit_width
        side, R = self.side, self.radius
        plane = side * side
        threatened: set[tuple[int, int]] = set()
        threatens = getattr(rs, "threatens", None)
        for u in other:
            if u.active and threatens is not None and threatens(u):
                reach = u.stats.get("reach", 1) if isinstance(u.stats, dict) else 1
                threatened.update(grid.within(u.pos, reach))
        occ = {u.pos: (5 if u.side == actor.side else 6) for u in enc.units if u.active and u.id != actor.id}
        for j in range(side):
            y = ay - R + j
            for i in range(side):
                x = ax - R + i
                cell = j * side + i
                if not grid.inside(x, y):
                    obs[base + 8 * plane + cell] = 1.0
                    continue
                k = grid.kind(grid.index(x, y))
                p = self._plane_at.get(k)
                if p is not None:
                    obs[base + p * plane + cell] = 1.0
                o = occ.get((x, y))
                if o is not None:
                    obs[base + o * plane + cell] = 1.0
                if (x, y) in threatened:
                    obs[base + 7 * plane + cell] = 1.0
        np.clip(obs, -5.0, 5.0, out=obs)
        return obs
