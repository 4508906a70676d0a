"""The Saga observation figures in C (engine/rulesets/saga/_observe.c) are exactly those of their Python version
(`observe._observation_parts_py`), on states from random battles and on the same states pushed into unusual
conditions; and its caches (stat blocks by identity, line codes per map and door state) never go stale across
clones, in-place mutations, replaced stat blocks and new maps.

The C module is built by `pip install` (bootstrap.py); `observe` falls back to Python only where no C compiler
exists, so here it must be built.
"""
from __future__ import annotations

import copy
import random
from pathlib import Path

import numpy as np
import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.generate import random_encounter
from engine.rulesets import get_ruleset
from engine.rulesets.saga import observe as O
from tests.battle_walk import random_walk

from .helpers import PISTOL, RIFLE, SWORD, make, unit

RS = get_ruleset("saga")
ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs" / "encounters" / "saga").glob("*.yaml"))
N = O._observe.N_FEATURES if O._observe is not None else 14


def test_the_c_module_is_built_and_used():
    assert O._observe is not None, \
        "engine/rulesets/saga/_observe.c was not built: reinstall with `python3 bootstrap.py setup`"


def _battles(n: int, seed: int):
    """Battles at every decision: the shipped encounters (doors, windows) and random maps, random legal
    decisions (mostly not ending the turn, so units act: aim, charge, grab, fight defensively, go prone)."""
    rng = random.Random(seed)
    for k in range(n):
        if k % 3 == 0:
            enc = load_encounter(ENCOUNTERS[(k // 3) % len(ENCOUNTERS)], RS)
        else:
            enc = random_encounter(RS, random.Random(seed * 100 + k), rng.choice([8, 12, 16]), 16, sizes=(1, 4))
        b = Battle(enc, RS, SeededDice(seed + k))
        b.start()
        for _ in random_walk(b, rng, 200):
            yield b, rng


def _rows(enc, actor):
    """The units in the order the observation encoder gives them: the actor, its allies, the others."""
    return [actor] + [u for u in enc.units if u.side == actor.side and u is not actor] + \
        [u for u in enc.units if u.side != actor.side]


def _check(enc, actor, units=None) -> bool:
    """C and Python figures agree; True when the C module answered (False: it handed over to Python)."""
    units = _rows(enc, actor) if units is None else units
    want = O._observation_parts_py(enc, actor, units)
    got = O._observe.parts(enc, actor, units, enc.grid.line_codes(), O._profile)
    assert list(O.observation_parts(enc, actor, units)) == want
    if got is None:
        return False
    assert len(got) == len(want)
    assert list(got) == want  # the same doubles: features and both threat directions
    figs = np.asarray(got)
    assert figs.shape == (len(units), N + 5) and figs.dtype == np.float64
    for k, (u, (feats, threat)) in enumerate(zip(units, want)):
        assert figs[k, :N].tolist() == feats
        assert figs[k, N:N + 4].tolist() == (list(threat) if threat is not None else [0.0] * 4)
        reach = u.stats["reach"] if RS.threatens(u) else 0
        assert figs[k, N + 4] == reach
    return True


def _stir(enc, rng: random.Random) -> None:
    """Push a state into conditions random play reaches rarely: every field the figures read, at random."""
    g = enc.grid
    for u in enc.units:
        s = u.state
        n_w = len(u.stats["weapons"])
        if rng.random() < 0.3:
            s["prone"] = not s["prone"]
        if rng.random() < 0.3:
            s["aimed"] = not s["aimed"]
        if rng.random() < 0.2:
            s["charged"] = True
        if rng.random() < 0.2:
            s["defense"] = rng.choice([0, 2, 5, 10])
            s["attack_penalty"] = rng.choice([0, -5])
            s["no_attacks"] = rng.random() < 0.5
        if rng.random() < 0.2:
            s["ct"] = rng.randrange(6)
        if rng.random() < 0.2:
            s["suppressed"] = rng.choice([0, 2])
        if rng.random() < 0.2:
            other = rng.choice(enc.units)
            s["grabbed_by"] = [other.id]
            s["pinned_by"] = other.id if rng.random() < 0.5 else None
        if rng.random() < 0.2 and n_w:
            s["lost"] = rng.sample(range(n_w), rng.randint(0, n_w))
        if rng.random() < 0.3 and n_w:
            s["hands"] = rng.sample(range(n_w), rng.randint(0, min(2, n_w)))
        if rng.random() < 0.3:
            s["modes"] = [rng.randint(-3, 5) for _ in range(n_w)]
        if rng.random() < 0.2 and u.stats["items"]:
            s["active_items"] = rng.sample(range(len(u.stats["items"])), rng.randint(0, len(u.stats["items"])))
        if rng.random() < 0.2:
            s["aoo_used"] = not s["aoo_used"]
            s["winds_used"] = rng.randint(0, 2)
        if rng.random() < 0.3:
            t = rng.choice(enc.units)
            s["aid"] = {t.side: rng.choice([t.id, u.id])}
        if rng.random() < 0.1:
            u.down = not u.down
    for i in range(g.width * g.height):
        if g.terrain[i] == "door" and rng.random() < 0.3:
            g.open_doors.symmetric_difference_update({i})
        elif g.terrain[i] in ("heavy_cover", "low_cover", "window") and rng.random() < 0.05:
            g.broken.add(i)


def test_figures_match_python_on_random_battles():
    n = 0
    seen = dict.fromkeys(("prone", "aimed", "grabbed", "defense", "charged", "down", "door", "threat",
                          "threat from afar", "no threat"), 0)  # pins (the Pin feat): in the stirred states
    for b, _ in _battles(24, seed=1):
        enc, actor = b.enc, b.enc.actor
        assert _check(enc, actor)
        n += 1
        for u in enc.units:
            s = u.state
            seen["prone"] += s["prone"]
            seen["aimed"] += s["aimed"]
            seen["grabbed"] += bool(s["grabbed_by"])
            seen["defense"] += s["defense"] > 0
            seen["charged"] += s["charged"]
            seen["down"] += u.down
        seen["door"] += bool(enc.grid.open_doors or enc.grid.broken)
        for u, (feats, threat) in zip(_rows(enc, actor), O._observation_parts_py(enc, actor, _rows(enc, actor))):
            if threat is not None:
                seen["threat" if threat[1] or threat[3] else "no threat"] += 1
                seen["threat from afar"] += threat[1] > 0 and enc.grid.distance(actor.pos, u.pos) > 2
    assert n > 2000
    assert all(seen.values()), seen  # the battles reached every condition the figures depend on


def test_figures_match_python_on_stirred_states():
    """Clones pushed into random conditions (any mix of the fields read, doors opened, objects broken, units
    downed); where the C module does not represent a state it hands over to Python, never answers wrongly."""
    rng = random.Random(7)
    n = handed_over = pinned = 0
    for b, _ in _battles(12, seed=2):
        if rng.random() < 0.5:
            continue
        enc = b.enc.clone()
        _stir(enc, rng)
        pinned += any(u.state["pinned_by"] is not None for u in enc.units)
        for actor in enc.units:  # every unit as the actor, downed ones included
            try:
                answered = _check(enc, actor)
            except (IndexError, KeyError):  # a stirred state Python itself refuses (a hand beyond the weapons)
                assert O._observe.parts(enc, actor, _rows(enc, actor), enc.grid.line_codes(), O._profile) is None
                continue
            handed_over += not answered
            n += 1
    assert n > 2000 and pinned > 100
    assert handed_over < n / 10  # nearly all stirred states are computed in C


def test_states_outside_the_c_version_go_to_python():
    b = make(["......", "......"], [unit("A", "pcs", (0, 0), PISTOL), unit("B", "npcs", (5, 1), SWORD)])
    enc, a = b.enc, b.enc.unit("A")
    units = _rows(enc, a)
    codes = enc.grid.line_codes()
    a.state["defense"] = 2.5  # not a whole number
    assert O._observe.parts(enc, a, units, codes, O._profile) is None
    assert O.observation_parts(enc, a, units) == O._observation_parts_py(enc, a, units)
    a.state["defense"] = 0
    a.state["hands"] = [7]  # no weapon 7: Python raises, and so does observation_parts
    assert O._observe.parts(enc, a, units, codes, O._profile) is None
    with pytest.raises(IndexError):
        O.observation_parts(enc, a, units)
    a.state["hands"] = [0]
    del a.state["aid"]
    assert O._observe.parts(enc, a, units, codes, O._profile) is None
    a.state["aid"] = {}
    assert _check(enc, a)


def test_clones_and_in_place_mutations_are_never_stale():
    """The same units read again after play mutates their states in place, and clones that diverge."""
    b = make(["........", "..c.....", "........"],
             [unit("A", "pcs", (0, 1), RIFLE, SWORD), unit("B", "npcs", (6, 1), PISTOL, SWORD),
              unit("C", "npcs", (7, 2), SWORD)])
    enc = b.enc
    a = enc.unit("A")
    assert _check(enc, a)
    twin = enc.clone()
    ta = twin.unit("A")
    assert ta.stats is a.stats and ta.state is not a.state  # shared stat block, copied state
    for change in (lambda s: s.update(prone=True), lambda s: s.update(aimed=True), lambda s: s["modes"].__setitem__(0, 2),
                   lambda s: s.update(ct=3), lambda s: s["lost"].append(0), lambda s: s["hands"].append(1),
                   lambda s: s.update(charged=True, defense=5)):
        change(ta.state)
        assert _check(twin, ta) and _check(enc, a)
        change(twin.unit("B").state)
        assert _check(twin, ta) and _check(enc, a)
    assert O._observation_parts_py(twin, ta, _rows(twin, ta)) != O._observation_parts_py(enc, a, _rows(enc, a))
    ta.pos = (1, 0)  # moves and hit points change in place too
    twin.unit("B").hp = 1
    assert _check(twin, ta)
    twin.unit("B").down = True
    assert _check(twin, ta)


def test_a_replaced_stat_block_is_read_anew():
    b = make(["......", "......"], [unit("A", "pcs", (0, 0), PISTOL), unit("B", "npcs", (4, 1), SWORD)])
    enc, a = b.enc, b.enc.unit("A")
    before = list(O.observation_parts(enc, a, _rows(enc, a)))
    stats = copy.deepcopy(a.stats)
    stats["reflex"] += 7
    stats["dex"] += 3
    stats["weapons"][0]["damage"] = "5d10"
    stats["feats"] = ["careful_shot", "deadeye"]
    a.stats = stats
    a.state["aimed"] = True
    after = list(O.observation_parts(enc, a, _rows(enc, a)))
    assert after != before
    assert _check(enc, a)


def test_doors_and_objects_change_the_lines_per_map_and_state():
    rows = ["#########",
            "#...#...#",
            "#.A.+.B.#",
            "#...#...#",
            "#.=...C.#",
            "#########"]
    b = make([r.replace("A", ".").replace("B", ".").replace("C", ".") for r in rows],
             [unit("A", "pcs", (2, 2), RIFLE), unit("B", "npcs", (6, 2), PISTOL), unit("C", "npcs", (6, 4), RIFLE),
              unit("D", "npcs", (1, 4), PISTOL)])
    enc, a = b.enc, b.enc.unit("A")
    g = enc.grid
    door = g.index(4, 2)
    assert _check(enc, a)
    closed = list(O.observation_parts(enc, a, _rows(enc, a)))
    twin = enc.clone()  # shares the map's geometry, not its doors
    twin.grid.open_doors.add(door)
    assert _check(twin, twin.unit("A"))
    assert list(O.observation_parts(twin, twin.unit("A"), _rows(twin, twin.unit("A")))) != closed
    assert _check(enc, a)
    assert list(O.observation_parts(enc, a, _rows(enc, a))) == closed  # the original's doors are still closed
    twin.grid.broken.add(g.index(2, 4))  # the window between A and D
    assert _check(twin, twin.unit("A"))
    other = make(["#########", "#.......#", "#.......#", "#.......#", "#.......#", "#########"],
                 [unit("A", "pcs", (2, 2), RIFLE), unit("B", "npcs", (6, 2), PISTOL)])
    assert _check(other.enc, other.enc.unit("A"))  # a new map of the same size: its own line codes


def test_units_in_any_order_and_the_actor_not_among_them():
    for b, rng in _battles(3, seed=5):
        enc, actor = b.enc, b.enc.actor
        units = list(enc.units)
        rng.shuffle(units)
        assert _check(enc, actor, units)
        assert _check(enc, actor, [u for u in units if u is not actor])
        assert _check(enc, actor, [])


def test_parts_is_a_read_only_sequence_and_buffer():
    b = make(["......", "......"], [unit("A", "pcs", (0, 0), PISTOL), unit("B", "npcs", (4, 1), SWORD)])
    enc, a = b.enc, b.enc.unit("A")
    got = O.observation_parts(enc, a, _rows(enc, a))
    assert isinstance(got, O._observe.Parts) and len(got) == 2
    assert got[1] == got[-1] and got[0][1] is None and len(got[1][1]) == 4
    with pytest.raises(IndexError):
        got[2]
    view = memoryview(got)
    assert view.readonly and view.format == "d" and view.shape == (2, N + 5)
    with pytest.raises(TypeError):
        O._observe.parts(enc, a, None, enc.grid.line_codes(), O._profile)
    with pytest.raises(ZeroDivisionError):  # errors of the profile builder come through
        O._observe.clear_cache()
        O._observe.parts(enc, a, [a], b"", lambda stats: 1 / 0)
    O._observe.clear_cache()
    assert O._observe.cache_size() == 0
    assert _check(enc, a) and O._observe.cache_size() == 2


def test_records_follow_states_changed_in_place():
    """The C records remembered per unit state (while the state dict is unchanged) follow what changes without a
    new value in the dict: lists of hands, lost weapons, modes and active items changed in place, grabbed_by
    filled and emptied in place, the aid dict changed in place, a unit downed, a new stat block."""
    b = make(["........", "........", "........"],
             [unit("A", "pcs", (0, 0), PISTOL, SWORD), unit("B", "npcs", (4, 1), SWORD, RIFLE),
              unit("C", "npcs", (6, 2), RIFLE)])
    enc, a = b.enc, b.enc.unit("A")
    bb, c = enc.unit("B"), enc.unit("C")
    assert _check(enc, a) and _check(enc, bb)
    steps = [
        lambda: a.state["hands"].clear(),
        lambda: a.state["hands"].append(1),
        lambda: a.state["hands"].insert(0, 0),
        lambda: bb.state["lost"].append(0),
        lambda: bb.state["lost"].clear(),
        lambda: bb.state["modes"].__setitem__(1, bb.state["modes"][1] + 1),
        lambda: a.state["grabbed_by"].append(bb.id) if isinstance(a.state["grabbed_by"], list) else None,
        lambda: a.state["grabbed_by"].clear() if isinstance(a.state["grabbed_by"], list) else None,
        lambda: bb.state["aid"].__setitem__(a.side, c.id),
        lambda: bb.state["aid"].clear(),
        lambda: setattr(c, "down", True),
        lambda: setattr(c, "down", False),
        lambda: setattr(bb, "stats", dict(bb.stats, reach=2)),
        lambda: a.state.__setitem__("ct", 2),
    ]
    for k, change in enumerate(steps):
        change()
        for u in enc.units:
            assert _check(enc, u), k
