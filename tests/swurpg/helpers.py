"""Small SWURPG battles built inline: a tiny map, units as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import IllegalAction
from engine.rulesets.swurpg.ruleset import SwurpgRuleset

RS = SwurpgRuleset()

# A plain Medium combatant: every ability score 10 (modifier 0), proficiency +2, no armor (AC 10), 30 HP, speed 30 ft,
# no proficient saves. An attack total is the die face + 2 + what a rule adds.
PLAIN = {"hp": 30, "prof": 2, "str": 10, "dex": 10, "con": 10, "int": 10, "wis": 10, "cha": 10}
BLASTER = {"name": "blaster", "kind": "ranged", "damage": "1d6", "type": "energy", "range": 60, "long": 240}
RIFLE = {"name": "rifle", "kind": "ranged", "damage": "1d8", "type": "energy", "range": 100, "long": 400, "hands": 2,
         "autofire": True}
KNIFE = {"name": "knife", "kind": "melee", "damage": "1d4", "type": "piercing", "light": True}
SABER = {"name": "saber", "kind": "melee", "damage": "1d8", "type": "energy", "finesse": True}
AXE = {"name": "axe", "kind": "melee", "damage": "1d10", "type": "slashing", "hands": 2}
CLUB = {"name": "club", "kind": "melee", "damage": "1d6", "type": "bludgeoning"}
FRAG = {"name": "frag", "kind": "grenade", "damage": "2d6", "type": "piercing", "range": 40, "radius": 10, "dc": 12,
        "count": 2}


def unit(name: str, side: str, at, *weapons: dict, **over) -> dict:
    """A unit entry: PLAIN stats, the given weapons (the first non-grenade in hand), any overrides (`state` too)."""
    return {"name": name, "side": side, "at": list(at), **PLAIN, "weapons": list(weapons), **over}


def cond(ends: int = -1, save: str = "", dc: int = 0, source=None) -> list:
    """A condition entry of a play state: [ends, save, DC, source id]."""
    return [ends, save, dc, source]


def make(rows: list[str] | str, units: list[dict], dice=(), order=None, react=None) -> Battle:
    """A started battle; `order` lists unit names in initiative order (default: as given)."""
    if isinstance(rows, str):
        rows = rows.strip("\n").split("\n")
    text = yaml.safe_dump({"ruleset": "swurpg", "name": "test", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    enc = parse_encounter(text, "test.yaml", RS)
    b = Battle(enc, RS, ScriptedDice(list(dice)), react)
    names = order or [x["name"] for x in units]
    b.start(initiative={enc.unit(n).id: 100 - k for k, n in enumerate(names)})
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return b


def floor(w: int, h: int) -> list[str]:
    return ["." * w] * h


def u(b: Battle, name: str):
    return b.enc.unit(name)


def act(action: str, target=None, square=None, option: int = 0) -> Decision:
    return Decision(action, target, tuple(square) if square is not None else None, option)


def step(b: Battle, action: str, target: str | None = None, square=None, option: int = 0, faces=()):
    """Apply a decision of the acting unit (target by name), pushing dice faces first; every face must be used."""
    b.dice.push(*faces)
    tid = None if target is None else b.enc.unit(target).id
    ev = b.step(act(action, tid, square, option))
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return ev


def end(b: Battle, faces=()):
    b.dice.push(*faces)
    ev = b.step(END)
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return ev


def first(events, kind: str):
    return next(e for e in events if e.kind == kind)


def all_of(events, kind: str):
    return [e for e in events if e.kind == kind]


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def actions(b: Battle) -> set[str]:
    return {d.action for d in b.legal()}


def legal_targets(b: Battle, action: str) -> set[str]:
    return {b.enc.units[d.target].name for d in b.legal() if d.action == action}


def legal_squares(b: Battle, action: str) -> set[tuple[int, int]]:
    return {d.square for d in b.legal() if d.action == action}


def why(b: Battle, action: str, target: str | None = None, square=None, option: int = 0) -> str:
    tid = None if target is None else b.enc.unit(target).id
    with pytest.raises(IllegalAction) as e:
        b.step(act(action, tid, square, option))
    return str(e.value)
