"""Melee attacks (reach, two-handed Strength, improvised, prone) and Charge."""
import random

import pytest

from engine.core.decision import END

from .helpers import AXE, KNIFE, PISTOL, RS, SWORD, act, actions, first, floor, make, step, u, unit, why

IMPROVISED = {"name": "chair", "kind": "melee", "damage": "1d6", "improvised": True}
LIGHT_2H = {"name": "staff", "kind": "melee", "damage": "1d6", "hands": 2, "light": True}


@pytest.mark.parametrize("weapon,strength,damage", [
    (SWORD, 3, 1 + 3),            # one-handed: Strength once
    (AXE, 3, 1 + 6),              # two-handed: double Strength
    (LIGHT_2H, 3, 1 + 3),         # light weapon: no double Strength
    (AXE, -1, 1 - 1),             # a penalty is not doubled
])
def test_two_handed_double_strength(weapon, strength, damage):
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), weapon, str=strength), unit("T", "npcs", (1, 0), SWORD)])
    ev = step(b, "melee_attack", "T", faces=[19, 1])
    assert first(ev, "damage_roll").get("total") == max(damage, damage)
    assert first(ev, "attack").get("bonus") == strength


def test_improvised_weapon_minus_5():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), IMPROVISED), unit("T", "npcs", (1, 0), SWORD)])
    assert first(step(b, "melee_attack", "T", faces=[2]), "attack").get("bonus") == -5


def test_reach_threatens_two_squares_but_not_through_walls():
    b = make(["....", "#...", "...."], [unit("A", "pcs", (0, 0), SWORD, reach=2, size="large"),
                                        unit("T", "npcs", (2, 0), SWORD), unit("W", "npcs", (0, 2), SWORD)])
    assert act("melee_attack", u(b, "T").id) in b.legal()
    assert "wall or closed door" in why(b, "melee_attack", "W")
    b2 = make(floor(4, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (2, 0), SWORD)])
    assert "beyond A's reach of 1" in why(b2, "melee_attack", "T")


@pytest.mark.parametrize("kind,defense", [("melee_attack", 5), ("ranged_attack", 15)])
def test_prone_target(kind, defense):
    w = SWORD if kind == "melee_attack" else PISTOL
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), w), unit("T", "npcs", (1 if w is SWORD else 4, 0), SWORD)])
    u(b, "T").state["prone"] = True
    assert first(step(b, kind, "T", faces=[1]), "attack").get("defense") == defense


def test_prone_attacker_minus_5_in_melee():
    b = make(floor(3, 1), [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (1, 0), SWORD)])
    u(b, "A").state["prone"] = True
    assert first(step(b, "melee_attack", "T", faces=[1]), "attack").get("bonus") == -5


# ---- charge -------------------------------------------------------------------------------------------
def charge_map(row: str, **over):
    return make([row], [unit("A", "pcs", (0, 0), SWORD, **over), unit("T", "npcs", (len(row) - 1, 0), SWORD)])


def test_charge_plus_2_minus_2_reflex_and_nothing_after():
    b = charge_map("......")
    ev = step(b, "charge", "T", faces=[10, 1])
    assert u(b, "A").pos == (4, 0)
    atk = first(ev, "attack")
    assert atk.get("bonus") == 2 and atk.get("hit")
    assert b.actor.name == "T"  # after a charge nothing else: the turn ended by itself
    assert b.ruleset.unit_summary(u(b, "A"))["reflex"] == 8
    ev = step(b, "melee_attack", "A", faces=[8, 1])
    assert first(ev, "attack").get("defense") == 8 and first(ev, "attack").get("hit")


def test_charge_ends_turn_even_with_move_left():
    b = charge_map("......")
    step(b, "charge", "T", faces=[1])
    assert b.actor.name == "T" and u(b, "A").state["charged"]
    step(b, "end_turn")
    assert not u(b, "A").state["charged"]  # the -2 lasts until the start of A's next turn


@pytest.mark.parametrize("row,legal,reason", [
    ("......", True, None),
    ("..c...", False, "the low object at (2, 0)"),
    (".~~~~.", False, "costs 8 squares"),          # difficult terrain costs double: 8 > speed 6
    (".~....", True, None),                        # 5 squares of cost, within speed
    ("........", True, None),                      # 6 squares to walk + reach 1 = 7
    (".........", False, "8 squares away"),         # 6 squares to walk + reach 1 < 8
    ("..", False, "already next to T"),            # already adjacent: a charge must end nearer
])
def test_charge_line(row, legal, reason):
    b = charge_map(row)
    t = u(b, "T")
    assert (act("charge", t.id) in b.legal()) == legal
    if not legal:
        assert reason in why(b, "charge", "T")


# A charge moves toward its target: its end square must be nearer the target (the map's distance) than the
# charger's square. Issue 24: the heuristic charged from (11, 4) to (11, 2) at (10, 3), and from (10, 2) to (12, 2)
# at (11, 3), a sideways step for the +2.
@pytest.mark.parametrize("rows,a_at,t_at,reach,legal,reason", [
    (floor(14, 6), (11, 4), (10, 3), 1, False, "already next to T"),
    (floor(14, 6), (10, 2), (11, 3), 1, False, "already next to T"),
    (floor(14, 6), (11, 1), (11, 3), 1, True, None),  # 2 squares away: to (10, 3), by (10, 2) (T's threat: AoO)
    (floor(14, 6), (8, 3), (11, 3), 1, True, None),
    (floor(14, 6), (7, 3), (10, 3), 2, True, None),   # reach 2: it ends 1 or 2 squares from T, nearer than 3
    (["....."], (0, 0), (3, 0), 3, True, None),       # reach 3, already within it: to (2, 0), nearer
    ([".c.c#", "#...c", ".#.#c"], (0, 2), (2, 1), 2, False,   # the one end 2 squares off is 2 from T too
     "(0, 0) is no nearer to T than A is now (2 squares)"),
])
def test_charge_must_end_nearer_the_target(rows, a_at, t_at, reach, legal, reason):
    b = make(rows, [unit("A", "pcs", a_at, SWORD, reach=reach), unit("T", "npcs", t_at, SWORD)])
    assert ("charge" in actions(b)) == legal
    if legal:
        start = b.enc.grid.distance(a_at, t_at)
        step(b, "charge", "T", faces=[1, 1])
        assert b.enc.grid.distance(u(b, "A").pos, t_at) < start and u(b, "A").state["charged"]
    else:
        assert reason in why(b, "charge", "T")


def test_charge_blocked_by_enemy_not_by_ally():
    units = [unit("A", "pcs", (0, 0), SWORD), unit("T", "npcs", (5, 0), SWORD), unit("X", "npcs", (2, 0), PISTOL)]
    b = make(["......", "######"], units)
    assert "X (an enemy) at (2, 0)" in why(b, "charge", "T")
    units[2]["side"] = "pcs"
    b = make(["......", "######"], units)
    assert act("charge", u(b, "T").id) in b.legal()


def test_charge_needs_melee_weapon_and_standing():
    b = make(floor(6, 1), [unit("A", "pcs", (0, 0), PISTOL), unit("T", "npcs", (5, 0), SWORD)])
    assert "no melee weapon" in why(b, "charge", "T")
    b = charge_map("......")
    u(b, "A").state["prone"] = True
    b.enc.version += 1
    assert "prone" in why(b, "charge", "T")


def test_charge_through_threat_provokes():
    units = [unit("A", "pcs", (0, 1), SWORD), unit("T", "npcs", (5, 1), SWORD), unit("G", "npcs", (1, 0), SWORD)]
    b = make(floor(6, 3), units)
    ev = step(b, "charge", "T", faces=[1, 1])  # G's attack of opportunity misses, the charge misses
    assert first(ev, "aoo").actor == u(b, "G").id
    assert b.actor.name != "A" and END in b.legal()


# ---- charge lines in every direction ------------------------------------------------------------------
# A charge walks its straight line from the charger's square: its cost is the walking cost along the squares in
# that order (every second diagonal step costs 2, difficult terrain doubles a step), whichever way the line
# points. Each row is a line to the lower right: (end offset from the charger, difficult squares on the line,
# its walking cost at speed 6). Every row is checked in all 8 orientations (mirrored in x and y, and
# transposed); the target stands one step beyond the end, its other neighbours taken by the charger's allies,
# so the end is the only square the charge can end on.
CHARGE_ROWS = [
    ((6, 0), (), 6),                  # straight, exactly speed
    ((7, 0), (), 7),                  # one square too far (the target is also beyond speed + reach)
    ((5, 0), ((2, 0),), 6),           # difficult terrain counts double
    ((5, 0), ((2, 0), (4, 0)), 7),    # ... twice is over speed (the target is within speed + reach)
    ((4, 4), (), 6),                  # diagonal: 1 + 2 + 1 + 2
    ((5, 5), (), 7),
    ((3, 3), ((1, 1),), 5),           # difficult first diagonal: 2 + 2 + 1
    ((3, 3), ((2, 2),), 6),           # difficult second diagonal: 1 + 4 + 1
    ((3, 3), ((2, 2), (3, 3)), 7),    # 1 + 4 + 2
    ((2, 1), (), 2),                  # knight's move: a diagonal and a straight step
    ((4, 2), (), 5),                  # walked (1,1) (2,1) (3,2) (4,2): 1 + 1 + 2 + 1
    ((4, 2), ((1, 1),), 6),           # 2 + 1 + 2 + 1
    ((4, 2), ((3, 2),), 7),           # 1 + 1 + 4 + 1
    ((4, 3), (), 5),
    ((5, 3), (), 6),
    ((6, 1), (), 6),
    ((6, 2), (), 7),
    ((5, 4), (), 7),
]
ORIENTATIONS = [(sx, sy, swap) for sx in (1, -1) for sy in (1, -1) for swap in (False, True)]
CHARGER = (9, 9)


def _orient(xy, sx, sy, swap):
    x, y = (xy[1], xy[0]) if swap else xy
    return sx * x, sy * y


def _charge_battle(end_off, rough_offs):
    """A speed-6 charger at CHARGER; the target one step beyond end_off along its longer axis, allies of the
    charger on its other neighbours (allies neither stop a charge nor leave their squares free to end on)."""
    rows = [["."] * 19 for _ in range(19)]
    cx, cy = CHARGER
    for dx, dy in rough_offs:
        rows[cy + dy][cx + dx] = "~"
    (dx, dy), sign = end_off, lambda v: (v > 0) - (v < 0)
    ex, ey = cx + dx, cy + dy
    tx, ty = (ex + sign(dx), ey) if abs(dx) >= abs(dy) else (ex, ey + sign(dy))
    units = [unit("A", "pcs", CHARGER, SWORD), unit("T", "npcs", (tx, ty), SWORD)]
    for y in range(ty - 1, ty + 2):
        for x in range(tx - 1, tx + 2):
            if (x, y) not in ((ex, ey), (tx, ty)):
                units.append(unit(f"P{len(units)}", "pcs", (x, y), SWORD))
    return make(["".join(r) for r in rows], units), (ex, ey)


def _row_id(row):
    (dx, dy), rough, cost = row
    return f"{dx},{dy}" + (f"~{len(rough)}" if rough else "") + f"={cost}"


@pytest.mark.parametrize("orientation", ORIENTATIONS, ids=lambda o: f"{o[0]:+d}{o[1]:+d}{'T' if o[2] else ''}")
@pytest.mark.parametrize("row", CHARGE_ROWS, ids=_row_id)
def test_charge_in_every_direction_costs_the_straight_walk(row, orientation):
    off, rough, cost = row
    off = _orient(off, *orientation)
    b, end = _charge_battle(off, [_orient(r, *orientation) for r in rough])
    enc, a, t = b.enc, u(b, "A"), u(b, "T")
    g = enc.grid
    ok, squares, line_cost = RS._charge_line(g, a.pos, end)
    assert ok and line_cost == cost
    assert set(squares) == set(RS._charge_line(g, end, a.pos)[1]) - {a.pos} | {end}  # the same line both ways
    legal = cost <= 6
    assert (act("charge", t.id) in b.legal()) == legal
    assert list(RS._charges(enc, a, t, enc.occupied(), 6, 1)) == ([(cost, end)] if legal else [])
    if not legal:
        assert "charge" in why(b, "charge", "T").lower()
        return
    got_end, path = RS._charge_end(enc, a, t)
    assert got_end == end and path[-1] == end and len(path) == max(abs(off[0]), abs(off[1]))
    prev = a.pos
    for sq in path:  # one king step at a time along the line, from the charger
        assert max(abs(sq[0] - prev[0]), abs(sq[1] - prev[1])) == 1 and sq in squares
        prev = sq
    assert g.path_cost(a.pos, path) == cost
    ev = step(b, "charge", "T", faces=[10, 1])
    move = first(ev, "move")
    assert move.get("start") == CHARGER and move.get("end") == end == a.pos and move.get("squares") == len(path)
    atk = first(ev, "attack")
    assert atk.get("bonus") == 2 and atk.get("hit")
    assert not any(e.kind == "aoo" for e in ev)


def test_charge_up_left_costs_the_same_as_down_right():
    """On a map symmetric through the charger's square, every line costs what its mirror image costs."""
    rng = random.Random(7)
    grid = [[rng.choice("......~~c") for _ in range(15)] for _ in range(15)]
    for y in range(15):
        for x in range(15):
            grid[14 - y][14 - x] = grid[y][x] if (y, x) < (7, 7) else grid[14 - y][14 - x]
    grid[7][7] = "."
    rows = ["".join(r) for r in grid]
    assert all(r == rows[14 - k][::-1] for k, r in enumerate(rows))  # point-symmetric about (7, 7)
    b = make(rows, [unit("A", "pcs", (7, 7), SWORD), unit("T", "npcs", (0, 0), SWORD)])
    g, (cx, cy) = b.enc.grid, u(b, "A").pos
    seen = set()
    for dy in range(-7, 8):
        for dx in range(-7, 8):
            if max(abs(dx), abs(dy)) < 2:
                continue
            ok, sqs, cost = RS._charge_line(g, (cx, cy), (cx + dx, cy + dy))
            ok2, sqs2, cost2 = RS._charge_line(g, (cx, cy), (cx - dx, cy - dy))
            assert (ok, cost) == (ok2, cost2), (dx, dy)
            assert sqs2 == tuple((2 * cx - x, 2 * cy - y) for x, y in sqs)  # in walking order, mirrored
            path = RS._line_path(g, (cx, cy), (cx + dx, cy + dy))
            assert RS._line_path(g, (cx, cy), (cx - dx, cy - dy)) == [(2 * cx - x, 2 * cy - y) for x, y in path]
            seen.add(cost)
    assert len(seen) > 5


# ---- charge range: the "too far" pre-check ------------------------------------------------------------
# Under the alternating metric a target diagonally next to the end square can be one square further away than
# speed + reach (distance is not additive: 5,3 -> 6 and 1,1 -> 1, but 6,4 -> 8), and such a charge is legal.
# (The walk along 5,3 is 1,1 2,1 3,2 4,3 5,3: 1 + 1 + 2 + 1 + 1.) Each row: (speed, reach, end offset from the charger or None when no charge is possible, target offset, rough
# squares, low objects, reason when illegal). Every row is checked in all 8 orientations on an open map.
RANGE_ROWS = [
    (6, 1, (5, 3), (6, 4), (), (), None),             # end costs exactly 6 (1+1+2+1+1); target 8 away
    (6, 1, (6, 1), (7, 2), (), (), None),             # end costs 6; target 8 away
    (4, 1, (3, 3), (4, 4), (), (), None),             # end costs 4 (1+2+1); target 6 away
    (6, 2, (5, 3), (7, 4), (), (), None),             # reach 2: end costs 6; target 9 away
    (6, 1, None, (6, 4), ((2, 1),), (), "costs 7 squares"),     # a difficult square on the walk: not "too far"
    (6, 1, None, (6, 4), (), ((3, 2),), "the low object at"),   # within range but blocked: named
    (6, 1, None, (7, 5), (), (), "T is 9 squares away"),        # truly out of range: every end over speed
    (6, 1, None, (8, 0), (), (), "T is 8 squares away"),
    (4, 1, None, (5, 3), (), (), "T is 6 squares away"),
]


def _range_battle(speed, reach, t_off, rough, low):
    rows = [["."] * 21 for _ in range(21)]
    cx, cy = 10, 10
    for ch, offs in (("~", rough), ("c", low)):
        for dx, dy in offs:
            rows[cy + dy][cx + dx] = ch
    over = {"speed": speed} if reach == 1 else {"speed": speed, "reach": reach, "size": "large"}
    units = [unit("A", "pcs", (cx, cy), SWORD, **over), unit("T", "npcs", (cx + t_off[0], cy + t_off[1]), SWORD)]
    return make(["".join(r) for r in rows], units)


@pytest.mark.parametrize("orientation", ORIENTATIONS, ids=lambda o: f"{o[0]:+d}{o[1]:+d}{'T' if o[2] else ''}")
@pytest.mark.parametrize("row", RANGE_ROWS, ids=lambda r: f"s{r[0]}r{r[1]}-{r[3][0]},{r[3][1]}-{r[2]}")
def test_charge_at_a_target_diagonally_past_speed_plus_reach(row, orientation):
    speed, reach, end_off, t_off, rough, low, reason = row
    o = lambda xy: _orient(xy, *orientation)  # noqa: E731
    b = _range_battle(speed, reach, o(t_off), [o(r) for r in rough], [o(c) for c in low])
    enc, a, t = b.enc, u(b, "A"), u(b, "T")
    start = a.pos
    legal = end_off is not None
    assert (act("charge", t.id) in b.legal()) == legal
    if not legal:
        assert list(RS._charges(enc, a, t, enc.occupied(), speed, reach)) == []
        assert RS._charge_end(enc, a, t) is None
        assert reason in why(b, "charge", "T")
        return
    end = (start[0] + o(end_off)[0], start[1] + o(end_off)[1])
    assert [e for _, e in RS._charges(enc, a, t, enc.occupied(), speed, reach)] == [end]
    assert RS._charge_end(enc, a, t)[0] == end
    ev = step(b, "charge", "T", faces=[10, 1])
    assert first(ev, "move").get("end") == end == a.pos
    atk = first(ev, "attack")
    assert atk.get("bonus") == 2 and atk.get("hit")


def test_charge_range_example_from_the_bug_report():
    b = make(floor(19, 19), [unit("A", "pcs", (9, 9), SWORD), unit("T", "npcs", (15, 13), SWORD)])
    enc, a, t = b.enc, u(b, "A"), u(b, "T")
    assert list(RS._charges(enc, a, t, enc.occupied(), 6, 1)) == [(6, (14, 12))]
    assert act("charge", t.id) in b.legal()
    ev = step(b, "charge", "T", faces=[10, 1])
    assert a.pos == (14, 12) and first(ev, "attack").get("hit")


# ---- charge lines and wall corners -------------------------------------------------------------------
# A charge goes through squares the charger could move through: as for movement, a diagonal step may not cut
# a wall's corner (engine/core/grid.py), even when the line itself touches no wall. Only walls have corners
# that stop a diagonal step; low objects do not (they only block a charge when the line touches them).
# Each row: (map, charger, target, reason when refused or None, end square when legal).
CORNER_ROWS = [
    ([".#....", "#.....", "......", "......"], (0, 0), (3, 3), "the corner of the wall at (1, 0)", None),
    ([".#....", "......", "......", "......"], (0, 0), (3, 3), "the corner of the wall at (1, 0)", None),
    (["......", "#.....", "......", "......"], (0, 0), (3, 3), "the corner of the wall at (0, 1)", None),
    (["......", "......", "...#..", "......", "......"], (0, 0), (4, 4), "the corner of the wall at (3, 2)", None),
    (["......", "......", "...#..", "..#...", "......"], (3, 3), (0, 0), "the corner of the wall at (2, 3)", None),
    (["..#...", "......", "#.....", "......"], (0, 0), (3, 3), None, (2, 2)),    # walls off the walked steps
    ([".c....", "c.....", "......", "......"], (0, 0), (3, 3), None, (2, 2)),    # low objects have no "corner"
    ([".+....", "+.....", "......", "......"], (0, 0), (3, 3), None, (2, 2)),    # nor closed doors (as moving)
]


@pytest.mark.parametrize("rows,start,target,reason,end", CORNER_ROWS)
def test_charge_cannot_cut_a_wall_corner(rows, start, target, reason, end):
    b = make(rows, [unit("A", "pcs", start, SWORD), unit("T", "npcs", target, SWORD)])
    enc, a, t = b.enc, u(b, "A"), u(b, "T")
    legal = reason is None
    assert (act("charge", t.id) in b.legal()) == legal
    if not legal:
        assert RS._charge_end(enc, a, t) is None
        assert reason in why(b, "charge", "T")
        return
    assert RS._charge_end(enc, a, t)[0] == end
    ev = step(b, "charge", "T", faces=[10, 1])
    assert first(ev, "move").get("end") == end == a.pos
    assert first(ev, "attack").get("hit")


def test_charge_line_and_movement_agree_on_corners():
    """Where the walked line steps diagonally past a wall, movement cannot make that step either."""
    b = make([".#....", "#.....", "......", "......"], [unit("A", "pcs", (0, 0), SWORD),
                                                       unit("T", "npcs", (5, 3), SWORD)])
    g = b.enc.grid
    assert g.index(1, 1) not in g.reachable((0, 0), 6)
    ok, _, _ = RS._charge_line(g, (0, 0), (2, 2))
    assert not ok


def test_a_charge_lines_squares_come_in_the_order_walked():
    """`_line_squares`: the squares a charge line touches (`Grid.between`, whichever end it is traced from) plus
    its end, each strictly further along the line than the one before, on every line of a 9x9 map."""
    from engine.core.grid import Grid
    from engine.rulesets.saga.ruleset import SagaRuleset

    g = Grid(["." * 9] * 9)
    lines = 0
    for start in [(x, y) for y in range(9) for x in range(9)]:
        for end in [(x, y) for y in range(9) for x in range(9)]:
            if start == end:
                continue
            sqs = SagaRuleset._line_squares(g, start, end)
            dx, dy = end[0] - start[0], end[1] - start[1]
            along = [(x - start[0]) * dx + (y - start[1]) * dy for x, y in sqs]
            assert along == sorted(set(along)), (start, end)  # strictly increasing
            assert sorted(sqs[:-1]) == sorted(g.xy(i) for i in g.between(start, end)) and sqs[-1] == end
            lines += len(sqs) > 2
    assert lines > 4000
