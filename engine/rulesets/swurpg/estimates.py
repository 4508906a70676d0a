"""SWURPG estimates without rolling: hit chances with advantage, expected damage by type, saves, areas; the
observation's unit features.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.decision import Decision
from engine.core.ruleset import Estimate
from engine.core.tactics import kill_guess

from . import combat as C
from . import conditions as K

if TYPE_CHECKING:
    from engine.core.state import Encounter
    from engine.core.units import Unit

    from .ruleset import SwurpgRuleset

N_FEATURES = 12
MAX_TURNS_STUNNED = 3.0  # at most this many of a stunned foe's turns are counted as lost
_ATTACKS = ("attack", "unarmed", "off_hand")


def p_hit(need: int, adv: int, dis: int) -> float:
    """Chance that the d20 roll meets `need` (a natural 1 misses, a 20 hits), with advantage or disadvantage."""
    p = min(19, max(1, 21 - need)) / 20
    if adv and not dis:
        return 1 - (1 - p) ** 2
    if dis and not adv:
        return p * p
    return p


def p_fail(u: "Unit", ability: str, dc: int) -> float:
    """Chance that u fails a save against dc."""
    s = u.state
    if ability in ("str", "dex") and s["conds"] and K.has(s, "fail_phys"):
        return 1.0
    ok = min(20, max(0, 21 - (dc - C.save_bonus(u, ability)))) / 20
    return 1 - ok


def strike(rs: "SwurpgRuleset", enc: "Encounter", a: "Unit", t: "Unit", n: int | None, melee: bool,
           off_hand: bool = False) -> Estimate:
    """A's attack with weapon n (None: unarmed) on t: hit chance, expected damage after t's resistances (critical
    hits included), kill chance."""
    w = C.weapon(a, n)
    sit, cover = C.situational(enc, a, t, melee)
    adv, dis, _ = C.attack_mods(enc, a, t, w, melee)
    need = C.armor_class(t) + cover - C.attack_bonus(a, n) - sit
    p = p_hit(need, adv, dis)
    pc = p_hit(20, adv, dis)
    if melee and C.adjacent(a.pos, t.pos) and t.state["conds"] and K.has(t.state, "melee_crit"):
        pc = p
    if w["stun_dc"]:  # no damage: worth the damage the foe does not deal while stunned
        if t.hp <= 0 or t.state["conds"] and K.has(t.state, "no_act"):
            return Estimate(p, 0.0, 0.0)
        fail = p_fail(t, "con", w["stun_dc"] + a.stats["prof"])
        turns = min(MAX_TURNS_STUNNED, 1.0 / max(1e-9, 1.0 - fail))  # it saves at the end of each of its turns
        return Estimate(p, p * fail * turns * _lethal_threat(rs, enc, t, a), 0.0)
    expr = C.dice(w["damage"])
    dice_mean = expr.count * (expr.sides + 1) / 2
    bonus = C.damage_bonus(a, n, off_hand) + expr.bonus
    hit_mean = C.reduce_damage(t, round(dice_mean + bonus), w["type"])
    crit_mean = C.reduce_damage(t, round(2 * dice_mean + bonus), w["type"])
    dmg = (p - pc) * hit_mean + pc * crit_mean
    if t.hp <= 0:  # a dying foe is out of the fight already: a hit adds failed death saves, no damage
        return Estimate(p, 0.0, 0.0)
    kill = kill_guess(p, dmg, t.hp + t.state["temp_hp"])
    return Estimate(p, min(dmg, p * (t.hp + t.state["temp_hp"]) + 1e-9), kill)


def _lethal_threat(rs: "SwurpgRuleset", enc: "Encounter", t: "Unit", a: "Unit") -> float:
    """T's best expected damage in one attack on a with a weapon that deals damage (or unarmed), wherever they stand:
    what one of t's turns is worth to a's side."""
    best = strike(rs, enc, t, a, None, True).expected_damage
    for n, w in enumerate(t.stats["weapons"]):
        if not w["stun_dc"] and w["kind"] in ("melee", "ranged"):
            best = max(best, strike(rs, enc, t, a, n, w["kind"] == "melee").expected_damage)
    return best


def area(rs: "SwurpgRuleset", enc: "Encounter", a: "Unit", targets: list["Unit"], w: dict, dc: float) -> Estimate:
    """Expected damage of an area (each creature saves with Dex against dc: half on a success): foes' damage counts
    for, allies' against."""
    expr = C.dice(w["damage"])
    mean = expr.mean + w["bonus_damage"]
    total, kill = 0.0, 0.0
    for t in targets:
        if t.down:
            continue
        f = p_fail(t, "dex", round(dc))
        got = C.reduce_damage(t, round(mean), w["type"])
        dmg = min(t.hp + t.state["temp_hp"], f * got + (1 - f) * (got // 2))
        sign = 1 if t.side != a.side else -1.5
        total += sign * dmg
        if sign > 0:
            kill += kill_guess(1.0, dmg, t.hp + t.state["temp_hp"])
    return Estimate(1.0, total, min(1.0, kill))


def estimate(rs: "SwurpgRuleset", enc: "Encounter", a: "Unit", d: Decision) -> Estimate:
    key = d.action
    if key in _ATTACKS:
        t = enc.units[d.target]
        if key == "unarmed":
            return strike(rs, enc, a, t, None, True)
        n = rs.main_weapon(a) if key == "attack" else a.state["wield"][1]
        how = rs.can_hit(enc, a, t, n)
        return strike(rs, enc, a, t, n, how == "melee", key == "off_hand") if how else Estimate()
    if key == "autofire":
        n = rs.main_weapon(a)
        w = a.stats["weapons"][n]
        braced = "prone" in a.state["conds"] or not a.state["moved"]
        dc = 10.5 + C.attack_bonus(a, n) - (2 if braced else 5)
        squares = set(C.autofire_area(d.square))
        return area(rs, enc, a, [u for u in enc.units if u.pos in squares and u is not a], w, dc)
    if key == "grenade":
        w = a.stats["weapons"][rs.grenade(a)]
        return area(rs, enc, a, rs.area_targets(enc, a, w, d.square), w, w["dc"])
    if key == "medpac":
        t = enc.units[d.target]
        need = t.max_hp - t.hp
        worth = min(need, 7) * (3.0 if t.hp <= 0 else 0.5)
        return Estimate(1.0, worth, 0.0)
    if key == "stabilize":
        t = enc.units[d.target]
        p = max(0.05, min(0.95, (21 - (25 - C.skill_bonus(a, "treat_injury", "wis"))) / 20))
        return Estimate(p, p * 2.0, 0.0)
    return Estimate()


def threat_estimate(rs: "SwurpgRuleset", enc: "Encounter", a: "Unit", t: "Unit") -> tuple[float, float]:
    """(hit chance, expected damage) of a's best single attack on t from where it stands: its main weapon, else an
    unarmed strike within 5 ft."""
    if a.down or t.down or a.state["conds"] and K.has(a.state, "no_act"):
        return 0.0, 0.0
    best = (0.0, 0.0)
    n = rs.main_weapon(a)
    how = rs.can_hit(enc, a, t, n)
    if how:
        e = strike(rs, enc, a, t, n, how == "melee")
        best = (e.hit_chance, e.expected_damage)
    if best[1] <= 0 and C.adjacent(a.pos, t.pos):
        e = strike(rs, enc, a, t, None, True)
        best = (e.hit_chance, e.expected_damage)
    return best


def unit_features(rs: "SwurpgRuleset", enc: "Encounter", u: "Unit") -> list[float]:
    """AC, temporary HP, prone, dodging, incapacitated, disadvantaged, frightened, grappled, bleeding or burning,
    its reaction, grenades or autofire to hand, death saves failed."""
    s = u.state
    conds = s["conds"]
    n = rs.main_weapon(u)
    w = C.weapon(u, n)
    return [
        (C.armor_class(u) - 14) / 6, s["temp_hp"] / rs.hp_scale, float("prone" in conds), float(s["dodging"]),
        float(bool(conds) and K.has(s, "no_act")), float(bool(conds) and K.has(s, "dis_attack")),
        float("frightened" in conds), float("grappled" in conds),
        float("bleeding" in conds or "burning" in conds), float(s["reaction"]),
        float(w["autofire"] or rs.grenade(u) is not None), s["death"][1] / 3,
    ]
