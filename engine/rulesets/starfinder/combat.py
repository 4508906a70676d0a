"""Starfinder arithmetic: attack bonuses, Armor Class, range increments, attack rolls, damage, saves, critical effects.

Everything here is pure rules on one or two units; the turn structure, legality and reactions live in `ruleset.py`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from engine.core.dice import Dice, DiceExpr, parse_dice
from engine.core.events import Event, new_event

from . import conditions as K
from .stats import ENERGY, parse_critical

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

FEET = 5
# an unarmed strike (1d3 B): what a combat maneuver uses when no melee weapon is in hand
UNARMED = {"name": "unarmed strike", "kind": "melee", "damage": "1d3", "type": "B", "attack": 0, "range": 0,
           "increments": 0, "reach": False, "explode": 0, "dc": 0, "critical": "", "count": 0, "capacity": 0,
           "usage": 1, "hands": 1, "operative": False, "unwieldy": False, "natural": True, "level": 0, "maneuvers": []}
COVER_AC = {"none": 0, "low": 4, "heavy": 8, "soft": 4}       # cover +4, improved cover +8, soft cover +4 (ranged)
COVER_REF = {"none": 0, "low": 2, "heavy": 4, "soft": 0}
LOW_COVER_REACH = 6                                           # a low obstacle covers creatures within 30 ft of it


@lru_cache(maxsize=256)
def dice(text: str) -> DiceExpr:
    return parse_dice(text)


def is_energy(types: str) -> bool:
    """Whether an attack of these damage types targets EAC: it deals only energy damage (KAC otherwise, even when it
    also deals energy damage)."""
    return all(t in ENERGY for t in types.split(" & "))


def ac_name(types: str) -> str:
    return "EAC" if is_energy(types) else "KAC"


def weapon(u: "Unit", n) -> dict:
    """Weapon n of a unit: an index into its stat block, None for an unarmed strike, or a weapon dict itself (an
    ability's attack, `abilities.spell_weapon`)."""
    if n is None:
        return UNARMED
    return n if isinstance(n, dict) else u.stats["weapons"][n]


def broken(u: "Unit", n: int | None) -> bool:
    """A weapon that has lost more than half its Hit Points (sunder) is broken: -2 attack and damage, no critical
    effects."""
    return type(n) is int and u.state["weapon_damage"][n] * 2 > item_hp(u.stats["weapons"][n])


def item_hp(w: dict) -> int:
    """Hit Points of a sturdy item (a weapon): 15 + 3 x item level (+30 from level 15)."""
    return 15 + 3 * w["level"] + (30 if w["level"] >= 15 else 0)


def item_hardness(w: dict) -> int:
    """Hardness of a sturdy item: 5 + 2 x item level."""
    return 5 + 2 * w["level"]


def ability_mod(u: "Unit", w: dict) -> int:
    """The ability a weapon's attack roll adds: Strength in melee (Dexterity with an operative weapon), Strength
    when thrown (grenades included), Dexterity for other ranged weapons."""
    st = u.stats
    if w["kind"] == "melee":
        return st["dex"] if w["operative"] else st["str"]
    if w["kind"] in ("thrown", "grenade"):
        return st["str"]
    return st["dex"]


def weapon_bonus(u: "Unit", n: int | None) -> int:
    """Base attack bonus + the weapon's ability + its own bonus (proficiency, focus, enhancement), -2 if broken."""
    w = weapon(u, n)
    return u.stats["bab"] + ability_mod(u, w) + w["attack"] - 2 * broken(u, n)


def damage_expr(u: "Unit", n: int | None) -> DiceExpr:
    """A weapon's damage: its dice, + Strength in melee and for thrown weapons (not grenades, not other ranged
    weapons, not spells), -2 sickened, -2 broken."""
    w = weapon(u, n)
    bonus = u.stats["str"] if w["kind"] in ("melee", "thrown") and not w.get("spell") else 0
    bonus += K.effect(u.state, "damage") - 2 * broken(u, n)
    return dice(w["damage"]).plus(bonus=bonus)


def special_dc(u: "Unit", n: int | None) -> int:
    """The DC of a weapon's explosion or critical effect: its stat-block `dc`, else 10 + half its item level + the
    ability its attacks use (Strength in melee, Dexterity for ranged and thrown weapons)."""
    w = weapon(u, n)
    if w["dc"]:
        return w["dc"]
    mod = u.stats["str"] if w["kind"] == "melee" else u.stats["dex"]
    return 10 + w["level"] // 2 + mod


def range_penalty(w: dict, feet: int) -> int | None:
    """-2 per full range increment beyond the first (or fraction thereof); None beyond the maximum range
    (10 increments, 5 for thrown weapons and grenades, or the weapon's own)."""
    r = w["range"]
    if r <= 0:
        return None
    increments = max(1, -(-feet // r))
    if increments > w["increments"]:
        return None
    return -2 * (increments - 1)


def max_range(w: dict) -> int:
    """The weapon's maximum range in feet (`range_penalty` is None beyond it); -1 for a weapon without a range."""
    return w["range"] * w["increments"] if w["range"] > 0 else -1


def flanked(enc: "Encounter", a: "Unit", t: "Unit", threatens) -> bool:
    """Whether an ally of a that threatens t stands on t's opposite border or corner (a's melee attacks get +2):
    the two are on opposite sides of t along both axes (or level with it along one)."""
    ax, ay = a.pos[0] - t.pos[0], a.pos[1] - t.pos[1]
    sx, sy = (ax > 0) - (ax < 0), (ay > 0) - (ay < 0)
    for u in enc.units:
        if u is a or u is t or u.down or u.side != a.side:
            continue
        bx, by = u.pos[0] - t.pos[0], u.pos[1] - t.pos[1]
        if ((bx > 0) - (bx < 0), (by > 0) - (by < 0)) == (-sx, -sy) and threatens(enc, u, t):
            return True
    return False


def cover(enc: "Encounter", a: "Unit", t: "Unit", ranged: bool) -> str:
    """The target's cover against a's attack: 'heavy' (improved cover, +8), 'low' (cover, +4: a low obstacle only
    within 30 ft of the target and when a is not nearer to it than t), 'soft' (a creature in the way of a ranged
    attack, +4) or 'none'."""
    g = enc.grid
    w = g.width
    ia, it = a.pos[1] * w + a.pos[0], t.pos[1] * w + t.pos[0]
    kind = g.sight(ia, it)[2]
    line = g._geometry.line(ia, it)
    if kind == "low":
        codes = g.line_codes()
        near = [i for i in line if codes[i] == 1 and g.distance(g.xy(i), t.pos) <= LOW_COVER_REACH
                and g.distance(g.xy(i), a.pos) >= g.distance(g.xy(i), t.pos)]
        kind = "low" if near else "none"
    if kind == "none" and ranged and line:
        squares = set(line)
        for u in enc.units:
            if not u.down and u is not a and u is not t and u.pos[1] * w + u.pos[0] in squares:
                return "soft"
    return kind


def armor_class(t: "Unit", energy: bool, melee: bool) -> tuple[int, list[str]]:
    """The target's EAC or KAC with its conditions and stances (not cover, not one attacker's feint or covering
    fire): flat-footed -2 (once), entangled / grappled -2, pinned -4, prone -4 against melee and +4 against ranged,
    fighting defensively +2, total defense +4, charging -2."""
    s = t.state
    ac = t.stats["eac" if energy else "kac"]
    notes: list[str] = []
    if s["conds"]:
        ac += K.effect(s, "ac") + K.effect(s, "melee_ac" if melee else "ranged_ac")
        if K.has(s, "flat"):
            ac -= 2
            notes.append("flat-footed")
    if s["defense"]:
        ac += s["defense"]
        notes.append("total defense" if s["total_defense"] else "fighting defensively")
    if s["charged"]:
        ac -= 2
        notes.append("charged")
    return ac, notes


def save_bonus(u: "Unit", save: str) -> int:
    bonus = u.stats[save] + K.effect(u.state, "saves")
    if save == "ref":
        bonus += K.effect(u.state, "ref")
    return bonus


def roll_save(dice: Dice, u: "Unit", save: str, dc: int, why: str, bonus: int = 0) -> tuple[bool, Event]:
    """A saving throw: d20 + the save bonus vs DC; a natural 20 always succeeds, a natural 1 always fails."""
    b = save_bonus(u, save) + bonus
    face = dice.d20(f"{u.name}'s {save.capitalize()} save ({why})")
    ok = face == 20 or (face != 1 and face + b >= dc)
    return ok, new_event("save", u.id, None, {"save": save, "face": face, "bonus": b, "total": face + b, "dc": dc,
                                              "success": ok, "why": why})


def check(dice: Dice, u: "Unit", skill: str, bonus: int, dc: int, dex_based: bool = False) -> tuple[bool, Event]:
    """A skill check: d20 + bonus vs DC (no automatic success or failure); shaken and sickened -2; a Dexterity-based
    check (Acrobatics) -2 entangled, -4 pinned (grappled's -2 does not apply to escaping)."""
    conds = u.state["conds"]
    b = bonus - 2 * ("shaken" in conds) - 2 * ("sickened" in conds)
    if dex_based:
        b -= 4 if "pinned" in conds else 2 * ("entangled" in conds)
    face = dice.d20(f"{u.name}'s {skill} check")
    ok = face + b >= dc
    return ok, new_event("check", u.id, None, {"skill": skill, "face": face, "bonus": b, "total": face + b, "dc": dc,
                                               "success": ok})


def reduce_damage(t: "Unit", amount: int, types: str) -> int:
    """Damage after the target's damage reduction (kinetic) and energy resistance, per damage type: an attack of two
    types is split evenly and each half reduced by what stops it."""
    st = t.stats
    if not st["dr"] and not st["resist"]:
        return amount
    kinds = types.split(" & ")
    share, left = divmod(amount, len(kinds))
    total = 0
    for i, k in enumerate(kinds):
        part = share + (1 if i < left else 0)
        stop = st["resist"].get(k, 0) if k in ENERGY else st["dr"]
        total += max(0, part - stop)
    return total


def deal_damage(enc: "Encounter", src: int | None, t: "Unit", amount: int, types: str, why: str = "") -> list[Event]:
    """Damage takes Stamina Points first, then Hit Points. At 0 HP a creature with Resolve Points is dying
    (down), one without (most NPCs) is dead; damage left over at 0 HP that reaches the maximum HP kills outright."""
    if t.down:
        return []
    s = t.state
    sp = s["sp"]
    hp = t.hp - sp
    from_sp = min(sp, amount)
    rest = amount - from_sp
    from_hp = min(hp, rest)
    s["sp"] = sp - from_sp
    t.hp = hp - from_hp + s["sp"]
    ev = [new_event("damage", src, t.id, {"amount": amount, "sp": from_sp, "hp": from_hp, "type": types,
                                          "left": t.hp, "why": why})]
    if hp - from_hp <= 0:
        massive = rest - hp >= t.stats["hp"]
        t.down = True
        t.dead = massive or t.stats["rp"] == 0
        ev.append(new_event("down", src, t.id, {"dead": t.dead, "why": "massive damage" if massive and t.stats["rp"]
                                                 else ("dying" if not t.dead else "")}))
    return ev


def heal(t: "Unit", amount: int, why: str) -> list[Event]:
    """Healing restores Hit Points only (not Stamina), up to the maximum."""
    hp = t.hp - t.state["sp"]
    gain = max(0, min(amount, t.stats["hp"] - hp))
    t.hp += gain
    return [new_event("heal", None, t.id, {"amount": gain, "why": why})]


def roll_damage(dice_: Dice, a: "Unit", t: "Unit", expr: DiceExpr, crit: bool, why: str) -> tuple[int, Event]:
    """Damage rolled once, or twice and added on a critical hit; at least 1."""
    total, faces = dice_.roll(expr, f"{a.name}'s damage on {t.name}")
    if crit:
        more, faces2 = dice_.roll(expr, f"{a.name}'s critical damage on {t.name}")
        total += more
        faces = faces + faces2
    total = max(1, total)
    return total, new_event("damage_roll", a.id, t.id, {"expr": str(expr), "faces": faces, "total": total,
                                                        "crit": crit, "why": why})


def critical_effect(enc: "Encounter", a: "Unit", t: "Unit", n: int | None, dice_: Dice, slot: int) -> list[Event]:
    """The weapon's critical hit effect on t (Core Rulebook p. 182): burn / corrode (the burning condition), bleed,
    knockdown (prone), staggered (Fortitude or staggered 1 round), stunned (1 round), deafen (Fortitude or
    deafened), arc (the creature closest to t within 10 ft takes the arc damage, not doubled)."""
    w = weapon(a, n)
    name, amount = parse_critical(w["critical"], "")
    if not name or broken(a, n) or t.down and name != "arc":
        return []
    s = t.state
    ev: list[Event] = [new_event("critical_effect", a.id, t.id, {"effect": name, "amount": amount})]
    if name in ("burn", "corrode"):
        if "fire" in t.stats["immune"] and name == "burn":
            return ev
        K.add(s, "burning", K.FOREVER)
        s["burn"].append(f"{amount} {'F' if name == 'burn' else 'A'}")
        ev.append(new_event("condition", a.id, t.id, {"condition": "burning", "amount": amount}))
    elif name == "bleed":
        if "bleed" in t.stats["immune"]:
            return ev
        K.add(s, "bleeding", K.FOREVER)
        if not s["bleed"] or dice(amount).mean > dice(s["bleed"]).mean:
            s["bleed"] = amount
        ev.append(new_event("condition", a.id, t.id, {"condition": "bleeding", "amount": s["bleed"]}))
    elif name == "knockdown":
        ev += knock_prone(t, a.id, "knocked down")
    elif name in ("staggered", "deafen"):
        cond = "staggered" if name == "staggered" else "deafened"
        ok, e = roll_save(dice_, t, "fort", special_dc(a, n), f"{w['name']} critical")
        ev.append(e)
        if not ok:
            K.add(s, cond, K.ends(enc.round, slot, 1) if cond == "staggered" else K.FOREVER, 1)
            ev.append(new_event("condition", a.id, t.id, {"condition": cond}))
    elif name == "stunned":
        K.add(s, "stunned", K.ends(enc.round, slot, 1), 1)
        ev.append(new_event("condition", a.id, t.id, {"condition": "stunned"}))
    elif name == "arc":
        near = [u for u in enc.units if not u.down and u is not t and u is not a
                and enc.grid.distance(u.pos, t.pos) <= 2]
        if near:
            second = min(near, key=lambda u: (enc.grid.distance(u.pos, t.pos), u.side == a.side, u.id))
            got, roll = dice_.roll(dice(amount), f"{a.name}'s arc on {second.name}")
            got = reduce_damage(second, max(1, got), w["type"])
            ev.append(new_event("arc", a.id, second.id, {"amount": got, "faces": roll}))
            ev += deal_damage(enc, a.id, second, got, w["type"], "arc")
    return ev


def knock_prone(t: "Unit", src: int | None, why: str) -> list[Event]:
    if K.add(t.state, "prone", K.FOREVER):
        return [new_event("prone", src, t.id, {"why": why})]
    return []
