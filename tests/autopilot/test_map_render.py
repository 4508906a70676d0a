"""The text maps (plain and rich, the terminal's) number every column: a tens row once the map has a column 10."""
from __future__ import annotations

import pytest
from rich.console import Console

from engine.core.encounter_file import parse_encounter
from engine.rulesets import get_ruleset

from agents.render import map_rich, map_text

RS = get_ruleset("saga")


def _yard(width: int):
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * 3 + ["#" * width]
    text = "ruleset: saga\nmap: |\n" + "".join(f"  {r}\n" for r in rows) + (
        "units:\n  - {name: Kira, side: pcs, template: smuggler, at: [1, 1]}\n"
        f"  - {{name: Trooper, side: npcs, template: trooper, at: [{width - 2}, 3]}}\n")
    return parse_encounter(text, "yard.yaml")


def _rich_lines(enc) -> list[str]:
    console = Console(record=True, width=200, color_system=None)
    console.print(map_rich(enc, RS))
    return console.export_text().splitlines()


@pytest.mark.parametrize("render", [lambda e: map_text(e, RS).splitlines(), _rich_lines], ids=["text", "rich"])
@pytest.mark.parametrize("width", [10, 12, 23])
def test_every_column_is_numbered(render, width):
    enc = _yard(width)
    lines = render(enc)
    rows = [n for n, line in enumerate(lines) if line.startswith(" 0 ")]
    header = lines[:rows[0]]
    ones = header[-1]
    assert ones[3:3 + width] == "".join(str(x % 10) for x in range(width))
    if width > 10:
        tens = header[-2]
        assert [tens[3 + x] for x in range(10, width)] == [str(x // 10) for x in range(10, width)]
        assert tens[3:13].strip() == ""
    else:
        assert len(header) == 1
    trooper = lines[rows[0] + 3]   # row y=3: the trooper at x = width - 2, under its column's number
    assert trooper[3 + width - 2] not in ".#"
