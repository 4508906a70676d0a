"""Units: the ruleset-neutral part of a combatant, plus its ruleset's stat block and play state."""
from __future__ import annotations

import copy
from typing import Any


class Unit:
    """A combatant on the map.

    `stats` is the ruleset's stat block (defenses, weapons, feats; set at load, rarely changed);
    `state` is the ruleset's play state on this unit (conditions, aim, multi-part actions in progress).
    Both are plain JSON-able data. `down` means out of the fight (0 HP, unconscious, fled); a down unit
    no longer blocks squares or counts for its side.
    """

    __slots__ = ("id", "name", "side", "template", "pos", "hp", "max_hp", "down", "dead", "stats", "state",
                 "tactics")

    def __init__(self, id: int, name: str, side: str, pos: tuple[int, int], hp: int, max_hp: int,
                 stats: dict[str, Any], template: str = "", state: dict[str, Any] | None = None,
                 tactics: dict[str, Any] | None = None, down: bool = False, dead: bool = False):
        self.id, self.name, self.side, self.template = id, name, side, template
        self.pos = tuple(pos)
        self.hp, self.max_hp = hp, max_hp
        self.down, self.dead = down, dead
        self.stats = stats
        self.state = state if state is not None else {}
        self.tactics = tactics or {}

    @property
    def active(self) -> bool:
        return not self.down

    def clone(self) -> "Unit":
        u = object.__new__(Unit)
        u.id, u.name, u.side, u.template, u.pos = self.id, self.name, self.side, self.template, self.pos
        u.hp, u.max_hp, u.down, u.dead = self.hp, self.max_hp, self.down, self.dead
        u.stats = self.stats  # stat blocks are replaced, never mutated in place, during play
        u.state = copy.deepcopy(self.state)
        u.tactics = self.tactics
        return u

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "side": self.side, "template": self.template,
                "pos": list(self.pos), "hp": self.hp, "max_hp": self.max_hp, "down": self.down,
                "dead": self.dead, "stats": copy.deepcopy(self.stats), "state": copy.deepcopy(self.state),
                "tactics": copy.deepcopy(self.tactics)}

    @staticmethod
    def from_dict(d: dict) -> "Unit":
        return Unit(d["id"], d["name"], d["side"], tuple(d["pos"]), d["hp"], d["max_hp"], copy.deepcopy(d["stats"]),
                    d.get("template", ""), copy.deepcopy(d.get("state", {})), copy.deepcopy(d.get("tactics", {})),
                    d.get("down", False), d.get("dead", False))

    def __repr__(self) -> str:
        return f"Unit({self.id}, {self.name!r}, {self.side}, {self.pos}, hp={self.hp}/{self.max_hp})"


def stat_block(spec: dict[str, Any], where: str, templates: dict[str, dict], unit_keys: set[str],
               validate, template_block, ruleset_name: str) -> dict:
    """The stat block of an encounter entry: its `template`, then any stat overrides (every key not in `unit_keys`),
    checked by `validate(block, where)`. An entry with a template and no override gets `template_block(name)`: the
    template's own validated block, shared (stat blocks are replaced, never mutated in place, during play)."""
    name = spec.get("template")
    if name is not None and name not in templates:
        from .errors import InputError
        raise InputError(f"unknown template '{name}'", where,
                         f"{ruleset_name} templates: {', '.join(sorted(templates))}")
    overrides = {k: v for k, v in spec.items() if k not in unit_keys}
    if name is not None and not overrides:
        return template_block(name)
    base = copy.deepcopy(templates[name]) if name is not None else {}
    base.update(copy.deepcopy(overrides))
    return validate(base, f"{where} ({spec.get('name')})")
