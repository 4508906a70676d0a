"""Rise stat blocks: the template library (`units.yaml`), the weapon list (`weapons.yaml`), strict validation,
creatures and their play state.

A stat block is written as a Rise monster or character sheet reads: level, accuracy (strikes) and brawling accuracy
(Strength-based), power (the damage bonus added once to a strike), hit points and damage resistance, the four
defenses (Armor, Fortitude, Reflex, Mental), speed in feet, Strength and Dexterity, fatigue tolerance, size and the
weapons held (main hand, then off hand; by name from `weapons.yaml` or written out). A creature's `hp` in the core is
what it can take before its vital wounds start: `hp = hit points + damage resistance` (the resistance part is
`state["dr"]`); damage takes the resistance first.
"""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from engine.core.errors import InputError
from engine.core.stat_fields import TemplateLibrary, check_dice, check_state_shape, fields
from engine.core.units import Unit, stat_block

SIZES = ("small", "medium", "large", "huge")
FLAG_TAGS = ("light", "heavy", "long", "compact", "subdual", "ammunition", "bow", "versatile_grip", "natural")
COUNT_TAGS = ("keen", "impact", "sweeping", "resonating")
RANGE_TAGS = ("projectile", "thrown")
TAGS = FLAG_TAGS + COUNT_TAGS + RANGE_TAGS
MAX_WEAPONS = 2

WEAPON_KEYS = {"name": (str, ""), "damage": (str, None), "accuracy": (int, 0), "exotic": (bool, False),
               "tags": (dict, {})}
_STAT_KEYS = {
    "level": (int, 1), "accuracy": (int, 0), "brawling": ((int, type(None)), None), "power": (int, 0),
    "hp": (int, None), "dr": (int, 0), "armor": (int, None), "fortitude": (int, None), "reflex": (int, None),
    "mental": (int, None), "speed": (int, 30), "strength": (int, 0), "dexterity": (int, 0),
    "fatigue_tolerance": (int, 2), "flexibility": ((int, type(None)), None), "size": (str, "medium"),
    "weapons": (list, []), "shield": (bool, False), "minion": (bool, False), "initiative": ((int, type(None)), None),
    "pronoun": (str, ""),
}
UNIT_KEYS = {"name", "side", "template", "at", "tactics", "hp_now", "dr_now"}
_FIX = "save the state again from a battle, or set it with the autopilot's corrections"
_HERE = Path(__file__).parent
_WEAPONS: dict[str, dict] | None = None


def weapon_list() -> dict[str, dict]:
    """`weapons.yaml`: name -> validated weapon."""
    global _WEAPONS
    if _WEAPONS is None:
        raw = yaml.safe_load((_HERE / "weapons.yaml").read_text())
        _WEAPONS = {name: weapon(dict(block, name=block.get("name") or name.replace("_", " ")),
                                 f"weapons.yaml '{name}'") for name, block in raw.items()}
    return _WEAPONS


def _range(v, where: str) -> list[int]:
    if not (isinstance(v, list) and len(v) == 2 and all(type(x) is int and x > 0 for x in v) and v[0] <= v[1]):
        raise InputError(f"{v!r} is not a range", where, "write short and long range in feet, e.g. [30, 60]")
    return list(v)


def weapon(w, where: str) -> dict:
    """A weapon block checked: its dice, accuracy and tags (unknown tags are errors)."""
    out = fields(w, WEAPON_KEYS, where, "weapon", "Rise")
    check_dice(out["damage"], f"{where}.damage")
    tags = {}
    for k, v in out["tags"].items():
        at = f"{where}.tags.{k}"
        if k in FLAG_TAGS:
            if v is not True:
                raise InputError(f"tag '{k}' takes true", at)
            tags[k] = True
        elif k in COUNT_TAGS:
            if type(v) is not int or v < 1:
                raise InputError(f"tag '{k}' takes a count of 1 or more", at, f"e.g. {k}: 1")
            tags[k] = v
        elif k in RANGE_TAGS:
            tags[k] = _range(v, at)
        else:
            raise InputError(f"unknown weapon tag '{k}'", at, f"Rise weapon tags: {', '.join(TAGS)}")
    if "projectile" in tags and "thrown" in tags:
        raise InputError("a weapon is Projectile or Thrown, not both", f"{where}.tags")
    out["tags"] = tags
    return out


def _weapons(ws, where: str) -> list[dict]:
    if len(ws) > MAX_WEAPONS:
        raise InputError(f"at most {MAX_WEAPONS} weapons (main hand, off hand)", where)
    out = []
    for n, w in enumerate(ws):
        at = f"{where}[{n}]"
        if isinstance(w, str):
            known = weapon_list()
            if w not in known:
                raise InputError(f"unknown weapon '{w}'", at, f"weapons.yaml: {', '.join(sorted(known))}")
            out.append(copy.deepcopy(known[w]))
        else:
            out.append(weapon(w, at))
        if not out[-1]["name"]:
            out[-1]["name"] = f"weapon {n + 1}"
    return out


def validate_stats(block: dict, where: str) -> dict:
    """Check a stat block's fields and types; returns it with defaults filled in."""
    out = fields(block, _STAT_KEYS, where, "creature", "Rise")
    if out["size"] not in SIZES:
        raise InputError(f"size '{out['size']}' is not one of {', '.join(SIZES)}", f"{where}.size")
    if out["hp"] < 1 or out["dr"] < 0:
        raise InputError("hp must be 1 or more and dr 0 or more", where)
    if out["speed"] < 5 or out["speed"] % 5:
        raise InputError(f"speed {out['speed']} must be a multiple of 5 ft", f"{where}.speed", "e.g. speed: 30")
    for k in ("armor", "fortitude", "reflex", "mental"):
        if out[k] < 0:
            raise InputError(f"{k} {out[k]} must be 0 or more", f"{where}.{k}")
    if out["fatigue_tolerance"] < 0:
        raise InputError("fatigue_tolerance must be 0 or more", f"{where}.fatigue_tolerance")
    out["weapons"] = _weapons(out["weapons"], f"{where}.weapons")
    if out["brawling"] is None:
        out["brawling"] = out["level"] // 2 + out["strength"]
    if out["initiative"] is None:
        out["initiative"] = out["dexterity"]
    return out


def make_unit(uid: int, spec: dict, where: str) -> Unit:
    """A creature from an encounter entry: a template, then any stat overrides, then damage already taken (`hp_now`:
    hit points, `dr_now`: damage resistance)."""
    stats = stat_block(spec, where, templates(), UNIT_KEYS, validate_stats, _template_stats, "Rise")
    hp, dr = spec.get("hp_now", stats["hp"]), spec.get("dr_now", stats["dr"])
    if not isinstance(hp, int) or isinstance(hp, bool) or not 0 < hp <= stats["hp"]:
        raise InputError(f"hp_now {hp!r} must be 1..{stats['hp']}", where, "the creature's hit points left")
    if not isinstance(dr, int) or isinstance(dr, bool) or not 0 <= dr <= stats["dr"]:
        raise InputError(f"dr_now {dr!r} must be 0..{stats['dr']}", where, "the damage resistance left")
    unit = Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), hp + dr, stats["hp"] + stats["dr"], stats,
                spec.get("template") or "", tactics=spec.get("tactics") or {})
    unit.state = initial_state(stats)
    unit.state["dr"] = dr
    return unit


def initial_state(stats: dict) -> dict:
    """Play state at the start of an encounter (every key a GM may set under `state:` in an encounter file)."""
    return {
        "dr": stats["dr"],
        "held": [True] * len(stats["weapons"]),  # still in hand (a thrown weapon is not)
        "fatigue": 0,                # fatigue levels
        "vital": 0,                  # vital wounds
        "prone": False,
        "grapple": [],               # ids of the creatures it grapples with (each grapples it too)
        "control": False,            # it controls its grapple
        "maintain": -1,              # its maintain grapple result this round (-1: not used)
        "total_defense": False,      # +2 to all defenses this round
        "brief": [],                 # [defense (or all), penalty, last round]: -2 after a charge, resonating blows
        "recovered": False,          # recover used (once per short rest)
        "surprised": False,          # set by the GM: it does nothing in round 1
    }


_STATE_TYPES = {k: type(v) for k, v in initial_state({"dr": 0, "weapons": []}).items()}


def check_unit(unit: Unit, where: str) -> None:
    """A creature of a saved state or after a GM's correction: a valid stat block, hit points and damage resistance
    within their maxima, and a play state with the keys and types of `initial_state`."""
    stats = validate_stats(copy.deepcopy(unit.stats), f"{where}.stats")
    if unit.max_hp != stats["hp"] + stats["dr"]:
        raise InputError(f"max_hp {unit.max_hp} is not hp + dr of the stat block ({stats['hp'] + stats['dr']})",
                         f"{where}.max_hp", _FIX)
    s = unit.state
    check_state_shape(s, _STATE_TYPES, f"{where}.state", _FIX)
    if not 0 <= s["dr"] <= stats["dr"] or not s["dr"] <= unit.hp <= unit.max_hp:
        raise InputError(f"dr {s['dr']} / hp {unit.hp} out of range (dr 0..{stats['dr']}, hp dr..{unit.max_hp})",
                         f"{where}.state.dr", "hp counts hit points and damage resistance together")
    if len(s["held"]) != len(stats["weapons"]) or not all(type(v) is bool for v in s["held"]):
        raise InputError(f"'held' must say true/false for each of the {len(stats['weapons'])} weapons",
                         f"{where}.state.held", _FIX)
    for k in ("fatigue", "vital"):
        if s[k] < 0:
            raise InputError(f"{k} must be 0 or more", f"{where}.state.{k}", _FIX)
    if not all(type(i) is int and i >= 0 for i in s["grapple"]):
        raise InputError("grapple must list creature ids", f"{where}.state.grapple", _FIX)
    for n, b in enumerate(s["brief"]):
        if not (isinstance(b, list) and len(b) == 3 and b[0] in ("all", "armor", "fortitude", "reflex", "mental")
                and type(b[1]) is int and type(b[2]) is int):
            raise InputError(f"brief[{n}] {b!r} is not [defense or 'all', penalty, last round]",
                             f"{where}.state.brief", "e.g. [all, 2, 3]: -2 to all defenses until the end of round 3")


_LIBRARY = TemplateLibrary(_HERE / "units.yaml", validate_stats)
templates = _LIBRARY.templates        # the raw blocks of units.yaml
_template_stats = _LIBRARY.stats      # a template's validated block, shared
