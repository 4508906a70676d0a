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
