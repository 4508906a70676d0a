"""SLOW REFERENCE for tests/perf: random encounter generation and the Grid / _Geometry construction as they
were before the speed work (commit b308dc5), kept unoptimised so the engine's fast versions can be checked
against them. Do not optimise this file. Its unit placement follows the two rules fixed on 2026-12-03 (both sides
always get units; unmirrored sides as many units a side), which change what is generated, not how fast.
"""
from __future__ import annotations

import random
from collections import deque

from engine.core.errors import InputError
from engine.core.grid import DEFAULT_LEGEND, DIRECTIONS, METRICS, TERRAINS, Grid, _Geometry
from engine.core.state import Encounter


def reference_grid(rows: list[str], legend: dict[str, str] | None = None, metric: str = "alternating") -> Grid:
    """A Grid built the old way (`Grid.__init__` and `_Geometry.__init__` of b308dc5)."""
    self = object.__new__(Grid)
    legend = dict(DEFAULT_LEGEND, **(legend or {}))
    if not rows:
        raise InputError("the map is empty", "map", "draw at least one row of squares")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        w0 = len(rows[0])
        bad = next(i for i, r in enumerate(rows) if len(r) != w0)
        raise InputError(f"map row {bad + 1} has {len(rows[bad])} squares but row 1 has {w0}",
                         f"map line {bad + 1}", "make every map row the same length")
    if metric not in METRICS:
        raise InputError(f"unknown distance metric '{metric}'", "metric", f"use one of {METRICS}")
    for k, v in legend.items():
        if not isinstance(k, str) or len(k) != 1:
            raise InputError(f"legend symbol {k!r} is not one character", "legend",
                             "map one map character to one terrain, e.g. {\"c\": low_cover}")
        if not isinstance(v, str) or v not in TERRAINS:
            raise InputError(f"legend maps '{k}' to unknown terrain '{v}'", "legend",
                             f"use one of {', '.join(TERRAINS)}")
    self.width, self.height, self.metric = len(rows[0]), len(rows), metric
    self.rows = list(rows)
    self.legend = legend
    self.terrain: list[str] = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch not in legend:
                raise InputError(f"column {x + 1}: unknown symbol '{ch}'", f"map line {y + 1}",
                                 f"use one of {''.join(sorted(legend))} or add it to the legend")
            t = legend[ch]
            self.terrain.append("door" if t == "open_door" else t)
    self.open_doors: set[int] = {i for i, ch in enumerate("".join(rows)) if legend[ch] == "open_door"}
    self.broken: set[int] = set()
    self._geometry = reference_geometry(self)
    return self


_CANDIDATES: dict[tuple[int, int], list[tuple[tuple[int, bool, int, int], ...]]] = {}


def _candidates(w: int, h: int) -> list[tuple[tuple[int, bool, int, int], ...]]:
    got = _CANDIDATES.get((w, h))
    if got is not None:
        return got
    got = []
    for i in range(w * h):
        x, y = i % w, i // w
        out = []
        for dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < w and 0 <= ny < h:
                out.append((ny * w + nx, dx != 0 and dy != 0, y * w + nx, ny * w + x))
        got.append(tuple(out))
    _CANDIDATES[(w, h)] = got
    return got


def reference_geometry(grid: Grid) -> _Geometry:
    """A _Geometry built the old way."""
    self = object.__new__(_Geometry)
    w, h = grid.width, grid.height
    self.width = w
    walls = [t == "wall" for t in grid.terrain]
    self._walls = walls
    self.neighbours = []
    append = self.neighbours.append
    for cand in _candidates(w, h):
        append(tuple([(j, diag) for j, diag, ca, cb in cand
                      if not diag or not (walls[ca] or walls[cb])]))
    self.size = w * h
    self.xys = [(i % w, i // w) for i in range(w * h)]
    self._lines = {}
    self.sight_tables = {}
    self._steps = {}
    self.free_reach = {}
    self.blocked_reach = {}
    self._trans = {}
    self._flat = {}
    return self


def random_map(rng: random.Random, width: int, height: int, cover: float = 0.08, heavy: float = 0.03,
               difficult: float = 0.04, walls: int = 2, mirrored: bool = True) -> list[str]:
    for _ in range(50):
        grid = [["." for _ in range(width)] for _ in range(height)]
        for x in range(width):
            grid[0][x] = grid[height - 1][x] = "#"
        for y in range(height):
            grid[y][0] = grid[y][width - 1] = "#"
        cells = [(x, y) for y in range(1, height - 1) for x in range(2, width - 2)]
        for _ in range(walls):
            x, y = rng.choice(cells)
            dx, dy = rng.choice([(1, 0), (0, 1)])
            for k in range(rng.randint(2, max(2, min(width, height) // 3))):
                if 1 < x + dx * k < width - 2 and 0 < y + dy * k < height - 1:
                    grid[y + dy * k][x + dx * k] = "#"
        for ch, share in (("c", cover), ("C", heavy), ("~", difficult)):
            for _ in range(int(share * len(cells))):
                x, y = rng.choice(cells)
                if grid[y][x] == ".":
                    grid[y][x] = ch
        if mirrored:
            for y in range(height):
                for x in range(width):
                    my, mx = height - 1 - y, width - 1 - x
                    if (y, x) > (my, mx):
                        grid[y][x] = grid[my][mx]
        rows = ["".join(r) for r in grid]
        if _connected(rows):
            return rows
    raise RuntimeError("could not generate a connected map")


def _connected(rows: list[str]) -> bool:
    open_ = {(x, y) for y, r in enumerate(rows) for x, ch in enumerate(r) if ch in ".c~"}
    if not open_:
        return False
    start = next(iter(open_))
    seen, q = {start}, deque([start])
    while q:
        x, y = q.popleft()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (x + dx, y + dy)
            if n in open_ and n not in seen:
                seen.add(n)
                q.append(n)
    return len(seen) == len(open_)


def random_encounter(ruleset, rng: random.Random, width: int = 16, height: int = 16,
                     sizes: tuple[int, int] = (2, 4), pools: dict[str, list[str]] | None = None,
                     mirrored: bool = True, round_limit: int = 20) -> Encounter:
    names = sorted(ruleset.templates())
    pools = pools or {}
    a, b = ruleset.sides[0], ruleset.sides[1]
    n = rng.randint(*sizes)
    rows = random_map(rng, width, height, mirrored=mirrored)
    open_left = [(x, y) for y in range(1, height - 1) for x in range(1, max(2, width // 4))
                 if rows[y][x] in ".~"]
    rng.shuffle(open_left)
    if not open_left:  # since 2026-12-03 (both sides always get units): any open square of the left half
        open_left = [(x, y) for y in range(1, height - 1) for x in range(1, max(2, width // 2)) if rows[y][x] in ".~"]
    spots = open_left[:n]
    picks_a = [rng.choice(pools.get(a) or names) for _ in range(n)]
    picks_b = list(picks_a) if mirrored else [rng.choice(pools.get(b) or names) for _ in range(n)]
    units = []
    for k, (x, y) in enumerate(spots):
        units.append({"name": f"{a.upper()[:-1] if a.endswith('s') else a} {k + 1}", "side": a,
                      "template": picks_a[k], "at": [x, y]})
    taken = set(spots)
    for k, (x, y) in enumerate(spots):
        mx, my = (width - 1 - x, height - 1 - y) if mirrored else (x, y)
        if not mirrored:
            mx = width - 1 - x
            if rows[my][mx] not in ".~" or (mx, my) in taken:
                # since 2026-12-03 (as many units a side): the nearest open square of the right half, not skipped
                free = sorted((abs(fx - mx) + abs(fy - my), fy, -fx) for fy in range(1, height - 1)
                              for fx in range(width // 2, width - 1) if rows[fy][fx] in ".~" and (fx, fy) not in taken)
                if not free:
                    continue
                _, my, mx = free[0]
                mx = -mx
        taken.add((mx, my))
        units.append({"name": f"{b.upper()[:-1] if b.endswith('s') else b} {k + 1}", "side": b,
                      "template": picks_b[k], "at": [mx, my]})
    grid = reference_grid(rows, None, ruleset.metric)
    built = [ruleset.make_unit(i, spec, f"generated units[{i}]") for i, spec in enumerate(units)]
    return Encounter(ruleset.id, "random skirmish", grid, built, round_limit)
