"""Narration sentences, the map renderers, and tactics applied by the autopilot for other policies."""
from __future__ import annotations

import numpy as np

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.events import Event
from engine.core.narration import narrate, narrate_events
from engine.core.policy import Policy, RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot.chooser import Chooser, apply_tactics
from agents.render import map_image, map_rich, map_text, markers

RS = get_ruleset("saga")


def test_attack_and_damage_fold_into_one_sentence(yard):
    evs = [Event("action", 2, 0, action="ranged_attack"),
           Event("attack", 2, 0, face=11, bonus=6, total=17, defense=15, hit=True, why="ranged attack",
                 weapon="blaster rifle", notes=[]),
           Event("damage_roll", 2, 0, expr="3d8", faces=[4, 3, 2], total=9, crit=False),
           Event("damage", 2, 0, amount=9, hp=21, stun=False)]
    lines = narrate_events(evs, yard, RS)
    assert lines == ["Trooper 1 fires their blaster rifle at Kira: 17 (11+6) vs Reflex 15, hit, 9 damage "
                     "(3d8: 4+3+2); Kira 30/30 HP"]
    # without a ruleset's words: the core's generic verb and defense name, folded the same way
    assert narrate_events(evs, yard) == ["Trooper 1 uses their blaster rifle against Kira: 17 (11+6) vs defense 15, "
                                         "hit, 9 damage (3d8: 4+3+2); Kira 30/30 HP"]


def test_miss_and_other_events_read_well(yard):
    miss = Event("attack", 0, 3, face=1, bonus=4, total=5, defense=15, hit=False, why="melee attack",
                 weapon="vibrodagger", notes=[])
    assert narrate(miss, yard, RS) == "Kira strikes with their vibrodagger at Trooper 2: 5 (1+4) vs Reflex 15, " \
        "miss (natural 1)"
    assert narrate(Event("move", 0, start=(1, 1), end=(2, 2), squares=1, how="moves"), yard) == \
        "Kira moves from (1, 1) to (2, 2) (1 square)"
    assert narrate(Event("down", 2, 3, dead=True, why="0 hit points"), yard) == "Trooper 2 is killed (0 hit points)"
    assert narrate(Event("victory", None, winner="pcs", round=3), yard).endswith("pcs win")
    # unknown kinds still get a sentence, silent kinds none
    assert "frobnicated" in narrate(Event("frobnicated", 0, 2, level=3), yard)
    assert narrate(Event("turn_end", 0), yard) is None


def test_move_narrates_the_movement_spent(yard):
    """A move event's `cost` (movement spent) is what the sentence counts: a diagonal-heavy walk of 3 squares that
    costs 4 reads '4 squares of movement'; without `cost`, the squares stepped."""
    walk = Event("move", 0, start=(12, 2), end=(14, 5), squares=3, cost=4, how="moves")
    assert narrate(walk, yard, RS) == "Kira moves from (12, 2) to (14, 5) (4 squares of movement)"
    assert narrate(Event("move", 0, start=(1, 1), end=(2, 1), squares=1, cost=1, how="withdraws"), yard, RS) == \
        "Kira withdraws from (1, 1) to (2, 1) (1 square of movement)"
    assert narrate(Event("move", 0, start=(1, 1), end=(4, 1), squares=3, how="runs"), yard, RS) == \
        "Kira runs from (1, 1) to (4, 1) (3 squares)"
    assert narrate(Event("move", 0, start=(1, 1), end=(1, 1), squares=0, cost=0), yard, RS) == \
        "Kira is stopped before leaving (1, 1)"


def test_saga_sentences_are_sagas_not_the_cores(yard):
    """The condition track, aim and coups de grace are Saga's words: Saga narrates them; the core alone (no ruleset)
    only names the event."""
    cases = [(Event("aim", 0), "Kira aims (2 swift actions)"),
             (Event("condition", 2, 3, step=2, penalty=-2, why="damage threshold"),
              "Trooper 2 moves to step 2 of the condition track (-2): damage threshold"),
             (Event("coup_de_grace", 1, 3, amount=24), "Dax delivers a coup de grace to Trooper 2: 24 damage"),
             (Event("defensive", 0, bonus=2), "Kira fights defensively: -5 on attacks, +2 Reflex")]
    for e, saga in cases:
        assert narrate(e, yard, RS) == saga
        core = narrate(e, yard)
        assert core.startswith(f"{yard.units[e.actor].name}: {e.kind.replace('_', ' ')}")
        for word in ("condition track", "swift", "delivers", "Reflex"):
            assert word not in core
    aid = Event("attack", 1, 2, face=12, bonus=5, total=17, defense=10, hit=True, why="aid another")
    assert narrate(aid, yard, RS) == "Dax aids an attack against Trooper 1: 17 (12+5) vs Reflex 10, hit"
    assert narrate(aid, yard) == "Dax attacks Trooper 1: 17 (12+5) vs defense 10, hit"


def test_pronouns_follow_the_unit(yard):
    """'their' for characters, 'its' for droids and beasts, the stat block's own pronoun where a ruleset's stat
    blocks carry one (the Ruleset default)."""
    from engine.core.ruleset import Ruleset
    droid = RS.make_unit(4, {"name": "B1", "side": "npcs", "template": "battle_droid", "at": [5, 1]}, "test")
    beast = RS.make_unit(5, {"name": "Rancor", "side": "npcs", "template": "beast", "at": [5, 2]}, "test")
    yard.units += [droid, beast]
    assert [RS.pronoun(u) for u in yard.units] == ["their", "their", "their", "their", "its", "its"]
    assert narrate(Event("draw", 0, weapon="blaster pistol"), yard, RS) == "Kira draws their blaster pistol"
    assert narrate(Event("draw", 4, weapon="blaster rifle"), yard, RS) == "B1 draws its blaster rifle"
    claws = Event("attack", 5, 0, face=9, bonus=6, total=15, defense=16, hit=False, why="melee attack",
                  weapon="claws")
    assert narrate(claws, yard, RS).startswith("Rancor strikes with its claws at Kira")
    assert narrate(Event("suppressed", 1, 4, penalty=-2), yard, RS) == "B1 is suppressed: -2 on its next attack"
    kira = yard.units[0]
    kira.stats = {**kira.stats, "pronoun": "her"}
    assert Ruleset.pronoun(RS, kira) == "her" and Ruleset.pronoun(RS, yard.units[1]) == "their"


def test_ruleset_narrate_hook_takes_precedence(yard):
    class Loud(type(RS)):
        def narrate(self, event, enc):
            return "LOUD" if event.kind in ("move", "attack") else super().narrate(event, enc)

    loud = Loud()
    ev = [Event("move", 0, start=(1, 1), end=(2, 2), squares=1, how="moves"), Event("aim", 0),
          Event("attack", 0, 2, face=3, bonus=1, total=4, defense=15, hit=False), Event("damage", 0, 2, amount=1)]
    assert narrate_events(ev, yard, loud) == ["LOUD", "Kira aims (2 swift actions)", "LOUD",
                                              "Trooper 1 takes 1 damage (Trooper 1 18/18 HP)"]


def test_map_text_rich_and_image(yard):
    b = Battle(yard, RS, SeededDice(0))
    b.start({0: 20, 1: 10, 2: 5, 3: 1})
    mk = markers(yard)
    assert len(set(mk.values())) == len(yard.units)
    assert not set(mk.values()) & set(yard.grid.legend)           # never a terrain symbol
    text = map_text(yard, RS)
    rows = text.splitlines()
    assert rows[1 + 1][3 + 1] == mk[0]                            # Kira at (1, 1): after header and row label
    assert "[##########]" in text and "Ref " in text and ">" + mk[0] in text
    yard.units[3].hp, yard.units[3].down = 0, True
    text = map_text(yard, RS)
    assert "DOWN" in text and "x" in text.splitlines()[1 + 4]
    from rich.console import Console
    con = Console(record=True, width=120)
    con.print(map_rich(yard, RS))
    assert "Trooper 1" in con.export_text()
    img = map_image(yard, cell=10)
    assert img.shape == (60, 100, 3) and img.dtype == np.uint8
    # Kira's square is drawn in the first side's colour, a wall in grey
    assert tuple(img[15, 15]) == (60, 200, 80)
    assert tuple(img[5, 5]) == (150, 150, 150)


def test_map_image_marks_each_unit_with_its_text_marker(yard):
    """The TensorBoard picture carries the markers of map_text's legend: dark marker pixels on each unit's square,
    and units with other markers drawn differently."""
    cell = 24
    img = map_image(yard, cell=cell)
    mk = markers(yard)

    def square(u):
        x, y = u.pos
        return img[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell].astype(int)

    for u in yard.units:
        dark = (square(u).sum(axis=2) < 60).sum()
        assert dark >= 5, f"{u.name}'s marker {mk[u.id]} is drawn"
    a, b = yard.units[2:4]  # two troopers: the same side, colour and HP bar; other markers
    assert a.side == b.side and a.hp / a.max_hp == b.hp / b.max_hp and mk[a.id] != mk[b.id]
    assert not np.array_equal(square(a), square(b))


class _Flat(Policy):
    """Ranks every legal decision equally (does not know about tactics)."""
    name = "flat"


def test_flee_below_moves_away_for_policies_that_ignore_tactics(yard):
    b = Battle(yard, RS, SeededDice(0))
    b.start({0: 1, 1: 2, 2: 20, 3: 19})                       # Trooper 1 acts first
    t1 = yard.units[2]
    t1.tactics = {"flee_below": 0.5}
    t1.hp = 5
    yard.version += 1
    prop = Chooser(_Flat(), "deadly", 0).propose(b)
    assert prop.notes and "get away" in prop.notes[0]
    assert prop.decision.action in ("move", "withdraw", "run")
    here = min(yard.grid.distance(t1.pos, e.pos) for e in yard.enemies(t1))
    there = min(yard.grid.distance(prop.decision.square, e.pos) for e in yard.enemies(t1))
    assert there > here


def test_prefer_targets_biases_attacks(yard):
    b = Battle(yard, RS, SeededDice(0))
    b.start({0: 1, 1: 2, 2: 20, 3: 19})
    t1 = yard.units[2]
    yard.units[1].hp = 3                                       # Dax is the weakest
    t1.tactics = {"prefer_targets": "weakest"}
    ranked = [(d, 1.0) for d in b.legal()]
    out, notes = apply_tactics(b, ranked)
    w = {d: p for d, p in out}
    on_dax = [w[d] for d in w if d.target == 1]
    on_kira = [w[d] for d in w if d.target == 0]
    assert on_dax and on_kira and min(on_dax) > max(on_kira)
    assert "Dax" in notes[0]
    # a policy that honours tactics itself is left alone
    c = Chooser(RandomPolicy(0))
    assert c.apply_tactics
    from agents.autopilot.policies import resolve_policy
    assert not Chooser(resolve_policy("heuristic", RS, 0)).apply_tactics
    assert Decision("ranged_attack", 1) in w or Decision("melee_attack", 1) in w
