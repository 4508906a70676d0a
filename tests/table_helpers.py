"""Small battles built inline for any ruleset's rules tests: a tiny map, units as stat dicts, scripted dice, a fixed
initiative; steps by unit name that check every scripted face is used. A ruleset's `tests/<id>/helpers.py` binds
`make` to its ruleset and adds its stat blocks."""
from __future__ import annotations

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END, Decision
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import IllegalAction


def make_battle(rs, rows: list[str] | str, units: list[dict], dice=(), order=None, react=None) -> Battle:
    """A started battle of ruleset rs; `order` lists unit names in initiative order (default: as given)."""
    if isinstance(rows, str):
        rows = rows.strip("\n").split("\n")
    text = yaml.safe_dump({"ruleset": rs.id, "name": "test", "map": "\n".join(rows) + "\n", "units": units},
                          sort_keys=False)
    enc = parse_encounter(text, "test.yaml", rs)
    b = Battle(enc, rs, ScriptedDice(list(dice)), react)
    names = order or [x["name"] for x in units]
    b.start(initiative={enc.unit(n).id: 100 - k for k, n in enumerate(names)})
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return b


def floor(w: int, h: int) -> list[str]:
    return ["." * w] * h


def u(b: Battle, name: str):
    return b.enc.unit(name)


def act(action: str, target=None, square=None, option: int = 0) -> Decision:
    return Decision(action, target, tuple(square) if square is not None else None, option)


def step(b: Battle, action: str, target: str | None = None, square=None, option: int = 0, faces=()):
    """Apply a decision of the acting unit (target by name), pushing dice faces first; every face must be used."""
    b.dice.push(*faces)
    tid = None if target is None else b.enc.unit(target).id
    ev = b.step(act(action, tid, square, option))
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return ev


def end(b: Battle, faces=()):
    b.dice.push(*faces)
    ev = b.step(END)
    assert not b.dice.faces, f"unused scripted faces {b.dice.faces}"
    return ev


def first(events, kind: str):
    return next(e for e in events if e.kind == kind)


def all_of(events, kind: str):
    return [e for e in events if e.kind == kind]


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def actions(b: Battle) -> set[str]:
    return {d.action for d in b.legal()}


def legal_targets(b: Battle, action: str) -> set[str]:
    return {b.enc.units[d.target].name for d in b.legal() if d.action == action}


def legal_squares(b: Battle, action: str) -> set[tuple[int, int]]:
    return {d.square for d in b.legal() if d.action == action}


def why(b: Battle, action: str, target: str | None = None, square=None, option: int = 0) -> str:
    """The reason the rules refuse a decision (it must be refused)."""
    tid = None if target is None else b.enc.unit(target).id
    with pytest.raises(IllegalAction) as e:
        b.step(act(action, tid, square, option))
    return str(e.value)


def gm_session(enc, rs, gm, max_decisions: int):
    """A whole battle at the autopilot with the table's dice (`agents/autopilot`): `gm(table, prompt)` answers every
    prompt (the PCs' words, each die, each NPC proposal), the heuristic proposing the NPCs' decisions. Returns the
    session's result and the table (`tests/autopilot/conftest.py`'s `Table`: what was said and asked)."""
    from agents.autopilot import Session, resolve_policy
    from tests.autopilot.conftest import Table
    table = Table([], gm)
    s = Session(enc, rs, resolve_policy("heuristic", rs, 1), None, dice="manual", seed=4, ask=table.ask, say=table.say,
                max_decisions=max_decisions)
    table.session = s
    return s.run(), table
