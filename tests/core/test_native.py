"""The C movement searches (engine/core/_native.c) give exactly what the Python ones in grid.py give.

The C module is built by `pip install` (bootstrap.py); `engine.core.grid` falls back to Python only where no
C compiler exists, so here it must be built: the test setup installs with gcc.
"""
import random
from array import array

import pytest

from engine.core import grid as G
from engine.core.grid import Grid
from tests.compiler import needs_c

pytestmark = needs_c(G._native is not None, "engine/core/_native.c")


def test_the_c_module_is_built_and_used():
    assert G._native is not None, "engine/core/_native.c was not built: reinstall with `python3 bootstrap.py setup`"


def _flat_from_tables(g: Grid, dk) -> array:
    """The flat transition table from the Python tables (`_Geometry.transitions`), the oracle of
    `_native.build_transitions`."""
    flat = array("i")
    for moves in g._geometry.transitions(g, dk):
        row = [len(moves)]
        for move in moves:
            row += move
        flat.extend(row + [0] * (G._native.STRIDE - len(row)))
    return flat


def _random_grid(rng: random.Random, metric: str) -> Grid:
    w, h = rng.randint(4, 18), rng.randint(4, 18)
    rows = ["".join(rng.choices(".......c~C#+/=", k=w)) for _ in range(h)]
    g = Grid(rows, metric=metric)
    for i in range(w * h):  # open or break a few doors and objects, as play does
        if g.terrain[i] == "door" and rng.random() < 0.3:
            g.open_doors.add(i)
        elif g.terrain[i] in ("heavy_cover", "low_cover") and rng.random() < 0.1:
            g.broken.add(i)
    return g


@pytest.mark.parametrize("metric", G.METRICS)
def test_search_and_path_match_python(metric):
    rng = random.Random(metric)
    checked_paths = 0
    for _ in range(150):
        g = _random_grid(rng, metric)
        n = g.width * g.height
        dk = g._door_key()
        trans = g._geometry.transitions(g, dk)
        flat = g._geometry.flat_transitions(g, dk)
        assert flat == _flat_from_tables(g, dk)  # built in C from the squares, as from the tables
        for _ in range(6):
            s = rng.randrange(n)
            budget = rng.randint(0, 14)
            blocked = tuple(sorted(rng.sample(range(n), rng.randint(0, min(8, n)))))
            want = g._search_py(trans, s, budget, blocked)
            got = G._native.search(flat, s, budget, blocked)
            assert list(got.items()) == list(want.items())  # same squares, costs and order
            goal = rng.randrange(n)
            danger = {j: rng.randint(1, 2) for j in rng.sample(range(n), rng.randint(0, n // 3))}
            want_path = g._path_py(s, goal, budget, set(blocked), danger)
            got_path = g.path(g.xy(s), g.xy(goal), budget, blocked, danger)
            assert got_path == want_path
            checked_paths += want_path is not None and len(want_path) > 2
    assert checked_paths > 50  # the comparison covered real, multi-step paths


def test_bad_buffers_are_refused_not_crashed():
    with pytest.raises(ValueError):
        G._native.search(b"\x00" * 7, 0, 3, ())
    g = Grid(["...", "...", "..."])
    flat = g._geometry.flat_transitions(g, None)
    with pytest.raises(IndexError):
        G._native.search(flat, 99, 3, ())
    with pytest.raises(ValueError):
        G._native.path(flat, 0, 8, 3, bytearray(2), bytearray(9), 3, True)


def _open_grid(rng: random.Random, metric: str) -> Grid:
    """A mostly open map with difficult terrain and low cover: many paths of equal cost, so ties decide."""
    w, h = rng.randint(5, 16), rng.randint(5, 16)
    return Grid(["".join(rng.choices("......~~c#", k=w)) for _ in range(h)], metric=metric)


@pytest.mark.parametrize("metric", G.METRICS)
def test_the_quick_path_search_is_the_best_first_one_when_nothing_provokes(metric):
    """`_native.path` first tries a bucket search that holds only while no square it leaves is dangerous (one label
    per state: least cost, then least trail), and hands over to the best-first search otherwise. Both, and the
    Python search, agree on paths with no danger, danger far away, and danger near the start or on the way."""
    rng = random.Random(f"quick-{metric}")
    decided = handed_over = ties = 0
    for _ in range(200):
        g = _random_grid(rng, metric) if rng.random() < 0.3 else _open_grid(rng, metric)
        n, w = g.width * g.height, g.width
        dk = g._door_key()
        flat = g._geometry.flat_transitions(g, dk)
        for _ in range(8):
            s, goal, budget = rng.randrange(n), rng.randrange(n), rng.randint(0, 14)
            blocked = rng.sample(range(n), rng.randint(0, min(6, n)))
            danger = {j: 1 for j in rng.sample(range(n), rng.choice([0, 0, 1, 3, n // 4]))}
            blk, dng = bytearray(n), bytearray(n)
            for j in blocked:
                blk[j] = 1
            for j in danger:
                dng[j] = 1
            want = g._path_py(s, goal, budget, set(blocked), danger)
            full = G._native.path(flat, s, goal, budget, blk, dng, w, metric == "alternating", 0)
            quick = G._native.path(flat, s, goal, budget, blk, dng, w, metric == "alternating", 2)
            both = G._native.path(flat, s, goal, budget, blk, dng, w, metric == "alternating")
            want_c = None if want is None else [g.index(*sq) for sq in want]
            assert full == want_c and both == want_c
            if quick is False:
                handed_over += 1
            else:
                assert quick == want_c
                decided += 1
                ties += want is not None and len(want) != g.distance(g.xy(s), g.xy(goal))
    assert decided > 1000 and handed_over > 200 and ties > 50


def test_the_c_line_trace_is_the_python_one():
    """`_native.line` (engine/core/_geometry.h's trace_line, the one envs/_native.c and Saga's C modules include)
    gives the squares `_Geometry._trace_at` gives: every offset up to 30 rows on maps 1 to 64 wide, then long
    lines."""
    rng = random.Random(5)
    n = 0
    for w in (1, 2, 3, 5, 8, 13, 16, 31, 64):
        geo = Grid(["." * w])._geometry
        for dy in range(31):
            for dx in range(-(w - 1), w):
                if dy == 0 and dx < 0:
                    continue
                x0 = max(0, -dx)
                want = tuple(i - x0 for i in geo._trace_at(x0, 0, x0 + dx, dy))
                assert G._native.line(w, dx, dy) == want, (w, dx, dy)
                n += 1
    geo = Grid(["." * 400])._geometry
    for _ in range(300):
        dx, dy = rng.randint(-399, 399), rng.randint(1, 700)
        x0 = max(0, -dx)
        assert G._native.line(400, dx, dy) == tuple(i - x0 for i in geo._trace_at(x0, 0, x0 + dx, dy))
    assert n > 8000
    for bad in ((0, 0, 1), (4, 4, 1), (4, -4, 1), (4, 1, -1), (4, -1, 0)):
        with pytest.raises(ValueError):
            G._native.line(*bad)


def test_grid_lines_are_the_same_with_and_without_the_c_trace(monkeypatch):
    """Grid.between (and so every sight, effect and cover line) through `_native.line` and through the Python trace,
    on random maps: the same squares in the same order."""
    rng = random.Random(6)
    for _ in range(40):
        g = _random_grid(rng, "alternating")
        n = g.width * g.height
        pairs = [(g.xy(rng.randrange(n)), g.xy(rng.randrange(n))) for _ in range(60)]
        got = [g._geometry._trace(g.index(*a), g.index(*b)) if g.index(*a) <= g.index(*b) else None for a, b in pairs]
        with monkeypatch.context() as m:
            m.setattr(G, "_native", None)
            m.setattr(G, "_LINES", {})
            want = [g._geometry._trace(g.index(*a), g.index(*b)) if g.index(*a) <= g.index(*b) else None
                    for a, b in pairs]
        assert got == want


def _same_grid(g: Grid) -> Grid:
    """A grid of g's squares, doors and broken objects with a geometry (and so caches) of its own."""
    h = Grid(g.to_rows(), metric=g.metric)
    h.open_doors, h.broken = set(g.open_doors), set(g.broken)
    return h


def test_c_sight_is_the_python_fold(monkeypatch):
    """`Grid.sight` through `_native.sight` and through the Python fold of the line's squares, on random maps with
    open doors and broken objects: the same line of sight, line of effect and cover for every pair of squares."""
    rng = random.Random(7)
    seen = set()
    for _ in range(40):
        g = _random_grid(rng, rng.choice(G.METRICS))
        n = g.width * g.height
        got = [g.sight(a, b) for a in range(n) for b in range(n)]
        with monkeypatch.context() as m:
            m.setattr(G, "_native", None)
            py = _same_grid(g)
            want = [py.sight(a, b) for a in range(n) for b in range(n)]
        assert got == want
        seen.update(got)
    assert len(seen) >= 6  # blocked, effect only, and each cover were met
    with pytest.raises(ValueError):
        G._native.sight(b"\x00" * 9, 3, 0, 9)


def test_c_distance_field_is_the_python_one(monkeypatch):
    """`Grid.distance_field` in C and in Python on random maps, step costs and start squares: the same cost to every
    square (99 where none reaches)."""
    rng = random.Random(8)
    unreached = far = 0
    for _ in range(150):
        g = _random_grid(rng, "alternating")
        n = g.width * g.height
        costs = bytes(rng.choice((0, 1, 1, 1, 2, 3)) for _ in range(n))
        starts = [g.xy(i) for i in rng.sample(range(n), rng.randint(1, 4))]
        got = g.distance_field(starts, costs)
        with monkeypatch.context() as m:
            m.setattr(G, "_native", None)
            want = g.distance_field(starts, costs)
        assert got == want
        unreached += got.count(99)
        far += max(d for d in got if d != 99) >= 8
    assert unreached > 100 and far > 30  # walls shut squares off, and the fields reach far
    with pytest.raises(ValueError):
        G._native.distance_field(3, b"\x00" * 9, b"\x01" * 9, [9])
