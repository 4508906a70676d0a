"""Rise sentences: strikes and their results (critical hits, glancing blows), damage through damage resistance, vital
wounds, fatigue, grapples, trips, shoves, charges and readied strikes. Reached through `RiseRuleset.narrate` and
`attack_words`; the core narrates the rest."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.events import Event
from engine.core.narration import hit_points, name, pronoun

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

_RESULT = {"crit": "a critical hit", "hit": "a hit", "glance": "a glancing blow", "miss": "a miss"}


def attack_verb(e: Event, enc: "Encounter", rs: "Ruleset") -> str:
    its = pronoun(enc, e.actor, rs)
    w = e.get("weapon")
    return f"{e.get('why', 'attacks')} with {its} {w}:" if w else f"{e.get('why', 'attacks')}:"


def narrate(rs: "Ruleset", e: Event, enc: "Encounter") -> str | None:
    k = e.kind
    a, t = name(enc, e.actor), name(enc, e.target)
    if k == "attack":
        w = f" with {e.get('weapon')}" if e.get("weapon") else ""
        return (f"{a}'s {e.get('why')}{w} against {t}: {e.get('total')} vs {e.get('defense')}, "
                f"{_RESULT.get(e.get('result'), e.get('result'))}")
    if k == "damage":
        dr = e.get("resisted") or 0
        on = f" ({dr} on damage resistance)" if dr else ""
        return f"{t} takes {e.get('amount')} damage{on} ({hit_points(enc, e.target)})"
    if k == "vital_wound":
        roll = "" if e.get("roll") is None else f", vital roll {e.get('roll')}"
        return f"{t} suffers a vital wound ({e.get('wounds')} in all{roll}): {e.get('result')}"
    if k == "down":
        return f"{t} is {'dead' if e.get('dead') else 'unconscious'}"
    if k == "exertion":
        return (f"{a}'s {e.get('why')} rolls {e.get('was')}: a desperate exertion (two fatigue levels) rerolls it "
                f"with +2 for {e.get('total')}, the higher kept")
    if k == "fatigue":
        return f"{a} gains {e.get('levels')} fatigue level{'s' if e.get('levels') != 1 else ''}"
    if k == "grappled":
        return f"{a} and {t} are grappling{' and ' + a + ' controls it' if e.get('control') else ''}"
    if k == "grapple_ends":
        return f"{a} and {t} are no longer grappling ({e.get('why')})"
    if k == "control_lost":
        return f"{t} loses control of the grapple"
    if k == "maintain":
        return f"{a} maintains the grapple (escape defense {e.get('total')})"
    if k == "condition":
        return f"{t} is {e.get('condition')}"
    if k == "stand":
        return f"{a} stands up"
    if k == "shoved":
        return f"{a} shoves {t} {5 * e.get('squares', 0)} ft"
    if k == "thrown":
        return f"{a} throws {t} {5 * e.get('squares', 0)} ft"
    if k == "avoid":
        return f"{a} steps aside and lets {t} pass"
    if k == "total_defense":
        return f"{a} takes a total defense (+2 to all defenses this round)"
    if k == "recover":
        return f"{a} recovers: {e.get('hp')} hit points and all damage resistance back, conditions gone"
    if k == "ready":
        return f"{a} readies a strike"
    if k == "readied":
        return f"{a}'s readied strike goes off against {t}"
    if k == "sweep":
        return f"{a}'s sweeping blow catches {t}"
    if k == "charge_fails":
        return f"{a}'s charge finds no line to {t}"
    if k == "committed":
        return f"{a} has chosen"
    if k in ("damage_roll", "action"):
        return None
    return None
