"""Narration: events -> rules-language sentences a GM can read out.

Generic over rulesets: every event kind the core knows gets a sentence; a ruleset's `narrate(event, enc)`
hook takes precedence where it returns a string. `narrate_events` also folds an attack and the damage it
deals into one line: "Trooper 2 fires its blaster rifle at Kira: 17 (11+6) vs Reflex 15, hit, 9 damage".
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from .events import Event

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .state import Encounter

# Event kinds that only restate something another event says better.
SILENT = frozenset({"action", "turn_end", "committed", "damage_roll"})


def _name(enc: "Encounter", uid: int | None) -> str:
    if uid is None:
        return "someone"
    try:
        return enc.units[uid].name
    except (IndexError, TypeError):
        return f"unit {uid}"


def _sq(square) -> str:
    if square is None:
        return "?"
    x, y = square
    return f"({x}, {y})"


def _defense_name(ruleset: "Ruleset | None") -> str:
    return getattr(ruleset, "attack_defense", None) or "defense"


def _attack_verb(e: Event) -> str:
    why = str(e.get("why", "attack"))
    weapon = e.get("weapon")
    with_w = f" with its {weapon}" if weapon and weapon != "unarmed" else (" unarmed" if weapon else "")
    if why == "ranged attack":
        return f"fires its {weapon} at" if weapon and weapon != "unarmed" else "shoots at"
    if why == "melee attack":
        return f"strikes{with_w} at"
    if why == "charge":
        return f"charges in and strikes{with_w} at"
    if why == "attack of opportunity":
        return f"takes an attack of opportunity{with_w} on"
    if why in ("aid another", "suppression", "grab", "grapple", "disarm"):
        verb = {"aid another": "aids an attack against", "suppression": "tries to suppress",
                "grab": "tries to grab", "grapple": "tries to grapple", "disarm": "tries to disarm"}[why]
        return verb
    return f"makes a {why}{with_w} on"


def narrate(event: Event, enc: "Encounter", ruleset: "Ruleset | None" = None) -> str | None:
    """One sentence for one event, or None for events that say nothing a GM needs."""
    if ruleset is not None:
        own = ruleset.narrate(event, enc)
        if own is not None:
            return own
    e, k = event, event.kind
    a, t = _name(enc, e.actor), _name(enc, e.target)
    if k in SILENT:
        return None
    if k == "initiative":
        return f"{a} rolls initiative: {e.get('value')}"
    if k == "round_start":
        return f"-- Round {e.get('round')} --"
    if k == "turn_start":
        phase = e.get("phase")
        return f"{a}'s turn" + (f" ({phase} phase)" if phase and phase != "turn" else "")
    if k == "attack":
        return _attack_sentence(e, enc, ruleset, None, None)
    if k == "damage":
        stun = " stun" if e.get("stun") else ""
        return f"{t} takes {e.get('amount')}{stun} damage ({_hp(enc, e.target)})"
    if k == "down":
        how = "killed" if e.get("dead") else "down"
        why = e.get("why")
        return f"{t} is {how}" + (f" ({why})" if why else "")
    if k == "condition":
        why = e.get("why")
        pen = e.get("penalty")
        step = e.get("step")
        who = t if e.target is not None else a
        if why == "recover":
            return f"{who} recovers one step on the condition track (now {pen})"
        return f"{who} moves to step {step} of the condition track ({pen})" + (f": {why}" if why else "")
    if k == "move":
        how = e.get("how", "moves")
        n = e.get("squares")
        return f"{a} {how} from {_sq(e.get('start'))} to {_sq(e.get('end'))}" + (f" ({n} square{'s' if n != 1 else ''})" if n else "")
    if k == "aoo":
        return f"{t} provokes an attack of opportunity from {a} ({e.get('why')})"
    if k == "aoo_declined":
        return f"{a} lets {t} go (no attack of opportunity)"
    if k == "aim":
        return f"{a} aims (2 swift actions)"
    if k == "aided":
        return f"{a}'s allies get +{e.get('bonus')} on their next attack against {t}"
    if k == "suppressed":
        return f"{t} is suppressed: {e.get('penalty')} on its next attack"
    if k == "defensive":
        if e.get("no_attacks"):
            return f"{a} fights defensively, making no attacks: +{e.get('bonus')} Reflex"
        return f"{a} fights defensively: -5 on attacks, +{e.get('bonus')} Reflex"
    if k == "draw":
        return f"{a} draws its {e.get('weapon')}"
    if k == "holster":
        return f"{a} holsters its {e.get('weapon')}"
    if k == "drop":
        return f"{a} drops its {e.get('weapon')} at {_sq(e.get('square'))}"
    if k == "pick_up":
        return f"{a} picks up its {e.get('weapon')}"
    if k == "disarmed":
        return f"{a} disarms {t}: the {e.get('weapon')} falls"
    if k == "free_attack":
        return f"{a} gets a free attack on {t} ({e.get('why')})"
    if k == "full_attack":
        return f"{a} makes a full attack on {t}: {e.get('attacks')} attacks at {e.get('penalty'):+d}"
    if k == "prone":
        return f"{t if e.target is not None else a} " + ("drops prone" if e.get("why") == "drops prone"
                                                           else f"is knocked prone ({e.get('why')})")
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
        return f"{t} regains {e.get('amount')} HP" + (f" ({e.get('why')})" if e.get("why") else "") + \
            f" ({_hp(enc, e.target)})"
    if k == "recover_progress":
        return f"{a} works to recover ({e.get('done')}/{e.get('of')} swift actions)"
    if k == "mode":
        return f"{a} switches its {e.get('weapon')} to {e.get('mode')}"
    if k == "item":
        return f"{a} {'activates' if e.get('active') else 'deactivates'} its {e.get('item')}"
    if k == "door":
        return f"{a} {'opens' if e.get('open') else 'closes'} the door at {_sq(e.get('square'))}"
    if k == "attack_object":
        res = "hit" if e.get("hit") else "miss"
        return (f"{a} attacks the {e.get('object')} at {_sq(e.get('square'))}: {e.get('total')} "
                f"(d20 {e.get('face')}) vs {e.get('defense')}, {res}")
    if k == "object_damage":
        return f"the {e.get('object')} takes {e.get('amount')} damage ({e.get('hp')} HP left)"
    if k == "object_broken":
        return f"the {e.get('object')} is {'destroyed' if e.get('destroyed') else 'broken'}"
    if k == "coup_de_grace":
        return f"{a} delivers a coup de grace to {t}: {e.get('amount')} damage"
    if k == "phase_resolves":
        return f"the {e.get('phase')} phase resolves"
    if k == "victory":
        w = e.get("winner")
        return f"The battle is over in round {e.get('round')}: " + ("a draw" if w == "draw" else f"{w} win")
    if k == "round_limit":
        return f"The round limit ({e.get('rounds')}) is reached: a draw"
    data = ", ".join(f"{key} {val}" for key, val in e.data.items())
    subject = a if e.actor is not None else "the battle"
    return f"{subject}: {k.replace('_', ' ')}" + (f" on {t}" if e.target is not None else "") + \
        (f" ({data})" if data else "")


def _hp(enc: "Encounter", uid: int | None) -> str:
    try:
        u = enc.units[uid]
    except (IndexError, TypeError):
        return "?"
    return f"{u.name} {max(0, u.hp)}/{u.max_hp} HP"


def _attack_sentence(e: Event, enc: "Encounter", ruleset, roll: Event | None, dmg: Event | None) -> str:
    a, t = _name(enc, e.actor), _name(enc, e.target)
    face, bonus, total = e.get("face"), e.get("bonus"), e.get("total")
    roll_txt = f"{total} ({face}{bonus:+d})" if isinstance(bonus, int) else f"{total}"
    defense = e.get("defense")
    why = e.get("why", "attack")
    dname = "Reflex 10" if why in ("aid another", "suppression") and defense == 10 else \
        f"{_defense_name(ruleset)} {defense}"
    result = "hit" if e.get("hit") else "miss"
    if e.get("hit") and face == 20:
        result = "critical hit"
    elif not e.get("hit") and face == 1:
        result = "miss (natural 1)"
    notes = e.get("notes") or []
    note_txt = f" [{', '.join(notes)}]" if notes else ""
    s = f"{a} {_attack_verb(e)} {t}: {roll_txt} vs {dname}{note_txt}, {result}"
    if dmg is not None:
        stun = " stun" if dmg.get("stun") else ""
        s += f", {dmg.get('amount')}{stun} damage"
        if roll is not None and roll.get("faces"):
            faces = "+".join(str(f) for f in roll.get("faces"))
            s += f" ({roll.get('expr')}: {faces}{', doubled' if roll.get('crit') else ''})"
        s += f"; {_hp(enc, dmg.target)}"
    return s


def narrate_events(events: Iterable[Event], enc: "Encounter", ruleset: "Ruleset | None" = None) -> list[str]:
    """Sentences for a batch of events (one decision's worth), folding each attack with its damage."""
    evs = list(events)
    out: list[str] = []
    used: set[int] = set()
    for i, e in enumerate(evs):
        if i in used:
            continue
        own = ruleset.narrate(e, enc) if ruleset is not None else None
        if own is not None:
            out.append(own)
            continue
        if e.kind == "attack":
            roll = dmg = None
            for j in range(i + 1, min(i + 3, len(evs))):
                f = evs[j]
                if f.actor != e.actor or f.target != e.target:
                    break
                if f.kind == "damage_roll" and roll is None:
                    roll = f
                    used.add(j)
                elif f.kind == "damage" and dmg is None:
                    dmg = f
                    used.add(j)
                    break
                else:
                    break
            out.append(_attack_sentence(e, enc, ruleset, roll, dmg))
            continue
        line = narrate(e, enc, None)
        if line:
            out.append(line)
    return out
