"""SWURPG arithmetic: AC, attack bonuses, advantage, cover, damage by type, saves, temporary HP, 0 HP.

Pure functions of units and the encounter; the ruleset's resolvers (ruleset.py) roll through them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from engine.core.dice import DiceExpr, parse_dice
from engine.core.events import Event, new_event

from . import conditions as K
from .stats import GROUPS, KINETIC, LIGHT_KG, SIZES, four_arms, modifier

if TYPE_CHECKING:
    from engine.core.dice import Dice
    from engine.core.state import Encounter
    from engine.core.units import Unit

FEET = 5
COVER_BONUS = {"none": 0, "low": 2, "heavy": 4}  # a low wall +2; an engine block +4
PRONE_MELEE = 5        # melee attacks against a prone creature; ranged ones -5; its own melee -5
DUAL_PENALTY = {0: 5, 1: 3, 2: 1}  # the dual-wield penalty by Dual Wielder trait (I, II): see RULES.md
UNARMED = {"name": "unarmed strike", "kind": "melee", "damage": "1", "type": "bludgeoning", "attack": 0,
           "bonus_damage": 0, "range": 0, "long": 0, "reach": False, "finesse": False, "light": True, "mass": 0.0,
           "hands": 1, "thrown": False, "autofire": False, "dex_damage": False, "stun_dc": 0, "dc": 0, "radius": 0,
           "count": 0, "condition": "", "save": "", "condition_dc": 0, "natural": True}


@lru_cache(maxsize=512)
def dice(text: str) -> DiceExpr:
    return parse_dice(text)


def mod(u: "Unit", ability: str) -> int:
    return modifier(u.stats[ability])


def weapon(u: "Unit", n: int | None) -> dict:
    """Weapon n of the unit; None: its unarmed strike."""
    return UNARMED if n is None else u.stats["weapons"][n]


def adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def autofire_area(sq: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The 2x2 area whose top-left square is sq."""
    x, y = sq
    return (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)


def is_light(w: dict) -> bool:
    """Light for off-hand purposes: the light property, or 1.5 kg or less (a lightsaber, a vibrorapier)."""
    return w["light"] or 0 < w["mass"] <= LIGHT_KG


def dual_wielding(u: "Unit") -> bool:
    """Whether an off-hand weapon is also wielded (two weapons in hand)."""
    return len(u.state["wield"]) == 2


def can_off_hand(u: "Unit") -> bool:
    """Whether the weapon in the off hand may make the off-hand attack: a light one, or any weapon for a four-armed
    creature with Strength 14+."""
    wield = u.state["wield"]
    return len(wield) == 2 and (is_light(weapon(u, wield[1])) or four_arms(u.stats))


def attack_ability(u: "Unit", w: dict) -> int:
    """Dex for ranged weapons; Str in melee, or Dex with finesse when it is higher (thrown weapons as melee)."""
    if w["kind"] != "melee":
        return mod(u, "dex")
    s, d = mod(u, "str"), mod(u, "dex")
    if w["finesse"] or (w is UNARMED and "finesse_unarmed" in u.stats["traits"]):
        return max(s, d)
    return s


def attack_bonus(u: "Unit", n: int | None) -> int:
    """Ability + proficiency + the weapon's upgrades, less the dual-wield penalty while two weapons are wielded,
    and the unit's conditions' penalties (shaken)."""
    w = weapon(u, n)
    b = attack_ability(u, w) + u.stats["prof"] + w["attack"]
    if dual_wielding(u) and n in u.state["wield"]:
        b -= dual_penalty(u)
    return b + K.effect(u.state, "attack")


def dual_penalty(u: "Unit") -> int:
    t = u.stats["traits"]
    return DUAL_PENALTY[2 if "dual_wielder_2" in t else 1 if "dual_wielder_1" in t else 0]


def damage_bonus(u: "Unit", n: int | None, off_hand: bool = False) -> int:
    """Melee adds Str (also when Dex made the attack); ranged adds nothing (Dex for a `dex_damage` weapon); an
    off-hand attack only its weapon's upgrades."""
    w = weapon(u, n)
    b = w["bonus_damage"]
    if off_hand:
        return b
    if w is UNARMED and "finesse_unarmed" in u.stats["traits"]:
        return b + max(mod(u, "str"), mod(u, "dex"))
    if w["kind"] == "melee":
        return b + mod(u, "str")
    return b + (mod(u, "dex") if w["dex_damage"] else 0)


def armor_class(u: "Unit") -> int:
    """10 + Dex (capped by the armor) + armor + shield + size + other; armor a unit is not proficient with gives no
    bonus."""
    s = u.stats
    a = s["armor"]
    dex = mod(u, "dex")
    ac = 10 + SIZES[s["size"]] + s["shield"] + s["ac_bonus"]
    if a is not None and a["category"] != "none":
        if a["max_dex"] is not None:
            dex = min(dex, a["max_dex"])
        if a["category"] in s["armor_proficiency"]:
            ac += a["bonus"]
    return ac + dex


def speed_feet(u: "Unit") -> int:
    """Speed in feet: the armor's speed cap, halved while freezing, 0 while grappled, stunned and the like."""
    s = u.state
    if s["conds"] and K.has(s, "no_move"):
        return 0
    feet = u.stats["speed"]
    a = u.stats["armor"]
    if a is not None and a["speed_cap"] is not None:
        feet = min(feet, a["speed_cap"])
    if s["conds"] and K.has(s, "half_speed"):
        feet = feet // 2 // FEET * FEET
    return feet


def save_bonus(u: "Unit", ability: str) -> int:
    b = mod(u, ability) + (u.stats["prof"] if ability in u.stats["saves"] else 0)
    return b + K.effect(u.state, "saves")


def skill_bonus(u: "Unit", skill: str, ability: str) -> int:
    got = u.stats["skills"].get(skill)
    return got if got is not None else mod(u, ability)


def roll_save(dice_: "Dice", u: "Unit", ability: str, dc: int, why: str) -> tuple[bool, Event]:
    """A saving throw: d20 + the save bonus >= DC. Stunned, paralyzed and unconscious creatures fail Strength and
    Dexterity saves; freezing ones roll Dexterity saves with disadvantage."""
    s = u.state
    if ability in ("str", "dex") and s["conds"] and K.has(s, "fail_phys"):
        return False, new_event("save", None, u.id, {"ability": ability, "dc": dc, "total": None, "ok": False,
                                                     "why": why, "auto": True})
    bonus = save_bonus(u, ability)
    face = dice_.d20(f"{u.name}'s {ability.upper()} save {why}")
    if ability == "dex" and s["conds"] and K.has(s, "dis_dex"):
        face = min(face, dice_.d20(f"{u.name}'s {ability.upper()} save {why} (disadvantage)"))
    total = face + bonus
    ok = total >= dc
    return ok, new_event("save", None, u.id, {"ability": ability, "dc": dc, "total": total, "face": face,
                                              "bonus": bonus, "ok": ok, "why": why})


def cover(enc: "Encounter", a: "Unit", t: "Unit") -> str:
    """The target's cover against a's attack: 'none', 'low' (+2) or 'heavy' (+4), the best on the line."""
    g = enc.grid
    w = g.width
    return g.sight(a.pos[1] * w + a.pos[0], t.pos[1] * w + t.pos[0])[2]


def hostile_adjacent(enc: "Encounter", a: "Unit") -> bool:
    """Whether an able enemy stands within 5 ft of a (ranged attacks then have disadvantage)."""
    ax, ay = a.pos
    for u in enc.units:
        if not u.down and u.side != a.side and abs(u.pos[0] - ax) <= 1 and abs(u.pos[1] - ay) <= 1:
            if not (u.state["conds"] and K.has(u.state, "no_act")):
                return True
    return False


def attack_mods(enc: "Encounter", a: "Unit", t: "Unit", w: dict, melee: bool) -> tuple[int, int, list[str]]:
    """(advantage sources, disadvantage sources, notes): what gives advantage or disadvantage on a's attack on t;
    they cancel whatever their numbers (one or more of each: a plain roll)."""
    adv, dis = 0, 0
    notes: list[str] = []
    ts, as_ = t.state, a.state
    if ts["conds"] and K.has(ts, "adv_against"):
        adv += 1
        notes.append("helpless target")
    if as_["conds"]:
        if K.has(as_, "dis_attack"):
            dis += 1
            notes.append("dazed, poisoned or blinded")
        fear = as_["conds"].get("frightened")
        if fear is not None and fear[3] is not None:
            src = enc.units[fear[3]]
            if not src.down and enc.grid.line_of_sight(a.pos, src.pos):
                dis += 1
                notes.append("frightened")
        gb = as_["grappled_by"]
        if gb is not None and gb != t.id:
            dis += 1
            notes.append("grappled, not attacking the grappler")
    if ts["dodging"] and not (ts["conds"] and K.has(ts, "no_act")):
        dis += 1
        notes.append("target dodging")
    if ts["helped"] and any(h != a.id and enc.units[h].side == a.side for h in ts["helped"]):
        adv += 1
        notes.append("helped")
    if not melee:
        feet = enc.grid.distance(a.pos, t.pos) * FEET
        if w["long"] and feet > w["range"]:
            dis += 1
            notes.append("long range")
        if hostile_adjacent(enc, a):
            dis += 1
            notes.append("foe within 5 ft")
    return adv, dis, notes


def situational(enc: "Encounter", a: "Unit", t: "Unit", melee: bool) -> tuple[int, int]:
    """(to-hit modifier, AC bonus from cover): prone +5 / -5 against, -5 to a prone attacker's melee."""
    hit = 0
    if "prone" in t.state["conds"]:
        hit += PRONE_MELEE if melee else -PRONE_MELEE
    if melee and "prone" in a.state["conds"]:
        hit -= PRONE_MELEE
    return hit, COVER_BONUS[cover(enc, a, t)] if not melee else 0


def roll_d20(dice_: "Dice", adv: int, dis: int, why: str) -> tuple[int, list[int]]:
    """The d20 of an attack with advantage (the higher of two), disadvantage (the lower) or neither."""
    if adv and not dis:
        faces = [dice_.d20(why), dice_.d20(f"{why} (advantage)")]
        return max(faces), faces
    if dis and not adv:
        faces = [dice_.d20(why), dice_.d20(f"{why} (disadvantage)")]
        return min(faces), faces
    f = dice_.d20(why)
    return f, [f]


def types_of(t: str) -> tuple[str, ...]:
    """A damage type and the groups it belongs to ('piercing' -> piercing, kinetic)."""
    return (t, "kinetic") if t in KINETIC else (t,)


def reduce_damage(u: "Unit", amount: int, dtype: str, halve: bool = False) -> int:
    """Flat Damage Resistance X first (minimum 0), then a successful save's half (`halve`), then immunity (none),
    resistance (half, rounded down) and vulnerability (double); resistance and vulnerability together cancel; immunity
    wins; none of them stack."""
    s = u.stats
    if not (s["dr"] or s["immune"] or s["resist"] or s["vulnerable"]):
        return amount // 2 if halve else amount
    names = types_of(dtype)
    dr = max((s["dr"].get(n, 0) for n in names), default=0)
    amount = max(0, amount - dr)
    if halve:
        amount //= 2
    if any(n in s["immune"] for n in names):
        return 0
    res = any(n in s["resist"] for n in names)
    vul = any(n in s["vulnerable"] for n in names)
    if res and not vul:
        return amount // 2
    if vul and not res:
        return amount * 2
    return amount


def roll_damage(dice_: "Dice", expr: DiceExpr, bonus: int, crit: bool, why: str) -> tuple[int, list[int]]:
    """Damage dice (rolled twice on a critical hit) plus a bonus, at least 0."""
    total, faces = dice_.roll(expr, why)
    if crit:
        more, f2 = dice_.roll(DiceExpr(expr.count, expr.sides, 0), f"{why} (critical)")
        total += more
        faces = list(faces) + list(f2)
    return max(0, total + bonus), list(faces)


def deal_damage(enc: "Encounter", src: int | None, t: "Unit", amount: int, dtype: str, why: str = "",
                crit: bool = False, halve: bool = False) -> list[Event]:
    """Damage of a type after the target's resistances: temporary HP first, then HP. At 0 HP the unit falls
    unconscious (prone, drops what it holds); a hit while at 0 HP is a failed death save, two on a critical hit, and
    three failures kill."""
    got = reduce_damage(t, amount, dtype, halve)
    s = t.state
    ev: list[Event] = []
    charm = s["conds"].get("charmed") if s["conds"] else None
    if charm is not None and src is not None and got > 0 and charm[3] is not None and \
            enc.units[src].side == enc.units[charm[3]].side:  # harmed by the charmer's side: the charm breaks
        del s["conds"]["charmed"]
        ev.append(new_event("condition_ends", None, t.id, {"condition": "charmed"}))
    if t.hp <= 0:
        if got > 0 and not t.dead:
            s["death"][1] = min(3, s["death"][1] + (2 if crit else 1))
            s["stable"] = False
            ev.append(new_event("death_failure", src, t.id, {"failures": s["death"][1], "why": why}))
            if s["death"][1] >= 3:
                ev += die(t, "three failed death saves")
        return ev
    temp = min(s["temp_hp"], got)
    s["temp_hp"] -= temp
    hp_loss = min(t.hp, got - temp)
    t.hp -= hp_loss
    ev.append(new_event("damage", src, t.id, {"amount": got, "type": dtype, "temp": temp, "hp": t.hp, "why": why,
                                              "rolled": amount}))
    if t.hp <= 0:
        ev += fall_unconscious(enc, t, src)
    return ev


def fall_unconscious(enc: "Encounter", t: "Unit", src: int | None = None) -> list[Event]:
    """0 HP: unconscious and prone, what it holds dropped, its grapple over; its death saves begin with its next
    turn (this round's, if it is still to come)."""
    s = t.state
    t.down = True
    s["death"] = [0, 0]
    s["stable"] = False
    s["dead_round"] = enc.round if enc.actor is t else enc.round - 1
    ev = release_grapple(enc, t, "incapacitated")
    if s["grappled_by"] is not None:
        ev += release_grapple(enc, enc.units[s["grappled_by"]], f"{t.name} is down")
    K.add(s, "unconscious")
    K.add(s, "prone")
    s["dropped"] = sorted(set(s["dropped"]) | set(s["wield"]))
    s["wield"] = []
    s["dodging"] = False
    return [new_event("down", src, t.id, {"dead": False, "why": "0 HP: unconscious"}), *ev]


def release_grapple(enc: "Encounter", grappler: "Unit", why: str) -> list[Event]:
    """The grappler lets go (it moved away, was incapacitated, its target escaped or was moved off)."""
    tid = grappler.state["grappling"]
    if tid is None:
        return []
    t = enc.units[tid]
    grappler.state["grappling"] = None
    t.state["grappled_by"] = None
    K.remove(t.state, "grappled")
    return [new_event("grapple_ends", grappler.id, t.id, {"why": why})]


def check_d20(dice_: "Dice", u: "Unit", ability: str, why: str) -> int:
    """The d20 of an ability check: disadvantage while poisoned or frightened, and on Dexterity checks while
    freezing."""
    conds = u.state["conds"]
    dis = bool(conds) and ("poisoned" in conds or "frightened" in conds or ability == "dex" and "freezing" in conds)
    face = dice_.d20(why)
    return min(face, dice_.d20(f"{why} (disadvantage)")) if dis else face


def die(t: "Unit", why: str) -> list[Event]:
    t.dead = True
    t.down = True
    return [new_event("dies", None, t.id, {"why": why})]


def heal(t: "Unit", amount: int, why: str) -> list[Event]:
    """Restore HP (to the maximum); any healing wakes an unconscious creature and ends its death saves."""
    if t.dead or amount <= 0:
        return []
    before = t.hp
    t.hp = min(t.max_hp, t.hp + amount)
    ev = [new_event("healed", None, t.id, {"amount": t.hp - before, "hp": t.hp, "why": why})]
    if before <= 0 < t.hp:
        s = t.state
        t.down = False
        s["death"], s["stable"] = [0, 0], False
        K.remove(s, "unconscious")
        ev.append(new_event("wakes", None, t.id, {}))
    return ev


def gain_temp_hp(t: "Unit", amount: int) -> None:
    """Temporary HP do not stack: the higher of the two is kept."""
    t.state["temp_hp"] = max(t.state["temp_hp"], amount)
