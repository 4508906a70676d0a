"""Small starship battles built inline: a tiny map, ships as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

from engine.rulesets.starship import combat as C
from engine.rulesets.starship.ruleset import StarshipRuleset

from tests.table_helpers import (act, actions, all_of, end, first, floor, kinds, legal_squares, legal_targets,
                                 make_battle, step, u, why)

RS = StarshipRuleset()


def make(rows, units: list[dict], dice=(), order=None, react=None):
    """A started starship battle (`tests/table_helpers.py` make_battle)."""
    return make_battle(RS, rows, units, dice, order, react)


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


def legal_shots(b: Battle, action: str = "fire") -> set[tuple[int, str]]:
    """(weapon index, target name) of every legal shot."""
    return {(d.option, b.enc.units[d.target].name) for d in b.legal() if d.action == action}


def defense(b: Battle, target: str, attacker: str | None = None) -> int:
    return C.defense(u(b, target), None if attacker is None else u(b, attacker))


def actor(b: Battle) -> str:
    return b.enc.actor.name
