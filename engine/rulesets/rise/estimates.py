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


_FIGURES: dict = {}  # strike estimates by the figures they depend on (`_figures`)


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
    return _figures(a, t, w, mode, bonus, C.defense(enc, t, "armor"))


def _figures(a: "Unit", t: "Unit", w: dict, mode: int, bonus: int, dfn: int) -> Estimate:
    """A strike's estimate from its accuracy bonus and the defense (remembered by what it depends on: the weapon by
    identity (the memo holds it, so its id is not reused), the bonus, the defense, power, split, hit points)."""
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


_ROWS: dict = {}  # `_Pair`'s best strikes by distance and its melee strikes, by what they depend on (`_Pair.figures`)


class _Pair:
    """What `threat_estimate` keeps of a's strikes on t while the units take other squares (a tactics view's memo):
    per distance, the best strike that reaches t there; the melee strikes a charge may end in; charge squares. The
    first two depend on a's strikes (`_strikes_of`, which fixes the stat block), a's accuracy penalties, t's Armor and
    hit points, the distance: remembered across views by those (`_ROWS`)."""

    __slots__ = ("weapons", "figures", "armor", "melee", "rows", "charge_within", "charges", "cap")

    def __init__(self, rs: "RiseRuleset", enc: "Encounter", a: "Unit", t: "Unit"):
        self.weapons = weapons = _strikes_of(rs, a)
        self.armor = C.defense(enc, t, "armor")
        # the strikes by identity: the entries of `_ROWS` hold them, so the id is not reused while an entry lives
        self.figures = (id(weapons), C.fatigue_penalty(a) + C.vital_penalty(a), self.armor, t.hp)
        self.melee: list | None = None
        self.rows: dict = {}      # distance -> `row`
        s = a.state
        self.charge_within = -1 if s["grapple"] or s["prone"] else rs.speed(a) + 2
        self.charges: dict = {}   # charge squares by the squares of a, of t and of the acting unit
        self.cap = float(t.hp) + 4

    def melee_strikes(self, enc: "Encounter", a: "Unit", t: "Unit") -> list:
        """(mode, estimate, reach) of each melee strike, in mode order (its accuracy the same from every square)."""
        if self.melee is None:
            key = self.figures
            got = _ROWS.get(key)
            if got is None or got[0] is not self.weapons:
                got = _remember(key, self.weapons, [
                    (m, _figures(a, t, w, m, C.accuracy(enc, a, t, w, "strike")[0], self.armor), kinds[0][1])
                    for m, w, kinds in self.weapons if kinds and kinds[0][0] == "strike"])
            self.melee = got[1]
        return self.melee

    def row(self, enc: "Encounter", a: "Unit", t: "Unit", dist: int) -> tuple[float, float, bool, bool]:
        """(hit chance, expected damage, a melee strike reaches, any strike does) of the best strike at distance dist
        (the first of the best, in the order of `_strikes_of`), given a line of effect: a shot's accuracy depends on
        the squares through the distance alone (`combat.accuracy`)."""
        key = self.figures + (dist,)
        kept = _ROWS.get(key)
        if kept is None or kept[0] is not self.weapons:
            hit = dmg = 0.0
            melee = reach = False
            for m, w, kinds in self.weapons:
                for kind, far, _ in kinds:
                    if dist > far:
                        continue
                    reach = True
                    if kind == "strike":
                        melee = True
                        e = next(e for mode, e, _ in self.melee_strikes(enc, a, t) if mode == m)
                    else:
                        e = _figures(a, t, w, m, C.accuracy(enc, a, t, w, kind)[0], self.armor)
                    if e.expected_damage > dmg:
                        hit, dmg = e.hit_chance, e.expected_damage
            kept = _remember(key, self.weapons, (hit, dmg, melee, reach))
        got = self.rows[dist] = kept[1]
        return got


def _remember(key: tuple, weapons: list, value):
    if len(_ROWS) > 65536:
        _ROWS.clear()
    got = _ROWS[key] = (weapons, value)
    return got


def threat_estimate(rs: "RiseRuleset", enc: "Encounter", a: "Unit", t: "Unit", memo: dict | None = None,
                    charge: bool = True) -> tuple[float, float]:
    """(hit chance, expected damage) of a's best strike on t with its next standard action from where it stands:
    melee, projectile, thrown, or (unless `charge` is False) a charge's melee strike, t within a's speed plus two
    squares by the map's distance (the first of the best, in the order of `_strikes_of`). `memo` (a tactics view's)
    keeps, for calls on the same state with the units on other squares, a `_Pair` under (a.id, t.id)."""
    if a.down or t.down:
        return 0.0, 0.0
    pk = (a.id, t.id)
    p = None if memo is None else memo.get(pk)
    if p is None:
        p = _Pair(rs, enc, a, t)
        if memo is not None:
            memo[pk] = p
    g = enc.grid
    dist = g.distance(a.pos, t.pos)
    row = p.rows.get(dist)
    if row is None:
        row = p.row(enc, a, t, dist)
    hit, dmg, melee, reach = row
    if reach and not g.line_of_effect(a.pos, t.pos):
        hit, dmg, melee = 0.0, 0.0, False
    if charge and not melee and dist <= p.charge_within:
        for _, e, far in p.melee_strikes(enc, a, t):
            if e.expected_damage <= dmg:  # where the charge ends matters only to a better strike
                continue
            # the line depends on the squares taken: of a, of t and of the acting unit (the others stay put)
            actor = enc.actor
            key = (a.pos, t.pos, far, actor.pos if actor is not None else None)
            sq = p.charges.get(key, False)
            if sq is False:
                sq = p.charges[key] = rs.charge_square(enc, a, t, far)
            if sq is not None:
                hit, dmg = e.hit_chance, e.expected_damage
    return hit, min(dmg, p.cap)


def unit_features(rs: "RiseRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """Damage resistance left, Armor, fatigue beyond tolerance, vital wounds, prone, grappling, controls the grapple,
    total defense."""
    s = u.state
    return [s["dr"] / max(1, u.stats["dr"]) if u.stats["dr"] else 0.0, (u.stats["armor"] - 8) / 4,
            C.fatigue_penalty(u) / 4, s["vital"] / 3, float(s["prone"]), float(bool(s["grapple"])),
            float(s["control"]), float(s["total_defense"])]
