"""Small starship battles built inline: a tiny map, ships as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import IllegalAction
from engine.rulesets.starship import combat as C
from engine.rulesets.starship.ruleset import StarshipRuleset

RS = StarshipRuleset()

# A plain Medium ship: size 0, no armor, pilot Dex 0 (Defense 10), 50 hull, no shields, no DR, speed 4, every skill
# +0, no point defense, no tractor beam, no damage control. An attack total is the die face + the weapon's attack +
# what a rule adds.
PLAIN = {"size": "medium", "hp": 50, "sp": 0, "dr": 0, "speed": 4, "pilot": 0, "bluff": 0, "sense_motive": 0,
         "initiative": 0}
LASER = {"name": "laser", "kind": "beam", "damage": "1d6", "attack": 0, "range": 2}
GUN = {"name": "gun", "kind": "projectile", "damage": "1d8", "attack": 0, "range": 2}
PD = {"name": "pd guns", "attack": 0, "damage": "1d6"}
TRACTOR = {"name": "tractor", "attack": 0, "range": 3}


def ship(name: str, side: str, at, *weapons: dict, **over) -> dict:
    """A ship entry: PLAIN stats, the given weapons, any overrides (`state` too)."""
    return {"name": name, "side": side, "at": list(at), **PLAIN, "weapons": list(weapons), **over}


def make(rows: list[str] | str, units: list[dict], dice=(), order=None, react=None) -> Battle:
    """A started battle; `order` lists ship names in initiative order (default: as given)."""
    if isinstance(rows, str):
        rows = rows.strip("\n").split("\n")
    text = yaml.safe_dump({"ruleset": "starship", "name": "test", "map": "\n".join(rows) + "\n", "units": units},
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
    """Apply a decision of the acting ship (target by name), pushing dice faces first; every face must be used."""
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


def legal_shots(b: Battle, action: str = "fire") -> set[tuple[int, str]]:
    """(weapon index, target name) of every legal shot."""
    return {(d.option, b.enc.units[d.target].name) for d in b.legal() if d.action == action}


def legal_squares(b: Battle, action: str) -> set[tuple[int, int]]:
    return {d.square for d in b.legal() if d.action == action}


def why(b: Battle, action: str, target: str | None = None, square=None, option: int = 0) -> str:
    tid = None if target is None else b.enc.unit(target).id
    with pytest.raises(IllegalAction) as e:
        b.step(act(action, tid, square, option))
    return str(e.value)


def defense(b: Battle, target: str, attacker: str | None = None) -> int:
    return C.defense(b.enc, u(b, target), None if attacker is None else u(b, attacker))


def actor(b: Battle) -> str:
    return b.enc.actor.name
