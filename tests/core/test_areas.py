"""Area shapes (engine/core/areas.py): the footprints the rules texts describe."""
from __future__ import annotations

from engine.core import areas as A
from engine.core.grid import Grid

OPEN = Grid(["." * 15] * 15, metric="chebyshev")


def test_a_cone_is_one_square_wide_at_5_ft_three_at_10_and_five_at_15():
    """SWURPG's "At 5 ft: ~1 square wide. At 10 ft: ~3 squares wide. At 15 ft: ~5 squares wide", aimed east."""
    got = A.cone(OPEN, (2, 7), (9, 7), 3)
    by_column = {}
    for x, y in got:
        by_column.setdefault(x, set()).add(y)
    assert by_column == {3: {7}, 4: {6, 7, 8}, 5: {5, 6, 7, 8, 9}}
    assert (2, 7) not in got


def test_a_cone_aimed_on_a_diagonal_widens_the_same_way_and_stops_at_its_length():
    got = set(A.cone(OPEN, (0, 0), (5, 5), 2))
    assert (1, 1) in got and (2, 2) in got and (2, 1) in got and (1, 2) in got
    assert (1, 0) not in got and (0, 1) not in got and (3, 3) not in got


def test_a_line_is_one_square_wide_and_runs_through_the_aim_to_its_length():
    assert A.line(OPEN, (1, 1), (3, 1), 5) == [(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]
    assert A.line(OPEN, (1, 1), (3, 3), 3) == [(2, 2), (3, 3), (4, 4)]
    assert A.line(OPEN, (1, 1), (1, 1), 3) == []


def test_a_burst_covers_every_square_within_its_radius_and_a_square_its_footprint():
    got = set(A.burst(OPEN, (7, 7), 2))
    assert len(got) == 25 and (5, 5) in got and (9, 9) in got and (4, 7) not in got
    assert set(A.square(OPEN, (3, 4), 2)) == {(3, 4), (4, 4), (3, 5), (4, 5)}
    assert A.square(OPEN, (14, 14), 2) == [(14, 14)]  # clipped at the map's edge
