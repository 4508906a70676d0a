"""Small SWURPG battles built inline: a tiny map, units as stat dicts, scripted dice, fixed initiative."""
from __future__ import annotations

from engine.rulesets.swurpg.ruleset import SwurpgRuleset

from tests.table_helpers import (act, actions, all_of, end, first, floor, kinds, legal_squares, legal_targets,
                                 make_battle, step, u, why)

RS = SwurpgRuleset()


def make(rows, units: list[dict], dice=(), order=None, react=None):
    """A started swurpg battle (`tests/table_helpers.py` make_battle)."""
    return make_battle(RS, rows, units, dice, order, react)


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


