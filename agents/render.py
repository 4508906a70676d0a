"""The battle map for people: plain text, a rich renderable, and an RGB image for TensorBoard.

Units are drawn as one-character markers (PCs: capital letters, NPCs: digits then lower-case letters,
never a symbol the map legend uses); the legend under the map gives each marker's name, an HP bar, and
the ruleset's `unit_summary` (defenses, conditions, what it holds).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from engine.core.ruleset import Ruleset
    from engine.core.state import Encounter

# How terrain is drawn in text, whatever symbol the encounter file used.
TERRAIN_CHAR = {"floor": ".", "wall": "#", "low_cover": "c", "heavy_cover": "C", "difficult": "~",
                "door": "+", "open_door": "/", "window": "="}
TERRAIN_STYLE = {"floor": "grey50", "wall": "bold white on grey23", "low_cover": "yellow", "heavy_cover": "bold yellow",
                 "difficult": "cyan", "door": "magenta", "open_door": "magenta", "window": "blue"}
TERRAIN_RGB = {"floor": (40, 40, 40), "wall": (150, 150, 150), "low_cover": (150, 120, 40),
               "heavy_cover": (200, 160, 40), "difficult": (30, 70, 90), "door": (140, 60, 140),
               "open_door": (90, 50, 90), "window": (60, 90, 160)}
SIDE_RGB = [(60, 200, 80), (220, 60, 60), (70, 120, 230), (230, 200, 50)]
DOWN_RGB = (90, 90, 90)
MARKER_RGB = (0, 0, 0)
SIDE_STYLE = ["bold green", "bold red", "bold blue", "bold yellow"]
DOWN_MARK = "x"


def markers(enc: "Encounter") -> dict[int, str]:
    """A one-character marker per unit id, stable for an encounter (depends only on units and sides)."""
    taken = set(TERRAIN_CHAR.values()) | set(enc.grid.legend) | {DOWN_MARK, "X"}
    sides = enc.sides()
    pools = {}
    for n, side in enumerate(sides):
        if n == 0:
            pools[side] = [c for c in "ABDEFGHIJKLMNOPQRSTUVWYZ"]
        else:
            pools[side] = [c for c in "123456789abdefghijklmnopqrstuvwyz"]
    out: dict[int, str] = {}
    used: set[str] = set()
    for u in enc.units:
        pool = pools[u.side]
        first = u.name[:1].upper() if sides.index(u.side) == 0 else ""
        pick = first if first and first in pool and first not in used and first not in taken else None
        if pick is None:
            pick = next((c for c in pool if c not in used and c not in taken), "?")
        used.add(pick)
        out[u.id] = pick
    return out


def _grid_chars(enc: "Encounter") -> list[list[str]]:
    g = enc.grid
    return [[TERRAIN_CHAR.get(g.kind(g.index(x, y)), "?") for x in range(g.width)] for y in range(g.height)]


def _unit_layer(enc: "Encounter") -> dict[tuple[int, int], int]:
    """Square -> unit drawn there: active units on top of down ones."""
    out: dict[tuple[int, int], int] = {}
    for u in enc.units:
        if u.down and u.pos not in out:
            out[u.pos] = u.id
    for u in enc.units:
        if not u.down:
            out[u.pos] = u.id
    return out


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
    for pos, uid in _unit_layer(enc).items():
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
    layer = _unit_layer(enc)
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


def map_image(enc: "Encounter", cell: int = 24) -> np.ndarray:
    """The map as an RGB image (uint8, H x W x 3): terrain colours, units as side-coloured squares marked with
    the same characters as `map_text` and its legend, with a bar showing hit points left (down units greyed out),
    the acting unit outlined. For TensorBoard's add_image (dataformats HWC)."""
    g = enc.grid
    img = np.zeros((g.height * cell, g.width * cell, 3), dtype=np.uint8)
    for y in range(g.height):
        for x in range(g.width):
            img[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell] = TERRAIN_RGB.get(g.kind(g.index(x, y)),
                                                                                  (0, 0, 0))
    # a faint grid so squares can be counted
    img[::cell, :, :] = np.minimum(img[::cell, :, :], 20)
    img[:, ::cell, :] = np.minimum(img[:, ::cell, :], 20)
    sides = enc.sides()
    pad = max(1, cell // 6)
    bar_h = max(1, cell // 6)
    labels = []
    for pos, uid in _unit_layer(enc).items():
        u = enc.units[uid]
        x, y = pos
        colour = DOWN_RGB if u.down else SIDE_RGB[sides.index(u.side) % len(SIDE_RGB)]
        y0, x0 = y * cell, x * cell
        img[y0 + pad:y0 + cell - pad, x0 + pad:x0 + cell - pad] = colour
        frac = 0.0 if u.max_hp <= 0 else max(0.0, min(1.0, u.hp / u.max_hp))
        width = cell - 2 * pad
        filled = int(round(frac * width))
        img[y0 + cell - pad - bar_h:y0 + cell - pad, x0 + pad:x0 + pad + width] = (0, 0, 0)
        if filled:
            img[y0 + cell - pad - bar_h:y0 + cell - pad, x0 + pad:x0 + pad + filled] = (255, 255, 255)
        if uid == enc.actor_id:  # outline the acting unit
            img[y0:y0 + cell, x0:x0 + 1] = img[y0:y0 + cell, x0 + cell - 1:x0 + cell] = (255, 255, 0)
            img[y0:y0 + 1, x0:x0 + cell] = img[y0 + cell - 1:y0 + cell, x0:x0 + cell] = (255, 255, 0)
        labels.append((x0 + cell / 2, y0 + (cell - bar_h) / 2, uid))
    if labels and cell >= 12:  # below that a character would not be readable
        _draw_markers(img, labels, markers(enc), cell)
    return img


def _draw_markers(img: np.ndarray, labels: list[tuple[float, float, int]], marks: dict[int, str], cell: int) -> None:
    """Each unit's marker character at its (x, y) centre, in place, with Pillow's built-in font."""
    from PIL import Image, ImageDraw, ImageFont

    pic = Image.fromarray(img)
    draw = ImageDraw.Draw(pic)
    font = ImageFont.load_default(size=max(8, int(cell * 0.6)))  # a small bitmap font where FreeType is missing
    for x, y, uid in labels:
        draw.text((x, y), marks[uid], fill=MARKER_RGB, font=font, anchor="mm")
    img[...] = np.asarray(pic)
