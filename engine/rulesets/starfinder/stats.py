"""Starfinder stat blocks: the template library (`units.yaml`), strict validation, units and their play state.

A stat block is written as a Starfinder GM reads one: EAC / KAC, Fort / Ref / Will, Stamina and Hit Points, speed
and reach in feet, ability modifiers, weapons with their damage dice, damage type, range increment and critical
effect, and special abilities or spells with their damage, area, save and condition. Every field is checked when the
unit is made; an error names the field and the fix.

A unit's `hp` in the core is what it can still take, Stamina Points included: `hp = HP + SP` (the Stamina part is
`state["sp"]`), so the core's health fraction and the observation see both. Damage takes Stamina first.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any


from engine.core.errors import InputError
from engine.core.stat_fields import TemplateLibrary, check_state_shape, fields
from engine.core.stat_fields import check_dice as _dice
from engine.core.units import Unit, stat_block

from .conditions import CONDITIONS, DIRTY_TRICKS

KINETIC = frozenset({"B", "P", "S"})
ENERGY = frozenset({"A", "C", "E", "F", "So", "force"})
DAMAGE_TYPES = KINETIC | ENERGY
WEAPON_KINDS = ("melee", "ranged", "thrown", "grenade")
CRITICALS = {"burn": True, "bleed": True, "corrode": True, "arc": True, "knockdown": False, "staggered": False,
             "stunned": False, "deafen": False}  # effect -> whether it names an amount ("burn 1d6")
MANEUVERS = ("bull_rush", "dirty_trick", "disarm", "grapple", "reposition", "sunder", "trip")
ABILITY_KINDS = ("spell", "sla", "ex", "su", "item")
ABILITY_COSTS = ("standard", "move", "swift", "full")
ABILITY_TARGETS = ("enemy", "ally", "self", "area")
SAVES = ("fort", "ref", "will")
IMMUNITIES = ("mind", "critical", "bleed", "fire", "poison")
MAX_WEAPONS, MAX_ABILITIES, MAX_ITEMS = 6, 6, 4

_WEAPON_KEYS: dict[str, tuple[type | tuple, Any]] = {
    "name": (str, None), "kind": (str, None), "damage": (str, "0"), "type": (str, "B"), "attack": (int, 0),
    "range": (int, 0), "increments": (int, 0), "reach": (bool, False), "explode": (int, 0), "dc": (int, 0),
    "critical": (str, ""), "count": (int, 0), "capacity": (int, 0), "usage": (int, 1), "hands": (int, 1),
    "operative": (bool, False), "unwieldy": (bool, False), "natural": (bool, False), "level": (int, 1),
    "maneuvers": (list, []),
}
_ABILITY_KEYS: dict[str, tuple[type | tuple, Any]] = {
    "name": (str, None), "kind": (str, "spell"), "cost": (str, "standard"), "level": (int, 0), "uses": (int, 0),
    "target": (str, "enemy"), "range": (int, 0), "radius": (int, 0), "attack": (str, "none"),
    "attack_bonus": (int, 0), "damage": (str, ""), "type": (str, "force"), "save": (str, "none"), "dc": (int, 0),
    "on_save": (str, ""), "condition": (str, ""), "rounds": (int, 1), "heal": (str, ""), "targets": (int, 1),
    "provokes": ((bool, type(None)), None), "sustain": (str, "none"), "tags": (list, []),
}
_STAT_KEYS: dict[str, tuple[type | tuple, Any]] = {
    "level": (int, 1), "cr": ((int, float, str, type(None)), None), "hp": (int, None), "sp": (int, 0), "rp": (int, 0),
    "eac": (int, None), "kac": (int, None), "fort": (int, 0), "ref": (int, 0), "will": (int, 0),
    "bab": (int, 0), "str": (int, 0), "dex": (int, 0), "con": (int, 0), "int": (int, 0), "wis": (int, 0),
    "cha": (int, 0), "speed": (int, 30), "natural_reach": (int, 5), "initiative": ((int, type(None)), None),
    "bluff": (int, 0), "sense_motive": (int, 0), "acrobatics": (int, 0), "intelligent": (bool, True),
    "immune": (list, []), "dr": (int, 0), "resist": (dict, {}), "weapons": (list, []), "abilities": (list, []),
    "items": (list, []), "wield": ((list, type(None)), None), "pronoun": (str, ""),
}
# encounter-entry keys that are not stats: `hp_now` / `sp_now` start a unit wounded
UNIT_KEYS = {"name", "side", "template", "at", "tactics", "hp_now", "sp_now"}
_FIX = "save the state again from a battle, or set it with the autopilot's corrections"


def parse_cr(v: Any, where: str) -> float:
    """A challenge rating as a number: 2, 0.5, '1/3'."""
    if isinstance(v, str):
        try:
            num, _, den = v.partition("/")
            v = int(num) / int(den) if den else float(num)
        except (ValueError, ZeroDivisionError):
            raise InputError(f"cr '{v}' is not a challenge rating", f"{where}.cr", "write it like 2, 1/2 or 1/3")
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
        raise InputError(f"cr {v!r} is not a challenge rating", f"{where}.cr", "write it like 2, 1/2 or 1/3")
    return float(v)


def parse_critical(text: str, where: str) -> tuple[str, str]:
    """'burn 1d6' -> ('burn', '1d6'); 'knockdown' -> ('knockdown', '')."""
    parts = text.split()
    if not parts:
        return "", ""
    name = parts[0]
    if name not in CRITICALS or len(parts) != 1 + CRITICALS[name]:
        forms = ", ".join(f"{k} 1d6" if amount else k for k, amount in CRITICALS.items())
        raise InputError(f"critical effect '{text}' is not one this ruleset knows", f"{where}.critical",
                         f"write one of: {forms}")
    if CRITICALS[name]:
        _dice(parts[1], f"{where}.critical")
        return name, parts[1]
    return name, ""


def _damage_type(t: str, where: str) -> str:
    kinds = [x.strip() for x in t.replace("&", " ").split()]
    if not kinds or any(k not in DAMAGE_TYPES for k in kinds):
        raise InputError(f"damage type '{t}'", where, "B, P or S (kinetic), A, C, E, F or So (energy), force, "
                         "or two joined by & (E & P)")
    return " & ".join(kinds)


def _weapon(w: Any, where: str) -> dict:
    out = fields(w, _WEAPON_KEYS, where, "weapon", "Starfinder")
    if out["kind"] not in WEAPON_KINDS:
        raise InputError(f"weapon kind '{out['kind']}'", f"{where}.kind", f"one of {', '.join(WEAPON_KINDS)}")
    _dice(out["damage"], f"{where}.damage")
    out["type"] = _damage_type(out["type"], f"{where}.type")
    parse_critical(out["critical"], where)
    if out["kind"] != "melee" and out["range"] <= 0:
        raise InputError(f"a {out['kind']} weapon needs a range increment", f"{where}.range",
                         "give it in feet, e.g. 60")
    if out["kind"] == "melee" and out["explode"]:
        raise InputError("a melee weapon cannot explode", f"{where}.explode", "use kind grenade or ranged")
    if out["kind"] == "grenade" and out["explode"] <= 0:
        raise InputError("a grenade needs an explode radius", f"{where}.explode", "give it in feet, e.g. 15")
    if out["explode"] and out["dc"] <= 0:
        raise InputError("an explode weapon needs the DC of its Reflex save", f"{where}.dc", "e.g. dc: 12")
    if out["hands"] not in (1, 2) or out["natural"] and out["kind"] != "melee":
        raise InputError("hands must be 1 or 2 (natural weapons are melee)", f"{where}.hands")
    for k in ("range", "increments", "explode", "count", "capacity", "level"):
        if out[k] < 0:
            raise InputError(f"'{k}' must be 0 or more", f"{where}.{k}")
    if out["usage"] < 1 or out["capacity"] and out["usage"] > out["capacity"]:
        raise InputError("usage must be 1 or more and at most the capacity", f"{where}.usage")
    bad = [m for m in out["maneuvers"] if m not in MANEUVERS]
    if bad:
        raise InputError(f"unknown maneuver '{bad[0]}'", f"{where}.maneuvers", f"one of {', '.join(MANEUVERS)}")
    if not out["increments"]:
        out["increments"] = 5 if out["kind"] in ("thrown", "grenade") else 10
    return out


def _ability(a: Any, where: str) -> dict:
    out = fields(a, _ABILITY_KEYS, where, "ability", "Starfinder")
    for k, allowed in (("kind", ABILITY_KINDS), ("cost", ABILITY_COSTS), ("target", ABILITY_TARGETS),
                       ("save", SAVES + ("none",)), ("attack", ("none", "eac", "kac")),
                       ("sustain", ("none", "concentration", "dismissible")), ("on_save", ("", "half", "negates"))):
        if out[k] not in allowed:
            raise InputError(f"{k} '{out[k]}'", f"{where}.{k}", f"one of {', '.join(x for x in allowed if x)}")
    for k in ("damage", "heal"):
        if out[k]:
            _dice(out[k], f"{where}.{k}")
    if out["damage"]:
        out["type"] = _damage_type(out["type"], f"{where}.type")
    if out["condition"] and out["condition"] not in CONDITIONS:
        raise InputError(f"unknown condition '{out['condition']}'", f"{where}.condition",
                         f"one of {', '.join(sorted(CONDITIONS))}")
    if not (out["damage"] or out["heal"] or out["condition"]):
        raise InputError("an ability needs an effect", where, "give damage, heal or condition")
    if out["save"] != "none" and out["dc"] <= 0:
        raise InputError("an ability with a save needs its DC", f"{where}.dc", "e.g. dc: 14")
    if out["target"] == "area" and out["radius"] <= 0:
        raise InputError("an area ability needs a radius", f"{where}.radius", "give it in feet, e.g. 10")
    if out["heal"] and out["target"] not in ("ally", "self"):
        raise InputError("a healing ability targets an ally or self", f"{where}.target", "target: ally or self")
    if out["targets"] < 1 or out["uses"] < 0 or out["range"] < 0 or out["rounds"] < 1:
        raise InputError("targets and rounds must be 1 or more; uses and range 0 or more", where)
    bad = [t for t in out["tags"] if t not in IMMUNITIES]
    if bad:
        raise InputError(f"unknown tag '{bad[0]}'", f"{where}.tags", f"one of {', '.join(IMMUNITIES)}")
    if not out["on_save"]:
        out["on_save"] = "half" if out["damage"] else "negates"
    if out["provokes"] is None:
        out["provokes"] = out["kind"] in ("spell", "sla")
    return out


def validate_stats(block: dict, where: str) -> dict:
    """Check a stat block's fields and types; returns it with defaults filled in."""
    out = fields(block, _STAT_KEYS, where, "unit", "Starfinder")
    out["cr"] = parse_cr(out["level"] if out["cr"] is None else out["cr"], where)
    if out["initiative"] is None:
        out["initiative"] = out["dex"]
    if out["hp"] < 1 or out["sp"] < 0 or out["rp"] < 0:
        raise InputError("hp must be 1 or more; sp and rp 0 or more", where)
    if out["speed"] < 0 or out["speed"] % 5 or out["natural_reach"] < 0 or out["natural_reach"] % 5:
        raise InputError("speed and natural_reach are feet in steps of 5", where, "e.g. speed: 30, natural_reach: 5")
    bad = [i for i in out["immune"] if i not in IMMUNITIES]
    if bad:
        raise InputError(f"unknown immunity '{bad[0]}'", f"{where}.immune", f"one of {', '.join(IMMUNITIES)}")
    for t, v in out["resist"].items():
        if t not in ENERGY or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise InputError(f"resist {t}: {v!r}", f"{where}.resist", "energy type -> amount, e.g. {F: 5}")
    for key, limit, check in (("weapons", MAX_WEAPONS, _weapon), ("abilities", MAX_ABILITIES, _ability),
                              ("items", MAX_ITEMS, _ability)):
        if len(out[key]) > limit:
            raise InputError(f"at most {limit} {key} per unit", f"{where}.{key}")
        out[key] = [check(x, f"{where}.{key}[{n}]") for n, x in enumerate(out[key])]
    for n, it in enumerate(out["items"]):
        it["kind"], it["provokes"] = "item", False
    if out["wield"] is not None:
        names = [w["name"] for w in out["weapons"]]
        for w in out["wield"]:
            if w not in names or out["weapons"][names.index(w)]["natural"]:
                raise InputError(f"wield names '{w}', not a carried weapon of the unit", f"{where}.wield",
                                 f"one or two of: {', '.join(n for n in names)}")
        if sum(out["weapons"][names.index(w)]["hands"] for w in out["wield"]) > 2:
            raise InputError(f"wield {out['wield']} needs more than two hands", f"{where}.wield")
    return out


def make_unit(uid: int, spec: dict, where: str) -> Unit:
    """A unit from an encounter entry: a template, then any stat overrides, then a wounded start (`hp_now`,
    `sp_now`)."""
    stats = stat_block(spec, where, templates(), UNIT_KEYS, validate_stats, _template_stats, "Starfinder")
    hp, sp = spec.get("hp_now", stats["hp"]), spec.get("sp_now", stats["sp"])
    if not isinstance(hp, int) or isinstance(hp, bool) or not 0 < hp <= stats["hp"]:
        raise InputError(f"hp_now {hp!r} must be 1..{stats['hp']}", where, "the unit's current Hit Points")
    if not isinstance(sp, int) or isinstance(sp, bool) or not 0 <= sp <= stats["sp"]:
        raise InputError(f"sp_now {sp!r} must be 0..{stats['sp']}", where, "the unit's current Stamina Points")
    unit = Unit(uid, str(spec["name"]), spec["side"], tuple(spec["at"]), hp + sp, stats["hp"] + stats["sp"], stats,
                spec.get("template") or "", tactics=spec.get("tactics") or {})
    unit.state = initial_state(stats)
    unit.state["sp"] = sp
    return unit


def starting_wield(stats: dict) -> list[int]:
    """Weapons in hand at the start: the stat block's `wield`, else the first carried weapon and, when both it and
    another carried one-handed weapon (not a grenade) fit, that one too (a pistol and a baton)."""
    ws = stats["weapons"]
    if stats["wield"] is not None:
        names = [w["name"] for w in ws]
        return [names.index(n) for n in stats["wield"]]
    carried = [n for n, w in enumerate(ws) if not w["natural"]]
    if not carried:
        return []
    first = carried[0]
    out = [first]
    if ws[first]["hands"] == 1:
        for n in carried[1:]:
            if ws[n]["hands"] == 1 and ws[n]["kind"] != "grenade" and ws[n]["kind"] != ws[first]["kind"]:
                out.append(n)
                break
    return out


def initial_state(stats: dict) -> dict:
    """Play state at the start of an encounter (every key a GM may set under `state:` in an encounter file)."""
    ws = stats["weapons"]
    return {
        "sp": stats["sp"],
        "wield": starting_wield(stats),
        "ammo": [w["count"] or w["capacity"] or -1 for w in ws],   # grenades / thrown left, charges; -1 unlimited
        "uses": [a["uses"] or -1 for a in stats["abilities"]],
        "item_uses": [a["uses"] or -1 for a in stats["items"]],
        "weapon_damage": [0] * len(ws),                          # sunder: damage the weapon has taken
        "dropped": [],                                           # weapons on the ground in the unit's square
        "lost": [],                                              # weapons gone for the encounter (destroyed, taken)
        "conds": {},                                             # condition -> when it ends (conditions.py); -1: never
        "burn": [],                                              # burning / corroding damage dice each turn
        "bleed": "",                                             # bleeding damage dice each turn
        "tricks": [],                                            # dirty-trick conditions removable as a move action
        "reaction": True, "acted": False,
        "defense": 0, "total_defense": False, "charged": False,
        "covered": [], "harried": [], "feinted": [],             # [unit id, round] of the ally / foe that gave it
        "grappled_by": None, "grappling": None, "grapple_round": -1,
        "altitude": 0, "zero_g": False,
        "sustained": [],                                         # [ability, target id, condition] held by concentration
        "concentrated": -1,                                      # last round the unit concentrated
    }


_STATE_TYPES = {k: type(v) for k, v in initial_state({"sp": 0, "weapons": [], "abilities": [], "items": [],
                                                      "wield": None}).items()}
_STATE_TYPES["grappled_by"] = _STATE_TYPES["grappling"] = (int, type(None))


def check_unit(unit: Unit, where: str) -> None:
    """A unit of a saved state or after a GM's correction: a valid stat block, HP and SP within their maxima, and a
    play state with the keys and types of `initial_state` and indices in range."""
    stats = validate_stats(copy.deepcopy(unit.stats), f"{where}.stats")
    s = unit.state
    if unit.max_hp != stats["hp"] + stats["sp"]:
        raise InputError(f"max_hp {unit.max_hp} is not hp + sp of the stat block ({stats['hp'] + stats['sp']})",
                         f"{where}.max_hp", _FIX)
    check_state_shape(s, _STATE_TYPES, f"{where}.state", _FIX)
    if not 0 <= s["sp"] <= stats["sp"] or not s["sp"] <= unit.hp <= unit.max_hp:
        raise InputError(f"sp {s['sp']} / hp {unit.hp} out of range (sp 0..{stats['sp']}, hp sp..{unit.max_hp})",
                         f"{where}.state.sp", "hp counts Hit Points and Stamina together; sp is the Stamina part")
    n = len(stats["weapons"])
    for k in ("wield", "dropped", "lost"):
        if not all(type(i) is int and 0 <= i < n for i in s[k]) or len(set(s[k])) != len(s[k]):
            raise InputError(f"'{k}' {s[k]} must list different weapon numbers 0..{n - 1}", f"{where}.state.{k}", _FIX)
    if sum(stats["weapons"][i]["hands"] for i in s["wield"]) > 2:
        raise InputError(f"'wield' {s['wield']} needs more than two hands", f"{where}.state.wield", _FIX)
    for k, size in (("ammo", n), ("weapon_damage", n), ("uses", len(stats["abilities"])),
                    ("item_uses", len(stats["items"]))):
        if len(s[k]) != size or not all(type(v) is int and v >= -1 for v in s[k]):
            raise InputError(f"'{k}' must give a whole number (-1: unlimited) for each of the {size}",
                             f"{where}.state.{k}", _FIX)
    for c, end in s["conds"].items():
        if c not in CONDITIONS or type(end) is not int or end < -1:
            raise InputError(f"condition {c}: {end!r}", f"{where}.state.conds",
                             f"a condition of {', '.join(sorted(CONDITIONS))} -> -1 (until removed) or when it ends "
                             "(round * 100 + initiative slot)")
    if any(t not in DIRTY_TRICKS for t in s["tricks"]):
        raise InputError(f"'tricks' {s['tricks']}", f"{where}.state.tricks", f"conditions of {', '.join(DIRTY_TRICKS)}")
    for d in s["burn"]:
        parts = d.split() if isinstance(d, str) else []
        if len(parts) != 2 or parts[1] not in ENERGY:
            raise InputError(f"burn {d!r}", f"{where}.state.burn", "damage dice and its energy type, e.g. '1d6 F'")
        _dice(parts[0], f"{where}.state.burn")
    if s["bleed"]:
        _dice(s["bleed"], f"{where}.state.bleed")
    if s["altitude"] < 0 or s["defense"] < 0:
        raise InputError("altitude and defense must be 0 or more", f"{where}.state", _FIX)


_LIBRARY = TemplateLibrary(Path(__file__).parent / "units.yaml", validate_stats)
templates = _LIBRARY.templates        # the raw blocks of units.yaml
_template_stats = _LIBRARY.stats      # a template's validated block, shared
