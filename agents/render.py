"""The battle map for people: plain text and a rich renderable; the RGB picture is `envs/render.py`'s.

Units are drawn as one-character markers (PCs: capital letters, NPCs: digits then lower-case letters,
never a symbol the map legend uses); the legend under the map gives each marker's name, an HP bar, and
the ruleset's `unit_summary` (defenses, conditions, what it holds).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from envs.render import DOWN_MARK, TERRAIN_CHAR, map_image, map_picture, markers, unit_layer

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

__all__ = ["TERRAIN_CHAR", "TERRAIN_STYLE", "SIDE_STYLE", "column_numbers", "hp_bar", "legend_rows", "map_image",
           "map_picture", "map_rich", "map_text", "markers"]

TERRAIN_STYLE = {"floor": "grey50", "wall": "bold white on grey23", "low_cover": "yellow", "heavy_cover": "bold yellow",
                 "difficult": "cyan", "door": "magenta", "open_door": "magenta", "window": "blue"}
SIDE_STYLE = ["bold green", "bold red", "bold blue", "bold yellow"]


def _grid_chars(enc: "Encounter") -> list[list[str]]:
    g = enc.grid
    return [[TERRAIN_CHAR.get(g.kind(g.index(x, y)), "?") for x in range(g.width)] for y in range(g.height)]


def hp_bar(hp: int, max_hp: int, width: int = 10) -> str:
    """'[######....]' filled in proportion to hit points left."""
    frac = 0.0 if max_hp <= 0 else max(0.0, min(1.0, hp / max_hp))
    full = round(frac * width)
    if hp > 0 and full == 0:
        full = 1
    return "[" + "#" * full + "." * (width - full) + "]"


def _summary_text(ruleset: "Ruleset | None", u) -> str:
    if ruleset is None:
        return ""
    try:
        s = ruleset.unit_summary(u)
    except Exception:  # a unit the ruleset cannot summarise still gets drawn
        return ""
    parts = []
    defs = [f"{k[:3].capitalize()} {v}" for k, v in s.items() if isinstance(v, (int, float)) and k != "threshold"]
    if defs:
        parts.append(" ".join(defs))
    if "threshold" in s:
        parts.append(f"DT {s['threshold']}")
    if s.get("holding"):
        parts.append("holds " + ", ".join(s["holding"]))
    if s.get("conditions"):
        parts.append(", ".join(s["conditions"]))
    return "; ".join(parts)


def legend_rows(enc: "Encounter", ruleset: "Ruleset | None" = None) -> list[dict]:
    """One row per unit: marker, name, side, position, HP, bar, status, summary."""
    mk = markers(enc)
    actor = enc.actor_id
    rows = []
    for u in enc.units:
        status = "dead" if u.dead else ("down" if u.down else "")
        rows.append({"id": u.id, "marker": mk[u.id], "name": u.name, "side": u.side, "pos": u.pos,
                     "hp": u.hp, "max_hp": u.max_hp, "bar": hp_bar(u.hp, u.max_hp), "status": status,
                     "acting": u.id == actor, "summary": _summary_text(ruleset, u)})
    return rows


def column_numbers(width: int) -> list[str]:
    """The rows above a text map that number its columns: the tens (once there is a column 10), then the ones."""
    ones = "   " + "".join(str(x % 10) for x in range(width))
    if width <= 10:
        return [ones]
    return ["   " + "".join(str(x // 10 % 10) if x >= 10 else " " for x in range(width)), ones]


def map_text(enc: "Encounter", ruleset: "Ruleset | None" = None, legend: bool = True) -> str:
    """The map as plain text with column/row numbers, and (by default) the unit legend below it."""
    g = enc.grid
    chars = _grid_chars(enc)
    mk = markers(enc)
    for pos, uid in unit_layer(enc).items():
        x, y = pos
        chars[y][x] = DOWN_MARK if enc.units[uid].down else mk[uid]
    lines = column_numbers(g.width) + [f"{y:>2} " + "".join(row) for y, row in enumerate(chars)]
    if legend:
        lines.append("")
        for r in legend_rows(enc, ruleset):
            mark = ">" if r["acting"] else " "
            status = f" {r['status'].upper()}" if r["status"] else ""
            summ = f"  {r['summary']}" if r["summary"] and not r["status"] else ""
            lines.append(f"{mark}{r['marker']} {r['name']:<14} {r['side']:<5} ({r['pos'][0]:>2},{r['pos'][1]:>2}) "
                         f"{r['bar']} {max(0, r['hp']):>3}/{r['max_hp']:<3}{status}{summ}")
    return "\n".join(lines)


def map_rich(enc: "Encounter", ruleset: "Ruleset | None" = None):
    """The map as a rich renderable: coloured terrain and side markers, and a legend table."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    g = enc.grid
    mk = markers(enc)
    sides = enc.sides()
    layer = unit_layer(enc)
    text = Text()
    for row in column_numbers(g.width):
        text.append(row + "\n", style="dim")
    for y in range(g.height):
        text.append(f"{y:>2} ", style="dim")
        for x in range(g.width):
            uid = layer.get((x, y))
            if uid is not None:
                u = enc.units[uid]
                style = "dim" if u.down else SIDE_STYLE[sides.index(u.side) % len(SIDE_STYLE)]
                if uid == enc.actor_id:
                    style += " reverse"
                text.append(DOWN_MARK if u.down else mk[uid], style=style)
            else:
                kind = g.kind(g.index(x, y))
                text.append(TERRAIN_CHAR.get(kind, "?"), style=TERRAIN_STYLE.get(kind, ""))
        text.append("\n")
    table = Table(box=None, padding=(0, 1), show_header=True, header_style="dim")
    for col in ("", "unit", "side", "at", "HP", "", "status"):
        table.add_column(col)
    for r in legend_rows(enc, ruleset):
        u = enc.units[r["id"]]
        frac = 0 if r["max_hp"] <= 0 else r["hp"] / r["max_hp"]
        bar_style = "green" if frac > 0.5 else ("yellow" if frac > 0.25 else "red")
        style = SIDE_STYLE[sides.index(u.side) % len(SIDE_STYLE)]
        name = Text(("> " if r["acting"] else "  ") + r["name"], style="bold" if r["acting"] else "")
        status = r["status"].upper() or r["summary"]
        table.add_row(Text(r["marker"], style=style), name, r["side"], f"{r['pos'][0]},{r['pos'][1]}",
                      f"{max(0, r['hp'])}/{r['max_hp']}", Text(r["bar"], style=bar_style), status)
    return Group(text, table)
