"""The battle map: terrain from an ASCII map, distance, sight and effect lines, cover, movement.

Squares are addressed by (x, y) outside and by a flat index `y * width + x` inside, which keeps the
hot loops (reachability, line checks) on plain ints. Geometry that never changes (neighbours, lines
between squares) is computed once per map and shared by every clone of the encounter; what can change
(open doors) lives in `open_doors`.
"""
from __future__ import annotations

import heapq
from array import array
from functools import cached_property, lru_cache
from typing import Iterable

from .errors import InputError

try:  # the movement searches in C (engine/core/_native.c), built by `pip install`; Python below otherwise
    from . import _native
except ImportError:  # pragma: no cover - only without a C compiler
    _native = None

TERRAINS = ("floor", "wall", "low_cover", "heavy_cover", "difficult", "door", "open_door", "window")
DEFAULT_LEGEND = {"#": "wall", ".": "floor", "c": "low_cover", "C": "heavy_cover", "~": "difficult",
                  "+": "door", "/": "open_door", "=": "window"}
# Squares a creature cannot stand in or move through (a closed door is handled separately).
_SOLID = {"wall", "heavy_cover", "window"}
_DOUBLE_COST = {"difficult", "low_cover"}
# What a square does to a line through it: 4 blocks sight and effect, 3 effect only, 2 / 1 heavy / low cover.
_LINE_CODES = {"wall": 4, "door": 4, "window": 3, "heavy_cover": 2, "low_cover": 1}
_KIND_CODE = {t: k for k, t in enumerate(TERRAINS)}  # a square's kind as a byte: its place in TERRAINS
WALL_CODE = _KIND_CODE["wall"]
# `Grid.sight`'s answer for each code of `_native.sight` (los | loe << 1 | cover << 2)
_SIGHTS = tuple((bool(c & 1), bool(c & 2), ("none", "low", "heavy", "none")[c >> 2]) for c in range(16))


def _per_kind(value) -> bytes:
    """A `bytes.translate` table from kind codes (`Grid.kind_codes`) to `value(kind)`."""
    return bytes([value(t) for t in TERRAINS]) + bytes(256 - len(TERRAINS))


_LINE_TABLE = _per_kind(lambda t: _LINE_CODES.get(t, 0))
_WALL_TABLE = _per_kind(lambda t: t == "wall")
_MULTIPLIER_TABLE = _per_kind(lambda t: 0 if t in _SOLID or t == "door" else 2 if t in _DOUBLE_COST else 1)
# by kind code, for rules that walk squares: whether a creature can stand in or move through the square
# (`Grid.passable`), what entering it costs (`Grid.enter_cost`)
PASSABLE = _per_kind(lambda t: t not in _SOLID and t != "door")
ENTER_COST = _per_kind(lambda t: 2 if t in _DOUBLE_COST else 1)
DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
METRICS = ("alternating", "chebyshev", "manhattan")
# Shapes shared by every map: (metric, reach) -> offsets of `within` in its order; (dx, dy, width) -> flat
# offsets of a line's squares (a line's squares depend only on the offset between its ends, see `_trace`).
_WITHIN: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
_LINES: dict[tuple[int, int, int], tuple[int, ...]] = {}


def metric_distance(metric: str, dx: int, dy: int) -> int:
    """The distance of an offset (dx, dy) under a metric of `METRICS`: 'alternating' (d20: every second diagonal
    counts 2), 'chebyshev' (a diagonal counts 1), else 'manhattan'. The rule, once (`Grid.distance`; in C
    engine/core/_geometry.h's metric_distance)."""
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    if metric == "alternating":
        return dx + dy // 2 if dx >= dy else dy + dx // 2
    if metric == "chebyshev":
        return dx if dx >= dy else dy
    return dx + dy


def _legend_kinds(legend: dict[str, str]) -> tuple[dict[str, str], bytes | None]:
    """The terrain of each symbol of a legend (an open door's: a door) and, when every symbol is a latin-1
    character, the `bytes.translate` table from a symbol's byte to the kind code of its terrain (`Grid.kind_codes`
    with every door closed); InputError for a bad legend."""
    for k, v in legend.items():
        if not isinstance(k, str) or len(k) != 1:
            raise InputError(f"legend symbol {k!r} is not one character", "legend",
                             "map one map character to one terrain, e.g. {\"c\": low_cover}")
        if not isinstance(v, str) or v not in TERRAINS:
            raise InputError(f"legend maps '{k}' to unknown terrain '{v}'", "legend",
                             f"use one of {', '.join(TERRAINS)}")
    kinds = {k: "door" if v == "open_door" else v for k, v in legend.items()}
    if any(ord(k) > 255 for k in kinds):
        return kinds, None
    table = bytearray(256)
    for k, v in kinds.items():
        table[ord(k)] = _KIND_CODE[v]
    return kinds, bytes(table)


_DEFAULT_KINDS = _legend_kinds(DEFAULT_LEGEND)  # the legend of most maps, checked once


class Grid:
    """A rectangular map of 5-ft squares. `metric` is how the ruleset counts distance:
    'alternating' (d20: every second diagonal costs 2), 'chebyshev' (diagonal = 1), 'manhattan'."""

    def __init__(self, rows: list[str], legend: dict[str, str] | None = None, metric: str = "alternating"):
        custom = legend
        legend = dict(DEFAULT_LEGEND, **(legend or {}))
        if not rows:
            raise InputError("the map is empty", "map", "draw at least one row of squares")
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            w0 = len(rows[0])
            bad = next(i for i, r in enumerate(rows) if len(r) != w0)
            raise InputError(f"map row {bad + 1} has {len(rows[bad])} squares but row 1 has {w0}",
                             f"map line {bad + 1}", "make every map row the same length")
        if metric not in METRICS:
            raise InputError(f"unknown distance metric '{metric}'", "metric", f"use one of {METRICS}")
        kinds, table = _legend_kinds(legend) if custom else _DEFAULT_KINDS
        self.width, self.height, self.metric = len(rows[0]), len(rows), metric
        self.rows = list(rows)
        self.legend = legend
        squares = "".join(rows)
        try:
            self.terrain: list[str] = list(map(kinds.__getitem__, squares))
        except KeyError:
            y, x = next((y, x) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch not in legend)
            raise InputError(f"column {x + 1}: unknown symbol '{rows[y][x]}'", f"map line {y + 1}",
                             f"use one of {''.join(sorted(legend))} or add it to the legend") from None
        opens = [k for k, v in legend.items() if v == "open_door" and k in squares]
        self.open_doors: set[int] = {i for i, ch in enumerate(squares) if ch in opens} if opens else set()
        self.broken: set[int] = set()  # doors / objects destroyed in play: now open floor
        self._doors_now: tuple | None = None  # `_door_key`'s last key, kept while the doors stand as it says
        self._geometry = _Geometry(self, None if table is None else squares.encode("latin-1").translate(table))

    # ---- addressing -------------------------------------------------------------------------
    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, i: int) -> tuple[int, int]:
        return i % self.width, i // self.width

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def kind(self, i: int) -> str:
        """Terrain at a square as play stands now (open doors and broken objects included)."""
        t = self.terrain[i]
        if i in self.broken:
            return "floor"
        if t == "door" and i in self.open_doors:
            return "open_door"
        return t

    def kind_codes(self) -> bytes:
        """Per square, the place in TERRAINS of its `kind` as play stands now; cached per map and door state."""
        geo = self._geometry
        if not self.open_doors and not self.broken:
            return geo.codes
        return geo.door_codes(self, self._door_key())[0]

    def line_codes(self) -> bytes:
        """Per square, what it does to a line through it as play stands now: 4 blocks sight and effect, 3 effect
        only, 2 / 1 heavy / low cover, else 0 (the codes of `sight`); cached per map and door state."""
        geo = self._geometry
        if not self.open_doors and not self.broken:
            return geo.line_codes
        return geo.door_codes(self, self._door_key())[1]

    def clone(self) -> "Grid":
        g = object.__new__(Grid)
        g.__dict__.update(self.__dict__)
        g.open_doors = set(self.open_doors)
        g.broken = set(self.broken)
        return g

    # ---- doors --------------------------------------------------------------------------------
    def doors(self) -> tuple[int, ...]:
        """The map's door squares (flat indices), open or closed, broken ones included (the terrain never changes:
        check `broken` and `open_doors` for how each stands now); cached with the map's shared geometry."""
        geo = self._geometry
        got = geo.memo.get("doors")
        if got is None:
            got = geo.memo["doors"] = tuple(i for i, t in enumerate(self.terrain) if t == "door")
        return got

    def doors_at_hand(self, pos: tuple[int, int], taken: set[int]) -> list[int]:
        """Door squares next to pos (not broken) that a unit there can open or close: an open one only with nobody in
        the doorway (`taken`: the squares units stand in)."""
        x, y = pos
        w = self.width
        doors = [i for i in self.doors() if abs(i % w - x) <= 1 and abs(i // w - y) <= 1 and i not in self.broken]
        return [i for i in doors if i not in self.open_doors or i not in taken] if doors else doors

    def toggle_door(self, i: int) -> bool:
        """Open the closed door at square i, or close the open one; True if it is open now."""
        if self.terrain[i] != "door" or i in self.broken:
            raise ValueError(f"no door at square {self.xy(i)}")
        if i in self.open_doors:
            self.open_doors.discard(i)
            return False
        self.open_doors.add(i)
        return True

    # ---- properties of squares ----------------------------------------------------------------
    def passable(self, i: int) -> bool:
        t = self.kind(i)
        return t not in _SOLID and t != "door"

    def blocks_sight(self, i: int) -> bool:
        t = self.kind(i)
        return t == "wall" or t == "door"

    def blocks_effect(self, i: int) -> bool:
        t = self.kind(i)
        return t == "wall" or t == "door" or t == "window"

    def enter_cost(self, i: int) -> int:
        return 2 if self.kind(i) in _DOUBLE_COST else 1

    # ---- distance ----------------------------------------------------------------------------
    def distance(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        """Squares from a to b under the map's metric (`metric_distance`)."""
        return metric_distance(self.metric, a[0] - b[0], a[1] - b[1])

    def walk_floor(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        """The least a walk from a to b can cost (`path_cost`): every step costs at least 1 and a diagonal one counts
        as the metric counts it, except under 'manhattan', whose walks step diagonally for 1 (the chebyshev
        distance there, the map's distance otherwise)."""
        return metric_distance("chebyshev" if self.metric == "manhattan" else self.metric, a[0] - b[0], a[1] - b[1])

    def within(self, center: tuple[int, int], reach: int) -> list[tuple[int, int]]:
        """Squares other than `center` within `reach` squares, inside the map."""
        key = (self.metric, reach)
        offs = _WITHIN.get(key)
        if offs is None:
            offs = _WITHIN[key] = tuple((dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)
                                        if (dx or dy) and self.distance((0, 0), (dx, dy)) <= reach)
        cx, cy = center
        w, h = self.width, self.height
        if reach <= cx < w - reach and reach <= cy < h - reach:  # all inside the map
            return [(cx + dx, cy + dy) for dx, dy in offs]
        out = []
        for dx, dy in offs:
            x, y = cx + dx, cy + dy
            if 0 <= x < w and 0 <= y < h:
                out.append((x, y))
        return out

    # ---- lines ----------------------------------------------------------------------------------
    def between(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, ...]:
        """Indices of the squares a centre-to-centre line from a to b passes through, ends excluded."""
        return self._geometry.line(self.index(*a), self.index(*b))

    def line_of_sight(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """No wall or closed door between a and b."""
        w = self.width
        return self.sight(a[1] * w + a[0], b[1] * w + b[0])[0]

    def line_of_effect(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """Line of sight, and nothing solid but see-through (a window, a force field) in the way."""
        w = self.width
        return self.sight(a[1] * w + a[0], b[1] * w + b[0])[1]

    def cover_between(self, a: tuple[int, int], b: tuple[int, int]) -> str:
        """'none', 'low' or 'heavy': the best cover terrain on the line from a to b."""
        w = self.width
        return self.sight(a[1] * w + a[0], b[1] * w + b[0])[2]

    def sight(self, a: int, b: int) -> tuple[bool, bool, str]:
        """(line of sight, line of effect, cover) between squares a and b (flat indices), for the doors and
        broken objects as they stand now; cached per map and door state."""
        geo = self._geometry
        dk = self._door_key() if self.open_doors or self.broken else None
        table = geo.sight_tables.get(dk)
        if table is None:
            table = geo.sight_table(dk)
        key = a * geo.size + b if a <= b else b * geo.size + a  # the line is the same both ways
        got = table.get(key)
        if got is None:
            if _native is not None:
                got = _SIGHTS[_native.sight(self.line_codes(), self.width, a, b)]
            else:
                got = self._fold_line(a, b)
            if len(table) > 200_000:
                table.clear()
            table[key] = got
        return got

    def _fold_line(self, a: int, b: int) -> tuple[bool, bool, str]:
        """`sight` of squares a and b from the squares between them, in Python (`_native.sight` in C)."""
        codes = self.line_codes()
        los = loe = True
        cover = "none"
        for i in self._geometry.line(a, b):
            c = codes[i]
            if c:
                if c == 4:
                    los = loe = False
                elif c == 3:
                    loe = False
                elif c == 2:
                    cover = "heavy"
                elif cover == "none":
                    cover = "low"
        return los, loe, cover

    def distance_field(self, starts, costs: bytes) -> list[int]:
        """Per square (flat index) the least cost of walking to it from the nearest of the squares `starts` ((x, y),
        0 there): king steps that do not cut the corner of a wall, entering square i costing `costs[i]` (a byte per
        square; 0: it cannot be entered); 99 where nothing reaches. How far the enemies are for a heuristic
        walking round walls (what a square costs is the caller's: doors to open, cover to go round)."""
        w = self.width
        flat = [y * w + x for x, y in starts]
        if _native is not None:
            return _native.distance_field(w, self._geometry._walls, costs, flat)
        inf = 1 << 30
        dist = [inf] * len(costs)
        buckets: list[list[int]] = [[]]
        for i in flat:
            dist[i] = 0
            buckets[0].append(i)
        neighbours = self._geometry.neighbours
        k = 0
        while k < len(buckets):  # a bucket queue over the (small, integer) costs: Dijkstra's least costs
            for i in buckets[k]:  # every cost is >= 1: nothing is added to bucket k while it is walked
                if dist[i] != k:
                    continue
                for j, _diag in neighbours[i]:
                    c = costs[j]
                    if c:
                        nd = k + c
                        if nd < dist[j]:
                            dist[j] = nd
                            while len(buckets) <= nd:
                                buckets.append([])
                            buckets[nd].append(j)
            k += 1
        return [99 if d == inf else d for d in dist]

    def ray(self, start: tuple[int, int], direction: tuple[int, int], steps: int) -> list[tuple[int, int]]:
        """Squares along one of the 8 straight directions, up to `steps` squares or the map edge."""
        out, (x, y), (dx, dy) = [], start, direction
        for _ in range(steps):
            x, y = x + dx, y + dy
            if not self.inside(x, y):
                break
            out.append((x, y))
        return out

    # ---- movement ---------------------------------------------------------------------------------
    def _steps(self) -> list[tuple[tuple[int, bool, int], ...]]:
        """Per square, the moves out of it as (square, diagonal, cost multiplier) into passable squares,
        for the doors and broken objects as they stand now (cached on the shared geometry)."""
        return self._geometry.steps(self, self._door_key())

    def _door_key(self):
        """Identifies the state of doors and broken objects (None: all closed, nothing broken)."""
        ob, br = self.open_doors, self.broken
        if not ob and not br:
            return None
        got = self._doors_now
        if got is None or got[0] != ob or got[1] != br:  # the sets are public: compared, never trusted unchanged
            got = self._doors_now = (frozenset(ob), frozenset(br))
        return got

    def door_memo(self, name: str, cap: int | None = None) -> dict:
        """A rules memo kept with the map's shared geometry under `name`, one per state of its doors and broken
        objects (32 states at most); emptied when it holds more than `cap` entries."""
        tables = self._geometry.memo.setdefault(name, {})
        key = self._door_key()
        got = tables.get(key)
        if got is None:
            if len(tables) > 32:
                tables.clear()
            got = tables[key] = {}
        elif cap is not None and len(got) > cap:
            got.clear()
        return got

    def reachable(self, start: tuple[int, int], budget: int, no_pass: Iterable[int] = (),
                  no_stop: Iterable[int] = ()) -> dict[int, int]:
        """Squares (flat index -> cost in squares) reachable from `start` within `budget`.

        `no_pass`: squares that cannot be entered (enemies); `no_stop`: squares that can be passed but not
        ended in (allies). Diagonals cannot cut a wall's corner. Difficult terrain and low objects cost double.
        """
        geo = self._geometry
        dk = self._door_key()
        s = start[1] * self.width + start[0]
        budget = min(budget, 4 * geo.size)  # no path costs more than 4 per square
        # Squares a unit-free search does not reach are never entered, so blockers there change nothing:
        # the unit-free result (cached per map, door state, start and budget) is then the answer as it is.
        key = (s, budget, dk)
        free = geo.free_reach.get(key)
        if free is not None:
            inside = tuple(sorted({b for b in no_pass if b in free}))
        else:
            # No walk costs less than its number of steps (nor, counting diagonals as d20 does, less than the
            # alternating distance), so blockers further away than the budget change nothing either: with
            # some near, search with those instead of first searching without any.
            xys, floor = geo.xys, self.walk_floor
            near = {b for b in no_pass if floor(xys[b], start) <= budget}
            inside = tuple(sorted(near))
            if not inside:
                if len(geo.free_reach) > 8192:
                    geo.free_reach.clear()
                free = geo.free_reach[key] = self._search(dk, s, budget, ())
        if not inside:
            best = dict(free)
        else:
            key = (s, budget, dk, inside)  # only blockers the free search reaches can change the answer
            got = geo.blocked_reach.get(key)
            if got is None:
                if len(geo.blocked_reach) > 8192:
                    geo.blocked_reach.clear()
                got = geo.blocked_reach[key] = self._search(dk, s, budget, inside)
            best = dict(got)
        for j in no_stop:
            best.pop(j, None)
        return best

    def _search(self, dk, s: int, budget: int, blocked) -> dict[int, int]:
        """Squares reachable from square `s` within `budget` but through none of `blocked`, for the doors as
        `dk` says: the C search when it is built, else `_search_py`."""
        if _native is not None:
            return _native.search(self._geometry.flat_transitions(self, dk), s, budget, blocked)
        return self._search_py(self._geometry.transitions(self, dk), s, budget, blocked)

    def _search_py(self, trans, s: int, budget: int, blocked) -> dict[int, int]:
        """`reachable`'s search in Python: `reach_from` seeded with the start square at no cost."""
        if budget <= 0:
            return {s: 0}
        return self.reach_from([(2 * s, 0)], budget, blocked, trans)

    def seeds_after(self, start: tuple[int, int], firsts) -> list[tuple[int, int]]:
        """The seeds of a move from start whose first step enters one of `firsts` ((square index, cost) pairs, the
        step chosen by the rules: a withdrawal's first square): that square's state after the step (parity 1 after a
        diagonal step under the alternating metric) and its cost, for `reach_from` and `path_from`."""
        alternating = self.metric == "alternating"
        w = self.width
        return [(2 * i + (alternating and i % w != start[0] and i // w != start[1]), c) for i, c in firsts]

    def reach_from(self, seeds, budget: int, blocked, trans=None) -> dict[int, int]:
        """Squares (flat index -> least cost) a move reaches within `budget` from its seeds ((state, cost spent):
        a state is `2 * square + parity`, parity an odd number of diagonals so far under 'alternating'), entering
        none of `blocked` (but for the seeds'), in the order the search first reaches them (the seeds' squares
        first). Dijkstra over
        states with a bucket per cost, each bucket sorted so states settle in (cost, state) order, as a binary heap
        would. A move that goes on past its first square keeps the diagonal count of the whole move."""
        if trans is None:
            trans = self._geometry.transitions(self, self._door_key())
        big = 1 << 30
        seen = [big] * len(trans)
        for j in blocked:  # never entered: as if already reached at no cost
            seen[2 * j] = seen[2 * j + 1] = -1
        cost_of: dict[int, int] = {}
        buckets: list[list[int]] = [[] for _ in range(max(budget, 0) + 1)]
        for state, c in seeds:  # a seed stands where it stands, even on a square the move may not enter
            if c > budget or 0 <= seen[state] <= c:
                continue
            seen[state] = c
            j = state >> 1
            if c < cost_of.get(j, big):
                cost_of[j] = c
            buckets[c].append(state)
        for cost in range(budget):  # states at the full budget cannot move on: their bucket needs no visit
            bucket = buckets[cost]
            if not bucket:
                continue
            bucket.sort()
            for state in bucket:
                if seen[state] < cost:
                    continue
                for nxt, add, j in trans[state]:
                    c = cost + add
                    if c > budget or seen[nxt] <= c:
                        continue
                    seen[nxt] = c
                    if c < cost_of.get(j, big):
                        cost_of[j] = c
                    buckets[c].append(nxt)
        return cost_of

    def path(self, start: tuple[int, int], goal: tuple[int, int], budget: int, no_pass: Iterable[int] = (),
             danger: dict[int, int] | None = None) -> list[tuple[int, int]] | None:
        """A path start -> goal within budget that leaves the fewest dangerous squares, then is cheapest.

        `danger[i]` > 0 marks squares whose leaving provokes (threatened squares). Returns the squares
        after `start`, or None when goal cannot be reached.
        """
        danger = danger or {}
        if _native is not None:
            size = self._geometry.size
            blocked, flags = bytearray(size), bytearray(size)
            for j in no_pass:
                if 0 <= j < size:
                    blocked[j] = 1
            for j, v in danger.items():
                if v and 0 <= j < size:
                    flags[j] = 1
            return self.path_masks(start, goal, budget, blocked, flags)
        return self._path_py(self.index(*start), self.index(*goal), budget, set(no_pass), danger)

    def path_masks(self, start: tuple[int, int], goal: tuple[int, int], budget: int, blocked: bytes,
                   danger: bytes) -> list[tuple[int, int]] | None:
        """`path` with the squares not to enter and the dangerous ones given as one byte per square (non-zero:
        blocked / dangerous); in C only (`path` calls it when engine/core/_native.c is built)."""
        geo = self._geometry
        got = _native.path(geo.flat_transitions(self, self._door_key()), self.index(*start), self.index(*goal),
                           budget, blocked, danger, self.width, self.metric == "alternating")
        if got is None:
            return None
        xys = geo.xys
        return [xys[k] for k in got]

    def _path_py(self, s: int, g: int, budget: int, blocked: set[int], danger: dict[int, int]
                 ) -> list[tuple[int, int]] | None:
        """`path` in Python (flat indices in; used when the C module is not built): `path_from` seeded with the start
        square at no cost, the start left out."""
        got = self.path_from([(2 * s, 0)], g, budget, blocked, danger)
        return None if got is None else got[1:]

    def path_from(self, seeds, g: int, budget: int, blocked, danger) -> list[tuple[int, int]] | None:
        """The walk from the seeds (as `reach_from` takes them) to square g within budget, entering none of `blocked`,
        that leaves the fewest dangerous squares (`danger[i]` truthy: leaving i provokes; a seed's own step is the
        mover's business), then costs least: its squares, the seed's first, or None."""
        trans = self._geometry.transitions(self, self._door_key())
        floor, xys = self.walk_floor, self._geometry.xys
        goal = self.xy(g)
        heap = [(0, c, state >> 1, state & 1, (state >> 1,)) for state, c in seeds if c <= budget]
        heapq.heapify(heap)
        # Items come off the heap in (provocations, cost, square, parity, trail) order, so the first at the
        # goal is the least such walk. An item dominated (<= provocations and <= cost) by one already taken
        # off at the same (square, parity) can never lead to a smaller walk, so it is dropped when pushed.
        done: list[list[tuple[int, int]] | None] = [None] * len(trans)
        push, pop = heapq.heappush, heapq.heappop
        while heap:
            prov, cost, i, parity, trail = pop(heap)
            if i == g:
                return [self.xy(k) for k in trail]
            key = 2 * i + parity
            olds = done[key]
            if olds is None:
                done[key] = [(prov, cost)]
            else:
                for op, oc in olds:
                    if op <= prov and oc <= cost:
                        break
                else:
                    olds.append((prov, cost))
                    olds = None
                if olds is not None:
                    continue
            leave = prov + 1 if danger.get(i, 0) else prov
            for nk, add, j in trans[key]:
                c = cost + add
                if c > budget or j in blocked or c + floor(xys[j], goal) > budget:  # what is left must fit too
                    continue
                olds = done[nk]
                if olds is not None:
                    for op, oc in olds:
                        if op <= leave and oc <= c:
                            break
                    else:
                        push(heap, (leave, c, j, nk & 1, trail + (j,)))
                    continue
                push(heap, (leave, c, j, nk & 1, trail + (j,)))
        return None

    def path_cost(self, start: tuple[int, int], squares: list[tuple[int, int]]) -> int:
        """Movement cost of walking `squares` in order from `start` (the ruleset's metric)."""
        cost, parity, prev = 0, 0, start
        codes, w, alternating = self.kind_codes(), self.width, self.metric == "alternating"
        for sq in squares:
            step = 1
            if alternating and sq[0] != prev[0] and sq[1] != prev[1]:
                step, parity = (2 if parity else 1), parity ^ 1
            cost += step * ENTER_COST[codes[sq[1] * w + sq[0]]]  # `enter_cost`
            prev = sq
        return cost

    def to_rows(self) -> list[str]:
        """The map as ASCII rows, doors and broken objects as they stand now."""
        inv = {v: k for k, v in DEFAULT_LEGEND.items()}
        inv.update({v: k for k, v in self.legend.items()})
        return ["".join(inv[self.kind(self.index(x, y))] for x in range(self.width)) for y in range(self.height)]


class _Shape:
    """What every map of one size shares: per square its neighbours inside the map in DIRECTIONS order as
    (square, diagonal, the two squares a diagonal step cuts the corner of), the (x, y) of every flat index,
    and per square and wall mask (see `neighbours`) the neighbour tuple of `_Geometry.neighbours`."""

    def __init__(self, w: int, h: int):
        self.width = w
        self.candidates: list[tuple[tuple[int, bool, int, int], ...]] = []
        for i in range(w * h):
            x, y = i % w, i // w
            out = []
            for dx, dy in DIRECTIONS:
                nx, ny = x + dx, y + dy
                if 0 <= nx < w and 0 <= ny < h:
                    out.append((ny * w + nx, dx != 0 and dy != 0, y * w + nx, ny * w + x))
            self.candidates.append(tuple(out))
        self.xys = [(i % w, i // w) for i in range(w * h)]
        self._by_mask: list[list] = [[None] * 16 for _ in range(w * h)]  # filled as masks turn up

    def neighbours(self, walls: bytes) -> list[tuple[tuple[int, bool], ...]]:
        """Per square, its neighbours (square, diagonal) in DIRECTIONS order, less the diagonal steps that
        cut the corner of a wall in `walls` (a byte per square, 1 for a wall). Which of those a square keeps
        depends only on its four orthogonal neighbours, so the answer is looked up by a 4-bit mask of them (1 east,
        2 west, 4 south, 8 north; bits that wrap round an edge of the map are never read)."""
        w, n = self.width, len(walls)
        bits = int.from_bytes(bytes(walls), "little")  # byte i: walls[i]
        masks = (bits >> 8 | bits << 9 | bits >> 8 * w << 2 | bits << 8 * w << 3).to_bytes(n + w + 1, "little")
        got = list(map(list.__getitem__, self._by_mask, masks[:n]))
        if None in got:
            for i, m in enumerate(masks[:n]):
                if got[i] is None:
                    got[i] = self._by_mask[i][m] = self._filtered(i, m)
        return got

    def _filtered(self, i: int, mask: int) -> tuple[tuple[int, bool], ...]:
        bit = {i + 1: 1, i - 1: 2, i + self.width: 4, i - self.width: 8}
        return tuple([(j, diag) for j, diag, ca, cb in self.candidates[i]
                      if not diag or not (mask & bit[ca] or mask & bit[cb])])  # no cutting a wall's corner


@lru_cache(maxsize=256)  # above the 81 sizes a varied generator draws (8 to 16 squares a side)
def _shape(w: int, h: int) -> _Shape:
    """The `_Shape` of a w x h map, built once."""
    return _Shape(w, h)


class _Geometry:
    """Static geometry of a map, computed once and shared by clones."""

    def __init__(self, grid: Grid, codes: bytes | None = None):
        """The geometry of `grid`; `codes`, when given, its kind codes with every door closed (from its terrain
        otherwise)."""
        w, h = grid.width, grid.height
        self._shape = shape = _shape(w, h)
        self.width = w
        # `Grid.kind_codes` with every door closed
        self.codes = bytes(map(_KIND_CODE.__getitem__, grid.terrain)) if codes is None else codes
        self.line_codes = self.codes.translate(_LINE_TABLE)
        self._walls = self.codes.translate(_WALL_TABLE)  # a byte per square: 1 a wall
        self._door_codes: dict[object, tuple[bytes, bytes]] = {}
        self.size = w * h
        self.xys = list(shape.xys)  # flat index -> (x, y)
        self._lines: dict[tuple[int, int], tuple[int, ...]] = {}
        self.sight_tables: dict[object, dict[int, tuple[bool, bool, str]]] = {}
        self._steps: dict[object, list] = {}
        self.free_reach: dict[tuple, dict[int, int]] = {}  # (start, budget, doors) -> unit-free reachable
        self.blocked_reach: dict[tuple, dict[int, int]] = {}  # (start, budget, doors, blockers) -> reachable
        self._trans: dict[object, list] = {}
        self._flat: dict[object, array] = {}
        # the rulesets' own caches for this map, under names they own ("saga_sight", ...): an attribute, since
        # reading `__dict__` would leave every attribute of the geometry on Python's slow lookup path
        self.memo: dict[str, object] = {}

    @cached_property
    def neighbours(self) -> list[tuple[tuple[int, bool], ...]]:
        """Per square, its neighbours (square, diagonal) in DIRECTIONS order, less the diagonal steps that cut the
        corner of a wall (`_Shape.neighbours`); built when first read (the C searches do not)."""
        return self._shape.neighbours(self._walls)

    def door_codes(self, grid: Grid, key) -> tuple[bytes, bytes]:
        """(`Grid.kind_codes`, `Grid.line_codes`) for one state of the doors (`key`), built once."""
        got = self._door_codes.get(key)
        if got is None:
            codes = bytearray(self.codes)
            for i in grid.open_doors | grid.broken:
                if 0 <= i < self.size:
                    codes[i] = _KIND_CODE[grid.kind(i)]
            if len(self._door_codes) > 32:
                self._door_codes.clear()
            kinds = bytes(codes)
            got = self._door_codes[key] = (kinds, kinds.translate(_LINE_TABLE))
        return got

    def steps(self, grid: Grid, key) -> list[tuple[tuple[int, bool, int], ...]]:
        """The neighbour table of `Grid._steps` for one state of the doors (`key`), built once."""
        got = self._steps.get(key)
        if got is None:
            mult = self._multipliers(grid, key)
            got = [tuple([(j, diag, mult[j]) for j, diag in nb if mult[j]]) for nb in self.neighbours]
            if len(self._steps) > 32:
                self._steps.clear()
            self._steps[key] = got
        return got

    def _multipliers(self, grid: Grid, key) -> bytes:
        """Per square, what entering it costs per step (0: it cannot be entered), for one state of the doors."""
        return (self.codes if key is None else self.door_codes(grid, key)[0]).translate(_MULTIPLIER_TABLE)

    def transitions(self, grid: Grid, key) -> list[tuple[tuple[int, int, int], ...]]:
        """Per search state 2 * square + parity (parity: an odd number of diagonals so far, which only the
        'alternating' metric counts), the moves out of it as (next state, cost, square); built once per
        state of the doors (`key`) from the neighbour table of `steps`."""
        got = self._trans.get(key)
        if got is None:
            alternating = grid.metric == "alternating"
            got = []
            append = got.append
            for nb in self.steps(grid, key):
                even, odd = [], []  # parity 0, parity 1
                for j, diag, mult in nb:
                    if diag and alternating:
                        even.append((2 * j + 1, mult, j))
                        odd.append((2 * j, 2 * mult, j))
                    else:
                        even.append((2 * j, mult, j))
                        odd.append((2 * j + 1, mult, j))
                append(tuple(even))
                append(tuple(odd))
            if len(self._trans) > 32:
                self._trans.clear()
            self._trans[key] = got
        return got

    def flat_transitions(self, grid: Grid, key) -> array:
        """`transitions` as the flat int32 buffer of the C searches: per state, the number of moves, then up
        to 8 (next state, cost, square), padded to `_native.STRIDE` ints; built in C straight from the squares
        (a new map per training episode makes this build part of every reset)."""
        got = self._flat.get(key)
        if got is None:
            got = array("i")
            got.frombytes(_native.build_transitions(
                grid.width, grid.height, self._multipliers(grid, key), self._walls,
                grid.metric == "alternating"))
            if len(self._flat) > 32:
                self._flat.clear()
            self._flat[key] = got
        return got

    def sight_table(self, key) -> dict[int, tuple[bool, bool, str]]:
        """The (los, loe, cover) memo of `Grid.sight` for one state of the doors (`key`)."""
        got = self.sight_tables.get(key)
        if got is None:
            if len(self.sight_tables) > 32:
                self.sight_tables.clear()
            got = self.sight_tables[key] = {}
        return got

    def line(self, a: int, b: int) -> tuple[int, ...]:
        key = (a, b) if a <= b else (b, a)
        got = self._lines.get(key)
        if got is None:
            got = self._lines[key] = self._trace(*key)
        return got

    def _trace(self, a: int, b: int) -> tuple[int, ...]:
        w = self.width
        ax, ay, bx, by = a % w, a // w, b % w, b // w
        key = (bx - ax, by - ay, w)
        offs = _LINES.get(key)
        if offs is None:
            if len(_LINES) > 200000:
                _LINES.clear()
            # traced from a corner that keeps every sampled coordinate >= 0 (as on the map): a sample
            # 0.5 + k * d / n (n odd) is never within 1 / 2n of an integer, so the squares hit do not
            # depend on where the line starts
            if _native is not None:
                offs = _LINES[key] = _native.line(w, bx - ax, by - ay)
            else:
                x0, y0 = max(0, ax - bx), max(0, ay - by)
                offs = _LINES[key] = tuple(i - (y0 * w + x0) for i in
                                           self._trace_at(x0, y0, x0 + bx - ax, y0 + by - ay))
        return tuple([a + o for o in offs])

    def _trace_at(self, ax: int, ay: int, bx: int, by: int) -> tuple[int, ...]:
        """Flat indices (of a map `width` wide, unbounded below) of the squares the line between squares
        (ax, ay) and (bx, by) passes through, ends excluded, in order."""
        w = self.width
        a, b = ay * w + ax, by * w + bx
        dx, dy = bx - ax, by - ay
        n = 4 * max(abs(dx), abs(dy)) + 3
        out: list[int] = []
        for k in range(1, n):
            t = k / n
            x, y = int(ax + 0.5 + t * dx), int(ay + 0.5 + t * dy)
            i = y * w + x
            if i != a and i != b and (not out or out[-1] != i):
                out.append(i)
        return tuple(dict.fromkeys(out))
