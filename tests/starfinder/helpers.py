"""Small Starfinder battles built inline: a tiny map, units as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

from engine.core.battle import Battle
from engine.rulesets.starfinder.ruleset import StarfinderRuleset

from tests.table_helpers import (act, actions, all_of, end, first, floor, kinds, legal_squares, legal_targets,
                                 make_battle, step, u, why)

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
    """A started battle (`tests/table_helpers.py` make_battle); `order` lists unit names in initiative order (default:
    as given). With `acted`, every unit counts as having acted already (it may take reactions from the first turn)."""
    b = make_battle(RS, rows, units, dice, order)
    if acted:
        for x in b.enc.units:
            x.state["acted"] = True
    return b


