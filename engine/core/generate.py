"""Random encounters for training: a walled map with scattered cover and terrain, units on opposite ends."""
from __future__ import annotations

import random
from collections import deque

from .grid import Grid
from .state import Encounter


def random_map(rng: random.Random, width: int, height: int, cover: float = 0.08, heavy: float = 0.03,
               difficult: float = 0.04, walls: int = 2, mirrored: bool = True) -> list[str]:
    """ASCII rows: border walls, a few wall segments, cover and difficult terrain; connected floor.

    `mirrored` makes the map point-symmetric so both sides start on equal ground.
    """
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
    raise RuntimeError("could not generate a connected map")  # pragma: no cover


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
    """A fresh encounter: map from `random_map`, 'sizes' units a side drawn from each side's template pool.

    With `mirrored`, both sides get the same templates at point-symmetric squares.
    """
    names = sorted(ruleset.templates())
    pools = pools or {}
    a, b = ruleset.sides[0], ruleset.sides[1]
    n = rng.randint(*sizes)
    rows = random_map(rng, width, height, mirrored=mirrored)
    open_left = [(x, y) for y in range(1, height - 1) for x in range(1, max(2, width // 4))
                 if rows[y][x] in ".~"]
    rng.shuffle(open_left)
    spots = open_left[:n]
    picks_a = [rng.choice(pools.get(a) or names) for _ in range(n)]
    picks_b = list(picks_a) if mirrored else [rng.choice(pools.get(b) or names) for _ in range(n)]
    units = []
    for k, (x, y) in enumerate(spots):
        units.append({"name": f"{a.upper()[:-1] if a.endswith('s') else a} {k + 1}", "side": a,
                      "template": picks_a[k], "at": [x, y]})
    for k, (x, y) in enumerate(spots):
        mx, my = (width - 1 - x, height - 1 - y) if mirrored else (x, y)
        if not mirrored:
            mx = width - 1 - x
            if rows[my][mx] not in ".~":
                continue
        units.append({"name": f"{b.upper()[:-1] if b.endswith('s') else b} {k + 1}", "side": b,
                      "template": picks_b[k], "at": [mx, my]})
    grid = Grid(rows, None, ruleset.metric)
    built = [ruleset.make_unit(i, spec, f"generated units[{i}]") for i, spec in enumerate(units)]
    return Encounter(ruleset.id, "random skirmish", grid, built, round_limit)
