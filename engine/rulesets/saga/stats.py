"""Saga stat blocks: the template library and strict validation of a unit's fields."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any


from engine.core.dice import parse_dice
from engine.core.errors import InputError
from engine.core.stat_fields import TemplateLibrary
from engine.core.units import Unit, stat_block

SIZES = {"fine": -20, "diminutive": -15, "tiny": -10, "small": -5, "medium": 0, "large": 5, "huge": 10,
         "gargantuan": 15, "colossal": 20}
SIZE_ORDER = list(SIZES)
# Reflex size modifier for objects / held items (Saga: Fine +10 ... Colossal -10).
OBJECT_SIZE_MOD = {"fine": 10, "diminutive": 5, "tiny": 2, "small": 1, "medium": 0, "large": -1, "huge": -2,
                   "gargantuan": -5, "colossal": -10}
FEATS = {"careful_shot", "deadeye", "quick_draw", "improved_disarm", "ranged_disarm", "double_attack",
         "triple_attack", "dual_weapon_mastery_1", "dual_weapon_mastery_2", "dual_weapon_mastery_3", "pin", "trip",
         "extra_second_wind"}
WEAPON_KEYS = {"name": str, "kind": str, "damage": str, "group": str, "hands": int, "light": bool,
               "lightsaber": bool, "double": bool, "improvised": bool, "natural": bool, "attack": int,
               "modes": list, "size": str, "proficiency": str}
# Saga's Weapon Proficiency feats, by weapon group; a stat block's `proficient` lists those it has (natural weapons and
# unarmed attacks need none). A weapon's `proficiency` defaults from its range group, or lightsabers / simple.
PROFICIENCIES = ("simple", "pistols", "rifles", "heavy_weapons", "advanced_melee", "lightsabers", "exotic")
_PROFICIENCY_OF_GROUP = {"pistol": "pistols", "rifle": "rifles", "heavy": "heavy_weapons", "simple": "simple",
                         "thrown": "simple", "melee": "simple"}
ITEM_KEYS = {"name": str, "reflex": int, "fortitude": int, "will": int}
# field: (type, default or None if required)
STAT_KEYS: dict[str, tuple[type | tuple, Any]] = {
    "heroic": (bool, True), "droid": (bool, False), "level": (int, 1), "size": (str, "medium"),
    "reach": (int, 1), "hp": (int, None), "speed": (int, 6), "reflex": (int, None), "fortitude": (int, None),
    "will": (int, None), "armor": (int, 0), "heavy_armor": (bool, False), "threshold": (int, 0),
    "bab": (int, 0), "str": (int, 0), "dex": (int, 0), "con": (int, 10), "initiative": (int, 0),
    "feats": (list, []), "trained": (list, []), "acrobatics": (int, 0), "weapons": (list, []),
    "items": (list, []), "second_winds": (int, -1), "persistent": (bool, False),
    "proficient": (list, list(PROFICIENCIES)),  # left out: proficient with every weapon
}
RANGES = {  # Saga Table: Weapon Ranges, in squares (upper bounds of point blank / short / medium / long)
    "heavy": (50, 100, 250, 500), "pistol": (20, 40, 60, 80), "rifle": (30, 60, 150, 300),
    "simple": (20, 40, 60, 80), "thrown": (6, 8, 10, 12), "melee": (0, 0, 0, 0),
}
UNIT_KEYS = {"name", "side", "template", "at", "tactics", "hp_now"}
_TYPE_WORDS = {int: "a whole number", bool: "true or false", str: "text", list: "a list"}
_EXAMPLES = {"hp": "30", "reflex": "15", "fortitude": "12", "will": "10", "feats": "[careful_shot, quick_draw]",
             "trained": "[acrobatics]", "weapons": "[{name: knife, kind: melee, damage: 1d4}]",
             "items": "[{name: energy shield, reflex: 2}]", "proficient": "[pistols, simple]", "size": "medium"}


def validate_stats(block: dict, where: str) -> dict:
    """Check a stat block's keys and types; returns it with defaults filled in."""
    out: dict[str, Any] = {}
    for k in block:
        if k not in STAT_KEYS:
            raise InputError(f"unknown field '{k}'", where, f"Saga unit fields: {', '.join(sorted(STAT_KEYS))}")
    for k, (typ, default) in STAT_KEYS.items():
        if k in block:
            v = block[k]
            if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
                example = _EXAMPLES.get(k) or str(default).lower()
                raise InputError(f"'{k}' must be {_TYPE_WORDS[typ]}, got {v!r}", where,
                                 f"write it like {k}: {example}")
            out[k] = copy.deepcopy(v)
        elif default is None:
            raise InputError(f"missing field '{k}'", where, "give it in the unit or use a template")
        else:
            out[k] = copy.deepcopy(default)
    if out["size"] not in SIZES:
        raise InputError(f"size '{out['size']}' unknown", where, f"one of {', '.join(SIZES)}")
    bad = set(out["feats"]) - FEATS - {"ranged_disarm"}
    if bad:
        raise InputError(f"unknown feat(s) {sorted(bad)}", where, f"known: {', '.join(sorted(FEATS))}")
    bad = [p for p in out["proficient"] if p not in PROFICIENCIES]
    if bad:
        raise InputError(f"unknown weapon proficiency {bad}", where,
                         f"list weapon groups of: {', '.join(PROFICIENCIES)} (or leave 'proficient' out: all of them)")
    for k, least, fix in (("hp", 1, "give its full hit points, like hp: 30"),
                          ("speed", 0, "give the squares it moves in a move action, like speed: 6"),
                          ("reach", 1, "1 for Small and Medium creatures, 2 for most Large ones")):
        if out[k] < least:
            raise InputError(f"'{k}' is {out[k]}, less than {least}", where, fix)
    if out["threshold"] <= 0:
        out["threshold"] = out["fortitude"] + max(0, SIZES[out["size"]])
    if out["second_winds"] < 0:
        out["second_winds"] = (1 + ("extra_second_wind" in out["feats"])) if out["heroic"] else \
            int("extra_second_wind" in out["feats"])
    for n, w in enumerate(out["weapons"]):
        out["weapons"][n] = _weapon(w, f"{where} weapons[{n}]")
    if len(out["weapons"]) > 4:
        raise InputError(f"{len(out['weapons'])} weapons: at most 4 per unit", where, "carry 4 weapons or fewer")
    for n, it in enumerate(out["items"]):
        if (not isinstance(it, dict) or set(it) - set(ITEM_KEYS) or not isinstance(it.get("name"), str)
                or any(type(it[k]) is not int for k in ("reflex", "fortitude", "will") if k in it)):
            raise InputError(f"an item is {{name, reflex?, fortitude?, will?}}, got {it!r}", f"{where} items[{n}]",
                             "write it like {name: energy shield, reflex: 2} (whole-number bonuses)")
    if len(out["items"]) > 4:
        raise InputError(f"{len(out['items'])} items: at most 4 per unit", where, "carry 4 items or fewer")
    return out


def _weapon(w: Any, where: str) -> dict:
    like = "write it like {name: knife, kind: melee, damage: 1d4}"
    if not isinstance(w, dict):
        raise InputError(f"a weapon must be a mapping, got {w!r}", where, like)
    for k, v in w.items():
        if k not in WEAPON_KEYS:
            raise InputError(f"unknown weapon field '{k}'", where, f"fields: {', '.join(WEAPON_KEYS)}")
        typ = WEAPON_KEYS[k]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise InputError(f"weapon field '{k}' must be {_TYPE_WORDS[typ]}, got {v!r}", where,
                             "dice in quotes, like damage: '2d8+3'" if k == "damage" else like)
    for k in ("name", "kind", "damage"):
        if k not in w:
            raise InputError(f"weapon is missing '{k}'", where, like)
    if w["kind"] not in ("melee", "ranged"):
        raise InputError(f"weapon kind '{w['kind']}'", where, "melee or ranged")
    try:
        parse_dice(w["damage"])
    except InputError as e:
        raise InputError(f"the damage of the {w['name']}: {e.what}", where, e.fix) from None
    out = {"hands": 1, "light": False, "lightsaber": False, "double": False, "improvised": False,
           "natural": False, "attack": 0, "modes": ["lethal"], "size": "small", **w}
    out.setdefault("group", "melee" if w["kind"] == "melee" else "pistol")
    if out["group"] not in RANGES:
        raise InputError(f"weapon group '{out['group']}'", where, f"one of {', '.join(RANGES)}")
    out.setdefault("proficiency", "lightsabers" if out["lightsaber"] else _PROFICIENCY_OF_GROUP[out["group"]])
    if out["proficiency"] not in PROFICIENCIES:
        raise InputError(f"weapon proficiency '{out['proficiency']}'", where, f"one of {', '.join(PROFICIENCIES)}")
    if out["kind"] == "ranged" and out["group"] == "melee":
        raise InputError("a ranged weapon needs a ranged group", where, "pistol, rifle, heavy, simple or thrown")
    if out["size"] not in SIZES:
        raise InputError(f"weapon size '{out['size']}' unknown", where, f"one of {', '.join(SIZES)}")
    bad_modes = set(out["modes"]) - {"lethal", "stun", "autofire"}
    if bad_modes or not out["modes"]:
        raise InputError(f"weapon modes {out['modes']}", where, "a list of lethal, stun, autofire")
    return out


def make_unit(uid: int, spec: dict, where: str) -> Unit:
    """A unit from an encounter entry: template, then any stat overrides, then play state."""
    stats = stat_block(spec, where, templates(), UNIT_KEYS, validate_stats, _template_stats, "Saga")
    hp = spec.get("hp_now", stats["hp"])
    if type(hp) is not int or not 0 < hp <= stats["hp"]:
        raise InputError(f"'hp_now' of {spec.get('name')} is {hp!r}, not a whole number from 1 to its hp "
                         f"{stats['hp']}", where,
                         f"write hp_now: 1 to {stats['hp']}, or leave it out for full hit points")
    unit = Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), hp, stats["hp"], stats,
                spec.get("template") or "", tactics=spec.get("tactics") or {})
    unit.state = initial_state(stats)
    return unit


def check_unit(unit: Unit, where: str, helpless: int) -> None:
    """A unit of a saved state or after a GM's correction: its stat block valid, its hit points within their maximum,
    and its play state the keys of `initial_state`, each of its type, with what the rules use as an index in range
    (the condition track from 0 to `helpless`)."""
    stats = validate_stats(unit.stats, f"{where}.stats")
    if unit.hp > unit.max_hp:
        raise InputError(f"hp {unit.hp} is above max_hp {unit.max_hp}", f"{where}.hp", "give at most max_hp")
    s, fix = unit.state, "save the state again from a battle, or set it with the autopilot's corrections"
    expected = initial_state(stats)
    unknown, missing = set(s) - set(expected), set(expected) - set(s)
    if unknown or missing:
        what = "; ".join(f"{label} {sorted(keys)}"
                         for label, keys in (("lacks", missing), ("has unknown keys", unknown)) if keys)
        raise InputError(f"the play state {what}", f"{where}.state", fix)
    for k, v in expected.items():
        got = s[k]
        ok = (got is None or type(got) is int) if v is None else type(got) is type(v)
        if not ok:
            raise InputError(f"'{k}' is {got!r}, not a {'unit number or null' if v is None else type(v).__name__}",
                             f"{where}.state.{k}", fix)
    n_weapons, n_items = len(stats["weapons"]), len(stats["items"])

    def indices(k: str, n: int, what: str) -> None:
        if not all(type(i) is int and 0 <= i < n for i in s[k]) or len(set(s[k])) != len(s[k]):
            allowed = f"different {what} numbers 0..{n - 1}" if n else f"nothing: the unit has no {what}s"
            raise InputError(f"'{k}' {s[k]} must list {allowed}", f"{where}.state.{k}", fix)

    indices("hands", n_weapons, "weapon")
    indices("lost", n_weapons, "weapon")
    indices("active_items", n_items, "item")
    if len(s["hands"]) > 2:
        raise InputError(f"'hands' {s['hands']} holds more than two weapons", f"{where}.state.hands", fix)
    if len(s["modes"]) != n_weapons or not all(type(m) is int and m >= 0 for m in s["modes"]):
        raise InputError(f"'modes' {s['modes']} must give a mode number (0 or more) for each of the {n_weapons} "
                         "weapons", f"{where}.state.modes", fix)
    if not 0 <= s["ct"] <= helpless:
        raise InputError(f"condition track step {s['ct']} is not 0..{helpless}", f"{where}.state.ct",
                         f"0 is normal, {helpless} helpless")
    for k, top in (("recover", 2), ("winds_used", None), ("suppressed", None)):
        if s[k] < 0 or (top is not None and s[k] > top):
            raise InputError(f"'{k}' {s[k]} is out of range ({'0..' + str(top) if top else '0 or more'})",
                             f"{where}.state.{k}", fix)


def initial_state(stats: dict) -> dict:
    """Play state at the start of an encounter: the first carried (not natural) weapon in hand."""
    carried = [n for n, w in enumerate(stats["weapons"]) if not w["natural"]]
    return {"hands": carried[:1], "modes": [0] * len(stats["weapons"]), "lost": [], "ct": 0, "prone": False,
            "aimed": False, "recover": 0, "recover_round": -9, "winds_used": 0, "defense": 0, "no_attacks": False,
            "attack_penalty": 0, "charged": False, "aoo_used": False, "grabbed_by": [], "grabbing": None,
            "pinned_by": None, "aid": {}, "suppressed": 0, "active_items": []}


_LIBRARY = TemplateLibrary(Path(__file__).parent / "units.yaml", validate_stats)
templates = _LIBRARY.templates        # the raw blocks of units.yaml
_template_stats = _LIBRARY.stats      # a template's validated block, shared
