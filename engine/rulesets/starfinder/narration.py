"""Starfinder's sentences: the events of its rules (grenades and scatter, saves and checks, conditions, grapples,
covering and harrying fire, feints, abilities, critical effects, ...) and the verbs of its attacks. Reached through
`StarfinderRuleset.narrate` and `attack_words`; the core narrates the rest (engine/core/narration.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.events import Event
from engine.core.narration import hit_points, name, pronoun, square

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

_MANEUVERS = {"bull rush": "tries to bull rush", "dirty trick": "tries a dirty trick on", "disarm": "tries to disarm",
              "grapple": "tries to grapple", "reposition": "tries to reposition", "sunder": "tries to sunder the "
              "weapon of", "trip": "tries to trip", "covering fire": "lays down covering fire for",
              "harrying fire": "lays down harrying fire on"}


def attack_verb(e: Event, enc: "Encounter", rs: "Ruleset") -> str:
    """The words between attacker and target: 'fires her tactical semi-auto pistol at', 'charges'."""
    why = str(e.get("why", "attack"))
    if why in _MANEUVERS:
        return _MANEUVERS[why]
    its = pronoun(enc, e.actor, rs)
    weapon = e.get("weapon")
    with_w = f" with {its} {weapon}" if weapon else ""
    if why == "ranged attack":
        return f"fires {its} {weapon} at"
    if why == "thrown attack":
        return f"throws {its} {weapon} at"
    if why == "melee attack":
        return f"strikes{with_w} at"
    if why == "charge":
        return f"charges{with_w} at"
    if why == "attack of opportunity":
        return f"takes an attack of opportunity{with_w} on"
    return f"casts {weapon} at" if weapon == why else f"makes a {why}{with_w} on"


def _cond(c: str) -> str:
    return c.replace("_", "-") if c in ("off_target", "off_kilter", "flat_footed") else c.replace("_", " ")


def narrate(e: Event, enc: "Encounter", rs: "Ruleset") -> str | None:
    k = e.kind
    a, t = name(enc, e.actor), name(enc, e.target)
    if k == "attack_point":
        result = "critical hit" if e.get("crit") and e.get("hit") else ("hit" if e.get("hit") else "miss")
        notes = e.get("notes") or []
        return (f"{a} throws {pronoun(enc, e.actor, rs)} {e.get('weapon')} at the intersection {square(e.get('point'))}"
                f": {e.get('total')} ({e.get('face')}{e.get('bonus'):+d}) vs AC 5"
                + (f" [{', '.join(notes)}]" if notes else "") + f", {result}")
    if k == "scatter":
        short = " (short, toward the thrower)" if e.get("direction") == 1 else ""
        return (f"it scatters: d8 {e.get('direction')}{short}, d4 {e.get('squares')}: it lands at "
                f"{square(e.get('to'))}")
    if k == "blast":
        who = [enc.units[i].name for i in e.get("caught") or ()]
        return (f"the {e.get('weapon')} bursts at {square(e.get('point'))} ({e.get('radius')} ft): "
                + (", ".join(who) if who else "nobody") + (" caught" if who else " is caught"))
    if k == "save":
        res = "success" if e.get("success") else "failure"
        return (f"{a} rolls a {e.get('save').capitalize()} save against {e.get('why')}: {e.get('total')} "
                f"(d20 {e.get('face')}) vs DC {e.get('dc')}, {res}")
    if k == "check":
        res = "success" if e.get("success") else "failure"
        return f"{a} attempts {e.get('skill')}: {e.get('total')} (d20 {e.get('face')}) vs DC {e.get('dc')}, {res}"
    if k == "condition":
        rounds = e.get("rounds")
        why = e.get("why")
        return (f"{t} is {_cond(e.get('condition'))}" + (f" for {rounds} round{'s' if rounds != 1 else ''}"
                                                         if rounds else "") + (f" ({why})" if why else ""))
    if k == "condition_ends":
        why = e.get("why")
        return f"{t} is no longer {_cond(e.get('condition'))}" + (f" ({why})" if why else "")
    if k in ("grappled", "pinned"):
        return f"{a} {'pins' if k == 'pinned' else 'grapples'} {t}" + (" (renewed)" if e.get("renewed") else "")
    if k == "grapple_ends":
        return f"{a}'s grapple on {t} ends ({e.get('why')})"
    if k == "covered":
        return f"{t} gets +2 AC against the next attack from a creature in {a}'s line of effect"
    if k == "harried":
        return f"the next ally to attack {t} gets +2 (harried by {a})"
    if k == "feinted":
        return f"{a} feints: {t} is flat-footed against {a}'s next attack"
    if k == "defensive":
        if e.get("no_attacks"):
            return f"{a} takes total defense: +{e.get('bonus')} AC, no attacks of opportunity"
        return f"{a} fights defensively: -4 on attacks, +2 AC"
    if k == "ability":
        left = e.get("left")
        return f"{a} {e.get('verb')} {e.get('ability')}" + (f" ({left} left)" if left is not None and left >= 0 else "")
    if k == "spoiled":
        return f"{a}'s {e.get('ability')} is spoiled by the hit and lost"
    if k == "immune":
        return f"{t} is immune to {e.get('ability')} ({e.get('why')})"
    if k == "critical_effect":
        amount = e.get("amount")
        return f"critical effect on {t}: {e.get('effect')}" + (f" {amount}" if amount else "")
    if k == "arc":
        return f"the energy arcs to {t}"
    if k in ("burning", "bleeding"):
        return f"{t} {'burns' if k == 'burning' else 'bleeds'} for {e.get('amount')}"
    if k == "pushed":
        return f"{t} does not move ({e.get('why')})"
    if k == "descends":
        return f"{t} drops 10 ft (now {e.get('altitude')} ft up)"
    if k == "reload":
        return f"{a} reloads {pronoun(enc, e.actor, rs)} {e.get('weapon')}"
    if k == "draw":
        return f"{a} draws {pronoun(enc, e.actor, rs)} {e.get('weapon')}"
    if k == "pick_up":
        return f"{a} picks up {pronoun(enc, e.actor, rs)} {e.get('weapon')}"
    if k == "disarmed":
        return f"{a} disarms {t}: the {e.get('weapon')} " + ("is in {a}'s hand".format(a=a) if e.get("taken")
                                                              else "falls to the ground")
    if k == "object_damage":
        return (f"{t}'s {e.get('object')} takes {e.get('amount')} ({e.get('roll')} - hardness {e.get('hardness')}); "
                f"{e.get('hp')} HP left")
    if k == "object_broken":
        return f"{t}'s {e.get('object')} is {'destroyed' if e.get('destroyed') else 'broken'}"
    if k == "concentrate":
        return f"{a} concentrates on {', '.join(e.get('spells') or ())}"
    if k == "stand":
        return f"{a} stands up"
    if k == "prone":
        return f"{t if e.target is not None else a} " + ("drops prone" if e.get("why") == "drops prone"
                                                           else f"is knocked prone ({e.get('why')})")
    if k == "heal":
        return f"{t} regains {e.get('amount')} HP ({e.get('why')}; {hit_points(enc, e.target)})"
    if k == "coup_de_grace":
        return f"{a} delivers a coup de grace to {t}"
    return None
