"""Saga's narration reads as it did before its sentences moved from the core to Saga's folder.

`saga_narration.json.gz` holds the events of 11 seeded Saga battles (the heuristic and random play on the shipped
encounters and on generated ones) and a synthetic batch of every sentence kind, each decision's events with the
hit points after it and the lines `engine/core/narration.py` gave them at commit 8de92d9, when every Saga sentence
was still in the core. The deliberate changes since: the pronoun ("its" for every character then), and a move that
went nowhere (an attack of opportunity stopped it on its first step) reads "X is stopped before leaving (x, y)"
instead of "X moves from (x, y) to (x, y)".
"""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.core.events import Event
from engine.core.narration import narrate_events
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")
FIXTURE = Path(__file__).with_name("saga_narration.json.gz")


class _ItsForEveryone(type(RS)):
    """Saga with the old pronoun: the narration must then be the recorded text word for word."""

    def pronoun(self, unit) -> str:
        return "its"


_NOWHERE = re.compile(r"^(?P<who>.+?) (?:moves on|moves|withdraws|charges|runs) from (?P<sq>\(\d+, \d+\)) "
                      r"to (?P=sq)(?: \(.*\))?$")


def _as_now(line: str) -> str:
    """A recorded line as the narration words it since its deliberate changes (the pronoun aside)."""
    return _NOWHERE.sub(lambda m: f"{m['who']} is stopped before leaving {m['sq']}", line)


def _battles() -> list[dict]:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))["battles"]


def _encounter(roster: list[dict]):
    units = []
    for i, r in enumerate(roster):
        u = RS.make_unit(i, {"name": r["name"], "side": "pcs", "template": r["template"], "at": [0, 0]}, "fixture")
        u.max_hp = r["max_hp"]
        units.append(u)
    return SimpleNamespace(units=units)  # narration reads the units (names, hit points, stat blocks) only


def _event(d: dict) -> Event:
    d = dict(d)
    return Event(d.pop("kind"), d.pop("actor"), d.pop("target"), **d)


def _narrated(battle: dict, ruleset):
    enc = _encounter(battle["units"])
    for batch in battle["batches"]:
        for u, hp in zip(enc.units, batch["hp"]):
            u.hp = hp
        yield batch["lines"], narrate_events([_event(e) for e in batch["events"]], enc, ruleset)


BATTLES = _battles()


@pytest.mark.parametrize("battle", BATTLES, ids=[b["battle"] for b in BATTLES])
def test_saga_battles_narrate_as_recorded(battle):
    rs = _ItsForEveryone()
    n = 0
    for old, new in _narrated(battle, rs):
        assert new == [_as_now(x) for x in old]
        n += len(old)
    assert n > 0


def test_the_fixture_covers_every_sentence_kind():
    kinds = {e["kind"] for b in BATTLES for batch in b["batches"] for e in batch["events"]}
    assert {"attack", "damage", "move", "condition", "aim", "coup_de_grace", "grapple_check", "object_broken",
            "full_attack", "suppressed", "aided", "victory", "round_limit", "initiative"} <= kinds


def test_only_pronouns_change_with_saga_pronouns():
    """With Saga's own pronouns every recorded line keeps its words but for 'its' -> 'their' (a character) where
    the unit is a person; droids and beasts keep 'its'."""
    changed = kept = 0
    for battle in BATTLES:
        for old, new in _narrated(battle, RS):
            assert len(new) == len(old)
            for o, n in zip(map(_as_now, old), new):
                ow, nw = o.split(" "), n.split(" ")
                assert len(ow) == len(nw), (o, n)
                for a, b in zip(ow, nw):
                    assert a == b or (a, b) == ("its", "their"), (o, n)
                changed += o != n
                kept += " its " in n
    assert changed > 50 and kept > 10
