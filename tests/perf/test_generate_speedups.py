"""Random encounter generation and Grid construction give exactly what their plain versions gave.

`generate_reference.py` is `random_map`, `_connected`, `random_encounter` and the Grid / _Geometry
constructors as they were before the speed work. For the same seed the engine must give the same map, the
same units at the same squares, and leave the rng in the same state (the caller's later draws depend on it);
every Grid must hold the same terrain, doors and geometry tables.
"""
from __future__ import annotations

import random

import pytest

from engine.core.errors import InputError
from engine.core.generate import _connected, random_encounter, random_map
from engine.core.grid import TERRAINS, Grid
from engine.rulesets import get_ruleset

from . import generate_reference as ref

RS = get_ruleset("saga")
UNIT_FIELDS = ("id", "name", "side", "template", "pos", "hp", "max_hp", "down", "dead", "stats", "state", "tactics")


def _assert_same_grid(a: Grid, b: Grid) -> None:
    ga, gb = a._geometry, b._geometry
    caches = ("_geometry", "_doors_now")  # the door state's key is kept as looked up (`Grid._door_key`)
    assert {k: v for k, v in vars(a).items() if k not in caches} == \
        {k: v for k, v in vars(b).items() if k not in caches}
    old = {k: v for k, v in vars(gb).items() if k != "_walls"}  # neighbours, xys, size, width, empty caches
    assert {k: getattr(ga, k) for k in old} == old  # neighbours too, built when first read
    assert type(ga._walls) is bytes and ga._walls == bytes(gb._walls)  # the bytes `bytes(_walls)` gave
    assert ga.codes == bytes(TERRAINS.index(t) for t in b.terrain)  # the kind codes, every door closed


@pytest.mark.parametrize("width,height", [(14, 14), (16, 16), (10, 12), (7, 9), (15, 13)])
@pytest.mark.parametrize("mirrored", [True, False])
def test_random_encounter_matches_reference(width, height, mirrored):
    for seed in range(300):
        sizes = (1, 4) if seed % 2 else (2, 3)
        r_new, r_ref = random.Random(seed), random.Random(seed)
        new = random_encounter(RS, r_new, width=width, height=height, sizes=sizes, mirrored=mirrored)
        old = ref.random_encounter(RS, r_ref, width=width, height=height, sizes=sizes, mirrored=mirrored)
        assert r_new.getstate() == r_ref.getstate(), seed
        assert new.grid.rows == old.grid.rows, seed
        assert (new.ruleset, new.name, new.round_limit) == (old.ruleset, old.name, old.round_limit)
        assert [[getattr(u, f) for f in UNIT_FIELDS] for u in new.units] == \
            [[getattr(u, f) for f in UNIT_FIELDS] for u in old.units], seed
        _assert_same_grid(new.grid, old.grid)


def test_random_map_matches_reference_with_other_settings():
    for seed in range(300):
        rng = random.Random(-seed)
        kw = dict(width=rng.randint(5, 20), height=rng.randint(5, 20), cover=rng.choice([0.0, 0.08, 0.3]),
                  heavy=rng.choice([0.0, 0.03, 0.2]), difficult=rng.choice([0.04, 0.25]),
                  walls=rng.randint(0, 6), mirrored=rng.random() < 0.5)
        r_new, r_ref = random.Random(seed), random.Random(seed)
        assert random_map(r_new, **kw) == ref.random_map(r_ref, **kw), (seed, kw)
        assert r_new.getstate() == r_ref.getstate(), (seed, kw)


class _OwnDraws(random.Random):
    """A generator with its own `random()`: random.Random then draws its choices from that, not getrandbits."""

    def random(self):
        return super().random() ** 2


def test_random_map_draws_as_the_generator_does():
    for seed in range(50):
        r_new, r_ref = _OwnDraws(seed), _OwnDraws(seed)
        assert random_map(r_new, 14, 14) == ref.random_map(r_ref, 14, 14), seed
        assert r_new.getstate() == r_ref.getstate(), seed
        r_new, r_ref = _OwnDraws(seed), _OwnDraws(seed)
        new = random_encounter(RS, r_new, 12, 12, sizes=(1, 4))
        old = ref.random_encounter(RS, r_ref, 12, 12, sizes=(1, 4))
        assert [u.pos for u in new.units] == [u.pos for u in old.units] and r_new.getstate() == r_ref.getstate()
    assert random_map(_OwnDraws(1), 14, 14) != random_map(random.Random(1), 14, 14)  # they do draw otherwise
    with pytest.raises(IndexError):  # no square to start a wall segment from, as rng.choice says
        random_map(random.Random(0), 4, 4, walls=1)


def test_connected_matches_reference():
    rng = random.Random(7)
    for _ in range(5000):
        w, h, density = rng.randint(1, 12), rng.randint(1, 12), rng.random()
        rows = ["".join(rng.choice("#.cC~=é") if rng.random() < density else "." for _ in range(w))
                for _ in range(h)]
        assert _connected(rows) == ref._connected(rows), rows
    for rows in ([], [""], ["###", "###"]):
        assert _connected(rows) is ref._connected(rows) is False


def test_grid_matches_reference_on_any_map():
    rng = random.Random(11)
    for k in range(1000):
        w, h = rng.randint(0 if k < 20 else 1, 20), rng.randint(1, 20)
        rows = ["".join(rng.choice("#.cC~+/=") for _ in range(w)) for _ in range(h)]
        metric = rng.choice(["alternating", "chebyshev", "manhattan"])
        _assert_same_grid(Grid(rows, None, metric), ref.reference_grid(rows, None, metric))
    legend = {"o": "open_door", "w": "wall", "#": "floor"}
    rows = ["w#o#w", "#o/w#", "wwwww"]
    _assert_same_grid(Grid(rows, legend), ref.reference_grid(rows, legend))
    for symbol, row in (("\u00e9", "\u00e9\u00e9.\u00e9C"), ("\u0436", "\u0436\u00e9.\u00e9\u0436")):  # latin-1 or not
        legend = {**legend, symbol: "low_cover"}
        rows = rows + [row]
        _assert_same_grid(Grid(rows, legend), ref.reference_grid(rows, legend))


@pytest.mark.parametrize("rows,legend,metric", [
    ([], None, "alternating"),
    (["...", ".."], None, "alternating"),
    (["...", "..."], None, "euclid"),
    (["...", ".x.", "..y"], None, "alternating"),
    (["...", "...", "..y"], None, "alternating"),
    (["..."], {"xy": "wall"}, "alternating"),
    (["..."], {"x": "lava"}, "alternating"),
])
def test_grid_errors_match_reference(rows, legend, metric):
    with pytest.raises(InputError) as new:
        Grid(rows, legend, metric)
    with pytest.raises(InputError) as old:
        ref.reference_grid(rows, legend, metric)
    assert str(new.value) == str(old.value)
    assert vars(new.value) == vars(old.value)
