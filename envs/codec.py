"""Action codec: flat Discrete index <-> engine Decision, and the mask from the legal enumeration.

Layout (fixed for a ruleset, a maximum of units per side and a maximum map size):
  [0]                         end turn
  per catalogue action, in catalogue order, a block of `options` x target slots, option-major:
    index = start + option * slots + slot
  where the target kind gives the slots of one option:
    target 'none'             1 slot (the block is the `options` variants: which weapon, which item, ...)
    target 'enemy' / 'unit'   `max_per_side` slots: the k-th unit of the other side (by unit id)
    target 'ally'             `max_per_side` slots: the k-th unit of the actor's side (by unit id)
    target 'square'           `(2R+1)^2` slots: a window of radius R around the acting unit,
                              (x, y) -> (x - ax + R) + (y - ay + R) * (2R + 1)
    target 'intersection'     `(2R+2)^2` slots: the corners of the squares of that window; the intersection
                              Decision(square=(x, y)) names (the top-left corner of square (x, y)) ->
                              (x - ax + R) + (y - ay + R) * (2R + 2)
An action with one option (every target action of Saga) is its target slots alone, as before options could
combine with a target. Everything is relative to the acting unit: "attack enemy 2" means the same to the
policy whichever side it plays (the observation lists units in the same order), and "move 3 squares east" is
the same slot wherever it stands. Squares beyond the window (a run longer than R squares) cannot be expressed;
they are legal for the engine but absent from the mask.
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

# a target kind's code in the C loop (envs/_native.c KIND_*); anything else: a unit of the other side (3)
_KIND_CODES = {"none": 0, "square": 1, "ally": 2, "intersection": 4}
_WINDOWS = ("square", "intersection")


class ActionCodec:
    def __init__(self, ruleset: Ruleset, max_per_side: int, map_w: int, map_h: int, radius: int = 8):
        self.ruleset, self.max_per_side, self.map_w, self.map_h = ruleset, max_per_side, map_w, map_h
        self.radius = radius
        self.side = 2 * radius + 1
        # action -> (start, target kind, options, slots of one option); the block holds options * slots indices
        self.blocks: dict[str, tuple[int, str, int, int]] = {}
        self.names: list[str] = [END_TURN]
        n = 1
        for key, spec in ruleset.catalogue.items():
            if key == END_TURN:
                continue
            slots = self.slots(spec.target)
            options = max(1, spec.options)
            self.blocks[key] = (n, spec.target, options, slots)
            self.names += [key] * (options * slots)
            n += options * slots
        self.n = n
        self._table = {key: (start, _KIND_CODES.get(kind, 3), options, slots)
                       for key, (start, kind, options, slots) in self.blocks.items()}
        self._block_at: list[tuple[int, str, str, int]] = [(0, END_TURN, "none", 1)]  # per index: its block
        for key, (start, kind, options, slots) in self.blocks.items():
            self._block_at += [(start, key, kind, slots)] * (options * slots)

    def slots(self, kind: str) -> int:
        """The target slots of one option of an action of target `kind` (module docstring)."""
        if kind == "none":
            return 1
        if kind == "square":
            return self.side * self.side
        if kind == "intersection":
            return (self.side + 1) * (self.side + 1)
        return self.max_per_side

    @property
    def signature(self) -> str:
        """Identifies the encoding; a model trained on another encoding must be refused. An action's options
        appear apart from its slot count only when they combine with a target (which a layout before that could
        not express), so earlier encodings keep their signature."""
        def block(key: str, kind: str, options: int, slots: int) -> str:
            return f"{key}:{kind}:{options * slots}" + (f":x{options}" if options > 1 and kind != "none" else "")
        text = f"{self.ruleset.id}|{self.max_per_side}|{self.map_w}x{self.map_h}|r{self.radius}|" + \
               ",".join(block(k, *v[1:]) for k, v in self.blocks.items())
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    @staticmethod
    def side_lists(enc: Encounter, actor: Unit) -> tuple[list[int], list[int]]:
        """(unit ids of the actor's side, unit ids of the other sides), each in id order."""
        mine = [u.id for u in enc.units if u.side == actor.side]
        other = [u.id for u in enc.units if u.side != actor.side]
        return mine, other

    def encode(self, d: Decision, enc: Encounter, actor: Unit, lists=None) -> int | None:
        """Index of a decision, or None if this layout cannot express it (an action not in the catalogue, an option
        beyond the action's, a target not on that side or beyond the slots, a square or intersection beyond the
        window, a target kind's target missing)."""
        if d.action == END_TURN:
            return 0
        block = self.blocks.get(d.action)
        if block is None:
            return None
        start, kind, options, slots = block
        if not (isinstance(d.option, int) and 0 <= d.option < options):
            return None
        start += d.option * slots
        if kind == "none":
            return start
        if kind in _WINDOWS:
            if d.square is None:
                return None
            R, side = self.radius, self.side + (kind == "intersection")
            i, j = d.square[0] - actor.pos[0] + R, d.square[1] - actor.pos[1] + R
            return start + i + j * side if 0 <= i < side and 0 <= j < side else None
        mine, other = lists or self.side_lists(enc, actor)
        pool = mine if kind == "ally" else other
        try:
            k = pool.index(d.target)
        except ValueError:
            return None
        return start + k if k < slots else None

    def decode(self, index: int, enc: Encounter, actor: Unit) -> Decision | None:
        """The decision of an index, or None if the slot names nothing (an empty unit slot)."""
        if index == 0:
            return END
        if not 0 < index < self.n:
            return None
        start, key, kind, slots = self._block_at[index]
        option, k = divmod(index - start, slots)
        if kind == "none":
            return Decision(key, None, None, option)
        if kind in _WINDOWS:
            j, i = divmod(k, self.side + (kind == "intersection"))
            R = self.radius
            return Decision(key, None, (actor.pos[0] + i - R, actor.pos[1] + j - R), option)
        mine, other = self.side_lists(enc, actor)
        pool = mine if kind == "ally" else other
        return Decision(key, pool[k], None, option) if k < len(pool) else None

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
            start, kind, options, slots = block
            option = d[3]
            if not 0 <= option < options:
                append(None)
                continue
            start += option * slots
            if kind == "square":
                i, j = d[2][0] - ax, d[2][1] - ay
                append(start + i + j * side if 0 <= i < side and 0 <= j < side else None)
            elif kind == "none":
                append(start)
            elif kind == "intersection":
                i, j = d[2][0] - ax, d[2][1] - ay
                append(start + i + j * (side + 1) if 0 <= i <= side and 0 <= j <= side else None)
            else:
                k = (slot_mine if kind == "ally" else slot_other).get(d[1])
                append(start + k if k is not None and k < slots else None)
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
