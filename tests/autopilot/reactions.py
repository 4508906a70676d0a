"""Encounters where an NPC walks out of a PC's reach, for the reaction tests of the terminal and of the API: Saga and
Starfinder (a PC with a melee weapon in hand beside an NPC), the 5e toy, and a toy whose units have two reactions."""
from __future__ import annotations

from engine.core.decision import Decision
from engine.core.events import Event
from engine.core.reaction import Trigger, ask_reaction
from tests.toys.toy_fifth import FEET, Toy5e

_MAP = "##########\n#........#\n#........#\n#........#\n##########\n"


def _yaml(ruleset: str, pc: str, npc: str) -> str:
    rows = "".join(f"  {row}\n" for row in _MAP.splitlines())
    return f"ruleset: {ruleset}\nname: {ruleset} duel\nmap: |\n{rows}units:\n  - {pc}\n  - {npc}\n"


# ruleset -> (encounter: the PC at (3, 2), the NPC beside it at (4, 2); the NPC's name; where it walks to)
DUELS = {
    "saga": (_yaml("saga", "{name: Kira, side: pcs, template: jedi_knight, at: [3, 2]}",
                   "{name: Trooper 1, side: npcs, template: trooper, at: [4, 2]}"), "Trooper 1", (8, 2)),
    "starfinder": (_yaml("starfinder",
                         "{name: Kira, side: pcs, template: soldier, at: [3, 2], wield: [survival knife]}",
                         "{name: Ganger, side: npcs, template: ganger, at: [4, 2]}"), "Ganger", (8, 2)),
    "toy_5e": (_yaml("toy_5e", "{name: Kira, side: pcs, template: fighter, at: [3, 2]}",
                     "{name: Gob, side: npcs, template: goblin, at: [4, 2]}"), "Gob", (7, 2)),
}
INITIATIVE = {0: 20, 1: 3}  # Kira first: a Starfinder unit reacts only once it has acted


class TripToy(Toy5e):
    """The 5e toy whose units may also trip an enemy leaving their reach instead of striking it: the mover stops in
    the square it was leaving."""

    def legal_reactions(self, enc, unit, trigger):
        usual = super().legal_reactions(enc, unit, trigger)
        return [usual[0], Decision("trip", trigger.provoker), *usual[1:]] if usual else []

    def _move(self, enc, a, goal, dice, react):
        g = enc.grid
        path, watchers = self._walk(enc, a, goal)
        self.economy.pay(enc.budget, "feet", amount=g.path_cost(a.pos, path) * FEET)
        ev = []
        for sq in path:
            for e in watchers:
                if g.distance(e.pos, a.pos) <= e.stats["reach"] < g.distance(e.pos, sq):
                    choice = ask_reaction(self, enc, e, Trigger("opportunity_attack", a.id, "leaving reach"), react)
                    if choice is None:
                        continue
                    e.state["reaction"] = False
                    if choice.action == "trip":
                        return ev + [Event("moved", a.id, square=a.pos)]
                    ev += self.strike(enc, e, a, dice, "opportunity attack")
            if not a.active:
                return ev
            a.pos = sq
        return ev + [Event("moved", a.id, square=a.pos)]
