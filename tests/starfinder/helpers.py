"""Small Starfinder battles built inline: a tiny map, units as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import IllegalAction
from engine.rulesets.starfinder.ruleset import StarfinderRuleset

RS = StarfinderRuleset()

# A plain Medium combatant: every bonus 0, so an attack total is the die face plus what a rule adds. EAC 10, KAC 12,
# 30 HP, no Stamina, no Resolve (dies at 0 HP), speed 30 ft.
PLAIN = {"level": 1, "hp": 30, "eac": 10, "kac": 12, "fort": 0, "ref": 0, "will": 0, "bab": 0, "str": 0, "dex": 0}
LASER = {"name": "laser pistol", "kind": "ranged", "damage": "1d4", "type": "F", "range": 80}
RIFLE = {"name": "slug rifle", "kind": "ranged", "damage": "1d10", "type": "P", "range": 30, "hands": 2}
KNIFE = {"name": "knife", "kind": "melee", "damage": "1d4", "type": "S"}
BATON = {"name": "baton", "kind": "melee", "damage": "1d4", "type": "B", "operative": True}
SPEAR = {"name": "spear", "kind": "melee", "damage": "1d6", "type": "P", "reach": True, "hands": 2}
SHURIKEN = {"name": "shuriken", "kind": "thrown", "damage": "1d2", "type": "P", "range": 10, "count": 5}
FRAG = {"name": "frag grenade", "kind": "grenade", "damage": "1d6", "type": "P", "range": 20, "explode": 15,
        "dc": 12, "count": 2}


def unit(name: str, side: str, at, *weapons: dict, **over) -> dict:
    """A unit entry: PLAIN stats, the given weapons (the first in hand, and a second one-handed one of the other
    kind), any overrides."""
    return {"name": name, "side": side, "at": list(at), **PLAIN, "weapons": list(weapons), **over}


def make(rows: list[str] | str, units: list[dict], dice=(), order=None, acted: bool = True) -> Battle:
    """A started battle; `order` lists unit names in initiative order (default: as given). With `acted`, every unit
    counts as having acted already (it may take reactions from the first turn)."""
    if isinstance(rows, str):
        rows = rows.strip("\n").split("\n")
    text = yaml.safe_dump({"ruleset": "starfinder", "name": "test", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    enc = parse_encounter(text, "test.yaml", RS)
    b = Battle(enc, RS, ScriptedDice(list(dice)))
    names = order or [u["name"] for u in units]
    b.start(initiative={enc.unit(n).id: 100 - k for k, n in enumerate(names)})
    if acted:
        for u in enc.units:
            u.state["acted"] = True
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
