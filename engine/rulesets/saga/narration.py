"""Saga's sentences: the events of Saga's rules (the condition track, aim, grapples, coups de grace, ...)
and the verbs of its attacks. Reached through `SagaRuleset.narrate` and `SagaRuleset.attack_words`; the core
narrates the rest (engine/core/narration.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.events import Event
from engine.core.narration import hit_points, name, pronoun, square

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

# attack kinds (the attack event's `why`) whose sentence names no weapon
_TRIES = {"aid another": "aids an attack against", "suppression": "tries to suppress", "grab": "tries to grab",
          "grapple": "tries to grapple", "disarm": "tries to disarm"}


def attack_verb(e: Event, enc: "Encounter", rs: "Ruleset") -> str:
    """The words between attacker and target: 'fires their blaster rifle at', 'charges in and strikes at'."""
    why = str(e.get("why", "attack"))
    if why in _TRIES:
        return _TRIES[why]
    weapon = e.get("weapon")
    its = pronoun(enc, e.actor, rs)
    armed = bool(weapon) and weapon != "unarmed"
    if why == "ranged attack":
        return f"fires {its} {weapon} at" if armed else "shoots at"
    with_w = f" with {its} {weapon}" if armed else (" unarmed" if weapon else "")
    if why == "melee attack":
        return f"strikes{with_w} at"
    if why == "charge":
        return f"charges in and strikes{with_w} at"
    if why == "attack of opportunity":
        return f"takes an attack of opportunity{with_w} on"
    return f"makes a {why}{with_w} on"


def narrate(e: Event, enc: "Encounter", rs: "Ruleset") -> str | None:
    """The sentence for one of Saga's own event kinds, or None for the kinds the core narrates."""
    k = e.kind
    a, t = name(enc, e.actor), name(enc, e.target)

    def its(uid: int | None = e.actor) -> str:
        return pronoun(enc, uid, rs)

    if k == "condition":
        why, pen = e.get("why"), e.get("penalty")
        who = t if e.target is not None else a
        if why == "recover":
            return f"{who} recovers one step on the condition track (now {pen})"
        return f"{who} moves to step {e.get('step')} of the condition track ({pen})" + (f": {why}" if why else "")
    if k == "aim":
        return f"{a} aims (2 swift actions)"
    if k == "aided":
        return f"{a}'s allies get +{e.get('bonus')} on their next attack against {t}"
    if k == "suppressed":
        return f"{t} is suppressed: {e.get('penalty')} on {its(e.target)} next attack"
    if k == "defensive":
        if e.get("no_attacks"):
            return f"{a} fights defensively, making no attacks: +{e.get('bonus')} Reflex"
        return f"{a} fights defensively: -5 on attacks, +{e.get('bonus')} Reflex"
    if k == "draw":
        return f"{a} draws {its()} {e.get('weapon')}"
    if k == "holster":
        return f"{a} holsters {its()} {e.get('weapon')}"
    if k == "drop":
        return f"{a} drops {its()} {e.get('weapon')} at {square(e.get('square'))}"
    if k == "pick_up":
        return f"{a} picks up {its()} {e.get('weapon')}"
    if k == "disarmed":
        return f"{a} disarms {t}: the {e.get('weapon')} falls"
    if k == "free_attack":
        return f"{a} gets a free attack on {t} ({e.get('why')})"
    if k == "full_attack":
        return f"{a} makes a full attack on {t}: {e.get('attacks')} attacks at {e.get('penalty'):+d}"
    if k == "prone":
        who = t if e.target is not None else a
        return f"{who} drops prone" if e.get("why") == "drops prone" else f"{who} is knocked prone ({e.get('why')})"
    if k == "stand":
        return f"{a} stands up"
    if k == "check":
        res = "success" if e.get("success") else "failure"
        return f"{a} makes a {e.get('skill')} check: {e.get('total')} (d20 {e.get('face')}) vs DC {e.get('dc')}, {res}"
    if k == "grabbed":
        return f"{a} grabs {t}: {t} cannot move and takes -2 on attacks"
    if k == "grab_broken":
        return f"{a} breaks free of {t}"
    if k == "pinned":
        return f"{a} pins {t}"
    if k == "pin_ends":
        return f"{a} lets go of the pin on {t}"
    if k == "grapple_check":
        res = "wins" if e.get("won") else "loses"
        return f"grapple check: {a} {e.get('mine')} vs {t} {e.get('theirs')}, {a} {res}"
    if k == "heal":
        why = f" ({e.get('why')})" if e.get("why") else ""
        return f"{t} regains {e.get('amount')} HP{why} ({hit_points(enc, e.target)})"
    if k == "recover_progress":
        return f"{a} works to recover ({e.get('done')}/{e.get('of')} swift actions)"
    if k == "mode":
        return f"{a} switches {its()} {e.get('weapon')} to {e.get('mode')}"
    if k == "item":
        return f"{a} {'activates' if e.get('active') else 'deactivates'} {its()} {e.get('item')}"
    if k == "attack_object":
        res = "hit" if e.get("hit") else "miss"
        return (f"{a} attacks the {e.get('object')} at {square(e.get('square'))}: {e.get('total')} "
                f"(d20 {e.get('face')}) vs {e.get('defense')}, {res}")
    if k == "object_damage":
        return f"the {e.get('object')} takes {e.get('amount')} damage ({e.get('hp')} HP left)"
    if k == "object_broken":
        return f"the {e.get('object')} is {'destroyed' if e.get('destroyed') else 'broken'}"
    if k == "coup_de_grace":
        return f"{a} delivers a coup de grace to {t}: {e.get('amount')} damage"
    return None
