"""Starship arithmetic: Defense, attack bonuses and range, damage through damage reduction and shields.

Pure functions of ships and the encounter; the ruleset's resolvers (ruleset.py) roll through them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from engine.core.dice import DiceExpr, parse_dice
from engine.core.events import Event, new_event

from .stats import SIZES

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

MAX_BEAM_INCREMENTS = 10
ALLY_ADJACENT = 4    # the penalty for firing at a target next to an ally
AID_BONUS = 2


@lru_cache(maxsize=512)
def dice(text: str) -> DiceExpr:
    return parse_dice(text)


def adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def defense(t: "Unit", attacker: "Unit | None" = None) -> int:
    """The stat block's Defense, plus its dodge bonus (total defense, fighting defensively) and an aid's +2 against
    this attacker; a surging ship loses its pilot's Dexterity and dodge bonuses, and so does a feinted one against
    the feinter."""
    s = t.state
    d = t.stats["defense"]
    surging = s["surging"]
    if not surging:
        d += s["dodge"]
    if surging or attacker is not None and any(f[0] == attacker.id for f in s["feinted"]):
        d -= max(0, t.stats["pilot_dex"])
    if attacker is not None and s["aid"]:
        d += AID_BONUS * sum(1 for foe, kind, _ in s["aid"] if foe == attacker.id and kind == "defense")
    return d


def increments(enc: "Encounter", a: "Unit", t: "Unit", w: dict) -> int | None:
    """Range increments from a to t with weapon w (1 within the first); None beyond a beam's tenth."""
    dist = enc.grid.distance(a.pos, t.pos)
    n = max(1, -(-dist // w["range"]))
    if w["kind"] == "beam" and n > MAX_BEAM_INCREMENTS:
        return None
    return n


def ally_beside(enc: "Encounter", a: "Unit", t: "Unit") -> bool:
    """Whether the target occupies a square next to one of the attacker's allies (-4: aim carefully)."""
    return any(u is not a and not u.down and u.side == a.side and adjacent(u.pos, t.pos) for u in enc.units)


def attack_bonus(enc: "Encounter", a: "Unit", t: "Unit", w: dict) -> tuple[int, list[str]]:
    """The weapon's attack bonus, -2 per increment beyond the first, -4 beside an ally, -4 fighting defensively,
    +2 a sensor lock, +2 an ally's aid against this target."""
    notes: list[str] = []
    b = w["attack"]
    n = increments(enc, a, t, w) or MAX_BEAM_INCREMENTS
    if n > 1:
        b -= 2 * (n - 1)
        notes.append(f"{n} range increments")
    if ally_beside(enc, a, t):
        b -= ALLY_ADJACENT
        notes.append("next to an ally")
    flags = enc.flags if enc.actor is a else {}
    if flags.get("defensive"):
        b -= 4
        notes.append("fighting defensively")
    if flags.get("sensors"):
        b += 2
        notes.append("sensor lock")
    aid = sum(1 for foe, kind, _ in a.state["aid"] if foe == t.id and kind == "attack")
    if aid:
        b += AID_BONUS * aid
        notes.append("aided")
    return b, notes


def damage_expr(w: dict) -> DiceExpr:
    """The weapon's dice, one more die for each fire-linked gun beyond the first."""
    e = dice(w["damage"])
    return DiceExpr(e.count + w["linked"] - 1, e.sides, e.bonus)


def deal_damage(enc: "Encounter", src: int | None, t: "Unit", amount: int, why: str) -> list[Event]:
    """Damage reduction first (per hit), then the shields, then the hull; at 0 hull points the ship is out of the
    fight (destroyed or disabled)."""
    got = max(0, amount - t.stats["dr"])
    s = t.state
    shield = min(s["sp"], got)
    s["sp"] -= shield
    t.hp = max(0, t.hp - got)
    ev = [new_event("damage", src, t.id, {"amount": got, "shields": shield, "rolled": amount, "why": why})]
    if t.hp <= 0 and not t.down:
        t.down = True
        t.dead = True
        ev.append(new_event("down", src, t.id, {"dead": True, "why": "0 hull points"}))
        ev += release_all(enc, t)
    return ev


def release(enc: "Encounter", grappler: "Unit", why: str) -> list[Event]:
    tid = grappler.state["grappling"]
    if tid is None:
        return []
    t = enc.units[tid]
    grappler.state["grappling"] = None
    t.state["grappled_by"] = None
    return [new_event("grapple_ends", grappler.id, t.id, {"why": why})]


def release_all(enc: "Encounter", u: "Unit") -> list[Event]:
    """A ship out of the fight lets go of what it holds, and what held it lets go."""
    ev = release(enc, u, "out of the fight")
    if u.state["grappled_by"] is not None:
        ev += release(enc, enc.units[u.state["grappled_by"]], f"{u.name} is out of the fight")
    return ev


def size_mod(u: "Unit") -> int:
    return SIZES[u.stats["size"]]
