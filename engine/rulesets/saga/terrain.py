"""What the C searches over a Saga map read of it: a byte of bits per square (`terrain_codes`, see _terrain.h), and the
C twin of the rules' charge (`charge_end_native`, in _legal.c).

The rules (`SagaRuleset._charge_to`) charge through it, and the heuristic's tactics (tactics.py) read the codes for
their approach fields and key squares and the charges for their estimates; tests/perf/test_heuristic_map_queries.py
holds both C searches to their Python references.
"""
from __future__ import annotations

from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C

try:  # the charge in C (_legal.c), built by `pip install`; the rules' own search otherwise
    from . import _legal
except ImportError:  # pragma: no cover - built by the install where there is a C compiler
    _legal = None


METRICS = {"alternating": 0, "chebyshev": 1, "manhattan": 2}
_BLOCKS_CHARGE = {"low_cover", "wall", "heavy_cover", "window", "door"}  # a low object, or not `Grid.passable`
_NO_STEP = {"wall", "heavy_cover", "window"}  # `step_costs` 0
_DOUBLE_COST = {"difficult", "low_cover"}  # `Grid.enter_cost` 2


def charge_end_native(enc: Encounter, a: Unit, t: Unit):
    """`SagaRuleset._charge_end(enc, a, t)` (end square, squares walked, or None) by its C twin `_legal.charge_end`;
    NotImplemented when that is not built or declines the case (the caller then asks the rules)."""
    if _legal is None:
        return NotImplemented
    g = enc.grid
    w, side = g.width, a.side
    sides = bytearray(len(g.terrain))  # per square: 1 a unit of a's side (a too), 2 an enemy
    for u in enc.units:
        if u.active:
            sides[u.pos[1] * w + u.pos[0]] = 1 if u.side == side else 2
    return _legal.charge_end(terrain_codes(g), g.line_codes(), w, METRICS[g.metric], a.pos[0], a.pos[1],
                             t.pos[0], t.pos[1], C.speed(a), a.stats["reach"], bytes(sides))


def terrain_codes(g) -> bytes:
    """Per square, what the C charges (_legal.c), approach fields and key squares (_tactics.c) need of the map as its
    doors and broken objects stand, as bits (_terrain.h): 1 a charge line may not touch it, 2 a wall, 4 entering costs
    double, 8 / 16 `tactics.SagaTactics.step_costs` 0 / 3, 32 a wall of the map's terrain (`_Geometry.neighbours`),
    64 / 128 a door / low or heavy cover of the terrain, not broken (`SagaTactics.cover_squares`); cached per map and
    door state."""
    key = g._door_key()
    geo = g._geometry.memo
    per_map = geo.get("saga_terrain_codes")
    if per_map is None:
        per_map = geo["saga_terrain_codes"] = {}
    got = per_map.get(key)
    if got is None:
        if len(per_map) > 32:
            per_map.clear()
        try:  # the squares play has not changed (their kind is their terrain) by terrain alone
            out = bytearray(map(_TERRAIN_CODES.__getitem__, g.terrain))
        except KeyError:
            for t in set(g.terrain) - _TERRAIN_CODES.keys():
                _TERRAIN_CODES[t] = _terrain_code(t, t, False)
            out = bytearray(map(_TERRAIN_CODES.__getitem__, g.terrain))
        terrain = g.terrain
        for i in g.open_doors | g.broken:
            out[i] = _terrain_code(g.kind(i), terrain[i], i in g.broken)
        got = per_map[key] = bytes(out)
    return got


def _terrain_code(k: str, t: str, broken: bool) -> int:
    """`terrain_codes`' byte of a square of terrain t whose kind in play is k."""
    return ((k in _BLOCKS_CHARGE) | (k == "wall") << 1 | (k in _DOUBLE_COST) << 2 | (k in _NO_STEP) << 3
            | (k == "door") << 4 | (t == "wall") << 5 | (not broken and t == "door") << 6
            | (not broken and t in ("low_cover", "heavy_cover")) << 7)


_TERRAIN_CODES: dict[str, int] = {}  # `_terrain_code(t, t, False)` by terrain t
