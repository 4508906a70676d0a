"""What a Starfinder decision is likely to do, without rolling: hit chance, expected damage, kill chance; the unit
features and threat estimates of the observation. Computed from the same numbers the resolution rolls against
(`StarfinderRuleset.attack_numbers`), so the estimate and the rules cannot drift apart.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.ruleset import Estimate

from . import area as A
from . import combat as C
from . import conditions as K
from .stats import ENERGY
from .abilities import spell_weapon
from .maneuvers import KAC_PLUS, _KEYS as MANEUVER_KEYS
from .movement import reach_feet, within_reach

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

    from .ruleset import StarfinderRuleset


def p_hit(bonus: int, ac: int) -> float:
    """P(d20 + bonus >= ac), a natural 1 always missing and a natural 20 always hitting."""
    need = ac - bonus
    return min(19, max(1, 21 - need)) / 20


def p_crit(bonus: int, ac: int) -> float:
    """P(a natural 20 whose total meets the AC)."""
    return 0.05 if 20 + bonus >= ac else 0.0


def p_save(bonus: int, dc: int) -> float:
    return p_hit(bonus, dc)


def _mean(expr, t: "Unit", types: str) -> float:
    """Mean damage of an expression after the target's damage reduction or resistance, at least 1 a hit."""
    m = max(1.0, expr.mean)
    if t.stats["dr"] or t.stats["resist"]:
        m = max(0.0, float(C.reduce_damage(t, round(m), types)))
    return m


def _kill(p: float, t: "Unit", expr, mean: float) -> float:
    """Rough chance the attack takes t out: the chance to hit times the share of the damage range that reaches its
    hit points (damage spread evenly between the minimum and the maximum)."""
    lo, hi = max(1, expr.minimum), max(1, expr.maximum)
    if hi < t.hp:
        return 0.0
    if lo >= t.hp:
        return p
    return p * (hi - t.hp + 1) / (hi - lo + 1)


def weapon_attack(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", t: "Unit", n, why: str, bonus: int = 0,
                  attacks: int = 1) -> Estimate:
    """The estimate of `attacks` attack rolls of a on t with weapon n."""
    ab, ac, dname, notes, _ = rs.attack_numbers(enc, a, t, n, why, bonus=bonus)
    p, pc = p_hit(ab, ac), p_crit(ab, ac)
    miss = K.effect(a.state, "miss") / 100 if a.state["conds"] else 0.0
    p, pc = p * (1 - miss), pc * (1 - miss)
    expr = C.damage_expr(a, n)
    w = C.weapon(a, n)
    mean = _mean(expr, t, w["type"])
    return Estimate(hit_chance=p, expected_damage=attacks * (p + pc) * mean,
                    kill_chance=1 - (1 - _kill(p, t, expr, mean)) ** attacks,
                    notes=[f"{ab:+d} vs {dname} {ac}"] + notes)


def estimate(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", d: Decision) -> Estimate:
    action = d.action
    t = enc.units[d.target] if d.target is not None and 0 <= d.target < len(enc.units) else None
    if t is not None and t.side != a.side and not t.down:
        if action in ("melee_attack", "next_melee", "charge", "full_attack_melee"):
            n = rs.attack_weapon(a)
            return weapon_attack(rs, enc, a, t, n, "melee attack", bonus=-2 if action == "charge" else
                                 (-4 if action == "full_attack_melee" else 0),
                                 attacks=2 if action == "full_attack_melee" else 1)
        if action in ("ranged_attack", "next_ranged", "full_attack_ranged"):
            n = rs.ranged_weapon(a)
            return weapon_attack(rs, enc, a, t, n, "ranged attack", bonus=-4 if action == "full_attack_ranged" else 0,
                                 attacks=2 if action == "full_attack_ranged" else 1)
        if action == "throw":
            return weapon_attack(rs, enc, a, t, rs._held(a, "thrown"), "thrown attack")
        if action == "harrying_fire":
            ab, ac, *_ = rs.attack_numbers(enc, a, t, rs.ranged_weapon(a), "harrying fire", fixed_ac=15)
            return Estimate(hit_chance=p_hit(ab, ac), notes=["+2 to the next ally's attack"])
        if action in MANEUVER_KEYS:
            _, n = rs.maneuver_weapon(enc, a, t)
            kind = "dirty_trick" if action.startswith("dirty_trick") else action
            bonus = 2 if kind in C.weapon(a, n)["maneuvers"] else 0   # a weapon made for this maneuver
            ab, ac, *_ = rs.attack_numbers(enc, a, t, n, action, bonus=bonus, plus=KAC_PLUS, maneuver=True)
            return Estimate(hit_chance=p_hit(ab, ac), notes=[f"{ab:+d} vs KAC + 8 = {ac}"])
        if action == "feint":
            dc = max(10 + t.stats["sense_motive"], 15 + int(1.5 * t.stats["cr"]))
            return Estimate(hit_chance=min(1.0, max(0.0, (21 - (dc - a.stats["bluff"])) / 20)),
                            notes=[f"Bluff {a.stats['bluff']:+d} vs DC {dc}"])
        if action == "pick_target":
            p = enc.flags.get("pending") or {}
            if p.get("kind") == "ability":
                return ability_on(rs, enc, a, a.stats[p["book"]][p["index"]], t)
    if action == "covering_fire" and t is not None:
        ab, ac, *_ = rs.attack_numbers(enc, a, t, rs.ranged_weapon(a), "covering fire", fixed_ac=15)
        return Estimate(hit_chance=p_hit(ab, ac), notes=["+2 AC for the ally"])
    if action == "explode_attack" and d.square is not None:
        n = rs.explode_weapon(a)
        if n is not None:
            return blast_estimate(rs, enc, a, n, d.square)
    return Estimate()


def blast_estimate(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", n: int, point) -> Estimate:
    """A grenade at an intersection: the chance to hit AC 5 times the blast's expected damage to foes there (allies
    caught count against it); a miss is taken to land elsewhere."""
    w = a.stats["weapons"][n]
    ab = C.weapon_bonus(a, n) + (K.effect(a.state, "attack") if a.state["conds"] else 0)
    ab += C.range_penalty(w, A.point_distance(a.pos, point) * C.FEET) or 0
    p = p_hit(ab, 5)
    squares = A.blast(enc.grid, point, w["explode"])
    expr = C.dice(w["damage"])
    dc = C.special_dc(a, n)
    total, allies, kill = 0.0, 0, 0.0
    for u in enc.units:
        if u.down or u.pos not in squares:
            continue
        ok = p_save(C.save_bonus(u, "ref"), dc)
        dmg = (1 - ok / 2) * _mean(expr, u, w["type"])
        if u.side == a.side:
            total -= dmg
            allies += 1
        else:
            total += dmg
            kill = max(kill, _kill(p * (1 - ok), u, expr, dmg))
    notes = [f"{ab:+d} vs AC 5"] + ([f"catches {allies} of {a.name}'s side"] if allies else [])
    return Estimate(hit_chance=p, expected_damage=p * total, kill_chance=kill, notes=notes)


def ability_on(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", ab: dict, t: "Unit") -> Estimate:
    if "mind" in ab["tags"] and "mind" in t.stats["immune"]:
        return Estimate(notes=["immune (mind-affecting)"])
    p = 1.0
    if ab["attack"] != "none":
        bonus, ac, *_ = rs.attack_numbers(enc, a, t, spell_weapon(ab), ab["name"], energy=ab["attack"] == "eac")
        p = p_hit(bonus, ac)
    saved = p_save(C.save_bonus(t, ab["save"]), ab["dc"]) if ab["save"] != "none" else 0.0
    dmg = 0.0
    if ab["damage"]:
        share = (1 - saved / 2) if ab["on_save"] == "half" else (1 - saved)
        dmg = p * share * _mean(C.dice(ab["damage"]), t, ab["type"])
    return Estimate(hit_chance=p * (1 - saved if ab["on_save"] == "negates" else 1), expected_damage=dmg)


class _Profile:
    """A unit's combat numbers, worked out once per state of the unit (`profile`) and shared by every unit in that
    state wherever it stands: its attacks (weapon, bonus, reach, damage) and its Armor Class against each kind of
    attack."""

    __slots__ = ("stats", "down", "m", "m_feet", "m_bonus", "m_energy", "m_mean", "m_types", "r", "r_w",
                 "r_bonus", "r_energy", "r_mean", "miss", "ac")

    def __init__(self, rs: "StarfinderRuleset", enc: "Encounter", u: "Unit"):
        self.stats, self.down = u.stats, u.down
        s = u.state
        conds = s["conds"]
        att = K.effect(s, "attack") if conds else 0
        self.miss = 1 - K.effect(s, "miss") / 100 if conds else 1.0
        m = self.m = rs.attack_weapon(u)
        if m is not None:
            w = u.stats["weapons"][m]
            self.m_feet = reach_feet(u, m)
            self.m_bonus = C.weapon_bonus(u, m) + att + (K.effect(s, "melee") if conds else 0)
            self.m_energy = C.is_energy(w["type"])
            self.m_mean = C.damage_expr(u, m).mean
            self.m_types = w["type"]
        r = self.r = rs.ranged_weapon(u)
        if r is not None:
            w = self.r_w = u.stats["weapons"][r]
            self.r_bonus = C.weapon_bonus(u, r) + att
            self.r_energy = C.is_energy(w["type"])
            self.r_mean = C.dice(w["damage"]).mean - (2 if "sickened" in conds else 0) - 2 * C.broken(u, r)
        # (energy, melee) -> AC, as `combat.armor_class` works it out
        st = u.stats
        base = 0
        if conds:
            base += K.effect(s, "ac") - 2 * K.has(s, "flat")
        base += s["defense"] - 2 * s["charged"]
        melee_ac = K.effect(s, "melee_ac") if conds else 0
        ranged_ac = K.effect(s, "ranged_ac") if conds else 0
        self.ac = {(True, True): st["eac"] + base + melee_ac, (True, False): st["eac"] + base + ranged_ac,
                   (False, True): st["kac"] + base + melee_ac, (False, False): st["kac"] + base + ranged_ac}


_PROFILES: dict[tuple, _Profile] = {}   # by `_key`
_BY_RAW: dict[tuple, _Profile] = {}     # by `_raw`, the same profiles
_FEATURES: dict[tuple, list[float]] = {}


def _raw(u: "Unit") -> tuple:
    """Everything a unit's `_Profile` reads, as it stands: the stat block (kept alive by the profile), whether it is
    down, its conditions, the weapons in hand and lost, what they have left, their damage, its stance."""
    s = u.state
    return (id(u.stats), u.down, tuple(s["conds"]), tuple(s["wield"]), tuple(s["lost"]), tuple(s["ammo"]),
            tuple(s["weapon_damage"]), s["defense"], s["charged"])


def _key(u: "Unit", raw: tuple) -> tuple:
    """`_raw` with the ammunition read as the profile reads it (which weapons can fire), so that units differing
    only in shots left share a profile."""
    ws = u.stats["weapons"]
    return raw[:5] + (tuple([x == -1 or x >= ws[n]["usage"] for n, x in enumerate(raw[5])]),) + raw[6:]


def profile(rs: "StarfinderRuleset", enc: "Encounter", u: "Unit", raw: tuple | None = None) -> _Profile:
    """The unit's `_Profile`, shared by every unit in the same state (`_key`); `raw`: its `_raw`, if known."""
    if raw is None:
        raw = _raw(u)
    got = _BY_RAW.get(raw)
    if got is None or got.stats is not u.stats:
        if len(_BY_RAW) > 20_000:
            _BY_RAW.clear()
            _PROFILES.clear()
        key = _key(u, raw)
        got = _PROFILES.get(key)
        if got is None or got.stats is not u.stats:
            got = _PROFILES[key] = _Profile(rs, enc, u)
        _BY_RAW[raw] = got
    return got


def features(rs: "StarfinderRuleset", enc: "Encounter", u: "Unit", raw: tuple | None = None) -> list[float]:
    """`unit_features`, shared by every unit in the same state; `raw`: its `_raw`, if known."""
    s = u.state
    key = (raw or _raw(u), s["sp"], s["reaction"], s["acted"], s["total_defense"])
    got = _FEATURES.get(key)
    if got is None:
        if len(_FEATURES) > 20_000:
            _FEATURES.clear()
        got = _FEATURES[key] = unit_features(rs, enc, u)
    return got


def _damage(mean: float, t: _Profile, types: str) -> float:
    """Mean damage of a hit (at least 1) after the target's damage reduction and resistance, split between the
    attack's damage types as `combat.reduce_damage` splits it."""
    st = t.stats
    if st["dr"] or st["resist"]:
        kinds = types.split(" & ")
        share = max(1.0, mean) / len(kinds)
        return sum(max(0.0, share - (st["resist"].get(k, 0) if k in ENERGY else st["dr"])) for k in kinds)
    return max(1.0, mean)


_RANGE_PENS: dict[tuple[int, int], tuple] = {}   # by (range, increments): `_Pair.r_pens`


class _Pair:
    """What one attacker's profile can do to one target's profile, wherever they stand (`strikes`): its melee blow
    (reach, hit chance, expected damage), its weapon's range penalty by distance, and its shots by penalty and cover
    (worked out as they are asked for)."""

    __slots__ = ("a", "t", "m_feet", "mp", "md", "r_pens", "r_by")

    def __init__(self, a: _Profile, t: _Profile):
        self.a, self.t = a, t
        self.m_feet = 0
        self.mp = self.md = 0.0
        if a.m is not None and a.m_feet > 0:
            ac = t.ac[(a.m_energy, True)]
            self.m_feet = a.m_feet
            self.mp = p_hit(a.m_bonus, ac) * a.miss
            self.md = (self.mp + p_crit(a.m_bonus, ac) * a.miss) * _damage(a.m_mean, t, a.m_types)
        self.r_pens = None
        self.r_by: dict = {}
        if a.r is not None:
            w = a.r_w
            key = (w["range"], w["increments"])
            pens = _RANGE_PENS.get(key)
            if pens is None:
                top = w["range"] * max(1, w["increments"]) // C.FEET + 2
                pens = _RANGE_PENS[key] = tuple(C.range_penalty(w, d * C.FEET) for d in range(top))
            self.r_pens = pens

    def shot(self, pen: int, cover: str) -> tuple[float, float]:
        """(hit chance, expected damage) of a shot at this range penalty and cover."""
        got = self.r_by.get((pen, cover))
        if got is None:
            a, t = self.a, self.t
            ab = a.r_bonus + pen
            ac = t.ac[(a.r_energy, False)] + C.COVER_AC[cover]
            rp = p_hit(ab, ac) * a.miss
            got = self.r_by[(pen, cover)] = (rp, (rp + p_crit(ab, ac) * a.miss) * _damage(a.r_mean, t, a.r_w["type"]))
        return got


_PAIRS: dict[tuple, _Pair] = {}
_NOTHING = (0.0, 0.0, 0.0, 0.0)


def pair(a: _Profile, t: _Profile) -> _Pair:
    """The `_Pair` of two profiles, made once."""
    pp = _PAIRS.get((a, t))
    if pp is None:
        if len(_PAIRS) > 50_000:
            _PAIRS.clear()
        pp = _PAIRS[(a, t)] = _Pair(a, t)
    return pp


def strikes(enc: "Encounter", a: _Profile, t: _Profile, apos, tpos) -> tuple[float, float, float, float]:
    """a's best melee and ranged single attacks on t, a standing at apos and t at tpos: (melee hit chance, melee
    expected damage, ranged hit chance, ranged expected damage), 0 where none reaches."""
    if a.down or t.down:
        return _NOTHING
    pp = pair(a, t)
    g = enc.grid
    mp = md = rp = rd = 0.0
    if pp.m_feet and within_reach(g, apos, tpos, pp.m_feet):
        mp, md = pp.mp, pp.md
    pens = pp.r_pens
    if pens is not None:
        d = g.distance(apos, tpos)
        pen = pens[d] if d < len(pens) else None
        if pen is not None:
            w = g.width
            los, loe, cover = g.sight(apos[1] * w + apos[0], tpos[1] * w + tpos[0])
            if los and loe:
                rp, rd = pp.shot(pen, cover)
    return mp, md, rp, rd


def _pair(enc: "Encounter", a: _Profile, apos, t: _Profile, tpos) -> tuple[float, float]:
    """The best single attack of a (at apos) on t (at tpos): (hit chance, expected damage)."""
    mp, md, rp, rd = strikes(enc, a, t, apos, tpos)
    return (rp, rd) if rd > md else (mp, md)


def threat_estimate(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", t: "Unit") -> tuple[float, float]:
    """The best single attack a has on t from where it stands: (hit chance, expected damage), for the observation.
    A lean reading of the attack roll: the weapon's bonus and a's conditions against t's EAC or KAC with its
    conditions and stance, the range penalty and terrain cover; flanking, soft cover and one-use bonuses (covering
    or harrying fire, a feint) are left to `estimate`."""
    return _pair(enc, profile(rs, enc, a), a.pos, profile(rs, enc, t), t.pos)


def observation_parts(rs: "StarfinderRuleset", enc: "Encounter", actor: "Unit", units: list["Unit"]) -> list:
    """Per unit its features and, for an active foe of the actor, the threat both ways (the observation's
    `observation_parts`), each unit worked out once."""
    me = profile(rs, enc, actor)
    here = actor.pos
    side = actor.side
    out = []
    for u in units:
        raw = _raw(u)
        if u.side != side and not u.down:
            p = profile(rs, enc, u, raw)
            pos = u.pos
            mp, md, rp, rd = strikes(enc, me, p, here, pos)
            tm, tmd, tr, trd = strikes(enc, p, me, pos, here)
            out.append((features(rs, enc, u, raw), ((rp, rd) if rd > md else (mp, md)) +
                        ((tr, trd) if trd > tmd else (tm, tmd))))
        else:
            out.append((features(rs, enc, u, raw), None))
    return out


def unit_features(rs: "StarfinderRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """Stamina left (share of maximum), prone, flat-footed, grappled or pinned, the attack penalty of its conditions
    (/4), its AC stance (/4), whether it can take an attack of opportunity now, a ranged weapon ready."""
    s = u.state
    sp = u.stats["sp"]
    return [s["sp"] / sp if sp else 0.0, float("prone" in s["conds"]), float(K.has(s, "flat")),
            float("grappled" in s["conds"] or "pinned" in s["conds"]), -K.effect(s, "attack") / 4,
            s["defense"] / 4, float(rs.can_aoo(enc, u)), float(rs.ranged_weapon(u) is not None)]
