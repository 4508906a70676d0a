"""SWURPG conditions ("Conditions" of the combat chapter) as data, and how they end.

Each condition lists what it does in the terms the resolution code reads:
  no_move      speed 0                      no_act      no Actions or Bonus Actions
  no_react     no Reactions                 fail_phys   fails Strength and Dexterity saves
  adv_against  attacks against it have advantage        melee_crit  a melee hit from within 5 ft is critical
  dis_attack   disadvantage on its attack rolls         dis_dex     disadvantage on Dexterity saves
  attack       a bonus (penalty) to its attack rolls    saves       to its saving throws
  half_speed   speed halved                 confused    rolls 1d6 at the start of its turn for what it does
A unit's conditions are `state["conds"]`: name -> [ends, save ability, DC, source unit id]. `ends` is when the
condition lapses by itself: `UNTIL_SAVED` (-1: it lasts until a save or a cure ends it), or the round in which it
ends at the end of the unit's own turn (dazed: "until the end of its next turn"). A condition with a save ability is
repeated at the end of each of the unit's turns (stunned, frightened, confused, shaken, poisoned, freezing), as the
text says. Surprise at the start of a battle is the play state's `surprised` flag (ruleset.py: no turn in round 1, no
reactions until round 2); the `surprised` entry here is the condition a GM adds mid-battle (`add NAME surprised`).
"""
from __future__ import annotations

from functools import lru_cache

CONDITIONS: dict[str, dict] = {
    "stunned": {"no_move": True, "no_act": True, "no_react": True, "fail_phys": True, "adv_against": True},
    "dazed": {"dis_attack": True},
    "grappled": {"no_move": True},               # disadvantage on attacks not at the grappler: combat.py
    "prone": {},                                 # +5 / -5 to attacks against it, -5 to its melee: combat.py
    "bleeding": {},                              # 1d8 kinetic at the end of its turns
    "burning": {},                               # 1d6 fire at the start of its turns
    "frightened": {},                            # disadvantage while the source is in sight: combat.py
    "poisoned": {"dis_attack": True},
    "unconscious": {"no_move": True, "no_act": True, "no_react": True, "fail_phys": True, "adv_against": True,
                    "melee_crit": True},
    "surprised": {"no_act": True, "no_react": True, "no_move": True},
    "blinded": {"dis_attack": True, "adv_against": True},
    "charmed": {},                               # cannot harm the charmer: ruleset.py
    "confused": {"no_react": True, "confused": True},
    "shaken": {"no_react": True, "attack": -1, "saves": -1},
    "freezing": {"half_speed": True, "dis_dex": True},
    "paralyzed": {"no_move": True, "no_act": True, "no_react": True, "fail_phys": True, "adv_against": True,
                  "melee_crit": True},
}
UNTIL_SAVED = -1
SAVES = ("str", "dex", "con", "int", "wis", "cha")
# a weapon or grenade may inflict these on a hit (or a failed save), with the save that ends them
INFLICTED = ("stunned", "dazed", "prone", "bleeding", "burning", "frightened", "poisoned", "blinded", "shaken",
             "freezing", "paralyzed", "confused", "charmed")
DEFAULT_SAVE = {"stunned": "con", "frightened": "wis", "poisoned": "con", "confused": "wis", "shaken": "wis",
                "freezing": "con"}
# the text gives these no save to end them: inflicted by a weapon, they last until the end of the target's next turn
# (charmed also ends when the charmer's side harms it)
NEXT_TURN = frozenset({"dazed", "blinded", "paralyzed", "charmed"})


def add(state: dict, name: str, ends: int = UNTIL_SAVED, save: str = "", dc: int = 0,
        source: int | None = None) -> bool:
    """Give a condition; returns whether the unit did not have it. Bleeding and the rest do not stack: a second
    application keeps the one already there (a later end, a higher DC wins)."""
    conds = state["conds"]
    old = conds.get(name)
    if old is None:
        conds[name] = [ends, save, dc, source]
        return True
    if ends == UNTIL_SAVED or old[0] != UNTIL_SAVED and ends > old[0]:
        old[0] = ends
    if dc > old[2]:
        old[1], old[2], old[3] = save or old[1], dc, source
    return False


def remove(state: dict, name: str) -> bool:
    return state["conds"].pop(name, None) is not None


@lru_cache(maxsize=1024)
def _combined(names: tuple[str, ...]) -> dict:
    out: dict = {}
    for c in names:
        for k, v in CONDITIONS[c].items():
            out[k] = (out.get(k, 0) + v) if type(v) is int else (out.get(k) or v)
    return out


def has(state: dict, flag: str) -> bool:
    """Whether any of the unit's conditions has a flag (no_act, adv_against, ...)."""
    conds = state["conds"]
    return bool(conds) and bool(_combined(tuple(conds)).get(flag))


def effect(state: dict, key: str) -> int:
    """The sum of a numeric effect (attack, saves) over the unit's conditions."""
    conds = state["conds"]
    return _combined(tuple(conds)).get(key, 0) if conds else 0
