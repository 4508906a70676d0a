"""Action codec: flat Discrete index <-> engine Decision, and the mask from the legal enumeration.

Layout (fixed for a ruleset, a maximum of units per side and a maximum map size):
  [0]                         end turn
  per catalogue action, in catalogue order:
    target 'none'             `options` slots (which weapon, which item, ...)
    target 'enemy' / 'unit'   `max_per_side` slots: the k-th unit of the other side (by unit id)
    target 'ally'             `max_per_side` slots: the k-th unit of the actor's side (by unit id)
    target 'square'           `(2R+1)^2` slots: a window of radius R around the acting unit,
                              (x, y) -> (x - ax + R) + (y - ay + R) * (2R + 1)
Everything is relative to the acting unit: "attack enemy 2" means the same to the policy whichever side
it plays (the observation lists units in the same order), and "move 3 squares east" is the same slot
wherever it stands. Squares beyond the window (a run longer than R squares) cannot be expressed; they
are legal for the engine but absent from the mask.
"""
from __future__ import annotations

import hashlib

import numpy as np

from engine.core.decision import END, END_TURN, Decision
from engine.core.ruleset import Ruleset
from engine.core.state import Encounter
from engine.core.units import Unit

try:  # the per-decision loop in C (envs/_native.c), built by `pip install`; Python below otherwise
    from . import _native
except ImportError:  # pragma: no cover - only without a C compiler
    _native = None

_KIND_CODES = {"none": 0, "square": 1, "ally": 2}  # anything else: a unit of the other side (3)


class ActionCodec:
    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int, radius: int = 8):
        self.ruleset, self.max_per_side, self.map_w, self.map_h = ruleset, max_per_side, map_w, map_h
        self.radius = radius
        self.side = 2 * radius + 1
        self.blocks: dict[str, tuple[int, str, int]] = {}   # action -> (start, target kind, count)
        self.names: list[str] = [END_TURN]
        n = 1
        for key, spec in ruleset.catalogue.items():
            if key == END_TURN:
                continue
            if spec.target == "none":
                count = spec.options
            elif spec.target == "square":
                count = self.side * self.side
            else:
                count = max_per_side
            self.blocks[key] = (n, spec.target, count)
            self.names += [key] * count
            n += count
        self.n = n
        self._table = {key: (start, _KIND_CODES.get(kind, 3), count) for key, (start, kind, count) in self.blocks.items()}
        self._block_at: list[tuple[int, str, str]] = [(0, END_TURN, "none")]  # per index: (start, action, kind)
        for key, (start, kind, count) in self.blocks.items():
            self._block_at += [(start, key, kind)] * count

    @property
    def signature(self) -> str:
        """Identifies the encoding; a model trained on another encoding must be refused."""
        text = f"{self.ruleset.id}|{self.max_per_side}|{self.map_w}x{self.map_h}|r{self.radius}|" + \
               ",".join(f"{k}:{v[1]}:{v[2]}" for k, v in self.blocks.items())
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    @staticmethod
    def side_lists(enc: Encounter, actor: Unit) -> tuple[list[int], list[int]]:
        """(unit ids of the actor's side, unit ids of the other sides), each in id order."""
        mine = [u.id for u in enc.units if u.side == actor.side]
        other = [u.id for u in enc.units if u.side != actor.side]
        return mine, other

    def encode(self, d: Decision, enc: Encounter, actor: Unit, lists=None) -> int | None:
        """Index of a decision, or None if this layout cannot express it."""
        if d.action == END_TURN:
            return 0
        block = self.blocks.get(d.action)
        if block is None:
            return None
        start, kind, count = block
        if kind == "none":
            return start + d.option if d.option < count else None
        if kind == "square":
            R = self.radius
            i, j = d.square[0] - actor.pos[0] + R, d.square[1] - actor.pos[1] + R
            return start + i + j * self.side if 0 <= i < self.side and 0 <= j < self.side else None
        mine, other = lists or self.side_lists(enc, actor)
        pool = mine if kind == "ally" else other
        try:
            k = pool.index(d.target)
        except ValueError:
            return None
        return start + k if k < count else None

    def decode(self, index: int, enc: Encounter, actor: Unit) -> Decision | None:
        """The decision of an index, or None if the slot names nothing (an empty unit slot)."""
        if index == 0:
            return END
        if not 0 < index < self.n:
            return None
        start, key, kind = self._block_at[index]
        k = index - start
        if kind == "none":
            return Decision(key, None, None, k)
        if kind == "square":
            j, i = divmod(k, self.side)
            R = self.radius
            return Decision(key, None, (actor.pos[0] + i - R, actor.pos[1] + j - R))
        mine, other = self.side_lists(enc, actor)
        pool = mine if kind == "ally" else other
        return Decision(key, target=pool[k]) if k < len(pool) else None

    def indices(self, legal: list[Decision], enc: Encounter, actor: Unit) -> list[int | None]:
        """The index of each legal decision, in `legal`'s order; None where this layout cannot express it (a
        run beyond the square window)."""
        if _native is not None:
            return self._indices_c(legal, enc, actor, None)
        return self._indices_py(legal, enc, actor)

    def _indices_c(self, legal: list[Decision], enc: Encounter, actor: Unit, mask: np.ndarray | None):
        """`indices` in C; with a mask, sets it True at each index instead (and returns None)."""
        R = self.radius
        return _native.action_indices(legal, self._table, enc.units, actor.side, actor.pos[0] - R, actor.pos[1] - R,
                                      self.side, END_TURN, mask)

    def _indices_py(self, legal: list[Decision], enc: Encounter, actor: Unit) -> list[int | None]:
        """`indices` in Python (the C module's oracle)."""
        mine, other = self.side_lists(enc, actor)
        slot_mine = {u: k for k, u in enumerate(mine)}
        slot_other = {u: k for k, u in enumerate(other)}
        R, side = self.radius, self.side
        ax, ay = actor.pos[0] - R, actor.pos[1] - R
        blocks = self.blocks
        idx: list[int | None] = []
        append = idx.append
        for d in legal:  # the same arithmetic as `encode`, inlined: this runs for every decision of a turn
            block = blocks.get(d[0])
            if block is None:
                append(0 if d[0] == END_TURN else None)
                continue
            start, kind, count = block
            if kind == "square":
                i, j = d[2][0] - ax, d[2][1] - ay
                append(start + i + j * side if 0 <= i < side and 0 <= j < side else None)
            elif kind == "none":
                append(start + d[3] if d[3] < count else None)
            else:
                k = (slot_mine if kind == "ally" else slot_other).get(d[1])
                append(start + k if k is not None and k < count else None)
        return idx

    def mask(self, legal: list[Decision], enc: Encounter, actor: Unit) -> np.ndarray:
        """Boolean mask over the action space: True exactly at the encodable legal decisions."""
        m = np.zeros(self.n, dtype=bool)
        if _native is not None:
            self._indices_c(legal, enc, actor, m)
        else:
            m[[i for i in self._indices_py(legal, enc, actor) if i is not None]] = True
        return m

    def label(self, index: int) -> str:
        return self.names[index]
