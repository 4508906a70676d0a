"""Saga figures behind the learning agents' observation: each unit's features and the threat estimates between
the actor and the other units (`SagaRuleset.unit_features`, `threat_estimate`, `observation_parts`).

The figures are those of `attack_estimate` (the same `combat.py` functions), split into what depends on one
unit's state alone (a `_Record`, cached per state) and what depends on the two squares (`_threat`).
"""
from __future__ import annotations

from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from .stats import RANGES


class _Record:
    """What the observation needs of a unit in one state: its features and the parts of `attack_estimate`
    that do not depend on the other unit or the squares (computed by the same functions, so identical)."""

    __slots__ = ("stats", "features", "can_act", "melee", "ranged", "reach", "aimed", "careful", "reflex_melee",
                 "reflex_ranged", "m_ab", "m_mean", "m_auto", "r_ab", "r_mean", "r_auto", "r_ranges")

    def __init__(self, u: Unit):
        s = u.state
        self.stats = u.stats
        m, r = C.first_of(u, "melee"), C.first_of(u, "ranged")
        self.features = [C.reflex(u) / 30, C.fortitude(u) / 30, s["ct"] / 5, float(s["prone"]), float(s["aimed"]),
                         float(bool(s["grabbed_by"]) or s["pinned_by"] is not None), s["defense"] / 10,
                         float(m is not None), float(r is not None),
                         s["attack_penalty"] / 10, float(s["charged"]), float(s["aoo_used"]),
                         float(u.stats["second_winds"] > s["winds_used"]), u.stats["speed"] / 12]
        self.can_act = u.active and s["ct"] < C.CT_HELPLESS
        self.melee, self.ranged, self.reach = m, r, u.stats["reach"]
        self.aimed = s["aimed"]
        self.careful = 1 if "careful_shot" in u.stats["feats"] else 0
        self.reflex_melee, self.reflex_ranged = C.reflex(u, melee=True), C.reflex(u, melee=False)
        self.m_ab = self.m_mean = self.r_ab = self.r_mean = self.r_ranges = None
        self.m_auto = self.r_auto = False
        if m is not None:
            self.m_ab, self.m_mean, self.m_auto = _weapon_figures(u, m, False)
        if r is not None:
            self.r_ab, self.r_mean, self.r_auto = _weapon_figures(u, r, self.aimed)
            self.r_ranges = RANGES[C.weapon(u, r)["group"]]


def _weapon_figures(u: Unit, n: int, aimed: bool) -> tuple[int, float, bool]:
    """(attack bonus without aid, mean damage as `attack_estimate` counts it, autofire) of weapon n."""
    expr = C.damage_expr(u, n, aimed=aimed)
    stun = C.mode(u, n) == "stun"
    return C.attack_bonus(u, n, None), expr.mean / (2 if stun else 1), C.mode(u, n) == "autofire"


_RECORDS: dict = {}


def _record(u: Unit) -> _Record:
    s = u.state
    key = (id(u.stats), u.down, s["ct"], tuple(s["hands"]), tuple(s["lost"]), tuple(s["modes"]), s["prone"],
           s["aimed"], s["defense"], s["no_attacks"], s["attack_penalty"], s["charged"], s["aoo_used"],
           bool(s["grabbed_by"]), s["pinned_by"] is None, s["suppressed"], tuple(s["active_items"]),
           s["winds_used"])
    got = _RECORDS.get(key)
    if got is None or got.stats is not u.stats:
        if len(_RECORDS) > 20000:
            _RECORDS.clear()
        got = _RECORDS[key] = _Record(u)
    return got


def _threat(g, a: Unit, ra: _Record, t: Unit, rt: _Record, occ: set[int]) -> tuple[float, float]:
    """`threat_estimate` of a on t from the records: (hit chance, expected damage) of a's best attack."""
    if t.down or not ra.can_act:
        return 0.0, 0.0
    best = (0.0, 0.0)
    m, r = ra.melee, ra.ranged
    if m is None and r is None:
        return best
    w = g.width
    ia, it = a.pos[1] * w + a.pos[0], t.pos[1] * w + t.pos[0]
    dist = g.distance(a.pos, t.pos)
    los, loe, cover = g.sight(ia, it)
    aider = t.state["aid"].get(a.side)
    aid = 2 if aider is not None and aider != a.id else 0
    if m is not None and dist <= ra.reach and (dist <= 1 or loe):
        p = C.hit_chance(ra.m_ab + aid, rt.reflex_melee)
        mean = ra.m_mean
        dmg = p * mean + 0.05 * mean
        if ra.m_auto:
            dmg += (1 - p) * mean / 2
        best = (p, dmg)
    if r is not None and los and loe:
        band = None
        for k, top in enumerate(ra.r_ranges):
            if dist <= top:
                band = k
                break
        if band is not None and not any(i in occ for i in g._geometry.line(ia, it)):
            ab = ra.r_ab + aid + C.BAND_PENALTY[band]
            defense = rt.reflex_ranged
            if ra.aimed:
                ab += ra.careful
            else:
                defense += C.COVER_BONUS[cover]
            p = C.hit_chance(ab, defense)
            mean = ra.r_mean
            dmg = p * mean + 0.05 * mean
            if ra.r_auto:
                dmg += (1 - p) * mean / 2
            if dmg > best[1]:
                best = (p, dmg)
    return best


def unit_features(u: Unit) -> list[float]:
    return list(_record(u).features)


def threat_estimate(enc: Encounter, a: Unit, t: Unit) -> tuple[float, float]:
    g = enc.grid
    occ = {g.index(*u.pos) for u in enc.units if u.active}
    return _threat(g, a, _record(a), t, _record(t), occ)


def observation_parts(enc: Encounter, actor: Unit, units: list[Unit]) -> list[tuple[list[float], tuple | None]]:
    """For each unit u: (unit_features(u), threat_estimate(actor, u) + threat_estimate(u, actor) when u is an
    active unit of another side, else None), sharing the work."""
    g = enc.grid
    occ = {g.index(*u.pos) for u in enc.units if u.active}
    ra = _record(actor)
    side = actor.side
    out = []
    for u in units:
        ru = ra if u is actor else _record(u)
        if u.side != side and not u.down:
            out.append((ru.features, _threat(g, actor, ra, u, ru, occ) + _threat(g, u, ru, actor, ra, occ)))
        else:
            out.append((ru.features, None))
    return out

