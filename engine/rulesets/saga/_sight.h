/* Saga's memo of Grid.sight per map, shared by _legal.c, _observe.c and _tactics.c (the line trace and the fold of
 * a line's codes are the core's: engine/core/_geometry.h). Include after Python.h. */
#ifndef SAGA_SIGHT_H
#define SAGA_SIGHT_H

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
