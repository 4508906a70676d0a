"""Events: what resolution returns. Narration, rewards and metrics are all computed from events."""
from __future__ import annotations

from typing import Any


class Event:
    """One thing that happened. `kind` names it; `data` holds its numbers (rolls, damage, squares)."""

    __slots__ = ("kind", "actor", "target", "data")

    def __init__(self, kind: str, actor: int | None = None, target: int | None = None, **data: Any):
        self.kind, self.actor, self.target, self.data = kind, actor, target, data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "actor": self.actor, "target": self.target, **self.data}

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, actor={self.actor}, target={self.target}, {self.data})"


_new = object.__new__


def new_event(kind: str, actor: int | None, target: int | None, data: dict[str, Any]) -> Event:
    """`Event(kind, actor, target, **data)` with its data given as a dict, which it keeps: for the hot paths of
    resolution, where passing the data as keywords costs more than the rest of the event."""
    e = _new(Event)
    e.kind, e.actor, e.target, e.data = kind, actor, target, data
    return e


def damage_by_unit(events: list[Event]) -> dict[int, int]:
    """Total damage dealt per acting unit id, from `damage` events."""
    out: dict[int, int] = {}
    for e in events:
        if e.kind == "damage" and e.actor is not None:
            out[e.actor] = out.get(e.actor, 0) + e.data.get("amount", 0)
    return out
