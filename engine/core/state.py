"""Encounter state: plain data that clones cheaply and round-trips through JSON without loss."""
from __future__ import annotations

import copy
from typing import Any

from .decision import Decision
from .errors import InputError
from .grid import Grid
from .units import Unit

STATE_FORMAT = 1


class Encounter:
    """Everything about a battle in progress: map, units, round, initiative, whose turn, budget left.

    `extra` holds ruleset-wide play state (items on the ground, objects' hit points); `flags` holds what
    the current turn has done so far (used by rules such as "nothing after a charge").
    """

    def __init__(self, ruleset: str, name: str, grid: Grid, units: list[Unit], round_limit: int = 20):
        self.ruleset, self.name, self.grid, self.units = ruleset, name, grid, units
        self.round = 0
        self.order: list[int] = []
        self.initiative: dict[int, int] = {}
        self.turn = 0
        self.phase_index = 0
        self.pending: dict[int, list[Decision]] = {}
        self.budget: dict[str, int] = {}
        self.flags: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self.round_limit = round_limit
        self.winner: str | None = None
        self.version = 0
        # a policy's what-if copy with the other units already where the phase will take them
        # (`engine/policies/anticipating.py`): square values must not count their movements again. Never saved.
        self.anticipated = False
        # a ruleset's memo of what it derives from this state, with the unit list it was made for (a clone copies
        # it and owns none of it). An attribute: reading `__dict__` would leave every attribute of the encounter
        # to the interpreter's slow, unspecialised lookups.
        self._ruleset_cache: tuple | None = None

    # ---- queries ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def actor_id(self) -> int | None:
        if self.winner is not None or not self.order:  # over
            return None
        return self.order[self.turn]

    @property
    def actor(self) -> Unit | None:
        if self.winner is not None or not self.order:  # `actor_id` is None (a property call less: asked often)
            return None
        return self.units[self.order[self.turn]]

    def unit(self, name_or_id: str | int) -> Unit:
        if isinstance(name_or_id, int):
            return self.units[name_or_id]
        for u in self.units:
            if u.name.lower() == str(name_or_id).lower():
                return u
        raise KeyError(name_or_id)

    def sides(self) -> list[str]:
        return list(dict.fromkeys(u.side for u in self.units))

    def active_sides(self) -> set[str]:
        return {u.side for u in self.units if not u.down}

    def occupant(self, pos: tuple[int, int]) -> Unit | None:
        for u in self.units:
            if not u.down and u.pos == pos:
                return u
        return None

    def occupied(self) -> dict[tuple[int, int], int]:
        return {u.pos: u.id for u in self.units if not u.down}

    def allies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.units if not u.down and u.side == unit.side and u.id != unit.id]

    def enemies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.units if not u.down and u.side != unit.side]

    # ---- copies -------------------------------------------------------------------------------------------
    def clone(self) -> "Encounter":
        e = object.__new__(Encounter)
        e.__dict__.update(self.__dict__)
        e.grid = self.grid.clone()
        e.units = [u.clone() for u in self.units]
        e.order = list(self.order)
        e.initiative = dict(self.initiative)
        e.pending = {k: list(v) for k, v in self.pending.items()}
        e.budget = dict(self.budget)
        e.flags = copy.deepcopy(self.flags)
        e.extra = copy.deepcopy(self.extra)
        return e

    def to_dict(self) -> dict:
        g = self.grid
        return {
            "format": STATE_FORMAT, "ruleset": self.ruleset, "name": self.name,
            "map": {"rows": g.rows, "legend": g.legend, "metric": g.metric,
                    "open_doors": sorted(g.open_doors), "broken": sorted(g.broken)},
            "units": [u.to_dict() for u in self.units],
            "round": self.round, "order": list(self.order),
            "initiative": {str(k): v for k, v in self.initiative.items()},
            "turn": self.turn, "phase_index": self.phase_index,
            "pending": {str(k): [d.to_dict() for d in v] for k, v in self.pending.items()},
            "budget": dict(self.budget), "flags": copy.deepcopy(self.flags), "extra": copy.deepcopy(self.extra),
            "round_limit": self.round_limit, "winner": self.winner,
        }

    @staticmethod
    def from_dict(d: dict) -> "Encounter":
        """Rebuild a state saved by `to_dict`. Missing or mistyped fields raise InputError naming them."""
        if not isinstance(d, dict):
            raise InputError("a saved state must be a JSON object", "state")
        if d.get("format") != STATE_FORMAT:
            raise InputError(f"state format {d.get('format')!r} is not {STATE_FORMAT}", "format",
                             "save the state again with this version of tactician")
        m = _get(d, "map", dict, "map")
        rows = _get(m, "rows", list, "map.rows")
        if not all(isinstance(r, str) for r in rows):
            raise InputError("map rows must be strings", "map.rows", _FIX)
        legend = _get(m, "legend", dict, "map.legend", {})
        grid = Grid(rows, legend, _get(m, "metric", str, "map.metric", "alternating"))
        w = grid.width * grid.height
        for key in ("open_doors", "broken"):
            sq = _get(m, key, list, f"map.{key}", [])
            if not all(isinstance(i, int) and 0 <= i < w for i in sq):
                raise InputError(f"'{key}' must list square numbers 0..{w - 1}", f"map.{key}", _FIX)
            setattr(grid, key, set(sq))
        units = []
        for n, u in enumerate(_get(d, "units", list, "units")):
            units.append(_unit(u, f"units[{n}]"))
        enc = Encounter(_get(d, "ruleset", str, "ruleset"), _get(d, "name", str, "name", ""), grid, units,
                        _get(d, "round_limit", int, "round_limit", 20))
        enc.round = _get(d, "round", int, "round")
        enc.order = _get(d, "order", list, "order")
        enc.turn = _get(d, "turn", int, "turn")
        enc.phase_index = _get(d, "phase_index", int, "phase_index", 0)
        try:
            enc.order = [int(i) for i in enc.order]
            enc.initiative = {int(k): int(v) for k, v in _get(d, "initiative", dict, "initiative", {}).items()}
        except (TypeError, ValueError):
            raise InputError("initiative and order must hold unit numbers", "initiative / order", _FIX)
        pending = _get(d, "pending", dict, "pending", {})
        try:
            enc.pending = {int(k): [Decision.from_dict(x) for x in v] for k, v in pending.items()}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise InputError(f"a committed decision is malformed ({e!r})", "pending", _FIX)
        budget = _get(d, "budget", dict, "budget")
        if not all(isinstance(v, int) for v in budget.values()):
            raise InputError("budget values must be whole numbers", "budget", _FIX)
        enc.budget = {str(k): v for k, v in budget.items()}
        enc.flags = dict(_get(d, "flags", dict, "flags", {}))
        enc.extra = dict(_get(d, "extra", dict, "extra", {}))
        enc.winner = _get(d, "winner", (str, type(None)), "winner", None)
        _check_consistent(enc)
        return enc


_FIX = "use a state written by tactician (save / to_dict)"
_MISSING = object()


def _get(d: dict, key: str, kind, path: str, default: Any = _MISSING) -> Any:
    """d[key] checked against `kind`; InputError naming `path` when missing or of the wrong type."""
    if key not in d:
        if default is _MISSING:
            raise InputError(f"missing field '{path}'", path, _FIX)
        return default
    v = d[key]
    if isinstance(v, bool) and kind is int or not isinstance(v, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(f"field '{path}' is {type(v).__name__} {v!r:.40}, expected {names}", path, _FIX)
    return v


def _unit(u: Any, path: str) -> Unit:
    if not isinstance(u, dict):
        raise InputError(f"'{path}' must be an object", path, _FIX)
    pos = _get(u, "pos", list, f"{path}.pos")
    if len(pos) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pos):
        raise InputError(f"'{path}.pos' must be [x, y]", f"{path}.pos", _FIX)
    return Unit(_get(u, "id", int, f"{path}.id"), _get(u, "name", str, f"{path}.name"),
                _get(u, "side", str, f"{path}.side"), tuple(pos), _get(u, "hp", int, f"{path}.hp"),
                _get(u, "max_hp", int, f"{path}.max_hp"), _get(u, "stats", dict, f"{path}.stats"),
                _get(u, "template", str, f"{path}.template", ""), _get(u, "state", dict, f"{path}.state", {}),
                _get(u, "tactics", dict, f"{path}.tactics", {}), _get(u, "down", bool, f"{path}.down", False),
                _get(u, "dead", bool, f"{path}.dead", False))


def _check_consistent(enc: Encounter) -> None:
    g = enc.grid
    seen: dict[tuple[int, int], str] = {}
    for n, u in enumerate(enc.units):
        if u.id != n:
            raise InputError(f"unit {u.name!r} has id {u.id} but is number {n} in the list", f"units[{n}].id")
        x, y = u.pos
        if not g.inside(x, y):
            raise InputError(f"{u.name} stands at {u.pos}, outside the {g.width}x{g.height} map",
                             f"units[{n}].pos")
        if u.active:
            if not g.passable(g.index(x, y)):
                raise InputError(f"{u.name} stands in a {g.kind(g.index(x, y))} square at {u.pos}",
                                 f"units[{n}].pos", "move the unit to an open square")
            if u.pos in seen:
                raise InputError(f"{u.name} and {seen[u.pos]} both stand at {u.pos}", f"units[{n}].pos")
            seen[u.pos] = u.name
    for i in enc.order:
        if not 0 <= i < len(enc.units):
            raise InputError(f"initiative order names unit {i}, but there are {len(enc.units)}", "order")
    if enc.order and not 0 <= enc.turn < len(enc.order):
        raise InputError(f"turn {enc.turn} is outside the initiative order", "turn")
