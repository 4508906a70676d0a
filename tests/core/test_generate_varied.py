"""The varied generator (opt-in): layouts, map sizes, wounded starts and uneven sides, all playable."""
from __future__ import annotations

import random

import pytest

from engine.core.generate import LAYOUTS, _connected, layout_map, random_encounter
from engine.core.grid import PASSABLE
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")
VARIED = dict(layouts=LAYOUTS, min_width=8, min_height=8, wounded=0.3)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mirrored", [True, False])
def test_every_layout_is_connected_through_its_doors_and_mirrored_when_asked(layout, mirrored):
    for seed in range(40):
        w, h = random.Random(seed).choice([(8, 8), (12, 10), (16, 16), (13, 9)])
        rows = layout_map(random.Random(seed), w, h, layout, mirrored)
        assert len(rows) == h and all(len(r) == w for r in rows)
        assert _connected(rows, doors=True)
        assert all(r[0] == r[-1] == "#" for r in rows) and set(rows[0]) == set(rows[-1]) == {"#"}
        if mirrored:
            assert all(rows[y][x] == rows[h - 1 - y][w - 1 - x] for y in range(h) for x in range(w))


def test_layouts_differ_in_kind():
    def walls(layout):
        rows = [r for s in range(20) for r in layout_map(random.Random(s), 16, 16, layout)]
        return sum(r.count("#") for r in rows), sum(r.count("+") for r in rows)

    (open_walls, _), (scatter_walls, _), (room_walls, room_doors), (rock, corridor_doors) = \
        walls("open"), walls("scatter"), walls("rooms"), walls("corridors")
    assert open_walls < scatter_walls < room_walls < rock
    assert room_doors > 0 and corridor_doors > 0


def test_varied_encounters_are_playable_and_vary():
    sizes, layouts_seen, wounded, units = set(), set(), 0, 0
    counts = set()
    for seed in range(80):
        enc = random_encounter(RS, random.Random(seed), 16, 16, sizes=(1, 4), mirrored=seed % 2 == 0,
                               uneven=True, **VARIED)
        g = enc.grid
        sizes.add((g.width, g.height))
        assert 8 <= g.width <= 16 and 8 <= g.height <= 16
        squares = [u.pos for u in enc.units]
        assert len(set(squares)) == len(squares)
        assert all(g.inside(*p) and g.passable(g.index(*p)) for p in squares)
        for u in enc.units:
            units += 1
            if u.hp < u.max_hp:
                wounded += 1
                assert 0.2 * u.max_hp <= u.hp <= 0.9 * u.max_hp
        per_side = [sum(u.side == s for u in enc.units) for s in RS.sides]
        assert all(n >= 1 for n in per_side)
        counts.add(tuple(per_side))
        layouts_seen.add(sum(r.count("#") for r in g.rows) > g.width * g.height // 2)
    assert len(sizes) > 10
    assert 0.15 < wounded / units < 0.45
    assert any(a != b for a, b in counts), "uneven sides give different numbers of units a side"
    assert layouts_seen == {True, False}, "corridor maps (mostly rock) and open ones both appear"


def test_the_same_seed_gives_the_same_varied_encounter():
    a = random_encounter(RS, random.Random(9), 16, 16, sizes=(2, 4), uneven=True, mirrored=False, **VARIED)
    b = random_encounter(RS, random.Random(9), 16, 16, sizes=(2, 4), uneven=True, mirrored=False, **VARIED)
    assert a.to_dict() == b.to_dict()


def test_both_sides_get_units_even_where_the_left_strip_is_walled_off():
    """Seed 8896 of Starfinder's skirmish generator drew an 8-wide map whose leftmost open column was all wall: no
    unit for either side, and a training run died at its reset. Now both sides always get a unit, as many a side
    (unmirrored sides used to lose a unit wherever the mirror square was blocked)."""
    sf = get_ruleset("starfinder")
    kw = dict(sizes=(1, 4), mirrored=False, layouts=LAYOUTS, min_width=8, min_height=8, wounded=0.2)
    enc = random_encounter(sf, random.Random(8896), 16, 16, **kw)
    assert {u.side for u in enc.units} == set(sf.sides)
    for seed in range(1500):
        enc = random_encounter(sf, random.Random(seed), 8 + seed % 3, 8, **kw)
        sides = [u.side for u in enc.units]
        assert sides.count(sf.sides[0]) == sides.count(sf.sides[1]) >= 1, (seed, sides)  # uneven: false
        assert len({u.pos for u in enc.units}) == len(enc.units)
        assert all(enc.grid.passable(u.pos[1] * enc.grid.width + u.pos[0]) for u in enc.units)


@pytest.mark.parametrize("rid", ["rise", "starship", "saga"])
def test_a_ruleset_that_cannot_open_doors_gets_them_open_so_the_sides_can_always_meet(rid):
    """Rise and starship have no action that opens a door: a closed door is a wall there, and ~4% of Rise's
    skirmish maps were split by one into two halves that could never fight (session 24 counted 14 of 40 draws
    against the heuristic so). Their generated doors are drawn open; rulesets that open doors keep them closed."""
    rs = get_ruleset(rid)
    kw = dict(sizes=(1, 4), mirrored=False, layouts=("rooms", "corridors"), min_width=8, min_height=8)
    closed = opened = 0
    for seed in range(150):
        enc = random_encounter(rs, random.Random(seed), 16, 16, **kw)
        g = enc.grid
        closed += sum(r.count("+") for r in g.rows)
        opened += sum(r.count("/") for r in g.rows)
        if not rs.opens_doors:
            walk = bytes(PASSABLE[c] for c in g.kind_codes())
            field = g.distance_field([u.pos for u in enc.units if u.side == rs.sides[0]], walk)
            assert all(field[y * g.width + x] < 99 for x, y in (u.pos for u in enc.units)), (seed, g.rows)
    if rs.opens_doors:
        assert closed > 0 and opened == 0
    else:
        assert closed == 0 and opened > 0
