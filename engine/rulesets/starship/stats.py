"""Starship stat blocks: the template library (`units.yaml`), strict validation, ships and their play state.

A stat block is written as a d20 starship entry reads: size, Defense (10 + size + armor + the pilot's Dexterity
unless given), hull points and shield points, damage reduction (hardness), tactical speed in 500-ft squares, the
pilot's Pilot, Bluff and Sense Motive bonuses, weapons (damage dice, a damage multiplier, attack bonus, range
increment in squares, beam or projectile, fire-linked guns, ammunition, critical threat), point defense, a tractor
beam and damage control. A unit's `hp` in the core is what it can still take, shields included: `hp = hull + shields`
(the shield part is `state["sp"]`); damage takes the shields first.
"""
from __future__ import annotations

import copy
from pathlib import Path


from engine.core.errors import InputError
from engine.core.stat_fields import TemplateLibrary, check_dice, check_state_shape, fields
from engine.core.units import Unit, stat_block

SIZES = {"fine": 8, "diminutive": 4, "tiny": 2, "small": 1, "medium": 0, "large": -1, "huge": -2, "gargantuan": -4,
         "colossal": -8}  # size modifier to Defense and attack rolls
COLLISION = {"fine": "1d6", "diminutive": "2d6", "tiny": "4d6", "small": "6d6", "medium": "8d6", "large": "10d6",
             "huge": "12d6", "gargantuan": "16d6", "colossal": "20d6"}  # by the smaller of two colliding ships
WEAPON_KINDS = ("beam", "projectile")
MAX_WEAPONS = 4

_WEAPON_KEYS = {
    "name": (str, None), "kind": (str, "beam"), "damage": (str, None), "multiplier": (int, 1), "attack": (int, 0),
    "range": (int, None), "linked": (int, 1), "ammo": (int, 0), "critical": (int, 20),
}
_PD_KEYS = {"name": (str, "point defense"), "attack": (int, 0), "damage": (str, "2d6")}
_TRACTOR_KEYS = {"name": (str, "tractor beam"), "attack": (int, 0), "range": (int, 3)}
_STAT_KEYS = {
    "cr": ((int, float, type(None)), None), "size": (str, "tiny"), "defense": ((int, type(None)), None),
    "armor": (int, 0), "pilot_dex": (int, 0), "hp": (int, None), "sp": (int, 0), "dr": (int, 0), "speed": (int, None),
    "pilot": (int, 0), "bluff": (int, 0), "sense_motive": (int, 0), "initiative": ((int, type(None)), None),
    "weapons": (list, []), "point_defense": ((dict, type(None)), None), "tractor": ((dict, type(None)), None),
    "damage_control": (str, ""), "pronoun": (str, ""),
}
UNIT_KEYS = {"name", "side", "template", "at", "tactics", "hp_now", "sp_now"}
_FIX = "save the state again from a battle, or set it with the autopilot's corrections"


def _weapon(w, where: str) -> dict:
    out = fields(w, _WEAPON_KEYS, where, "weapon", "Starship")
    if out["kind"] not in WEAPON_KINDS:
        raise InputError(f"kind '{out['kind']}' is not one of {', '.join(WEAPON_KINDS)}", f"{where}.kind")
    check_dice(out["damage"], f"{where}.damage")
    for k, least in (("multiplier", 1), ("range", 1), ("linked", 1), ("ammo", 0)):
        if out[k] < least:
            raise InputError(f"{k} {out[k]} must be {least} or more", f"{where}.{k}")
    if not 2 <= out["critical"] <= 20:
        raise InputError(f"critical {out['critical']} is not a threat range", f"{where}.critical",
                         "the lowest natural roll that threatens a critical hit, e.g. 19 (19-20)")
    return out


def validate_stats(block: dict, where: str) -> dict:
    """Check a stat block's fields and types; returns it with defaults filled in (Defense worked out when not given)."""
    out = fields(block, _STAT_KEYS, where, "ship", "Starship")
    if out["size"] not in SIZES:
        raise InputError(f"size '{out['size']}' is not one of {', '.join(SIZES)}", f"{where}.size")
    if out["hp"] < 1 or out["sp"] < 0 or out["dr"] < 0:
        raise InputError("hp must be 1 or more; sp and dr 0 or more", where)
    if out["speed"] < 1:
        raise InputError(f"speed {out['speed']} must be 1 or more", f"{where}.speed",
                         "the tactical speed in 500-ft squares, e.g. speed: 8")
    if out["defense"] is None:
        out["defense"] = 10 + SIZES[out["size"]] + out["armor"] + out["pilot_dex"]
    if out["initiative"] is None:
        out["initiative"] = out["pilot"]
    if out["cr"] is None:
        out["cr"] = 1
    if len(out["weapons"]) > MAX_WEAPONS:
        raise InputError(f"at most {MAX_WEAPONS} weapons per ship", f"{where}.weapons",
                         "write a battery of identical guns as one fire-linked weapon (linked: N)")
    out["weapons"] = [_weapon(w, f"{where}.weapons[{n}]") for n, w in enumerate(out["weapons"])]
    if out["point_defense"] is not None:
        out["point_defense"] = fields(out["point_defense"], _PD_KEYS, f"{where}.point_defense", "point defense",
                                      "Starship")
        check_dice(out["point_defense"]["damage"], f"{where}.point_defense.damage")
    if out["tractor"] is not None:
        out["tractor"] = fields(out["tractor"], _TRACTOR_KEYS, f"{where}.tractor", "tractor beam", "Starship")
    if out["damage_control"]:
        check_dice(out["damage_control"], f"{where}.damage_control")
    return out


def make_unit(uid: int, spec: dict, where: str) -> Unit:
    """A ship from an encounter entry: a template, then any stat overrides, then damage already taken (`hp_now`: hull,
    `sp_now`: shields)."""
    stats = stat_block(spec, where, templates(), UNIT_KEYS, validate_stats, _template_stats, "Starship")
    hp, sp = spec.get("hp_now", stats["hp"]), spec.get("sp_now", stats["sp"])
    if not isinstance(hp, int) or isinstance(hp, bool) or not 0 < hp <= stats["hp"]:
        raise InputError(f"hp_now {hp!r} must be 1..{stats['hp']}", where, "the ship's hull points left")
    if not isinstance(sp, int) or isinstance(sp, bool) or not 0 <= sp <= stats["sp"]:
        raise InputError(f"sp_now {sp!r} must be 0..{stats['sp']}", where, "the ship's shield points left")
    unit = Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), hp + sp, stats["hp"] + stats["sp"], stats,
                spec.get("template") or "", tactics=spec.get("tactics") or {})
    unit.state = initial_state(stats)
    unit.state["sp"] = sp
    return unit


def initial_state(stats: dict) -> dict:
    """Play state at the start of an encounter (every key a GM may set under `state:` in an encounter file)."""
    return {
        "sp": stats["sp"],
        "ammo": [w["ammo"] or -1 for w in stats["weapons"]],   # shots left; -1 unlimited
        "reaction": True,            # point defense's attack of opportunity this round
        "dodge": 0,                  # dodge bonus to Defense until its next turn (total defense 4, fighting defensively 2)
        "surging": False,            # surged forward: no pilot Dex or dodge bonus until its next turn
        "aid": [],                   # [foe id, kind (attack / defense), round]: an ally's aid, for its next turn
        "feinted": [],               # ids of ships whose next attack on it ignores its pilot's Dex
        "grappled_by": None, "grappling": None,
        "jumping": False,            # started a jump to cruising speed: it completes it first on its next turn
        "fled": False,               # jumped away: out of the fight, not destroyed
        "limited": False,            # set by the GM: one move or attack action in round 1 (a surprise round)
    }


_STATE_TYPES = {k: type(v) for k, v in initial_state({"sp": 0, "weapons": []}).items()}
_STATE_TYPES["grappled_by"] = _STATE_TYPES["grappling"] = (int, type(None))


def check_unit(unit: Unit, where: str) -> None:
    """A ship of a saved state or after a GM's correction: a valid stat block, hull and shields within their maxima,
    and a play state with the keys and types of `initial_state`."""
    stats = validate_stats(copy.deepcopy(unit.stats), f"{where}.stats")
    if unit.max_hp != stats["hp"] + stats["sp"]:
        raise InputError(f"max_hp {unit.max_hp} is not hp + sp of the stat block ({stats['hp'] + stats['sp']})",
                         f"{where}.max_hp", _FIX)
    s = unit.state
    check_state_shape(s, _STATE_TYPES, f"{where}.state", _FIX)
    if not 0 <= s["sp"] <= stats["sp"] or not s["sp"] <= unit.hp <= unit.max_hp:
        raise InputError(f"sp {s['sp']} / hp {unit.hp} out of range (sp 0..{stats['sp']}, hp sp..{unit.max_hp})",
                         f"{where}.state.sp", "hp counts hull and shields together; sp is the shield part")
    n = len(stats["weapons"])
    if len(s["ammo"]) != n or not all(type(v) is int and v >= -1 for v in s["ammo"]):
        raise InputError(f"'ammo' must give a whole number (-1: unlimited) for each of the {n} weapons",
                         f"{where}.state.ammo", _FIX)
    if s["dodge"] < 0:
        raise InputError("dodge must be 0 or more", f"{where}.state.dodge", _FIX)


_LIBRARY = TemplateLibrary(Path(__file__).parent / "units.yaml", validate_stats)
templates = _LIBRARY.templates        # the raw blocks of units.yaml
_template_stats = _LIBRARY.stats      # a template's validated block, shared
