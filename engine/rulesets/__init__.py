"""The ruleset registry: every sub-folder of `engine/rulesets/` exporting `RULESET` is picked up."""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from engine.core.ruleset import Ruleset

_EXTRA: dict[str, Ruleset] = {}


@lru_cache(maxsize=None)
def _discovered() -> dict[str, Ruleset]:
    out: dict[str, Ruleset] = {}
    for mod in pkgutil.iter_modules(__path__):
        if mod.ispkg:
            rs = getattr(importlib.import_module(f"{__name__}.{mod.name}"), "RULESET", None)
            if rs is not None:
                out[rs.id] = rs
    return out


def register(ruleset: Ruleset) -> None:
    """Add a ruleset defined elsewhere (tests' toy rulesets)."""
    _EXTRA[ruleset.id] = ruleset


def available() -> dict[str, Ruleset]:
    return {**_discovered(), **_EXTRA}


def get_ruleset(rid: str) -> Ruleset:
    rs = available().get(rid)
    if rs is None:
        raise KeyError(f"unknown ruleset '{rid}'; known: {', '.join(sorted(available()))}")
    return rs
