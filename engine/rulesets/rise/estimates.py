"""Rise estimates without rolling: hit, critical and glancing chances of exploding accuracy rolls, expected damage
through damage resistance; the observation's unit features."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.ruleset import Estimate
from engine.core.tactics import kill_guess

from . import combat as C

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

    from .ruleset import RiseRuleset

N_FEATURES = 8
BRAWL_WORTH = {"trip": 0.35, "grapple": 0.3, "shove": 0.1, "throw": 0.2}  # of the target's danger, on a success


_FIGURES: dict = {}  # strike's estimates by what they depend on besides the accuracy bonus and the defense


def strike(enc: "Encounter", a: "Unit", t: "Unit", kind: str, mode: int, pos=None) -> Estimate:
    """A strike's chances and expected damage (a split strike on one of its two targets)."""
    w = C.weapon_for(a, mode)
    if w is None:
        return Estimate()
    here = a.pos
    if pos is not None:
        a.pos = pos
    try:
        bonus = C.accuracy(enc, a, t, w, kind)[0]
    finally:
        a.pos = here
    dfn = C.defense(enc, t, "armor")
    # the rest depends on these alone (the weapon by identity: the memo holds it, so its id is not reused)
    key = (id(w), bonus, dfn, a.stats["power"], mode == C.SPLIT, t.hp)
    got = _FIGURES.get(key)
    if got is None or got[0] is not w:
        crit, hit, glance = C.chances(bonus, dfn, w)
        mean, extra = C.damage_mean(a, w)
        dmg = (hit + crit) * mean + crit * extra + glance * mean / 2
        if mode == C.SPLIT:
            dmg /= 2
        if len(_FIGURES) > 65536:
            _FIGURES.clear()
        got = _FIGURES[key] = (w, Estimate(hit + crit, min(dmg, float(t.hp) + 4), kill_guess(hit + crit, dmg, t.hp)))
    return got[1]


def brawl(enc: "Encounter", a: "Unit", t: "Unit", defenses: tuple[str, ...]) -> float:
    """Chance a brawling attack beats the higher of the defenses."""
    crit, hit, _ = C.chances(C.brawling(a), max(C.defense(enc, t, k) for k in defenses))
    return crit + hit


def estimate(rs: "RiseRuleset", enc: "Encounter", a: "Unit", d: Decision) -> Estimate:
    if d.action in ("strike", "shoot", "hurl"):
        return strike(enc, a, enc.units[d.target], d.action, d.option)
    if d.action == "charge":
        t = enc.units[d.target]
        w = C.weapon_for(a, d.option)
        sq = rs.charge_square(enc, a, t, C.melee_reach(w)) if w is not None else None
        return strike(enc, a, t, "strike", d.option, sq) if sq is not None else Estimate()
    if d.action in ("trip", "shove", "throw"):
        return Estimate(brawl(enc, a, enc.units[d.target], ("fortitude",)))
    if d.action == "grapple":
        return Estimate(brawl(enc, a, enc.units[d.target], ("fortitude", "reflex")))
    return Estimate()


_STRIKES: dict = {}  # `_strikes_of` by what it depends on


def _strikes_of(rs: "RiseRuleset", a: "Unit") -> list[tuple[int, dict, list[tuple[str, int, int]]]]:
    """Per weapon mode a can strike one target with (not a split strike): (mode, weapon, [(kind, farthest reach, short
    range, in squares)] for each kind of strike it allows, melee first (its short range 0: unused)). Remembered by
    what it depends on: the stat block (replaced, never changed, in play; the memo holds it, so its id is not reused),
    the weapons in hand and whether a is grappling."""
    s = a.state
    key = (id(a.stats), tuple(s["held"]), bool(s["grapple"]))
    got = _STRIKES.get(key)
    if got is None or got[0] is not a.stats:
        if len(_STRIKES) > 4096:
            _STRIKES.clear()
        got = _STRIKES[key] = (a.stats, _list_strikes(rs, a))
    return got[1]


def _list_strikes(rs: "RiseRuleset", a: "Unit") -> list[tuple[int, dict, list[tuple[str, int, int]]]]:
    out = []
    for m in rs.modes(a):
        if m == C.SPLIT:
            continue
        w = C.weapon_for(a, m)
        if w is None:
            continue
        kinds = [("strike", C.melee_reach(w), 0)] if C.can_melee(w) else []
        for kind in ("shoot", "hurl"):
            r = C.ranges(w, kind)
            if r is not None:
                kinds.append((kind, r[1], r[0]))
        out.append((m, w, kinds))
    return out


def threat_estimate(rs: "RiseRuleset", enc: "Encounter", a: "Unit", t: "Unit", memo: dict | None = None,
                    charge: bool = True) -> tuple[float, float]:
    """(hit chance, expected damage) of a's best strike on t with its next standard action from where it stands:
    melee, projectile, thrown, or (unless `charge` is False) a charge's melee strike. `memo` (a tactics view's)
    keeps, for calls on the same state with the units on other squares: each creature's `_strikes_of` under its id;
    under (a.id, t.id) a's `strike` estimates on t by what of the squares they depend on (a melee strike's by its
    mode alone, a shot's or a throw's by (kind, mode, whether t is adjacent, whether beyond short range):
    `combat.accuracy`); charge squares under ("charge", ...) keys."""
    if a.down or t.down:
        return 0.0, 0.0
    best = (0.0, 0.0)
    melee = False
    g = enc.grid
    dist = g.distance(a.pos, t.pos)
    effect = None
    if memo is None:
        weapons, pair = _strikes_of(rs, a), None
    else:
        weapons = memo.get(a.id)
        if weapons is None:
            weapons = memo[a.id] = _strikes_of(rs, a)
        pk = (a.id, t.id)
        pair = memo.get(pk)
        if pair is None:
            pair = memo[pk] = {}
    for m, w, kinds in weapons:
        for kind, far, short in kinds:
            if dist > far:
                continue
            if effect is None:
                effect = g.line_of_effect(a.pos, t.pos)
            if not effect:
                break
            if kind == "strike":
                melee = True
                key = m
            else:
                key = (kind, m, dist <= 1, dist > short)
            if pair is None:
                e = strike(enc, a, t, kind, m)
            else:
                e = pair.get(key)
                if e is None:
                    e = pair[key] = strike(enc, a, t, kind, m)
            if e.expected_damage > best[1]:
                best = (e.hit_chance, e.expected_damage)
    if charge and not melee and not a.state["grapple"] and not a.state["prone"] and dist <= rs.speed(a) + 2:
        for m, w, kinds in weapons:
            if not kinds or kinds[0][0] != "strike":
                continue
            if pair is None:
                e = strike(enc, a, t, "strike", m)
            else:
                e = pair.get(m)
                if e is None:
                    e = pair[m] = strike(enc, a, t, "strike", m)
            if e.expected_damage <= best[1]:  # where the charge ends matters only to a better strike
                continue
            if memo is None:
                sq = rs.charge_square(enc, a, t, kinds[0][1])
            else:  # the line depends on the squares taken: of a, of t and of the acting unit (the others stay put)
                actor = enc.actor
                key = ("charge", a.id, a.pos, t.id, t.pos, kinds[0][1], actor.pos if actor is not None else None)
                sq = memo.get(key, False)
                if sq is False:
                    sq = memo[key] = rs.charge_square(enc, a, t, kinds[0][1])
            if sq is not None:
                best = (e.hit_chance, e.expected_damage)
    return best[0], min(best[1], float(t.hp) + 4)


def unit_features(rs: "RiseRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """Damage resistance left, Armor, fatigue beyond tolerance, vital wounds, prone, grappling, controls the grapple,
    total defense."""
    s = u.state
    return [s["dr"] / max(1, u.stats["dr"]) if u.stats["dr"] else 0.0, (u.stats["armor"] - 8) / 4,
            C.fatigue_penalty(u) / 4, s["vital"] / 3, float(s["prone"]), float(bool(s["grapple"])),
            float(s["control"]), float(s["total_defense"])]
