"""Random encounters for training: a walled map with scattered cover and terrain, units on opposite ends."""
from __future__ import annotations

import random
from functools import lru_cache
from typing import Callable

from .grid import Grid
from .state import Encounter


def random_map(rng: random.Random, width: int, height: int, cover: float = 0.08, heavy: float = 0.03,
               difficult: float = 0.04, walls: int = 2, mirrored: bool = True) -> list[str]:
    """ASCII rows: border walls, a few wall segments, cover and difficult terrain; connected floor.

    `mirrored` makes the map point-symmetric so both sides start on equal ground.
    """
    frame, cells = _frame(width, height)
    below = _below(rng)
    n_cells = len(cells)
    longest = max(2, min(width, height) // 3)
    for _ in range(50):
        grid = [list(r) for r in frame]
        for _ in range(walls):
            if not cells:
                raise IndexError("Cannot choose from an empty sequence")  # as rng.choice(cells)
            x, y = cells[below(n_cells)]  # rng.choice(cells)
            dx, dy = _SEGMENT_DIRECTIONS[below(2)]
            for k in range(2 + below(longest - 1)):  # rng.randint(2, longest)
                if 1 < x + dx * k < width - 2 and 0 < y + dy * k < height - 1:
                    grid[y + dy * k][x + dx * k] = "#"
        for ch, share in (("c", cover), ("C", heavy), ("~", difficult)):
            for _ in range(int(share * n_cells)):
                x, y = cells[below(n_cells)]
                if grid[y][x] == ".":
                    grid[y][x] = ch
        if mirrored:  # square (x, y) after (w-1-x, h-1-y) in reading order takes that square's terrain
            for y in range(height // 2):
                grid[height - 1 - y] = grid[y][::-1]
            if height % 2:
                middle = grid[height // 2]
                middle[width - width // 2:] = middle[:width // 2][::-1]
        rows = ["".join(r) for r in grid]
        if _connected(rows):
            return rows
    raise RuntimeError("could not generate a connected map")  # pragma: no cover


_SEGMENT_DIRECTIONS = [(1, 0), (0, 1)]


def _below(rng: random.Random) -> Callable[[int], int]:
    """A draw in range(n) (n > 0) as `rng.choice`, `randint` and `shuffle` make it (`Random._randbelow`): the same
    draws, taken from `getrandbits` without the method calls when rng draws through it as random.Random does."""
    if type(rng)._randbelow is not random.Random._randbelow:
        return rng._randbelow
    bits = rng.getrandbits

    def below(n: int) -> int:
        k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return r
    return below


@lru_cache(maxsize=64)
def _frame(width: int, height: int) -> tuple[list[str], list[tuple[int, int]]]:
    """The rows of an empty width x height map walled round, and the squares wall segments, cover and
    terrain are drawn from (in the order the draws index them). Shared: read, never changed."""
    grid = [["." for _ in range(width)] for _ in range(height)]
    for x in range(width):
        grid[0][x] = grid[height - 1][x] = "#"
    for y in range(height):
        grid[y][0] = grid[y][width - 1] = "#"
    cells = [(x, y) for y in range(1, height - 1) for x in range(2, width - 2)]
    return ["".join(r) for r in grid], cells


# byte -> b"1" for a square a creature can walk through (".c~"), b"0" otherwise
_OPEN_BITS = bytes(ord("1") if chr(c) in ".c~" else ord("0") for c in range(256))


def _connected(rows: list[str]) -> bool:
    """Whether the open squares (".c~") of equally long `rows` are one 4-connected region (and not none)."""
    # one bit per square, rows joined with a closed square between them so no step wraps round an edge;
    # the region of the first open bit grows by one step in every direction until it stops growing
    if not rows:
        return False
    stride = len(rows[0]) + 1
    open_ = int(b"0" + "#".join(rows).encode("ascii", "replace").translate(_OPEN_BITS), 2)
    if not open_:
        return False
    seen = open_ & -open_
    while True:
        grown = (seen | seen << 1 | seen >> 1 | seen << stride | seen >> stride) & open_
        if grown == seen:
            return seen == open_
        seen = grown


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
    below = _below(rng)
    for i in range(len(open_left) - 1, 0, -1):  # rng.shuffle(open_left)
        j = below(i + 1)
        open_left[i], open_left[j] = open_left[j], open_left[i]
    spots = open_left[:n]
    picks_a = [rng.choice(pools.get(a) or names) for _ in range(n)]
    picks_b = list(picks_a) if mirrored else [rng.choice(pools.get(b) or names) for _ in range(n)]
    label_a, label_b = (s.upper()[:-1] if s.endswith("s") else s for s in (a, b))  # "PC" for "pcs"
    units = []
    for k, (x, y) in enumerate(spots):
        units.append({"name": f"{label_a} {k + 1}", "side": a, "template": picks_a[k], "at": [x, y]})
    for k, (x, y) in enumerate(spots):
        mx, my = (width - 1 - x, height - 1 - y) if mirrored else (x, y)
        if not mirrored:
            mx = width - 1 - x
            if rows[my][mx] not in ".~":
                continue
        units.append({"name": f"{label_b} {k + 1}", "side": b, "template": picks_b[k], "at": [mx, my]})
    grid = Grid(rows, None, ruleset.metric)
    built = [ruleset.make_unit(i, spec, f"generated units[{i}]") for i, spec in enumerate(units)]
    return Encounter(ruleset.id, "random skirmish", grid, built, round_limit)
