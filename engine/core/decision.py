"""A decision: one atomic choice of the acting unit (move to a square, attack a target, aim, end turn)."""
from __future__ import annotations

from typing import NamedTuple

END_TURN = "end_turn"


class Decision(NamedTuple):
    """`action` is a catalogue key; `target` a unit id, `square` an (x, y), `option` a small int."""

    action: str
    target: int | None = None
    square: tuple[int, int] | None = None
    option: int = 0

    def to_dict(self) -> dict:
        d: dict = {"action": self.action}
        if self.target is not None:
            d["target"] = self.target
        if self.square is not None:
            d["square"] = list(self.square)
        if self.option:
            d["option"] = self.option
        return d

    @staticmethod
    def from_dict(d: dict) -> "Decision":
        sq = d.get("square")
        return Decision(d["action"], d.get("target"), tuple(sq) if sq is not None else None, int(d.get("option", 0)))


END = Decision(END_TURN)


# ---- interned decisions: a ruleset's legal_actions may return the same objects each time (the mask's hot path
# compares them by identity first); decisions are immutable, so every ruleset and every map of a size shares them.
_BY_TARGET: dict[tuple[str, int], Decision] = {}
_BY_OPTION: dict[tuple[str, int], Decision] = {}


def target_decision(action: str, target: int) -> Decision:
    """The one Decision(action, target) (never evicted: what it returned once it returns for good)."""
    got = _BY_TARGET.get((action, target))
    if got is None:
        got = _BY_TARGET[(action, target)] = Decision(action, target)
    return got


def option_decision(action: str, option: int) -> Decision:
    """The one Decision(action, option=option) (never evicted)."""
    got = _BY_OPTION.get((action, option))
    if got is None:
        got = _BY_OPTION[(action, option)] = Decision(action, option=option)
    return got


class SquareDecisions(dict):
    """action -> [Decision(action, square=(x, y)) for every flat square index of maps of one size], built on first
    use."""

    def __init__(self, width: int, height: int):
        super().__init__()
        self.xy = [(i % width, i // width) for i in range(width * height)]

    def __missing__(self, action: str) -> list[Decision]:
        got = self[action] = [Decision(action, square=xy) for xy in self.xy]
        return got


_SQUARE_DECISIONS: dict[tuple[int, int], SquareDecisions] = {}


def square_decisions(grid) -> SquareDecisions:
    """The interned square decisions of maps of the grid's size."""
    got = _SQUARE_DECISIONS.get((grid.width, grid.height))
    if got is None:
        if len(_SQUARE_DECISIONS) > 256:  # above the 81 sizes a varied generator draws (8 to 16 squares a side)
            _SQUARE_DECISIONS.clear()
        got = _SQUARE_DECISIONS[(grid.width, grid.height)] = SquareDecisions(grid.width, grid.height)
    return got
