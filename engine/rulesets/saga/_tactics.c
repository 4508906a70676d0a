/* The heuristic policy's decision loop over the Saga tactics, in C: for a unit that is not fleeing, `Kernel` does
 * `_Turn`'s square values (`pos_value`, `best_attack`, with `_View.threat` / `offense` / `reach_value` / `approach` of
 * tactics.py inlined), the scores of moves, withdrawals and runs, the kinds and pruning of the legal decisions and
 * the scoring loop with its jitter (`HeuristicPolicy._scores`) and the scores of single attacks, charges, aim and
 * the defensive stances (`attack_score`, `charge_score`, `stance_score`), calling back `_Turn.score` for the others.
 * The same arithmetic in the same order of operations, so the doubles are identical; the Python methods are the
 * reference and the fallback (tests/perf/test_heuristic_native.py runs both on random battles).
 *
 * Values are kept in flat arrays: per square in the turn's memos (under the key None of the memo dicts), per view,
 * and per unit-pair field as a code per square into a table of its few distinct values (in the field dicts); a
 * strike or a threat is looked up by the class of the sight line (melee reach, range band, cover, sight) in a table
 * per pair of unit states (in the tactics' by_pair dicts), and worked out here for a new class from the pair's
 * estimate parts (`_View.strike_parts` / `threat_parts`: attack bonus, defense, mean damage, ... of
 * `_View._attack_estimate`, whose arithmetic `estimate_of` repeats). Python is called back for what those lack: the
 * parts, a strike or a threat when there are none (`_View._strike`, `_threat_of`), an AoO cost, a target's constants
 * (`_Turn._target`), a unit's weapons' reach and bands (`_View.class_info`), the approach field and the reach list.
 * Sight lines come from _sight.h's per-map sight memo (shared with _legal.c and _observe.c), traced here over the
 * view's line codes when not known there; a line a Python callback reads is put in the tactics' table first.
 *
 * Module functions, each the C twin of a Python function its tests hold it to: `approach_field`
 * (`tactics._distance_field`, walking steps to the nearest enemy), `key_mask` (`_View.key_squares` as a byte per
 * square), `view_units` (`tactics._view_units`) and `sight_line` (`SagaTactics.sight` by `Grid.sight`); the per-map
 * ones read `terrain.terrain_codes`. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/_geometry.h"
#include "_sight.h"
#include "_terrain.h"

/* whether str a is the interned str b: by identity first (kinds and actions are interned), else by value */
#define SAME(a, b) ((a) == (b) || PyUnicode_Compare((a), (b)) == 0)

/* Products and sums stay separate roundings, as in Python: no fused multiply-add. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define LINE_CAP 4096

static PyObject *S__threat_fields, *S__offense_fields, *S__table, *S__armed, *S_occupied, *S_g,
    *S_width, *S_height, *S_metric, *S__aoo, *S_a, *S_first, *S_id, *S_stats, *S_speed, *S_reach, *S_pos,
    *S__sight, *S__strike, *S__threat_of, *S_estimate, *S_aoo_cost, *S__target, *S_approach, *S__approach,
    *S_reach_value, *S__melee, *S_expected_damage, *S_kill_chance, *S_alternating, *S_chebyshev, *S__geometry,
    *S_line, *S__threats, *S_line_codes, *S_class_info, *S_misc, *S_move, *S_withdraw, *S_run, *S_saga_sight, *S_end, *S_strike_parts, *S_threat_parts, *S_parts, *S_attack, *S_ranged_attack,
    *S_melee_attack, *S_aimed, *S_can_move_after, *S_best_reposition, *S_aim, *S_can_attack_after,
    *S_can_strike, *S_fight_defensively, *S_total_defense, *S_charge, *S_charge_end, *S_memo;

/* A field's values by slot (a square, or a square and whether aimed) in C, kept in the field's dict under the key
 * None (the Python path keys it by squares only): a bytearray of a count, a code per slot (0: not known yet, else
 * 1 + the index of its value in the table) and a table of up to TABLE_MAX distinct values of `stride` doubles (few
 * distinct values: they depend on the squares only through the sight line between them). */
#define TABLE_MAX 64
typedef struct {
    PyObject *obj; /* owned */
    long long *count;
    unsigned char *codes;
    double *table;
    int stride;
} Coded;

/* What `_View.class_info(u)` says of a unit: whether it has a melee weapon, its reach and speed, and the upper bounds
 * of its ranged weapon's range bands (`combat.range_band`), read once per kernel. */
#define MAX_TOPS 8
typedef struct {
    int loaded, melee, ranged, n_tops;
    long reach, speed, tops[MAX_TOPS];
} Info;

/* A strike or a threat depends on the squares only through the class of the sight line between them (whether a melee
 * weapon reaches, a ranged weapon's band, the cover, the line of sight): per pair of unit states (a `by_pair` dict),
 * a table of rows by class, kept in that dict under the key None; a row's first double is 0 until it is known. */
#define STRIKE_CLASSES 60 /* ((reach * 5 + band + 1) * 3 + cover) * 2 + aimed */
#define THREAT_CLASSES 90 /* ((near * 5 + band + 1) * 3 + cover) * 2 + line of sight */

typedef struct {
    PyObject *unit, *id, *field, *by_pair; /* owned */
    int ei, x, y;
    Coded coded;
    Info info;
    PyObject *cls_obj; /* owned: the class table in by_pair */
    double *cls;
    int have_target; /* the target constants of `_Turn._target`, read once */
    double hp, kill, weight;
    int has[3]; /* per option of the pair's estimate parts (`_View.strike_parts` / `threat_parts`): 0 not read yet,
                 * 1 read into parts, -1 none (no such weapon, or the estimates are the ruleset's) */
    double parts[3][6];
} Foe;

typedef struct {
    int x, y, foe; /* the offense foe it is, or -1 */
    double ed, kc;
    PyObject *unit, *est; /* borrowed from the view's reach list, which the kernel keeps */
} Reach;

typedef struct {
    PyObject_HEAD
    PyObject *turn, *view, *pos_memo, *off_memo, *targets, *table, *aoo, *actor, *melee_n;
    PyObject *approach, *melee_list; /* lazily: the view's approach field and (enemy, estimate) reach list */
    PyObject *threats;                /* lazily: the view's squares where enemies take attacks of opportunity */
    PyObject *codes;                  /* lazily: the view's line codes (bytes, a code per square), or None */
    PyObject *memo_obj;               /* lazily: _sight.h's sight memo of the map for these codes, or NULL */
    unsigned char *memo;
    int memo_tried;
    Foe *threat, *offense;
    int n_threat, n_offense, armed, limit, w, h, metric, n_reach;
    int aimed; /* lazily (-1: not yet): the actor's state["aimed"] */
    double threat_weight, next_turn_share, approach_pull, close_in, move_cost, run_cost, run_in_reach;
    unsigned char *occupied;
    PyObject *pos_obj, *off_obj; /* the memos' arrays (NaN: not known yet), kept in the memo dicts under None */
    double *pos_arr, *off_arr;
    double *threat_arr, *aoo_arr; /* this view's: NaN until known */
    Reach *reach;
    Info actor_info;
} Kernel;

static int dist(const Kernel *k, int ax, int ay, int bx, int by) {
    return (int)metric_distance(k->metric, ax - bx, ay - by);
}

/* pos (x, y) as C ints; -1 with an exception when it is no such tuple */
static int xy(PyObject *pos, int *x, int *y) {
    long a, b;
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 2) {
        PyErr_SetString(PyExc_TypeError, "a square is an (x, y) tuple");
        return -1;
    }
    a = PyLong_AsLong(PyTuple_GET_ITEM(pos, 0));
    b = PyLong_AsLong(PyTuple_GET_ITEM(pos, 1));
    if ((a == -1 || b == -1) && PyErr_Occurred())
        return -1;
    *x = (int)a;
    *y = (int)b;
    return 0;
}

static double as_double(PyObject *o, int *err) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred())
        *err = 1;
    return v;
}

/* the Coded array of `dict` (made on first use, or when one of another size is there) */
static int coded_open(PyObject *dict, Py_ssize_t slots, int stride, Coded *c) {
    Py_ssize_t pad = (slots + 7) & ~(Py_ssize_t)7, size = 8 + pad + (Py_ssize_t)TABLE_MAX * stride * 8;
    PyObject *got = PyDict_GetItemWithError(dict, Py_None);
    char *base;
    if (got && PyByteArray_CheckExact(got) && PyByteArray_GET_SIZE(got) == size) {
        Py_INCREF(got);
    } else {
        if (PyErr_Occurred() || !(got = PyByteArray_FromStringAndSize(NULL, size)))
            return -1;
        memset(PyByteArray_AS_STRING(got), 0, (size_t)(8 + pad));
        if (PyDict_SetItem(dict, Py_None, got) < 0) {
            Py_DECREF(got);
            return -1;
        }
    }
    c->obj = got;
    base = PyByteArray_AS_STRING(got);
    c->count = (long long *)base;
    c->codes = (unsigned char *)base + 8;
    c->table = (double *)(base + 8 + pad);
    c->stride = stride;
    return 0;
}

/* the table entry of slot s, or NULL when not known */
static inline const double *coded_get(const Coded *c, Py_ssize_t s) {
    unsigned char code = c->codes[s];
    return code ? c->table + (Py_ssize_t)(code - 1) * c->stride : NULL;
}

/* slot s has the value v (stride doubles); a full table keeps the slot unknown */
static void coded_put(Coded *c, Py_ssize_t s, const double *v) {
    long long n;
    size_t bytes = (size_t)c->stride * sizeof(double);
    for (n = 0; n < *c->count; n++)
        if (memcmp(c->table + n * c->stride, v, bytes) == 0) {
            c->codes[s] = (unsigned char)(n + 1);
            return;
        }
    if (n >= TABLE_MAX)
        return;
    memcpy(c->table + n * c->stride, v, bytes);
    *c->count = n + 1;
    c->codes[s] = (unsigned char)(n + 1);
}

/* the array of n doubles of a memo dict (NaN: not known), made on first use */
static double *memo_array(PyObject *dict, Py_ssize_t n, PyObject **obj) {
    PyObject *got = PyDict_GetItemWithError(dict, Py_None);
    Py_ssize_t k;
    double *arr;
    if (got && PyByteArray_CheckExact(got) && PyByteArray_GET_SIZE(got) == n * (Py_ssize_t)sizeof(double)) {
        *obj = Py_NewRef(got);
        return (double *)PyByteArray_AS_STRING(got);
    }
    if (PyErr_Occurred() || !(got = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double))))
        return NULL;
    arr = (double *)PyByteArray_AS_STRING(got);
    for (k = 0; k < n; k++)
        arr[k] = Py_NAN;
    if (PyDict_SetItem(dict, Py_None, got) < 0) {
        Py_DECREF(got);
        return NULL;
    }
    *obj = got;
    return arr;
}

static void clear_foes(Foe *f, int n) {
    int k;
    if (!f)
        return;
    for (k = 0; k < n; k++) {
        Py_XDECREF(f[k].unit);
        Py_XDECREF(f[k].id);
        Py_XDECREF(f[k].field);
        Py_XDECREF(f[k].by_pair);
        Py_XDECREF(f[k].coded.obj);
        Py_XDECREF(f[k].cls_obj);
    }
    PyMem_Free(f);
}

/* foes from the view's field lists: threat entries are (e, field, by_pair, ei), offense ones (e, field, ei, by_pair) */
static Foe *read_foes(PyObject *list, int offense, int *n) {
    Py_ssize_t k, cnt;
    Foe *out;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "field lists are lists");
        return NULL;
    }
    cnt = PyList_GET_SIZE(list);
    out = PyMem_Calloc(cnt ? cnt : 1, sizeof(Foe));
    if (!out) {
        PyErr_NoMemory();
        return NULL;
    }
    *n = 0;
    for (k = 0; k < cnt; k++) {
        PyObject *t = PyList_GET_ITEM(list, k), *pos;
        Foe *f = &out[k];
        long ei;
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 4) {
            PyErr_SetString(PyExc_TypeError, "a field entry is a 4-tuple");
            goto fail;
        }
        f->unit = Py_NewRef(PyTuple_GET_ITEM(t, 0));
        f->field = Py_NewRef(PyTuple_GET_ITEM(t, 1));
        f->by_pair = Py_NewRef(PyTuple_GET_ITEM(t, offense ? 3 : 2));
        *n = (int)k + 1;
        ei = PyLong_AsLong(PyTuple_GET_ITEM(t, offense ? 2 : 3));
        if (ei == -1 && PyErr_Occurred())
            goto fail;
        f->ei = (int)ei;
        if (!PyDict_Check(f->field) || !PyDict_Check(f->by_pair)) {
            PyErr_SetString(PyExc_TypeError, "fields are dicts");
            goto fail;
        }
        if (!(f->id = PyObject_GetAttr(f->unit, S_id)))
            goto fail;
        if (!(pos = PyObject_GetAttr(f->unit, S_pos)))
            goto fail;
        if (xy(pos, &f->x, &f->y) < 0) {
            Py_DECREF(pos);
            goto fail;
        }
        Py_DECREF(pos);
    }
    return out;
fail:
    clear_foes(out, *n);
    return NULL;
}

static int Kernel_traverse(Kernel *k, visitproc visit, void *arg) {
    int n;
    Py_VISIT(k->turn);
    Py_VISIT(k->view);
    Py_VISIT(k->pos_memo);
    Py_VISIT(k->off_memo);
    Py_VISIT(k->targets);
    Py_VISIT(k->table);
    Py_VISIT(k->aoo);
    Py_VISIT(k->actor);
    Py_VISIT(k->melee_n);
    Py_VISIT(k->approach);
    Py_VISIT(k->melee_list);
    Py_VISIT(k->threats);
    Py_VISIT(k->codes);
    Py_VISIT(k->memo_obj);
    Py_VISIT(k->pos_obj);
    Py_VISIT(k->off_obj);
    for (n = 0; k->threat && n < k->n_threat; n++) {
        Py_VISIT(k->threat[n].unit);
        Py_VISIT(k->threat[n].field);
        Py_VISIT(k->threat[n].by_pair);
        Py_VISIT(k->threat[n].coded.obj);
        Py_VISIT(k->threat[n].cls_obj);
    }
    for (n = 0; k->offense && n < k->n_offense; n++) {
        Py_VISIT(k->offense[n].unit);
        Py_VISIT(k->offense[n].field);
        Py_VISIT(k->offense[n].by_pair);
        Py_VISIT(k->offense[n].coded.obj);
        Py_VISIT(k->offense[n].cls_obj);
    }
    return 0;
}

static int Kernel_clear(Kernel *k) {
    Py_CLEAR(k->turn);
    Py_CLEAR(k->view);
    Py_CLEAR(k->pos_memo);
    Py_CLEAR(k->off_memo);
    Py_CLEAR(k->targets);
    Py_CLEAR(k->table);
    Py_CLEAR(k->aoo);
    Py_CLEAR(k->actor);
    Py_CLEAR(k->melee_n);
    Py_CLEAR(k->approach);
    Py_CLEAR(k->melee_list);
    Py_CLEAR(k->threats);
    Py_CLEAR(k->codes);
    Py_CLEAR(k->memo_obj);
    k->memo = NULL;
    Py_CLEAR(k->pos_obj);
    Py_CLEAR(k->off_obj);
    k->pos_arr = k->off_arr = NULL;
    k->n_reach = 0;
    clear_foes(k->threat, k->n_threat);
    clear_foes(k->offense, k->n_offense);
    k->threat = k->offense = NULL;
    k->n_threat = k->n_offense = 0;
    return 0;
}

static void Kernel_dealloc(Kernel *k) {
    PyObject_GC_UnTrack(k);
    Kernel_clear(k);
    PyMem_Free(k->occupied);
    PyMem_Free(k->threat_arr);
    PyMem_Free(k->aoo_arr);
    PyMem_Free(k->reach);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyObject *get_int(PyObject *o, PyObject *name, long *out) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (!v)
        return NULL;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    if (*out == -1 && PyErr_Occurred())
        return NULL;
    return Py_None;
}

static PyObject *Kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *turn, *view, *pos_memo, *off_memo, *targets, *g = NULL, *metric = NULL, *tmp = NULL, *first = NULL;
    PyObject *stats = NULL, *key, *val;
    double tw, nts, ap, ci, mc, rc, rr;
    long w, h, speed, reach;
    Py_ssize_t p = 0;
    Kernel *k;
    if (!PyArg_ParseTuple(args, "OOO!O!O!ddddddd", &turn, &view, &PyDict_Type, &pos_memo, &PyDict_Type, &off_memo,
                          &PyDict_Type, &targets, &tw, &nts, &ap, &ci, &mc, &rc, &rr))
        return NULL;
    if (!(k = (Kernel *)type->tp_alloc(type, 0)))
        return NULL;
    k->aimed = -1;
    k->turn = Py_NewRef(turn);
    k->view = Py_NewRef(view);
    k->pos_memo = Py_NewRef(pos_memo);
    k->off_memo = Py_NewRef(off_memo);
    k->targets = Py_NewRef(targets);
    k->threat_weight = tw;
    k->next_turn_share = nts;
    k->approach_pull = ap;
    k->close_in = ci;
    k->move_cost = mc;
    k->run_cost = rc;
    k->run_in_reach = rr;
    if (!(k->table = PyObject_GetAttr(view, S__table)) ||
        !(k->aoo = PyObject_GetAttr(view, S__aoo)) || !(k->actor = PyObject_GetAttr(view, S_a)))
        goto fail;
    if (!PyDict_Check(k->table) || !PyDict_Check(k->aoo)) {
        PyErr_SetString(PyExc_TypeError, "the view's caches are dicts");
        goto fail;
    }
    if (!(tmp = PyObject_GetAttr(view, S__threat_fields)) || !(k->threat = read_foes(tmp, 0, &k->n_threat)))
        goto fail;
    Py_CLEAR(tmp);
    if (!(tmp = PyObject_GetAttr(view, S__offense_fields)) || !(k->offense = read_foes(tmp, 1, &k->n_offense)))
        goto fail;
    Py_CLEAR(tmp);
    if (!(tmp = PyObject_GetAttr(view, S__armed)))
        goto fail;
    if ((k->armed = PyObject_IsTrue(tmp)) < 0)
        goto fail;
    Py_CLEAR(tmp);
    if (!(g = PyObject_GetAttr(view, S_g)) || !get_int(g, S_width, &w) || !get_int(g, S_height, &h) ||
        !(metric = PyObject_GetAttr(g, S_metric)))
        goto fail;
    k->w = (int)w;
    k->h = (int)h;
    k->metric = PyUnicode_Check(metric) && SAME(metric, S_alternating)   ? 0
                : PyUnicode_Check(metric) && SAME(metric, S_chebyshev) ? 1
                                                                                          : 2;
    if (w <= 0 || h <= 0 || !(k->occupied = PyMem_Calloc((size_t)(w * h), 1)) ||
        !(k->threat_arr = PyMem_Malloc(sizeof(double) * (size_t)(w * h))) ||
        !(k->aoo_arr = PyMem_Malloc(sizeof(double) * (size_t)(w * h)))) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    for (p = 0; p < w * h; p++)
        k->threat_arr[p] = k->aoo_arr[p] = Py_NAN;
    p = 0;
    if (!(k->pos_arr = memo_array(pos_memo, w * h, &k->pos_obj)) ||
        !(k->off_arr = memo_array(off_memo, 2 * w * h, &k->off_obj)))
        goto fail;
    for (p = 0; p < k->n_threat; p++)
        if (coded_open(k->threat[p].field, w * h, 1, &k->threat[p].coded) < 0)
            goto fail;
    for (p = 0; p < k->n_offense; p++)
        if (coded_open(k->offense[p].field, 2 * w * h, 4, &k->offense[p].coded) < 0)
            goto fail;
    p = 0;
    if (!(tmp = PyObject_GetAttr(view, S_occupied)))
        goto fail;
    if (!PyDict_Check(tmp)) {
        PyErr_SetString(PyExc_TypeError, "occupied is a dict");
        goto fail;
    }
    while (PyDict_Next(tmp, &p, &key, &val)) {
        long i = PyLong_AsLong(key);
        if (i == -1 && PyErr_Occurred())
            goto fail;
        if (0 <= i && i < w * h)
            k->occupied[i] = 1;
    }
    Py_CLEAR(tmp);
    /* the actor's first melee weapon (view.first[a.id][0]) and its move plus reach */
    if (!(first = PyObject_GetAttr(view, S_first)) || !(tmp = PyObject_GetAttr(k->actor, S_id)))
        goto fail;
    val = PyDict_GetItemWithError(first, tmp);
    if (!val || !PyTuple_Check(val) || PyTuple_GET_SIZE(val) != 2) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "first weapons are pairs");
        goto fail;
    }
    k->melee_n = Py_NewRef(PyTuple_GET_ITEM(val, 0));
    Py_CLEAR(tmp);
    if (!(stats = PyObject_GetAttr(k->actor, S_stats)))
        goto fail;
    if (!(val = PyObject_GetItem(stats, S_speed)))
        goto fail;
    speed = PyLong_AsLong(val);
    Py_DECREF(val);
    if (!(val = PyObject_GetItem(stats, S_reach)))
        goto fail;
    reach = PyLong_AsLong(val);
    Py_DECREF(val);
    if (PyErr_Occurred())
        goto fail;
    k->limit = (int)(speed + reach);
    Py_DECREF(g);
    Py_DECREF(metric);
    Py_DECREF(first);
    Py_DECREF(stats);
    return (PyObject *)k;
fail:
    Py_XDECREF(g);
    Py_XDECREF(metric);
    Py_XDECREF(tmp);
    Py_XDECREF(first);
    Py_XDECREF(stats);
    Py_DECREF(k);
    return NULL;
}

/* the sight tuple (line of sight, line of effect, cover bonus, distance) of the view's table between flat squares
 * i and j (a new reference): `SagaTactics.sight`, traced here over the view's line codes (`Grid.sight`'s: 4 blocks
 * sight and effect, 3 effect only, 2 heavy cover, 1 low cover) when it is not in the table */
static PyObject *sight(Kernel *k, int i, int j) {
    static const long COVER_BONUS[3] = {0, 5, 10};
    PyObject *key, *got;
    int lo = i <= j ? i : j, hi = i <= j ? j : i, buf[LINE_CAP], cnt, n, los = 1, loe = 1, cover = 0, size = k->w * k->h;
    const unsigned char *codes;
    if (!(key = Py_BuildValue("(ii)", lo, hi)))
        return NULL;
    got = PyDict_GetItemWithError(k->table, key);
    if (got || PyErr_Occurred()) {
        Py_DECREF(key);
        return got ? Py_NewRef(got) : NULL;
    }
    if (!k->codes && !(k->codes = PyObject_CallMethodNoArgs(k->view, S_line_codes))) {
        Py_DECREF(key);
        return NULL;
    }
    cnt = PyBytes_CheckExact(k->codes) && PyBytes_GET_SIZE(k->codes) == size
              ? trace_line(k->w, hi % k->w - lo % k->w, hi / k->w - lo / k->w, buf, LINE_CAP)
              : -1;
    if (cnt < 0 || lo < 0 || hi >= size) {
        Py_DECREF(key);
        return PyObject_CallMethod(k->view, "_sight", "ii", i, j);
    }
    codes = (const unsigned char *)PyBytes_AS_STRING(k->codes);
    for (n = 0; n < cnt; n++)
        fold_code(codes[lo + buf[n]], &los, &loe, &cover);
    got = Py_BuildValue("(OOli)", los ? Py_True : Py_False, loe ? Py_True : Py_False, COVER_BONUS[cover],
                        dist(k, lo % k->w, lo / k->w, hi % k->w, hi / k->w));
    if (!got || PyDict_SetItem(k->table, key, got) < 0) {
        Py_DECREF(key);
        Py_XDECREF(got);
        return NULL;
    }
    Py_DECREF(key);
    return got;
}

/* the unit's Info from `view.class_info(unit)` */
static int load_info(Kernel *k, PyObject *unit, Info *in) {
    PyObject *got = PyObject_CallMethodObjArgs(k->view, S_class_info, unit, NULL), *tops;
    Py_ssize_t n;
    if (!got)
        return -1;
    if (!PyTuple_Check(got) || PyTuple_GET_SIZE(got) != 4) {
        Py_DECREF(got);
        PyErr_SetString(PyExc_TypeError, "class_info gives (melee, reach, speed, tops)");
        return -1;
    }
    if ((in->melee = PyObject_IsTrue(PyTuple_GET_ITEM(got, 0))) < 0)
        goto fail;
    in->reach = PyLong_AsLong(PyTuple_GET_ITEM(got, 1));
    in->speed = PyLong_AsLong(PyTuple_GET_ITEM(got, 2));
    if (PyErr_Occurred())
        goto fail;
    tops = PyTuple_GET_ITEM(got, 3);
    in->ranged = tops != Py_None;
    in->n_tops = 0;
    if (in->ranged) {
        if (!PyTuple_Check(tops) || PyTuple_GET_SIZE(tops) > MAX_TOPS) {
            PyErr_SetString(PyExc_TypeError, "range band tops are a short tuple");
            goto fail;
        }
        for (n = 0; n < PyTuple_GET_SIZE(tops); n++) {
            in->tops[n] = PyLong_AsLong(PyTuple_GET_ITEM(tops, n));
            if (in->tops[n] == -1 && PyErr_Occurred())
                goto fail;
        }
        in->n_tops = (int)PyTuple_GET_SIZE(tops);
    }
    Py_DECREF(got);
    in->loaded = 1;
    return 0;
fail:
    Py_DECREF(got);
    return -1;
}

/* `combat.range_band`: the first band whose top is at least d, or -1 */
static int band_of(const Info *in, long d) {
    int b;
    for (b = 0; b < in->n_tops; b++)
        if (d <= in->tops[b])
            return b;
    return -1;
}

/* the view's map's _Geometry (a new reference), or NULL with an exception */
static PyObject *view_geometry(Kernel *k) {
    PyObject *geo, *g = PyObject_GetAttr(k->view, S_g);
    if (!g)
        return NULL;
    geo = PyObject_GetAttr(g, S__geometry);
    Py_DECREF(g);
    return geo;
}

/* the sight memo of _sight.h for the map's line codes (shared with _legal.c and _observe.c), once per kernel: 0, with
 * k->memo NULL when there is none to keep */
static int open_memo(Kernel *k) {
    PyObject *geo, *d;
    int rc = 0;
    Py_ssize_t size = (Py_ssize_t)k->w * k->h;
    k->memo_tried = 1;
    if (size > SIGHT_SQUARES)
        return 0;
    if (!k->codes && !(k->codes = PyObject_CallMethodNoArgs(k->view, S_line_codes)))
        return -1;
    if (!(geo = view_geometry(k)))
        return -1;
    if (!(d = PyObject_GetAttr(geo, S_memo)) || !PyDict_Check(d)) {
        Py_XDECREF(d);
        Py_DECREF(geo);
        PyErr_Clear(); /* no memo dict: no memo */
        return 0;
    }
    rc = sight_memo(d, S_saga_sight, k->codes, size, &k->memo_obj);
    Py_DECREF(d);
    Py_DECREF(geo);
    if (!rc && k->memo_obj)
        k->memo = (unsigned char *)PyByteArray_AS_STRING(k->memo_obj);
    return rc;
}

/* (line of sight, line of effect, cover 0 / 1 / 2, distance) of the sight line between flat squares i and j: from
 * the sight memo (traced over the line codes when not known there), else through the view's table */
static int sight_class(Kernel *k, int i, int j, int *los, int *loe, int *cover, long *d) {
    PyObject *pk;
    long bonus;
    int lo = i <= j ? i : j, hi = i <= j ? j : i, size = k->w * k->h;
    if (!k->memo_tried && open_memo(k) < 0)
        return -1;
    if (k->memo && 0 <= lo && hi < size) {
        unsigned char *m = k->memo + (Py_ssize_t)lo * size + hi, b = *m;
        if (!b) {
            int buf[LINE_CAP], cnt = trace_line(k->w, hi % k->w - lo % k->w, hi / k->w - lo / k->w, buf, LINE_CAP), n;
            const unsigned char *codes = (const unsigned char *)PyBytes_AS_STRING(k->codes);
            int l = 1, e = 1, c = 0;
            if (cnt < 0)
                goto table;
            for (n = 0; n < cnt; n++)
                fold_code(codes[lo + buf[n]], &l, &e, &c);
            *m = b = (unsigned char)(0x80 | l | e << 1 | c << 2);
        }
        *los = b & 1;
        *loe = (b >> 1) & 1;
        *cover = (b >> 2) & 3;
        *d = dist(k, lo % k->w, lo / k->w, hi % k->w, hi / k->w);
        return 0;
    }
table:
    pk = sight(k, i, j);
    if (!pk)
        return -1;
    if (!PyTuple_Check(pk) || PyTuple_GET_SIZE(pk) != 4) {
        Py_DECREF(pk);
        PyErr_SetString(PyExc_TypeError, "a sight line is a 4-tuple");
        return -1;
    }
    *los = PyObject_IsTrue(PyTuple_GET_ITEM(pk, 0));
    *loe = PyObject_IsTrue(PyTuple_GET_ITEM(pk, 1));
    bonus = PyLong_AsLong(PyTuple_GET_ITEM(pk, 2));
    *d = PyLong_AsLong(PyTuple_GET_ITEM(pk, 3));
    Py_DECREF(pk);
    if (*los < 0 || *loe < 0 || PyErr_Occurred())
        return -1;
    *cover = bonus == 0 ? 0 : bonus == 5 ? 1 : bonus == 10 ? 2 : -1;
    if (*cover < 0) {
        PyErr_SetString(PyExc_ValueError, "a cover bonus is 0, 5 or 10");
        return -1;
    }
    return 0;
}

/* the class table of foe f (rows of `stride` doubles, zeros until known), made in its by_pair dict on first use */
static double *classes(Foe *f, Py_ssize_t rows, int stride) {
    if (!f->cls) {
        Py_ssize_t size = rows * stride * (Py_ssize_t)sizeof(double);
        PyObject *got = PyDict_GetItemWithError(f->by_pair, Py_None);
        if (got && PyByteArray_CheckExact(got) && PyByteArray_GET_SIZE(got) == size) {
            Py_INCREF(got);
        } else {
            if (PyErr_Occurred() || !(got = PyByteArray_FromStringAndSize(NULL, size)))
                return NULL;
            memset(PyByteArray_AS_STRING(got), 0, (size_t)size);
            if (PyDict_SetItem(f->by_pair, Py_None, got) < 0) {
                Py_DECREF(got);
                return NULL;
            }
        }
        f->cls_obj = got;
        f->cls = (double *)PyByteArray_AS_STRING(got);
    }
    return f->cls;
}

/* option `opt` of the estimate parts of foe f's pair into f->parts[opt] (f->has[opt]: 1 read, -1 none): from its
 * by_pair dict (under the option's number), else the view's `strike_parts(unit, opt)` (offense) or
 * `threat_parts(unit, opt)` (threat), kept there. Returns f->has[opt], or -1 with an exception. */
static int load_parts(Kernel *k, Foe *f, int offense, int opt) {
    PyObject *key = PyLong_FromLong(opt), *got;
    Py_ssize_t m, width = offense ? 6 : 4;
    int err = 0;
    if (!key)
        return -1;
    if ((got = PyDict_GetItemWithError(f->by_pair, key))) {
        Py_INCREF(got);
    } else if (PyErr_Occurred() ||
               !(got = PyObject_CallMethodObjArgs(k->view, offense ? S_strike_parts : S_threat_parts, f->unit, key,
                                                  NULL)) ||
               PyDict_SetItem(f->by_pair, key, got) < 0) {
        Py_DECREF(key);
        Py_XDECREF(got);
        return -1;
    }
    Py_DECREF(key);
    f->has[opt] = -1;
    if (got != Py_None) {
        if (!PyTuple_Check(got) || PyTuple_GET_SIZE(got) != width) {
            Py_DECREF(got);
            PyErr_SetString(PyExc_TypeError, "estimate parts: a tuple of numbers");
            return -1;
        }
        for (m = 0; m < width; m++)
            f->parts[opt][m] = as_double(PyTuple_GET_ITEM(got, m), &err);
        if (err) {
            Py_DECREF(got);
            return -1;
        }
        f->has[opt] = 1;
    }
    Py_DECREF(got);
    return f->has[opt];
}

/* foe f's parts of option opt, read when first needed: 1 it has them, -1 it has none, -2 with an exception */
static int parts_of(Kernel *k, Foe *f, int offense, int opt) {
    if (f->has[opt])
        return f->has[opt];
    return load_parts(k, f, offense, opt) == -1 && PyErr_Occurred() ? -2 : f->has[opt];
}

static const int BAND_PENALTY[4] = {0, -2, -5, -10}, COVER_BONUS[3] = {0, 5, 10};

/* `_View._attack_estimate`'s arithmetic over parts c (attack bonus, defense, mean, autofire, Careful Shot's +1, and
 * for a strike P(damage >= hit points)): band -1 for a melee weapon, cover a code 0-2; the expected damage and, with
 * `with_kill`, the kill chance */
static void estimate_of(const double *c, int band, int cover, int aimed, int with_kill, double *ed, double *kc) {
    long ab = (long)c[0], defense = (long)c[1], need;
    double p, mean = c[2], dmg;
    if (band >= 0) {
        ab += BAND_PENALTY[band];
        if (aimed)
            ab += (long)c[4];
        else
            defense += COVER_BONUS[cover];
    }
    need = defense - ab; /* combat.hit_chance */
    need = need > 20 ? 20 : need;
    need = need < 2 ? 2 : need;
    p = (double)(21 - need) / 20;
    dmg = p * mean;
    dmg = dmg + 0.05 * mean;
    if (c[3] != 0.0)
        dmg += (1 - p) * mean / 2;
    *ed = dmg;
    if (with_kill)
        *kc = p * c[5];
}

/* `_View.threat(pos)` */
static int threat(Kernel *k, PyObject *pos, int i, double *out) {
    double sum = 0.0;
    int n, err = 0;
    if (!Py_IS_NAN(k->threat_arr[i])) {
        *out = k->threat_arr[i];
        return 0;
    }
    for (n = 0; n < k->n_threat; n++) {
        Foe *f = &k->threat[n];
        const double *known = coded_get(&f->coded, i);
        PyObject *v;
        double x;
        if (known) {
            sum += *known;
            continue;
        }
        {
            int los, loe, cover, near = 0, band, code, mp = 0, rp = 0;
            long d;
            double *row;
            if (sight_class(k, f->ei, i, &los, &loe, &cover, &d) < 0 ||
                (!f->info.loaded && load_info(k, f->unit, &f->info) < 0) ||
                !(row = classes(f, THREAT_CLASSES, 2)))
                return -1;
            if (f->info.melee) {
                long lim = f->info.speed + f->info.reach;
                near = d <= lim ? 2 : d <= lim + f->info.speed ? 1 : 0;
            }
            band = f->info.ranged ? band_of(&f->info, d) : -1;
            code = ((near * 5 + band + 1) * 3 + (band >= 0 ? cover : 0)) * 2 + (los != 0);
            row += 2 * code;
            if (row[0] != 0.0) {
                x = row[1];
            } else if ((mp = near && f->info.melee ? parts_of(k, f, 0, 0) : 0) == -2 ||
                       (rp = f->info.ranged ? parts_of(k, f, 0, 1) : 0) == -2) {
                return -1;
            } else if (mp != -1 && rp != -1) { /* `_View._threat_of` over the pair's parts */
                double ed;
                x = 0.0;
                if (mp == 1) {
                    estimate_of(f->parts[0], -1, 0, 0, 0, &ed, NULL);
                    x = near == 2 ? ed : 0.2 * ed; /* tactics._LATER_MELEE_SHARE */
                }
                if (rp == 1) {
                    ed = 0.0;
                    if (band >= 0)
                        estimate_of(f->parts[1], band, cover, 0, 0, &ed, NULL);
                    if (!los)
                        ed *= 0.5; /* tactics._NO_LOS_SHARE */
                    x = ed > x ? ed : x;
                }
                row[0] = 1.0;
                row[1] = x;
            } else {
                if (!(v = sight(k, f->ei, i))) /* the view's table gets the line `_threat_of` looks up */
                    return -1;
                Py_DECREF(v);
                if (!(v = PyObject_CallMethodObjArgs(k->view, S__threat_of, f->unit, pos, NULL)))
                    return -1;
                x = as_double(v, &err);
                Py_DECREF(v);
                if (err)
                    return -1;
                row[0] = 1.0;
                row[1] = x;
            }
        }
        coded_put(&f->coded, i, &x);
        sum += x;
    }
    k->threat_arr[i] = sum;
    *out = sum;
    return 0;
}

/* the target constants (hp, worth of a kill, weight) of `_Turn._target(unit)`, through the turn's dict */
static int target_constants(Kernel *k, PyObject *unit, PyObject *id, double *hp, double *kill, double *w) {
    PyObject *c = PyDict_GetItemWithError(k->targets, id);
    int err = 0;
    if (c) {
        Py_INCREF(c);
    } else if (PyErr_Occurred() || !(c = PyObject_CallMethodObjArgs(k->turn, S__target, unit, NULL))) {
        return -1;
    }
    if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 3) {
        Py_DECREF(c);
        PyErr_SetString(PyExc_TypeError, "target constants are triples");
        return -1;
    }
    *hp = as_double(PyTuple_GET_ITEM(c, 0), &err);
    *kill = as_double(PyTuple_GET_ITEM(c, 1), &err);
    *w = as_double(PyTuple_GET_ITEM(c, 2), &err);
    Py_DECREF(c);
    return err ? -1 : 0;
}

/* an estimate's (expected damage, kill chance) */
static int est_figures(PyObject *est, double *ed, double *kc) {
    PyObject *o;
    int err = 0;
    if (!(o = PyObject_GetAttr(est, S_expected_damage)))
        return -1;
    *ed = as_double(o, &err);
    Py_DECREF(o);
    if (err || !(o = PyObject_GetAttr(est, S_kill_chance)))
        return -1;
    *kc = as_double(o, &err);
    Py_DECREF(o);
    return err ? -1 : 0;
}

/* `_Turn.value` of an estimate of (ed, kc) on offense foe f */
static int foe_value(Kernel *k, Foe *f, double ed, double kc, double *out) {
    double m;
    if (!f->have_target) {
        if (target_constants(k, f->unit, f->id, &f->hp, &f->kill, &f->weight) < 0)
            return -1;
        f->have_target = 1;
    }
    m = f->hp < ed ? f->hp : ed; /* min(ed, hp) */
    *out = (m + kc * f->kill) * f->weight;
    return 0;
}

/* `_Turn.value(t, est)` with the target's constants from the turn (`_Turn._target` fills them) */
static int value(Kernel *k, PyObject *unit, PyObject *id, PyObject *est, double *out) {
    double hp, kill, w, ed, kc, m;
    if (target_constants(k, unit, id, &hp, &kill, &w) < 0 || est_figures(est, &ed, &kc) < 0)
        return -1;
    m = hp < ed ? hp : ed; /* min(ed, hp) */
    *out = (m + kc * kill) * w;
    return 0;
}

/* whether a unit other than the actor stands strictly between flat squares i and j (_Geometry.line) */
static int line_blocked(Kernel *k, int i, int j) {
    int buf[LINE_CAP], lo = i <= j ? i : j, hi = i <= j ? j : i, cnt, n, size = k->w * k->h;
    PyObject *geo, *line;
    Py_ssize_t m;
    cnt = trace_line(k->w, hi % k->w - lo % k->w, hi / k->w - lo / k->w, buf, LINE_CAP);
    if (cnt >= 0) {
        for (n = 0; n < cnt; n++) {
            int s = lo + buf[n];
            if (0 <= s && s < size && k->occupied[s])
                return 1;
        }
        return 0;
    }
    if (!(geo = view_geometry(k)))
        return -1;
    line = PyObject_CallMethod(geo, "line", "ii", i, j);
    Py_DECREF(geo);
    if (!line)
        return -1;
    if (!PyTuple_Check(line)) {
        Py_DECREF(line);
        PyErr_SetString(PyExc_TypeError, "a line is a tuple");
        return -1;
    }
    for (m = 0; m < PyTuple_GET_SIZE(line); m++) {
        long s = PyLong_AsLong(PyTuple_GET_ITEM(line, m));
        if (0 <= s && s < size && k->occupied[s]) {
            Py_DECREF(line);
            return 1;
        }
    }
    Py_DECREF(line);
    return PyErr_Occurred() ? -1 : 0;
}

/* `_View.aoo_cost(pos)`: 0.0 on a square no enemy threatens, else the view's answer */
static int aoo_cost(Kernel *k, PyObject *pos, int i, double *out) {
    PyObject *c;
    int err = 0;
    if (!Py_IS_NAN(k->aoo_arr[i])) {
        *out = k->aoo_arr[i];
        return 0;
    }
    c = PyDict_GetItemWithError(k->aoo, pos);
    if (!c && PyErr_Occurred())
        return -1;
    if (!c && k->threats) {
        PyObject *key = PyLong_FromLong(i);
        int has;
        if (!key)
            return -1;
        has = PyDict_Contains(k->threats, key);
        Py_DECREF(key);
        if (has < 0)
            return -1;
        if (!has) {
            *out = k->aoo_arr[i] = 0.0;
            return 0;
        }
    }
    if (c) {
        Py_INCREF(c);
    } else {
        if (!(c = PyObject_CallMethodObjArgs(k->view, S_aoo_cost, pos, NULL)))
            return -1;
        if (!k->threats) {
            PyObject *t = PyObject_GetAttr(k->view, S__threats);
            if (!t) {
                Py_DECREF(c);
                return -1;
            }
            if (PyDict_Check(t))
                k->threats = t;
            else
                Py_DECREF(t);
        }
    }
    *out = as_double(c, &err);
    Py_DECREF(c);
    if (err)
        return -1;
    k->aoo_arr[i] = *out;
    return 0;
}

/* a strike of the actor on foe f from flat square i: [1 (none) or 2, ranged, expected damage, kill chance] (the
 * view's `_strike`, by the class of the sight line) */
static int strike(Kernel *k, Foe *f, PyObject *pos, int i, int aimed, double out[4]) {
    PyObject *st;
    Py_ssize_t slot = (Py_ssize_t)aimed * k->w * k->h + i;
    const double *known = coded_get(&f->coded, slot);
    Info *in = &k->actor_info;
    int los, loe, cover, reach, band, ranged;
    long d;
    double *row;
    if (known) {
        memcpy(out, known, 4 * sizeof(double));
        return 0;
    }
    if (sight_class(k, i, f->ei, &los, &loe, &cover, &d) < 0 || (!in->loaded && load_info(k, k->actor, in) < 0) ||
        !(row = classes(f, STRIKE_CLASSES, 4)))
        return -1;
    reach = in->melee && (d <= 1 || (d <= in->reach && loe));
    band = in->ranged && los && loe ? band_of(in, d) : -1;
    row += 4 * (((reach * 5 + band + 1) * 3 + (band >= 0 ? cover : 0)) * 2 + (aimed != 0));
    if (row[0] == 0.0) { /* a class not met yet for these two units: `_View._strike` over the pair's parts */
        int melee = reach ? parts_of(k, f, 1, 0) : 0, shot = band >= 0 ? parts_of(k, f, 1, aimed ? 2 : 1) : 0;
        if (melee == -2 || shot == -2)
            return -1;
        if (melee != -1 && shot != -1) { /* the parts it needs are there (else the view's strike, below) */
            double ed, kc;
            memset(out, 0, 4 * sizeof(double));
            out[0] = 1.0;
            if (melee == 1) {
                estimate_of(f->parts[0], -1, 0, 0, 1, &out[2], &out[3]);
                out[0] = 2.0;
            }
            if (shot == 1) {
                estimate_of(f->parts[aimed ? 2 : 1], band, cover, aimed, 1, &ed, &kc);
                if (out[0] == 1.0 || ed > out[2]) {
                    out[0] = 2.0;
                    out[1] = 1.0;
                    out[2] = ed;
                    out[3] = kc;
                }
            }
            memcpy(row, out, 4 * sizeof(double));
        }
    }
    if (row[0] == 0.0) { /* the view's strike */
        if (!(st = sight(k, i, f->ei))) /* the view's table gets the line `_strike` looks up */
            return -1;
        Py_DECREF(st);
        if (!(st = PyObject_CallMethodObjArgs(k->view, S__strike, f->unit, pos, aimed ? Py_True : Py_False, NULL)))
            return -1;
        memset(out, 0, 4 * sizeof(double));
        out[0] = 1.0;
        if (st != Py_None) {
            if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 2) {
                Py_DECREF(st);
                PyErr_SetString(PyExc_TypeError, "a strike is (estimate, ranged)");
                return -1;
            }
            if ((ranged = PyObject_IsTrue(PyTuple_GET_ITEM(st, 1))) < 0 ||
                est_figures(PyTuple_GET_ITEM(st, 0), &out[2], &out[3]) < 0) {
                Py_DECREF(st);
                return -1;
            }
            out[0] = 2.0;
            out[1] = ranged;
        }
        Py_DECREF(st);
        memcpy(row, out, 4 * sizeof(double));
    }
    memcpy(out, row, 4 * sizeof(double));
    coded_put(&f->coded, slot, out);
    return 0;
}

/* `_Turn.best_attack(pos, aimed)` over `_View.offense(pos, aimed)` */
static int best_attack(Kernel *k, PyObject *pos, int aimed, double *out) {
    double best = 0.0;
    int x, y, i, n;
    if (xy(pos, &x, &y) < 0)
        return -1;
    if (x < 0 || y < 0 || x >= k->w || y >= k->h) {
        PyErr_SetString(PyExc_IndexError, "a square off the map");
        return -1;
    }
    i = y * k->w + x;
    if (!Py_IS_NAN(k->off_arr[aimed * k->w * k->h + i])) {
        *out = k->off_arr[aimed * k->w * k->h + i];
        return 0;
    }
    for (n = 0; k->armed && n < k->n_offense; n++) {
        Foe *f = &k->offense[n];
        double st[4], cost = 0.0, ed, kc, v;
        if (strike(k, f, pos, i, aimed, st) < 0)
            return -1;
        if (st[0] == 1.0)
            continue;
        ed = st[2];
        kc = st[3];
        if (st[1] != 0.0) {
            int blocked = line_blocked(k, i, f->ei);
            if (blocked < 0)
                return -1;
            if (blocked) { /* someone in the line of fire: the melee weapon, next to the target */
                PyObject *epos, *est;
                int r;
                if (k->melee_n == Py_None || dist(k, x, y, f->x, f->y) > 1)
                    continue;
                if ((r = parts_of(k, f, 1, 0)) == -2)
                    return -1;
                if (r == 1) { /* the melee strike of the pair's parts */
                    estimate_of(f->parts[0], -1, 0, 0, 1, &ed, &kc);
                } else {
                    if (!(epos = PyObject_GetAttr(f->unit, S_pos)))
                        return -1;
                    est = PyObject_CallMethodObjArgs(k->view, S_estimate, k->actor, f->unit, k->melee_n, pos, epos,
                                                     NULL);
                    Py_DECREF(epos);
                    if (!est)
                        return -1;
                    r = est_figures(est, &ed, &kc);
                    Py_DECREF(est);
                    if (r < 0)
                        return -1;
                }
            } else if (aoo_cost(k, pos, i, &cost) < 0) {
                return -1;
            }
        }
        if (ed > 0) {
            if (foe_value(k, f, ed, kc, &v) < 0)
                return -1;
            v = v - cost;
            if (v > best)
                best = v;
        }
    }
    k->off_arr[aimed * k->w * k->h + i] = best;
    *out = best;
    return 0;
}

/* `_View.approach(pos)`: the field read directly once the view has made it */
static int approach(Kernel *k, PyObject *pos, int i, long *out) {
    PyObject *v;
    if (!k->approach) {
        PyObject *field;
        if (!(v = PyObject_CallMethodObjArgs(k->view, S_approach, pos, NULL)))
            return -1;
        *out = PyLong_AsLong(v);
        Py_DECREF(v);
        if (*out == -1 && PyErr_Occurred())
            return -1;
        if (!(field = PyObject_GetAttr(k->view, S__approach)))
            return -1;
        if (PyList_Check(field) && PyList_GET_SIZE(field) == (Py_ssize_t)k->w * k->h)
            k->approach = field;
        else
            Py_DECREF(field);
        return 0;
    }
    if (i < 0 || i >= PyList_GET_SIZE(k->approach)) {
        PyErr_SetString(PyExc_IndexError, "square off the map");
        return -1;
    }
    *out = PyLong_AsLong(PyList_GET_ITEM(k->approach, i));
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* the best `_Turn.value` over `_View.reach_value(pos)` (0.0 when none is better) */
static int reach_best(Kernel *k, PyObject *pos, int x, int y, int i, double *out) {
    Py_ssize_t n;
    long steps;
    *out = 0.0;
    if (k->melee_n == Py_None)
        return 0;
    if (!k->melee_list) {
        /* the first time: the view builds its reach list (and approach field); its answer is used as it is */
        PyObject *lst = PyObject_CallMethodObjArgs(k->view, S_reach_value, pos, NULL), *ml;
        if (!lst)
            return -1;
        if (!PyList_Check(lst)) {
            Py_DECREF(lst);
            PyErr_SetString(PyExc_TypeError, "reach_value gives a list");
            return -1;
        }
        for (n = 0; n < PyList_GET_SIZE(lst); n++) {
            PyObject *t = PyList_GET_ITEM(lst, n), *id;
            double v;
            int r;
            if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 || !(id = PyObject_GetAttr(PyTuple_GET_ITEM(t, 0), S_id))) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "reach entries are (unit, estimate)");
                Py_DECREF(lst);
                return -1;
            }
            r = value(k, PyTuple_GET_ITEM(t, 0), id, PyTuple_GET_ITEM(t, 1), &v);
            Py_DECREF(id);
            if (r < 0) {
                Py_DECREF(lst);
                return -1;
            }
            if (v > *out)
                *out = v;
        }
        Py_DECREF(lst);
        if (!(ml = PyObject_GetAttr(k->view, S__melee)))
            return -1;
        if (!PyList_Check(ml)) {
            Py_DECREF(ml);
            PyErr_SetString(PyExc_TypeError, "the reach list is a list");
            return -1;
        }
        k->melee_list = ml;
        if (!(k->reach = PyMem_Calloc(PyList_GET_SIZE(ml) + 1, sizeof(Reach)))) {
            PyErr_NoMemory();
            return -1;
        }
        for (n = 0; n < PyList_GET_SIZE(ml); n++) {
            PyObject *t = PyList_GET_ITEM(ml, n), *epos;
            Reach *r = &k->reach[n];
            int m, bad;
            if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) {
                PyErr_SetString(PyExc_TypeError, "reach entries are (unit, estimate)");
                return -1;
            }
            r->unit = PyTuple_GET_ITEM(t, 0);
            r->est = PyTuple_GET_ITEM(t, 1);
            if (!(epos = PyObject_GetAttr(r->unit, S_pos)))
                return -1;
            bad = xy(epos, &r->x, &r->y) < 0;
            Py_DECREF(epos);
            if (bad || est_figures(r->est, &r->ed, &r->kc) < 0)
                return -1;
            r->foe = -1;
            for (m = 0; m < k->n_offense; m++)
                if (k->offense[m].unit == r->unit)
                    r->foe = m;
        }
        k->n_reach = (int)PyList_GET_SIZE(ml);
        return 0;
    }
    if (approach(k, pos, i, &steps) < 0)
        return -1;
    if (steps > k->limit)
        return 0;
    for (n = 0; n < k->n_reach; n++) {
        Reach *r = &k->reach[n];
        double v;
        if (dist(k, x, y, r->x, r->y) > k->limit)
            continue;
        if (r->foe >= 0) {
            if (foe_value(k, &k->offense[r->foe], r->ed, r->kc, &v) < 0)
                return -1;
        } else {
            PyObject *id = PyObject_GetAttr(r->unit, S_id);
            int bad;
            if (!id)
                return -1;
            bad = value(k, r->unit, id, r->est, &v) < 0;
            Py_DECREF(id);
            if (bad)
                return -1;
        }
        if (v > *out)
            *out = v;
    }
    return 0;
}

/* `_Turn.pos_value(pos)` for a unit that is not fleeing */
static int pos_value(Kernel *k, PyObject *pos, double *out) {
    double th, shot, melee, later, val;
    int x, y, i;
    if (xy(pos, &x, &y) < 0)
        return -1;
    if (x < 0 || y < 0 || x >= k->w || y >= k->h) {
        PyErr_SetString(PyExc_IndexError, "a square off the map");
        return -1;
    }
    i = y * k->w + x;
    if (!Py_IS_NAN(k->pos_arr[i])) {
        *out = k->pos_arr[i];
        return 0;
    }
    if (threat(k, pos, i, &th) < 0 || best_attack(k, pos, 0, &shot) < 0 || reach_best(k, pos, x, y, i, &melee) < 0)
        return -1;
    later = shot >= melee ? shot : melee;
    val = -k->threat_weight * th + k->next_turn_share * later;
    if (later <= 0 || melee > shot) { /* nothing to hit from here, or closing in for a melee blow */
        long steps;
        if (approach(k, pos, i, &steps) < 0)
            return -1;
        val -= (later <= 0 ? k->approach_pull : k->close_in) * (double)steps;
    }
    k->pos_arr[i] = val;
    *out = val;
    return 0;
}

static PyObject *Kernel_threat(Kernel *k, PyObject *pos) {
    double v;
    int x, y;
    if (xy(pos, &x, &y) < 0)
        return NULL;
    if (x < 0 || y < 0 || x >= k->w || y >= k->h) {
        PyErr_SetString(PyExc_IndexError, "a square off the map");
        return NULL;
    }
    if (threat(k, pos, y * k->w + x, &v) < 0)
        return NULL;
    return PyFloat_FromDouble(v);
}

static PyObject *Kernel_pos_value(Kernel *k, PyObject *pos) {
    double v;
    if (pos_value(k, pos, &v) < 0)
        return NULL;
    return PyFloat_FromDouble(v);
}

static PyObject *Kernel_best_attack(Kernel *k, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    double v;
    int aimed = 0;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *aim = nargs == 2 ? args[1] : NULL;
    if (nargs < 1 || nargs + nkw > 2 ||
        (nkw && (nargs != 1 || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "aimed") != 0))) {
        PyErr_SetString(PyExc_TypeError, "best_attack(pos, aimed=False)");
        return NULL;
    }
    if (nkw)
        aim = args[1];
    if (aim && (aimed = PyObject_IsTrue(aim)) < 0)
        return NULL;
    if (best_attack(k, args[0], aimed, &v) < 0)
        return NULL;
    return PyFloat_FromDouble(v);
}

/* move_scores(squares, base, with_attack): per square, `base (+ max(best_attack(sq), 0.0)) + pos_value(sq)`, the
 * score `_Turn.score` gives a move or a withdrawal (base = minus what it provokes, minus the move cost) */
static PyObject *Kernel_move_scores(Kernel *k, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *squares, *out;
    double base;
    int with_attack;
    Py_ssize_t n, cnt;
    if (nargs != 3 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "move_scores(squares: list, base, with_attack)");
        return NULL;
    }
    squares = args[0];
    base = PyFloat_AsDouble(args[1]);
    if (base == -1.0 && PyErr_Occurred())
        return NULL;
    if ((with_attack = PyObject_IsTrue(args[2])) < 0)
        return NULL;
    cnt = PyList_GET_SIZE(squares);
    if (!(out = PyList_New(cnt)))
        return NULL;
    for (n = 0; n < cnt; n++) {
        PyObject *sq = PyList_GET_ITEM(squares, n), *f;
        double v = base, ba, pv;
        if (with_attack) {
            if (best_attack(k, sq, 0, &ba) < 0)
                goto fail;
            v += ba > 0.0 ? ba : 0.0;
        }
        if (pos_value(k, sq, &pv) < 0 || !(f = PyFloat_FromDouble(v + pv)))
            goto fail;
        PyList_SET_ITEM(out, n, f);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* any_attack(squares): whether best_attack(square) > 0 for any of the squares (`_Turn.can_strike`'s test) */
static PyObject *Kernel_any_attack(Kernel *k, PyObject *squares) {
    Py_ssize_t n;
    if (!PyList_Check(squares)) {
        PyErr_SetString(PyExc_TypeError, "any_attack(squares: list)");
        return NULL;
    }
    for (n = 0; n < PyList_GET_SIZE(squares); n++) {
        double v;
        if (best_attack(k, PyList_GET_ITEM(squares, n), 0, &v) < 0)
            return NULL;
        if (v > 0)
            Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

/* classify(legal, kinds, keep, step) -> (kinds, moves, squares): the loop of `_Turn.__init__` over the legal
 * decisions: per decision its kind (`kinds.get(action, "misc")`), or None when pruned (a square off the lattice of
 * `step` that is not in `keep`, when keep is not None); the moves and withdrawals; per action of the moves,
 * withdrawals and runs (kind, [squares]); `keep` may be a set of squares or a bytes of one byte per square (`key_mask`) */
static PyObject *Kernel_classify(Kernel *k, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *legal, *map, *keep, *kinds = NULL, *moves = NULL, *squares = NULL;
    const unsigned char *mask;
    long step;
    Py_ssize_t n, cnt;
    if (nargs != 4 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyLong_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "classify(legal: list, kinds: dict, keep, step: int)");
        return NULL;
    }
    legal = args[0];
    map = args[1];
    keep = args[2] == Py_None ? NULL : args[2];
    mask = keep && PyBytes_CheckExact(keep) ? (const unsigned char *)PyBytes_AS_STRING(keep) : NULL;
    step = PyLong_AsLong(args[3]);
    if (step <= 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "the lattice step is positive");
        return NULL;
    }
    cnt = PyList_GET_SIZE(legal);
    if (!(kinds = PyList_New(cnt)) || !(moves = PyList_New(0)) || !(squares = PyDict_New()))
        goto fail;
    for (n = 0; n < cnt; n++) {
        PyObject *d = PyList_GET_ITEM(legal, n), *act, *sq, *kind;
        if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) != 4) {
            PyErr_SetString(PyExc_TypeError, "a decision is a 4-tuple");
            goto fail;
        }
        act = PyTuple_GET_ITEM(d, 0);
        sq = PyTuple_GET_ITEM(d, 2);
        if (keep && sq != Py_None) {
            int x, y;
            if (xy(sq, &x, &y) < 0)
                goto fail;
            if (x % step || y % step) {
                int has = mask ? (x >= 0 && y >= 0 && x < k->w && y * k->w + x < PyBytes_GET_SIZE(keep) &&
                                  mask[y * k->w + x])
                               : PySequence_Contains(keep, sq);
                if (has < 0)
                    goto fail;
                if (!has) {
                    PyList_SET_ITEM(kinds, n, Py_NewRef(Py_None));
                    continue;
                }
            }
        }
        kind = PyDict_GetItemWithError(map, act);
        if (!kind) {
            if (PyErr_Occurred())
                goto fail;
            kind = S_misc;
        }
        PyList_SET_ITEM(kinds, n, Py_NewRef(kind));
        if (PyUnicode_Check(kind) && (SAME(kind, S_move) || SAME(kind, S_withdraw) ||
                                      SAME(kind, S_run))) {
            PyObject *got;
            if (!SAME(kind, S_run) && PyList_Append(moves, d) < 0)
                goto fail;
            got = PyDict_GetItemWithError(squares, act);
            if (!got) {
                PyObject *lst;
                if (PyErr_Occurred() || !(lst = PyList_New(0)))
                    goto fail;
                got = PyTuple_Pack(2, kind, lst);
                Py_DECREF(lst);
                if (!got)
                    goto fail;
                if (PyDict_SetItem(squares, act, got) < 0) {
                    Py_DECREF(got);
                    goto fail;
                }
                Py_DECREF(got);
            }
            if (PyList_Append(PyTuple_GET_ITEM(got, 1), sq) < 0)
                goto fail;
        }
    }
    {
        PyObject *out = PyTuple_Pack(3, kinds, moves, squares);
        Py_DECREF(kinds);
        Py_DECREF(moves);
        Py_DECREF(squares);
        return out;
    }
fail:
    Py_XDECREF(kinds);
    Py_XDECREF(moves);
    Py_XDECREF(squares);
    return NULL;
}

/* one square decision's score from its action's (base, with_attack), or the action's constant score (a float) */
static int square_score(Kernel *k, PyObject *how, PyObject *sq, double *out) {
    double base, ba, pv;
    int with_attack, err = 0;
    if (PyFloat_Check(how)) {
        *out = PyFloat_AS_DOUBLE(how);
        return 0;
    }
    if (!PyTuple_Check(how) || PyTuple_GET_SIZE(how) != 2) {
        PyErr_SetString(PyExc_TypeError, "a square decision's constants are (base, with_attack) or a float");
        return -1;
    }
    base = as_double(PyTuple_GET_ITEM(how, 0), &err);
    if (err || (with_attack = PyObject_IsTrue(PyTuple_GET_ITEM(how, 1))) < 0)
        return -1;
    if (with_attack) {
        if (best_attack(k, sq, 0, &ba) < 0)
            return -1;
        base += ba > 0.0 ? ba : 0.0;
    }
    if (pos_value(k, sq, &pv) < 0)
        return -1;
    *out = base + pv;
    return 0;
}

/* n draws of `random.Random.random` from rng (exactly a random.Random) in one `rng.getrandbits(64 * n)`: its 32-bit
 * words, least significant first, are the generator's outputs in the order random() takes them, two a draw (`a >> 5`,
 * `b >> 6`); the generator is left where n calls of random() leave it. NULL with an exception. */
static double *random_draws(PyObject *rng, Py_ssize_t n) {
    PyObject *bits, *bytes;
    double *out;
    const unsigned char *b;
    Py_ssize_t k;
    if (!(bits = PyObject_CallMethod(rng, "getrandbits", "n", 64 * n)))
        return NULL;
    bytes = PyObject_CallMethod(bits, "to_bytes", "ns", 8 * n, "little");
    Py_DECREF(bits);
    if (!bytes)
        return NULL;
    if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) != 8 * n || !(out = PyMem_Malloc(sizeof(double) * n))) {
        Py_DECREF(bytes);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return NULL;
    }
    b = (const unsigned char *)PyBytes_AS_STRING(bytes);
    for (k = 0; k < n; k++, b += 8) {
        uint32_t lo = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
        out[k] = ((lo >> 5) * 67108864.0 + (hi >> 6)) * (1.0 / 9007199254740992.0);
    }
    Py_DECREF(bytes);
    return out;
}

/* the value of a turn's boolean method (`can_strike`, `can_attack_after(d)`, ...), d NULL for none: 1, 0, -1 with an
 * exception */
static int turn_says(Kernel *k, PyObject *name, PyObject *d) {
    PyObject *r = d ? PyObject_CallMethodOneArg(k->turn, name, d) : PyObject_CallMethodNoArgs(k->turn, name);
    int truth;
    if (!r)
        return -1;
    truth = PyObject_IsTrue(r);
    Py_DECREF(r);
    return truth;
}

/* the offense foe whose unit id is `target` into *f: 1, 0 when none is (the decision is the turn's to score), -1 with
 * an exception */
static int offense_foe(Kernel *k, PyObject *target, Foe **f) {
    int n;
    for (n = 0; n < k->n_offense; n++) {
        int same = PyObject_RichCompareBool(k->offense[n].id, target, Py_EQ);
        if (same < 0)
            return -1;
        if (same) {
            *f = &k->offense[n];
            return 1;
        }
    }
    return 0;
}

static PyObject *S_state; /* (interned with the view_units names below) */
static PyObject *state_item(PyObject *state, PyObject *name);

/* `_Turn.score(d, "attack")` of a melee or ranged attack decision d on an offense foe, by the kernel: its estimate
 * from the pair's parts (`_View.decision_estimate`: the first weapon of that kind, aimed as the actor is), its value,
 * the attacks of opportunity a shot provokes here, then the turn's `best_reposition()` or the value of staying here as
 * the turn's `can_move_after(d)` says. 1 with *out set, 0 when it leaves the decision to the turn's `score` (no parts,
 * a target that is no offense foe), -1 with an exception. */
static int attack_score(Kernel *k, PyObject *d, PyObject *act, PyObject *here, double *out) {
    PyObject *r;
    Foe *f = NULL;
    int ranged, opt, got, hx, hy, i, move;
    double ed = 0.0, kc = 0.0, v, cost = 0.0, rest;
    if (!k->armed)
        return 0;
    ranged = SAME(act, S_ranged_attack);
    if (!ranged && !SAME(act, S_melee_attack))
        return 0;
    if ((got = offense_foe(k, PyTuple_GET_ITEM(d, 1), &f)) <= 0)
        return got;
    if (k->aimed < 0) {
        PyObject *st = PyObject_GetAttr(k->actor, S_state), *aimed;
        if (!st)
            return -1;
        aimed = PyDict_Check(st) ? state_item(st, S_aimed) : NULL;
        Py_DECREF(st);
        if (!aimed)
            return PyErr_Occurred() ? -1 : 0;
        k->aimed = PyObject_IsTrue(aimed);
        Py_DECREF(aimed);
        if (k->aimed < 0)
            return -1;
    }
    opt = !ranged ? 0 : k->aimed ? 2 : 1;
    if ((got = parts_of(k, f, 1, opt)) == -2)
        return -1;
    if (got != 1)
        return 0;
    if (xy(here, &hx, &hy) < 0)
        return -1;
    i = hy * k->w + hx;
    if (ranged) { /* `_View.estimate`: the band of the distance, the cover of the line (out of range: nothing) */
        int los, loe, cover, band;
        long dd;
        Info *in = &k->actor_info;
        if (sight_class(k, i, f->ei, &los, &loe, &cover, &dd) < 0 || (!in->loaded && load_info(k, k->actor, in) < 0))
            return -1;
        band = in->ranged ? band_of(in, dd) : -1;
        if (band >= 0)
            estimate_of(f->parts[opt], band, cover, k->aimed, 1, &ed, &kc);
        if (aoo_cost(k, here, i, &cost) < 0)
            return -1;
    } else {
        estimate_of(f->parts[0], -1, 0, 0, 1, &ed, &kc);
    }
    if (foe_value(k, f, ed, kc, &v) < 0)
        return -1;
    v = v - cost;
    if ((move = turn_says(k, S_can_move_after, d)) < 0)
        return -1;
    if (move) {
        int err = 0;
        if (!(r = PyObject_CallMethodNoArgs(k->turn, S_best_reposition)))
            return -1;
        rest = as_double(r, &err);
        Py_DECREF(r);
        if (err)
            return -1;
    } else if (pos_value(k, here, &rest) < 0) {
        return -1;
    }
    *out = v + rest;
    return 1;
}

/* `_Turn.score(d, "charge")` of a charge on an offense foe, by the kernel: a melee attack at +2 from the pair's
 * parts (`_View._whole_estimate`), its value, the attacks of opportunity leaving here provokes and the value of the
 * square the charge ends on (the view's `charge_end`). 1 with *out set, 0 when it leaves the decision to the turn's
 * `score` (no melee parts, no charge to that foe), -1 with an exception. */
static int charge_score(Kernel *k, PyObject *d, PyObject *here, double *out) {
    PyObject *end;
    Foe *f = NULL;
    int got, hx, hy;
    double c[6], ed, kc, v, cost, at_end;
    if (!k->armed)
        return 0;
    if ((got = offense_foe(k, PyTuple_GET_ITEM(d, 1), &f)) <= 0)
        return got;
    if ((got = parts_of(k, f, 1, 0)) == -2)
        return -1;
    if (got != 1)
        return 0;
    if (!(end = PyObject_CallMethodOneArg(k->view, S_charge_end, f->unit)))
        return -1;
    if (!PyTuple_Check(end) || PyTuple_GET_SIZE(end) < 1) { /* None: no charge there (the turn's score says what) */
        Py_DECREF(end);
        return 0;
    }
    memcpy(c, f->parts[0], sizeof c);
    c[0] += 2; /* the charge's +2 */
    estimate_of(c, -1, 0, 0, 1, &ed, &kc);
    if (foe_value(k, f, ed, kc, &v) < 0 || xy(here, &hx, &hy) < 0 || aoo_cost(k, here, hy * k->w + hx, &cost) < 0 ||
        pos_value(k, PyTuple_GET_ITEM(end, 0), &at_end) < 0) {
        Py_DECREF(end);
        return -1;
    }
    Py_DECREF(end);
    *out = v - cost + at_end;
    return 1;
}

/* `_Turn.score(d, kind)` of an aim (kind "aim") or a defensive action (kind "misc": fight defensively, total
 * defense, `_View.misc_value`'s) by the kernel, pos_here being `pos_value(here)`: 1 with *out set, 0 for any other
 * decision, -1 with an exception */
static int stance_score(Kernel *k, PyObject *d, PyObject *kind, PyObject *act, PyObject *here, double pos_here,
                        double *out) {
    double share, threat_here;
    int x, y, yes;
    if (SAME(kind, S_aim)) {
        if ((yes = turn_says(k, S_can_attack_after, d)) < 0)
            return -1;
        if (!yes) {
            *out = pos_here - 0.5;
            return 1;
        }
        if (best_attack(k, here, 1, out) < 0)
            return -1;
        *out = *out + pos_here;
        return 1;
    }
    if (!SAME(kind, S_misc))
        return 0;
    if (SAME(act, S_fight_defensively))
        share = 0.1;
    else if (SAME(act, S_total_defense))
        share = 0.25;
    else
        return 0;
    if ((yes = turn_says(k, S_can_strike, NULL)) < 0)
        return -1;
    if (yes) {
        *out = -0.5 + pos_here;
        return 1;
    }
    if (xy(here, &x, &y) < 0 || threat(k, here, y * k->w + x, &threat_here) < 0)
        return -1;
    *out = share * threat_here + pos_here;
    return 1;
}

/* what `_Turn.score` of a move, withdrawal or run (decision d) shares with every other of its action, whatever the
 * square: a run's whole score as a float when an attack is in reach (`can_strike`), else (base, with_attack): the
 * score to a square is base (+ max(best_attack(square), 0) when with_attack) + pos_value(square) (a new reference;
 * what a decision provokes and the budget it leaves depend on its action only) */
static PyObject *square_constants(Kernel *k, PyObject *d, PyObject *kind, PyObject *here) {
    double cost = 0.0;
    int x, y, run = SAME(kind, S_run), with_attack = 0;
    if (run) {
        int reach = turn_says(k, S_can_strike, NULL);
        if (reach < 0)
            return NULL;
        if (reach) {
            double v;
            return pos_value(k, here, &v) < 0 ? NULL : PyFloat_FromDouble(v - k->run_in_reach);
        }
    } else if ((with_attack = turn_says(k, S_can_attack_after, d)) < 0) {
        return NULL;
    }
    if (!SAME(kind, S_withdraw) && (xy(here, &x, &y) < 0 || aoo_cost(k, here, y * k->w + x, &cost) < 0))
        return NULL; /* `_View.provoked`: leaving here provokes, but for a withdrawal */
    return Py_BuildValue("(dO)", -cost - (run ? k->run_cost : k->move_cost), with_attack ? Py_True : Py_False);
}

/* scores(legal, kinds, jitter, score, constant, here, best=False) -> [(decision, score)]: the loop of
 * `HeuristicPolicy._scores`: one `jitter()` per legal decision (jitter not callable: a random.Random, whose random()
 * draws are taken all at once by `random_draws`); pruned ones (kind None) left out; a move, withdrawal
 * or run scored here from its action's constants (`square_constants`, once per action); a misc
 * decision whose action has a `constant` value scored as that plus `pos_value(here)`; an end of turn as
 * `pos_value(here)`; single attacks, charges, aim and the defensive stances here too; anything else by
 * `score(decision, kind)`. With `best`, the list holds only the first of the best scored (what `max` picks from the
 * whole list). */
static PyObject *Kernel_scores(Kernel *k, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *legal, *kinds, *jitter, *score, *constant, *here, *out = NULL, *bases = NULL, *top = NULL;
    double *draws = NULL;
    Py_ssize_t n, cnt;
    double pos_here = 0.0, top_v = 0.0;
    int have_here = 0, best_only = 0;
    if (nargs == 7 && (best_only = PyObject_IsTrue(args[6])) < 0)
        return NULL;
    if (nargs < 6 || nargs > 7 || !PyList_Check(args[0]) || !PyList_Check(args[1]) || !PyDict_Check(args[4]) ||
        PyList_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "scores(legal, kinds, jitter, score, constant: dict, here, best)");
        return NULL;
    }
    legal = args[0];
    kinds = args[1];
    jitter = args[2];
    score = args[3];
    constant = args[4];
    here = args[5];
    cnt = PyList_GET_SIZE(legal);
    if (!(out = PyList_New(0)) || !(bases = PyDict_New()) ||
        (cnt && !PyCallable_Check(jitter) && !(draws = random_draws(jitter, cnt))))
        goto fail;
    for (n = 0; n < cnt; n++) {
        PyObject *d = PyList_GET_ITEM(legal, n), *kind = PyList_GET_ITEM(kinds, n), *jo, *act, *pair, *f;
        double j, v;
        int err = 0;
        if (draws) {
            j = draws[n];
        } else {
            if (!(jo = PyObject_CallNoArgs(jitter)))
                goto fail;
            j = as_double(jo, &err);
            Py_DECREF(jo);
            if (err)
                goto fail;
        }
        if (kind == Py_None)
            continue;
        if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) != 4 || !PyUnicode_Check(kind)) {
            PyErr_SetString(PyExc_TypeError, "decisions are 4-tuples, kinds strings");
            goto fail;
        }
        act = PyTuple_GET_ITEM(d, 0);
        if (SAME(kind, S_move) || SAME(kind, S_withdraw) ||
            SAME(kind, S_run)) {
            PyObject *how = PyDict_GetItemWithError(bases, act);
            if (how) {
                Py_INCREF(how);
            } else {
                if (PyErr_Occurred() || !(how = square_constants(k, d, kind, here)))
                    goto fail;
                if (PyDict_SetItem(bases, act, how) < 0) {
                    Py_DECREF(how);
                    goto fail;
                }
            }
            err = square_score(k, how, PyTuple_GET_ITEM(d, 2), &v);
            Py_DECREF(how);
            if (err < 0)
                goto fail;
        } else {
            PyObject *c = SAME(kind, S_misc) ? PyDict_GetItemWithError(constant, act) : NULL, *r;
            int end = !c && !PyErr_Occurred() && SAME(kind, S_end);
            if (c || end) {
                v = end ? 0.0 : as_double(c, &err);
                if (err)
                    goto fail;
                if (!have_here) {
                    if (pos_value(k, here, &pos_here) < 0)
                        goto fail;
                    have_here = 1;
                }
                v = end ? pos_here : v + pos_here;
            } else if (PyErr_Occurred()) {
                goto fail;
            } else {
                int done = 0; /* scored here, else by the turn's `score` */
                if (SAME(kind, S_attack)) {
                    done = attack_score(k, d, act, here, &v);
                } else if (SAME(kind, S_charge)) {
                    done = charge_score(k, d, here, &v);
                } else if (SAME(kind, S_aim) || SAME(kind, S_misc)) {
                    if (!have_here) {
                        if (pos_value(k, here, &pos_here) < 0)
                            goto fail;
                        have_here = 1;
                    }
                    done = stance_score(k, d, kind, act, here, pos_here, &v);
                }
                if (done < 0)
                    goto fail;
                if (!done) {
                    if (!(r = PyObject_CallFunctionObjArgs(score, d, kind, NULL)))
                        goto fail;
                    v = as_double(r, &err);
                    Py_DECREF(r);
                    if (err)
                        goto fail;
                }
            }
        }
        v = v + 1e-6 * j;
        if (best_only) {
            if (!top || v > top_v) {
                top = d;
                top_v = v;
            }
            continue;
        }
        if (!(f = PyFloat_FromDouble(v)))
            goto fail;
        pair = PyTuple_Pack(2, d, f);
        Py_DECREF(f);
        if (!pair)
            goto fail;
        err = PyList_Append(out, pair);
        Py_DECREF(pair);
        if (err < 0)
            goto fail;
    }
    Py_DECREF(bases);
    PyMem_Free(draws);
    draws = NULL;
    if (best_only && top) {
        PyObject *f = PyFloat_FromDouble(top_v), *pair;
        if (!f)
            goto fail_out;
        pair = PyTuple_Pack(2, top, f);
        Py_DECREF(f);
        if (!pair || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            goto fail_out;
        }
        Py_DECREF(pair);
    }
    return out;
fail:
    Py_XDECREF(bases);
    PyMem_Free(draws);
fail_out:
    Py_XDECREF(out);
    return NULL;
}

/* ---- per-map queries of the tactics (over `terrain.terrain_codes`, see _terrain.h) ---- */
static const int DX8[8] = {1, 1, 0, -1, -1, -1, 0, 1}, DY8[8] = {0, 1, 1, 1, 0, -1, -1, -1};

/* approach_field(terrain, width, starts) -> list: `tactics._distance_field` over `SagaTactics.step_costs` (the
 * T_NO_STEP and T_DOOR_STEP bits of `terrain`) and the map's neighbours (8 directions, no diagonal step past a
 * corner of a T_GEO_WALL square), from the flat squares `starts`; 99 where none reaches. A bucket queue over the
 * distances (steps cost 1 or 3), as Python's. */
static PyObject *approach_field(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    const unsigned char *ter;
    long w, h, *dist = NULL, d, top;
    int *head = NULL, *sq = NULL, *next = NULL; /* per distance its bucket: a list of entries (square, next) */
    Py_ssize_t n, size, used = 0, pending = 0, cap;
    PyObject *out = NULL;
    (void)mod;
    if (nargs != 3 || !PyBytes_CheckExact(args[0]) || !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "approach_field(terrain: bytes, width, starts: list)");
        return NULL;
    }
    if ((w = PyLong_AsLong(args[1])) == -1 && PyErr_Occurred())
        return NULL;
    size = PyBytes_GET_SIZE(args[0]);
    if (w <= 0 || size % w) {
        PyErr_SetString(PyExc_ValueError, "approach_field: a map of that width");
        return NULL;
    }
    h = (long)(size / w);
    ter = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    top = 3 * (long)size + 4; /* no walk is longer than 3 per square */
    cap = size * 8 + PyList_GET_SIZE(args[2]) + 1; /* each square pushes its neighbours once */
    if (!(dist = PyMem_Malloc(sizeof(long) * (size_t)(size + 1))) || !(head = PyMem_Malloc(sizeof(int) * (size_t)top)) ||
        !(sq = PyMem_Malloc(sizeof(int) * (size_t)cap)) || !(next = PyMem_Malloc(sizeof(int) * (size_t)cap))) {
        PyErr_NoMemory();
        goto done;
    }
    for (n = 0; n < size; n++)
        dist[n] = -1;
    for (n = 0; n < top; n++)
        head[n] = -1;
    for (n = 0; n < PyList_GET_SIZE(args[2]); n++) {
        long i = PyLong_AsLong(PyList_GET_ITEM(args[2], n));
        if (i == -1 && PyErr_Occurred())
            goto done;
        if (i < 0 || i >= size) {
            PyErr_SetString(PyExc_IndexError, "a start square off the map");
            goto done;
        }
        sq[used] = (int)i;
        next[used] = head[0];
        head[0] = (int)used++;
        pending++;
    }
    for (d = 0; pending && d < top; d++)
        while (head[d] >= 0) {
            int e = head[d], i = sq[e], m;
            long x = i % w, y = i / w;
            head[d] = next[e];
            pending--;
            if (dist[i] >= 0)
                continue;
            dist[i] = d;
            for (m = 0; m < 8; m++) {
                long nx = x + DX8[m], ny = y + DY8[m], j, c;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                j = ny * w + nx;
                if (dist[j] >= 0 || (DX8[m] && DY8[m] && ((ter[y * w + nx] & T_GEO_WALL) || (ter[ny * w + x] & T_GEO_WALL))))
                    continue;
                c = (ter[j] & T_NO_STEP) ? 0 : (ter[j] & T_DOOR_STEP) ? 3 : 1;
                if (!c || d + c >= top || used >= cap)
                    continue;
                sq[used] = (int)j;
                next[used] = head[d + c];
                head[d + c] = (int)used++;
                pending++;
            }
        }
    if (!(out = PyList_New(size)))
        goto done;
    for (n = 0; n < size; n++)
        PyList_SET_ITEM(out, n, PyLong_FromLong(dist[n] < 0 ? 99 : dist[n])); /* small ints: cached, never NULL */
done:
    PyMem_Free(dist);
    PyMem_Free(head);
    PyMem_Free(sq);
    PyMem_Free(next);
    return out;
}

/* sight_line(codes, width, metric, i, j) -> (line of sight, line of effect, cover bonus, distance) between flat squares
 * i <= j of a map `width` wide whose line codes (`Grid.line_codes`) are `codes`, metric 0 alternating,
 * 1 chebyshev, 2 manhattan: `tactics.SagaTactics.sight`'s answer, traced as the kernel traces it; None past the
 * longest line it traces. */
static PyObject *sight_line(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    static const long COVER_BONUS[3] = {0, 5, 10};
    int buf[LINE_CAP], cnt, n, los = 1, loe = 1, cover = 0;
    long w, metric, i, j, size, dx, dy, hi, lo, d;
    const unsigned char *codes;
    (void)mod;
    if (nargs != 5 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "sight_line(codes: bytes, width, metric, i, j)");
        return NULL;
    }
    w = PyLong_AsLong(args[1]);
    metric = PyLong_AsLong(args[2]);
    i = PyLong_AsLong(args[3]);
    j = PyLong_AsLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    size = (long)PyBytes_GET_SIZE(args[0]);
    if (w <= 0 || size % w || i < 0 || j < i || j >= size) {
        PyErr_SetString(PyExc_ValueError, "sight_line: squares 0 <= i <= j of a map of that width");
        return NULL;
    }
    codes = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    if ((cnt = trace_line(w, j % w - i % w, j / w - i / w, buf, LINE_CAP)) < 0)
        Py_RETURN_NONE;
    for (n = 0; n < cnt; n++)
        fold_code(codes[i + buf[n]], &los, &loe, &cover);
    dx = labs(j % w - i % w), dy = labs(j / w - i / w);
    hi = dx > dy ? dx : dy, lo = dx > dy ? dy : dx;
    d = metric == 0 ? hi + lo / 2 : metric == 1 ? hi : dx + dy; /* Kernel's dist */
    return Py_BuildValue("(OOll)", los ? Py_True : Py_False, loe ? Py_True : Py_False, COVER_BONUS[cover], d);
}

/* mark the squares other than (cx, cy) within `reach` of it inside a w x h map (`Grid.within`) */
static void mark_within(unsigned char *mask, long w, long h, int metric, long cx, long cy, long reach) {
    long ox, oy;
    for (oy = -reach; oy <= reach; oy++)
        for (ox = -reach; ox <= reach; ox++) {
            long x = cx + ox, y = cy + oy;
            if ((ox || oy) && x >= 0 && y >= 0 && x < w && y < h && metric_distance(metric, labs(ox), labs(oy)) <= reach)
                mask[y * w + x] = 1;
        }
}

/* key_mask(terrain, width, metric, ax, ay, ranged, reach, enemies) -> bytes: `_View.key_squares` as a byte per square
 * (1: a key square): next to a door, next to cover when `ranged`, next to the actor at (ax, ay), and within `reach`
 * of the enemies' flat squares when reach > 0 (a melee weapon's reach, at least 1). */
static PyObject *key_mask(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    long v[5], w, h, metric, reach, size, i;
    int ranged;
    const unsigned char *ter;
    unsigned char *mask;
    PyObject *out;
    Py_ssize_t n;
    (void)mod;
    if (nargs != 8 || !PyBytes_CheckExact(args[0]) || !PyList_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, "key_mask(terrain, width, metric, ax, ay, ranged, reach, enemies: list)");
        return NULL;
    }
    if (long_args(args, 1, 4, v) < 0 || (ranged = PyObject_IsTrue(args[5])) < 0 || long_args(args, 6, 1, &reach) < 0)
        return NULL;
    w = v[0], metric = v[1], size = PyBytes_GET_SIZE(args[0]);
    if (w <= 0 || size % w || v[2] < 0 || v[3] < 0 || v[2] >= w || v[3] * w + v[2] >= size || reach > 64) {
        PyErr_SetString(PyExc_ValueError, "key_mask: squares of one map");
        return NULL;
    }
    h = size / w;
    ter = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    if (!(out = PyBytes_FromStringAndSize(NULL, size)))
        return NULL;
    mask = (unsigned char *)PyBytes_AS_STRING(out);
    memset(mask, 0, (size_t)size);
    for (i = 0; i < size; i++)
        if ((ter[i] & T_KEY_DOOR) || (ranged && (ter[i] & T_KEY_COVER)))
            mark_within(mask, w, h, (int)metric, i % w, i / w, 1);
    mark_within(mask, w, h, (int)metric, v[2], v[3], 1);
    for (n = 0; reach > 0 && n < PyList_GET_SIZE(args[7]); n++) {
        long e = PyLong_AsLong(PyList_GET_ITEM(args[7], n));
        if (e == -1 && PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        if (0 <= e && e < size)
            mark_within(mask, w, h, (int)metric, e % w, e / w, reach);
    }
    return out;
}

/* ---- the view's unit signatures (`tactics._view_units`) ---- */
static PyObject *S_down, *S_side, *S_name, *S_hp, *S_state, *S_ct, *S_prone, *S_charged, *S_hands, *S_lost, *S_modes,
    *S_suppressed, *S_grabbed_by, *S_attack_penalty, *S_pinned_by, *S_no_attacks, *S_defense, *S_active_items, *S_aid;

/* state[name] as a new reference (KeyError when missing) */
static PyObject *state_item(PyObject *state, PyObject *name) {
    PyObject *v = PyDict_GetItemWithError(state, name);
    if (!v && !PyErr_Occurred())
        PyErr_SetObject(PyExc_KeyError, name);
    return Py_XNewRef(v);
}

/* tuple(state[name]) */
static PyObject *state_tuple(PyObject *state, PyObject *name) {
    PyObject *v = state_item(state, name), *t;
    if (!v)
        return NULL;
    t = PySequence_Tuple(v);
    Py_DECREF(v);
    return t;
}

/* `tactics._attacker_sig(u)` and `_target_sig(u)` of a unit whose id, name (both None when the signatures do not name
 * the units), stats and state are given */
static int unit_sigs(PyObject *u, PyObject *id, PyObject *name, PyObject *stats, PyObject *state, PyObject **att,
                     PyObject **tgt) {
    PyObject *sid = NULL, *v[14] = {NULL}, *w[10] = {NULL}, *hp = NULL, *aid = NULL;
    int k, rc = -1;
    *att = *tgt = NULL;
    if (!PyDict_Check(state)) {
        PyErr_SetString(PyExc_TypeError, "a unit's state is a dict");
        return -1;
    }
    if (!(sid = PyLong_FromVoidPtr(stats)) || !(hp = PyObject_GetAttr(u, S_hp)))
        goto done;
    v[0] = Py_NewRef(id), v[1] = Py_NewRef(name), v[2] = Py_NewRef(sid);
    if (!(v[3] = state_item(state, S_ct)) || !(v[4] = state_item(state, S_prone)) ||
        !(v[5] = state_item(state, S_charged)) || !(v[6] = state_tuple(state, S_hands)) ||
        !(v[7] = state_tuple(state, S_lost)) || !(v[8] = state_tuple(state, S_modes)) ||
        !(v[9] = state_item(state, S_suppressed)))
        goto done;
    {
        PyObject *g = state_item(state, S_grabbed_by);
        Py_ssize_t len;
        if (!g)
            goto done;
        len = PyObject_Length(g);
        Py_DECREF(g);
        if (len < 0 || !(v[10] = PyLong_FromSsize_t(len)))
            goto done;
    }
    if (!(v[11] = state_item(state, S_attack_penalty)) || !(v[12] = state_item(state, S_pinned_by)) ||
        !(v[13] = state_item(state, S_no_attacks)))
        goto done;
    w[0] = Py_NewRef(id), w[1] = Py_NewRef(name), w[2] = Py_NewRef(sid), w[3] = Py_NewRef(hp);
    w[4] = Py_NewRef(v[3]), w[5] = Py_NewRef(v[4]);
    if (!(w[6] = state_item(state, S_defense)))
        goto done;
    w[7] = Py_NewRef(v[5]);
    if (!(w[8] = state_tuple(state, S_active_items)) || !(aid = state_item(state, S_aid)))
        goto done;
    if (PyObject_IsTrue(aid)) { /* tuple(sorted(aid.items())) */
        PyObject *items = PyMapping_Items(aid);
        if (!items || PyList_Sort(items) < 0) {
            Py_XDECREF(items);
            goto done;
        }
        w[9] = PyList_AsTuple(items);
        Py_DECREF(items);
        if (!w[9])
            goto done;
    } else if (PyErr_Occurred() || !(w[9] = PyTuple_New(0))) {
        goto done;
    }
    if (!(*att = PyTuple_New(14)) || !(*tgt = PyTuple_New(10)))
        goto done;
    for (k = 0; k < 14; k++) {
        PyTuple_SET_ITEM(*att, k, v[k]);
        v[k] = NULL;
    }
    for (k = 0; k < 10; k++) {
        PyTuple_SET_ITEM(*tgt, k, w[k]);
        w[k] = NULL;
    }
    rc = 0;
done:
    for (k = 0; k < 14; k++)
        Py_XDECREF(v[k]);
    for (k = 0; k < 10; k++)
        Py_XDECREF(w[k]);
    Py_XDECREF(sid);
    Py_XDECREF(hp);
    Py_XDECREF(aid);
    if (rc) {
        Py_CLEAR(*att);
        Py_CLEAR(*tgt);
    }
    return rc;
}

/* tokens.get(sig) or token(sig), a new reference */
static PyObject *sig_token(PyObject *tokens, PyObject *token, PyObject *sig) {
    PyObject *t = PyDict_GetItemWithError(tokens, sig);
    if (t) {
        int truth = PyObject_IsTrue(t);
        if (truth > 0)
            return Py_NewRef(t);
        if (truth < 0)
            return NULL;
    } else if (PyErr_Occurred()) {
        return NULL;
    }
    return PyObject_CallOneArg(token, sig);
}

/* `tactics._named(units)`: 1 when an active unit's state["aid"] is not empty, else 0; -1 with an exception */
static int named_units(PyObject *units) {
    Py_ssize_t n;
    for (n = 0; n < PyList_GET_SIZE(units); n++) {
        PyObject *u = PyList_GET_ITEM(units, n), *o, *aid;
        int truth;
        if (!(o = PyObject_GetAttr(u, S_down))) /* `Unit.active` is `not down` */
            return -1;
        truth = PyObject_IsTrue(o);
        Py_DECREF(o);
        if (truth) {
            if (truth < 0)
                return -1;
            continue;
        }
        if (!(o = PyObject_GetAttr(u, S_state)))
            return -1;
        aid = PyDict_Check(o) ? state_item(o, S_aid) : PyObject_GetItem(o, S_aid);
        Py_DECREF(o);
        if (!aid)
            return -1;
        truth = PyObject_IsTrue(aid);
        Py_DECREF(aid);
        if (truth)
            return truth;
    }
    return 0;
}

/* view_units(units, actor_id, actor_side, width, token, tokens, firsts, first_weapons) -> (att, tgt, first, occupied,
 * me, units, enemies, named): `tactics._view_units` (see there), with `first_weapons` its `_first_weapons` */
static PyObject *view_units(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *units, *side, *token, *tokens, *firsts, *first_weapons, *att = NULL, *tgt = NULL, *first = NULL,
                                                                        *occ = NULL, *me = NULL, *out = NULL,
                                                                        *res = NULL, *enemies = NULL;
    long actor, width;
    Py_ssize_t n;
    int named;
    (void)mod;
    if (nargs != 8 || !PyList_Check(args[0]) || !PyDict_Check(args[5]) || !PyDict_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError, "view_units(units: list, actor_id, actor_side, width, token, tokens: dict, "
                                         "firsts: dict, first_weapons)");
        return NULL;
    }
    units = args[0], side = args[2], token = args[4], tokens = args[5], firsts = args[6], first_weapons = args[7];
    if (((actor = PyLong_AsLong(args[1])) == -1 || (width = PyLong_AsLong(args[3])) == -1) && PyErr_Occurred())
        return NULL;
    if ((named = named_units(units)) < 0 || !(att = PyDict_New()) || !(tgt = PyDict_New()) || !(first = PyDict_New()) ||
        !(occ = PyDict_New()) || !(out = PyList_New(0)) || !(enemies = PyList_New(0)))
        goto done;
    for (n = 0; n < PyList_GET_SIZE(units); n++) {
        PyObject *u = PyList_GET_ITEM(units, n), *a, *id = NULL, *name = NULL, *stats = NULL, *state = NULL,
                 *asig = NULL, *tsig = NULL, *t = NULL, *tt = NULL, *got = NULL, *pos = NULL, *entry = NULL;
        long uid;
        int active, ok = 0;
        if (!(a = PyObject_GetAttr(u, S_down))) /* `Unit.active` is `not down` */
            goto done;
        active = PyObject_IsTrue(a);
        Py_DECREF(a);
        if (active < 0)
            goto done;
        active = !active;
        if (!active)
            continue;
        {
            PyObject *us = PyObject_GetAttr(u, S_side);
            int other = us ? PyObject_RichCompareBool(us, side, Py_NE) : -1;
            Py_XDECREF(us);
            if (other < 0 || (other && PyList_Append(enemies, u) < 0))
                goto done;
        }
        if (!(id = PyObject_GetAttr(u, S_id)) || !(name = PyObject_GetAttr(u, S_name)) ||
            !(stats = PyObject_GetAttr(u, S_stats)) || !(state = PyObject_GetAttr(u, S_state)) ||
            ((uid = PyLong_AsLong(id)) == -1 && PyErr_Occurred()) ||
            unit_sigs(u, named ? id : Py_None, named ? name : Py_None, stats, state, &asig, &tsig) < 0 || !(t = sig_token(tokens, token, asig)) ||
            PyDict_SetItem(att, id, t) < 0 || !(tt = sig_token(tokens, token, tsig)) || PyDict_SetItem(tgt, id, tt) < 0)
            goto unit_done;
        if ((got = PyDict_GetItemWithError(firsts, t))) {
            Py_INCREF(got);
        } else if (PyErr_Occurred() || !(got = PyObject_CallOneArg(first_weapons, u)) ||
                   PyDict_SetItem(firsts, t, got) < 0) {
            goto unit_done;
        }
        if (PyDict_SetItem(first, id, got) < 0)
            goto unit_done;
        if (uid != actor) {
            int x, y;
            PyObject *i;
            if (!(pos = PyObject_GetAttr(u, S_pos)) || xy(pos, &x, &y) < 0 || !(i = PyLong_FromLong(y * width + x)))
                goto unit_done;
            ok = PyDict_SetItem(occ, i, id) == 0;
            Py_DECREF(i);
            if (!ok)
                goto unit_done;
            ok = 0;
            entry = PyTuple_Pack(4, id, t, tt, pos);
        } else {
            Py_XDECREF(me);
            me = PyTuple_New(9); /* the target signature without its hit points (item 3) */
            if (!me)
                goto unit_done;
            for (int k = 0, m = 0; k < 10; k++)
                if (k != 3)
                    PyTuple_SET_ITEM(me, m++, Py_NewRef(PyTuple_GET_ITEM(tsig, k)));
            entry = PyTuple_Pack(4, id, t, tt, Py_None);
        }
        ok = entry && PyList_Append(out, entry) == 0;
    unit_done:
        Py_XDECREF(id);
        Py_XDECREF(name);
        Py_XDECREF(stats);
        Py_XDECREF(state);
        Py_XDECREF(asig);
        Py_XDECREF(tsig);
        Py_XDECREF(t);
        Py_XDECREF(tt);
        Py_XDECREF(got);
        Py_XDECREF(pos);
        Py_XDECREF(entry);
        if (!ok)
            goto done;
    }
    {
        PyObject *tup = PyList_AsTuple(out);
        if (tup) {
            res = PyTuple_Pack(8, att, tgt, first, occ, me ? me : Py_None, tup, enemies, named ? Py_True : Py_False);
            Py_DECREF(tup);
        }
    }
done:
    Py_XDECREF(att);
    Py_XDECREF(tgt);
    Py_XDECREF(first);
    Py_XDECREF(occ);
    Py_XDECREF(me);
    Py_XDECREF(out);
    Py_XDECREF(enemies);
    return res;
}

static PyMethodDef module_methods[] = {
    {"sight_line", (PyCFunction)(void (*)(void))sight_line, METH_FASTCALL,
     "sight_line(codes, width, metric, i, j): (sight, effect, cover bonus, distance) between squares i <= j."},
    {"approach_field", (PyCFunction)(void (*)(void))approach_field, METH_FASTCALL,
     "approach_field(terrain, width, starts): tactics._distance_field over the terrain codes in C."},
    {"view_units", (PyCFunction)(void (*)(void))view_units, METH_FASTCALL,
     "view_units(units, actor_id, actor_side, width, token, tokens, firsts, first_weapons): tactics._view_units."},
    {"key_mask", (PyCFunction)(void (*)(void))key_mask, METH_FASTCALL,
     "key_mask(terrain, width, metric, ax, ay, ranged, reach, enemies): _View.key_squares as a byte per square."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef Kernel_methods[] = {
    {"pos_value", (PyCFunction)Kernel_pos_value, METH_O, "`_Turn.pos_value(pos)` (not fleeing)."},
    {"threat", (PyCFunction)Kernel_threat, METH_O, "`_View.threat(pos)`."},
    {"best_attack", (PyCFunction)(void (*)(void))Kernel_best_attack, METH_FASTCALL | METH_KEYWORDS,
     "`_Turn.best_attack(pos, aimed=False)`."},
    {"move_scores", (PyCFunction)(void (*)(void))Kernel_move_scores, METH_FASTCALL,
     "move_scores(squares, base, with_attack): the scores of moves to the squares."},
    {"any_attack", (PyCFunction)Kernel_any_attack, METH_O, "any_attack(squares): any best_attack(square) > 0."},
    {"classify", (PyCFunction)(void (*)(void))Kernel_classify, METH_FASTCALL,
     "classify(legal, kinds, keep, step) -> (kinds, moves, squares by action)."},
    {"scores", (PyCFunction)(void (*)(void))Kernel_scores, METH_FASTCALL,
     "scores(legal, kinds, jitter, score, constant, here, best=False) -> [(decision, score)]."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine.rulesets.saga._tactics.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Kernel_traverse,
    .tp_clear = (inquiry)Kernel_clear,
    .tp_doc = "Kernel(turn, view, pos_memo, offense_memo, targets, threat_weight, next_turn_share, approach, "
              "close_in): one heuristic decision point's square values.",
    .tp_methods = Kernel_methods,
    .tp_new = Kernel_new,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tactics",
                                    "The heuristic's square values over the Saga tactics in C.", -1, module_methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__tactics(void) {
    PyObject *m;
#define INTERN(v, s) \
    if (!(v = PyUnicode_InternFromString(s))) \
        return NULL;
    INTERN(S__threat_fields, "_threat_fields")
    INTERN(S__offense_fields, "_offense_fields")
    INTERN(S__table, "_table")
    INTERN(S__armed, "_armed")
    INTERN(S_occupied, "occupied")
    INTERN(S_g, "g")
    INTERN(S_width, "width")
    INTERN(S_height, "height")
    INTERN(S_metric, "metric")
    INTERN(S__aoo, "_aoo")
    INTERN(S_a, "a")
    INTERN(S_first, "first")
    INTERN(S_id, "id")
    INTERN(S_stats, "stats")
    INTERN(S_speed, "speed")
    INTERN(S_reach, "reach")
    INTERN(S_pos, "pos")
    INTERN(S__sight, "_sight")
    INTERN(S__strike, "_strike")
    INTERN(S__threat_of, "_threat_of")
    INTERN(S_estimate, "estimate")
    INTERN(S_aoo_cost, "aoo_cost")
    INTERN(S__target, "_target")
    INTERN(S_approach, "approach")
    INTERN(S__approach, "_approach")
    INTERN(S_reach_value, "reach_value")
    INTERN(S__melee, "_melee")
    INTERN(S_expected_damage, "expected_damage")
    INTERN(S_kill_chance, "kill_chance")
    INTERN(S_alternating, "alternating")
    INTERN(S_chebyshev, "chebyshev")
    INTERN(S__geometry, "_geometry")
    INTERN(S_line, "line")
    INTERN(S__threats, "_threats")
    INTERN(S_line_codes, "line_codes")
    INTERN(S_memo, "memo")
    INTERN(S_class_info, "class_info")
    INTERN(S_misc, "misc")
    INTERN(S_move, "move")
    INTERN(S_withdraw, "withdraw")
    INTERN(S_run, "run")
    INTERN(S_saga_sight, "saga_sight")
    INTERN(S_end, "end")
    INTERN(S_strike_parts, "strike_parts")
    INTERN(S_threat_parts, "threat_parts")
    INTERN(S_parts, "parts")
    INTERN(S_attack, "attack")
    INTERN(S_ranged_attack, "ranged_attack")
    INTERN(S_melee_attack, "melee_attack")
    INTERN(S_aimed, "aimed")
    INTERN(S_can_move_after, "can_move_after")
    INTERN(S_best_reposition, "best_reposition")
    INTERN(S_aim, "aim")
    INTERN(S_can_attack_after, "can_attack_after")
    INTERN(S_can_strike, "can_strike")
    INTERN(S_fight_defensively, "fight_defensively")
    INTERN(S_total_defense, "total_defense")
    INTERN(S_charge, "charge")
    INTERN(S_charge_end, "charge_end")
    INTERN(S_down, "down")
    INTERN(S_side, "side")
    INTERN(S_name, "name")
    INTERN(S_hp, "hp")
    INTERN(S_state, "state")
    INTERN(S_ct, "ct")
    INTERN(S_prone, "prone")
    INTERN(S_charged, "charged")
    INTERN(S_hands, "hands")
    INTERN(S_lost, "lost")
    INTERN(S_modes, "modes")
    INTERN(S_suppressed, "suppressed")
    INTERN(S_grabbed_by, "grabbed_by")
    INTERN(S_attack_penalty, "attack_penalty")
    INTERN(S_pinned_by, "pinned_by")
    INTERN(S_no_attacks, "no_attacks")
    INTERN(S_defense, "defense")
    INTERN(S_active_items, "active_items")
    INTERN(S_aid, "aid")
#undef INTERN
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    if (!(m = PyModule_Create(&module)))
        return NULL;
    if (PyModule_AddObjectRef(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
