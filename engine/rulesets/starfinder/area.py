"""Grid intersections, blasts and the scatter of a missed throw.

A decision names a grid intersection through its `square`: Decision(square=(x, y)) aimed at an intersection means
the intersection at the top-left corner of square (x, y), so the intersections a decision can name are the corners
(0..width-1, 0..height-1) of the map's squares (the far right and bottom edges of the map cannot be named; they
are border walls on every map the generator draws). Distances to and from an intersection are counted from
intersection to intersection as the Core Rulebook measures areas, with the alternating diagonal (5-10-5 ft).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.core.grid import DIRECTIONS, metric_distance

if TYPE_CHECKING:
    from engine.core.grid import Grid

Point = tuple[int, int]


def _gap(p: int, lo: int) -> int:
    """Distance along one axis from coordinate p of an intersection to the square spanning lo..lo+1."""
    return lo - p if p < lo else (p - lo - 1 if p > lo + 1 else 0)


def point_distance(square: tuple[int, int], point: Point) -> int:
    """Squares (of 5 ft) from a square's nearest corner to an intersection: 0 for one of its own corners."""
    return metric_distance("alternating", _gap(point[0], square[0]), _gap(point[1], square[1]))


def corners(point: Point) -> tuple[tuple[int, int], ...]:
    """The four squares that touch an intersection."""
    x, y = point
    return ((x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y))


def clear(g: "Grid", a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Line of effect between two points of the map (in squares, (0, 0) the map's top-left corner): nothing that
    blocks effect (a wall, a closed door, a window) on the squares the segment crosses (a grid traversal: every
    square its interior passes through; one that only touches a corner does not count)."""
    codes = g.line_codes()
    w, h = g.width, g.height
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    # the square the segment starts in, nudged along the direction so that a start on a grid line is inside it
    x, y = math.floor(ax + 1e-9 * sx), math.floor(ay + 1e-9 * sy)
    ex, ey = math.floor(bx - 1e-9 * sx), math.floor(by - 1e-9 * sy)
    tx = ((x + (sx > 0)) - ax) / dx if dx else math.inf    # segment parameter of the next vertical grid line
    ty = ((y + (sy > 0)) - ay) / dy if dy else math.inf
    step_x, step_y = (abs(1 / dx) if dx else math.inf), (abs(1 / dy) if dy else math.inf)
    while True:
        if not (0 <= x < w and 0 <= y < h) or codes[y * w + x] >= 3:
            return False
        if x == ex and y == ey:
            return True
        if abs(tx - ty) < 1e-9:      # through a corner exactly: on to the diagonal square
            x, y, tx, ty = x + sx, y + sy, tx + step_x, ty + step_y
        elif tx < ty:
            x, tx = x + sx, tx + step_x
        else:
            y, ty = y + sy, ty + step_y
        if min(tx, ty) > 1 + 1e-9 and (x, y) != (ex, ey):
            return True


def reaches(g: "Grid", square: tuple[int, int], point: Point) -> bool:
    """Line of effect from a square's centre to an intersection."""
    return clear(g, (square[0] + 0.5, square[1] + 0.5), point)


def targetable(g: "Grid", square: tuple[int, int], max_squares: int) -> tuple[tuple[Point, int], ...]:
    """(intersection, distance in squares) of every intersection a decision can name that lies within
    `max_squares` of `square` and in its line of effect; cached per map, door state, square and range."""
    memo = g.door_memo("starfinder_points", cap=20000)
    key = (square, max_squares)
    got = memo.get(key)
    if got is None:
        out = []
        sx, sy = square
        for y in range(max(0, sy - max_squares), min(g.height, sy + max_squares + 2)):
            for x in range(max(0, sx - max_squares), min(g.width, sx + max_squares + 2)):
                d = point_distance(square, (x, y))
                if d <= max_squares and reaches(g, square, (x, y)):
                    out.append(((x, y), d))
        got = memo[key] = tuple(out)
    return got


def blast(g: "Grid", point: Point, radius_ft: int) -> frozenset[tuple[int, int]]:
    """Squares a burst of `radius_ft` from an intersection fills: open squares whose far corner is within the radius
    and whose centre the intersection has line of effect to."""
    memo = g.door_memo("starfinder_blasts", cap=20000)
    key = (point, radius_ft)
    got = memo.get(key)
    if got is None:
        r = radius_ft // 5
        px, py = point
        out = set()
        for y in range(max(0, py - r), min(g.height, py + r)):
            for x in range(max(0, px - r), min(g.width, px + r)):
                far = metric_distance("alternating", max(abs(x - px), abs(x + 1 - px)),
                                      max(abs(y - py), abs(y + 1 - py)))
                if far <= r and g.passable(y * g.width + x) and clear(g, point, (x + 0.5, y + 0.5)):
                    out.add((x, y))
        got = memo[key] = frozenset(out)
    return got


def toward(point: Point, square: tuple[int, int]) -> int:
    """The index in DIRECTIONS (clockwise on the map, y downwards) of the one of the 8 directions nearest to the
    line from an intersection to the centre of a square."""
    dx, dy = square[0] + 0.5 - point[0], square[1] + 0.5 - point[1]
    angle = math.atan2(dy, dx)  # 0 = east, positive = clockwise on a map drawn with y downwards
    return round(angle / (math.pi / 4)) % 8


def scatter(point: Point, thrower: tuple[int, int], direction_roll: int, distance_roll: int,
            width: int, height: int) -> Point:
    """Where a missed throw lands: 1d8 gives the direction (1 short, in a straight line toward the thrower; 2-8 on
    round the target clockwise), 1d4 the squares; the landing point is kept on the map."""
    k = (toward(point, thrower) + direction_roll - 1) % 8
    dx, dy = DIRECTIONS[k]
    x = min(max(point[0] + dx * distance_roll, 0), width)
    y = min(max(point[1] + dy * distance_roll, 0), height)
    return x, y


def closest_to(point: Point, squares: list[tuple[int, tuple[int, int]]]) -> int | None:
    """The id of the unit (of (id, square) pairs) whose square's centre is closest to an intersection; ties go to
    the lowest id (the Core Rulebook lets the attacker choose)."""
    best = None
    for uid, (x, y) in squares:
        d = ((2 * x + 1 - 2 * point[0]) ** 2 + (2 * y + 1 - 2 * point[1]) ** 2, uid)
        if best is None or d < best:
            best = d
    return None if best is None else best[1]
