"""Saga figures behind the learning agents' observation: each unit's features and the threat estimates between
the actor and the other units (`SagaRuleset.unit_features`, `threat_estimate`, `observation_parts`).

The figures are those of `attack_estimate` (the same `combat.py` functions), split into what depends on one
unit's state alone (a `_Record`, cached per state) and what depends on the two squares (`_threat`).

`observation_parts` runs in C (`_observe.c`) where that module is built: the same arithmetic in the same
order, so the same doubles; `_observation_parts_py` is its Python version, the fallback and the tests' oracle.
"""
from __future__ import annotations

from engine.core.state import Encounter
from engine.core.units import Unit

from . import combat as C
from .stats import RANGES

try:  # the observation figures in C, built by `pip install`; the Python below otherwise
    from . import _observe
except ImportError:  # pragma: no cover - only without a C compiler
    _observe = None


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


def observation_parts(enc: Encounter, actor: Unit, units: list[Unit]):
    """For each unit u: (unit_features(u), threat_estimate(actor, u) + threat_estimate(u, actor) when u is an
    active unit of another side, else None), sharing the work.

    From the C module this is an `_observe.Parts`: that sequence, and also a read-only float64 buffer of shape
    (len(units), 14 + 5), a row per unit: its 14 features, the threat (zeros where the sequence has None), then
    the reach of the squares it threatens (`SagaRuleset.threatens`; 0 when it threatens none). The observation
    encoder reads the buffer without making Python objects. A list from the Python version."""
    if _observe is not None:
        got = _observe.parts(enc, actor, units, enc.grid.line_codes(), _profile)
        if got is not None:  # None: a state the C version does not represent (the Python one says what is wrong)
            return got
    return _observation_parts_py(enc, actor, units)


def _observation_parts_py(enc: Encounter, actor: Unit, units: list[Unit]) -> list[tuple[list[float], tuple | None]]:
    """`observation_parts` in Python: the fallback of `_observe.parts` and its oracle in the tests."""
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


class _StatBlock:
    """A stand-in unit for the `combat.py` functions that read only the stat block."""

    __slots__ = ("stats",)

    def __init__(self, stats: dict):
        self.stats = stats


_MODE_CODES = {"stun": 1, "autofire": 2}
_KIND_CODES = {"melee": 1, "ranged": 2}


def _profile(stats: dict) -> tuple:
    """What `_observe.parts` needs of a stat block, read once per block (blocks are not mutated during play):
    ((reflex, fortitude, speed, second_winds, reach, bab, str, dex, careful shot), ((item reflex, item
    fortitude), ...), ((kind, natural, attack, not proficient, light, (mode codes), mean damage, mean damage aimed,
    range bands), ...)). The means are `combat.damage_expr`'s, so the C figures use the very same doubles; "not
    proficient" (-5) is an improvised weapon or one outside the block's proficiencies (`combat.proficient`)."""
    u = _StatBlock(stats)
    head = (stats["reflex"], stats["fortitude"], stats["speed"], stats["second_winds"], stats["reach"],
            stats["bab"], stats["str"], stats["dex"], int("careful_shot" in stats["feats"]))
    items = tuple((it.get("reflex", 0), it.get("fortitude", 0)) for it in stats["items"])
    weapons = []
    for n, w in enumerate(stats["weapons"]):
        kind = _KIND_CODES.get(w["kind"], 0)
        weapons.append((kind, int(bool(w["natural"])), w["attack"], int(w["improvised"] or not C.proficient(stats, w)),
                        int(bool(w["light"])), tuple(_MODE_CODES.get(m, 0) for m in w["modes"]),
                        float(C.damage_expr(u, n, aimed=False).mean), float(C.damage_expr(u, n, aimed=True).mean),
                        tuple(RANGES[w["group"]]) if kind == 2 else (0, 0, 0, 0)))
    return head, items, tuple(weapons)


