"""The battle map as a picture (RGB, uint8, H x W x 3): the env's `rgb_array` frames, TensorBoard's map image.

Units are one-character markers (PCs: capital letters, NPCs: digits then lower-case letters, never a symbol the
map's terrain uses), the same as `agents/render.py`'s text map draws. `map_image` is the squares alone;
`map_picture` adds the column and row numbers and a legend (marker, name, hit points, square) and can pad to
a fixed size, as a video's frames must all be one size.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from engine.core.state import Encounter

# How terrain is drawn in text, whatever symbol the encounter file used (markers avoid these characters).
TERRAIN_CHAR = {"floor": ".", "wall": "#", "low_cover": "c", "heavy_cover": "C", "difficult": "~",
                "door": "+", "open_door": "/", "window": "="}
TERRAIN_RGB = {"floor": (40, 40, 40), "wall": (150, 150, 150), "low_cover": (150, 120, 40),
               "heavy_cover": (200, 160, 40), "difficult": (30, 70, 90), "door": (140, 60, 140),
               "open_door": (90, 50, 90), "window": (60, 90, 160)}
SIDE_RGB = [(60, 200, 80), (220, 60, 60), (70, 120, 230), (230, 200, 50)]
DOWN_RGB = (90, 90, 90)
MARKER_RGB = (0, 0, 0)
BACKGROUND_RGB = (16, 16, 16)
TEXT_RGB = (230, 230, 230)
ACTING_RGB = (255, 255, 0)
DOWN_MARK = "x"
BLOCK = 16  # picture sides are a multiple of this (video encoders work in 16-pixel blocks)
LEGEND_WIDTH = 320  # the legend's lines need this many pixels, however narrow the map
KEY = [k for k in TERRAIN_RGB if k != "floor"]  # the terrain key under the legend, KEY_COLUMNS a line
KEY_COLUMNS = 3
KEY_LINES = -(-len(KEY) // KEY_COLUMNS)


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


def unit_layer(enc: "Encounter") -> dict[tuple[int, int], int]:
    """Square -> unit drawn there: active units on top of down ones."""
    out: dict[tuple[int, int], int] = {}
    for u in enc.units:
        if u.down and u.pos not in out:
            out[u.pos] = u.id
    for u in enc.units:
        if not u.down:
            out[u.pos] = u.id
    return out


def side_rgb(enc: "Encounter", u) -> tuple[int, int, int]:
    """The colour a unit is drawn in: its side's, grey once it is down."""
    return DOWN_RGB if u.down else SIDE_RGB[enc.sides().index(u.side) % len(SIDE_RGB)]


def map_image(enc: "Encounter", cell: int = 24) -> np.ndarray:
    """The squares as an RGB image (uint8, H x W x 3): terrain colours, units as side-coloured squares marked with
    the same characters as the text map and its legend, with a bar showing hit points left (down units greyed out),
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
    pad = max(1, cell // 6)
    bar_h = max(1, cell // 6)
    labels = []
    for pos, uid in unit_layer(enc).items():
        u = enc.units[uid]
        x, y = pos
        y0, x0 = y * cell, x * cell
        img[y0 + pad:y0 + cell - pad, x0 + pad:x0 + cell - pad] = side_rgb(enc, u)
        frac = 0.0 if u.max_hp <= 0 else max(0.0, min(1.0, u.hp / u.max_hp))
        width = cell - 2 * pad
        filled = int(round(frac * width))
        img[y0 + cell - pad - bar_h:y0 + cell - pad, x0 + pad:x0 + pad + width] = (0, 0, 0)
        if filled:
            img[y0 + cell - pad - bar_h:y0 + cell - pad, x0 + pad:x0 + pad + filled] = (255, 255, 255)
        if uid == enc.actor_id:  # outline the acting unit
            img[y0:y0 + cell, x0:x0 + 1] = img[y0:y0 + cell, x0 + cell - 1:x0 + cell] = ACTING_RGB
            img[y0:y0 + 1, x0:x0 + cell] = img[y0 + cell - 1:y0 + cell, x0:x0 + cell] = ACTING_RGB
        labels.append((x0 + cell / 2, y0 + (cell - bar_h) / 2, uid))
    if labels and cell >= 12:  # below that a character would not be readable
        _draw_markers(img, labels, markers(enc), cell)
    return img


def _font(px: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=px)  # a small bitmap font where FreeType is missing


def _draw_markers(img: np.ndarray, labels: list[tuple[float, float, int]], marks: dict[int, str], cell: int) -> None:
    """Each unit's marker character at its (x, y) centre, in place, with Pillow's built-in font."""
    from PIL import Image, ImageDraw

    pic = Image.fromarray(img)
    draw = ImageDraw.Draw(pic)
    font = _font(max(8, int(cell * 0.6)))
    for x, y, uid in labels:
        draw.text((x, y), marks[uid], fill=MARKER_RGB, font=font, anchor="mm")
    img[...] = np.asarray(pic)


def _layout(squares: tuple[int, int], units: int, cell: int) -> dict:
    """Where the parts of a picture of `squares` (width, height) and `units` legend lines go, and its size."""
    w, h = squares
    text_px = max(8, cell // 2)
    line = text_px + 6
    left = top = cell  # the row numbers' and the column numbers' bands
    legend_top = top + h * cell + 6
    key_top = legend_top + units * line + 6
    width = max(left + w * cell + 4, LEGEND_WIDTH)
    height = key_top + KEY_LINES * line + 4
    return {"left": left, "top": top, "legend_top": legend_top, "key_top": key_top, "line": line,
            "text_px": text_px, "width": -(-width // BLOCK) * BLOCK, "height": -(-height // BLOCK) * BLOCK}


def picture_shape(squares: tuple[int, int], units: int, cell: int = 24) -> tuple[int, int, int]:
    """The (H, W, 3) shape of `map_picture(..., squares=squares, units=units, cell=cell)`."""
    lay = _layout(squares, units, cell)
    return lay["height"], lay["width"], 3


def map_picture(enc: "Encounter", cell: int = 24, squares: tuple[int, int] | None = None,
                units: int | None = None) -> np.ndarray:
    """`map_image` with its coordinates (x above each column, y left of each row, counted from 0 as encounter files
    and typed commands count them) and a legend under it: per unit its marker in its side's colour, name, hit
    points, square and whether it is down or acting. The picture is as large as `squares` (width, height) and
    `units` legend lines need when they are larger than the encounter's (the env passes its largest, so every
    frame has one size), and a key of the terrain colours; each side a multiple of 16 pixels. RGB, uint8,
    H x W x 3."""
    from PIL import Image, ImageDraw

    g = enc.grid
    w, h = squares or (g.width, g.height)
    w, h = max(w, g.width), max(h, g.height)
    n = max(units or 0, len(enc.units))
    lay = _layout((w, h), n, cell)
    left, top, line = lay["left"], lay["top"], lay["line"]
    img = np.empty((lay["height"], lay["width"], 3), dtype=np.uint8)
    img[...] = BACKGROUND_RGB
    img[top:top + g.height * cell, left:left + g.width * cell] = map_image(enc, cell)
    pic = Image.fromarray(img)
    draw = ImageDraw.Draw(pic)
    font = _font(lay["text_px"])
    for x in range(g.width):
        draw.text((left + x * cell + cell / 2, top / 2), str(x), fill=TEXT_RGB, font=font, anchor="mm")
    for y in range(g.height):
        draw.text((left / 2, top + y * cell + cell / 2), str(y), fill=TEXT_RGB, font=font, anchor="mm")
    marks = markers(enc)
    box = lay["text_px"] + 2
    for i, u in enumerate(enc.units):
        y0 = lay["legend_top"] + i * line
        draw.rectangle((4, y0, 4 + box, y0 + box), fill=side_rgb(enc, u),
                       outline=ACTING_RGB if u.id == enc.actor_id else None)
        draw.text((4 + box / 2 + 1, y0 + box / 2 + 1), marks[u.id], fill=MARKER_RGB, font=font, anchor="mm")
        status = "dead" if u.dead else ("down" if u.down else ("acting" if u.id == enc.actor_id else ""))
        text = f"{u.name}  {max(0, u.hp)}/{u.max_hp} HP  ({u.pos[0]}, {u.pos[1]})" + (f"  {status}" if status else "")
        draw.text((box + 12, y0 + box / 2 + 1), text, fill=TEXT_RGB, font=font, anchor="lm")
    column = (LEGEND_WIDTH - 4) // KEY_COLUMNS
    for i, kind in enumerate(KEY):
        x0, y0 = 4 + (i % KEY_COLUMNS) * column, lay["key_top"] + (i // KEY_COLUMNS) * line
        draw.rectangle((x0, y0, x0 + box, y0 + box), fill=TERRAIN_RGB[kind], outline=TEXT_RGB)
        draw.text((x0 + box + 6, y0 + box / 2 + 1), kind.replace("_", " "), fill=TEXT_RGB, font=font, anchor="lm")
    return np.asarray(pic).copy()
