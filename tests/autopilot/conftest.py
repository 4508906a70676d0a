"""Shared fixtures for the autopilot tests: a small Saga encounter and a scripted GM."""
from __future__ import annotations

import re

import pytest

from engine.core.encounter_file import parse_encounter

YARD = """
ruleset: saga
name: Test yard
map: |
  ##########
  #........#
  #..c.....#
  #........#
  #........#
  ##########
units:
  - {name: Kira, side: pcs, template: smuggler, at: [1, 1]}
  - {name: Dax, side: pcs, template: bounty_hunter, at: [1, 4]}
  - {name: Trooper 1, side: npcs, template: trooper, at: [7, 3]}
  - {name: Trooper 2, side: npcs, template: trooper, at: [8, 4], hp: 6}
"""

DIE = re.compile(r"^d(\d+) for ")


@pytest.fixture
def yard():
    return parse_encounter(YARD, "yard.yaml")


class Table:
    """Collects what the session says; `ask` answers from a script, then from a fallback function."""

    def __init__(self, script, fallback):
        self.script = list(script)
        self.fallback = fallback
        self.out: list[str] = []
        self.prompts: list[str] = []
        self.session = None

    def say(self, text: str) -> None:
        self.out.append(str(text))

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.script:
            item = self.script.pop(0)
            line = item(self, prompt) if callable(item) else item
        else:
            line = self.fallback(self, prompt)
        self.out.append(f"{prompt}{line}")
        return line

    @property
    def text(self) -> str:
        return "\n".join(self.out)
