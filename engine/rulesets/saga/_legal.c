/* engine.rulesets.saga._legal: SagaRuleset.legal_actions in C.
 *
 * A compiled mirror of `SagaRuleset.legal_actions_py` (ruleset.py), which stays the readable statement of the
 * rules and the fallback: `legal(enc, actor)` returns the same list of the same interned Decision objects, in
 * the same order, or None when the state holds something this mirror does not read (a field missing or of an
 * unexpected type, a unit off the map, ids out of order): the Python version then decides. Every rule change
 * there must be made here too; tests/saga/test_legal_native.py checks the two agree on many random battles.
 *
 * The geometry follows grid.py: the squares a line passes (`_Geometry.line`), the reachable-squares search
 * (`Grid.reachable`, as engine/core/_native.c's `search`), run rays and straight charge lines are computed on each
 * call from the terrain codes of the map (kept with its shared geometry, as the terrain never changes) and its
 * open doors and broken objects; sight and effect between two squares (`Grid.sight`) are memoised per map and
 * state of the doors in a table shared with _observe.c (see sight_table).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/_geometry.h"
#include "_sight.h"
#include "_terrain.h"

#define FALLBACK 1 /* a helper's "let Python decide" (no exception set); -1 is an error, 0 success */
#define BIG 0x3f3f3f3f /* above any cost (a memset of 0x3f bytes) */
#define MAXW 16    /* weapons / hands / lost entries read per unit; more: fallback */
#define NB_STRIDE 9 /* ints per row of a map's static moves (static_map): a count and up to 8 moves */

#include "../../core/_ctz.h"

#define TRY(call)          \
    do {                   \
        int rc_ = (call);  \
        if (rc_) {         \
            rc = rc_;      \
            goto done;     \
        }                  \
    } while (0)

/* ---- terrain kinds as play stands (grid.Grid.kind) -------------------------------------------------------- */
enum { K_FLOOR, K_WALL, K_LOW, K_HEAVY, K_DIFFICULT, K_DOOR, K_WINDOW, K_OPEN_DOOR, N_KINDS };
static const char *KIND_NAMES[N_KINDS] = {"floor", "wall",   "low_cover", "heavy_cover",
                                          "difficult", "door", "window", "open_door"};
static const unsigned char PASSABLE[N_KINDS] = {1, 0, 1, 0, 1, 0, 0, 1};  /* Grid.passable */
static const unsigned char ENTER[N_KINDS] = {1, 1, 2, 1, 2, 1, 1, 1};     /* Grid.enter_cost */
static const unsigned char LINE_CODE[N_KINDS] = {0, 4, 1, 2, 0, 4, 3, 0}; /* grid._LINE_CODES */
static const unsigned char MULT[N_KINDS] = {1, 0, 2, 0, 2, 0, 0, 1};      /* _Geometry._multipliers */
static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1}, DY[8] = {0, 1, 1, 1, 0, -1, -1, -1}; /* DIRECTIONS */
enum { M_ALTERNATING, M_CHEBYSHEV, M_MANHATTAN };

/* ---- the decisions legal_actions makes ---------------------------------------------------------------------- */
enum { T_MELEE, T_RANGED, T_AID, T_SUPPRESS, T_HELD, T_DISARM, T_FULL, T_CHARGE, T_GRAB, T_GRAPPLE, T_CDG, N_T };
static const char *T_NAMES[N_T] = {"melee_attack", "ranged_attack", "aid_attack", "suppress", "attack_held_object",
                                   "disarm", "full_attack", "charge", "grab", "grapple", "coup_de_grace"};
enum { O_DRAW, O_HOLSTER, O_ITEM, O_DROP, O_SWITCH, N_O };
static const char *O_NAMES[N_O] = {"draw", "holster", "activate_item", "drop_item", "switch_mode"};
enum { Q_MOVE, Q_WITHDRAW, Q_RUN, Q_OBJECT, Q_MANIPULATE, N_Q };
static const char *Q_NAMES[N_Q] = {"move", "withdraw", "run", "attack_object", "manipulate"};
enum { C_END, C_FIGHT_DEFENSIVELY, C_TOTAL_DEFENSE, C_BREAK_GRAB, C_STAND_UP, C_STAND_UP_ACROBATICS, C_AIM,
       C_SECOND_WIND, C_FALL_PRONE, C_RECOVER, N_C };

/* set by setup(): */
static PyObject *CONST[N_C];        /* END and the module constants of ruleset.py */
static PyObject *TARGET_FN, *OPTION_FN, *SQUARES_FN, *RANGES, *SIZE_ORDER;
/* Decision objects from target_decision / option_decision (engine/core/decision.py), per action by target / option (those memos are
 * never cleared, so what they returned once they return for good). */
static PyObject *TCACHE[N_T], *OCACHE[N_O];
static PyObject *T_STR[N_T], *O_STR[N_O], *Q_STR[N_Q];

/* interned names */
#define NAMES(X)                                                                                              \
    X(flags) X(charged) X(down) X(dead) X(state) X(stats) X(ct) X(budget) X(standard) X(move) X(swift)       \
    X(pinned_by) X(speed) X(prone) X(grabbed_by) X(side) X(units) X(hands) X(lost) X(weapons) X(kind)        \
    X(melee) X(ranged) X(natural) X(no_attacks) X(grid) X(width) X(height) X(pos) X(id) X(reach) X(feats)     \
    X(heavy_armor) X(grabbing) X(group) X(size) X(double) X(pin) X(trip) X(ranged_disarm) X(double_attack)   \
    X(quick_draw) X(trained) X(acrobatics) X(items) X(aimed) X(second_winds) X(winds_used) X(hp) X(max_hp)   \
    X(modes) X(persistent) X(aoo_used) X(metric) X(alternating) X(chebyshev) X(terrain) X(open_doors)        \
    X(broken) X(_geometry) X(extra) X(ground) X(owner) X(objects) X(disabled)                                 \
    X(saga_legal_map) X(saga_legal_codes) X(saga_sight) X(memo)
#define DECLARE(n) static PyObject *S_##n;
NAMES(DECLARE)
#undef DECLARE

/* ---- small readers: 0 success, FALLBACK when the value is missing or not what the rules expect, -1 error ---- */
static int item(PyObject *d, PyObject *key, PyObject **out) {  /* d[key], borrowed */
    if (!PyDict_Check(d))
        return FALLBACK;
    *out = PyDict_GetItemWithError(d, key);
    if (!*out)
        return PyErr_Occurred() ? -1 : FALLBACK;
    return 0;
}

static int as_long(PyObject *v, long *out) {
    if (!PyLong_Check(v))
        return FALLBACK;
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    if (PyLong_CheckExact(v) && Py_SIZE(v) >= -1 && Py_SIZE(v) <= 1) { /* one digit or none (CPython 3.11's ints) */
        *out = (long)Py_SIZE(v) * (long)((PyLongObject *)v)->ob_digit[0];
        return 0;
    }
#endif
    *out = PyLong_AsLong(v);
    if (*out == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        return FALLBACK;
    }
    return 0;
}

static int item_long(PyObject *d, PyObject *key, long *out) {
    PyObject *v;
    int rc = item(d, key, &v);
    return rc ? rc : as_long(v, out);
}

static int item_true(PyObject *d, PyObject *key, int *out) {
    PyObject *v;
    int rc = item(d, key, &v);
    if (rc)
        return rc;
    *out = PyObject_IsTrue(v);
    return *out < 0 ? -1 : 0;
}

/* dict.get(key, 0) of a budget, as an int */
static int budget_get(PyObject *b, PyObject *key, long *out) {
    PyObject *v = PyDict_GetItemWithError(b, key);
    if (!v) {
        *out = 0;
        return PyErr_Occurred() ? -1 : 0;
    }
    return as_long(v, out);
}

/* A unit's attributes: for a Unit (exactly), its __slots__ read where the slot descriptors keep them (setup()
 * finds where), else getattr */
enum { U_ID, U_POS, U_DOWN, U_DEAD, U_SIDE, U_STATE, U_STATS, U_HP, U_MAX_HP, N_SLOTS };
static PyObject **SLOT_NAME[N_SLOTS] = {&S_id, &S_pos, &S_down, &S_dead, &S_side, &S_state, &S_stats, &S_hp,
                                        &S_max_hp};
static PyTypeObject *UNIT_TYPE;
static Py_ssize_t SLOT_OFF[N_SLOTS];

static PyObject *uget(PyObject *u, int slot) {
    if (Py_TYPE(u) == UNIT_TYPE && SLOT_OFF[slot] >= 0) {
        PyObject *v = *(PyObject **)((char *)u + SLOT_OFF[slot]);
        if (v)
            return Py_NewRef(v);
    }
    return PyObject_GetAttr(u, *SLOT_NAME[slot]);
}

/* as_long of a new reference v (NULL: an error already set), releasing it */
static int take_long(PyObject *v, long *out) {
    int rc;
    if (!v)
        return -1;
    rc = as_long(v, out);
    Py_DECREF(v);
    return rc;
}

static int uget_long(PyObject *u, int slot, long *out) { return take_long(uget(u, slot), out); }

static int uget_true(PyObject *u, int slot, int *out) {
    PyObject *v = uget(u, slot);
    if (!v)
        return -1;
    *out = PyObject_IsTrue(v);
    Py_DECREF(v);
    return *out < 0 ? -1 : 0;
}

static int attr_long(PyObject *o, PyObject *name, long *out) { return take_long(PyObject_GetAttr(o, name), out); }

/* a list of ints (hands, lost) into v[0..*n) */
static int int_list(PyObject *lst, long *v, int *n) {
    Py_ssize_t k, len;
    if (!PyList_Check(lst))
        return FALLBACK;
    len = PyList_GET_SIZE(lst);
    if (len > MAXW)
        return FALLBACK;
    for (k = 0; k < len; k++) {
        int rc = as_long(PyList_GET_ITEM(lst, k), &v[k]);
        if (rc)
            return rc;
    }
    *n = (int)len;
    return 0;
}

static int contains(const long *v, int n, long x) {
    int k;
    for (k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

static int str_is(PyObject *s, const char *ascii) {
    return PyUnicode_Check(s) && PyUnicode_CompareWithASCIIString(s, ascii) == 0;
}

/* decimal digits of v at p (no terminator); returns the end */
static char *put_int(char *p, long v) {
    char tmp[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    if (v < 0)
        *p++ = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static long floordiv2(long v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

/* ---- a unit's hands and weapons ------------------------------------------------------------------------- */
typedef struct {
    long hands[MAXW], lost[MAXW];
    int n_hands, n_lost, n_w;
    int kind[MAXW]; /* 0 melee, 1 ranged, 2 neither */
    int natural[MAXW], dbl[MAXW];
    long n_hands_of[MAXW], n_modes[MAXW];
    PyObject *weapons; /* borrowed from stats */
} Arms;

static int read_hands(PyObject *state, Arms *A) {
    PyObject *v;
    int rc;
    if ((rc = item(state, S_hands, &v)) || (rc = int_list(v, A->hands, &A->n_hands)))
        return rc;
    if ((rc = item(state, S_lost, &v)) || (rc = int_list(v, A->lost, &A->n_lost)))
        return rc;
    return 0;
}

/* hands, lost and what legal_actions reads of each weapon (with full = 0: only kind and natural, for first_of) */
static int read_arms(PyObject *state, PyObject *stats, Arms *A, int full) {
    Py_ssize_t k;
    int rc;
    if ((rc = read_hands(state, A)) || (rc = item(stats, S_weapons, &A->weapons)))
        return rc;
    if (!PyList_Check(A->weapons) || PyList_GET_SIZE(A->weapons) > MAXW)
        return FALLBACK;
    A->n_w = (int)PyList_GET_SIZE(A->weapons);
    for (k = 0; k < A->n_w; k++) {
        PyObject *w = PyList_GET_ITEM(A->weapons, k), *v;
        long hands;
        if ((rc = item(w, S_kind, &v)))
            return rc;
        A->kind[k] = str_is(v, "melee") ? 0 : str_is(v, "ranged") ? 1 : 2;
        if ((rc = item_true(w, S_natural, &A->natural[k])))
            return rc;
        if (!full)
            continue;
        if ((rc = item_long(w, S_hands, &hands)) || (rc = item_true(w, S_double, &A->dbl[k]))
            || (rc = item(w, S_modes, &v)))
            return rc;
        if (!PyList_Check(v))
            return FALLBACK;
        A->n_hands_of[k] = hands;
        A->n_modes[k] = (long)PyList_GET_SIZE(v);
    }
    for (k = 0; k < A->n_hands; k++) /* ws[n] of a hand: Python would raise (or index from the end) */
        if (A->hands[k] < 0 || A->hands[k] >= A->n_w)
            return FALLBACK;
    return 0;
}

/* combat.first_of: the first usable weapon of a kind, -1 for None */
static int first_of(const Arms *A, int kind) {
    int k;
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]) && A->kind[A->hands[k]] == kind)
            return (int)A->hands[k];
    for (k = 0; k < A->n_w; k++)
        if (A->natural[k] && A->kind[k] == kind && !contains(A->lost, A->n_lost, k))
            return k;
    return -1;
}

/* SagaRuleset._holding */
static int holding(const Arms *A) {
    int k;
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]))
            return 1;
    return 0;
}

/* ---- the call's view of the encounter --------------------------------------------------------------------- */
typedef struct {
    PyObject *u, *state, *stats, *side; /* u borrowed (from the units list held by the context); others owned */
    long id;
    int x, y, sq, down, same; /* sq: flat index of pos; same: on the actor's side */
} Rec;

typedef struct {
    PyObject *enc, *a, *g, *units, *map, *a_state, *a_stats, *a_side, *a_id, *extra, *decs, *out; /* owned */
    PyObject *qlist[N_Q];
    int w, h, size, metric;
    const int *nb;                /* static moves (static_map, borrowed from the geometry's bytes) */
    int changed;                  /* some door open or object broken: kind differs from terrain */
    const unsigned char *terrain; /* static codes (the same) */
    char *arena;        /* scratch space of the call (see scratch), ARENA bytes */
    size_t arena_used;
    PyObject *geo_dict, *sight_obj; /* the map's geometry.memo, the sight memo (see sight_table) */
    unsigned char *sight_tab;
    unsigned char *kind;          /* codes now */
    int *occ;                     /* id of the (last) active unit on a square, -1 */
    unsigned char *enemy_sq, *ally_sq; /* active enemies; active allies other than the actor (by identity) */
    Rec *recs;
    int n;
    /* the actor: where, its weapons, what its budget and conditions allow */
    int ax, ay, here;
    Arms A;
    long ct, standard, move, swift, a_reach, long_last, long_top; /* long_*: its ranged weapon's long range */
    int std, mv, sw, full, held, speed, prone, grabbed, can_walk, melee_w, ranged_w, may_attack;
    /* scratch (see read_actor) */
    int *buf, *ends, *objs, *order, *threat;
    long *treach;
} Ctx;

#define ARENA 8192
/* n bytes of scratch for the call: from its arena while there is room, else from the heap (release frees those) */
static void *scratch(Ctx *c, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (c->arena && c->arena_used + n <= ARENA) {
        void *p = c->arena + c->arena_used;
        c->arena_used += n;
        return p;
    }
    return PyMem_Malloc(n ? n : 1);
}

static void release(Ctx *c, void *p) {
    if (p && !(c->arena && (char *)p >= c->arena && (char *)p < c->arena + ARENA))
        PyMem_Free(p);
}

static int dist(const Ctx *c, int x1, int y1, int x2, int y2) {
    return (int)metric_distance(c->metric, x1 - x2, y1 - y2);
}

/* Grid.within(center, reach) into out as flat indices; returns the count (out needs (2r + 1)^2 slots) */
static int within(const Ctx *c, int cx, int cy, int r, int *out) {
    int n = 0, dx, dy;
    for (dy = -r; dy <= r; dy++)
        for (dx = -r; dx <= r; dx++) {
            int x = cx + dx, y = cy + dy;
            if ((dx || dy) && dist(c, 0, 0, dx, dy) <= r && 0 <= x && x < c->w && 0 <= y && y < c->h)
                out[n++] = y * c->w + x;
        }
    return n;
}

/* _Geometry.line(a, b): the squares strictly between a and b in the order traced from the lower index (trace_line);
 * out needs room for a line across the map */
static int line(const Ctx *c, int a, int b, int *out) {
    int w = c->w, k, cnt;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    cnt = trace_line(w, b % w - a % w, b / w - a / w, out, 1 << 30);
    for (k = 0; k < cnt; k++)
        out[k] += a;
    return cnt;
}

/* Grid.sight(a, b): line of sight, line of effect, cover (0 none, 1 low, 2 heavy) along the line */
static void trace_sight(const Ctx *c, int a, int b, int *buf, int *los, int *loe, int *cover) {
    int n = line(c, a, b, buf), k;
    *los = *loe = 1;
    *cover = 0;
    for (k = 0; k < n; k++)
        fold_code(LINE_CODE[c->kind[buf[k]]], los, loe, cover);
}

/* Grid.sight(a, b)[:2] through the map's sight memo (_observe.c's, see sight_table) when there is one */
static void sight(const Ctx *c, int a, int b, int *buf, int *los, int *loe) {
    unsigned char *slot, v;
    int cover;
    if (!c->sight_tab) {
        trace_sight(c, a, b, buf, los, loe, &cover);
        return;
    }
    slot = c->sight_tab + (a <= b ? (size_t)a * c->size + b : (size_t)b * c->size + a);
    v = *slot;
    if (!v) {
        trace_sight(c, a, b, buf, los, loe, &cover);
        v = *slot = (unsigned char)(0x80 | *los | *loe << 1 | cover << 2);
    }
    *los = v & 1;
    *loe = (v >> 1) & 1;
}

/* ---- Grid.reachable: the bucket search of grid.Grid._search / _native.search ------------------------------ */
/* Squares reachable within budget through no enemy square from the seeds (n_seeds pairs of search state
 * 2 * square + parity and the cost already spent there; a move from s: the one seed 2 * s at 0), in the order the
 * search first reaches them (the seeds' squares first, in seed order; the dict order of Grid.reachable before its
 * no_stop squares are dropped, or of Grid.reach_from); the count, or -1 on error. The moves are the map's
 * transitions (grid._Geometry.flat_transitions) made on the fly: into passable squares, no diagonal cutting a
 * wall's corner (the map's walls), difficult terrain and low objects double, and under the 'alternating' metric
 * every second diagonal double. A state enters a cost's bucket at most once (only a lower cost pushes it again,
 * into a lower bucket), so each bucket is a bitmap of states read in increasing order: the sorted bucket of the
 * Python search. */
#define SEARCH_STACK 1024 /* maps up to this many squares search in stack buffers */
static int search(const Ctx *c, const int *seeds, int n_seeds, int budget, int *order) {
    int size = c->size, changed = c->changed, n_order = 0, cost, i;
    int dmask = c->metric == M_ALTERNATING ? 4 : 0; /* diagonals flip the parity (and pay it) only then */
    size_t words = (2 * (size_t)size + 63) / 64, k;
    int seen_stack[3 * SEARCH_STACK], *seen, *cost_of;
    unsigned long long bits_stack[1024], *bits;
    const int *nb = c->nb + (changed ? 0 : NB_STRIDE);
    const unsigned char *kind = c->kind;
    if (budget > 4 * size)
        budget = 4 * size;
    if (budget <= 0) {
        for (i = 0; i < n_seeds; i++) {
            int j = seeds[2 * i] >> 1, m;
            for (m = 0; m < n_order && order[m] != j; m++)
                ;
            if (seeds[2 * i + 1] <= budget && m == n_order)
                order[n_order++] = j;
        }
        return n_order;
    }
    seen = size <= SEARCH_STACK ? seen_stack : PyMem_Malloc(3 * (size_t)size * sizeof(int));
    bits = (size_t)budget * words <= sizeof(bits_stack) / sizeof(bits_stack[0])
               ? bits_stack
               : PyMem_Malloc((size_t)budget * words * sizeof(unsigned long long)); /* the buckets of costs < budget */
    if (!seen || !bits) {
        if (seen != seen_stack)
            PyMem_Free(seen);
        if (bits != bits_stack)
            PyMem_Free(bits);
        PyErr_NoMemory();
        return -1;
    }
    memset(bits, 0, (size_t)budget * words * sizeof(unsigned long long));
    cost_of = seen + 2 * size;
    memset(seen, 0x3f, 3 * (size_t)size * sizeof(int)); /* BIG everywhere */
    for (i = 0; i < c->n; i++) /* enemies are never entered: as if already reached at no cost */
        if (!c->recs[i].down && !c->recs[i].same)
            seen[2 * c->recs[i].sq] = seen[2 * c->recs[i].sq + 1] = -1;
    for (i = 0; i < n_seeds; i++) {
        int state = seeds[2 * i], sc = seeds[2 * i + 1], j = state >> 1;
        if (sc > budget || seen[state] <= sc)
            continue;
        seen[state] = sc;
        if (sc < cost_of[j]) {
            if (cost_of[j] == BIG)
                order[n_order++] = j;
            cost_of[j] = sc;
        }
        if (sc < budget)
            bits[(size_t)sc * words + state / 64] |= 1ULL << (state % 64);
    }
    for (cost = 0; cost < budget; cost++) { /* states at the full budget cannot move on: no bucket */
        unsigned long long *bucket = bits + (size_t)cost * words;
        for (k = 0; k < words; k++) {
            unsigned long long word = bucket[k]; /* (states pushed at this cost are all read here: none is pushed
                                                  * into its own bucket, every move costing at least 1) */
            while (word) {
                int state = (int)(64 * k) + CTZ64(word), parity = state & 1, m, cnt;
                const int *row = nb + (size_t)(state >> 1) * 2 * NB_STRIDE;
                word &= word - 1;
                if (seen[state] < cost)
                    continue;
                cnt = row[0];
                for (m = 1; m <= cnt; m++) {
                    int move = row[m], j = move >> 3, mult = changed ? MULT[kind[j]] : move & 3, d, nxt, cc;
                    if (!mult)
                        continue;
                    d = (move & dmask) >> 2;
                    nxt = 2 * j + (parity ^ d);
                    cc = cost + (mult << (parity & d));
                    if (cc > budget || seen[nxt] <= cc)
                        continue;
                    seen[nxt] = cc;
                    if (cc < cost_of[j]) {
                        if (cost_of[j] == BIG)
                            order[n_order++] = j;
                        cost_of[j] = cc;
                    }
                    if (cc < budget)
                        bits[(size_t)cc * words + nxt / 64] |= 1ULL << (nxt % 64);
                }
            }
        }
    }
    if (bits != bits_stack)
        PyMem_Free(bits);
    if (seen != seen_stack)
        PyMem_Free(seen);
    return n_order;
}

/* ---- decisions ------------------------------------------------------------------------------------------ */
static int append(PyObject *out, PyObject *d) { return PyList_Append(out, d); }

/* The interned Decision of an action at a target / with an option (memo[action][k]), borrowed. */
static PyObject *memo_decision(PyObject **memo, PyObject *name, PyObject *fn, long k) {
    PyObject *lst = *memo, *d;
    if (!lst && !(lst = *memo = PyList_New(0)))
        return NULL;
    while (PyList_GET_SIZE(lst) <= k)
        if (PyList_Append(lst, Py_None) < 0)
            return NULL;
    d = PyList_GET_ITEM(lst, k);
    if (d == Py_None) {
        d = PyObject_CallFunction(fn, "Ol", name, k);
        if (!d)
            return NULL;
        PyList_SET_ITEM(lst, k, d); /* steals d; the list's reference to the None it replaces is dropped */
        Py_DECREF(Py_None);
    }
    return d;
}

static int add_target(Ctx *c, int act, long id) {
    PyObject *d = memo_decision(&TCACHE[act], T_STR[act], TARGET_FN, id);
    return d ? append(c->out, d) : -1;
}

static int add_option(Ctx *c, int act, long k) {
    PyObject *d = memo_decision(&OCACHE[act], O_STR[act], OPTION_FN, k);
    return d ? append(c->out, d) : -1;
}

/* _square_decisions(g)[action][i] */
static int add_square(Ctx *c, int act, int i) {
    PyObject *lst = c->qlist[act];
    if (!lst) {
        if (!c->decs && !(c->decs = PyObject_CallOneArg(SQUARES_FN, c->g)))
            return -1;
        if (!(lst = c->qlist[act] = PyObject_GetItem(c->decs, Q_STR[act])))
            return -1;
        if (!PyList_Check(lst) || PyList_GET_SIZE(lst) < c->size)
            return FALLBACK;
    }
    return append(c->out, PyList_GET_ITEM(lst, i));
}

static int add_const(Ctx *c, int k) { return append(c->out, CONST[k]); }

/* ---- the map now -------------------------------------------------------------------------------------------- */
/* What never changes on g's map, kept with its shared geometry as geometry.saga_legal_map (bytes), made on first
 * use: per square two rows of its moves out, in DIRECTIONS order, into the map and no diagonal cutting a wall's
 * corner (the number of moves, then each as square << 3 | diagonal << 2 | cost multiplier of the terrain): every
 * such move, then those into squares the terrain lets one enter (with no door open and nothing broken); then
 * per square its terrain code. */
static int static_map(Ctx *c, PyObject **out) {
    PyObject *geo = PyObject_GetAttr(c->g, S__geometry), *d = NULL, *terr = NULL, *got, *bytes;
    size_t table = (size_t)c->size * 2 * NB_STRIDE * sizeof(int);
    int rc = 0, i, k;
    unsigned char *codes;
    int *nb;
    if (!geo)
        return -1;
    if (!(d = PyObject_GetAttr(geo, S_memo)))
        goto error;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "a map's geometry memo must be a dict");
        goto error;
    }
    got = PyDict_GetItemWithError(d, S_saga_legal_map);
    if (got) {
        if (!PyBytes_Check(got) || (size_t)PyBytes_GET_SIZE(got) != table + c->size) {
            rc = FALLBACK;
            goto done;
        }
        *out = Py_NewRef(got);
        goto done;
    }
    if (PyErr_Occurred() || !(terr = PyObject_GetAttr(c->g, S_terrain)))
        goto error;
    if (!PyList_Check(terr) || PyList_GET_SIZE(terr) != c->size) {
        rc = FALLBACK;
        goto done;
    }
    if (!(bytes = PyBytes_FromStringAndSize(NULL, table + c->size)))
        goto error;
    nb = (int *)PyBytes_AS_STRING(bytes);
    codes = (unsigned char *)PyBytes_AS_STRING(bytes) + table;
    for (i = 0; i < c->size; i++) {
        PyObject *t = PyList_GET_ITEM(terr, i);
        for (k = 0; k < K_OPEN_DOOR; k++) /* the terrain list holds no open doors (those are "door") */
            if (str_is(t, KIND_NAMES[k]))
                break;
        if (k == K_OPEN_DOOR) {
            Py_DECREF(bytes);
            rc = FALLBACK;
            goto done;
        }
        codes[i] = (unsigned char)k;
    }
    for (i = 0; i < c->size; i++) {
        int x = i % c->w, y = i / c->w, *all = nb + (size_t)i * 2 * NB_STRIDE, *open = all + NB_STRIDE;
        all[0] = open[0] = 0;
        for (k = 0; k < 8; k++) {
            int nx = x + DX[k], ny = y + DY[k], diag = DX[k] && DY[k], j, move;
            if (nx < 0 || nx >= c->w || ny < 0 || ny >= c->h)
                continue;
            if (diag && (codes[y * c->w + nx] == K_WALL || codes[ny * c->w + x] == K_WALL))
                continue;
            j = ny * c->w + nx;
            move = j << 3 | diag << 2 | MULT[codes[j]];
            all[1 + all[0]++] = move;
            if (MULT[codes[j]])
                open[1 + open[0]++] = move;
        }
    }
    if (PyDict_SetItem(d, S_saga_legal_map, bytes) < 0) {
        Py_DECREF(bytes);
        goto error;
    }
    *out = bytes;
    goto done;
error:
    rc = -1;
done:
    Py_XDECREF(terr);
    if (!rc && d)
        c->geo_dict = d; /* (owned) */
    else
        Py_XDECREF(d);
    Py_DECREF(geo);
    return rc;
}

/* The sight memo of the map's lines as the doors and broken objects stand (shared with _observe.c, which says
 * how it is kept): geometry.memo["saga_sight"][line codes] for the line codes of every square now (the bytes
 * of Grid.line_codes; with no door open and nothing broken the ones of the terrain, kept as
 * geometry.memo["saga_legal_codes"]): _sight.h's sight_memo. */
static int sight_table(Ctx *c) {
    PyObject *key = NULL, *got;
    int rc = -1, i;
    if (c->size > SIGHT_SQUARES || !c->geo_dict)
        return 0;
    if (!c->changed) {
        key = PyDict_GetItemWithError(c->geo_dict, S_saga_legal_codes);
        if (key) {
            Py_INCREF(key);
        } else {
            if (PyErr_Occurred())
                return -1;
            if (!(key = PyBytes_FromStringAndSize(NULL, c->size)))
                return -1;
            for (i = 0; i < c->size; i++)
                PyBytes_AS_STRING(key)[i] = (char)LINE_CODE[c->terrain[i]];
            if (PyDict_SetItem(c->geo_dict, S_saga_legal_codes, key) < 0)
                goto done;
        }
        if (!PyBytes_CheckExact(key) || PyBytes_GET_SIZE(key) != c->size) {
            rc = 0;
            goto done;
        }
    } else {
        if (!(key = PyBytes_FromStringAndSize(NULL, c->size)))
            return -1;
        for (i = 0; i < c->size; i++)
            PyBytes_AS_STRING(key)[i] = (char)LINE_CODE[c->kind[i]];
    }
    if (sight_memo(c->geo_dict, S_saga_sight, key, c->size, &got) < 0)
        goto done;
    if (got) {
        c->sight_obj = got;
        c->sight_tab = (unsigned char *)PyByteArray_AS_STRING(got);
    }
    rc = 0;
done:
    Py_XDECREF(key);
    return rc;
}

/* Grid.kind for every square: broken objects are floor, open doors open (from the grid's two sets) */
static int patch_kinds(Ctx *c, PyObject *set, int broken) {
    PyObject *it, *v;
    int rc = 0;
    if (!PySet_Check(set))
        return FALLBACK;
    if (!PySet_GET_SIZE(set))
        return 0;
    if (!(it = PyObject_GetIter(set)))
        return -1;
    while ((v = PyIter_Next(it))) {
        long i;
        rc = as_long(v, &i);
        Py_DECREF(v);
        if (rc)
            break;
        if (0 <= i && i < c->size) {
            if (broken)
                c->kind[i] = K_FLOOR;
            else if (c->terrain[i] == K_DOOR && c->kind[i] == K_DOOR)
                c->kind[i] = K_OPEN_DOOR;
            c->changed |= c->kind[i] != c->terrain[i];
        }
    }
    Py_DECREF(it);
    if (!rc && PyErr_Occurred())
        rc = -1;
    return rc;
}

/* the map's size and distance metric; scratch for the squares' kinds, occupants, enemy and ally squares */
static int read_size(Ctx *c) {
    long w, h;
    PyObject *metric;
    int rc;
    if ((rc = attr_long(c->g, S_width, &w)) || (rc = attr_long(c->g, S_height, &h)))
        return rc;
    if (w <= 0 || h <= 0 || w * h > (1L << 24))
        return FALLBACK;
    c->w = (int)w;
    c->h = (int)h;
    c->size = (int)(w * h);
    if (!(metric = PyObject_GetAttr(c->g, S_metric)))
        return -1;
    c->metric = PyObject_RichCompareBool(metric, S_alternating, Py_EQ) == 1 ? M_ALTERNATING
                : PyObject_RichCompareBool(metric, S_chebyshev, Py_EQ) == 1 ? M_CHEBYSHEV : M_MANHATTAN;
    Py_DECREF(metric);
    if (PyErr_Occurred())
        return -1;
    c->occ = scratch(c, (size_t)c->size * (sizeof(int) + 3));
    if (!c->occ) {
        PyErr_NoMemory();
        return -1;
    }
    c->kind = (unsigned char *)(c->occ + c->size);
    c->enemy_sq = c->kind + c->size;
    c->ally_sq = c->enemy_sq + c->size;
    memset(c->enemy_sq, 0, 2 * (size_t)c->size);
    return 0;
}

static int read_map(Ctx *c) {
    PyObject *ob = NULL, *br = NULL;
    int rc = 0;
    TRY(read_size(c));
    TRY(static_map(c, &c->map));
    c->nb = (const int *)PyBytes_AS_STRING(c->map);
    c->terrain = (const unsigned char *)(c->nb + (size_t)c->size * 2 * NB_STRIDE);
    memcpy(c->kind, c->terrain, c->size);
    if (!(ob = PyObject_GetAttr(c->g, S_open_doors)) || !(br = PyObject_GetAttr(c->g, S_broken))) {
        rc = -1;
        goto done;
    }
    TRY(patch_kinds(c, ob, 0));
    TRY(patch_kinds(c, br, 1));
    TRY(sight_table(c));
done:
    Py_XDECREF(ob);
    Py_XDECREF(br);
    return rc;
}

static int read_pos(PyObject *u, int *x, int *y) {
    PyObject *pos = uget(u, U_POS);
    long px, py;
    int rc = 0;
    if (!pos)
        return -1;
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 2)
        rc = FALLBACK;
    else if (!(rc = as_long(PyTuple_GET_ITEM(pos, 0), &px)) && !(rc = as_long(PyTuple_GET_ITEM(pos, 1), &py))) {
        if (px < -BIG || px > BIG || py < -BIG || py > BIG)
            rc = FALLBACK;
        *x = (int)px;
        *y = (int)py;
    }
    Py_DECREF(pos);
    return rc;
}

/* every unit: id (its place in the list), position, side, down; the occupied squares */
static int read_units(Ctx *c) {
    Py_ssize_t k;
    int rc;
    if (!PyList_Check(c->units))
        return FALLBACK;
    c->n = (int)PyList_GET_SIZE(c->units);
    c->recs = scratch(c, (c->n ? c->n : 1) * sizeof(Rec));
    if (!c->recs) {
        PyErr_NoMemory();
        return -1;
    }
    memset(c->recs, 0, (c->n ? c->n : 1) * sizeof(Rec));
    memset(c->occ, 0xff, (size_t)c->size * sizeof(int)); /* -1 */
    for (k = 0; k < c->n; k++) {
        Rec *r = &c->recs[k];
        int eq;
        r->u = PyList_GET_ITEM(c->units, k);
        if ((rc = uget_long(r->u, U_ID, &r->id)))
            return rc;
        if (r->id != k) /* units[who] for the id of an occupant: ids are places in the list */
            return FALLBACK;
        if ((rc = read_pos(r->u, &r->x, &r->y)) || (rc = uget_true(r->u, U_DOWN, &r->down)))
            return rc;
        if (!(r->side = uget(r->u, U_SIDE)) || !(r->state = uget(r->u, U_STATE))
            || !(r->stats = uget(r->u, U_STATS)))
            return -1;
        if ((eq = PyObject_RichCompareBool(r->side, c->a_side, Py_EQ)) < 0)
            return -1;
        r->same = eq;
        r->sq = (0 <= r->x && r->x < c->w && 0 <= r->y && r->y < c->h) ? r->y * c->w + r->x : -1;
        if (!r->down) {
            if (r->sq < 0) /* an active unit off the map */
                return FALLBACK;
            c->occ[r->sq] = (int)r->id;
            if (!r->same)
                c->enemy_sq[r->sq] = 1;
            else if (r->u != c->a)
                c->ally_sq[r->sq] = 1;
        }
    }
    return 0;
}

/* Whether e takes an attack of opportunity at squares it threatens (SagaRuleset.threatens, not aoo_used) */
static int threatens(const Rec *e, int *out) {
    long ct;
    int no_attacks, aoo, rc;
    PyObject *pinned;
    Arms A;
    *out = 0;
    if (e->down)
        return 0;
    if ((rc = item_long(e->state, S_ct, &ct)))
        return rc;
    if (ct >= 5)
        return 0;
    if ((rc = item_true(e->state, S_no_attacks, &no_attacks)))
        return rc;
    if (no_attacks)
        return 0;
    if ((rc = item(e->state, S_pinned_by, &pinned)))
        return rc;
    if (pinned != Py_None)
        return 0;
    if ((rc = read_arms(e->state, e->stats, &A, 0)))
        return rc;
    if (first_of(&A, 0) < 0)
        return 0;
    if ((rc = item_true(e->state, S_aoo_used, &aoo)))
        return rc;
    *out = !aoo;
    return 0;
}

/* SagaRuleset._threats(enc, a) at square i is not empty. The enemies' reaches (reach[k], -1 until read) and
 * whether they threaten (threat[k], -1 until known) are read as squares near them are asked about. */
static int threatened(const Ctx *c, int *threat, long *reach, int i, int *out) {
    int x = i % c->w, y = i / c->w, k, rc;
    *out = 0;
    for (k = 0; k < c->n; k++) {
        const Rec *e = &c->recs[k];
        if (e->same || e->down || threat[k] == 0 || (x == e->x && y == e->y))
            continue;
        if (reach[k] < 0 && (rc = item_long(e->stats, S_reach, &reach[k])))
            return rc;
        if (dist(c, e->x, e->y, x, y) > reach[k])
            continue;
        if (threat[k] < 0 && (rc = threatens(e, &threat[k])))
            return rc;
        if (threat[k]) {
            *out = 1;
            return 0;
        }
    }
    return 0;
}

/* grid.Grid.path_cost(start, SagaRuleset._line_path(g, start, end)), sqs = _line_squares(g, start, end): the
 * line's squares in the order met walking from start, end last; -1 when a diagonal step of that walk cuts a
 * wall's corner (SagaRuleset._corner_cut, movement's rule) */
static int line_path_cost(const Ctx *c, int start, const int *sqs, int len) {
    int w = c->w, cur = start, k = 0, cost = 0, parity = 0, px = start % w, py = start / w;
    int end = sqs[len - 1];
    while (cur != end) {
        int j = k, cx = cur % w, cy = cur / w, x, y;
        while (j + 1 < len && abs(sqs[j + 1] % w - cx) <= 1 && abs(sqs[j + 1] / w - cy) <= 1)
            j++;
        cur = sqs[j];
        k = j + 1;
        x = cur % w;
        y = cur / w;
        if (x != px && y != py && (c->kind[py * w + x] == K_WALL || c->kind[y * w + px] == K_WALL))
            return -1;
        {
            int step = 1;
            if (x != px && y != py && c->metric == M_ALTERNATING) {
                step = parity ? 2 : 1;
                parity ^= 1;
            }
            cost += step * ENTER[c->kind[cur]];
        }
        px = x;
        py = y;
    }
    return cost;
}

/* SagaRuleset._charge_in_range: 0 only when no charge from the actor can end within reach of t. A walk costs
 * at least the distance to its end (the larger offset under manhattan, whose diagonal steps cost 1); the
 * alternating distance of a sum of two offsets is at most 1 over the sum of their distances. */
static int charge_in_range(const Ctx *c, const Rec *t, int speed, int reach) {
    int dx = abs(c->ax - t->x), dy = abs(c->ay - t->y), hi = dx > dy ? dx : dy, lo = dx > dy ? dy : dx;
    if (c->metric == M_ALTERNATING)
        return hi + lo / 2 <= speed + reach + 1;
    return hi <= speed + reach;
}

/* SagaRuleset._can_charge: some square within reach of t, nearer to t than the actor, ends a legal straight charge */
static int can_charge(const Ctx *c, const Rec *t, int speed, int reach, int *buf, int *ends) {
    int n_ends = within(c, t->x, t->y, reach, ends), e, k, start = dist(c, c->ax, c->ay, t->x, t->y);
    for (e = 0; e < n_ends; e++) {
        int end = ends[e], n, ok = 1, cost;
        if (c->occ[end] >= 0 || dist(c, c->ax, c->ay, end % c->w, end / c->w) < 2 || c->kind[end] == K_LOW
            || !PASSABLE[c->kind[end]] /* (the end is one of the line's squares checked below) */
            || dist(c, end % c->w, end / c->w, t->x, t->y) >= start) /* a charge moves toward its target */
            continue;
        n = line(c, c->here, end, buf);
        if (c->here > end) /* line() runs from the lower index: walk it from the charger (_line_squares) */
            for (k = 0; k < n / 2; k++) {
                int sq = buf[k];
                buf[k] = buf[n - 1 - k];
                buf[n - 1 - k] = sq;
            }
        buf[n++] = end;
        for (k = 0; k < n; k++)
            if (c->kind[buf[k]] == K_LOW || !PASSABLE[c->kind[buf[k]]]) {
                ok = 0;
                break;
            }
        if (!ok)
            continue;
        cost = line_path_cost(c, c->here, buf, n);
        if (cost < 0 || cost > speed) /* a wall's corner cut, or over speed */
            continue;
        for (k = 0; k < n; k++) {
            int who = c->occ[buf[k]];
            if (who >= 0 && !c->recs[who].same)
                break;
        }
        if (k < n) /* an enemy in the way */
            continue;
        if (reach > 1) {
            int los, loe;
            sight(c, end, t->sq, buf, &los, &loe);
            if (!loe)
                continue;
        }
        return 1;
    }
    return 0;
}

/* the withdraw decisions: SagaRuleset._withdraw_squares, one search of half speed seeded with the first squares
 * (_withdraw_firsts, in Grid.within order, Grid.seeds_after) in the order it reaches them, allies' squares and
 * the actor's own left out */
static int add_withdraws(Ctx *c, int speed, int *threat, long *treach, int *order) {
    int half = (int)floordiv2(speed), ends[9], seeds[18], n_seeds = 0, n_ends, e, n, k, rc;
    n_ends = within(c, c->ax, c->ay, 1, ends);
    for (e = 0; e < n_ends; e++) {
        int i = ends[e], x = i % c->w, y = i / c->w, cost = ENTER[c->kind[i]], diagonal = x != c->ax && y != c->ay;
        int near;
        if (c->enemy_sq[i] || !PASSABLE[c->kind[i]] || cost > half)
            continue;
        if ((rc = threatened(c, threat, treach, i, &near)))
            return rc;
        if (near)
            continue;
        if (diagonal && (c->kind[c->ay * c->w + x] == K_WALL || c->kind[y * c->w + c->ax] == K_WALL))
            continue;
        seeds[2 * n_seeds] = 2 * i + (diagonal && c->metric == M_ALTERNATING);
        seeds[2 * n_seeds++ + 1] = cost;
    }
    if (!n_seeds)
        return 0;
    if ((n = search(c, seeds, n_seeds, half, order)) < 0)
        return -1;
    for (k = 0; k < n; k++) /* allies by id here (_ally_squares): the same, as the actor is units[a.id] */
        if (order[k] != c->here && !c->ally_sq[order[k]] && (rc = add_square(c, Q_WITHDRAW, order[k])))
            return rc;
    return 0;
}

/* combat.size_steps(a, b) through SIZE_ORDER.index */
static int size_index(PyObject *stats, Py_ssize_t *out) {
    PyObject *size;
    int rc = item(stats, S_size, &size);
    if (rc)
        return rc;
    *out = PySequence_Index(SIZE_ORDER, size);
    if (*out < 0) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
        return FALLBACK;
    }
    return 0;
}

/* "feat" in stats[key] (a list) */
static int has(PyObject *stats, PyObject *key, PyObject *what, int *out) {
    PyObject *lst;
    int rc = item(stats, key, &lst);
    if (rc)
        return rc;
    if (!PyList_Check(lst))
        return FALLBACK;
    *out = PySequence_Contains(lst, what);
    return *out < 0 ? -1 : 0;
}

/* the upper bounds of RANGES[weapons[n]["group"]]: the last one and the largest */
static int weapon_range(const Arms *A, int n, long *last, long *top) {
    PyObject *group, *bands;
    Py_ssize_t k, len;
    int rc;
    if ((rc = item(PyList_GET_ITEM(A->weapons, n), S_group, &group)) || (rc = item(RANGES, group, &bands)))
        return rc;
    if (!PyTuple_Check(bands) || (len = PyTuple_GET_SIZE(bands)) == 0)
        return FALLBACK;
    for (k = 0; k < len; k++) {
        long v;
        if ((rc = as_long(PyTuple_GET_ITEM(bands, k), &v)))
            return rc;
        if (k == 0 || v > *top)
            *top = v;
        *last = v;
    }
    return 0;
}

/* ---- legal_actions_py, section by section ------------------------------------------------------------------ */
#define ONLY_END 2 /* read_actor: the actor can do nothing but end its turn */

/* The actor, its budget and the map: what every section reads. */
static int read_actor(Ctx *c) {
    PyObject *v, *flags = NULL, *budget = NULL;
    int rc = 0, t;
    long sp;
    /* enc.flags.get("charged") or not can_act */
    if (!(flags = PyObject_GetAttr(c->enc, S_flags)))
        goto error;
    if (!PyDict_Check(flags))
        TRY(FALLBACK);
    if (!(v = PyDict_GetItemWithError(flags, S_charged)) && PyErr_Occurred())
        goto error;
    if (v && (t = PyObject_IsTrue(v)) != 0) {
        rc = t < 0 ? -1 : ONLY_END;
        goto done;
    }
    TRY(uget_true(c->a, U_DOWN, &t));
    if (t)
        TRY(ONLY_END);
    if (!(c->a_state = uget(c->a, U_STATE)))
        goto error;
    TRY(item_long(c->a_state, S_ct, &c->ct));
    if (c->ct >= 5) /* combat.CT_HELPLESS */
        TRY(ONLY_END);

    /* the budget as SagaRuleset.economy pays: a move action by move or standard, a swift one by any, a full-round
     * action with all three counters (1 each) untouched */
    if (!(budget = PyObject_GetAttr(c->enc, S_budget)))
        goto error;
    if (!PyDict_Check(budget))
        TRY(FALLBACK);
    TRY(item_long(budget, S_standard, &c->standard));
    TRY(budget_get(budget, S_move, &c->move));
    TRY(budget_get(budget, S_swift, &c->swift));
    c->std = c->standard > 0;
    c->mv = c->move >= 1 || c->standard >= 1;
    c->sw = c->swift >= 1 || c->move >= 1 || c->standard >= 1;
    c->full = c->standard >= 1 && c->move >= 1 && c->swift >= 1;

    TRY(item(c->a_state, S_pinned_by, &v));
    c->held = v != Py_None;
    if (!(c->a_stats = uget(c->a, U_STATS)))
        goto error;
    TRY(item_long(c->a_stats, S_speed, &sp));
    if (sp < -BIG || sp > BIG)
        TRY(FALLBACK);
    c->speed = (int)(c->ct >= 4 ? floordiv2(sp) : sp); /* combat.speed */
    TRY(item_true(c->a_state, S_prone, &c->prone));
    TRY(item_true(c->a_state, S_grabbed_by, &c->grabbed));
    c->can_walk = !c->prone && !c->grabbed && !c->held && c->speed > 0;

    if (!(c->a_side = uget(c->a, U_SIDE)) || !(c->units = PyObject_GetAttr(c->enc, S_units))
        || !(c->g = PyObject_GetAttr(c->enc, S_grid)))
        goto error;
    TRY(read_map(c));
    TRY(read_units(c));
    if (!(c->a_id = uget(c->a, U_ID)))
        goto error;
    {
        long id;
        TRY(as_long(c->a_id, &id));
        if (id < 0 || id >= c->n || c->recs[id].u != c->a) /* the actor is units[a.id] */
            TRY(FALLBACK);
        c->ax = c->recs[id].x;
        c->ay = c->recs[id].y;
        c->here = c->recs[id].sq;
    }
    TRY(read_arms(c->a_state, c->a_stats, &c->A, 1));
    c->melee_w = first_of(&c->A, 0);
    c->ranged_w = first_of(&c->A, 1);
    TRY(item_true(c->a_state, S_no_attacks, &t));
    c->may_attack = !t && !c->held;
    TRY(item_long(c->a_stats, S_reach, &c->a_reach));
    if (c->a_reach < 0 || c->a_reach > 64)
        TRY(FALLBACK);
    if (c->ranged_w >= 0)
        TRY(weapon_range(&c->A, c->ranged_w, &c->long_last, &c->long_top));

    { /* scratch: a line's squares (and an end), squares within the actor's reach (twice: one list is the object
       * squares), a search's squares, the enemies' threats and reaches */
        size_t line_cap = 4 * ((size_t)c->w + c->h) + 16, area = (2 * c->a_reach + 1) * (2 * c->a_reach + 1) + 16;
        c->buf = scratch(c, (line_cap + 2 * area + c->size + c->n + 1) * sizeof(int));
        c->treach = scratch(c, (c->n + 1) * sizeof(long));
        if (!c->buf || !c->treach) {
            PyErr_NoMemory();
            goto error;
        }
        c->ends = c->buf + line_cap;
        c->objs = c->ends + area;
        c->order = c->objs + area;
        c->threat = c->order + c->size;
    }
    goto done;
error:
    rc = -1;
done:
    Py_XDECREF(flags);
    Py_XDECREF(budget);
    return rc;
}

/* sight and effect from the actor to e */
static void shot(Ctx *c, const Rec *e, int *los, int *loe) {
    sight(c, c->here, e->sq, c->buf, los, loe);
}

/* whether no active unit stands between the actor and e */
static int clear_shot(Ctx *c, const Rec *e) {
    int n = line(c, c->here, e->sq, c->buf), j;
    for (j = 0; j < n; j++)
        if (c->occ[c->buf[j]] >= 0)
            return 0;
    return 1;
}

/* move (the squares of Grid.reachable but allies' and its own, in its order), then withdraw when threatened */
static int add_moves(Ctx *c) {
    int seed[2] = {2 * c->here, 0}, n = search(c, seed, 1, c->speed, c->order), k, rc, threatened_here;
    if (n < 0)
        return -1;
    for (k = 0; k < n; k++)
        if (c->order[k] != c->here && !c->ally_sq[c->order[k]] && (rc = add_square(c, Q_MOVE, c->order[k])))
            return rc;
    for (k = 0; k < c->n; k++)
        c->threat[k] = c->treach[k] = -1;
    if ((rc = threatened(c, c->threat, c->treach, c->here, &threatened_here)))
        return rc;
    return threatened_here ? add_withdraws(c, c->speed, c->threat, c->treach, c->order) : 0;
}

/* run: along each of the 8 directions (_run_rays) up to the run limit, through allies, stopped by enemies */
static int add_runs(Ctx *c) {
    int heavy, d, rc;
    long limit;
    if ((rc = item_true(c->a_stats, S_heavy_armor, &heavy)))
        return rc;
    limit = (long)c->speed * (heavy ? 3 : 4); /* _run_limit */
    for (d = 0; d < 8; d++) {
        int x = c->ax, y = c->ay, cost = 0, parity = 0, dx = DX[d], dy = DY[d];
        while (1) {
            int nx = x + dx, ny = y + dy, i, who;
            if (nx < 0 || nx >= c->w || ny < 0 || ny >= c->h)
                break;
            i = ny * c->w + nx;
            if (!PASSABLE[c->kind[i]])
                break;
            if (dx && dy) {
                if (c->kind[y * c->w + nx] == K_WALL || c->kind[ny * c->w + x] == K_WALL)
                    break;
                cost += (parity ? 2 : 1) * ENTER[c->kind[i]];
                parity ^= 1;
            } else
                cost += ENTER[c->kind[i]];
            if (cost > limit)
                break;
            who = c->occ[i];
            if (who < 0) {
                if ((rc = add_square(c, Q_RUN, i)))
                    return rc;
            } else if (!c->recs[who].same)
                break;
            x = nx;
            y = ny;
        }
    }
    return 0;
}

/* _attack_count(a) >= 2: usable weapons, and two carried or natural ones, a double weapon or Double Attack */
static int two_attacks(Ctx *c, int *out) {
    const Arms *A = &c->A;
    int ws[2 * MAXW], n_ws = 0, carried = 0, natural = 0, k;
    *out = 0;
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]))
            ws[n_ws++] = (int)A->hands[k];
    for (k = 0; k < A->n_w; k++)
        if (A->natural[k] && !contains(A->lost, A->n_lost, k))
            ws[n_ws++] = k;
    if (!n_ws)
        return 0;
    for (k = 0; k < n_ws; k++) {
        if (A->natural[ws[k]])
            natural++;
        else
            carried++;
    }
    if (carried >= 2 || A->dbl[ws[0]] || natural >= 2) {
        *out = 1;
        return 0;
    }
    return has(c->a_stats, S_feats, S_double_attack, out);
}

/* the attacks at each enemy, then the objects a can attack (_object_squares) */
static int add_attacks(Ctx *c) {
    int two_w = 0, can_grab, pin, trip, ranged_disarm, charge, n_objs = 0, k, rc = 0;
    Py_ssize_t a_size = -1;
    PyObject *v;
    if (c->full)
        TRY(two_attacks(c, &two_w));
    TRY(item(c->a_state, S_grabbing, &v));
    can_grab = v == Py_None;
    for (k = 0; can_grab && k < c->n; k++) { /* not _pinning */
        int eq;
        TRY(item(c->recs[k].state, S_pinned_by, &v));
        if ((eq = PyObject_RichCompareBool(v, c->a_id, Py_EQ)) < 0)
            return -1;
        can_grab = !eq;
    }
    TRY(has(c->a_stats, S_feats, S_pin, &pin));
    TRY(has(c->a_stats, S_feats, S_trip, &trip));
    TRY(has(c->a_stats, S_feats, S_ranged_disarm, &ranged_disarm));
    charge = c->melee_w >= 0 && c->can_walk;
    for (k = 0; k < c->n; k++) {
        const Rec *e = &c->recs[k];
        int dst, los, loe, m_ok, r_ok;
        if (e->down || e->same)
            continue;
        dst = dist(c, c->ax, c->ay, e->x, e->y);
        shot(c, e, &los, &loe);
        m_ok = c->melee_w >= 0 && dst <= c->a_reach && (dst <= 1 || loe);
        r_ok = c->ranged_w >= 0 && los && loe && dst <= c->long_last && clear_shot(c, e);
        if (m_ok)
            TRY(add_target(c, T_MELEE, e->id));
        if (r_ok)
            TRY(add_target(c, T_RANGED, e->id));
        if (m_ok || r_ok) {
            Arms E;
            TRY(add_target(c, T_AID, e->id));
            TRY(add_target(c, T_SUPPRESS, e->id));
            TRY(read_hands(e->state, &E));
            if (holding(&E)) {
                TRY(add_target(c, T_HELD, e->id));
                if (m_ok || ranged_disarm)
                    TRY(add_target(c, T_DISARM, e->id));
            }
            if (two_w)
                TRY(add_target(c, T_FULL, e->id));
        }
        if (charge && charge_in_range(c, e, c->speed, (int)c->a_reach)
            && can_charge(c, e, c->speed, (int)c->a_reach, c->buf, c->ends))
            TRY(add_target(c, T_CHARGE, e->id));
        if (can_grab && dst <= 1) {
            Py_ssize_t e_size;
            if (a_size < 0)
                TRY(size_index(c->a_stats, &a_size));
            TRY(size_index(e->stats, &e_size));
            if (e_size - a_size <= 1) { /* combat.size_steps */
                TRY(add_target(c, T_GRAB, e->id));
                if (pin || trip)
                    TRY(add_target(c, T_GRAPPLE, e->id));
            }
        }
    }
    /* closed doors and low objects in melee reach, then closed doors in range and sight */
    if (c->melee_w >= 0) {
        int n = within(c, c->ax, c->ay, (int)c->a_reach, c->ends);
        for (k = 0; k < n; k++)
            if (c->kind[c->ends[k]] == K_DOOR || c->kind[c->ends[k]] == K_LOW)
                TRY(add_square(c, Q_OBJECT, c->objs[n_objs++] = c->ends[k]));
    }
    if (c->ranged_w >= 0)
        for (k = 0; k < c->size; k++) { /* _doors(g): the map's door squares in order */
            int j, los, loe;
            if (c->terrain[k] != K_DOOR || c->kind[k] != K_DOOR)
                continue;
            for (j = 0; j < n_objs && c->objs[j] != k; j++)
                ;
            if (j < n_objs || dist(c, c->ax, c->ay, k % c->w, k / c->w) > c->long_top)
                continue;
            sight(c, c->here, k, c->buf, &los, &loe);
            if (los)
                TRY(add_square(c, Q_OBJECT, k));
        }
done:
    return rc;
}

/* coup de grace at downed enemies still alive (_cdg_ok) */
static int add_coups_de_grace(Ctx *c) {
    int k, rc = 0;
    for (k = 0; k < c->n; k++) {
        const Rec *u = &c->recs[k];
        int dead, dst, ok = 0;
        if (u->same || !u->down)
            continue;
        TRY(uget_true(u->u, U_DEAD, &dead));
        if (dead)
            continue;
        if (u->sq < 0)
            TRY(FALLBACK);
        dst = dist(c, c->ax, c->ay, u->x, u->y);
        if (c->melee_w >= 0 && dst <= c->a_reach) { /* _in_reach */
            int los, loe = 1;
            if (dst > 1)
                sight(c, c->here, u->sq, c->buf, &los, &loe);
            ok = loe;
        }
        if (!ok && c->ranged_w >= 0 && dst <= 1)
            ok = 1;
        if (ok)
            TRY(add_target(c, T_CDG, u->id));
    }
done:
    return rc;
}

static int add_defenses(Ctx *c) {
    int rc = 0;
    TRY(add_const(c, C_FIGHT_DEFENSIVELY));
    TRY(add_const(c, C_TOTAL_DEFENSE));
    if (c->grabbed || c->held)
        TRY(add_const(c, C_BREAK_GRAB));
done:
    return rc;
}

/* draw (_drawable) and holster (_holsterable): a swift action with Quick Draw, else a move action */
static int add_draws(Ctx *c) {
    const Arms *A = &c->A;
    int quick, k, rc = 0;
    long used = 0;
    TRY(has(c->a_stats, S_feats, S_quick_draw, &quick));
    if (!(quick ? c->sw : c->mv))
        return 0;
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]))
            used += A->n_hands_of[A->hands[k]];
    for (k = 0; k < A->n_w; k++)
        if (!A->natural[k] && !contains(A->hands, A->n_hands, k) && !contains(A->lost, A->n_lost, k)
            && used + A->n_hands_of[k] <= 2)
            TRY(add_option(c, O_DRAW, k));
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]))
            TRY(add_option(c, O_HOLSTER, A->hands[k]));
done:
    return rc;
}

/* whether enc.extra["objects"][str(i)]["disabled"] (a jammed door) */
static int jammed(PyObject *objects, int i, int *out) {
    char text[24];
    PyObject *key = PyUnicode_FromStringAndSize(text, put_int(text, i) - text), *st, *v;
    *out = 0;
    if (!key)
        return -1;
    st = PyDict_GetItemWithError(objects, key);
    Py_DECREF(key);
    if (!st)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyDict_Check(st))
        return FALLBACK;
    if (!(v = PyDict_GetItemWithError(st, S_disabled)))
        return PyErr_Occurred() ? -1 : 0;
    *out = PyObject_IsTrue(v);
    return *out < 0 ? -1 : 0;
}

/* manipulate (_manipulable: doors next to the actor, free and not jammed; its own weapon on the ground under
 * it), then stand up */
static int add_manipulate(Ctx *c) {
    int n = within(c, c->ax, c->ay, 1, c->ends), j, rc = 0;
    PyObject *objects = NULL, *ground, *here_list, *v;
    if (!(c->extra = PyObject_GetAttr(c->enc, S_extra)))
        return -1;
    if (!PyDict_Check(c->extra))
        return FALLBACK;
    for (j = 0; j < n; j++) {
        int i = c->ends[j], stuck = 0;
        if (c->terrain[i] != K_DOOR || c->kind[i] == K_FLOOR || c->occ[i] >= 0) /* (a broken door is floor) */
            continue;
        if (!objects) { /* enc.extra.get("objects", {}) */
            if (!(objects = PyDict_GetItemWithError(c->extra, S_objects)) && PyErr_Occurred())
                return -1;
            if (!objects)
                objects = Py_None;
            else if (!PyDict_Check(objects))
                return FALLBACK;
        }
        if (objects != Py_None)
            TRY(jammed(objects, i, &stuck));
        if (!stuck)
            TRY(add_square(c, Q_MANIPULATE, i));
    }
    if (!(ground = PyDict_GetItemWithError(c->extra, S_ground)) && PyErr_Occurred())
        return -1;
    if (ground && !PyDict_Check(ground))
        return FALLBACK;
    if (ground && PyDict_GET_SIZE(ground)) {
        char text[48], *end = put_int(text, c->ax); /* f"{x},{y}" */
        PyObject *key;
        *end++ = ',';
        end = put_int(end, c->ay);
        if (!(key = PyUnicode_FromStringAndSize(text, end - text)))
            return -1;
        here_list = PyDict_GetItemWithError(ground, key);
        Py_DECREF(key);
        if (!here_list && PyErr_Occurred())
            return -1;
        if (here_list && !PyList_Check(here_list))
            return FALLBACK;
        for (j = 0; here_list && j < PyList_GET_SIZE(here_list); j++) {
            int eq;
            TRY(item(PyList_GET_ITEM(here_list, j), S_owner, &v));
            if ((eq = PyObject_RichCompareBool(v, c->a_id, Py_EQ)) < 0)
                return -1;
            if (eq) {
                TRY(add_square(c, Q_MANIPULATE, c->here));
                break;
            }
        }
    }
    if (c->prone)
        TRY(add_const(c, C_STAND_UP));
done:
    return rc;
}

/* the swift actions */
static int add_swift(Ctx *c) {
    const Arms *A = &c->A;
    int acro, aimed, persistent, k, rc = 0;
    long winds, used, hp, max_hp;
    PyObject *v;
    if (c->prone) {
        TRY(has(c->a_stats, S_trained, S_acrobatics, &acro));
        if (acro)
            TRY(add_const(c, C_STAND_UP_ACROBATICS));
    }
    TRY(item(c->a_stats, S_items, &v));
    if (!PyList_Check(v))
        return FALLBACK;
    for (k = 0; k < PyList_GET_SIZE(v); k++)
        TRY(add_option(c, O_ITEM, k));
    TRY(item_true(c->a_state, S_aimed, &aimed));
    if (!aimed && c->ranged_w >= 0 && c->may_attack) {
        long left[3] = {c->swift, c->move, c->standard}; /* can_pay(b, "swift", times=2) */
        int pays = 0, t, p, any = 0;
        for (t = 0; t < 2; t++)
            for (p = 0; p < 3; p++)
                if (left[p] >= 1) {
                    left[p]--;
                    pays++;
                    break;
                }
        for (k = 0; pays == 2 && k < c->n && !any; k++) { /* a _clear_shot at some enemy */
            const Rec *e = &c->recs[k];
            int los, loe;
            if (e->down || e->same || dist(c, c->ax, c->ay, e->x, e->y) > c->long_top)
                continue;
            shot(c, e, &los, &loe);
            any = los && loe && clear_shot(c, e);
        }
        if (any)
            TRY(add_const(c, C_AIM));
    }
    TRY(item_long(c->a_stats, S_second_winds, &winds));
    if (winds > 0) { /* _wind_problem is None */
        TRY(item_long(c->a_state, S_winds_used, &used));
        if (!(used >= 1 || used >= winds)) {
            TRY(uget_long(c->a, U_HP, &hp));
            TRY(uget_long(c->a, U_MAX_HP, &max_hp));
            if (hp <= floordiv2(max_hp))
                TRY(add_const(c, C_SECOND_WIND));
        }
    }
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]))
            TRY(add_option(c, O_DROP, A->hands[k]));
    if (!c->prone)
        TRY(add_const(c, C_FALL_PRONE));
    if (c->ct > 0) {
        TRY(item_true(c->a_stats, S_persistent, &persistent));
        if (!persistent)
            TRY(add_const(c, C_RECOVER));
    }
    for (k = 0; k < A->n_hands; k++)
        if (!contains(A->lost, A->n_lost, A->hands[k]) && A->n_modes[A->hands[k]] > 1)
            TRY(add_option(c, O_SWITCH, A->hands[k]));
done:
    return rc;
}

/* legal(enc, actor) -> [Decision] | None: SagaRuleset.legal_actions_py, its sections in its order */
/* what a call's context owns, released */
static void clear_ctx(Ctx *c) {
    int k;
    release(c, c->buf);
    release(c, c->treach);
    release(c, c->occ);
    if (c->recs)
        for (k = 0; k < c->n; k++) {
            Py_XDECREF(c->recs[k].side);
            Py_XDECREF(c->recs[k].state);
            Py_XDECREF(c->recs[k].stats);
        }
    release(c, c->recs);
    for (k = 0; k < N_Q; k++)
        Py_XDECREF(c->qlist[k]);
    Py_XDECREF(c->decs);
    Py_XDECREF(c->g);
    Py_XDECREF(c->units);
    Py_XDECREF(c->a_side);
    Py_XDECREF(c->a_stats);
    Py_XDECREF(c->a_state);
    Py_XDECREF(c->a_id);
    Py_XDECREF(c->extra);
    Py_XDECREF(c->map);
    Py_XDECREF(c->sight_obj);
    Py_XDECREF(c->geo_dict);
}

/* move_masks(enc, a): SagaRuleset._enemy_squares and the squares of SagaRuleset._threats for a walk of a */
static PyObject *move_masks(PyObject *self, PyObject *args) {
    PyObject *enc, *a, *blocked = NULL, *flags = NULL, *out = NULL;
    long long arena[ARENA / sizeof(long long)];
    int rc = 0, k, any = 0, *sq = NULL;
    Ctx c;
    if (!PyArg_ParseTuple(args, "OO", &enc, &a))
        return NULL;
    memset(&c, 0, sizeof(c));
    c.arena = (char *)arena;
    c.enc = enc;
    c.a = a;
    if (!(c.a_side = uget(a, U_SIDE)) || !(c.units = PyObject_GetAttr(enc, S_units))
        || !(c.g = PyObject_GetAttr(enc, S_grid))) {
        rc = -1;
        goto done;
    }
    TRY(read_size(&c));
    TRY(read_units(&c));
    if (!(blocked = PyBytes_FromStringAndSize((const char *)c.enemy_sq, c.size))
        || !(flags = PyBytes_FromStringAndSize(NULL, c.size))) {
        rc = -1;
        goto done;
    }
    {
        unsigned char *f = (unsigned char *)PyBytes_AS_STRING(flags);
        memset(f, 0, c.size);
        for (k = 0; k < c.n; k++) {
            const Rec *e = &c.recs[k];
            long reach;
            int t, m, j;
            if (e->same || e->down)
                continue;
            TRY(threatens(e, &t));
            if (!t)
                continue;
            TRY(item_long(e->stats, S_reach, &reach));
            if (reach < 0 || reach > 8)
                TRY(FALLBACK);
            if (!sq && !(sq = scratch(&c, (size_t)17 * 17 * sizeof(int)))) {
                PyErr_NoMemory();
                rc = -1;
                goto done;
            }
            m = within(&c, e->x, e->y, (int)reach, sq);
            for (j = 0; j < m; j++)
                f[sq[j]] = 1;
            any |= m > 0;
        }
    }
    out = Py_BuildValue("OOO", blocked, flags, any ? Py_True : Py_False);
done:
    release(&c, sq);
    clear_ctx(&c);
    Py_XDECREF(blocked);
    Py_XDECREF(flags);
    if (rc > 0) {
        Py_XDECREF(out);
        Py_RETURN_NONE;
    }
    return rc < 0 ? NULL : out;
}

static PyObject *legal(PyObject *self, PyObject *args) {
    PyObject *enc, *a;
    long long arena[ARENA / sizeof(long long)]; /* (aligned) */
    Ctx c;
    int rc;
    if (!PyArg_ParseTuple(args, "OO", &enc, &a))
        return NULL;
    if (!CONST[C_END]) {
        PyErr_SetString(PyExc_RuntimeError, "_legal.setup() was not called");
        return NULL;
    }
    memset(&c, 0, sizeof(c));
    c.arena = (char *)arena;
    c.enc = enc;
    c.a = a;
    if (!(c.out = PyList_New(0)) || append(c.out, CONST[C_END]) < 0)
        rc = -1;
    else
        rc = read_actor(&c);
    if (rc == ONLY_END)
        rc = 0;
    else if (!rc) {
        if (!rc && c.mv && c.can_walk)
            rc = add_moves(&c);
        if (!rc && c.full && c.can_walk)
            rc = add_runs(&c);
        if (!rc && c.std && c.may_attack)
            rc = add_attacks(&c);
        if (!rc && c.full && c.may_attack)
            rc = add_coups_de_grace(&c);
        if (!rc && c.std)
            rc = add_defenses(&c);
        if (!rc)
            rc = add_draws(&c);
        if (!rc && c.mv)
            rc = add_manipulate(&c);
        if (!rc && c.sw)
            rc = add_swift(&c);
    }
    clear_ctx(&c);
    if (rc) {
        Py_XDECREF(c.out);
        if (rc < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    return c.out;
}

/* setup(end, fight_defensively, total_defense, break_grab, stand_up, stand_up_acrobatics, aim, second_wind,
 *       fall_prone, recover, target_decision, option_decision, square_decisions, ranges, size_order, unit_class) */
static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *c[N_C], *fns[3], *ranges, *sizes, *unit_type;
    int k;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO!O!O!", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7],
                          &c[8], &c[9], &fns[0], &fns[1], &fns[2], &PyDict_Type, &ranges, &PyList_Type, &sizes,
                          &PyType_Type, &unit_type))
        return NULL;
    for (k = 0; k < N_SLOTS; k++) { /* where the Unit class keeps each slot (-1: read through getattr) */
        PyObject *descr = PyObject_GetAttr(unit_type, *SLOT_NAME[k]);
        if (!descr)
            return NULL;
        SLOT_OFF[k] = Py_IS_TYPE(descr, &PyMemberDescr_Type)
                              && ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX
                          ? ((PyMemberDescrObject *)descr)->d_member->offset
                          : -1;
        Py_DECREF(descr);
    }
    Py_XSETREF(UNIT_TYPE, (PyTypeObject *)Py_NewRef(unit_type));
    for (k = 0; k < N_C; k++)
        Py_XSETREF(CONST[k], Py_NewRef(c[k]));
    Py_XSETREF(TARGET_FN, Py_NewRef(fns[0]));
    Py_XSETREF(OPTION_FN, Py_NewRef(fns[1]));
    Py_XSETREF(SQUARES_FN, Py_NewRef(fns[2]));
    Py_XSETREF(RANGES, Py_NewRef(ranges));
    Py_XSETREF(SIZE_ORDER, Py_NewRef(sizes));
    for (k = 0; k < N_T; k++) /* decisions made through the old functions are dropped */
        Py_CLEAR(TCACHE[k]);
    for (k = 0; k < N_O; k++)
        Py_CLEAR(OCACHE[k]);
    Py_RETURN_NONE;
}

/* ---- charges (`SagaRuleset._charge_end`) ---- */
#define CHARGE_CAP 256 /* squares of a charge line traced here (longer: NotImplemented) */

/* the squares a charge line from s to e touches, s excluded, e included, in the order met walking from s
 * (`SagaRuleset._line_squares`): the traced line sorted (stably) by how far along it each square lies. Returns
 * their count, or -1 when the line is too long to trace here. */
static int charge_squares(long w, long s, long e, int *out) {
    int buf[CHARGE_CAP], cnt, n, m;
    long lo = s < e ? s : e, hi = s < e ? e : s, dx = e % w - s % w, dy = e / w - s / w, sx = s % w, sy = s / w;
    cnt = trace_line(w, hi % w - lo % w, hi / w - lo / w, buf, CHARGE_CAP - 1);
    if (cnt < 0)
        return -1;
    for (n = 0; n < cnt; n++) { /* insertion sort: stable, as Python's sorted */
        int sq = (int)(lo + buf[n]);
        long key = (sq % w - sx) * dx + (sq / w - sy) * dy;
        for (m = n; m > 0 && (out[m - 1] % w - sx) * dx + (out[m - 1] / w - sy) * dy > key; m--)
            out[m] = out[m - 1];
        out[m] = sq;
    }
    out[cnt] = (int)e;
    return cnt + 1;
}

/* charge_end(terrain, line_codes, width, metric, ax, ay, tx, ty, speed, reach, occupied) -> ((x, y), [(x, y)]) or
 * None: `SagaRuleset._charge_end` of a unit at (ax, ay) of that speed and reach at a target at (tx, ty): the end
 * square (nearer the target than the start) of the cheapest legal charge (the first in `Grid.within` order among equals) and the squares walked there
 * (`_line_path`). `terrain`: `terrain.terrain_codes`; `line_codes`: `Grid.line_codes`; `occupied`: per square 0,
 * or 1 for an active unit of the charger's side (the charger included), 2 for one of another side. NotImplemented
 * when a line is too long to trace here. */
static PyObject *charge_end(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    long v[8], w, metric, ax, ay, tx, ty, speed, reach, size, ox, oy, best_cost = -1, ia;
    const unsigned char *ter, *codes, *occ;
    int sqs[CHARGE_CAP], path[CHARGE_CAP], best_path[CHARGE_CAP], best_len = 0, best_end = -1, n;
    PyObject *out, *lst, *end;
    (void)mod;
    if (nargs != 11 || !PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1]) || !PyBytes_CheckExact(args[10])) {
        PyErr_SetString(PyExc_TypeError, "charge_end(terrain, line_codes, width, metric, ax, ay, tx, ty, speed, reach, "
                                         "occupied)");
        return NULL;
    }
    if (long_args(args, 2, 8, v) < 0)
        return NULL;
    w = v[0], metric = v[1], ax = v[2], ay = v[3], tx = v[4], ty = v[5], speed = v[6], reach = v[7];
    size = PyBytes_GET_SIZE(args[0]);
    if (w <= 0 || size % w || PyBytes_GET_SIZE(args[1]) != size || PyBytes_GET_SIZE(args[10]) != size || ax < 0 ||
        ay < 0 || ax >= w || ay * w + ax >= size || reach < 0 || reach > 64) {
        PyErr_SetString(PyExc_ValueError, "charge_end: the squares and tables are of one map");
        return NULL;
    }
    ter = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    codes = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    occ = (const unsigned char *)PyBytes_AS_STRING(args[10]);
    {   /* `_charge_in_range` */
        long dx = labs(ax - tx), dy = labs(ay - ty);
        if (metric == 0 ? metric_distance(0, dx, dy) > speed + reach + 1 : (dx > dy ? dx : dy) > speed + reach)
            Py_RETURN_NONE;
    }
    ia = ay * w + ax;
    for (oy = -reach; oy <= reach; oy++)
        for (ox = -reach; ox <= reach; ox++) { /* `Grid.within(t, reach)` */
            long ex = tx + ox, ey = ty + oy, ie, cost = 0, px = ax, py = ay;
            int cnt, len = 0, parity = 0, ok = 1, cur = (int)ia, k = 0;
            if (!(ox || oy) || metric_distance((int)metric, labs(ox), labs(oy)) > reach || ex < 0 || ey < 0 || ex >= w ||
                ey * w + ex >= size)
                continue;
            ie = ey * w + ex;
            if (occ[ie] || metric_distance((int)metric, labs(ex - ax), labs(ey - ay)) < 2
                || metric_distance((int)metric, labs(ox), labs(oy)) >= metric_distance((int)metric, labs(ax - tx),
                                                                                        labs(ay - ty)))
                continue; /* (an end no nearer the target than the start: a charge moves toward it) */
            if ((cnt = charge_squares(w, ia, ie, sqs)) < 0)
                Py_RETURN_NOTIMPLEMENTED;
            for (n = 0; n < cnt && ok; n++)
                ok = !(ter[sqs[n]] & T_BLOCK);
            if (!ok)
                continue;
            while (cur != ie) { /* `_line_path`: each step to the furthest square of the line still adjacent */
                int j = k;
                while (j + 1 < cnt && labs(sqs[j + 1] % w - cur % w) <= 1 && labs(sqs[j + 1] / w - cur / w) <= 1)
                    j++;
                cur = path[len++] = sqs[j];
                k = j + 1;
            }
            for (n = 0; n < len && ok; n++) { /* `_corner_cut`, then `Grid.path_cost` */
                long x = path[n] % w, y = path[n] / w, step = 1;
                if (x != px && y != py) {
                    if ((ter[py * w + x] & T_WALL) || (ter[y * w + px] & T_WALL))
                        ok = 0;
                    if (metric == 0) {
                        step = parity ? 2 : 1;
                        parity ^= 1;
                    }
                }
                cost += step * ((ter[path[n]] & T_DOUBLE) ? 2 : 1);
                px = x;
                py = y;
            }
            if (!ok || cost > speed)
                continue;
            for (n = 0; n < cnt && ok; n++)
                ok = occ[sqs[n]] != 2; /* an enemy in the way */
            if (ok && reach > 1) { /* line of effect from the end to the target */
                long it = ty * w + tx, lo = ie < it ? ie : it, hi = ie < it ? it : ie;
                int buf[CHARGE_CAP], m = trace_line(w, hi % w - lo % w, hi / w - lo / w, buf, CHARGE_CAP);
                if (m < 0)
                    Py_RETURN_NOTIMPLEMENTED;
                for (n = 0; n < m && ok; n++)
                    ok = codes[lo + buf[n]] < 3;
            }
            if (!ok || (best_end >= 0 && cost >= best_cost))
                continue;
            best_cost = cost;
            best_end = (int)ie;
            best_len = len;
            memcpy(best_path, path, sizeof(int) * (size_t)len);
        }
    if (best_end < 0)
        Py_RETURN_NONE;
    if (!(lst = PyList_New(best_len)))
        return NULL;
    for (n = 0; n < best_len; n++) {
        PyObject *sq = Py_BuildValue("(ii)", best_path[n] % (int)w, best_path[n] / (int)w);
        if (!sq) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, n, sq);
    }
    if (!(end = Py_BuildValue("(ii)", best_end % (int)w, best_end / (int)w))) {
        Py_DECREF(lst);
        return NULL;
    }
    out = PyTuple_Pack(2, end, lst);
    Py_DECREF(end);
    Py_DECREF(lst);
    return out;
}

static PyMethodDef methods[] = {
    {"move_masks", move_masks, METH_VARARGS,
     "move_masks(enc, actor) -> (blocked, threatened, any threatened) | None: bytes per square of the enemies "
     "(SagaRuleset._enemy_squares) and of the squares where leaving provokes (SagaRuleset._threats)"},
    {"legal", legal, METH_VARARGS,
     "legal(enc, actor) -> [Decision] | None: SagaRuleset.legal_actions_py in C (None: let Python decide)"},
    {"charge_end", (PyCFunction)(void (*)(void))charge_end, METH_FASTCALL,
     "charge_end(terrain, line_codes, width, metric, ax, ay, tx, ty, speed, reach, occupied): SagaRuleset._charge_end."},
    {"setup", setup, METH_VARARGS,
     "setup(end, fight_defensively, total_defense, break_grab, stand_up, stand_up_acrobatics, aim, second_wind, "
     "fall_prone, recover, target_decision, option_decision, square_decisions, ranges, size_order, unit_class): the "
     "interned decisions and tables of ruleset.py, and the class of units"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_legal", "SagaRuleset.legal_actions in C.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__legal(void) {
    int k;
#define INTERN(n) \
    if (!(S_##n = PyUnicode_InternFromString(#n))) \
        return NULL;
    NAMES(INTERN)
#undef INTERN
    for (k = 0; k < N_T; k++)
        if (!(T_STR[k] = PyUnicode_InternFromString(T_NAMES[k])))
            return NULL;
    for (k = 0; k < N_O; k++)
        if (!(O_STR[k] = PyUnicode_InternFromString(O_NAMES[k])))
            return NULL;
    for (k = 0; k < N_Q; k++)
        if (!(Q_STR[k] = PyUnicode_InternFromString(Q_NAMES[k])))
            return NULL;
    return PyModule_Create(&module);
}
