"""Rise arithmetic: defenses with their penalties, accuracy, the weapon a strike uses (one weapon or a dual strike's
combined weapon), exploding accuracy rolls, hits, critical hits and glancing blows, damage through damage resistance
to hit points, vital wounds and fatigue.

Pure functions of creatures and the encounter; the ruleset's resolvers (ruleset.py) roll through them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from engine.core.dice import DiceExpr, parse_dice
from engine.core.events import Event, new_event

from .stats import SIZES

if TYPE_CHECKING:
    from engine.core.dice import Dice
    from engine.core.state import Encounter
    from engine.core.units import Unit

DEFENSES = ("armor", "fortitude", "reflex", "mental")
DUAL_PENALTY = 4
CRIT_MARGIN = 10          # beat the defense by 10: a critical hit [Rise]
GLANCE_MARGIN = 2         # miss by 2 or less: a glancing blow, half damage [Rise]
IMPACT_GLANCE = {1: 4, 2: 8}  # Impact: a glancing blow on a miss by 4 or less; two Impact weapons: 8 or less
ADJACENT_SHOT = 4
LONGSHOT = 4
IMPROVISED_THROW = 2
IMPROVISED_RANGE = (10, 20)
MAIN, OFF, DUAL, SPLIT = 0, 1, 2, 3


@lru_cache(maxsize=256)
def dice(text: str) -> DiceExpr:
    return parse_dice(text)


def adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


# ---- fatigue, wounds and defenses --------------------------------------------------------------------------------
def fatigue_penalty(u: "Unit") -> int:
    """Fatigue levels beyond the creature's fatigue tolerance: -1 each to accuracy and checks [Rise]."""
    return max(0, u.state["fatigue"] - u.stats["fatigue_tolerance"])


def vital_penalty(u: "Unit") -> int:
    """Each vital wound: -1 to accuracy and all defenses for the rest of the battle (simplified vital wound effects)."""
    return u.state["vital"]


def grappled(u: "Unit") -> bool:
    return bool(u.state["grapple"])


def brief_penalty(u: "Unit", which: str, round_: int) -> int:
    return sum(p for kind, p, last in u.state["brief"] if last >= round_ and (kind == "all" or kind == which))


def defense(enc: "Encounter", t: "Unit", which: str) -> int:
    """The stat block's defense; prone and grappling (without control) -2 Armor and Reflex, total defense +2 all,
    brief penalties (a charge's -2 all, resonating blows on Armor), -1 all per vital wound."""
    s = t.state
    d = t.stats[which] - vital_penalty(t) - brief_penalty(t, which, enc.round)
    if which in ("armor", "reflex"):
        if s["prone"]:
            d -= 2
        if s["grapple"] and not s["control"]:
            d -= 2
    if s["total_defense"]:
        d += 2
    return d


def carries(a: "Unit", t: "Unit") -> bool:
    """Whether a is strong enough to carry t (weight categories, simplified to sizes: t no larger than a)."""
    return SIZES.index(t.stats["size"]) <= SIZES.index(a.stats["size"])


def pushes(a: "Unit", t: "Unit") -> bool:
    """Whether a can push t: t at most one size larger."""
    return SIZES.index(t.stats["size"]) <= SIZES.index(a.stats["size"]) + 1


# ---- hands and weapons ---------------------------------------------------------------------------------------------
def held(u: "Unit") -> list[int]:
    """Indices of the weapons still in hand."""
    return [n for n, h in enumerate(u.state["held"]) if h]


def hands_used(u: "Unit") -> int:
    """Hands the held weapons and shield take (natural weapons none, Heavy ones two)."""
    used = int(u.stats["shield"])
    for n in held(u):
        tags = u.stats["weapons"][n]["tags"]
        if not tags.get("natural"):
            used += 2 if tags.get("heavy") else 1
    return used


def free_hand(u: "Unit") -> bool:
    return hands_used(u) < 2 and not (grappled(u) and hands_used(u) >= 1)


def combine(w1: dict, w2: dict) -> dict:
    """A dual strike's combined weapon: accuracy and damage summed, every tag and numeric modifier of both (stacking),
    with the text's tag rules: Compact, Long, Subdual and Thrown only if both have them, Projectile only if both (the
    lower range), Heavy -1 each, Light +3 both / +2 one, -4 dual-strike penalty (-5 with an exotic weapon)."""
    t1, t2 = w1["tags"], w2["tags"]
    tags: dict = {}
    for k in ("keen", "impact", "sweeping", "resonating"):
        n = t1.get(k, 0) + t2.get(k, 0)
        if n:
            tags[k] = n
    for k in ("compact", "long", "subdual", "natural"):
        if t1.get(k) and t2.get(k):
            tags[k] = True
    for k in ("versatile_grip", "heavy", "ammunition"):
        if t1.get(k) or t2.get(k):
            tags[k] = True
    for k in ("projectile", "thrown"):
        if k in t1 and k in t2:
            tags[k] = [min(t1[k][0], t2[k][0]), min(t1[k][1], t2[k][1])]
    lights = int(bool(t1.get("light"))) + int(bool(t2.get("light")))
    acc = w1["accuracy"] + w2["accuracy"] - DUAL_PENALTY - int(w1["exotic"] or w2["exotic"])
    acc -= int(bool(t1.get("heavy"))) + int(bool(t2.get("heavy")))
    acc += {0: 0, 1: 2, 2: 3}[lights]
    return {"name": f"{w1['name']} and {w2['name']}", "accuracy": acc, "dice": [w1["damage"], w2["damage"]],
            "tags": tags, "exotic": w1["exotic"] or w2["exotic"], "dual": True,
            "ammunition": [n for n, w in enumerate((w1, w2)) if w["tags"].get("ammunition")]}


def single(w: dict) -> dict:
    """A strike's weapon: one weapon alone."""
    return {"name": w["name"], "accuracy": w["accuracy"], "dice": [w["damage"]], "tags": w["tags"],
            "exotic": w["exotic"], "dual": False, "ammunition": [0] if w["tags"].get("ammunition") else []}


def can_dual(u: "Unit") -> bool:
    """Dual strikes: two weapons in hand, Dexterity 2 or more, no shield, no Bow, not with a hand in a grapple."""
    ws = u.stats["weapons"]
    return (len(held(u)) == 2 and u.stats["dexterity"] >= 2 and not u.stats["shield"] and not grappled(u)
            and not any(w["tags"].get("bow") for w in ws)
            and ("projectile" in ws[0]["tags"]) == ("projectile" in ws[1]["tags"]))


def weapon_for(u: "Unit", mode: int) -> dict | None:
    """The weapon a strike in `mode` uses (main, off-hand, dual, split), None when the creature cannot make it.
    A creature with a hand in a grapple cannot use a Heavy weapon."""
    ws, h = u.stats["weapons"], u.state["held"]
    if mode in (MAIN, OFF):
        if mode >= len(ws) or not h[mode]:
            return UNARMED if mode == MAIN and not any(h) else None
        w = ws[mode]
        if grappled(u) and w["tags"].get("heavy"):
            return None
        return _single(u.stats["weapons"], mode)
    if not can_dual(u):
        return None
    return _combined(u.stats["weapons"])


UNARMED = {"name": "punch or kick", "accuracy": 0, "dice": ["1d4"], "tags": {"natural": True}, "exotic": False,
           "dual": False, "ammunition": [], "unarmed": True}   # what a creature with no weapon in hand strikes with [Rise]
_SINGLE: dict = {}
_COMBINED: dict = {}


def _single(ws: list, n: int) -> dict:
    key = (id(ws), n)
    got = _SINGLE.get(key)
    if got is None or got[0] is not ws:
        if len(_SINGLE) > 4096:
            _SINGLE.clear()
        got = _SINGLE[key] = (ws, single(ws[n]))
    return got[1]


def _combined(ws: list) -> dict:
    got = _COMBINED.get(id(ws))
    if got is None or got[0] is not ws:
        if len(_COMBINED) > 4096:
            _COMBINED.clear()
        got = _COMBINED[id(ws)] = (ws, combine(ws[0], ws[1]))
    return got[1]


def melee_reach(w: dict) -> int:
    return 2 if w["tags"].get("long") else 1


def can_melee(w: dict) -> bool:
    return "projectile" not in w["tags"] and not w["tags"].get("bow")


def ranges(w: dict, kind: str) -> tuple[int, int, int] | None:
    """(short, long range in squares, accuracy modifier) of a projectile or thrown strike with w; None if it cannot."""
    tags = w["tags"]
    if kind == "shoot":
        r = tags.get("projectile")
        return None if r is None else (r[0] // 5, r[1] // 5, 0)
    if "projectile" in tags or tags.get("bow") or tags.get("natural"):
        return None
    r = tags.get("thrown")
    if r is None:
        return IMPROVISED_RANGE[0] // 5, IMPROVISED_RANGE[1] // 5, -IMPROVISED_THROW
    return r[0] // 5, r[1] // 5, 0


def accuracy(enc: "Encounter", a: "Unit", t: "Unit", w: dict, kind: str) -> tuple[int, list[str]]:
    """A strike's accuracy: the creature's accuracy plus the weapon's, -4 for a projectile against an adjacent target,
    -4 longshot beyond short range, -2 throwing a weapon not made for it, less fatigue and vital wound penalties."""
    notes: list[str] = []
    b = a.stats["accuracy"] + w["accuracy"] - fatigue_penalty(a) - vital_penalty(a)
    if kind in ("shoot", "hurl"):
        short, _, mod = ranges(w, kind)
        if mod:
            b += mod
            notes.append("improvised throw")
        if kind == "shoot" and adjacent(a.pos, t.pos):
            b -= ADJACENT_SHOT
            notes.append("adjacent target")
        if enc.grid.distance(a.pos, t.pos) > short:
            b -= LONGSHOT
            notes.append("longshot")
    if w["dual"]:
        notes.append("dual strike")
    return b, notes


def brawling(a: "Unit") -> int:
    return a.stats["brawling"] - fatigue_penalty(a) - vital_penalty(a)


# ---- rolls ---------------------------------------------------------------------------------------------------------
def roll_accuracy(dice: "Dice", why: str) -> tuple[int, list[int]]:
    """1d10 that explodes: each 10 adds another d10 [Rise]."""
    faces = [dice.face(10, why)]
    while faces[-1] == 10 and len(faces) < 20:
        faces.append(dice.face(10, f"{why} (exploded)"))
    return sum(faces), faces


def outcome(total: int, dfn: int, w: dict | None = None) -> str:
    """'crit', 'hit', 'glance' or 'miss' of an attack result against a defense; a weapon's Keen (+2 each for critical
    hits) and Impact (wider glancing blows) count."""
    tags = w["tags"] if w is not None else {}
    if total + 2 * tags.get("keen", 0) >= dfn + CRIT_MARGIN and total >= dfn:
        return "crit"
    if total >= dfn:
        return "hit"
    glance = IMPACT_GLANCE.get(min(2, tags.get("impact", 0)), GLANCE_MARGIN)
    return "glance" if dfn - total <= glance else "miss"


def p_at_least(k: int) -> float:
    """Chance an exploding d10 totals k or more."""
    p = 1.0
    while k > 10:
        p *= 0.1
        k -= 10
    return p if k <= 1 else p * (11 - k) / 10


def chances(bonus: int, dfn: int, w: dict | None = None) -> tuple[float, float, float]:
    """(critical hit, hit without a critical, glancing blow) chances of an accuracy roll."""
    tags = w["tags"] if w is not None else {}
    need = dfn - bonus
    crit = p_at_least(max(need, need + CRIT_MARGIN - 2 * tags.get("keen", 0)))
    hit = p_at_least(need) - crit
    glance = IMPACT_GLANCE.get(min(2, tags.get("impact", 0)), GLANCE_MARGIN)
    return crit, hit, p_at_least(need - glance) - p_at_least(need)


def damage_mean(a: "Unit", w: dict) -> tuple[float, float]:
    """(mean damage of a hit, mean of the extra dice a critical hit adds)."""
    extra = sum(dice(d).mean for d in w["dice"])
    return extra + a.stats["power"], extra


# ---- damage and wounds -----------------------------------------------------------------------------------------------
def take_damage(enc: "Encounter", src: int | None, t: "Unit", amount: int, why: str, subdual: bool = False
                ) -> tuple[list[Event], bool]:
    """Damage resistance first, then hit points; damage beyond the hit points left (or any at 0 hit points) is a vital
    wound. Returns the events and whether a vital wound was taken (its vital roll is the caller's)."""
    s = t.state
    amount = max(0, amount)
    shield = min(s["dr"], amount)
    s["dr"] -= shield
    rest = amount - shield
    hp_part = t.hp - (s["dr"] + shield)
    wound = rest > hp_part
    lost = min(rest, hp_part)
    t.hp -= shield + lost
    ev = [new_event("damage", src, t.id, {"amount": amount, "resisted": shield, "why": why})]
    return ev, wound


def vital_wound(enc: "Encounter", dice: "Dice", src: int | None, t: "Unit", subdual: bool) -> list[Event]:
    """A vital wound and its vital roll: 1d10 - 2 per earlier vital wound; 0 or less dead, 1-4 unconscious, otherwise
    the creature fights on (every vital wound: -1 accuracy and defenses). Minions die at their first; subdual damage
    knocks out instead of killing (simplified vital wound table)."""
    s = t.state
    before = s["vital"]
    s["vital"] += 1
    if t.stats["minion"]:
        roll, result = None, "unconscious" if subdual else "dead"
    else:
        face = dice.face(10, f"{t.name}'s vital roll")
        roll = face - 2 * before
        result = "dead" if roll <= 0 else "unconscious" if roll <= 4 else "fights on"
        if subdual and result == "dead":
            result = "unconscious"
    ev = [new_event("vital_wound", src, t.id, {"roll": roll, "wounds": s["vital"], "result": result})]
    if result != "fights on" and not t.down:
        t.down = True
        t.dead = result == "dead"
        ev.append(new_event("down", src, t.id, {"dead": t.dead, "why": result}))
        ev += release_all(enc, t)
    return ev


def end_grapple(enc: "Encounter", a: "Unit", b: "Unit") -> None:
    for x, y in ((a, b), (b, a)):
        if y.id in x.state["grapple"]:
            x.state["grapple"].remove(y.id)
        if not x.state["grapple"]:
            x.state["control"] = False


def release_all(enc: "Encounter", u: "Unit") -> list[Event]:
    """A creature out of the fight lets go of every grapple."""
    ev = []
    for other in list(u.state["grapple"]):
        end_grapple(enc, u, enc.units[other])
        ev.append(new_event("grapple_ends", u.id, other, {"why": f"{u.name} is out of the fight"}))
    return ev
