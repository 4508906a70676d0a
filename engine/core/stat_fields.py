"""Strict stat-block fields for every ruleset: typed keys with defaults, unknown keys refused, play states checked.

A ruleset declares its fields as `name -> (type or tuple of types, default)`, where a default of None makes the
field required (unless the types admit None). `fields` checks a block against them and fills the defaults in;
`check_state_shape` checks a saved play state against the types of a fresh one. Errors are `InputError`s naming the
field and the fix.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable

import yaml

from .dice import parse_dice
from .errors import InputError

Fields = dict[str, tuple[Any, Any]]


def typename(t) -> str:
    """'int', 'int or float': the words for a field's type (None left out)."""
    return t.__name__ if isinstance(t, type) else " or ".join(x.__name__ for x in t if x is not type(None))


def _is(v: Any, typ) -> bool:
    allowed = typ if isinstance(typ, tuple) else (typ,)
    return not (isinstance(v, bool) and bool not in allowed) and isinstance(v, allowed)


def fields(block: Any, keys: Fields, where: str, what: str, system: str) -> dict:
    """`block` checked against `keys`, defaults filled in (deep copies); `what` names the block ('unit', 'weapon')
    and `system` the ruleset in the list of allowed fields an unknown one gets."""
    if not isinstance(block, dict):
        raise InputError(f"{what} must be a mapping", where, f"fields: {', '.join(keys)}")
    unknown = sorted(map(str, set(block) - set(keys)))
    if unknown:
        raise InputError(f"unknown {what} field '{unknown[0]}'", where, f"{system} {what} fields: {', '.join(keys)}")
    out: dict[str, Any] = {}
    for k, (typ, default) in keys.items():
        if k in block:
            v = block[k]
            if not _is(v, typ):
                raise InputError(f"'{k}' must be {typename(typ)}, got {v!r}", f"{where}.{k}")
            out[k] = copy.deepcopy(v)
        elif default is None and not (isinstance(typ, tuple) and type(None) in typ):
            raise InputError(f"missing field '{k}'", where, "give it in the unit or use a template")
        else:
            out[k] = copy.deepcopy(default)
    return out


class TemplateLibrary:
    """A ruleset's `units.yaml`: the raw blocks (each checked once, when first read) and per template its validated
    block, one object shared by every unit made from the template unchanged (stat blocks are replaced, never changed
    in place, during play)."""

    def __init__(self, path: Path, validate: Callable[[dict, str], dict]):
        self.path, self.validate = path, validate
        self._raw: dict[str, dict] | None = None
        self._stats: dict[str, dict] = {}

    def templates(self) -> dict[str, dict]:
        if self._raw is None:
            raw = yaml.safe_load(self.path.read_text())
            for name, block in raw.items():
                self.validate(copy.deepcopy(block), f"{self.path.name} '{name}'")
            self._raw = raw
        return self._raw

    def stats(self, name: str) -> dict:
        got = self._stats.get(name)
        if got is None:
            got = self._stats[name] = self.validate(copy.deepcopy(self.templates()[name]), f"{self.path.name} '{name}'")
        return got


def check_dice(text: str, where: str) -> None:
    """A dice expression checked, its error naming where it is."""
    try:
        parse_dice(text)
    except InputError as e:
        raise InputError(e.what, where, e.fix) from None


def check_state_shape(state: Any, types: dict[str, Any], where: str, fix: str) -> None:
    """A play state with exactly the keys of `types` (key -> type or tuple of types), each value of its type."""
    if not isinstance(state, dict):
        raise InputError("the play state must be a mapping", where, fix)
    unknown, missing = set(state) - set(types), set(types) - set(state)
    if unknown or missing:
        what = "; ".join(f"{label} {sorted(keys)}"
                         for label, keys in (("lacks", missing), ("has unknown keys", unknown)) if keys)
        raise InputError(f"the play state {what}", where, fix)
    for k, t in types.items():
        if not _is(state[k], t):
            raise InputError(f"'{k}' is {state[k]!r}, not {typename(t)}", f"{where}.{k}", fix)
