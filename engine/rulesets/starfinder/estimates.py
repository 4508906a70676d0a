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
from .abilities import spell_weapon
from .maneuvers import KAC_PLUS, _KEYS as MANEUVER_KEYS

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
            ab, ac, *_ = rs.attack_numbers(enc, a, t, n, action, plus=KAC_PLUS, maneuver=True)
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


def threat_estimate(rs: "StarfinderRuleset", enc: "Encounter", a: "Unit", t: "Unit") -> tuple[float, float]:
    """The best single attack a has on t from where it stands: (hit chance, expected damage), for the observation.
    A lean reading of the attack roll: the weapon's bonus and a's conditions against t's EAC or KAC with its
    conditions and stance, the range penalty and terrain cover; flanking, soft cover and one-use bonuses (covering
    or harrying fire, a feint) are left to `estimate`."""
    if a.down or t.down:
        return 0.0, 0.0
    s = a.state
    conds = s["conds"]
    att = K.effect(s, "attack") if conds else 0
    miss = 1 - K.effect(s, "miss") / 100 if conds else 1.0
    best_p = best_d = 0.0
    m = rs.attack_weapon(a)
    if m is not None and rs.can_melee(enc, a, t, m):
        w = a.stats["weapons"][m]
        ab = C.weapon_bonus(a, m) + att + (K.effect(s, "melee") if conds else 0)
        ac = C.armor_class(t, C.is_energy(w["type"]), True)[0]
        p = p_hit(ab, ac) * miss
        best_p, best_d = p, (p + p_crit(ab, ac) * miss) * _mean(C.damage_expr(a, m), t, w["type"])
    r = rs.ranged_weapon(a)
    if r is not None and rs.can_shoot(enc, a, t, r):
        g = enc.grid
        w = a.stats["weapons"][r]
        ab = C.weapon_bonus(a, r) + att + (C.range_penalty(w, g.distance(a.pos, t.pos) * C.FEET) or 0)
        ac = C.armor_class(t, C.is_energy(w["type"]), False)[0]
        gw = g.width
        ac += C.COVER_AC[g.sight(a.pos[1] * gw + a.pos[0], t.pos[1] * gw + t.pos[0])[2]]
        p = p_hit(ab, ac) * miss
        d = (p + p_crit(ab, ac) * miss) * _mean(C.dice(w["damage"]), t, w["type"])
        if d > best_d:
            best_p, best_d = p, d
    return best_p, best_d


def unit_features(rs: "StarfinderRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """Stamina left (share of maximum), prone, flat-footed, grappled or pinned, the attack penalty of its conditions
    (/4), its AC stance (/4), whether it can take an attack of opportunity now, a ranged weapon ready."""
    s = u.state
    sp = u.stats["sp"]
    return [s["sp"] / sp if sp else 0.0, float("prone" in s["conds"]), float(K.has(s, "flat")),
            float("grappled" in s["conds"] or "pinned" in s["conds"]), -K.effect(s, "attack") / 4,
            s["defense"] / 4, float(rs.can_aoo(enc, u)), float(rs.ranged_weapon(u) is not None)]
