"""Small Rise battles built inline: a tiny map, creatures as stat dicts, scripted dice, a fixed initiative.

A round is a movement phase, then an action phase, both simultaneous: every creature commits (`step` / `end`, in
initiative order) and the phase resolves when the last one has; the scripted faces are used then, so a test pushes
them on the phase's last step. Accuracy rolls are exploding d10s, damage dice are rolled as written, a vital roll is
a d10."""
from __future__ import annotations

from engine.core.decision import END
from engine.rulesets.rise import combat as C
from engine.rulesets.rise import stats as S
from engine.rulesets.rise.ruleset import RiseRuleset

from tests.table_helpers import (act, actions, all_of, end, first, floor, kinds, legal_squares, legal_targets,
                                 make_battle, step, u, why)

RS = RiseRuleset()
MAIN, OFF, DUAL, SPLIT = C.MAIN, C.OFF, C.DUAL, C.SPLIT


def make(rows, units: list[dict], dice=(), order=None, react=None):
    """A started Rise battle (`tests/table_helpers.py` make_battle), in its round 1 movement phase."""
    return make_battle(RS, rows, units, dice, order, react)


# A plain Medium creature: accuracy, brawling and power +0, 20 hit points and no damage resistance, every defense 10,
# speed 30 ft (6 squares), Strength and Dexterity 0, fatigue tolerance 1 (so desperate exertion, which needs two
# levels within the tolerance, never happens unless a test raises it). An accuracy result is the d10 faces + what a
# rule adds; a hit of a plain weapon deals its dice (power 0).
PLAIN = {"level": 0, "accuracy": 0, "brawling": 0, "power": 0, "hp": 20, "dr": 0, "armor": 10, "fortitude": 10,
         "reflex": 10, "mental": 10, "speed": 30, "strength": 0, "dexterity": 0, "fatigue_tolerance": 1,
         "initiative": 0}
SWORD = {"name": "sword", "damage": "1d6"}
DAGGER = {"name": "dagger", "damage": "1d4", "tags": {"light": True, "thrown": [30, 60]}}
SPEAR = {"name": "spear", "damage": "1d8", "tags": {"long": True}}
BOW = {"name": "bow", "damage": "1d8", "tags": {"projectile": [30, 60], "bow": True}}
SLING = {"name": "sling", "damage": "1d6", "tags": {"projectile": [30, 60]}}


def unit(name: str, side: str, at, *weapons: dict | str, **over) -> dict:
    """A creature entry: PLAIN stats, the given weapons (dicts or weapons.yaml names), any overrides (`state` too)."""
    return {"name": name, "side": side, "at": list(at), **PLAIN, "weapons": list(weapons), **over}


def phase(b) -> str:
    return b.phase


def actor(b) -> str:
    return b.enc.actor.name


def skip_movement(b, faces=()):
    """Every creature ends the movement phase without moving (faces for its resolution, if any)."""
    assert b.phase == "movement"
    n = sum(1 for x in b.enc.units if RS.can_act(b.enc, x))
    for k in range(n):
        end(b, faces if k == n - 1 else ())
    assert b.phase == "action"


def attacks(events) -> list:
    return all_of(events, "attack")


def damage_to(events, name_or_id, b=None) -> list[int]:
    tid = name_or_id if isinstance(name_or_id, int) else b.enc.unit(name_or_id).id
    return [e.get("amount") for e in all_of(events, "damage") if e.target == tid]


def play_phase(b, faces=(), **choices):
    """Commit every creature's choices for the current phase, in initiative order, and resolve it.

    `choices`: creature name -> a decision tuple `(action, target name, square, option)` (shorter tuples are padded)
    or a list of them; a creature not named ends its turn. The scripted `faces` are queued first and must all be used
    by the phase's resolution (nothing rolls while the creatures commit). Returns every event of the phase."""
    plans = {n: ([c] if isinstance(c, tuple) else list(c)) for n, c in choices.items()}
    b.dice.push(*faces)
    start = (b.enc.round, b.phase)
    events = []
    while not b.over and (b.enc.round, b.phase) == start:
        plan = plans.get(actor(b))
        if plan:
            choice = tuple(plan.pop(0))
            action, target, square, option = choice + (None, None, 0)[len(choice) - 1:]
            tid = None if target is None else b.enc.unit(target).id
            events += b.step(act(action, tid, square, option))
        else:
            events += b.step(END)
    assert all(not p for p in plans.values()), f"choices never made: {plans}"
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return events


def weapons() -> dict[str, dict]:
    return S.weapon_list()


__all__ = ["RS", "MAIN", "OFF", "DUAL", "SPLIT", "PLAIN", "SWORD", "DAGGER", "SPEAR", "BOW", "SLING", "C", "S",
           "make", "unit", "play_phase", "END", "phase", "actor", "skip_movement", "attacks", "damage_to", "weapons", "act", "actions",
           "all_of", "end", "first", "floor", "kinds", "legal_squares", "legal_targets", "step", "u", "why"]
