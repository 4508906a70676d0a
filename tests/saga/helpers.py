"""Small Saga battles built inline: a tiny map, units as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")

# A plain medium combatant: every bonus 0 so attack totals are the die face plus what a rule adds.
PLAIN = {"heroic": True, "level": 1, "hp": 30, "speed": 6, "reflex": 10, "fortitude": 10, "will": 10,
         "threshold": 50, "bab": 0, "str": 0, "dex": 0, "con": 10}
PISTOL = {"name": "blaster pistol", "kind": "ranged", "damage": "3d6", "group": "pistol"}
RIFLE = {"name": "blaster rifle", "kind": "ranged", "damage": "3d8", "group": "rifle", "hands": 2,
         "size": "medium", "modes": ["lethal", "stun", "autofire"]}
SWORD = {"name": "sword", "kind": "melee", "damage": "1d8"}
KNIFE = {"name": "knife", "kind": "melee", "damage": "1d4", "light": True}
SABER = {"name": "lightsaber", "kind": "melee", "damage": "2d8", "lightsaber": True}
AXE = {"name": "axe", "kind": "melee", "damage": "1d10", "hands": 2}


def unit(name: str, side: str, at, *weapons: dict, **over) -> dict:
    """A unit entry: PLAIN stats, the given weapons (first one in hand), any overrides."""
    return {"name": name, "side": side, "at": list(at), **PLAIN, "weapons": list(weapons), **over}


def make(rows: list[str] | str, units: list[dict], dice=(), order=None) -> Battle:
    """A started battle; `order` lists unit names in initiative order (default: as given)."""
    if isinstance(rows, str):
        rows = rows.strip("\n").split("\n")
    text = yaml.safe_dump({"ruleset": "saga", "name": "test", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    enc = parse_encounter(text, "test.yaml")
    b = Battle(enc, RS, ScriptedDice(list(dice)))
    names = order or [u["name"] for u in units]
    b.start(initiative={enc.unit(n).id: 100 - k for k, n in enumerate(names)})
    return b


def floor(w: int, h: int) -> list[str]:
    return ["." * w] * h


def u(b: Battle, name: str):
    return b.enc.unit(name)


def act(action: str, target=None, square=None, option: int = 0) -> Decision:
    return Decision(action, target, tuple(square) if square is not None else None, option)


def step(b: Battle, action: str, target: str | None = None, square=None, option: int = 0, faces=()):
    """Apply a decision of the acting unit (target by name), pushing dice faces first."""
    b.dice.push(*faces)
    tid = None if target is None else b.enc.unit(target).id
    return b.step(act(action, tid, square, option))


def end(b: Battle, faces=()):
    b.dice.push(*faces)
    return b.step(END)


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def first(events, kind: str):
    return next(e for e in events if e.kind == kind)


def all_of(events, kind: str):
    return [e for e in events if e.kind == kind]


def actions(b: Battle) -> set[str]:
    return {d.action for d in b.legal()}


def why(b: Battle, action: str, target: str | None = None, square=None, option: int = 0) -> str:
    from engine.core.errors import IllegalAction
    import pytest
    tid = None if target is None else b.enc.unit(target).id
    with pytest.raises(IllegalAction) as e:
        b.step(act(action, tid, square, option))
    return str(e.value)
