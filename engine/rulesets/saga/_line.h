/* Line geometry shared by _legal.c, _observe.c and _tactics.c: the line between two squares as grid._Geometry.line traces it,
 * and the memo of Grid.sight both keep on a map's shared geometry. Include after Python.h.
 *
 * trace_line(w, dx, dy, out, cap): the squares strictly between two squares of a map w wide whose ends are dx, dy
 * apart (dy >= 0: from the lower flat index), in traced order, as flat offsets from the lower end; returns their
 * count, or -1 past `cap`. The trace samples x0 + 0.5 + k dx / n (n = 4 max(|dx|, |dy|) + 3, odd) from a corner
 * keeping every coordinate >= 0; such a sample is never within 1 / 2n of an integer, so this exact integer floor
 * is Python's float one. */
#ifndef SAGA_LINE_H
#define SAGA_LINE_H

/* One square of a traced line, by its line code (Grid.sight's: 4 blocks sight and effect, 3 effect only, 2 / 1
 * heavy / low cover): what it does to the line of sight, the line of effect and the cover met so far. */
static inline void fold_code(int code, int *los, int *loe, int *cover) {
    if (code == 4)
        *los = *loe = 0;
    else if (code == 3)
        *loe = 0;
    else if (code == 2)
        *cover = 2;
    else if (code == 1 && !*cover)
        *cover = 1;
}

static int trace_line(long w, long dx, long dy, int *out, int cap) {
    long x0 = dx < 0 ? -dx : 0, y0 = dy < 0 ? -dy : 0, a0, b0, n, k, x, y, rx, ry, last = -1;
    int cnt = 0;
    a0 = y0 * w + x0;
    b0 = (y0 + dy) * w + x0 + dx;
    n = 4 * (labs(dx) > labs(dy) ? labs(dx) : labs(dy)) + 3;
    /* sample k at (2n x0 + n + 2k dx) / 2n: x = the quotient, rx = the remainder, stepped by 2 dx (< 2n) */
    x = x0;
    y = y0;
    rx = ry = n;
    for (k = 1; k < n; k++) {
        long i;
        rx += 2 * dx;
        ry += 2 * dy;
        if (rx >= 2 * n) {
            rx -= 2 * n;
            x++;
        } else if (rx < 0) {
            rx += 2 * n;
            x--;
        }
        if (ry >= 2 * n) {
            ry -= 2 * n;
            y++;
        } else if (ry < 0) {
            ry += 2 * n;
            y--;
        }
        i = y * w + x;
        if (i == a0 || i == b0 || i == last)
            continue;
        last = i;
        if (cnt == cap)
            return -1;
        out[cnt++] = (int)(i - a0);
    }
    return cnt;
}

/* Grid.sight of every pair of squares depends only on what each square does to a line (the line codes of the doors
 * and broken objects as they stand), so it is memoised per map and per codes, with the map's shared geometry:
 * geometry.__dict__["saga_sight"] = {codes (bytes): bytearray(size * size)}, a byte per pair (the lower square
 * first): 0 until known, else 0x80 | los | loe << 1 | cover << 2 (0 none, 1 low, 2 heavy). At most SIGHT_TABLES
 * codes per map (the dict is emptied beyond), and none for maps of more than SIGHT_SQUARES squares. */
#define SIGHT_SQUARES 1024
#define SIGHT_TABLES 8

/* *out: a new reference to the memo of `codes` in the geometry's __dict__ `geo_dict` (`name`: "saga_sight",
 * interned), made on first use; NULL when there is none to keep. -1 on a Python error. */
static int sight_memo(PyObject *geo_dict, PyObject *name, PyObject *codes, Py_ssize_t size, PyObject **out) {
    PyObject *tables, *got;
    *out = NULL;
    if (size <= 0 || size > SIGHT_SQUARES || !PyBytes_CheckExact(codes) || PyBytes_GET_SIZE(codes) != size)
        return 0;
    tables = PyDict_GetItemWithError(geo_dict, name);
    if (!tables) {
        if (PyErr_Occurred() || !(tables = PyDict_New()))
            return -1;
        if (PyDict_SetItem(geo_dict, name, tables) < 0) {
            Py_DECREF(tables);
            return -1;
        }
        Py_DECREF(tables);
    }
    if (!PyDict_Check(tables))
        return 0;
    got = PyDict_GetItemWithError(tables, codes);
    if (got) {
        if (PyByteArray_CheckExact(got) && PyByteArray_GET_SIZE(got) == size * size)
            *out = Py_NewRef(got);
        return 0;
    }
    if (PyErr_Occurred())
        return -1;
    if (PyDict_GET_SIZE(tables) >= SIGHT_TABLES)
        PyDict_Clear(tables);
    if (!(got = PyByteArray_FromStringAndSize(NULL, size * size)))
        return -1;
    memset(PyByteArray_AS_STRING(got), 0, (size_t)(size * size));
    if (PyDict_SetItem(tables, codes, got) < 0) {
        Py_DECREF(got);
        return -1;
    }
    *out = got;
    return 0;
}

#endif
