"""Starship sentences: shots and their damage on shields and hull, point defense, rams, aid, feints, tractor beams,
jumps. Reached through `StarshipRuleset.narrate` and `attack_words`; the core narrates the rest."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.events import Event
from engine.core.narration import hit_points, name, pronoun

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter


def attack_verb(e: Event, enc: "Encounter", rs: "Ruleset") -> str:
    its = pronoun(enc, e.actor, rs)
    why = e.get("why")
    if why == "point defense":
        return f"fires {its} {e.get('weapon')} (point defense) at"
    if why == "tractor beam":
        return f"locks {its} {e.get('weapon')} on"
    return f"fires {its} {e.get('weapon')} at"


def narrate(rs: "Ruleset", e: Event, enc: "Encounter") -> str | None:
    k = e.kind
    a, t = name(enc, e.actor), name(enc, e.target)
    ok = "success" if e.get("ok") else "failure"
    if k == "damage":
        shields = e.get("shields") or 0
        on = f" ({shields} on the shields)" if shields else ""
        dr = e.get("rolled", 0) - e.get("amount", 0)
        red = f", {dr} stopped by damage reduction" if dr > 0 else ""
        return f"{t} takes {e.get('amount')} damage{on}{red} ({hit_points(enc, e.target)})"
    if k == "down":
        return f"{t} is destroyed"
    if k == "escaped":
        return f"{a} jumps to cruising speed and leaves the battle"
    if k == "jump_started":
        return f"{a} begins a jump to cruising speed (it completes it next turn)"
    if k == "ram":
        return f"{a} tries to ram {t}: Pilot {e.get('total')} vs DC {e.get('dc')}, {ok}"
    if k == "aid":
        return f"{a} harries {t} ({e.get('kind')} aid): {e.get('total')} vs Defense 10, {ok}"
    if k == "aided":
        return f"{t} gains +2 {'on attacks against' if e.get('kind') == 'attack' else 'Defense against'} " \
            f"{name(enc, e.get('foe'))} on its next turn"
    if k == "feint":
        return f"{a} feints against {t}: Bluff {e.get('mine')} vs Sense Motive {e.get('theirs')}, {ok}"
    if k == "grappled":
        return f"{t} is held in {a}'s tractor beam"
    if k == "grapple_ends":
        return f"{a} releases {t} ({e.get('why')})"
    if k == "escape":
        return f"{a} tries to break free of {t}: {e.get('mine')} vs {e.get('theirs')}, {ok}"
    if k == "damage_control":
        return f"{a}'s damage control repairs {e.get('amount')} hull points"
    if k == "sensors":
        return f"{a} locks its sensors on (+2 on its attacks this turn)"
    if k == "total_defense":
        return f"{a} takes evasive action (total defense, +4 Defense)"
    if k == "fight_defensively":
        return f"{a} fights defensively (-4 on its attacks, +2 Defense)"
    if k == "cease_fire":
        return f"{a} ceases fire"
    if k == "damage_roll":
        return None
    return None
