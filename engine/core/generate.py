"""Random encounters for training: a walled map with scattered cover and terrain, units on opposite ends."""
from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Callable

from .balance import imbalance
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


@lru_cache(maxsize=256)  # above the 81 sizes of its varied maps (8 to 16 squares a side)
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


# byte -> b"1" for a square a creature can walk through (".c~"; with doors, "+" too), b"0" otherwise
_OPEN_BITS = bytes(ord("1") if chr(c) in ".c~" else ord("0") for c in range(256))
_OPEN_BITS_DOORS = bytes(ord("1") if chr(c) in ".c~+" else ord("0") for c in range(256))


def _connected(rows: list[str], doors: bool = False) -> bool:
    """Whether the open squares (".c~", and doors with `doors`) of equally long `rows` are one 4-connected region
    (and not none)."""
    # one bit per square, rows joined with a closed square between them so no step wraps round an edge;
    # the region of the first open bit grows by one step in every direction until it stops growing
    if not rows:
        return False
    stride = len(rows[0]) + 1
    open_ = int(b"0" + "#".join(rows).encode("ascii", "replace").translate(_OPEN_BITS_DOORS if doors else _OPEN_BITS),
                2)
    if not open_:
        return False
    seen = open_ & -open_
    while True:
        grown = (seen | seen << 1 | seen >> 1 | seen << stride | seen >> stride) & open_
        if grown == seen:
            return seen == open_
        seen = grown


LAYOUTS = ("scatter", "open", "rooms", "corridors")


def layout_map(rng: random.Random, width: int, height: int, layout: str, mirrored: bool = True) -> list[str]:
    """ASCII rows of one of the `LAYOUTS`: 'scatter' is `random_map`; 'open' a field with little cover and no wall
    segments; 'rooms' the map cut into two to four rooms by walls with doors ('+') and gaps in them; 'corridors'
    solid rock with two or three corridors along the map joined by cross passages (cover and difficult terrain
    scattered in both). Every layout is connected once doors are opened, and point-symmetric with `mirrored`."""
    if layout == "scatter":
        return random_map(rng, width, height, mirrored=mirrored)
    if layout == "open":
        return random_map(rng, width, height, cover=0.04, heavy=0.01, difficult=0.03, walls=0, mirrored=mirrored)
    if layout not in LAYOUTS:
        raise ValueError(f"layout '{layout}' is not one of {', '.join(LAYOUTS)}")
    for _ in range(50):
        grid = [list(r) for r in _frame(width, height)[0]]
        if layout == "rooms":
            _rooms(rng, grid, width, height, mirrored)
        else:
            _corridors(rng, grid, width, height)
        for ch, share in (("c", 0.05), ("C", 0.02), ("~", 0.03)):
            for _ in range(int(share * width * height)):
                x, y = rng.randrange(1, width - 1), rng.randrange(1, height - 1)
                if grid[y][x] == ".":
                    grid[y][x] = ch
        if mirrored:
            for y in range(height // 2):
                grid[height - 1 - y] = grid[y][::-1]
            if height % 2:
                middle = grid[height // 2]
                middle[width - width // 2:] = middle[:width // 2][::-1]
        rows = ["".join(r) for r in grid]
        if _connected(rows, doors=True):
            return rows
    raise RuntimeError(f"could not generate a connected '{layout}' map")  # pragma: no cover


def _rooms(rng: random.Random, grid: list[list[str]], width: int, height: int, mirrored: bool) -> None:
    """Walls across the map (one upright, maybe one across) with a door and a gap in each (in the half that
    mirroring keeps)."""
    x = rng.randrange(width // 3, width - width // 3)
    for y in range(1, height - 1):
        grid[y][x] = "#"
    openings = rng.sample(range(1, (height + 1) // 2 if mirrored else height - 1), 2)
    grid[openings[0]][x], grid[openings[1]][x] = "+", "."
    if height >= 8 and rng.random() < 0.5:
        y = rng.randrange(height // 3, height - height // 3)
        for xx in range(1, width - 1):
            if grid[y][xx] == ".":
                grid[y][xx] = "#"
        for side in (range(1, x), range(x + 1, width - 1)):
            if len(side) >= 2:
                a, b = rng.sample(list(side), 2)
                grid[y][a], grid[y][b] = "+", "."


def _corridors(rng: random.Random, grid: list[list[str]], width: int, height: int) -> None:
    """Rock everywhere but corridors one or two squares wide along the map and passages across them."""
    for y in range(1, height - 1):
        for x in range(1, width - 1):
            grid[y][x] = "#"
    lanes = sorted(rng.sample(range(1, height - 2), min(height - 3, rng.randint(2, 3))))
    for y in lanes:
        wide = rng.random() < 0.5
        for x in range(1, width - 1):
            grid[y][x] = "."
            if wide:
                grid[y + 1][x] = "."
    for x in [1, width - 2] + [rng.randrange(2, width - 2) for _ in range(rng.randint(1, 3))]:
        for y in range(lanes[0], lanes[-1] + 1):
            if grid[y][x] == "#":  # rock between two lanes: a passage, now and then behind a door
                grid[y][x] = "+" if rng.random() < 0.15 else "."


def random_encounter(ruleset, rng: random.Random, width: int = 16, height: int = 16,
                     sizes: tuple[int, int] = (2, 4), pools: dict[str, list[str]] | None = None,
                     mirrored: bool = True, round_limit: int = 20, layouts: tuple[str, ...] = ("scatter",),
                     min_width: int | None = None, min_height: int | None = None, wounded: float = 0.0,
                     uneven: bool = False, balance: float | None = None) -> Encounter:
    """A fresh encounter: map from `random_map`, 'sizes' units a side drawn from each side's template pool.

    With `mirrored`, both sides get the same templates at point-symmetric squares. The variety a policy should
    generalise over is opt-in (the defaults draw exactly what they always did): `layouts` to draw the map's layout
    from (`LAYOUTS`), `min_width` / `min_height` to draw the map's size from min..width and min..height, `wounded`
    the chance that a unit starts with 25-90% of its hit points, `uneven` (with `mirrored` off) a number of
    units drawn for each side on its own, and `balance` (with `mirrored` off) sides of their own stat blocks that are
    still a fair fight: the second side's templates are drawn again (up to `BALANCE_DRAWS` times, keeping the
    closest) until neither side's fighting strength (`engine.core.balance`) is more than `balance` times the other's,
    and with `wounded` the k-th unit of each side starts with the same share of its hit points. A ruleset whose
    units cannot open doors (`Ruleset.opens_doors`) gets its layouts' doors open.
    """
    if balance is not None and (mirrored or balance < 1):
        raise ValueError("balance needs mirrored off and is the strength ratio allowed between the sides (>= 1, "
                         "e.g. 1.25)")
    if min_width is not None:
        width = rng.randint(min(min_width, width), width)
    if min_height is not None:
        height = rng.randint(min(min_height, height), height)
    names = sorted(ruleset.templates())
    pools = pools or {}
    a, b = ruleset.sides[0], ruleset.sides[1]
    n = rng.randint(*sizes)
    if layouts == ("scatter",):
        rows = random_map(rng, width, height, mirrored=mirrored)
    else:
        rows = layout_map(rng, width, height, layouts[rng.randrange(len(layouts))], mirrored)
        if not ruleset.opens_doors:
            rows = [r.replace("+", "/") for r in rows]
    open_left = [(x, y) for y in range(1, height - 1) for x in range(1, max(2, width // 4))
                 if rows[y][x] in ".~"]
    below = _below(rng)
    for i in range(len(open_left) - 1, 0, -1):  # rng.shuffle(open_left)
        j = below(i + 1)
        open_left[i], open_left[j] = open_left[j], open_left[i]
    if not open_left:  # a left strip walled off (a narrow map's rooms or corridors): any open square of the left half
        open_left = [(x, y) for y in range(1, height - 1) for x in range(1, max(2, width // 2)) if rows[y][x] in ".~"]
    spots = open_left[:n]
    picks_a = [rng.choice(pools.get(a) or names) for _ in range(n)]
    picks_b = list(picks_a) if mirrored else [rng.choice(pools.get(b) or names) for _ in range(n)]
    n_b = len(spots)
    if uneven and not mirrored:
        n_b = rng.randint(*sizes)
        picks_b = [rng.choice(pools.get(b) or names) for _ in range(n_b)]
    shares: list[float] | None = None
    if balance is not None:
        shares = [rng.uniform(0.25, 0.9) if rng.random() < wounded else 1.0
                  for _ in range(max(n, sizes[1] if uneven else n_b))]
        picks_b = _balanced_side(ruleset, rng, picks_a[:len(spots)], picks_b[:n_b], shares, pools.get(b) or names,
                                 balance, sizes if uneven else None)
        n_b = len(picks_b)
    label_a, label_b = (s.upper()[:-1] if s.endswith("s") else s for s in (a, b))  # "PC" for "pcs"
    units = []
    for k, (x, y) in enumerate(spots):
        units.append({"name": f"{label_a} {k + 1}", "side": a, "template": picks_a[k], "at": [x, y]})
    if n_b != len(spots):  # the other side on its own squares of the right quarter
        open_right = [(x, y) for y in range(1, height - 1) for x in range(min(width - 2, width - width // 4),
                                                                          width - 1) if rows[y][x] in ".~"]
        rng.shuffle(open_right)
        for k, (x, y) in enumerate(open_right[:n_b]):
            units.append({"name": f"{label_b} {k + 1}", "side": b, "template": picks_b[k], "at": [x, y]})
    else:
        taken = set(spots)
        for k, (x, y) in enumerate(spots):
            mx, my = (width - 1 - x, height - 1 - y) if mirrored else (x, y)
            if not mirrored:
                mx = width - 1 - x
                if rows[my][mx] not in ".~" or (mx, my) in taken:  # the nearest open square of the right half
                    free = [(fx, fy) for fy in range(1, height - 1) for fx in range(width // 2, width - 1)
                            if rows[fy][fx] in ".~" and (fx, fy) not in taken]
                    if not free:
                        continue
                    # nearest by steps, then the higher row, then the square nearer the right edge
                    mx, my = min(free, key=lambda q, x=mx, y=my: (abs(q[0] - x) + abs(q[1] - y), q[1], -q[0]))
            taken.add((mx, my))
            units.append({"name": f"{label_b} {k + 1}", "side": b, "template": picks_b[k], "at": [mx, my]})
    if not spots or all(u["side"] == a for u in units):
        raise ValueError(f"random_encounter: no open squares for both sides on a {width}x{height} "
                         f"{'scatter' if layouts == ('scatter',) else 'layout'} map")
    grid = Grid(rows, None, ruleset.metric)
    built = [ruleset.make_unit(i, spec, f"generated units[{i}]") for i, spec in enumerate(units)]
    if shares is not None:
        rank = {a: 0, b: 0}
        for u in built:
            share = shares[rank[u.side]]
            rank[u.side] += 1
            if share < 1.0:
                ruleset.start_wounded(u, max(1, round(u.max_hp * share)))
    elif wounded > 0:
        for u in built:
            if rng.random() < wounded:
                ruleset.start_wounded(u, max(1, round(u.max_hp * rng.uniform(0.25, 0.9))))
    return Encounter(ruleset.id, "random skirmish", grid, built, round_limit)


BALANCE_DRAWS = 64  # draws of the second side's templates before `balance` keeps the closest one found


def _balanced_side(ruleset, rng: random.Random, picks_a: list[str], picks_b: list[str], shares: list[float],
                   pool: list[str], balance: float, sizes: tuple[int, int] | None = None) -> list[str]:
    """Templates for the second side (`picks_b` the first draw; each redraw as many, or with `sizes`, uneven sides, a
    number drawn from that range) whose strength is within `balance` times the first side's (`picks_a`), each unit
    starting with its rank's share of hit points; the closest of `BALANCE_DRAWS` draws when none is."""
    side_a = [(t, shares[k]) for k, t in enumerate(picks_a)]
    limit = math.log(balance)
    best, best_gap = picks_b, math.inf
    for _ in range(BALANCE_DRAWS):
        gap = imbalance(ruleset, side_a, [(t, shares[k]) for k, t in enumerate(picks_b)])
        if gap < best_gap:
            best, best_gap = picks_b, gap
        if gap <= limit:
            break
        picks_b = [rng.choice(pool) for _ in range(rng.randint(*sizes) if sizes else len(picks_b))]
    return best
