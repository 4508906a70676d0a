/* The per-decision loops of the action codec and the observation encoder in C: the same arithmetic as
 * their Python versions in envs/codec.py and envs/observation.py (used when this module is not built; the
 * tests check both give the same results).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>
#include "../engine/core/_geometry.h"
#include "../engine/core/_slots.h"

enum { KIND_NONE = 0, KIND_SQUARE = 1, KIND_ALLY = 2, KIND_OTHER = 3, KIND_INTERSECTION = 4 };

static PyObject *ZERO; /* the int 0 */

/* attribute names, interned at import */
static PyObject *S_pos, *S_hp, *S_max_hp, *S_down, *S_side, *S_id, *S_stats, *S_reach, *S_units, *S_grid,
    *S_width, *S_height, *S_metric, *S_round, *S_round_limit, *S_winner, *S_budget, *S_phase_index;

/* A unit's attributes, read from its class's __slots__ where it has them (engine/core/_slots.h). */
enum { U_POS, U_HP, U_MAX_HP, U_DOWN, U_SIDE, U_ID, N_UATTRS };
static PyObject **const UATTR_NAME[N_UATTRS] = {&S_pos, &S_hp, &S_max_hp, &S_down, &S_side, &S_id};
static SlotReader unit_reader = {UATTR_NAME, N_UATTRS, NULL, 0, {0}};

/* getattr(u, attribute k) of a unit, read from its slot when it can be (engine/core/_slots.h) */
static PyObject *uattr(PyObject *u, int k) {
    return slots_get(&unit_reader, u, k);
}

static int as_int(PyObject *o, long *out) {
    *out = PyLong_AsLong(o);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

#define MAX_UNITS 256

/* The target slots of the units: slot_of[id] is the unit's place among its side's units (the actor's side or
 * the others, in list order), mine[id] whether it is on the actor's side. */
static int unit_slots(PyObject *units, PyObject *actor_side, long *slot_of, char *mine, Py_ssize_t *n_ids) {
    PyObject *fast = PySequence_Fast(units, "units must be a sequence");
    Py_ssize_t n, k;
    long n_mine = 0, n_other = 0;
    if (!fast)
        return -1;
    n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_UNITS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "too many units for the codec");
        return -1;
    }
    for (k = 0; k < n; k++)
        slot_of[k] = -1;
    for (k = 0; k < n; k++) {
        PyObject *u = PySequence_Fast_GET_ITEM(fast, k), *id_obj, *side;
        long id;
        int same;
        if (!(id_obj = uattr(u, U_ID)))
            goto fail;
        if (as_int(id_obj, &id) < 0) {
            Py_DECREF(id_obj);
            goto fail;
        }
        Py_DECREF(id_obj);
        if (id < 0 || id >= n) {
            PyErr_SetString(PyExc_ValueError, "unit ids must be their places in the unit list");
            goto fail;
        }
        if (!(side = uattr(u, U_SIDE)))
            goto fail;
        same = PyObject_RichCompareBool(side, actor_side, Py_EQ);
        Py_DECREF(side);
        if (same < 0)
            goto fail;
        mine[id] = (char)same;
        slot_of[id] = same ? n_mine++ : n_other++;
    }
    *n_ids = n;
    Py_DECREF(fast);
    return 0;
fail:
    Py_DECREF(fast);
    return -1;
}

/* action_indices(legal, table, units, actor_side, ax, ay, side, end_name, mask) -> [index | None] or None
 * table: action name -> (start, kind code, options, slots): the block of options x slots indices, option-major
 * (envs/codec.py); target slots are the units' places among the actor's side or the other sides
 * (ActionCodec.side_lists), squares a side x side window from (ax, ay), intersections its (side + 1)^2 corners.
 * Without a mask: the list of ActionCodec.indices. With a mask (a writable byte buffer): 1 at every encodable
 * index, and None is returned. */
static PyObject *action_indices(PyObject *self, PyObject *args) {
    PyObject *legal, *table, *units, *actor_side, *end_name, *mask_obj, *fast = NULL, *out = NULL, *last = NULL;
    long ax, ay, side, slot_of[MAX_UNITS], start = 0, kind = 0, options = 0, slots = 0, w = 0;
    int in_table = 0, is_end = 0;
    char mine[MAX_UNITS];
    Py_ssize_t n, k, n_ids = 0;
    Py_buffer mask;
    int have_mask = 0;

    if (!PyArg_ParseTuple(args, "OO!OOlllOO", &legal, &PyDict_Type, &table, &units, &actor_side, &ax, &ay, &side,
                          &end_name, &mask_obj))
        return NULL;
    if (unit_slots(units, actor_side, slot_of, mine, &n_ids) < 0)
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
    if (!have_mask && !(out = PyList_New(n)))
        goto fail;
    for (k = 0; k < n; k++) {
        PyObject *d = PySequence_Fast_GET_ITEM(fast, k), *block, *value = NULL, *opt;
        long index = -1, option, base;
        if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) < 4) {
            PyErr_SetString(PyExc_TypeError, "a decision must be (action, target, square, option)");
            goto fail_out;
        }
        if (PyTuple_GET_ITEM(d, 0) != last) { /* decisions of one action come in a row, with one name object */
            last = PyTuple_GET_ITEM(d, 0);
            block = PyDict_GetItemWithError(table, last);
            if (!block) {
                if (PyErr_Occurred())
                    goto fail_out;
                in_table = 0;
                if ((is_end = PyObject_RichCompareBool(last, end_name, Py_EQ)) < 0)
                    goto fail_out;
            } else {
                in_table = 1;
                if (!PyTuple_Check(block) || PyTuple_GET_SIZE(block) != 4
                    || as_int(PyTuple_GET_ITEM(block, 0), &start) || as_int(PyTuple_GET_ITEM(block, 1), &kind)
                    || as_int(PyTuple_GET_ITEM(block, 2), &options) || as_int(PyTuple_GET_ITEM(block, 3), &slots)) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_TypeError, "table entries must be (start, kind, options, slots)");
                    goto fail_out;
                }
                w = kind == KIND_INTERSECTION ? side + 1 : side; /* the window's side */
            }
        }
        if (!in_table) {
            index = is_end ? 0 : -1;
            goto found;
        }
        opt = PyTuple_GET_ITEM(d, 3);
        if (opt == ZERO) { /* (most decisions: Decision's default) */
            base = start;
        } else {
            if (!PyLong_Check(opt)) {
                PyErr_SetString(PyExc_TypeError, "a decision's option must be an int");
                goto fail_out;
            }
            if ((option = PyLong_AsLong(opt)) == -1 && PyErr_Occurred())
                PyErr_Clear(); /* beyond a long: no such option (-1) */
            if (option < 0 || option >= options)
                goto found;
            base = start + option * slots;
        }
        if (kind == KIND_SQUARE || kind == KIND_INTERSECTION) {
            PyObject *sq = PyTuple_GET_ITEM(d, 2);
            long x, y;
            if (!PyTuple_Check(sq) || PyTuple_GET_SIZE(sq) != 2) {
                PyErr_SetString(PyExc_TypeError, "a square or intersection decision needs its (x, y)");
                goto fail_out;
            }
            if (as_int(PyTuple_GET_ITEM(sq, 0), &x) || as_int(PyTuple_GET_ITEM(sq, 1), &y))
                goto fail_out;
            x -= ax;
            y -= ay;
            if (0 <= x && x < w && 0 <= y && y < w)
                index = base + x + y * w;
        } else if (kind == KIND_NONE) {
            index = base;
        } else {
            PyObject *target = PyTuple_GET_ITEM(d, 1);
            if (PyLong_Check(target)) {
                long t = PyLong_AsLong(target);
                if (t == -1 && PyErr_Occurred())
                    PyErr_Clear();  /* beyond a long: no unit of that id */
                else if (t >= 0 && t < n_ids && slot_of[t] >= 0 && mine[t] == (kind == KIND_ALLY)
                         && slot_of[t] < slots)
                    index = base + slot_of[t];
            }
        }
    found:
        if (have_mask) {
            if (index >= mask.len) {
                PyErr_SetString(PyExc_IndexError, "index beyond the mask");
                goto fail_out;
            }
            if (index >= 0)
                ((char *)mask.buf)[index] = 1;
            continue;
        }
        if (index >= 0) {
            value = PyLong_FromLong(index);
            if (!value)
                goto fail_out;
        } else {
            value = Py_NewRef(Py_None);
        }
        PyList_SET_ITEM(out, k, value);
    }
    Py_DECREF(fast);
    if (have_mask) {
        PyBuffer_Release(&mask);
        Py_RETURN_NONE;
    }
    return out;
fail_out:
    Py_XDECREF(out);
fail:
    Py_XDECREF(fast);
    if (have_mask)
        PyBuffer_Release(&mask);
    return NULL;
}

/* float(o) without making a float of an int (PyFloat_AsDouble would) */
static double as_double(PyObject *o) {
    if (PyFloat_Check(o))
        return PyFloat_AS_DOUBLE(o);
    if (PyLong_Check(o))
        return PyLong_AsDouble(o);
    return PyFloat_AsDouble(o);
}

static int get_long_attr(PyObject *o, PyObject *name, long *out) {
    PyObject *v = PyObject_GetAttr(o, name);
    int r;
    if (!v)
        return -1;
    r = as_int(v, out);
    Py_DECREF(v);
    return r;
}

/* a unit's attribute k as a long */
static int unit_long(PyObject *u, int k, long *out) {
    PyObject *v = uattr(u, k);
    int r;
    if (!v)
        return -1;
    r = as_int(v, out);
    Py_DECREF(v);
    return r;
}

static int get_pos(PyObject *u, long *x, long *y) {
    PyObject *pos = uattr(u, U_POS);
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

/* What the encoder reads of a unit, once. */
typedef struct {
    PyObject *u; /* borrowed from enc.units (or the actor) */
    long x, y;
    int down, same_side, is_actor;
    Py_ssize_t part; /* its place among the units given to `parts`, -1 when it has no row */
} Info;

static int read_info(PyObject *u, PyObject *actor_side, PyObject *actor_id, Info *in) {
    PyObject *v;
    in->u = u;
    in->part = -1;
    if (get_pos(u, &in->x, &in->y) < 0 || !(v = uattr(u, U_DOWN)))
        return -1;
    in->down = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (in->down < 0 || !(v = uattr(u, U_SIDE)))
        return -1;
    in->same_side = PyObject_RichCompareBool(v, actor_side, Py_EQ);
    Py_DECREF(v);
    if (in->same_side < 0 || !(v = uattr(u, U_ID)))
        return -1;
    in->is_actor = PyObject_RichCompareBool(v, actor_id, Py_EQ);
    Py_DECREF(v);
    return in->is_actor < 0 ? -1 : 0;
}

/* One unit row (ObservationEncoder._unit_rows): the nf features of the list / tuple `feat_seq`, the threat t[4]
 * or none. */
static int write_row(float *o, const Info *in, long ax, long ay, long actor_hp, double W, double H, double hp_scale,
                     int metric, long base, long width, PyObject *feat_seq, Py_ssize_t nf, const double *t) {
    long hp, max_hp, j, x = in->x, y = in->y;
    if (unit_long(in->u, U_HP, &hp) || unit_long(in->u, U_MAX_HP, &max_hp))
        return -1;
    if (base + nf > width) {
        PyErr_SetString(PyExc_ValueError, "more features than the row has room for");
        return -1;
    }
    o[0] = 1.0f;
    o[1] = in->down ? 0.0f : 1.0f;
    o[2] = clip5((double)hp / (double)(max_hp > 1 ? max_hp : 1));
    o[3] = clip5((double)hp / hp_scale);
    o[4] = clip5((double)x / W);
    o[5] = clip5((double)y / H);
    o[6] = clip5((double)(x - ax) / W);
    o[7] = clip5((double)(y - ay) / H);
    o[8] = clip5((double)metric_distance(metric, x - ax, y - ay) / 20.0);
    for (j = 0; j < nf; j++) {
        double v = as_double(PySequence_Fast_GET_ITEM(feat_seq, j));
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        o[base - 4 + j] = clip5(v);
    }
    if (t) {
        o[base - 4 + nf] = clip5(t[0]);
        o[base - 4 + nf + 1] = clip5(t[1] / (double)(hp > 1 ? hp : 1));
        o[base - 4 + nf + 2] = clip5(t[2]);
        o[base - 4 + nf + 3] = clip5(t[3] / (double)actor_hp);
    }
    return 0;
}

/* The reach a unit threatens squares with: the ruleset's threat_reach(u) (a whole number of squares, 0 for
 * none). */
static int threat_reach(PyObject *u, PyObject *threat_reach_fn, long *reach) {
    PyObject *res;
    int bad;
    *reach = 0;
    res = PyObject_CallOneArg(threat_reach_fn, u);
    if (!res)
        return -1;
    bad = as_int(res, reach);
    Py_DECREF(res);
    if (bad < 0)
        return -1;
    if (*reach < 0)
        *reach = 0;
    return 0;
}

/* encode(out, enc, actor, spec, kinds, parts, threat_reach) -> None: ObservationEncoder.encode into the float32
 * buffer `out`.
 * spec: (max_per_side, W, H, hp scale, unit width, base, radius, phases, slot names, slot maxima dict, plane of each kind),
 * as the encoder holds them, the last as 256 bytes: 1 + the terrain plane of a kind code, 0 for none; kinds: the
 * map's Grid.kind_codes (a byte per square);
 * parts(enc, actor, units) -> the ruleset's parts of the unit rows: a sequence of (features, threat or None);
 * threat_reach(unit) -> the squares of reach it threatens (Ruleset.threat_reach),
 * or None (no threatened plane). */
static PyObject *encode(PyObject *self, PyObject *args) {
    PyObject *out_obj, *enc, *actor, *spec, *kinds_obj, *parts_fn, *threatens, *slot_names, *slots;
    const unsigned char *plane_of, *kinds;
    Py_ssize_t n_plane_of;
    PyObject *units = NULL, *grid = NULL, *present = NULL, *got = NULL, *parts_fast = NULL, *budget = NULL;
    PyObject *actor_side = NULL, *actor_id = NULL, *v;
    Py_buffer out;
    int metric;
    long mps, R, n_phases, width, base, side, n_global, n_rows, gw, gh, ax, ay, actor_hp, phase;
    long n_other = 0, n_mine = 0, k, j, p;
    double W, H, hp_scale;
    Py_ssize_t n_units, size;
    Info *info = NULL, actor_info, **rows = NULL;
    float *o, *maps;

    if (!PyArg_ParseTuple(args, "OOOO!O!OO", &out_obj, &enc, &actor, &PyTuple_Type, &spec, &PyBytes_Type,
                          &kinds_obj, &parts_fn, &threatens))
        return NULL;
    if (!PyArg_ParseTuple(spec, "ldddllllO!O!y#", &mps, &W, &H, &hp_scale, &width, &base, &R, &n_phases,
                          &PyTuple_Type, &slot_names, &PyDict_Type, &slots, &plane_of, &n_plane_of))
        return NULL;
    if (n_plane_of != 256) {
        PyErr_SetString(PyExc_ValueError, "encode: the spec's planes of the kinds must be 256 bytes");
        return NULL;
    }
    kinds = (const unsigned char *)PyBytes_AS_STRING(kinds_obj);
    side = 2 * R + 1;
    n_global = 2 + PyTuple_GET_SIZE(slot_names) + n_phases;
    n_rows = 2 * mps;
    size = n_global + n_rows * width + 9 * side * side;
    if (mps < 1 || R < 0 || base < 4 || width < base || n_phases < 0 || !(hp_scale > 0)) {
        PyErr_SetString(PyExc_ValueError, "encode: bad spec");
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (out.itemsize != 4 || out.len < size * 4) {
        PyErr_SetString(PyExc_ValueError, "out must be a float32 buffer of the observation's size");
        goto fail;
    }
    o = (float *)out.buf;

    /* globals */
    {
        long round, limit;
        int over;
        if (get_long_attr(enc, S_round, &round) || get_long_attr(enc, S_round_limit, &limit)
            || get_long_attr(enc, S_phase_index, &phase))
            goto fail;
        if (!(v = PyObject_GetAttr(enc, S_winner))) /* Encounter.over, without the property's call */
            goto fail;
        over = v != Py_None;
        Py_DECREF(v);
        o[0] = clip5((double)round / (double)(limit > 1 ? limit : 1));
        o[1] = over ? 1.0f : 0.0f;
        budget = PyObject_GetAttr(enc, S_budget);
        if (!budget)
            goto fail;
        if (!PyDict_Check(budget)) {
            PyErr_SetString(PyExc_TypeError, "enc.budget must be a dict");
            goto fail;
        }
        for (k = 0; k < PyTuple_GET_SIZE(slot_names); k++) {
            PyObject *name = PyTuple_GET_ITEM(slot_names, k), *have = PyDict_GetItemWithError(budget, name), *most;
            double b = 0.0, m;
            if (!have && PyErr_Occurred())
                goto fail;
            if (have && (b = as_double(have)) == -1.0 && PyErr_Occurred())
                goto fail;
            most = PyDict_GetItemWithError(slots, name);
            if (!most) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, name);
                goto fail;
            }
            if ((m = as_double(most)) == -1.0 && PyErr_Occurred())
                goto fail;
            o[2 + k] = clip5(b / (m > 1 ? m : 1.0));
        }
        for (k = 0; k < n_phases; k++)
            o[2 + PyTuple_GET_SIZE(slot_names) + k] = k == phase ? 1.0f : 0.0f;
    }

    /* rows: the actor, its allies, the other side, each in unit order */
    /* each call checked before the next: a Python call made while an exception is pending may clear it */
    if (!(grid = PyObject_GetAttr(enc, S_grid)) || !(units = PyObject_GetAttr(enc, S_units))
        || !(actor_side = uattr(actor, U_SIDE)) || !(actor_id = uattr(actor, U_ID)))
        goto fail;
    if (!PyList_Check(units)) {
        PyErr_SetString(PyExc_TypeError, "enc.units must be a list");
        goto fail;
    }
    if (get_long_attr(grid, S_width, &gw) || get_long_attr(grid, S_height, &gh))
        goto fail;
    v = PyObject_GetAttr(grid, S_metric);
    if (!v)
        goto fail;
    metric = PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "alternating") == 0 ? METRIC_ALTERNATING
             : PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "chebyshev") == 0 ? METRIC_CHEBYSHEV
                                                                                             : METRIC_MANHATTAN;
    Py_DECREF(v);
    if (unit_long(actor, U_HP, &actor_hp))
        goto fail;
    actor_hp = actor_hp > 1 ? actor_hp : 1;
    n_units = PyList_GET_SIZE(units);
    info = PyMem_Malloc((n_units ? n_units : 1) * sizeof(Info));
    rows = PyMem_Calloc(n_rows, sizeof(Info *));
    present = PyList_New(0);
    if (!info || !rows || !present) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    rows[0] = NULL;
    for (k = 0; k < n_units; k++) {
        Info *in = &info[k];
        if (read_info(PyList_GET_ITEM(units, k), actor_side, actor_id, in) < 0)
            goto fail;
        if (in->u == actor)
            rows[0] = in;
        if (in->same_side) {
            if (!in->is_actor && n_mine < mps - 1)
                rows[1 + n_mine++] = in;
        } else if (n_other++ < mps) {
            rows[mps + n_other - 1] = in;
        }
    }
    if (!rows[0]) { /* an actor not (or not as this object) in enc.units */
        if (read_info(actor, actor_side, actor_id, &actor_info) < 0)
            goto fail;
        rows[0] = &actor_info;
    }
    ax = rows[0]->x;
    ay = rows[0]->y;
    for (k = 0; k < n_rows; k++)
        if (rows[k]) {
            rows[k]->part = PyList_GET_SIZE(present);
            if (PyList_Append(present, rows[k]->u) < 0)
                goto fail;
        }

    got = PyObject_CallFunctionObjArgs(parts_fn, enc, actor, present, NULL);
    if (!got)
        goto fail;
    parts_fast = PySequence_Fast(got, "the parts must be a sequence");
    if (!parts_fast)
        goto fail;
    if (PySequence_Fast_GET_SIZE(parts_fast) < PyList_GET_SIZE(present)) {
        PyErr_SetString(PyExc_IndexError, "fewer parts than units");
        goto fail;
    }
    for (k = 0; k < n_rows; k++) {
        float *row = o + n_global + k * width;
        const Info *in = rows[k];
        PyObject *part, *feats, *threat;
        double t[4];
        for (j = 0; j < width; j++)
            row[j] = 0.0f;
        if (!in)
            continue;
        part = PySequence_Fast_GET_ITEM(parts_fast, in->part);
        if (!PyTuple_Check(part) || PyTuple_GET_SIZE(part) != 2) {
            PyErr_SetString(PyExc_TypeError, "a part must be (features, threat or None)");
            goto fail;
        }
        feats = PyTuple_GET_ITEM(part, 0);
        threat = PyTuple_GET_ITEM(part, 1);
        if (!PyList_Check(feats) && !PyTuple_Check(feats)) {
            PyErr_SetString(PyExc_TypeError, "features must be a list or tuple");
            goto fail;
        }
        if (threat != Py_None) {
            if (!PyTuple_Check(threat) || PyTuple_GET_SIZE(threat) != 4) {
                PyErr_SetString(PyExc_TypeError, "a threat must be (p, damage, q, damage back)");
                goto fail;
            }
            for (j = 0; j < 4; j++)
                if ((t[j] = as_double(PyTuple_GET_ITEM(threat, j))) == -1.0 && PyErr_Occurred())
                    goto fail;
        }
        if (write_row(row, in, ax, ay, actor_hp, W, H, hp_scale, metric, base, width, feats,
                      PySequence_Fast_GET_SIZE(feats), threat != Py_None ? t : NULL))
            goto fail;
    }

    /* map planes: terrain from the kinds, off map, then threatened squares and units */
    if (PyBytes_GET_SIZE(kinds_obj) != gw * gh) {
        PyErr_SetString(PyExc_ValueError, "kinds must hold a byte per square of the map");
        goto fail;
    }
    if (ax < 0 || ax >= gw || ay < 0 || ay >= gh) {
        PyErr_SetString(PyExc_ValueError, "the actor stands outside the map");
        goto fail;
    }
    maps = o + n_global + n_rows * width;
    memset(maps, 0, 9 * side * side * sizeof(float));
    for (j = 0; j < side; j++) {
        long y = ay - R + j;
        for (p = 0; p < side; p++) {
            long x = ax - R + p;
            if (x < 0 || x >= gw || y < 0 || y >= gh)
                maps[(8 * side + j) * side + p] = 1.0f;
            else if (plane_of[kinds[y * gw + x]])
                maps[((plane_of[kinds[y * gw + x]] - 1) * side + j) * side + p] = 1.0f;
        }
    }
    for (k = 0; k < n_units; k++) {
        const Info *in = &info[k];
        long i = in->x - (ax - R), jj = in->y - (ay - R), dx, dy, reach;
        if (in->down)
            continue;
        if (!in->same_side && threatens != Py_None) {
            if (threat_reach(in->u, threatens, &reach) < 0)
                goto fail;
            for (dy = -reach; dy <= reach; dy++) {
                long y = in->y + dy, wj = jj + dy;
                if (y < 0 || y >= gh || wj < 0 || wj >= side)
                    continue;
                for (dx = -reach; dx <= reach; dx++) {
                    long x = in->x + dx, wi = i + dx;
                    if ((dx || dy) && x >= 0 && x < gw && wi >= 0 && wi < side
                        && metric_distance(metric, dx, dy) <= reach)
                        maps[(7 * side + wj) * side + wi] = 1.0f;
                }
            }
        }
        if (!in->is_actor && i >= 0 && i < side && jj >= 0 && jj < side)
            maps[((in->same_side ? 5 : 6) * side + jj) * side + i] = 1.0f;
    }
    goto done;
fail:
    k = -1;
done:
    PyBuffer_Release(&out);
    Py_XDECREF(parts_fast);
    Py_XDECREF(got);
    Py_XDECREF(present);
    PyMem_Free(rows);
    PyMem_Free(info);
    Py_XDECREF(actor_side);
    Py_XDECREF(actor_id);
    Py_XDECREF(units);
    Py_XDECREF(grid);
    Py_XDECREF(budget);
    if (k < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"action_indices", action_indices, METH_VARARGS,
     "action_indices(legal, table, units, actor_side, ax, ay, side, end_name, mask) -> [index | None] or None"},
    {"encode", encode, METH_VARARGS,
     "encode(out, enc, actor, spec, kinds, parts, threat_reach): ObservationEncoder.encode into out"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native",
                                    "The codec's and observation encoder's per-decision loops in C.", -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m;
#define INTERN(var, text)                                                                                        \
    if (!(var = PyUnicode_InternFromString(text)))                                                              \
        return NULL;
    INTERN(S_pos, "pos")
    INTERN(S_hp, "hp")
    INTERN(S_max_hp, "max_hp")
    INTERN(S_down, "down")
    INTERN(S_side, "side")
    INTERN(S_id, "id")
    INTERN(S_stats, "stats")
    INTERN(S_reach, "reach")
    INTERN(S_units, "units")
    INTERN(S_grid, "grid")
    INTERN(S_width, "width")
    INTERN(S_height, "height")
    INTERN(S_metric, "metric")
    INTERN(S_round, "round")
    INTERN(S_round_limit, "round_limit")
    INTERN(S_winner, "winner")
    INTERN(S_budget, "budget")
    INTERN(S_phase_index, "phase_index")
#undef INTERN
    if (!(ZERO = PyLong_FromLong(0)))
        return NULL;
    m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "KIND_NONE", KIND_NONE) < 0
              || PyModule_AddIntConstant(m, "KIND_SQUARE", KIND_SQUARE) < 0
              || PyModule_AddIntConstant(m, "KIND_ALLY", KIND_ALLY) < 0
              || PyModule_AddIntConstant(m, "KIND_OTHER", KIND_OTHER) < 0
              || PyModule_AddIntConstant(m, "KIND_INTERSECTION", KIND_INTERSECTION) < 0))
        Py_CLEAR(m);
    return m;
}
