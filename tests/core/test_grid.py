"""engine.core.grid: ASCII maps, distance, sight and effect, cover, reachability, paths, rays."""
import random

import pytest

from engine.core.errors import InputError
from engine.core.grid import _LINE_CODES, _SOLID, METRICS, TERRAINS, Grid, metric_distance


def g(text: str, **kw) -> Grid:
    return Grid([r for r in text.strip("\n").split("\n")], **kw)


# ---- parsing -------------------------------------------------------------------------------------
def test_default_legend_terrains():
    grid = g("#.cC~+/=")
    assert [grid.kind(i) for i in range(8)] == ["wall", "floor", "low_cover", "heavy_cover", "difficult",
                                                "door", "open_door", "window"]
    assert grid.width == 8 and grid.height == 1
    assert grid.index(3, 0) == 3 and grid.xy(5) == (5, 0)


def test_legend_override_and_extension():
    grid = Grid(["#x.", "TT."], legend={"x": "difficult", "T": "heavy_cover", ".": "floor"})
    assert grid.kind(grid.index(1, 0)) == "difficult"
    assert grid.kind(grid.index(0, 1)) == "heavy_cover"
    # a default symbol can be redefined
    grid2 = Grid(["c."], legend={"c": "wall"})
    assert grid2.kind(0) == "wall"


def test_rows_of_unequal_length_name_the_row():
    with pytest.raises(InputError) as e:
        Grid(["....", "...", "...."])
    assert "row 2" in str(e.value) and e.value.where == "map line 2" and e.value.fix


def test_unknown_symbol_and_bad_legend_terrain():
    with pytest.raises(InputError) as e:
        Grid(["..?."])
    assert "'?'" in str(e.value) and "column 3" in str(e.value) and e.value.fix
    with pytest.raises(InputError) as e:
        Grid([".."], legend={"L": "lava"})
    assert "lava" in str(e.value) and "floor" in e.value.fix


def test_empty_map_and_bad_metric():
    with pytest.raises(InputError):
        Grid([])
    with pytest.raises(InputError):
        Grid(["."], metric="euclid")


def test_to_rows_reflects_open_doors_and_broken():
    grid = g("#+.")
    grid.open_doors.add(1)
    assert grid.to_rows() == ["#/."]
    grid.broken.add(0)
    assert grid.kind(0) == "floor" and grid.to_rows() == [".%s." % "/"]


# ---- distance ------------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b,alt,cheb,man", [
    ((0, 0), (1, 0), 1, 1, 1),
    ((0, 0), (1, 1), 1, 1, 2),
    ((0, 0), (2, 2), 3, 2, 4),    # Saga: the second diagonal costs 2
    ((0, 0), (3, 3), 4, 3, 6),
    ((0, 0), (4, 4), 6, 4, 8),
    ((0, 0), (5, 2), 6, 5, 7),
    ((3, 7), (0, 0), 8, 7, 10),
])
def test_distance_metrics(a, b, alt, cheb, man):
    rows = ["." * 8] * 8
    assert Grid(rows, metric="alternating").distance(a, b) == alt
    assert Grid(rows, metric="chebyshev").distance(a, b) == cheb
    assert Grid(rows, metric="manhattan").distance(a, b) == man


def test_the_distance_rule_is_metric_distance_of_the_offset():
    """Grid.distance is `metric_distance` of the offset between the squares, whichever way round, for every metric
    (engine/core/_geometry.h's metric_distance is its C twin; the C modules' tests compare their figures with it)."""
    rows = ["." * 12] * 12
    for metric in METRICS:
        grid = Grid(rows, metric=metric)
        for a in [(0, 0), (3, 7), (11, 2)]:
            for b in [(x, y) for x in range(12) for y in range(12)]:
                dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
                want = {"alternating": max(dx, dy) + min(dx, dy) // 2, "chebyshev": max(dx, dy),
                        "manhattan": dx + dy}[metric]
                assert grid.distance(a, b) == grid.distance(b, a) == want
                assert metric_distance(metric, a[0] - b[0], a[1] - b[1]) == want
                assert metric_distance(metric, b[0] - a[0], a[1] - b[1]) == want


@pytest.mark.parametrize("metric", METRICS)
def test_walk_floor_is_what_walking_an_open_field_costs(metric):
    """The least a walk can cost (Grid.walk_floor, the searches' lower bound): on an open field exactly what
    `reachable` pays, the distance except under manhattan, whose diagonal steps cost 1."""
    grid = Grid(["." * 11] * 9, metric=metric)
    for start in [(0, 0), (5, 4), (10, 8), (2, 7)]:
        costs = grid.reachable(start, 30)
        assert len(costs) == 99
        for i, cost in costs.items():
            assert grid.walk_floor(start, grid.xy(i)) == cost
            if metric != "manhattan":
                assert cost == grid.distance(start, grid.xy(i))
    assert Grid(["." * 5], metric=metric).walk_floor((0, 0), (4, 0)) == 4


def test_within_uses_the_metric():
    grid = Grid(["." * 5] * 5)
    sq = set(grid.within((2, 2), 1))
    assert len(sq) == 8 and (2, 2) not in sq
    # reach 2 under alternating diagonals excludes the far corners (distance 3)
    sq2 = set(grid.within((2, 2), 2))
    assert (0, 0) not in sq2 and (0, 1) in sq2 and len(sq2) == 20


# ---- lines ---------------------------------------------------------------------------------------
def test_line_of_sight_blocked_by_walls_and_closed_doors_not_open():
    grid = g("""
.....
..#..
.....
..+..
.....""")
    assert not grid.line_of_sight((0, 1), (4, 1))
    assert not grid.line_of_sight((0, 3), (4, 3))
    assert grid.line_of_sight((0, 0), (4, 0))
    grid.open_doors.add(grid.index(2, 3))
    assert grid.line_of_sight((0, 3), (4, 3))
    assert grid.line_of_effect((0, 3), (4, 3))


def test_sight_follows_doors_changed_in_place_to_as_many_open():
    """The door state's key is kept between calls (`Grid._door_key`): one door closed and another opened in the same
    sets, as many open as before, is seen as the new state."""
    grid = g("""
.....
..+..
.....
..+..
.....""")
    top, bottom = grid.index(2, 1), grid.index(2, 3)
    grid.open_doors.add(top)
    assert grid.line_of_sight((0, 1), (4, 1)) and not grid.line_of_sight((0, 3), (4, 3))
    grid.open_doors.discard(top)
    grid.open_doors.add(bottom)
    assert not grid.line_of_sight((0, 1), (4, 1)) and grid.line_of_sight((0, 3), (4, 3))
    grid.broken.add(top)
    assert grid.line_of_sight((0, 1), (4, 1)) and grid.kind(top) == "floor"


def test_line_of_effect_blocked_by_window_but_sight_is_not():
    grid = g(".=.")
    assert grid.line_of_sight((0, 0), (2, 0))
    assert not grid.line_of_effect((0, 0), (2, 0))


def test_between_excludes_ends_and_is_symmetric():
    grid = Grid(["." * 6] * 6)
    line = grid.between((0, 0), (5, 0))
    assert [grid.xy(i) for i in line] == [(1, 0), (2, 0), (3, 0), (4, 0)]
    assert set(grid.between((0, 0), (5, 3))) == set(grid.between((5, 3), (0, 0)))
    assert grid.between((1, 1), (2, 2)) == ()


def test_cover_between_low_and_heavy():
    grid = g("""
.c...
.....
.C...
.cC..""")
    assert grid.cover_between((0, 0), (4, 0)) == "low"
    assert grid.cover_between((0, 1), (4, 1)) == "none"
    assert grid.cover_between((0, 2), (4, 2)) == "heavy"
    assert grid.cover_between((0, 3), (4, 3)) == "heavy"  # heavy wins over low on the same line
    assert grid.line_of_sight((0, 2), (4, 2))  # heavy cover gives cover, not blindness


def test_ray_stops_at_the_edge():
    grid = Grid(["." * 5] * 3)
    assert grid.ray((1, 1), (1, 0), 10) == [(2, 1), (3, 1), (4, 1)]
    assert grid.ray((1, 1), (-1, -1), 5) == [(0, 0)]
    assert grid.ray((0, 0), (1, 1), 1) == [(1, 1)]


# ---- movement ------------------------------------------------------------------------------------
def test_reachable_open_field_alternating_diagonals():
    grid = Grid(["." * 7] * 7)
    r = grid.reachable((0, 0), 3)
    assert r[grid.index(0, 0)] == 0
    assert r[grid.index(1, 1)] == 1 and r[grid.index(2, 2)] == 3
    assert grid.index(3, 3) not in r  # costs 4
    assert r[grid.index(3, 0)] == 3 and grid.index(4, 0) not in r


def test_reachable_difficult_terrain_costs_double():
    grid = g("~~~~~~")
    r = grid.reachable((0, 0), 4)
    assert r[grid.index(1, 0)] == 2 and r[grid.index(2, 0)] == 4 and grid.index(3, 0) not in r
    grid2 = g(".c..")
    r2 = grid2.reachable((0, 0), 3)
    assert r2[grid2.index(1, 0)] == 2 and r2[grid2.index(2, 0)] == 3


def test_reachable_allies_pass_not_stop_enemies_block():
    grid = g("""
#####
#...#
#####""")
    ally, enemy = grid.index(2, 1), grid.index(2, 1)
    r = grid.reachable((1, 1), 5, no_stop=[ally])
    assert ally not in r and grid.index(3, 1) in r and r[grid.index(3, 1)] == 2
    r = grid.reachable((1, 1), 5, no_pass=[enemy])
    assert enemy not in r and grid.index(3, 1) not in r


def test_reachable_no_cutting_wall_corners():
    grid = g("""
...
.#.
...""")
    r = grid.reachable((0, 0), 1)
    # (1,1) is a wall; the diagonal (0,0)->(1,1) is impossible anyway; (1,0) and (0,1) are fine
    assert set(grid.xy(i) for i in r) == {(0, 0), (1, 0), (0, 1)}
    r = grid.reachable((1, 0), 1)
    assert grid.index(0, 1) not in r and grid.index(2, 1) not in r  # would cut the wall's corner
    assert grid.reachable((1, 0), 2)[grid.index(0, 1)] == 2  # around it: two orthogonal steps


def test_reachable_walls_closed_doors_solid_squares():
    grid = g(".+.C.=.")
    assert set(grid.reachable((0, 0), 10)) == {0}
    grid.open_doors.add(1)
    r = grid.reachable((0, 0), 10)
    assert set(grid.xy(i) for i in r) == {(0, 0), (1, 0), (2, 0)}


def test_path_prefers_fewest_provoking_squares_then_cheapest():
    grid = Grid(["." * 5] * 3)
    start, goal = (0, 1), (4, 1)
    # the middle row is threatened: leaving any of those squares provokes
    danger = {grid.index(x, 1): 1 for x in range(5)}
    p = grid.path(start, goal, 10, danger=danger)
    assert p is not None and p[-1] == goal
    left = [start] + p[:-1]
    assert sum(1 for s in left if danger.get(grid.index(*s))) == 1  # only leaving the start square
    # without danger it takes the straight, cheapest line
    assert grid.path(start, goal, 10) == [(1, 1), (2, 1), (3, 1), (4, 1)]


def test_path_within_budget_and_blocked():
    grid = g("""
.#.
.#.
...""")
    p = grid.path((0, 0), (2, 0), 10)
    assert p is not None and grid.path_cost((0, 0), p) == 6 and p[-1] == (2, 0)
    assert grid.path((0, 0), (2, 0), 3) is None
    assert grid.path((0, 0), (2, 0), 10, no_pass=[grid.index(1, 2)]) is None


def test_path_cost_counts_alternating_diagonals_and_terrain():
    grid = Grid(["...~", "....", "...."])
    assert grid.path_cost((0, 0), [(1, 1), (2, 2)]) == 3
    assert grid.path_cost((0, 0), [(1, 0), (2, 0), (3, 0)]) == 4


def test_clone_shares_geometry_but_not_doors():
    grid = g(".+.")
    c = grid.clone()
    c.open_doors.add(1)
    assert grid.kind(1) == "door" and c.kind(1) == "open_door"
    assert c._geometry is grid._geometry


def test_square_codes_follow_doors_and_broken_objects():
    rng = random.Random(5)
    for _ in range(200):
        w, h = rng.randint(1, 9), rng.randint(1, 9)
        grid = Grid(["".join(rng.choice("#.cC~+/=") for _ in range(w)) for _ in range(h)])
        for step in range(4):
            if step:  # a clone shares the geometry and its caches, with other doors open and objects broken
                grid = grid.clone()
                for i in range(w * h):
                    if rng.random() < 0.2:
                        grid.open_doors.symmetric_difference_update({i})
                    if rng.random() < 0.1:
                        grid.broken.add(i)
            kinds = [grid.kind(i) for i in range(w * h)]
            assert grid.kind_codes() == bytes(TERRAINS.index(k) for k in kinds)
            assert grid.line_codes() == bytes(_LINE_CODES.get(k, 0) for k in kinds)
            assert list(grid._geometry._multipliers(grid, grid._door_key())) == \
                [0 if k in _SOLID or k == "door" else 2 if k in ("difficult", "low_cover") else 1 for k in kinds]
