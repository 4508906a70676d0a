"""Dice: every roll in the engine comes from a `Dice` object passed in, never from a global.

`SeededDice` for simulation and training (same seed + same decisions = same battle), `ScriptedDice`
for tests (a queue of faces), `AskedDice` for a GM typing in what the table rolled.

A ruleset hands `dice.show(events)` what a person rolling should see before the next roll (an attack's
result before its damage is asked); only `AskedDice` does anything with it.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

from .errors import InputError

_EXPR = re.compile(r"^\s*(\d*)\s*d\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$|^\s*([+-]?\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """`count`d`sides` + `bonus`, e.g. 2d8+3."""

    count: int
    sides: int
    bonus: int = 0

    @property
    def mean(self) -> float:
        return self.count * (self.sides + 1) / 2 + self.bonus

    @property
    def minimum(self) -> int:
        return self.count + self.bonus

    @property
    def maximum(self) -> int:
        return self.count * self.sides + self.bonus

    def plus(self, dice: int = 0, bonus: int = 0) -> "DiceExpr":
        return DiceExpr(self.count + dice, self.sides, self.bonus + bonus)

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.bonus)
        b = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}d{self.sides}{b}"


def parse_dice(text: str | int) -> DiceExpr:
    """Parse '2d8+3', 'd20', '1d6-1' or a plain number; raises InputError naming the expected form."""
    if isinstance(text, int):
        return DiceExpr(0, 1, text)
    m = _EXPR.match(str(text))
    if not m:
        raise InputError(f"'{text}' is not a dice expression", fix="write it like 2d8+3, d20 or 5")
    if m.group(5) is not None:
        return DiceExpr(0, 1, int(m.group(5)))
    count = int(m.group(1) or 1)
    sides = int(m.group(2))
    if sides < 1 or not 1 <= count <= 100:
        raise InputError(f"'{text}' is not a usable dice expression", fix="use 1-100 dice of at least 1 side")
    bonus = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    return DiceExpr(count, sides, bonus)


class DiceStopped(Exception):
    """A person at a dice prompt typed one of its stop words (`undo`, `quit`): the roll, and the decision being
    resolved, did not happen. Whoever asked puts the state back as it was before the decision."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class Dice:
    """Source of die faces. Subclasses implement `face(sides, why)`."""

    def face(self, sides: int, why: str) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def show(self, events: list) -> None:
        """Events that happened before the next roll, for a person rolling to see; ignored by default."""

    def d20(self, why: str = "d20") -> int:
        return self.face(20, why)

    def roll(self, expr: DiceExpr, why: str = "damage") -> tuple[int, list[int]]:
        """Roll an expression; returns (total, faces)."""
        faces = [self.face(expr.sides, why) for _ in range(expr.count)]
        return sum(faces) + expr.bonus, faces


class SeededDice(Dice):
    """Pseudo-random faces from a seeded generator (Python's Mersenne Twister: fast per call)."""

    def __init__(self, seed: int | None = 0):
        self.seed = seed
        self._rng = random.Random(seed)

    def face(self, sides: int, why: str) -> int:
        if type(sides) is int and sides > 0:  # randint(1, sides) is 1 + _randbelow(sides): the same draws, 2 calls less
            return self._rng._randbelow(sides) + 1
        return self._rng.randint(1, sides)

    def getstate(self):
        return self._rng.getstate()

    def setstate(self, state) -> None:
        self._rng.setstate(state)


class ScriptedDice(Dice):
    """Faces from a queue, for tests. Running out, or a face that cannot be, is an error."""

    def __init__(self, faces: list[int] | tuple[int, ...] = ()):
        self.faces = list(faces)
        self.asked: list[tuple[int, str]] = []

    def push(self, *faces: int) -> "ScriptedDice":
        self.faces.extend(faces)
        return self

    def face(self, sides: int, why: str) -> int:
        self.asked.append((sides, why))
        if not self.faces:
            raise AssertionError(f"scripted dice ran out (asked d{sides} for {why})")
        f = self.faces.pop(0)
        if not 1 <= f <= sides:
            raise AssertionError(f"scripted face {f} impossible on d{sides} ({why})")
        return f


class AskedDice(Dice):
    """Faces typed in by a person: `ask(prompt)` returns their text, `tell(text)` answers them.

    A line of several numbers (`3 4 9`) answers the next dice asked, in order (each one used is told); an
    impossible or mistyped value is refused with what to type and asked again; one of the `stop` words (say
    `undo`, `quit`) raises DiceStopped. `show(events)` passes what a resolution shows before its next roll to
    the `shown` callback (so an attack's result is on the screen before its damage is asked).
    """

    def __init__(self, ask: Callable[[str], str], tell: Callable[[str], None] = print, tries: int = 20,
                 stop: tuple[str, ...] = (), shown: Callable[[list], None] | None = None):
        self.ask, self.tell, self.tries = ask, tell, tries
        self.stop = tuple(w.lower() for w in stop)
        self.shown = shown
        self.ahead: list[int] = []  # values typed ahead for the next dice

    def clear(self) -> None:
        """Forget the values typed ahead (the decision they were for was taken back)."""
        self.ahead.clear()

    def show(self, events: list) -> None:
        if self.shown is not None and events:
            self.shown(list(events))

    def face(self, sides: int, why: str) -> int:
        if self.ahead:
            value = self.ahead.pop(0)
            if 1 <= value <= sides:
                self.tell(f"d{sides} for {why}: {value} (typed ahead)")
                return value
            self.tell(f"{value} (typed ahead) is not a possible d{sides} roll for {why}; "
                      f"the values typed after it are dropped too.")
            self.ahead.clear()
        words = f", or {' / '.join(self.stop)}" if self.stop else ""
        for _ in range(self.tries):
            text = self.ask(f"d{sides} for {why}: ").strip()
            if text.lower() in self.stop:
                raise DiceStopped(text.lower())
            values = text.replace(",", " ").split()
            if values and all(v.isascii() and v.isdigit() for v in values) and 1 <= int(values[0]) <= sides:
                self.ahead = [int(v) for v in values[1:]]
                return int(values[0])
            self.tell(f"'{text}' is not a possible d{sides} roll; type a whole number from 1 to {sides} "
                      f"(or several, for the next dice too: 3 4 9){words}.")
        raise InputError(f"no valid d{sides} roll for {why} after {self.tries} tries")
