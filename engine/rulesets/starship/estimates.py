"""Starship estimates without rolling: hit chances, expected damage through damage reduction and shields; the
observation's unit features."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.ruleset import Estimate
from engine.core.tactics import kill_guess

from . import combat as C

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

    from .ruleset import StarshipRuleset

N_FEATURES = 8


def p_hit(need: int) -> float:
    """Chance a d20 meets `need` (a natural 1 misses, a 20 hits)."""
    return min(19, max(1, 21 - need)) / 20


def shot(enc: "Encounter", a: "Unit", t: "Unit", w: dict) -> Estimate:
    bonus, _ = C.attack_bonus(enc, a, t, w)
    dfn = C.defense(t, a)
    p = p_hit(dfn - bonus)
    threat = min(p, (21 - w["critical"]) / 20)
    pc = threat * p  # threatened and confirmed
    mean = C.damage_expr(w).mean * w["multiplier"]
    per_hit = max(0.0, mean - t.stats["dr"])
    per_crit = max(0.0, 2 * mean - t.stats["dr"])
    dmg = (p - pc) * per_hit + pc * per_crit
    return Estimate(p, min(dmg, p * t.hp), kill_guess(p, dmg, t.hp))


def estimate(rs: "StarshipRuleset", enc: "Encounter", a: "Unit", d: Decision) -> Estimate:
    if d.action in ("fire", "fire_next"):
        return shot(enc, a, enc.units[d.target], a.stats["weapons"][d.option])
    return Estimate()


def threat_estimate(rs: "StarshipRuleset", enc: "Encounter", a: "Unit", t: "Unit") -> tuple[float, float]:
    """(hit chance, expected damage) of a's whole attack action on t from where it stands: every weapon in range."""
    if a.down or t.down:
        return 0.0, 0.0
    p, dmg = 0.0, 0.0
    for n, w in enumerate(a.stats["weapons"]):
        if rs.in_range(enc, a, t, n):
            e = shot(enc, a, t, w)
            p = max(p, e.hit_chance)
            dmg += e.expected_damage
    return p, min(dmg, float(t.hp))


def unit_features(rs: "StarshipRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """Shields left, Defense, its dodge bonus, surging, held by a tractor beam, holding one, point defense, a jump
    begun."""
    s = u.state
    return [s["sp"] / max(1, u.stats["sp"]) if u.stats["sp"] else 0.0, (u.stats["defense"] - 15) / 5, s["dodge"] / 4,
            float(s["surging"]), float(s["grappled_by"] is not None), float(s["grappling"] is not None),
            float(u.stats["point_defense"] is not None), float(s["jumping"])]
