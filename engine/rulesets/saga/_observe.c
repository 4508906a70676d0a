/* The Saga figures of the observation in C: `observe._observation_parts_py` (each unit's features, the threat
 * estimates between the actor and the units of other sides) with the same arithmetic, in the same order of
 * operations, so the doubles are identical (observe.py keeps the Python version, used when this module is not
 * built; the tests check both agree on random battles).
 *
 * What a unit's stat block gives (defenses, weapons, mean damage) is read once per stat block into a C profile,
 * cached by the block's identity: stat blocks are replaced, never mutated in place, during play (units.py), and
 * the cache holds a reference to each block so its id is not reused while cached. Everything from the play
 * state is read on every call: states are copied by clones and mutated in place.
 *
 * A state this code does not represent (a field of an unexpected type, an index out of range) makes `parts`
 * return None, and observe.py then runs the Python version, which gives the answer or the error Python gives.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>
#include "../../core/_slots.h"

#include "../../core/_geometry.h"
#include "_sight.h"

/* Products and sums stay separate roundings, as in Python: no fused multiply-add. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define UNSUPPORTED (-2) /* no exception set: the caller falls back to Python */
#define N_FEATURES 14
#define MAX_WEAPONS 16
#define MAX_ITEMS 16
#define MAX_MODES 8
#define MAX_LOST 16
#define CT_HELPLESS 5
#define CACHE_LIMIT 4096

static const int CT_PENALTY[6] = {0, -1, -2, -5, -10, -10};
static const int BAND_PENALTY[4] = {0, -2, -5, -10};
static const int COVER_BONUS[3] = {0, 5, 10}; /* none, low, heavy */
enum { KIND_OTHER = 0, KIND_MELEE = 1, KIND_RANGED = 2 };
enum { MODE_OTHER = 0, MODE_STUN = 1, MODE_AUTOFIRE = 2 };

typedef struct {
    int kind, natural, attack, nonproficient, light, n_modes; /* nonproficient: -5 (improvised, or no proficiency) */
    unsigned char modes[MAX_MODES];
    double mean[2]; /* the mean of damage_expr without / with aim */
    long ranges[4];
} Weapon;

typedef struct {
    long reflex, fortitude, speed, second_winds, reach, bab, str, dex;
    int careful, n_items, n_weapons;
    long items[MAX_ITEMS][2]; /* reflex, fortitude */
    Weapon weapons[MAX_WEAPONS];
} Profile;

/* What `_Record` holds, plus the unit itself as the threats need it. */
typedef struct {
    PyObject *unit, *side, *id, *aid; /* borrowed */
    long x, y;
    int down, can_act, melee, ranged, aimed, threatens;
    long reach, careful, reflex_melee, reflex_ranged, m_ab, r_ab;
    double m_mean, r_mean;
    int m_auto, r_auto;
    long r_ranges[4]; /* a copy: a profile may leave the cache while the records are in use */
    double features[N_FEATURES];
} Rec;

static PyObject *PROFILES; /* id(stats) -> (stats, capsule of a Profile) */
static PyObject *S_units, *S_grid, *S_width, *S_metric, *S_pos, *S_down, *S_side, *S_id, *S_stats, *S_state,
    *S__geometry, *S_saga_sight, *S_memo;

/* A unit's attributes, read from its class's __slots__ where it has them (engine/core/_slots.h). */
enum { A_POS, A_DOWN, A_SIDE, A_ID, A_STATS, A_STATE, N_ATTRS };
static PyObject **const ATTR_NAME[N_ATTRS] = {&S_pos, &S_down, &S_side, &S_id, &S_stats, &S_state};
static SlotReader unit_reader = {ATTR_NAME, N_ATTRS, NULL, 0, {0}};

/* getattr(u, attribute k) of a unit, read from its slot when it can be (engine/core/_slots.h) */
static PyObject *uattr(PyObject *u, int k) {
    return slots_get(&unit_reader, u, k);
}

/* The fields of a unit's play state the figures read, found in one pass over the state dict: its keys are
 * normally the interned names below (the ruleset's literals; clones copy the same key objects), matched by
 * identity through a small table; a field not found that way is looked up by value. */
enum { F_CT, F_DEFENSE, F_ACTIVE_ITEMS, F_CHARGED, F_PRONE, F_AIMED, F_GRABBED_BY, F_PINNED_BY, F_ATTACK_PENALTY,
       F_AOO_USED, F_WINDS_USED, F_HANDS, F_LOST, F_MODES, F_SUPPRESSED, F_NO_ATTACKS, F_AID, N_FIELDS };
static const char *FIELD_TEXT[N_FIELDS] = {"ct", "defense", "active_items", "charged", "prone", "aimed",
                                           "grabbed_by", "pinned_by", "attack_penalty", "aoo_used", "winds_used",
                                           "hands", "lost", "modes", "suppressed", "no_attacks", "aid"};
static PyObject *FIELD_NAMES[N_FIELDS];
#define FIELD_SLOTS 64
static PyObject *field_key[FIELD_SLOTS];
static int field_at[FIELD_SLOTS];

static size_t field_slot(PyObject *key) {
    uintptr_t h = (uintptr_t)key;
    return (size_t)((h >> 4) ^ (h >> 10)) & (FIELD_SLOTS - 1);
}

static void index_fields(void) {
    int f;
    for (f = 0; f < N_FIELDS; f++) {
        size_t h = field_slot(FIELD_NAMES[f]);
        while (field_key[h])
            h = (h + 1) & (FIELD_SLOTS - 1);
        field_key[h] = FIELD_NAMES[f];
        field_at[h] = f;
    }
}

/* Where each field was last found in a state dict's entries: states are copies of one another (clones copy the
 * dicts, keeping the order of their keys), so the entry there is normally the field's, checked by identity. */
static Py_ssize_t field_pos[N_FIELDS];

/* vals[f] = state[name of f], borrowed, NULL when missing; -1 on an error */
static int read_fields(PyObject *state, PyObject **vals) {
    Py_ssize_t pos;
    PyObject *k, *v;
    int f, found = 0;
    for (f = 0; f < N_FIELDS; f++) {
        pos = field_pos[f];
        if (!PyDict_Next(state, &pos, &k, &v) || k != FIELD_NAMES[f])
            break;
        vals[f] = v;
    }
    if (f == N_FIELDS)
        return 0;
    memset(vals, 0, N_FIELDS * sizeof(PyObject *));
    pos = 0;
    while (PyDict_Next(state, &pos, &k, &v)) {
        size_t h = field_slot(k);
        while (field_key[h]) {
            if (field_key[h] == k) {
                vals[field_at[h]] = v;
                field_pos[field_at[h]] = pos - 1;
                found++;
                break;
            }
            h = (h + 1) & (FIELD_SLOTS - 1);
        }
    }
    if (found == N_FIELDS)
        return 0;
    for (f = 0; f < N_FIELDS; f++)
        if (!vals[f] && !(vals[f] = PyDict_GetItemWithError(state, FIELD_NAMES[f])) && PyErr_Occurred())
            return -1;
    return 0;
}

/* ---- reading Python values ------------------------------------------------------------------------ */
static int as_long(PyObject *o, long *out) {
    int overflow;
    if (!o || !PyLong_Check(o))
        return UNSUPPORTED;
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    if (PyLong_CheckExact(o) && Py_SIZE(o) >= -1 && Py_SIZE(o) <= 1) { /* one digit or none (CPython 3.11's ints) */
        *out = (long)Py_SIZE(o) * (long)((PyLongObject *)o)->ob_digit[0];
        return 0;
    }
#endif
    *out = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return UNSUPPORTED;
    }
    return 0;
}

/* float(o) of an int or float (what the features' float(...) give); UNSUPPORTED for other types */
static int as_double(PyObject *o, double *out) {
    if (o == Py_True || o == Py_False) {
        *out = o == Py_True ? 1.0 : 0.0;
        return 0;
    }
    if (o && PyFloat_Check(o)) {
        *out = PyFloat_AS_DOUBLE(o);
        return 0;
    }
    if (!o || !PyLong_Check(o))
        return UNSUPPORTED;
    *out = PyLong_AsDouble(o); /* as float(int) rounds */
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return UNSUPPORTED;
    }
    return 0;
}

static int truth(PyObject *o, int *out) {
    if (!o)
        return UNSUPPORTED;
    *out = PyObject_IsTrue(o);
    return *out < 0 ? -1 : 0;
}

/* a list or tuple of ints into out[0..*n), at most cap; UNSUPPORTED otherwise */
static int int_list(PyObject *o, long *out, Py_ssize_t cap, Py_ssize_t *n) {
    Py_ssize_t k, len;
    PyObject **items;
    int r;
    if (!o || !(PyList_Check(o) || PyTuple_Check(o)))
        return UNSUPPORTED;
    len = PySequence_Fast_GET_SIZE(o);
    if (len > cap)
        return UNSUPPORTED;
    items = PySequence_Fast_ITEMS(o);
    for (k = 0; k < len; k++)
        if ((r = as_long(items[k], &out[k])) != 0)
            return r;
    *n = len;
    return 0;
}

static int get_pos(PyObject *u, long *x, long *y) {
    PyObject *pos = uattr(u, A_POS);
    int r = UNSUPPORTED;
    if (!pos)
        return -1;
    if (PyTuple_Check(pos) && PyTuple_GET_SIZE(pos) == 2) {
        r = as_long(PyTuple_GET_ITEM(pos, 0), x);
        if (!r)
            r = as_long(PyTuple_GET_ITEM(pos, 1), y);
    }
    Py_DECREF(pos);
    return r;
}

/* ---- profiles of stat blocks ------------------------------------------------------------------------ */
static int tuple_longs(PyObject *t, long *out, Py_ssize_t n) {
    Py_ssize_t k;
    int r;
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n)
        return UNSUPPORTED;
    for (k = 0; k < n; k++)
        if ((r = as_long(PyTuple_GET_ITEM(t, k), &out[k])) != 0)
            return r;
    return 0;
}

/* The Profile of observe._profile's tuple:
 * ((reflex, fortitude, speed, second_winds, reach, bab, str, dex, careful),
 *  ((item reflex, item fortitude), ...),
 *  ((kind, natural, attack, not proficient, light, (mode codes), mean, mean aimed, (4 ranges)), ...)) */
static int fill_profile(PyObject *t, Profile *p) {
    long head[9], v[5];
    PyObject *items, *weapons;
    Py_ssize_t k, j;
    int r;
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3)
        return UNSUPPORTED;
    if ((r = tuple_longs(PyTuple_GET_ITEM(t, 0), head, 9)) != 0)
        return r;
    p->reflex = head[0];
    p->fortitude = head[1];
    p->speed = head[2];
    p->second_winds = head[3];
    p->reach = head[4];
    p->bab = head[5];
    p->str = head[6];
    p->dex = head[7];
    p->careful = (int)head[8];
    items = PyTuple_GET_ITEM(t, 1);
    weapons = PyTuple_GET_ITEM(t, 2);
    if (!PyTuple_Check(items) || PyTuple_GET_SIZE(items) > MAX_ITEMS || !PyTuple_Check(weapons)
        || PyTuple_GET_SIZE(weapons) > MAX_WEAPONS)
        return UNSUPPORTED;
    p->n_items = (int)PyTuple_GET_SIZE(items);
    for (k = 0; k < p->n_items; k++)
        if ((r = tuple_longs(PyTuple_GET_ITEM(items, k), p->items[k], 2)) != 0)
            return r;
    p->n_weapons = (int)PyTuple_GET_SIZE(weapons);
    for (k = 0; k < p->n_weapons; k++) {
        PyObject *w = PyTuple_GET_ITEM(weapons, k), *modes;
        Weapon *wp = &p->weapons[k];
        if (!PyTuple_Check(w) || PyTuple_GET_SIZE(w) != 9)
            return UNSUPPORTED;
        for (j = 0; j < 5; j++)
            if ((r = as_long(PyTuple_GET_ITEM(w, j), &v[j])) != 0)
                return r;
        wp->kind = (int)v[0];
        wp->natural = (int)v[1];
        wp->attack = (int)v[2];
        wp->nonproficient = (int)v[3];
        wp->light = (int)v[4];
        modes = PyTuple_GET_ITEM(w, 5);
        if (!PyTuple_Check(modes) || PyTuple_GET_SIZE(modes) < 1 || PyTuple_GET_SIZE(modes) > MAX_MODES)
            return UNSUPPORTED;
        wp->n_modes = (int)PyTuple_GET_SIZE(modes);
        for (j = 0; j < wp->n_modes; j++) {
            long m;
            if ((r = as_long(PyTuple_GET_ITEM(modes, j), &m)) != 0)
                return r;
            wp->modes[j] = (unsigned char)m;
        }
        if (!PyFloat_Check(PyTuple_GET_ITEM(w, 6)) || !PyFloat_Check(PyTuple_GET_ITEM(w, 7)))
            return UNSUPPORTED;
        wp->mean[0] = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(w, 6));
        wp->mean[1] = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(w, 7));
        if ((r = tuple_longs(PyTuple_GET_ITEM(w, 8), wp->ranges, 4)) != 0)
            return r;
    }
    return 0;
}

static void free_profile(PyObject *cap) {
    PyMem_Free(PyCapsule_GetPointer(cap, NULL));
}

/* The cached Profile of a stat block, built from make_profile(stats) on a miss; *out NULL (and 0 returned)
 * when make_profile gives None (a block this code does not represent). */
/* The last profiles found, by the block's address: valid while PROFILES holds the block (so its address is not
 * reused) and the profile, which profiles_epoch counts (it moves on whenever PROFILES loses an entry). */
#define RECENT 16
static struct {
    PyObject *stats;
    const Profile *p;
    unsigned long epoch;
} recent[RECENT];
static unsigned long profiles_epoch = 1;

static int profile_lookup(PyObject *stats, PyObject *make_profile, const Profile **out);

static int profile_of(PyObject *stats, PyObject *make_profile, const Profile **out) {
    size_t h = ((uintptr_t)stats >> 4) % RECENT;
    int r;
    if (recent[h].stats == stats && recent[h].epoch == profiles_epoch) {
        *out = recent[h].p;
        return 0;
    }
    r = profile_lookup(stats, make_profile, out);
    if (!r) {
        recent[h].stats = stats;
        recent[h].p = *out;
        recent[h].epoch = profiles_epoch;
    }
    return r;
}

static int profile_lookup(PyObject *stats, PyObject *make_profile, const Profile **out) {
    PyObject *key = PyLong_FromVoidPtr(stats), *hit, *desc = NULL, *cap = NULL, *entry;
    Profile *p;
    int r;
    if (!key)
        return -1;
    hit = PyDict_GetItemWithError(PROFILES, key);
    if (hit && PyTuple_GET_ITEM(hit, 0) == stats) {
        Py_DECREF(key);
        *out = PyTuple_GET_ITEM(hit, 1) == Py_None ? NULL
                                                    : (const Profile *)PyCapsule_GetPointer(PyTuple_GET_ITEM(hit, 1), NULL);
        return 0;
    }
    if (PyErr_Occurred())
        goto fail;
    desc = PyObject_CallOneArg(make_profile, stats);
    if (!desc)
        goto fail;
    p = NULL;
    if (desc != Py_None) {
        p = PyMem_Calloc(1, sizeof(Profile));
        if (!p) {
            PyErr_NoMemory();
            goto fail;
        }
        r = fill_profile(desc, p);
        if (r) {
            PyMem_Free(p);
            if (r == -1)
                goto fail;
            p = NULL;
        }
    }
    if (p) {
        cap = PyCapsule_New(p, NULL, free_profile);
        if (!cap) {
            PyMem_Free(p);
            goto fail;
        }
    } else {
        cap = Py_NewRef(Py_None);
    }
    profiles_epoch++; /* PROFILES drops entries: all of them, or the one under this key */
    if (PyDict_GET_SIZE(PROFILES) >= CACHE_LIMIT)
        PyDict_Clear(PROFILES);
    entry = PyTuple_Pack(2, stats, cap);
    if (!entry || PyDict_SetItem(PROFILES, key, entry) < 0) {
        Py_XDECREF(entry);
        goto fail;
    }
    Py_DECREF(entry);
    Py_DECREF(cap);
    Py_DECREF(desc);
    Py_DECREF(key);
    *out = p;
    return 0;
fail:
    Py_XDECREF(cap);
    Py_XDECREF(desc);
    Py_DECREF(key);
    return -1;
}

/* ---- one unit's record -------------------------------------------------------------------------------- */
static int contains(const long *v, Py_ssize_t n, long x) {
    Py_ssize_t k;
    for (k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

/* combat.first_of: the first usable weapon of a kind, -1 for none; UNSUPPORTED for a hand beyond the weapons */
static int first_of(const Profile *p, const long *hands, Py_ssize_t n_hands, const long *lost, Py_ssize_t n_lost,
                    int kind, int *out) {
    Py_ssize_t k;
    for (k = 0; k < n_hands; k++) {
        long n = hands[k];
        if (n < 0 || n >= p->n_weapons)
            return UNSUPPORTED;
        if (!contains(lost, n_lost, n) && p->weapons[n].kind == kind) {
            *out = (int)n;
            return 0;
        }
    }
    for (k = 0; k < p->n_weapons; k++)
        if (p->weapons[k].natural && p->weapons[k].kind == kind && !contains(lost, n_lost, k)) {
            *out = (int)k;
            return 0;
        }
    *out = -1;
    return 0;
}

/* combat.attack_bonus(u, n, None) and the weapon's mode */
static long attack_bonus(const Profile *p, int n, long ctp, long attack_penalty, int grabbed, int prone,
                         long suppressed, int mode) {
    const Weapon *w = &p->weapons[n];
    long ab = p->bab + (w->kind == KIND_MELEE ? p->str : p->dex) + w->attack;
    ab += ctp + attack_penalty;
    if (w->nonproficient)
        ab -= 5;
    if (grabbed && !(w->light || w->natural))
        ab -= 2;
    if (prone && w->kind == KIND_MELEE)
        ab -= 5;
    if (mode == MODE_AUTOFIRE)
        ab -= 5;
    return ab - suppressed;
}

/* combat.mode(u, n) as a code; UNSUPPORTED when the state's modes do not cover weapon n */
static int mode_of(const Profile *p, int n, const long *modes, Py_ssize_t n_modes, int *out) {
    long m, k = p->weapons[n].n_modes;
    if (n >= n_modes)
        return UNSUPPORTED;
    m = modes[n] % k;
    if (m < 0)
        m += k; /* Python's modulo */
    *out = p->weapons[n].modes[m];
    return 0;
}

/* ---- records remembered while a unit's state is unchanged ------------------------------------------------- */
/* A unit's record depends on its stat block (never mutated in place), whether it is down and its state dict. Under
 * CPython 3.11 a dict's ma_version_tag changes on every change to it and is never given to another dict, so while
 * it is the same the state holds the same values: immutable ones (bools, ints, floats, strings, None), the lists of
 * small ints (hands, lost, modes, active items, compared item by item: small ints live for good, so an item at the
 * same address is the same number), grabbed_by (only its truth is read, read again) and the aid dict (read live by
 * the threats). A state holding anything else is not remembered, and nothing is remembered across a change of the
 * profiles' cache (profiles_epoch): while it is unchanged, the block's profile is still cached (no builder call is
 * skipped). The memo is plain C memory: the addresses in it
 * are compared, and read only after the state's tag matched (the state then still holds those objects). */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define MEMO_SLOTS 256
static const int MEMO_LISTS[4] = {F_HANDS, F_LOST, F_MODES, F_ACTIVE_ITEMS};
typedef struct {
    PyObject *state, *stats, *grabbed, *aid;
    uint64_t tag;
    unsigned long epoch; /* profiles_epoch when made: the block's profile was then the one cached */
    int down, grabbed_truth, n[4];
    PyObject *lists[4], *items[4][MAX_WEAPONS];
    Rec rec;
} Memo;
static Memo *memo;

static int small_int(PyObject *o) {
    long v;
    int overflow;
    if (!PyLong_CheckExact(o))
        return 0;
    v = PyLong_AsLongAndOverflow(o, &overflow);
    return !overflow && v >= -5 && v <= 256;
}

static int plain(PyObject *o) {
    return o == Py_None || PyBool_Check(o) || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyUnicode_CheckExact(o);
}

static Memo *memo_slot(PyObject *state) {
    if (!memo && !(memo = PyMem_Calloc(MEMO_SLOTS, sizeof(Memo))))
        return NULL;
    return &memo[((uintptr_t)state >> 4) % MEMO_SLOTS];
}

/* the remembered record of this state, or NULL */
static const Memo *memo_find(PyObject *state, PyObject *stats, int down) {
    Memo *m = memo_slot(state);
    int k, j;
    if (!m || m->state != state || m->tag != ((PyDictObject *)state)->ma_version_tag || m->stats != stats
        || m->down != down || m->epoch != profiles_epoch)
        return NULL;
    for (k = 0; k < 4; k++) {
        PyObject *lst = m->lists[k];
        if (PySequence_Fast_GET_SIZE(lst) != m->n[k])
            return NULL;
        for (j = 0; j < m->n[k]; j++)
            if (PySequence_Fast_ITEMS(lst)[j] != m->items[k][j])
                return NULL;
    }
    if (m->grabbed != Py_None && (PyList_Check(m->grabbed) || PyTuple_Check(m->grabbed))
        && (PySequence_Fast_GET_SIZE(m->grabbed) > 0) != m->grabbed_truth)
        return NULL;
    return m;
}

/* remember rc, made from the fields f of state */
static void memo_keep(PyObject *state, PyObject *stats, PyObject **f, const Rec *rc) {
    Memo *m = memo_slot(state);
    int k, j, field;
    if (!m)
        return;
    m->state = NULL;
    for (field = 0; field < N_FIELDS; field++) {
        PyObject *v = f[field];
        int listed = 0;
        for (k = 0; k < 4; k++)
            listed |= field == MEMO_LISTS[k];
        if (listed || field == F_AID)
            continue;
        if (field == F_GRABBED_BY) {
            if (!(v == Py_None || PyList_Check(v) || PyTuple_Check(v)))
                return;
            continue;
        }
        if (!plain(v))
            return;
    }
    if (!PyDict_CheckExact(f[F_AID]))
        return;
    for (k = 0; k < 4; k++) {
        PyObject *lst = f[MEMO_LISTS[k]];
        if (!(PyList_Check(lst) || PyTuple_Check(lst)) || PySequence_Fast_GET_SIZE(lst) > MAX_WEAPONS)
            return;
        m->lists[k] = lst;
        m->n[k] = (int)PySequence_Fast_GET_SIZE(lst);
        for (j = 0; j < m->n[k]; j++) {
            PyObject *it = PySequence_Fast_ITEMS(lst)[j];
            if (!small_int(it))
                return;
            m->items[k][j] = it;
        }
    }
    m->grabbed = f[F_GRABBED_BY];
    m->grabbed_truth = m->grabbed != Py_None && PySequence_Fast_GET_SIZE(m->grabbed) > 0;
    m->aid = f[F_AID];
    m->stats = stats;
    m->down = rc->down;
    m->tag = ((PyDictObject *)state)->ma_version_tag;
    m->epoch = profiles_epoch;
    m->rec = *rc;
    m->state = state;
}
#define MEMO 1
#else
#define MEMO 0
#endif

static int record(PyObject *u, PyObject *make_profile, Rec *rc) {
    PyObject *stats, *state, *v, *f[N_FIELDS];
    const Profile *p;
    long ct, defense, attack_penalty, winds_used, suppressed, ctp, reflex, fortitude, item_r = 0, item_f = 0;
    long hands[MAX_WEAPONS], lost[MAX_LOST], modes[MAX_WEAPONS], active[MAX_ITEMS];
    Py_ssize_t n_hands, n_lost, n_modes, n_active, k;
    int r, charged, prone, aimed, grabbed, pinned, no_attacks, mode;
    double f_prone, f_aimed, f_charged, f_aoo;

    memset(rc, 0, sizeof(Rec));
    rc->unit = u;
    if ((r = get_pos(u, &rc->x, &rc->y)) != 0)
        return r;
    v = uattr(u, A_DOWN);
    if (!v)
        return -1;
    rc->down = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (rc->down < 0)
        return -1;
    /* side, id and state stay alive through the unit, which the caller's list holds */
    rc->side = uattr(u, A_SIDE);
    if (!rc->side)
        return -1;
    Py_DECREF(rc->side);
    rc->id = uattr(u, A_ID);
    if (!rc->id)
        return -1;
    Py_DECREF(rc->id);
    stats = uattr(u, A_STATS);
    if (!stats)
        return -1;
    Py_DECREF(stats);
    state = uattr(u, A_STATE);
    if (!state)
        return -1;
    Py_DECREF(state);
    if (!PyDict_Check(stats) || !PyDict_Check(state))
        return UNSUPPORTED;
#if MEMO
    if (PyDict_CheckExact(state)) {
        const Memo *m = memo_find(state, stats, rc->down);
        if (m) {
            PyObject *side = rc->side, *id = rc->id;
            long x = rc->x, y = rc->y;
            *rc = m->rec;
            rc->unit = u;
            rc->side = side;
            rc->id = id;
            rc->x = x;
            rc->y = y;
            rc->aid = m->aid;
            return 0;
        }
    }
#endif
    if (profile_of(stats, make_profile, &p) < 0)
        return -1;
    if (!p)
        return UNSUPPORTED;

    if (read_fields(state, f) < 0)
        return -1;
    if ((r = as_long(f[F_CT], &ct)) || (r = as_long(f[F_DEFENSE], &defense))
        || (r = as_long(f[F_ATTACK_PENALTY], &attack_penalty)) || (r = as_long(f[F_WINDS_USED], &winds_used))
        || (r = as_long(f[F_SUPPRESSED], &suppressed)))
        return r;
    if (ct < 0 || ct > CT_HELPLESS)
        return UNSUPPORTED;
    if ((r = truth(f[F_CHARGED], &charged)) || (r = truth(f[F_PRONE], &prone)) || (r = truth(f[F_AIMED], &aimed))
        || (r = truth(f[F_GRABBED_BY], &grabbed)) || (r = truth(f[F_NO_ATTACKS], &no_attacks)))
        return r;
    if ((r = as_double(f[F_PRONE], &f_prone)) || (r = as_double(f[F_AIMED], &f_aimed))
        || (r = as_double(f[F_CHARGED], &f_charged)) || (r = as_double(f[F_AOO_USED], &f_aoo)))
        return r;
    if (!f[F_PINNED_BY] || !f[F_AID])
        return UNSUPPORTED;
    pinned = f[F_PINNED_BY] != Py_None;
    rc->aid = f[F_AID];
    if ((r = int_list(f[F_HANDS], hands, MAX_WEAPONS, &n_hands)) || (r = int_list(f[F_LOST], lost, MAX_LOST, &n_lost))
        || (r = int_list(f[F_MODES], modes, MAX_WEAPONS, &n_modes))
        || (r = int_list(f[F_ACTIVE_ITEMS], active, MAX_ITEMS, &n_active)))
        return r;
    for (k = 0; k < n_active; k++) {
        if (active[k] < 0 || active[k] >= p->n_items)
            return UNSUPPORTED;
        item_r += p->items[active[k]][0];
        item_f += p->items[active[k]][1];
    }
    ctp = CT_PENALTY[ct];
    reflex = p->reflex + ctp + defense + item_r;
    if (charged)
        reflex -= 2;
    fortitude = p->fortitude + ctp + item_f;
    if ((r = first_of(p, hands, n_hands, lost, n_lost, KIND_MELEE, &rc->melee))
        || (r = first_of(p, hands, n_hands, lost, n_lost, KIND_RANGED, &rc->ranged)))
        return r;

    rc->features[0] = (double)reflex / 30;
    rc->features[1] = (double)fortitude / 30;
    rc->features[2] = (double)ct / 5;
    rc->features[3] = f_prone;
    rc->features[4] = f_aimed;
    rc->features[5] = (grabbed || pinned) ? 1.0 : 0.0;
    rc->features[6] = (double)defense / 10;
    rc->features[7] = rc->melee >= 0 ? 1.0 : 0.0;
    rc->features[8] = rc->ranged >= 0 ? 1.0 : 0.0;
    rc->features[9] = (double)attack_penalty / 10;
    rc->features[10] = f_charged;
    rc->features[11] = f_aoo;
    rc->features[12] = p->second_winds > winds_used ? 1.0 : 0.0;
    rc->features[13] = (double)p->speed / 12;

    rc->can_act = !rc->down && ct < CT_HELPLESS;
    rc->threatens = rc->can_act && !no_attacks && !pinned && rc->melee >= 0; /* SagaRuleset.threatens */
    rc->reach = p->reach;
    rc->aimed = aimed;
    rc->careful = p->careful;
    rc->reflex_melee = reflex + (prone ? -5 : 0);
    rc->reflex_ranged = reflex + (prone ? 5 : 0);
    if (rc->melee >= 0) {
        if ((r = mode_of(p, rc->melee, modes, n_modes, &mode)) != 0)
            return r;
        rc->m_ab = attack_bonus(p, rc->melee, ctp, attack_penalty, grabbed, prone, suppressed, mode);
        rc->m_mean = p->weapons[rc->melee].mean[0] / (mode == MODE_STUN ? 2 : 1);
        rc->m_auto = mode == MODE_AUTOFIRE;
    }
    if (rc->ranged >= 0) {
        if ((r = mode_of(p, rc->ranged, modes, n_modes, &mode)) != 0)
            return r;
        rc->r_ab = attack_bonus(p, rc->ranged, ctp, attack_penalty, grabbed, prone, suppressed, mode);
        rc->r_mean = p->weapons[rc->ranged].mean[aimed ? 1 : 0] / (mode == MODE_STUN ? 2 : 1);
        rc->r_auto = mode == MODE_AUTOFIRE;
        memcpy(rc->r_ranges, p->weapons[rc->ranged].ranges, sizeof(rc->r_ranges));
    }
#if MEMO
    if (PyDict_CheckExact(state))
        memo_keep(state, stats, f, rc);
#endif
    return 0;
}

/* ---- the sight memo (_sight.h's sight_memo) ---------------------------------------------------------------- */
/* *out: a new reference to the memo of `codes` on grid's map, or NULL when there is none to keep */
static int sight_table(PyObject *grid, PyObject *codes, Py_ssize_t size, PyObject **out) {
    PyObject *geo, *d;
    int rc;
    *out = NULL;
    if (size <= 0 || size > SIGHT_SQUARES)
        return 0;
    if (!(geo = PyObject_GetAttr(grid, S__geometry)))
        return -1;
    if (!(d = PyObject_GetAttr(geo, S_memo)) || !PyDict_Check(d)) {
        Py_XDECREF(d);
        Py_DECREF(geo);
        PyErr_Clear(); /* no memo dict: no memo */
        return 0;
    }
    rc = sight_memo(d, S_saga_sight, codes, size, out);
    Py_DECREF(d);
    Py_DECREF(geo);
    return rc;
}

/* ---- threats ----------------------------------------------------------------------------------------- */
typedef struct {
    long width, height, size;
    int metric; /* 0 alternating, 1 chebyshev, 2 manhattan */
    const unsigned char *codes; /* per square: 4 blocks sight and effect, 3 effect, 2 / 1 heavy / low cover */
    const long *occupied;       /* squares of the active units */
    Py_ssize_t n_occupied;
    unsigned char *table; /* the sight memo of these codes (see sight_table), NULL: none */
} Map;

static long distance(const Map *m, long ax, long ay, long bx, long by) {
    return metric_distance(m->metric, ax - bx, ay - by);
}

/* Grid.sight and whether an active unit stands on the line (grid._Geometry.line: traced from the lower
 * square number, from a corner that keeps the sampled coordinates >= 0, the ends left out). */
static void trace(const Map *m, long a, long b, int *los, int *loe, int *cover, int *blocked) { /* blocked: or NULL */
    long w = m->width;
    int local[256], *offs = local, cap = 256, n, k;
    *los = *loe = 1;
    *cover = 0;
    if (blocked)
        *blocked = 0;
    if (a > b) {
        long t = a;
        a = b;
        b = t;
    }
    if (w + m->size / w + 2 > cap) { /* a line passes fewer squares than the map's width and height */
        cap = (int)(w + m->size / w + 2);
        if (!(offs = PyMem_Malloc(cap * sizeof(int)))) {
            *los = *loe = 0; /* out of memory: no line rather than a wrong one */
            return;
        }
    }
    n = trace_line(w, b % w - a % w, b / w - a / w, offs, cap);
    for (k = 0; k < n; k++) {
        long sq = a + offs[k];
        Py_ssize_t j;
        if (sq < 0 || sq >= m->size)
            continue;
        fold_code(m->codes[sq], los, loe, cover);
        if (blocked)
            for (j = 0; j < m->n_occupied; j++)
                if (m->occupied[j] == sq)
                    *blocked = 1;
    }
    if (offs != local)
        PyMem_Free(offs);
}

/* Grid.sight(a, b) through the memo: per pair of squares (the lower first) 0 until known, else
 * 0x80 | los | loe << 1 | cover << 2 */
static void sight(const Map *m, long a, long b, int *los, int *loe, int *cover) {
    unsigned char *slot, v;
    if (!m->table) {
        trace(m, a, b, los, loe, cover, NULL);
        return;
    }
    slot = m->table + (a <= b ? a * m->size + b : b * m->size + a);
    v = *slot;
    if (!v) {
        trace(m, a, b, los, loe, cover, NULL);
        v = *slot = (unsigned char)(0x80 | *los | *loe << 1 | *cover << 2);
    }
    *los = v & 1;
    *loe = (v >> 1) & 1;
    *cover = (v >> 2) & 3;
}

/* The squares of lines as flat offsets from their lower end, for maps of one size (lo_w x lo_h) at a time: a
 * line's squares depend only on the offset between its ends and the map's width (grid._LINES), traced on first
 * use into lo_pool at LO_STRIDE(w, h) ints per offset (dy in [0, h), dx in (-w, w)); lo_len[k] is the count, -1
 * until traced. Plain C memory, made again for a map of another size; none for maps of more than LO_SQUARES squares
 * or shapes needing more than LO_INTS ints (those trace each line). */
#define LO_SQUARES 1024
#define LO_INTS (1L << 18) /* at most 1 MB of offsets */
#define LO_STRIDE(w, h) ((w) + (h) + 2)
static long lo_w, lo_h;
static int *lo_pool;
static short *lo_len;

static const int *line_offsets(const Map *m, long dx, long dy, int *n) {
    long w = m->width, h = m->height, k;
    int *out, cnt;
    if (m->size > LO_SQUARES || w * h != m->size || (2 * w - 1) * h * LO_STRIDE(w, h) > LO_INTS)
        return NULL;
    if (lo_w != w || lo_h != h || !lo_pool) {
        size_t entries = (size_t)(2 * w - 1) * h;
        int *pool = PyMem_Malloc(entries * LO_STRIDE(w, h) * sizeof(int));
        short *len = PyMem_Malloc(entries * sizeof(short));
        if (!pool || !len) {
            PyMem_Free(pool);
            PyMem_Free(len);
            return NULL;
        }
        PyMem_Free(lo_pool);
        PyMem_Free(lo_len);
        lo_pool = pool;
        lo_len = len;
        memset(lo_len, 0xff, entries * sizeof(short));
        lo_w = w;
        lo_h = h;
    }
    k = dy * (2 * w - 1) + dx + w - 1;
    out = lo_pool + (size_t)k * LO_STRIDE(w, h);
    if (lo_len[k] >= 0) {
        *n = lo_len[k];
        return out;
    }
    cnt = trace_line(w, dx, dy, out, (int)LO_STRIDE(w, h));
    if (cnt < 0)
        return NULL; /* (never: a line passes fewer squares) */
    lo_len[k] = (short)cnt;
    *n = cnt;
    return out;
}

/* whether an active unit stands on the line between a and b */
static int line_blocked(const Map *m, long a, long b) {
    int los, loe, cover, blocked, n, k;
    const int *offs;
    Py_ssize_t j;
    if (!m->n_occupied)
        return 0;
    if (a > b) {
        long t = a;
        a = b;
        b = t;
    }
    offs = line_offsets(m, b % m->width - a % m->width, b / m->width - a / m->width, &n);
    if (!offs) {
        trace(m, a, b, &los, &loe, &cover, &blocked);
        return blocked;
    }
    for (k = 0; k < n; k++) {
        long sq = a + offs[k];
        if (sq < 0 || sq >= m->size)
            continue;
        for (j = 0; j < m->n_occupied; j++)
            if (m->occupied[j] == sq)
                return 1;
    }
    return 0;
}

static double hit_chance(long bonus, long defense) {
    long need = defense - bonus, faces = 21 - (need < 2 ? 2 : (need > 20 ? 20 : need));
    return (double)faces / 20;
}

/* observe._threat: (hit chance, expected damage) of a's best attack on t */
static int threat(const Map *m, const Rec *a, const Rec *t, double *p_out, double *dmg_out) {
    long dist, ia, it;
    int los, loe, cover, aid = 0;
    double bp = 0.0, bd = 0.0;
    *p_out = *dmg_out = 0.0;
    if (t->down || !a->can_act || (a->melee < 0 && a->ranged < 0))
        return 0;
    if (a->x < 0 || a->x >= m->width || a->y < 0 || a->y >= m->height || t->x < 0 || t->x >= m->width || t->y < 0
        || t->y >= m->height)
        return UNSUPPORTED;
    ia = a->y * m->width + a->x;
    it = t->y * m->width + t->x;
    dist = distance(m, a->x, a->y, t->x, t->y);
    sight(m, ia, it, &los, &loe, &cover);
    if (!PyDict_Check(t->aid))
        return UNSUPPORTED;
    {
        PyObject *aider = PyDict_GetItemWithError(t->aid, a->side);
        if (!aider && PyErr_Occurred())
            return -1;
        if (aider && aider != Py_None) {
            int ne = PyObject_RichCompareBool(aider, a->id, Py_NE);
            if (ne < 0)
                return -1;
            aid = ne ? 2 : 0;
        }
    }
    if (a->melee >= 0 && dist <= a->reach && (dist <= 1 || loe)) {
        double p = hit_chance(a->m_ab + aid, t->reflex_melee), mean = a->m_mean, dmg = p * mean + 0.05 * mean;
        if (a->m_auto)
            dmg += (1 - p) * mean / 2;
        bp = p;
        bd = dmg;
    }
    if (a->ranged >= 0 && los && loe) {
        int band = -1, k;
        for (k = 0; k < 4; k++)
            if (dist <= a->r_ranges[k]) {
                band = k;
                break;
            }
        if (band >= 0 && !line_blocked(m, ia, it)) {
            long ab = a->r_ab + aid + BAND_PENALTY[band], defense = t->reflex_ranged;
            double p, mean, dmg;
            if (a->aimed)
                ab += a->careful;
            else
                defense += COVER_BONUS[cover];
            p = hit_chance(ab, defense);
            mean = a->r_mean;
            dmg = p * mean + 0.05 * mean;
            if (a->r_auto)
                dmg += (1 - p) * mean / 2;
            if (dmg > bd) {
                bp = p;
                bd = dmg;
            }
        }
    }
    *p_out = bp;
    *dmg_out = bd;
    return 0;
}

/* ---- Parts: the result, a sequence of (features, threat or None) and a float64 buffer --------------------- */
#define WIDTH (N_FEATURES + 5)

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    Py_ssize_t shape[2], strides[2];
    char *has_threat;
    double *v; /* n rows of WIDTH: features, p, damage, q, damage back (0 without a threat), reach threatened */
} PartsObject;

static PyTypeObject PartsType;

static void parts_dealloc(PartsObject *self) {
    PyMem_Free(self->v);
    PyMem_Free(self->has_threat);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t parts_len(PartsObject *self) {
    return self->n;
}

static PyObject *parts_item(PartsObject *self, Py_ssize_t k) {
    PyObject *feats, *threat, *out;
    const double *row;
    Py_ssize_t j;
    if (k < 0 || k >= self->n) {
        PyErr_SetString(PyExc_IndexError, "Parts index out of range");
        return NULL;
    }
    row = self->v + k * WIDTH;
    feats = PyList_New(N_FEATURES);
    if (!feats)
        return NULL;
    for (j = 0; j < N_FEATURES; j++) {
        PyObject *f = PyFloat_FromDouble(row[j]);
        if (!f) {
            Py_DECREF(feats);
            return NULL;
        }
        PyList_SET_ITEM(feats, j, f);
    }
    if (self->has_threat[k])
        threat = Py_BuildValue("(dddd)", row[N_FEATURES], row[N_FEATURES + 1], row[N_FEATURES + 2],
                               row[N_FEATURES + 3]);
    else
        threat = Py_NewRef(Py_None);
    if (!threat) {
        Py_DECREF(feats);
        return NULL;
    }
    out = PyTuple_Pack(2, feats, threat);
    Py_DECREF(feats);
    Py_DECREF(threat);
    return out;
}

static int parts_getbuffer(PartsObject *self, Py_buffer *view, int flags) {
    if (PyBuffer_FillInfo(view, (PyObject *)self, self->v, self->n * WIDTH * (Py_ssize_t)sizeof(double), 1,
                          flags) < 0)
        return -1;
    view->itemsize = sizeof(double);
    view->format = (flags & PyBUF_FORMAT) ? "d" : NULL;
    if ((flags & PyBUF_ND) == PyBUF_ND) {
        view->ndim = 2;
        view->shape = self->shape;
        view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
    }
    return 0;
}

static PySequenceMethods parts_as_sequence = {
    .sq_length = (lenfunc)parts_len,
    .sq_item = (ssizeargfunc)parts_item,
};

static PyBufferProcs parts_as_buffer = {
    .bf_getbuffer = (getbufferproc)parts_getbuffer,
};

static PyTypeObject PartsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.rulesets.saga._observe.Parts",
    .tp_doc = PyDoc_STR("The Saga observation parts of `observe.observation_parts`: a sequence of (features, threat "
                        "or None) per unit, and a read-only float64 buffer of shape (units, 14 + 5): the features, "
                        "the threat (p, damage, q, damage back; zeros for None), the reach of the squares the unit "
                        "threatens (0: none)."),
    .tp_basicsize = sizeof(PartsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)parts_dealloc,
    .tp_as_sequence = &parts_as_sequence,
    .tp_as_buffer = &parts_as_buffer,
};

/* parts(enc, actor, units, codes, make_profile) -> Parts | None: observe._observation_parts_py in C, with
 * `codes` the bytes of enc.grid.line_codes(); None for a state this code does not represent. */
static PyObject *parts(PyObject *self, PyObject *args) {
    PyObject *enc, *actor, *units, *make_profile, *all_units = NULL, *grid = NULL, *v, *fast = NULL, *codes_obj;
    PyObject *table = NULL;
    Py_buffer codes;
    Py_ssize_t n, n_all, k, actor_at = -1;
    Rec *recs = NULL, actor_rec, *ra;
    long occupied_small[64], *occupied = occupied_small;
    Map m;
    PartsObject *out = NULL;
    int r = 0;

    if (!PyArg_ParseTuple(args, "OOOOO", &enc, &actor, &units, &codes_obj, &make_profile))
        return NULL;
    if (PyObject_GetBuffer(codes_obj, &codes, PyBUF_SIMPLE) < 0)
        return NULL;
    /* each call checked before the next: a Python call made while an exception is pending may clear it */
    if (!(fast = PySequence_Fast(units, "units must be a sequence")) || !(all_units = PyObject_GetAttr(enc, S_units))
        || !(grid = PyObject_GetAttr(enc, S_grid)))
        goto fail;
    if (!PyList_Check(all_units)) {
        r = UNSUPPORTED;
        goto done;
    }
    memset(&m, 0, sizeof(m));
    if ((v = PyObject_GetAttr(grid, S_width)) == NULL)
        goto fail;
    r = as_long(v, &m.width);
    Py_DECREF(v);
    if (r)
        goto done;
    if ((v = PyObject_GetAttr(grid, S_metric)) == NULL)
        goto fail;
    m.metric = !PyUnicode_Check(v) ? -1
               : PyUnicode_CompareWithASCIIString(v, "alternating") == 0 ? 0
               : PyUnicode_CompareWithASCIIString(v, "chebyshev") == 0 ? 1
                                                                         : 2;
    Py_DECREF(v);
    if (m.metric < 0 || m.width <= 0) {
        r = UNSUPPORTED;
        goto done;
    }
    m.codes = codes.buf;
    m.size = codes.len;
    m.height = m.size / m.width;
    if (sight_table(grid, codes_obj, m.size, &table) < 0)
        goto fail;
    m.table = table ? (unsigned char *)PyByteArray_AS_STRING(table) : NULL;

    n = PySequence_Fast_GET_SIZE(fast);
    recs = PyMem_Malloc((n ? n : 1) * sizeof(Rec));
    out = PyObject_New(PartsObject, &PartsType);
    if (out) {
        out->n = n;
        out->v = NULL;
        out->has_threat = NULL;
    }
    if (!recs || !out)
        goto fail_mem;
    out->v = PyMem_Calloc(n ? n * WIDTH : 1, sizeof(double));
    out->has_threat = PyMem_Calloc(n ? n : 1, 1);
    if (!out->v || !out->has_threat)
        goto fail_mem;
    out->shape[0] = n;
    out->shape[1] = WIDTH;
    out->strides[0] = WIDTH * sizeof(double);
    out->strides[1] = sizeof(double);
    for (k = 0; k < n; k++) {
        PyObject *u = PySequence_Fast_GET_ITEM(fast, k);
        if ((r = record(u, make_profile, &recs[k])) != 0)
            goto done;
        if (u == actor && actor_at < 0)
            actor_at = k;
    }
    if (actor_at >= 0) {
        ra = &recs[actor_at];
    } else {
        if ((r = record(actor, make_profile, &actor_rec)) != 0)
            goto done;
        ra = &actor_rec;
    }
    /* the squares of the active units (a line through one of them is blocked), from the records where it can */
    n_all = PyList_GET_SIZE(all_units);
    if (n_all > 64 && !(occupied = PyMem_Malloc(n_all * sizeof(long)))) {
        PyErr_NoMemory();
        goto fail;
    }
    for (k = 0; k < n_all; k++) {
        PyObject *u = PyList_GET_ITEM(all_units, k);
        Py_ssize_t j;
        long x, y;
        int down = -1;
        for (j = 0; j < n; j++)
            if (recs[j].unit == u) {
                down = recs[j].down;
                x = recs[j].x;
                y = recs[j].y;
                break;
            }
        if (down < 0) {
            if ((v = uattr(u, A_DOWN)) == NULL)
                goto fail;
            down = PyObject_IsTrue(v);
            Py_DECREF(v);
            if (down < 0)
                goto fail;
            if (!down && (r = get_pos(u, &x, &y)) != 0)
                goto done;
        }
        if (!down)
            occupied[m.n_occupied++] = y * m.width + x;
    }
    m.occupied = occupied;
    for (k = 0; k < n; k++) {
        Rec *ru = &recs[k];
        double *row = out->v + k * WIDTH;
        memcpy(row, ru->features, sizeof(ru->features));
        row[N_FEATURES + 4] = ru->threatens && ru->reach >= 1 ? (double)ru->reach : 0.0;
    }
    for (k = 0; k < n; k++) {
        Rec *ru = &recs[k];
        double *row = out->v + k * WIDTH;
        int ne;
        if (ru->down)
            continue;
        ne = PyObject_RichCompareBool(ru->side, ra->side, Py_NE);
        if (ne < 0)
            goto fail;
        if (!ne)
            continue;
        out->has_threat[k] = 1;
        if ((r = threat(&m, ra, ru, &row[N_FEATURES], &row[N_FEATURES + 1])) != 0
            || (r = threat(&m, ru, ra, &row[N_FEATURES + 2], &row[N_FEATURES + 3])) != 0)
            goto done;
    }
    goto done;
fail_mem:
    if (!PyErr_Occurred())
        PyErr_NoMemory();
fail:
    r = -1;
done:
    if (occupied != occupied_small)
        PyMem_Free(occupied);
    PyMem_Free(recs);
    Py_XDECREF(fast);
    Py_XDECREF(all_units);
    Py_XDECREF(grid);
    Py_XDECREF(table);
    PyBuffer_Release(&codes);
    if (r == UNSUPPORTED && PyErr_Occurred())
        r = -1;
    if (r) {
        Py_XDECREF(out);
        if (r == -1)
            return NULL;
        Py_RETURN_NONE;
    }
    return (PyObject *)out;
}

static PyObject *clear_cache(PyObject *self, PyObject *unused) {
    profiles_epoch++;
    PyDict_Clear(PROFILES);
    Py_RETURN_NONE;
}

static PyObject *cache_size(PyObject *self, PyObject *unused) {
    return PyLong_FromSsize_t(PyDict_GET_SIZE(PROFILES));
}

static PyMethodDef methods[] = {
    {"parts", parts, METH_VARARGS,
     "parts(enc, actor, units, codes, make_profile) -> Parts | None: observe._observation_parts_py in C"},
    {"clear_cache", clear_cache, METH_NOARGS, "Forget the profiles of stat blocks."},
    {"cache_size", cache_size, METH_NOARGS, "How many stat blocks have a cached profile."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_observe", "The Saga observation figures in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__observe(void) {
    PyObject *m;
    int k;
    if (PyType_Ready(&PartsType) < 0)
        return NULL;
#define INTERN(var, text)                                                                                        \
    if (!(var = PyUnicode_InternFromString(text)))                                                              \
        return NULL;
    INTERN(S_units, "units")
    INTERN(S_grid, "grid")
    INTERN(S_width, "width")
    INTERN(S_metric, "metric")
    INTERN(S_pos, "pos")
    INTERN(S_down, "down")
    INTERN(S_side, "side")
    INTERN(S_id, "id")
    INTERN(S_stats, "stats")
    INTERN(S_state, "state")
    INTERN(S__geometry, "_geometry")
    INTERN(S_saga_sight, "saga_sight")
    INTERN(S_memo, "memo")
#undef INTERN
    for (k = 0; k < N_FIELDS; k++)
        if (!(FIELD_NAMES[k] = PyUnicode_InternFromString(FIELD_TEXT[k])))
            return NULL;
    index_fields();
    if (!(PROFILES = PyDict_New()))
        return NULL;
    m = PyModule_Create(&module);
    if (m && (PyModule_AddObjectRef(m, "Parts", (PyObject *)&PartsType) < 0
              || PyModule_AddIntConstant(m, "N_FEATURES", N_FEATURES) < 0)) {
        Py_CLEAR(m);
    }
    return m;
}
