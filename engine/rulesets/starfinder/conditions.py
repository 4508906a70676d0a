"""Starfinder conditions (Core Rulebook pp. 273-277, "Conditions") as data, and when timed effects end.

Each condition lists what it does in the terms the resolution code reads:
  attack     to attack rolls          ac        to EAC and KAC          ref / saves  to Reflex / all saves
  damage     to weapon damage rolls   melee_ac  to AC against melee     ranged_ac    to AC against ranged attacks
  melee      to melee attack rolls    flat      flat-footed (-2 AC once, no reactions)
  stuck      cannot move              slow      half speed              no_run       cannot run or charge
  no_react   no reactions             no_aoo    no attacks of opportunity
  limbs      no action that moves the limbs but escaping or grappling back (pinned)
  helpless   no actions at all        one_action  a single move or standard action a round (staggered)
  two_hands  no actions needing two hands (grappled)   miss  percent miss chance on the unit's attacks (blinded)
A unit's conditions are `state["conds"]`: name -> when it ends, `round * 100 + slot` (slot: the place in the
initiative order of the unit whose turn ends it), or -1 until removed. A timed effect lasting N rounds, begun on
the turn of the unit in slot s of round r, ends just before that initiative count N rounds later (`ends`): it is
removed as the first turn at or after (r + N, s) begins (`expired`).
"""
from __future__ import annotations

from functools import lru_cache

CONDITIONS: dict[str, dict] = {
    "blinded": {"flat": True, "slow": True, "miss": 50},
    "deafened": {},                          # -4 initiative and Perception: neither is rolled mid-battle here
    "entangled": {"attack": -2, "ac": -2, "ref": -2, "slow": True, "no_run": True},
    "off_target": {"attack": -2},
    "shaken": {"attack": -2, "saves": -2},
    "sickened": {"attack": -2, "damage": -2, "saves": -2},
    "grappled": {"attack": -2, "ac": -2, "ref": -2, "stuck": True, "no_aoo": True, "two_hands": True},
    "pinned": {"attack": -4, "ac": -4, "ref": -4, "stuck": True, "no_aoo": True, "flat": True, "limbs": True},
    "prone": {"melee": -4, "melee_ac": -4, "ranged_ac": 4},
    "off_kilter": {"attack": -2, "flat": True, "stuck": True},
    "staggered": {"one_action": True, "no_react": True},
    "stunned": {"flat": True, "helpless": True, "no_react": True},
    "dazed": {"helpless": True, "no_react": True},
    "flat_footed": {"flat": True},
    "burning": {},                           # damage at the start of the unit's turn: state["burn"]
    "bleeding": {},                          # damage at the start of the unit's turn: state["bleed"]
}
DIRTY_TRICKS = ("blinded", "deafened", "entangled", "off_target", "shaken", "sickened")
EXTENDS = frozenset({"shaken"})  # a second effect adds its duration (Shaken); others keep the later end
FOREVER = -1


def slot_of(enc, uid: int) -> int:
    """A unit's place in the initiative order (0 before initiative is rolled)."""
    try:
        return enc.order.index(uid)
    except ValueError:
        return 0


def time_key(rnd: int, slot: int) -> int:
    """The moment just before the turn of initiative slot `slot` in round `rnd`, as one number."""
    return rnd * 100 + slot


def ends(rnd: int, slot: int, rounds: int) -> int:
    """When an effect lasting `rounds` rounds, begun in round `rnd` on the turn of initiative slot `slot`, ends."""
    return time_key(rnd + rounds, slot)


def add(state: dict, name: str, end: int, rounds: int = 0) -> bool:
    """Give a condition until `end` (or FOREVER); `rounds` is the effect's duration. Returns whether the unit did not
    have it before. The later end wins, an indefinite one above all; Shaken's durations add up."""
    conds = state["conds"]
    old = conds.get(name)
    if old is None:
        conds[name] = end
        return True
    if old == FOREVER or end == FOREVER:
        conds[name] = FOREVER
    elif name in EXTENDS:
        conds[name] = old + 100 * rounds
    else:
        conds[name] = max(old, end)
    return False


def remove(state: dict, name: str) -> bool:
    if name in state["conds"]:
        del state["conds"][name]
        if name in state["tricks"]:
            state["tricks"].remove(name)
        if name == "burning":
            state["burn"] = []
        elif name == "bleeding":
            state["bleed"] = ""
        return True
    return False


def expired(state: dict, now: int) -> list[str]:
    """The timed conditions that have ended by `now` (a `time_key`)."""
    return [c for c, end in state["conds"].items() if end != FOREVER and end <= now]


@lru_cache(maxsize=1024)
def _combined(names: tuple[str, ...]) -> dict:
    """What a set of conditions does together: numeric effects summed (pinned replaces grappled's penalties), flags
    joined."""
    out: dict = {}
    pinned = "pinned" in names
    for c in names:
        if pinned and c == "grappled":
            continue
        for k, v in CONDITIONS[c].items():
            out[k] = (out.get(k, 0) + v) if type(v) is int else (out.get(k) or v)
    return out


def effect(state: dict, key: str) -> int:
    """The sum of a numeric effect over the unit's conditions (pinned replaces grappled's penalties)."""
    conds = state["conds"]
    return _combined(tuple(conds)).get(key, 0) if conds else 0


def has(state: dict, flag: str) -> bool:
    """Whether any of the unit's conditions has a flag (stuck, flat, no_react, ...)."""
    conds = state["conds"]
    return bool(conds) and bool(_combined(tuple(conds)).get(flag))
