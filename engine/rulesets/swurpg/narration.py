"""SWURPG's sentences: the events of its rules (areas and saves, death saves, conditions, grapples, medpacs, Dash,
Disengage, Dodge, Help) and the verbs of its attacks. Reached through `SwurpgRuleset.narrate` and `attack_words`; the
core narrates the rest (engine/core/narration.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.events import Event
from engine.core.narration import hit_points, name, pronoun, square

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

_PLAIN = {"dash": "dashes ({feet} ft of movement now)", "disengage": "disengages", "dodge": "takes the Dodge action",
          "stands": "stands up"}


def attack_verb(e: Event, enc: "Encounter", rs: "Ruleset") -> str:
    """The words between attacker and target: 'fires her blaster pistol at', 'slashes with his vibroblade at'."""
    why = str(e.get("why", "attack"))
    its = pronoun(enc, e.actor, rs)
    weapon = e.get("weapon")
    if why == "shot":
        return f"fires {its} {weapon} at"
    if why == "throw":
        return f"throws {its} {weapon} at"
    if why == "off-hand attack":
        return f"strikes with the {weapon} in {its} off hand at"
    if why == "opportunity attack":
        return f"takes an opportunity attack with {its} {weapon} on" if weapon != "unarmed strike" else \
            "takes an unarmed opportunity attack on"
    if why == "unarmed strike":
        return "throws a punch at"
    return f"strikes with {its} {weapon} at"


def narrate(rs: "Ruleset", e: Event, enc: "Encounter") -> str | None:
    k = e.kind
    a, t = name(enc, e.actor), name(enc, e.target)
    if k in _PLAIN:
        return f"{a} " + _PLAIN[k].format(**e.data)
    if k == "damage":
        temp = f", {e.get('temp')} from temporary HP" if e.get("temp") else ""
        rolled = e.get("rolled")
        note = f" ({rolled} rolled)" if rolled is not None and rolled != e.get("amount") else ""
        return f"{t} takes {e.get('amount')} {e.get('type')} damage{note}{temp} ({hit_points(enc, e.target)})"
    if k == "save":
        if e.get("auto"):
            return f"{t} automatically fails the {e.get('ability', '').upper()} save {e.get('why')}"
        return (f"{t} rolls a {e.get('ability', '').upper()} save {e.get('why')}: {e.get('total')} "
                f"({e.get('face')}{e.get('bonus'):+d}) vs DC {e.get('dc')}, {'success' if e.get('ok') else 'failure'}")
    if k == "area_damage":
        return f"the {e.get('weapon')}'s {e.get('why')} deals {e.get('amount')} damage (half on a save)"
    if k == "autofire":
        braced = "braced, -2" if e.get("braced") else "-5"
        return (f"{a} sprays the 2x2 area at {square(e.get('square'))} with {pronoun(enc, e.actor, rs)} "
                f"{e.get('weapon')}: {e.get('total')} ({e.get('face')}, {braced}); Dex saves against it")
    if k == "grenade":
        shape = e.get("shape", "burst")
        if shape == "burst":
            return f"{a} throws a {e.get('weapon')} at {square(e.get('square'))}: Dex saves DC {e.get('dc')} in the blast"
        return (f"{a} sweeps a {shape} of {pronoun(enc, e.actor, rs)} {e.get('weapon')} towards "
                f"{square(e.get('square'))}: Dex saves DC {e.get('dc')}")
    if k == "down":
        return f"{t} drops to 0 HP and falls unconscious"
    if k == "dies":
        return f"{t} dies ({e.get('why')})"
    if k == "death_save":
        if e.get("face") == 20:
            return f"{t} rolls a natural 20 on the death save and regains 1 HP"
        return (f"{t} rolls a death save: {e.get('face')}, {'success' if e.get('ok') else 'failure'} "
                f"({e.get('successes')} successes, {e.get('failures')} failures)")
    if k == "death_failure":
        return f"{t} is hit at 0 HP: {e.get('failures')} failed death saves"
    if k == "stable":
        return f"{t} is stable"
    if k == "wakes":
        return f"{t} regains consciousness"
    if k == "healed":
        return f"{t} regains {e.get('amount')} HP ({e.get('why')}; {hit_points(enc, e.target)})"
    if k == "medpac":
        return f"{a} applies a medpac to {t}"
    if k == "condition":
        why = e.get("why")
        if e.actor == e.target:
            return f"{a} {why}" if why == "drops prone" else f"{t} is {e.get('condition')}"
        return f"{t} is {e.get('condition')}" + (f" ({why})" if why else "")
    if k == "condition_ends":
        return f"{t} is no longer {e.get('condition')}"
    if k in ("burning", "bleeding"):
        return f"{t} is {k}: {e.get('amount')} damage"
    if k == "confusion":
        what = {"attack": "attacks the nearest creature", "wander": "wanders off and takes no Action",
                "normal": "acts normally"}[e.get("what")]
        return f"{t} is confused (d6 {e.get('face')}): {what}"
    if k == "help":
        return f"{a} distracts {t}: the next ally's attack on {t} has advantage"
    if k == "contest":
        return (f"{a} {e.get('what')}s: {e.get('mine')} vs {e.get('theirs')} "
                f"({t}), {'success' if e.get('ok') else 'failure'}")
    if k == "grapple_ends":
        return f"{a} no longer grapples {t} ({e.get('why')})"
    if k == "check":
        return (f"{a} rolls {e.get('skill')} on {t}: {e.get('total')} vs DC {e.get('dc')}, "
                f"{'success' if e.get('ok') else 'failure'}")
    if k in ("draw", "stow", "pick_up"):
        verb = {"draw": "draws", "stow": "puts away", "pick_up": "picks up"}[k]
        return f"{a} {verb} {pronoun(enc, e.actor, rs)} {e.get('weapon')}"
    return None
