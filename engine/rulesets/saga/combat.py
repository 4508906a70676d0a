"""Saga combat arithmetic: defenses, attack bonuses, range bands, damage, the condition track.

Pure functions over the encounter; no dice are rolled here except through a `Dice` passed in.
"""
from __future__ import annotations

from functools import lru_cache

from engine.core.dice import DiceExpr, parse_dice
from engine.core.events import Event, new_event
from engine.core.state import Encounter
from engine.core.units import Unit

from .stats import RANGES, SIZE_ORDER, SIZES

CT_PENALTY = (0, -1, -2, -5, -10, -10)
CT_HELPLESS = 5
BANDS = ("point blank", "short", "medium", "long")
BAND_PENALTY = (0, -2, -5, -10)
COVER_BONUS = {"none": 0, "low": 5, "heavy": 10}


# ---- weapons ------------------------------------------------------------------------------------------
def weapon(u: Unit, n: int) -> dict:
    return u.stats["weapons"][n]


def usable_weapons(u: Unit) -> list[int]:
    """Weapons in hand plus natural weapons, none of them lost (dropped, broken)."""
    lost = u.state["lost"]
    out = [n for n in u.state["hands"] if n not in lost]
    out += [n for n, w in enumerate(u.stats["weapons"]) if w["natural"] and n not in lost]
    return out


def first_of(u: Unit, kind: str) -> int | None:
    """The first usable weapon (in the order of `usable_weapons`) of a kind ('melee' / 'ranged'), or None."""
    lost, ws = u.state["lost"], u.stats["weapons"]
    for n in u.state["hands"]:
        if n not in lost and ws[n]["kind"] == kind:
            return n
    for n, w in enumerate(ws):
        if w["natural"] and w["kind"] == kind and n not in lost:
            return n
    return None


def proficient(stats: dict, w: dict) -> bool:
    """Whether a stat block is proficient with weapon w: natural weapons always, others by their proficiency group
    (a block or weapon saved before proficiencies were modelled: yes)."""
    if w["natural"]:
        return True
    groups = stats.get("proficient")
    return groups is None or w.get("proficiency", "simple") in groups


def mode(u: Unit, n: int) -> str:
    w = u.stats["weapons"][n]
    return w["modes"][u.state["modes"][n] % len(w["modes"])]


def two_handed_grip(u: Unit, n: int) -> bool:
    w = u.stats["weapons"][n]
    return w["hands"] >= 2 and not w["light"]


def range_band(w: dict, dist: int) -> int | None:
    """0..3 for point blank .. long, None when out of range."""
    band = 0
    for top in RANGES[w["group"]]:
        if dist <= top:
            return band
        band += 1
    return None


# ---- defenses -------------------------------------------------------------------------------------------
def ct_penalty(u: Unit) -> int:
    return CT_PENALTY[u.state["ct"]]


def item_bonus(u: Unit, defense: str) -> int:
    active = u.state["active_items"]
    return sum(u.stats["items"][i].get(defense, 0) for i in active) if active else 0


def reflex(u: Unit, melee: bool | None = None, with_armor: bool = True) -> int:
    s, st = u.state, u.stats
    r = st["reflex"] + CT_PENALTY[s["ct"]] + s["defense"]
    if s["active_items"]:
        r += item_bonus(u, "reflex")
    if not with_armor:
        r -= st["armor"]
    if s["charged"]:
        r -= 2
    if s["prone"] and melee is not None:
        r += -5 if melee else 5
    return r


def fortitude(u: Unit) -> int:
    return u.stats["fortitude"] + ct_penalty(u) + item_bonus(u, "fortitude")


def will(u: Unit) -> int:
    return u.stats["will"] + ct_penalty(u) + item_bonus(u, "will")


def speed(u: Unit) -> int:
    """Speed in squares now: halved at the -10 step of the condition track."""
    sp = u.stats["speed"]
    return sp // 2 if u.state["ct"] >= CT_HELPLESS - 1 else sp


def aid_bonus(u: Unit, target: Unit | None) -> int:
    """+2 when an ally of u (not u itself) aided another against target and the bonus is unspent."""
    if target is None:
        return 0
    aider = target.state["aid"].get(u.side)
    return 2 if aider is not None and aider != u.id else 0


def size_mod(u: Unit) -> int:
    return SIZES[u.stats["size"]]


def size_steps(a: Unit, b: Unit) -> int:
    """How many size categories b is larger than a."""
    return SIZE_ORDER.index(b.stats["size"]) - SIZE_ORDER.index(a.stats["size"])


# ---- attacks ----------------------------------------------------------------------------------------------
_UNARMED = {"kind": "melee", "attack": 0, "improvised": False, "light": True, "natural": False}


def attack_bonus(u: Unit, n: int | None, target: Unit | None = None) -> int:
    """Attack bonus with weapon n (None: unarmed), before situational modifiers of the action."""
    s, st = u.state, u.stats
    w = _UNARMED if n is None else st["weapons"][n]
    melee = w["kind"] == "melee"
    ab = st["bab"] + (st["str"] if melee else st["dex"]) + w["attack"] + CT_PENALTY[s["ct"]] + s["attack_penalty"]
    if n is not None and (w["improvised"] or not proficient(st, w)):
        ab -= 5  # not proficient (improvised weapons are treated so)
    if s["grabbed_by"] and not (w["light"] or w["natural"]):
        ab -= 2
    if s["prone"] and melee:
        ab -= 5
    if n is not None and mode(u, n) == "autofire":
        ab -= 5
    ab -= s["suppressed"]
    return ab + aid_bonus(u, target)


def damage_expr(u: Unit, n: int | None, aimed: bool = False) -> DiceExpr:
    st = u.stats
    if n is None:
        return DiceExpr(1, 4, st["str"] + st["level"] // 2)
    w = st["weapons"][n]
    bonus = st["level"] // 2
    if w["kind"] == "melee":
        strength = st["str"]
        bonus += 2 * strength if (two_handed_grip(u, n) and strength > 0) else strength
    extra = 1 if (aimed and "deadeye" in st["feats"] and w["kind"] == "ranged") else 0
    return _damage(w["damage"], extra, bonus)


@lru_cache(maxsize=256)
def _parsed(text: str) -> DiceExpr:
    return parse_dice(text)


@lru_cache(maxsize=1024)
def _damage(text: str, dice: int, bonus: int) -> DiceExpr:
    """`_parsed(text).plus(dice, bonus)`, one object per value (expressions are immutable)."""
    return _parsed(text).plus(dice, bonus)


def hit_chance(bonus: int, defense: int) -> float:
    """P(d20 + bonus >= defense), natural 20 always hits, natural 1 always misses."""
    need = defense - bonus  # the least face that hits, between 2 and 20
    if need < 2:
        need = 2
    elif need > 20:
        need = 20
    return (21 - need) / 20


@lru_cache(maxsize=4096)
def p_at_least(expr: DiceExpr, value: int) -> float:
    """P(roll of expr >= value), exact by convolution."""
    return sum(p for tot, p in _distribution(expr) if tot >= value)


@lru_cache(maxsize=256)
def _distribution(expr: DiceExpr) -> tuple[tuple[int, float], ...]:
    """(total, probability) of each total expr can roll, by convolution (in the order `p_at_least` sums them)."""
    dist = {expr.bonus: 1.0}
    for _ in range(expr.count):
        nxt: dict[int, float] = {}
        for tot, p in dist.items():
            for f in range(1, expr.sides + 1):
                nxt[tot + f] = nxt.get(tot + f, 0.0) + p / expr.sides
        dist = nxt
    return tuple(dist.items())


# ---- damage and the condition track ---------------------------------------------------------------------------
def deal_damage(enc: Encounter, src: Unit | None, t: Unit, amount: int, stun: bool = False,
                lethal_always: bool = False) -> list[Event]:
    """Apply damage to a unit: threshold, condition track, 0 HP. Returns the events."""
    ev: list[Event] = []
    sid = src.id if src else None
    threshold = t.stats["threshold"]
    if stun:
        hp_loss = amount // 2
        steps = 2 if amount >= threshold else 0
    else:
        hp_loss = amount
        steps = 1 if amount >= threshold else 0
    t.hp = max(0, t.hp - hp_loss)
    ev.append(new_event("damage", sid, t.id, {"amount": hp_loss, "hp": t.hp, "stun": stun}))
    if steps:
        ev += move_track(t, -steps, "damage threshold" if not stun else "stun damage over the threshold", sid)
    if t.hp == 0 and not t.down:
        t.down = True
        if (amount >= threshold and not stun) or lethal_always:
            t.dead = True
        ev.append(new_event("down", sid, t.id, {"dead": t.dead, "why": "0 hit points"}))
    if t.down:
        release_holds(enc, t)
    return ev


def move_track(t: Unit, steps: int, why: str, src: int | None = None) -> list[Event]:
    old = t.state["ct"]
    new = max(0, min(CT_HELPLESS, old - steps))
    if new == old:
        return []
    t.state["ct"] = new
    ev = [Event("condition", src, t.id, step=new, penalty=CT_PENALTY[new], why=why)]
    if new == CT_HELPLESS and not t.down:
        t.down = True
        ev.append(Event("down", src, t.id, dead=False, why="bottom of the condition track (helpless)"))
    return ev


def release_holds(enc: Encounter, t: Unit) -> None:
    """A unit out of the fight lets go of what it grabbed and stops being held."""
    s = t.state
    if s["grabbing"] is not None:
        other = enc.units[s["grabbing"]].state
        other["grabbed_by"] = [g for g in other["grabbed_by"] if g != t.id]
        if other["pinned_by"] == t.id:
            other["pinned_by"] = None
        s["grabbing"] = None
    for g in s["grabbed_by"]:
        enc.units[g].state["grabbing"] = None
    s["grabbed_by"], s["pinned_by"] = [], None
