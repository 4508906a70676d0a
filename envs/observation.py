"""Observation encoder: a fixed-size float vector whatever the map and unit count.

Layout:
  globals   round / limit, the budget left (each counter / its turn maximum), phase
  units     1 + (max_per_side - 1) + max_per_side rows: the actor, its allies, the other side
            (allies and others in unit-id order, the order the action codec uses for target slots);
            each row: present, active, hp fraction, hp / the ruleset's `hp_scale`, x, y, dx, dy (relative to the
            actor), distance, the ruleset's unit features, the actor's best attack on it (hit chance, expected
            damage / hp), its best attack on the actor (hit chance, expected damage / actor hp)
  map       planes of a (2R+1)^2 window around the actor: impassable, low cover, heavy cover, difficult,
            closed door, ally, enemy, threatened by an enemy (the ruleset's `threatens`), off map
  intent    (with `intent=True`) per enemy row what the heuristic would have it do now (envs/intent.py)
  prior     (with `prior="heuristic"`) the heuristic's score of every action index (envs/prior.py)

The ruleset supplies the features and threat estimates of the unit rows through `observation_parts(enc, actor,
units)` when it has one (else `unit_features` and `threat_estimate` both ways): a sequence of (features, threat
or None) per unit.
"""
from __future__ import annotations

from array import array

import numpy as np

from engine.core.grid import TERRAINS
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

try:  # the whole encoding in C (envs/_native.c), built by `pip install`; Python below otherwise
    from . import _native
except ImportError:  # pragma: no cover - only without a C compiler
    _native = None

PLANES = ("impassable", "low_cover", "heavy_cover", "difficult", "door", "ally", "enemy", "threatened", "off_map")
BASE_UNIT = 9 + 4


class ObservationEncoder:
    """Encodes an encounter as seen by its actor into the fixed-size float32 vector described above."""

    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int, radius: int = 7,
                 prior: str | None = None, intent: bool = False):
        self.ruleset, self.max_per_side, self.map_w, self.map_h, self.radius = \
            ruleset, max_per_side, map_w, map_h, radius
        self.slot_names = list(ruleset.economy.slots)
        self.n_global = 2 + len(self.slot_names) + len(ruleset.phases)
        self.unit_width = BASE_UNIT + ruleset.n_unit_features
        self.n_rows = 2 * max_per_side
        self.side = 2 * radius + 1
        self.size = self.n_global + self.n_rows * self.unit_width + len(PLANES) * self.side * self.side
        self.core_size = self.size
        # `intent=True`: a block of the enemies' predicted plans after the map (see envs/intent.py)
        self.intent = None
        if intent:
            from .intent import EnemyIntent
            self.intent = EnemyIntent(ruleset, max_per_side, map_w, map_h)
            self.size += self.intent.size
        # `prior` ("heuristic", "anticipating"): a block of one value per action index after the rest (see
        # envs/prior.py); a policy reads everything before it (`base_size`) through its network
        self.base_size, self.prior = self.size, None
        if prior is not None:
            from .codec import ActionCodec
            from .prior import PRIORS, HeuristicPrior
            if prior not in PRIORS:
                raise ValueError(f"prior '{prior}': the encoder knows {', '.join(p for p in PRIORS if p)} (or None)")
            self.prior = HeuristicPrior(ruleset, ActionCodec(ruleset, max_per_side, map_w, map_h), prior)
            self.size += self.prior.codec.n
        self._plane_at = {"wall": 0, "window": 0, "heavy_cover": 2, "low_cover": 1, "difficult": 3, "door": 4}
        plane_of = bytearray(256)  # a kind code (`Grid.kind_codes`) -> 1 + its terrain plane, 0 for none
        for kind, p in self._plane_at.items():
            plane_of[TERRAINS.index(kind)] = 1 + p
        self.hp_scale = float(ruleset.hp_scale)
        if not self.hp_scale > 0:
            raise ValueError(f"ruleset '{ruleset.id}': hp_scale must be positive (got {ruleset.hp_scale!r})")
        self._spec = (max_per_side, float(max(1, map_w)), float(max(1, map_h)), self.hp_scale, self.unit_width,
                      BASE_UNIT, radius, len(ruleset.phases), tuple(self.slot_names), ruleset.economy.slots,
                      bytes(plane_of))
        self._parts = ruleset.observation_parts
        # the plane of threatened squares, from the ruleset's threat_reach (none while it keeps the default)
        self._threat_reach = None if type(ruleset).threat_reach is Ruleset.threat_reach else ruleset.threat_reach

    def encode(self, enc: Encounter, actor: Unit, out: np.ndarray | None = None, battle=None) -> np.ndarray:
        """The observation of `enc` for `actor`, into `out` (a float32 array of `size`) when given. `battle`, the
        Battle driving `enc` if the caller has one, lets a prior block reuse its legal decisions."""
        obs = np.zeros(self.size, dtype=np.float32) if out is None else out
        parts = self._parts
        base = obs
        if self.prior is not None:
            self.prior.fill(enc, actor, obs[self.base_size:], battle)
        if self.intent is not None:
            self.intent.fill(enc, actor, obs[self.core_size:self.base_size])
        if self.core_size != self.size:
            base = obs[:self.core_size]
        if _native is not None:
            _native.encode(base, enc, actor, self._spec, enc.grid.kind_codes(), parts, self._threat_reach)
        else:
            self._encode_py(enc, actor, base, parts)
        return obs

    def _encode_py(self, enc: Encounter, actor: Unit, obs: np.ndarray, parts) -> np.ndarray:
        """`encode` in Python (the fallback of `_native.encode` and its oracle in the tests)."""
        rs = self.ruleset
        # globals
        vals = [enc.round / max(1, enc.round_limit), float(enc.over)]
        slots = rs.economy.slots
        budget = enc.budget
        for k in self.slot_names:
            vals.append(budget.get(k, 0) / max(1, slots[k]))
        vals += [float(i == enc.phase_index) for i in range(len(rs.phases))]
        # units
        side_a = actor.side
        mine = [u for u in enc.units if u.side == side_a and u.id != actor.id]
        other = [u for u in enc.units if u.side != side_a]
        rows: list[Unit | None] = [actor] + mine[:self.max_per_side - 1]
        rows += [None] * (self.max_per_side - len(rows))
        rows += other[:self.max_per_side] + [None] * (self.max_per_side - min(len(other), self.max_per_side))
        ax, ay = actor.pos
        grid = enc.grid
        W, H = max(1, self.map_w), max(1, self.map_h)
        uw = self.unit_width
        # features and both directions of every threat estimate in one call
        got = parts(enc, actor, [u for u in rows if u is not None])
        base = self.n_global + self.n_rows * uw
        self._unit_rows(obs[:base], vals, rows, got, actor, grid, W, H)
        # map planes: terrain, off-map and threatened squares from padded per-map arrays, units set per square
        side, R = self.side, self.radius
        maps = obs[base:base + len(PLANES) * side * side].reshape(len(PLANES), side, side)
        maps[:] = self._terrain_planes(grid)[:, ay:ay + side, ax:ax + side]
        threat_reach = self._threat_reach
        if threat_reach is not None:
            reaches = []
            for u in other:
                if u.active:
                    reach = threat_reach(u)
                    if reach >= 1:
                        reaches.append((u.pos, reach))
            if reaches:
                maps[7] = self._threat_plane(grid, tuple(reaches))[ay:ay + side, ax:ax + side]
        x0, y0 = ax - R, ay - R
        aid = actor.id
        for u in enc.units:
            if u.active and u.id != aid:
                i, j = u.pos[0] - x0, u.pos[1] - y0
                if 0 <= i < side and 0 <= j < side:
                    maps[5 if u.side == side_a else 6, j, i] = 1.0
        return obs

    def _unit_rows(self, head: np.ndarray, vals: list[float], rows: list[Unit | None], got: list, actor: Unit,
                   grid, W: int, H: int) -> None:
        """The globals `vals` and the unit rows into `head`, clipped to [-5, 5]."""
        uw = self.unit_width
        ax, ay = actor.pos
        zeros = [0.0] * uw
        actor_hp = max(1, actor.hp)
        hp_scale = self.hp_scale
        k = 0
        for u in rows:
            if u is None:
                vals += zeros
                continue
            x, y = u.pos
            dist = grid.distance(actor.pos, u.pos)
            feats, threat = got[k]
            k += 1
            vals += [1.0, float(u.active), u.hp / max(1, u.max_hp), u.hp / hp_scale, x / W, y / H,
                     (x - ax) / W, (y - ay) / H, dist / 20]
            vals += feats
            if threat is not None:
                p, dmg, q, back = threat
                vals += [p, dmg / max(1, u.hp), q, back / actor_hp]
            else:
                vals += [0.0, 0.0, 0.0, 0.0]
            if len(feats) + BASE_UNIT < uw:
                vals += [0.0] * (uw - len(feats) - BASE_UNIT)
        head[:] = array("d", vals)  # faster than from a list; the same float32 values
        np.minimum(head, 5.0, out=head)  # = np.clip(head, -5, 5), cheaper for a short slice
        np.maximum(head, -5.0, out=head)

    def _threat_plane(self, grid, reaches: tuple) -> np.ndarray:
        """Squares of the map within reach of any of `reaches` ((x, y), reach) (not their own squares unless
        another reaches them), padded by the window radius; cached per map and threatening units."""
        geo = grid._geometry
        per_map = geo.memo.setdefault("obs_threat", {})
        key = (self.radius, reaches)
        got = per_map.get(key)
        if got is None:
            R, w, h = self.radius, grid.width, grid.height
            got = np.zeros((h + 2 * R, w + 2 * R), dtype=np.float32)
            for pos, reach in reaches:
                for x, y in grid.within(pos, reach):
                    got[R + y, R + x] = 1.0
            if len(per_map) > 4096:
                per_map.clear()
            per_map[key] = got
        return got

    def _terrain_planes(self, grid) -> np.ndarray:
        """All planes for the whole map padded by the window radius: terrain planes set, off map = 1 in the
        padding, unit and threat planes zero; cached per map and state of its doors. (The Python encoder's: the C
        one reads the terrain from `Grid.kind_codes` through the spec's plane of each kind.)"""
        geo = grid._geometry
        per_map = geo.memo.setdefault("obs_planes", {})
        ob, br = grid.open_doors, grid.broken
        key = (self.radius, frozenset(ob), frozenset(br)) if ob or br else self.radius
        got = per_map.get(key)
        if got is None:
            R, w, h = self.radius, grid.width, grid.height
            got = np.zeros((len(PLANES), h + 2 * R, w + 2 * R), dtype=np.float32)
            got[8] = 1.0
            got[8, R:R + h, R:R + w] = 0.0
            for i in range(w * h):
                p = self._plane_at.get(grid.kind(i))
                if p is not None:
                    got[p, R + i // w, R + i % w] = 1.0
            if len(per_map) > 16:
                per_map.clear()
            per_map[key] = got
        return got
