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
        self._stencils: dict[tuple[str, int], np.ndarray] = {}

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
        # map planes: terrain and off-map from a padded per-map array, units and threats set per square
        base += self.n_rows * self.unit_width
        side, R = self.side, self.radius
        maps = obs[base:base + len(PLANES) * side * side].reshape(len(PLANES), side, side)
        win = self._terrain_planes(grid)[:, ay:ay + side, ax:ax + side]
        maps[0:5] = win[0:5]
        maps[8] = win[5]
        x0, y0 = ax - R, ay - R
        threatens = getattr(rs, "threatens", None)
        threat = maps[7]
        for u in enc.units:
            if not u.active or u.id == actor.id:
                continue
            x, y = u.pos
            i, j = x - x0, y - y0
            if 0 <= i < side and 0 <= j < side:
                maps[5 if u.side == actor.side else 6, j, i] = 1.0
            if u.side != actor.side and threatens is not None and threatens(u):
                reach = u.stats.get("reach", 1) if isinstance(u.stats, dict) else 1
                if reach < 1:
                    continue
                st = self._stencil(grid.metric, reach)
                # the stencil's square (0, 0) is map square (x - reach, y - reach)
                i0, j0 = i - reach, j - reach
                a0, b0 = max(0, -i0), max(0, -j0)
                a1, b1 = min(2 * reach + 1, side - i0), min(2 * reach + 1, side - j0)
                if a0 < a1 and b0 < b1:
                    np.maximum(threat[j0 + b0:j0 + b1, i0 + a0:i0 + a1], st[b0:b1, a0:a1],
                               out=threat[j0 + b0:j0 + b1, i0 + a0:i0 + a1])
        threat *= 1.0 - maps[8]  # threatened squares are on the map
        np.clip(obs[:base], -5.0, 5.0, out=obs[:base])
        return obs

    def _stencil(self, metric: str, reach: int) -> np.ndarray:
        """(2r+1)^2 plane of the squares within `reach` of its centre (centre excluded), for a metric."""
        key = (metric, reach)
        st = self._stencils.get(key)
        if st is None:
            g = np.mgrid[-reach:reach + 1, -reach:reach + 1]
            dx, dy = np.abs(g[1]), np.abs(g[0])
            hi, lo = np.maximum(dx, dy), np.minimum(dx, dy)
            dist = {"alternating": hi + lo // 2, "chebyshev": hi, "manhattan": dx + dy}[metric]
            st = (dist <= reach).astype(np.float32)
            st[reach, reach] = 0.0
            self._stencils[key] = st
        return st

    def _terrain_planes(self, grid) -> np.ndarray:
        """Planes impassable, low cover, heavy cover, difficult, door, off map for the whole map, padded by
        the window radius (off map = 1 in the padding); cached per map and state of its doors."""
        geo = grid._geometry
        per_map = geo.__dict__.setdefault("obs_planes", {})
        key = (self.radius, frozenset(grid.open_doors), frozenset(grid.broken))
        got = per_map.get(key)
        if got is None:
            R, w, h = self.radius, grid.width, grid.height
            got = np.zeros((6, h + 2 * R, w + 2 * R), dtype=np.float32)
            got[5] = 1.0
            got[5, R:R + h, R:R + w] = 0.0
            for i in range(w * h):
                p = self._plane_at.get(grid.kind(i))
                if p is not None:
                    got[p, R + i // w, R + i % w] = 1.0
            if len(per_map) > 16:
                per_map.clear()
            per_map[key] = got
        return got
