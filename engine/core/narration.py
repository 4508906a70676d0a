"""Narration: events -> sentences a GM can read out.

The core narrates what the core itself makes (initiative, rounds, turns, phases, the victory, the round limit) and
the events every ruleset shares the meaning of: an attack roll against a defense, damage, a unit down, a move
(`cost`, the movement spent, when the ruleset gives it; else the squares stepped). Every other kind belongs to its
ruleset: `Ruleset.narrate(event, enc)` is asked first and its sentence wins; a kind nobody narrates gets a plain
sentence naming it. `narrate_events` folds an attack and the damage it deals into one line, in the words the
ruleset gives for the attack (`Ruleset.attack_words`): "Trooper 2 fires their blaster rifle at Kira: 17 (11+6)
vs Reflex 15, hit, 9 damage". Possessives come from `Ruleset.pronoun` ("their" when nothing says otherwise).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from .events import Event

if TYPE_CHECKING:
    from .ruleset import Ruleset
    from .state import Encounter

# Event kinds that only restate something another event says better.
SILENT = frozenset({"action", "turn_end", "committed", "damage_roll"})


def name(enc: "Encounter", uid: int | None) -> str:
    """A unit's name for a sentence ('someone' for no unit)."""
    if uid is None:
        return "someone"
    try:
        return enc.units[uid].name
    except (IndexError, TypeError):
        return f"unit {uid}"


def square(sq) -> str:
    """A square as '(x, y)'."""
    if sq is None:
        return "?"
    x, y = sq
    return f"({x}, {y})"


def hit_points(enc: "Encounter", uid: int | None) -> str:
    """'Kira 12/30 HP'."""
    try:
        u = enc.units[uid]
    except (IndexError, TypeError):
        return "?"
    return f"{u.name} {max(0, u.hp)}/{u.max_hp} HP"


def pronoun(enc: "Encounter", uid: int | None, ruleset: "Ruleset | None") -> str:
    """The possessive a sentence uses for a unit ('their', 'its', ...): the ruleset's `pronoun`, else 'their'."""
    if ruleset is None or uid is None:
        return "their"
    try:
        u = enc.units[uid]
    except (IndexError, TypeError):
        return "their"
    return ruleset.pronoun(u)


def narrate(event: Event, enc: "Encounter", ruleset: "Ruleset | None" = None) -> str | None:
    """One sentence for one event, or None for events that say nothing a GM needs."""
    if ruleset is not None:
        own = ruleset.narrate(event, enc)
        if own is not None:
            return own
    return _core(event, enc, ruleset)


def _core(e: Event, enc: "Encounter", ruleset: "Ruleset | None") -> str | None:
    k = e.kind
    if k in SILENT:
        return None
    a, t = name(enc, e.actor), name(enc, e.target)
    if k == "initiative":
        return f"{a} rolls initiative: {e.get('value')}"
    if k == "round_start":
        return f"-- Round {e.get('round')} --"
    if k == "turn_start":
        phase = e.get("phase")
        return f"{a}'s turn" + (f" ({phase} phase)" if phase and phase != "turn" else "")
    if k == "attack":
        return attack_sentence(e, enc, ruleset, None, None)
    if k == "damage":
        stun = " stun" if e.get("stun") else ""
        return f"{t} takes {e.get('amount')}{stun} damage ({hit_points(enc, e.target)})"
    if k == "down":
        how = "killed" if e.get("dead") else "down"
        why = e.get("why")
        return f"{t} is {how}" + (f" ({why})" if why else "")
    if k == "door":
        return f"{a} {'opens' if e.get('open') else 'closes'} the door at {square(e.get('square'))}"
    if k == "aoo":  # the attack of opportunity a reaction takes (engine/core/reaction.py); the attack follows
        return f"{t} provokes an attack of opportunity from {a} ({e.get('why')})"
    if k == "aoo_declined":
        return f"{a} lets {t} go (no attack of opportunity)"
    if k == "move":
        if e.get("start") is not None and e.get("start") == e.get("end"):
            return f"{a} is stopped before leaving {square(e.get('start'))}"
        return f"{a} {e.get('how', 'moves')} from {square(e.get('start'))} to {square(e.get('end'))}" + _distance(e)
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


def _distance(e: Event) -> str:
    cost = e.get("cost")
    if cost is not None:
        return f" ({cost} square{'s' if cost != 1 else ''} of movement)" if cost else ""
    n = e.get("squares")
    return f" ({n} square{'s' if n != 1 else ''})" if n else ""


def _generic_verb(e: Event, enc: "Encounter", ruleset: "Ruleset | None") -> str:
    weapon = e.get("weapon")
    return f"uses {pronoun(enc, e.actor, ruleset)} {weapon} against" if weapon else "attacks"


def attack_sentence(e: Event, enc: "Encounter", ruleset: "Ruleset | None", roll: Event | None,
                    dmg: Event | None) -> str:
    """'<attacker> <verb> <target>: 17 (11+6) vs <defense> 15 [notes], hit, 9 damage (3d8: 4+3+2); Kira 21/30 HP'
    for an attack event, with its damage roll and damage when given. The verb and the defense's name are the
    ruleset's (`attack_words`), else 'attacks' and `attack_defense`."""
    words = ruleset.attack_words(e, enc) if ruleset is not None else None
    verb, dname = words if words is not None else \
        (_generic_verb(e, enc, ruleset), ruleset.attack_defense if ruleset is not None else "defense")
    face, bonus, total = e.get("face"), e.get("bonus"), e.get("total")
    roll_txt = f"{total} ({face}{bonus:+d})" if isinstance(bonus, int) else f"{total}"
    result = "hit" if e.get("hit") else "miss"
    if e.get("hit") and face == 20:
        result = "critical hit"
    elif not e.get("hit") and face == 1:
        result = "miss (natural 1)"
    notes = e.get("notes") or []
    note_txt = f" [{', '.join(notes)}]" if notes else ""
    s = f"{name(enc, e.actor)} {verb} {name(enc, e.target)}: {roll_txt} vs {dname} {e.get('defense')}{note_txt}, " \
        f"{result}"
    if dmg is not None:
        stun = " stun" if dmg.get("stun") else ""
        s += f", {dmg.get('amount')}{stun} damage"
        if roll is not None and roll.get("faces"):
            faces = "+".join(str(f) for f in roll.get("faces"))
            s += f" ({roll.get('expr')}: {faces}{', doubled' if roll.get('crit') else ''})"
        s += f"; {hit_points(enc, dmg.target)}"
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
            out.append(attack_sentence(e, enc, ruleset, roll, dmg))
            continue
        line = _core(e, enc, ruleset)
        if line:
            out.append(line)
    return out
