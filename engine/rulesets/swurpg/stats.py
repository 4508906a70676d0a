"""SWURPG stat blocks: the template library (`units.yaml`), strict validation, units and their play state.

A stat block is written as a 5e-style GM reads one: ability scores (str 14 is a +2 modifier), proficiency bonus,
hit points, speed in feet, armor (category, bonus, Dexterity cap, speed cap) and shield, proficient saves and
skills, weapons with their dice, damage type, properties and ranges, resistances, vulnerabilities, immunities,
flat damage resistance, regeneration and traits. AC is worked out from them (`combat.armor_class`). Every field is
checked when the unit is made; an error names the field and the fix.
"""
from __future__ import annotations

import copy
from pathlib import Path


from engine.core.areas import SHAPES
from engine.core.errors import InputError
from engine.core.stat_fields import TemplateLibrary, check_dice, check_state_shape, fields
from engine.core.units import Unit, stat_block

from .conditions import CONDITIONS, DEFAULT_SAVE, INFLICTED, SAVES

KINETIC = ("bludgeoning", "piercing", "slashing")
DAMAGE_TYPES = KINETIC + ("energy", "ion", "fire", "cold", "acid", "lightning", "sonic", "poison", "psychic",
                          "force", "necrotic")
GROUPS = {"kinetic": KINETIC}  # a resistance may name the group: all three kinetic subtypes
WEAPON_KINDS = ("melee", "ranged", "grenade")
ARMOR_CATEGORIES = ("none", "light", "medium", "heavy")
SIZES = {"tiny": 2, "small": 1, "medium": 0, "large": -1, "huge": -2, "gargantuan": -4}  # size modifier to AC
TRAITS = ("dual_wielder_1", "dual_wielder_2", "four_armed", "move_after_action", "extra_interaction",
          "nimble_escape", "finesse_unarmed")
SKILLS = {"athletics": "str", "acrobatics": "dex", "treat_injury": "wis", "stealth": "dex", "perception": "wis"}
MAX_WEAPONS = 4
LIGHT_KG = 1.5  # a weapon this light or lighter counts as light for off-hand purposes

_WEAPON_KEYS = {
    "name": (str, None), "kind": (str, None), "damage": (str, "1"), "type": (str, "bludgeoning"),
    "attack": (int, 0), "bonus_damage": (int, 0), "range": (int, 0), "long": (int, 0), "reach": (bool, False),
    "finesse": (bool, False), "light": (bool, False), "mass": ((int, float), 0.0), "hands": (int, 1),
    "thrown": (bool, False), "autofire": (bool, False), "dex_damage": (bool, False), "stun_dc": (int, 0),
    "dc": (int, 0), "radius": (int, 10), "shape": (str, "burst"), "size": (int, 0), "count": (int, 0),
    "condition": (str, ""), "save": (str, ""),
    "condition_dc": (int, 0), "natural": (bool, False),
}
_ARMOR_KEYS = {"name": (str, "armor"), "category": (str, "light"), "bonus": (int, 0),
               "max_dex": ((int, type(None)), None), "speed_cap": ((int, type(None)), None)}
_STAT_KEYS = {
    "level": (int, 1), "cr": ((int, float, str, type(None)), None), "prof": (int, 2), "hp": (int, None),
    "str": (int, 10), "dex": (int, 10), "con": (int, 10), "int": (int, 10), "wis": (int, 10), "cha": (int, 10),
    "speed": (int, 30), "size": (str, "medium"), "armor": ((dict, type(None)), None), "shield": (int, 0),
    "ac_bonus": (int, 0), "armor_proficiency": (list, ["light", "medium", "heavy"]), "saves": (list, []),
    "skills": (dict, {}), "weapons": (list, []), "resist": (list, []), "vulnerable": (list, []),
    "immune": (list, []), "dr": (dict, {}), "regeneration": (int, 0), "temp_hp": (int, 0), "traits": (list, []),
    "medpacs": (int, 0), "initiative": ((int, type(None)), None), "wield": ((list, type(None)), None),
    "pronoun": (str, ""),
}
UNIT_KEYS = {"name", "side", "template", "at", "tactics", "hp_now"}
_FIX = "save the state again from a battle, or set it with the autopilot's corrections"


def modifier(score: int) -> int:
    """An ability score's modifier: 10-11 -> 0, 14 -> +2, 7 -> -2."""
    return (score - 10) // 2


def _choice(v: str, allowed, where: str, what: str) -> str:
    if v not in allowed:
        raise InputError(f"{what} '{v}' is not one of {', '.join(allowed)}", where)
    return v


def _weapon(w, where: str) -> dict:
    out = fields(w, _WEAPON_KEYS, where, "weapon", "SWURPG")
    _choice(out["kind"], WEAPON_KINDS, f"{where}.kind", "kind")
    _choice(out["type"], DAMAGE_TYPES, f"{where}.type", "damage type")
    check_dice(out["damage"], f"{where}.damage")
    if out["hands"] not in (1, 2):
        raise InputError(f"hands {out['hands']} must be 1 or 2", f"{where}.hands")
    ranged = out["kind"] != "melee" or out["thrown"]
    if ranged and out["range"] <= 0:
        raise InputError(f"a {out['kind']} weapon needs a range", f"{where}.range",
                         "its normal range in feet, e.g. range: 60, long: 240")
    for k in ("range", "long", "radius"):
        if out[k] < 0 or out[k] % 5:
            raise InputError(f"{k} {out[k]} must be feet in steps of 5", f"{where}.{k}")
    if out["long"] and out["long"] < out["range"]:
        raise InputError(f"long range {out['long']} is shorter than the normal range {out['range']}", f"{where}.long")
    if out["kind"] == "grenade" and (out["dc"] <= 0 or out["count"] <= 0):
        raise InputError("a grenade needs its save DC and how many are carried", where, "e.g. dc: 13, count: 2")
    _choice(out["shape"], SHAPES, f"{where}.shape", "shape")
    if out["shape"] != "burst" and (out["size"] <= 0 or out["size"] % 5):
        raise InputError(f"a {out['shape']} needs its size in feet", f"{where}.size",
                         "the cone's or line's length, the square's side, e.g. size: 15")
    if out["autofire"] and out["kind"] != "ranged":
        raise InputError("only ranged weapons fire on full auto", f"{where}.autofire")
    if out["condition"]:
        _choice(out["condition"], INFLICTED, f"{where}.condition", "condition")
        out["save"] = out["save"] or DEFAULT_SAVE.get(out["condition"], "con")
        if out["condition_dc"] <= 0:
            raise InputError(f"the {out['condition']} a hit inflicts needs its save DC", f"{where}.condition_dc",
                             "e.g. condition_dc: 12")
    if out["save"]:
        _choice(out["save"], SAVES, f"{where}.save", "save")
    return out


def _damage_types(v: list, where: str) -> list:
    for t in v:
        if t not in DAMAGE_TYPES and t not in GROUPS:
            raise InputError(f"'{t}' is not a damage type", where, f"one of {', '.join(DAMAGE_TYPES)} or kinetic")
    return v


def validate_stats(block: dict, where: str) -> dict:
    """Check a stat block's fields and types; returns it with defaults filled in."""
    out = fields(block, _STAT_KEYS, where, "unit", "SWURPG")
    if out["cr"] is None:
        out["cr"] = out["level"]
    if out["hp"] < 1:
        raise InputError(f"hp {out['hp']} must be 1 or more", f"{where}.hp")
    for k in SAVES:
        if not 1 <= out[k] <= 30:
            raise InputError(f"{k} {out[k]} is not an ability score", f"{where}.{k}", "a score from 1 to 30, e.g. 14")
    if out["speed"] < 0 or out["speed"] % 5:
        raise InputError(f"speed {out['speed']} must be feet in steps of 5", f"{where}.speed", "e.g. speed: 30")
    _choice(out["size"], tuple(SIZES), f"{where}.size", "size")
    if out["armor"] is not None:
        a = out["armor"] = fields(out["armor"], _ARMOR_KEYS, f"{where}.armor", "armor", "SWURPG")
        _choice(a["category"], ARMOR_CATEGORIES, f"{where}.armor.category", "category")
    for c in out["armor_proficiency"]:
        _choice(c, ARMOR_CATEGORIES[1:], f"{where}.armor_proficiency", "armor category")
    for s in out["saves"]:
        _choice(s, SAVES, f"{where}.saves", "save")
    for k, v in out["skills"].items():
        _choice(k, tuple(SKILLS), f"{where}.skills", "skill")
        if type(v) is not int:
            raise InputError(f"skill {k}: {v!r} must be a whole number", f"{where}.skills.{k}")
    for k in ("resist", "vulnerable", "immune"):
        _damage_types(out[k], f"{where}.{k}")
    for t, v in out["dr"].items():
        _damage_types([t], f"{where}.dr")
        if type(v) is not int or v < 0:
            raise InputError(f"dr {t}: {v!r}", f"{where}.dr", "damage type -> amount, e.g. {energy: 2}")
    for t in out["traits"]:
        _choice(t, TRAITS, f"{where}.traits", "trait")
    for k in ("regeneration", "temp_hp", "medpacs", "shield"):
        if out[k] < 0:
            raise InputError(f"{k} {out[k]} must be 0 or more", f"{where}.{k}")
    if len(out["weapons"]) > MAX_WEAPONS:
        raise InputError(f"at most {MAX_WEAPONS} weapons per unit", f"{where}.weapons")
    out["weapons"] = [_weapon(w, f"{where}.weapons[{n}]") for n, w in enumerate(out["weapons"])]
    if out["wield"] is not None:
        names = [w["name"] for w in out["weapons"]]
        for w in out["wield"]:
            if w not in names:
                raise InputError(f"wield names '{w}', not a weapon of the unit", f"{where}.wield",
                                 f"one or two of: {', '.join(names)}")
        check_hands(out, [names.index(w) for w in out["wield"]], f"{where}.wield")
    return out


def check_hands(stats: dict, wield: list[int], where: str) -> None:
    """Two weapons at most; two-handed ones only one, unless four-armed with Strength 14+ (then two)."""
    ws = stats["weapons"]
    if len(wield) > 2 or len(set(wield)) != len(wield):
        raise InputError(f"{len(wield)} weapons in hand: one per hand, two at most", where)
    if len(wield) == 2 and any(ws[n]["hands"] == 2 for n in wield) and not four_arms(stats):
        raise InputError("two weapons in hand, one of them two-handed", where,
                         "only four-armed species with Strength 14+ wield two two-handed weapons")


def four_arms(stats: dict) -> bool:
    return "four_armed" in stats["traits"] and stats["str"] >= 14


def make_unit(uid: int, spec: dict, where: str) -> Unit:
    """A unit from an encounter entry: a template, then any stat overrides, then a wounded start (`hp_now`)."""
    stats = stat_block(spec, where, templates(), UNIT_KEYS, validate_stats, _template_stats, "SWURPG")
    hp = spec.get("hp_now", stats["hp"])
    if not isinstance(hp, int) or isinstance(hp, bool) or not 0 < hp <= stats["hp"]:
        raise InputError(f"hp_now {hp!r} must be 1..{stats['hp']}", where, "the unit's current hit points")
    unit = Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), hp, stats["hp"], stats,
                spec.get("template") or "", tactics=spec.get("tactics") or {})
    unit.state = initial_state(stats)
    return unit


def starting_wield(stats: dict) -> list[int]:
    """Weapons in hand at the start: the stat block's `wield`, else its first weapon that is not a grenade."""
    ws = stats["weapons"]
    if stats["wield"] is not None:
        names = [w["name"] for w in ws]
        return [names.index(n) for n in stats["wield"]]
    return [n for n, w in enumerate(ws) if w["kind"] != "grenade"][:1]


def initial_state(stats: dict) -> dict:
    """Play state at the start of an encounter (every key a GM may set under `state:` in an encounter file)."""
    return {
        "temp_hp": stats["temp_hp"],
        "wield": starting_wield(stats),       # weapons in hand, main hand first
        "ammo": [w["count"] or -1 for w in stats["weapons"]],   # grenades left; -1 unlimited
        "dropped": [],                        # weapons on the ground in the unit's square
        "medpacs": stats["medpacs"],
        "conds": {},                          # condition -> [ends, save, dc, source] (conditions.py)
        "reaction": True,
        "surprised": False,                   # set by the GM: no actions in round 1, no reactions until then
        "dodging": False,                     # Dodge: until the start of its next turn
        "helped": [],                         # ids of those who Helped against it: its foes' next attack has advantage
        "grappled_by": None, "grappling": None,
        "death": [0, 0],                      # death saves: successes, failures
        "stable": False, "dead_round": 0,     # stable at 0 HP; the round of its last death save
        "moved": False,                       # moved this turn (autofire braced when it has not)
    }


_STATE_TYPES = {k: type(v) for k, v in initial_state({"temp_hp": 0, "weapons": [], "wield": None,
                                                      "medpacs": 0}).items()}
_STATE_TYPES["grappled_by"] = _STATE_TYPES["grappling"] = (int, type(None))


def check_unit(unit: Unit, where: str) -> None:
    """A unit of a saved state or after a GM's correction: a valid stat block, HP within the maximum, and a play
    state with the keys and types of `initial_state` and indices in range."""
    stats = validate_stats(copy.deepcopy(unit.stats), f"{where}.stats")
    if unit.max_hp != stats["hp"]:
        raise InputError(f"max_hp {unit.max_hp} is not the stat block's hp ({stats['hp']})", f"{where}.max_hp", _FIX)
    if not 0 <= unit.hp <= unit.max_hp:
        raise InputError(f"hp {unit.hp} out of range 0..{unit.max_hp}", f"{where}.hp", _FIX)
    s = unit.state
    check_state_shape(s, _STATE_TYPES, f"{where}.state", _FIX)
    n = len(stats["weapons"])
    for k in ("wield", "dropped"):
        if not all(type(i) is int and 0 <= i < n for i in s[k]) or len(set(s[k])) != len(s[k]):
            raise InputError(f"'{k}' {s[k]} must list different weapon numbers 0..{n - 1}", f"{where}.state.{k}", _FIX)
    check_hands(stats, s["wield"], f"{where}.state.wield")
    if len(s["ammo"]) != n or not all(type(v) is int and v >= -1 for v in s["ammo"]):
        raise InputError(f"'ammo' must give a whole number (-1: unlimited) for each of the {n} weapons",
                         f"{where}.state.ammo", _FIX)
    for c, v in s["conds"].items():
        if c not in CONDITIONS or not (isinstance(v, list) and len(v) == 4 and type(v[0]) is int
                                       and v[1] in ("",) + SAVES and type(v[2]) is int):
            raise InputError(f"condition {c}: {v!r}", f"{where}.state.conds",
                             f"a condition of {', '.join(sorted(CONDITIONS))} -> [ends (-1: until saved), save, DC, "
                             "source id]")
    d = s["death"]
    if len(d) != 2 or not all(type(x) is int and 0 <= x <= 3 for x in d):
        raise InputError(f"death saves {d!r}", f"{where}.state.death", "[successes, failures], each 0..3")
    if s["temp_hp"] < 0 or s["medpacs"] < 0:
        raise InputError("temp_hp and medpacs must be 0 or more", f"{where}.state", _FIX)


_LIBRARY = TemplateLibrary(Path(__file__).parent / "units.yaml", validate_stats)
templates = _LIBRARY.templates        # the raw blocks of units.yaml
_template_stats = _LIBRARY.stats      # a template's validated block, shared
