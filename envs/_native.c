/* The per-decision loops of the action codec and the observation encoder in C: the same arithmetic as
 * their Python versions in envs/codec.py and envs/observation.py (used when this module is not built; the
 * tests check both give the same results).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { KIND_NONE = 0, KIND_SQUARE = 1, KIND_ALLY = 2, KIND_OTHER = 3 };

static int as_int(PyObject *o, long *out) {
    *out = PyLong_AsLong(o);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* action_indices(legal, table, slot_mine, slot_other, ax, ay, side, end_name, mask) -> [index | None]
 * table: action name -> (start, kind code, count); mask: None or a writable byte buffer set to 1 at every
 * encodable index. ActionCodec.indices. */
static PyObject *action_indices(PyObject *self, PyObject *args) {
    PyObject *legal, *table, *slot_mine, *slot_other, *end_name, *mask_obj, *fast, *out;
    long ax, ay, side;
    Py_ssize_t n, k;
    Py_buffer mask;
    int have_mask = 0;

    if (!PyArg_ParseTuple(args, "OO!O!O!lllOO", &legal, &PyDict_Type, &table, &PyDict_Type, &slot_mine,
                          &PyDict_Type, &slot_other, &ax, &ay, &side, &end_name, &mask_obj))
        return NULL;
    if (mask_obj != Py_None) {
        if (PyObject_GetBuffer(mask_obj, &mask, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        if (mask.itemsize != 1) {
            PyBuffer_Release(&mask);
            PyErr_SetString(PyExc_ValueError, "mask must be a writable buffer of bytes (a numpy bool array)");
            return NULL;
        }
        have_mask = 1;
    }
    fast = PySequence_Fast(legal, "legal must be a sequence of decisions");
    if (!fast)
        goto fail;
    n = PySequence_Fast_GET_SIZE(fast);
    out = PyList_New(n);
    if (!out)
        goto fail;
    for (k = 0; k < n; k++) {
        PyObject *d = PySequence_Fast_GET_ITEM(fast, k), *block, *value = NULL;
        long start, kind, count, index = -1;
        if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) < 4) {
            PyErr_SetString(PyExc_TypeError, "a decision must be (action, target, square, option)");
            goto fail_out;
        }
        block = PyDict_GetItemWithError(table, PyTuple_GET_ITEM(d, 0));
        if (!block) {
            int is_end;
            if (PyErr_Occurred())
                goto fail_out;
            is_end = PyObject_RichCompareBool(PyTuple_GET_ITEM(d, 0), end_name, Py_EQ);
            if (is_end < 0)
                goto fail_out;
            index = is_end ? 0 : -1;
        } else {
            if (!PyTuple_Check(block) || PyTuple_GET_SIZE(block) != 3 || as_int(PyTuple_GET_ITEM(block, 0), &start)
                || as_int(PyTuple_GET_ITEM(block, 1), &kind) || as_int(PyTuple_GET_ITEM(block, 2), &count)) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "table entries must be (start, kind, count)");
                goto fail_out;
            }
            if (kind == KIND_SQUARE) {
                PyObject *sq = PyTuple_GET_ITEM(d, 2);
                long x, y;
                if (!PyTuple_Check(sq) || PyTuple_GET_SIZE(sq) != 2) {
                    PyErr_SetString(PyExc_TypeError, "a square decision needs its (x, y)");
                    goto fail_out;
                }
                if (as_int(PyTuple_GET_ITEM(sq, 0), &x) || as_int(PyTuple_GET_ITEM(sq, 1), &y))
                    goto fail_out;
                x -= ax;
                y -= ay;
                if (0 <= x && x < side && 0 <= y && y < side)
                    index = start + x + y * side;
            } else if (kind == KIND_NONE) {
                long option;
                if (as_int(PyTuple_GET_ITEM(d, 3), &option))
                    goto fail_out;
                if (option < count)
                    index = start + option;
            } else {
                PyObject *slot = PyDict_GetItemWithError(kind == KIND_ALLY ? slot_mine : slot_other,
                                                         PyTuple_GET_ITEM(d, 1));
                long s;
                if (slot) {
                    if (as_int(slot, &s))
                        goto fail_out;
                    if (s < count)
                        index = start + s;
                } else if (PyErr_Occurred()) {
                    goto fail_out;
                }
            }
        }
        if (index >= 0) {
            if (have_mask) {
                if (index >= mask.len) {
                    PyErr_SetString(PyExc_IndexError, "index beyond the mask");
                    goto fail_out;
                }
                ((char *)mask.buf)[index] = 1;
            }
            value = PyLong_FromLong(index);
            if (!value)
                goto fail_out;
        } else {
            value = Py_NewRef(Py_None);
        }
        PyList_SET_ITEM(out, k, value);
    }
    Py_DECREF(fast);
    if (have_mask)
        PyBuffer_Release(&mask);
    return out;
fail_out:
    Py_DECREF(out);
fail:
    Py_XDECREF(fast);
    if (have_mask)
        PyBuffer_Release(&mask);
    return NULL;
}

static int get_long_attr(PyObject *o, const char *name, long *out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    int r;
    if (!v)
        return -1;
    r = as_int(v, out);
    Py_DECREF(v);
    return r;
}

static int get_pos(PyObject *u, long *x, long *y) {
    PyObject *pos = PyObject_GetAttrString(u, "pos");
    int r = -1;
    if (!pos)
        return -1;
    if (PyTuple_Check(pos) && PyTuple_GET_SIZE(pos) == 2)
        r = (as_int(PyTuple_GET_ITEM(pos, 0), x) || as_int(PyTuple_GET_ITEM(pos, 1), y)) ? -1 : 0;
    else
        PyErr_SetString(PyExc_TypeError, "a unit's pos must be (x, y)");
    Py_DECREF(pos);
    return r;
}

static float clip5(double v) {
    float f = (float)v;
    return f > 5.0f ? 5.0f : (f < -5.0f ? -5.0f : f);
}

/* unit_rows(out, offset, rows, parts, actor, W, H, width, base, metric) -> None
 * Writes the unit rows of ObservationEncoder.encode into the float32 buffer `out` from `offset`, clipped to
 * [-5, 5]: per row (a Unit or None) of `rows`, with `parts` = (features, threat or None) of each Unit row in
 * order; `width` floats a row, of which `base` (9 + 4) are not features; metric 0 alternating, 1 chebyshev, 2
 * manhattan. */
static PyObject *unit_rows(PyObject *self, PyObject *args) {
    PyObject *out_obj, *rows, *parts, *actor, *rows_fast = NULL, *parts_fast = NULL;
    Py_ssize_t offset, r, k = 0;
    long W, H, width, base, metric, ax, ay, actor_hp;
    Py_buffer out;
    float *o;

    if (!PyArg_ParseTuple(args, "OnOOOlllll", &out_obj, &offset, &rows, &parts, &actor, &W, &H, &width, &base,
                          &metric))
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (out.itemsize != 4) {
        PyErr_SetString(PyExc_ValueError, "out must be a float32 buffer");
        goto fail;
    }
    rows_fast = PySequence_Fast(rows, "rows must be a sequence");
    parts_fast = PySequence_Fast(parts, "parts must be a sequence");
    if (!rows_fast || !parts_fast)
        goto fail;
    if (offset < 0 || (offset + PySequence_Fast_GET_SIZE(rows_fast) * width) * 4 > out.len) {
        PyErr_SetString(PyExc_IndexError, "the rows do not fit the buffer");
        goto fail;
    }
    if (get_pos(actor, &ax, &ay) || get_long_attr(actor, "hp", &actor_hp))
        goto fail;
    actor_hp = actor_hp > 1 ? actor_hp : 1;
    o = (float *)out.buf + offset;
    for (r = 0; r < PySequence_Fast_GET_SIZE(rows_fast); r++, o += width) {
        PyObject *u = PySequence_Fast_GET_ITEM(rows_fast, r), *part, *feats, *threat, *down;
        long x, y, hp, max_hp, dx, dy, hi, lo, dist, j;
        Py_ssize_t nf;
        int is_down;
        for (j = 0; j < width; j++)
            o[j] = 0.0f;
        if (u == Py_None)
            continue;
        if (k >= PySequence_Fast_GET_SIZE(parts_fast)) {
            PyErr_SetString(PyExc_IndexError, "fewer parts than units");
            goto fail;
        }
        part = PySequence_Fast_GET_ITEM(parts_fast, k++);
        if (!PyTuple_Check(part) || PyTuple_GET_SIZE(part) != 2) {
            PyErr_SetString(PyExc_TypeError, "a part must be (features, threat or None)");
            goto fail;
        }
        feats = PyTuple_GET_ITEM(part, 0);
        threat = PyTuple_GET_ITEM(part, 1);
        if (get_pos(u, &x, &y) || get_long_attr(u, "hp", &hp) || get_long_attr(u, "max_hp", &max_hp))
            goto fail;
        down = PyObject_GetAttrString(u, "down");
        if (!down)
            goto fail;
        is_down = PyObject_IsTrue(down);
        Py_DECREF(down);
        if (is_down < 0)
            goto fail;
        dx = labs(x - ax);
        dy = labs(y - ay);
        hi = dx > dy ? dx : dy;
        lo = dx > dy ? dy : dx;
        dist = metric == 0 ? hi + lo / 2 : (metric == 1 ? hi : dx + dy);
        o[0] = 1.0f;
        o[1] = is_down ? 0.0f : 1.0f;
        o[2] = clip5((double)hp / (double)(max_hp > 1 ? max_hp : 1));
        o[3] = clip5((double)hp / 50.0);
        o[4] = clip5((double)x / (double)W);
        o[5] = clip5((double)y / (double)H);
        o[6] = clip5((double)(x - ax) / (double)W);
        o[7] = clip5((double)(y - ay) / (double)H);
        o[8] = clip5((double)dist / 20.0);
        if (!PyList_Check(feats) && !PyTuple_Check(feats)) {
            PyErr_SetString(PyExc_TypeError, "features must be a list or tuple");
            goto fail;
        }
        nf = PySequence_Fast_GET_SIZE(feats);
        if (base + nf > width) {
            PyErr_SetString(PyExc_ValueError, "more features than the row has room for");
            goto fail;
        }
        for (j = 0; j < nf; j++) {
            double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(feats, j));
            if (v == -1.0 && PyErr_Occurred())
                goto fail;
            o[base - 4 + j] = clip5(v);
        }
        if (threat != Py_None) {
            double t[4];
            if (!PyTuple_Check(threat) || PyTuple_GET_SIZE(threat) != 4) {
                PyErr_SetString(PyExc_TypeError, "a threat must be (p, damage, q, damage back)");
                goto fail;
            }
            for (j = 0; j < 4; j++) {
                t[j] = PyFloat_AsDouble(PyTuple_GET_ITEM(threat, j));
                if (t[j] == -1.0 && PyErr_Occurred())
                    goto fail;
            }
            o[base - 4 + nf] = clip5(t[0]);
            o[base - 4 + nf + 1] = clip5(t[1] / (double)(hp > 1 ? hp : 1));
            o[base - 4 + nf + 2] = clip5(t[2]);
            o[base - 4 + nf + 3] = clip5(t[3] / (double)actor_hp);
        }
    }
    Py_DECREF(rows_fast);
    Py_DECREF(parts_fast);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(rows_fast);
    Py_XDECREF(parts_fast);
    PyBuffer_Release(&out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"action_indices", action_indices, METH_VARARGS,
     "action_indices(legal, table, slot_mine, slot_other, ax, ay, side, end_name, mask) -> [index | None]"},
    {"unit_rows", unit_rows, METH_VARARGS,
     "unit_rows(out, offset, rows, parts, actor, W, H, width, base, metric): the observation's unit rows"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native",
                                    "The codec's and observation encoder's per-decision loops in C.", -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "KIND_NONE", KIND_NONE) < 0
              || PyModule_AddIntConstant(m, "KIND_SQUARE", KIND_SQUARE) < 0
              || PyModule_AddIntConstant(m, "KIND_ALLY", KIND_ALLY) < 0
              || PyModule_AddIntConstant(m, "KIND_OTHER", KIND_OTHER) < 0))
        Py_CLEAR(m);
    return m;
}
