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

    # ---- queries ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def actor_id(self) -> int | None:
        if self.over or not self.order:
            return None
        return self.order[self.turn]

    @property
    def actor(self) -> Unit | None:
        a = self.actor_id
        return None if a is None else self.units[a]

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
        return {u.side for u in self.units if u.active}

    def occupant(self, pos: tuple[int, int]) -> Unit | None:
        for u in self.units:
            if u.active and u.pos == pos:
                return u
        return None

    def occupied(self) -> dict[tuple[int, int], int]:
        return {u.pos: u.id for u in self.units if u.active}

    def allies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.units if u.active and u.side == unit.side and u.id != unit.id]

    def enemies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.units if u.active and u.side != unit.side]

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
        try:
            m = d["map"]
            grid = Grid(m["rows"], m.get("legend"), m.get("metric", "alternating"))
            grid.open_doors = set(m.get("open_doors", []))
            grid.broken = set(m.get("broken", []))
            units = [Unit.from_dict(u) for u in d["units"]]
            enc = Encounter(d["ruleset"], d.get("name", ""), grid, units, d.get("round_limit", 20))
            enc.round, enc.order = int(d["round"]), [int(i) for i in d["order"]]
            enc.initiative = {int(k): v for k, v in d.get("initiative", {}).items()}
            enc.turn, enc.phase_index = int(d["turn"]), int(d.get("phase_index", 0))
            enc.pending = {int(k): [Decision.from_dict(x) for x in v] for k, v in d.get("pending", {}).items()}
            enc.budget = {str(k): int(v) for k, v in d["budget"].items()}
            enc.flags, enc.extra = dict(d.get("flags", {})), dict(d.get("extra", {}))
            enc.winner = d.get("winner")
        except KeyError as e:
            raise InputError(f"missing field {e}", "state", "use a state written by tactician (save / to_dict)")
        except (TypeError, ValueError, AttributeError) as e:
            raise InputError(f"a field has the wrong type ({e})", "state")
        _check_consistent(enc)
        return enc


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
