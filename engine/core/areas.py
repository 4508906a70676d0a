"""Area-of-effect shapes on the grid, for every ruleset: bursts, cones, lines and squares.

Squares are (x, y); lengths and radii are in squares (a ruleset converts its feet). What blocks an area is the
ruleset's to say (most let an area reach what has a line of effect from its origin); these give the footprint.
"""
from __future__ import annotations

import math

SHAPES = ("burst", "cone", "line", "square")


def burst(g, centre: tuple[int, int], radius: int) -> list[tuple[int, int]]:
    """Every square within `radius` of the centre by the map's distance (a "10-ft radius": 2 squares)."""
    cx, cy = centre
    return [(x, y) for y in range(max(0, cy - radius), min(g.height, cy + radius + 1))
            for x in range(max(0, cx - radius), min(g.width, cx + radius + 1)) if g.distance(centre, (x, y)) <= radius]


def cone(g, origin: tuple[int, int], aim: tuple[int, int], length: int) -> list[tuple[int, int]]:
    """A cone from the origin's side towards `aim`, `length` squares long, widening by a square on each side per
    square: 1 square wide at the first square, 3 at the second, 5 at the third (within 45 degrees of the aim, the
    origin left out)."""
    ox, oy = origin
    ax, ay = aim[0] - ox, aim[1] - oy
    norm = math.hypot(ax, ay)
    if norm == 0:
        return []
    out = []
    for y in range(max(0, oy - length), min(g.height, oy + length + 1)):
        for x in range(max(0, ox - length), min(g.width, ox + length + 1)):
            vx, vy = x - ox, y - oy
            if (vx or vy) and max(abs(vx), abs(vy)) <= length:
                cos = (vx * ax + vy * ay) / (math.hypot(vx, vy) * norm)
                if cos > math.cos(math.radians(45)) + 1e-9:
                    out.append((x, y))
    return out


def line(g, origin: tuple[int, int], aim: tuple[int, int], length: int) -> list[tuple[int, int]]:
    """A line one square wide from the origin through `aim`, `length` squares long (the origin left out), along the
    map's line between the two extended to the length."""
    ox, oy = origin
    dx, dy = aim[0] - ox, aim[1] - oy
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return []
    out = []
    for k in range(1, length + 1):
        x = ox + round(dx * k / steps)
        y = oy + round(dy * k / steps)
        if not g.inside(x, y):
            break
        out.append((x, y))
    return out


def square(g, corner: tuple[int, int], size: int) -> list[tuple[int, int]]:
    """A size x size footprint whose top-left square is `corner` (a "10 x 10 ft" area: size 2)."""
    x0, y0 = corner
    return [(x, y) for y in range(y0, y0 + size) for x in range(x0, x0 + size) if g.inside(x, y)]
