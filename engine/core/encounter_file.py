"""Encounter files (YAML): an ASCII map, a legend and units. Every error names the line and the fix."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError
from .grid import Grid
from .state import Encounter

TOP_KEYS = {"ruleset", "name", "description", "map", "legend", "units", "round_limit"}
TACTICS = {"flee_below": "a fraction of max HP, 0 to 1, below which the unit tries to get away",
           "prefer_targets": "one of nearest, weakest, strongest, most_dangerous, wounded"}
PREFER = ("nearest", "weakest", "strongest", "most_dangerous", "wounded")


def load_encounter(path: str | Path, ruleset=None) -> Encounter:
    """Read an encounter file. Raises InputError (never a traceback) for anything wrong in it."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {p}", str(p), "check the path")
    return parse_encounter(p.read_text(), p.name, ruleset)


def parse_encounter(text: str, filename: str = "encounter", ruleset=None) -> Encounter:
    from engine.rulesets import get_ruleset  # registry depends on core, not the other way at import time

    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark, ctx = getattr(e, "problem_mark", None), getattr(e, "context_mark", None)
        where = f"{filename} line {mark.line + 1}" if mark else filename
        what = f"not valid YAML: {getattr(e, 'problem', None) or e}"
        if ctx is not None and mark is not None and ctx.line != mark.line:
            what += f" ({getattr(e, 'context', None) or 'started'} on line {ctx.line + 1})"
        raise InputError(what, where, "check indentation, colons, brackets and quotes on that line")
    if not isinstance(data, dict):
        raise InputError("an encounter file must be a mapping with ruleset, map and units", filename,
                         "start from an example in configs/encounters/ (ruleset:, map: |, units:)")
    lines = _key_lines(node)
    unknown = set(data) - TOP_KEYS
    if unknown:
        k = sorted(unknown)[0]
        raise InputError(f"unknown key '{k}'", f"{filename} line {lines.get(k, '?')}",
                         f"allowed keys: {', '.join(sorted(TOP_KEYS))}")
    for k in ("map", "units"):
        if k not in data:
            raise InputError(f"missing '{k}'", f"{filename} line 1", f"add a '{k}:' section")
    rs_id = data.get("ruleset") or (ruleset.id if ruleset else None)
    if rs_id is None:
        raise InputError("missing 'ruleset'", f"{filename} line 1", "add e.g. 'ruleset: saga'")
    if ruleset is None:
        try:
            ruleset = get_ruleset(rs_id)
        except KeyError as e:
            raise InputError(str(e.args[0]), f"{filename} line {lines.get('ruleset', '?')}",
                             "write one of the known ruleset ids")
    elif ruleset.id != rs_id:
        raise InputError(f"the file is for ruleset '{rs_id}', not '{ruleset.id}'",
                         f"{filename} line {lines.get('ruleset', '?')}", f"use --ruleset {rs_id} or change the file")

    map_text = data["map"]
    if not isinstance(map_text, str):
        raise InputError("'map' must be a block of text rows", f"{filename} line {lines.get('map', '?')}",
                         "write 'map: |' and the rows indented below it")
    rows = [r.rstrip() for r in map_text.strip("\n").split("\n")]
    map_line = lines.get("map", 0)
    legend = data.get("legend") or {}
    if not isinstance(legend, dict):
        raise InputError("'legend' must map symbols to terrain", f"{filename} line {lines.get('legend', '?')}",
                         'write it like {"c": low_cover, "~": difficult}')
    try:
        grid = Grid(rows, {str(k): v for k, v in legend.items()}, ruleset.metric)
    except InputError as e:
        raise _grid_error(e, filename, map_line, lines.get("legend", "?")) from None

    units_raw = data["units"]
    if not isinstance(units_raw, list) or not units_raw:
        raise InputError("'units' must be a non-empty list", f"{filename} line {lines.get('units', '?')}",
                         "list units below it, one per line: - {name: ..., side: ..., template: ..., at: [x, y]}")
    unit_lines = _item_lines(node, "units")
    units = []
    taken: dict[tuple[int, int], str] = {}
    names: set[str] = set()
    for n, spec in enumerate(units_raw):
        where = f"{filename} line {unit_lines[n] if n < len(unit_lines) else '?'} (units[{n}])"
        if not isinstance(spec, dict):
            raise InputError("a unit must be a mapping", where,
                             "write it like - {name: Trooper 1, side: npcs, template: trooper, at: [3, 4]}")
        for k in ("name", "side", "at"):
            if k not in spec:
                raise InputError(f"unit is missing '{k}'", where,
                                 "every unit needs name, side and at: [x, y] (plus a template or full stats)")
        name = str(spec["name"])
        if name.lower() in names:
            raise InputError(f"two units are named '{name}'", where, "give every unit its own name")
        names.add(name.lower())
        if spec["side"] not in ruleset.sides:
            raise InputError(f"unknown side '{spec['side']}' for {name}", where,
                             f"use one of: {', '.join(ruleset.sides)}")
        at = spec["at"]
        if not (isinstance(at, list) and len(at) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in at)):
            raise InputError(f"'at' of {name} is {at!r}", where,
                             "write at: [x, y] with whole numbers (column and row, counted from 0)")
        x, y = at
        if not grid.inside(x, y):
            raise InputError(f"{name} at [{x}, {y}] is outside the {grid.width}x{grid.height} map", where,
                             f"x must be 0..{grid.width - 1} and y 0..{grid.height - 1}")
        i = grid.index(x, y)
        if not grid.passable(i):
            raise InputError(f"{name} at [{x}, {y}] is in a {grid.kind(i)} square", where,
                             "place the unit on an open square ('.', '~', 'c' or an open door)")
        if (x, y) in taken:
            raise InputError(f"{name} at [{x}, {y}] is on the same square as {taken[(x, y)]}", where,
                             "give each unit its own square")
        taken[(x, y)] = name
        _check_tactics(spec.get("tactics"), name, where)
        play_state = spec.get("state")
        try:
            unit = ruleset.make_unit(n, {k: v for k, v in spec.items() if k != "state"}, where)
        except InputError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise InputError(f"a stat of {name} is missing or malformed ({e!r})", where,
                             f"check the unit's fields against the {ruleset.name} templates")
        if play_state is not None:
            _set_play_state(ruleset, unit, play_state, where)
        units.append(unit)
    limit = data.get("round_limit", 20)
    if not isinstance(limit, int) or limit < 1:
        raise InputError(f"'round_limit' is {limit!r}", f"{filename} line {lines.get('round_limit', '?')}",
                         "write a whole number of rounds, at least 1")
    return Encounter(ruleset.id, str(data.get("name", filename)), grid, units, limit)


def _set_play_state(ruleset, unit, values: Any, where: str) -> None:
    """A unit's `state:` (how the fight has gone for it so far: prone, a condition, a resource spent) over the
    ruleset's starting play state; the ruleset's `check_unit` then refuses what its rules cannot play."""
    keys = ", ".join(sorted(unit.state))
    if not isinstance(values, dict):
        raise InputError(f"'state' of {unit.name} must be a mapping", where,
                         f"write it like {{key: value}}; keys: {keys}")
    for k in values:
        if k not in unit.state:
            raise InputError(f"unknown play-state key '{k}' for {unit.name}", where, f"{ruleset.name} keys: {keys}")
    unit.state.update(values)
    try:
        ruleset.check_unit(unit, f"{where} {unit.name}")
    except InputError as e:
        raise InputError(e.what, e.where, f"fix the unit's 'state:' ({e.fix})" if e.fix else "fix the unit's 'state:'")


_COLUMN = re.compile(r"column (\d+): (.*)")
_WIDTH = re.compile(r"map row (\d+) has (\d+) squares but row 1 has (\d+)")


def _grid_error(e: InputError, filename: str, map_line: int, legend_line) -> InputError:
    """The Grid's error (map rows and columns counted from 1) in the file's words: the file's line, and a
    square as x, y counted from 0, as `at:` writes it."""
    what, where = e.what, e.where
    if where.startswith("map line ") and map_line:
        y = int(where.split()[2]) - 1
        where = f"{filename} line {map_line + 1 + y} (map row y={y})"
        col, width = _COLUMN.fullmatch(what), _WIDTH.fullmatch(what)
        if col:
            what = f"the square at [{int(col.group(1)) - 1}, {y}] (x, y from 0, as in at:): {col.group(2)}"
        elif width:
            what = (f"map row y={int(width.group(1)) - 1} has {width.group(2)} squares but the first row (y=0) "
                    f"has {width.group(3)}")
    elif where == "legend":
        where = f"{filename} line {legend_line} (legend)"
    return InputError(what, where or filename, e.fix)


def _check_tactics(tactics: Any, name: str, where: str) -> None:
    if tactics is None:
        return
    if not isinstance(tactics, dict):
        raise InputError(f"'tactics' of {name} must be a mapping", where, f"keys: {', '.join(TACTICS)}")
    for k, v in tactics.items():
        if k not in TACTICS:
            raise InputError(f"unknown tactic '{k}' for {name}", where,
                             "; ".join(f"{a}: {b}" for a, b in TACTICS.items()))
        if k == "flee_below" and not (isinstance(v, (int, float)) and 0 <= v <= 1):
            raise InputError(f"flee_below of {name} is {v!r}", where, TACTICS[k])
        if k == "prefer_targets" and v not in PREFER:
            raise InputError(f"prefer_targets of {name} is {v!r}", where, TACTICS[k])


def _key_lines(node) -> dict[str, int]:
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for k, _v in node.value:
            out[str(k.value)] = k.start_mark.line + 1
    return out


def _item_lines(node, key: str) -> list[int]:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == key and isinstance(v, yaml.SequenceNode):
                return [item.start_mark.line + 1 for item in v.value]
    return []
