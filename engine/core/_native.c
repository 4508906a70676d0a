/* The movement searches and the line trace of engine/core/grid.py in C: the same algorithms, the same results in
 * the same order (grid.py keeps the Python versions, used when this module is not built, and the tests check the
 * two agree on random maps). The distance rule and the line trace are _geometry.h's, shared with the other C
 * modules.
 *
 * A map's moves come as a flat int32 buffer (grid._Geometry.flat_transitions): per search state
 * 2 * square + parity, STRIDE ints: the number of moves, then up to 8 (next state, cost, square).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include "_geometry.h"

#define STRIDE 25
#define BIG (1 << 30)

typedef struct {
    int *v;
    Py_ssize_t n, cap;
} IntVec;

static int vec_push(IntVec *a, int x) {
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 16;
        int *v = PyMem_Realloc(a->v, cap * sizeof(int));
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int get_trans(PyObject *obj, Py_buffer *view, Py_ssize_t *n_states) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 4 || view->len % (4 * STRIDE) != 0) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "transitions must be an int32 buffer of STRIDE ints per state");
        return -1;
    }
    *n_states = view->len / (4 * STRIDE);
    return 0;
}

/* search(trans, start, budget, blocked) -> {square: cost}: grid.Grid._search. */
static PyObject *search(PyObject *self, PyObject *args) {
    PyObject *tobj, *blocked, *fast = NULL, *out = NULL;
    int s, budget;
    Py_buffer view;
    Py_ssize_t n_states, n_squares, i, k;
    int *seen = NULL, *cost_of = NULL, *order = NULL, n_order = 0;
    IntVec *buckets = NULL;

    if (!PyArg_ParseTuple(args, "OiiO", &tobj, &s, &budget, &blocked))
        return NULL;
    if (get_trans(tobj, &view, &n_states) < 0)
        return NULL;
    n_squares = n_states / 2;
    if (s < 0 || s >= n_squares) {
        PyErr_SetString(PyExc_IndexError, "start square outside the map");
        goto done;
    }
    if (budget <= 0) {
        out = Py_BuildValue("{i:i}", s, 0);
        goto done;
    }
    fast = PySequence_Fast(blocked, "blocked must be a sequence of squares");
    if (!fast)
        goto done;
    seen = PyMem_Malloc(n_states * sizeof(int));
    cost_of = PyMem_Malloc(n_squares * sizeof(int));
    order = PyMem_Malloc(n_squares * sizeof(int));
    buckets = PyMem_Calloc(budget + 1, sizeof(IntVec));
    if (!seen || !cost_of || !order || !buckets) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n_states; i++)
        seen[i] = BIG;
    for (i = 0; i < n_squares; i++)
        cost_of[i] = BIG;
    for (i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        long j = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (j == -1 && PyErr_Occurred())
            goto done;
        if (j >= 0 && j < n_squares)  /* never entered: as if already reached at no cost */
            seen[2 * j] = seen[2 * j + 1] = -1;
    }
    seen[2 * s] = 0;
    cost_of[s] = 0;
    order[n_order++] = s;
    if (vec_push(&buckets[0], 2 * s) < 0)
        goto done;
    {
        const int *T = (const int *)view.buf;
        int cost;
        for (cost = 0; cost < budget; cost++) {
            IntVec *bucket = &buckets[cost];
            if (!bucket->n)
                continue;
            qsort(bucket->v, bucket->n, sizeof(int), cmp_int);
            for (i = 0; i < bucket->n; i++) {
                int state = bucket->v[i];
                const int *row = T + (Py_ssize_t)state * STRIDE;
                if (seen[state] < cost)
                    continue;
                for (k = 0; k < row[0]; k++) {
                    int nxt = row[1 + 3 * k], c = cost + row[2 + 3 * k], j = row[3 + 3 * k];
                    if (c > budget || seen[nxt] <= c)
                        continue;
                    seen[nxt] = c;
                    if (c < cost_of[j]) {
                        if (cost_of[j] == BIG)
                            order[n_order++] = j;
                        cost_of[j] = c;
                    }
                    if (vec_push(&buckets[c], nxt) < 0)
                        goto done;
                }
            }
        }
    }
    out = PyDict_New();
    if (!out)
        goto done;
    for (i = 0; i < n_order; i++) {
        PyObject *key = PyLong_FromLong(order[i]), *val = PyLong_FromLong(cost_of[order[i]]);
        int bad = !key || !val || PyDict_SetItem(out, key, val) < 0;
        Py_XDECREF(key);
        Py_XDECREF(val);
        if (bad) {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    if (buckets) {
        for (i = 0; i <= budget; i++)
            PyMem_Free(buckets[i].v);
        PyMem_Free(buckets);
    }
    PyMem_Free(seen);
    PyMem_Free(cost_of);
    PyMem_Free(order);
    Py_XDECREF(fast);
    PyBuffer_Release(&view);
    return out;
}

/* ---- path without provocations ---------------------------------------------------------------------------
 * While no square the search leaves is dangerous, every trail has 0 provocations, and the best-first search
 * below reduces to this: per state the least cost, then the lexicographically least trail, labelled by rising
 * cost in buckets (no heap, one label per state). The first goal state in (cost, parity) order is the one the
 * best-first search pops first. */
#define QUICK_STATES 2048
#define QUICK_BUDGET 48
#include "_ctz.h"

/* a lower bound of the cost left from square j to the goal (gx, gy): the least a walk there can cost, its
 * alternating distance under that metric, else its chebyshev one (a diagonal step costs 1, Grid.walk_floor) */
static int least_left(int j, int width, int gx, int gy, int alternating) {
    return (int)metric_distance(alternating ? METRIC_ALTERNATING : METRIC_CHEBYSHEV, j % width - gx, j / width - gy);
}

/* the squares of state's trail (after the start), first to last; returns its length */
static int trail_of(const int *parent, int state, int *buf) {
    int n = 0, k;
    for (; parent[state] >= 0; state = parent[state])
        buf[n++] = state >> 1;
    for (k = 0; k < n / 2; k++) {
        int t = buf[k];
        buf[k] = buf[n - 1 - k];
        buf[n - 1 - k] = t;
    }
    return n;
}

/* whether trail(a) + [j] < trail(b) + [j], as Python compares tuples */
static int extended_less(const int *parent, int a, int b, int j) {
    int ta[QUICK_BUDGET + 2], tb[QUICK_BUDGET + 2], na = trail_of(parent, a, ta), nb = trail_of(parent, b, tb), k;
    ta[na++] = j;
    tb[nb++] = j;
    for (k = 0; k < na && k < nb; k++)
        if (ta[k] != tb[k])
            return ta[k] < tb[k];
    return na < nb;
}

/* 1: decided (*out: the squares after start, or None when goal cannot be reached); 0: a dangerous square would be
 * left, or the map or budget is larger than this search takes (the best-first search decides); -1: an error */
static int quick_path(const int *T, Py_ssize_t n_states, int s, int g, int budget, const char *blk, const char *dng,
                      int width, int alternating, PyObject **out) {
    int cost[QUICK_STATES], parent[QUICK_STATES], trail[QUICK_BUDGET + 2];
    unsigned long long bits[(QUICK_BUDGET + 1) * (QUICK_STATES / 64)];
    size_t words = ((size_t)n_states + 63) / 64, w;
    int gx = g % width, gy = g / width, c, goal = -1, n, k;
    if (n_states > QUICK_STATES || budget < 0 || budget > QUICK_BUDGET)
        return 0;
    memset(cost, 0x3f, (size_t)n_states * sizeof(int));
    memset(bits, 0, (size_t)(budget + 1) * words * sizeof(unsigned long long));
    cost[2 * s] = 0;
    parent[2 * s] = -1;
    bits[(2 * s) / 64] |= 1ULL << ((2 * s) % 64);
    for (c = 0; c <= budget && goal < 0; c++) {
        unsigned long long *bucket = bits + (size_t)c * words;
        for (w = 0; w < words && goal < 0; w++) {
            unsigned long long word = bucket[w];
            while (word) {
                int state = (int)(64 * w) + CTZ64(word), sq = state >> 1;
                const int *row = T + (Py_ssize_t)state * STRIDE;
                word &= word - 1;
                if (cost[state] != c)
                    continue;
                if (sq == g) { /* the least cost, then parity 0: done */
                    goal = state;
                    break;
                }
                if (dng[sq])
                    return 0;
                for (k = 0; k < row[0]; k++) {
                    int nk = row[1 + 3 * k], add = row[2 + 3 * k], j = row[3 + 3 * k], cc = c + add;
                    if (add < 1)
                        return 0;
                    if (cc > budget || blk[j] || cc + least_left(j, width, gx, gy, alternating) > budget)
                        continue;
                    if (cc < cost[nk]) {
                        cost[nk] = cc;
                        parent[nk] = state;
                        bits[(size_t)cc * words + nk / 64] |= 1ULL << (nk % 64);
                    } else if (cc == cost[nk] && extended_less(parent, state, parent[nk], j)) {
                        parent[nk] = state;
                    }
                }
            }
        }
    }
    if (goal < 0) {
        *out = Py_NewRef(Py_None);
        return 1;
    }
    n = trail_of(parent, goal, trail);
    if (!(*out = PyList_New(n)))
        return -1;
    for (k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLong(trail[k]);
        if (!v) {
            Py_CLEAR(*out);
            return -1;
        }
        PyList_SET_ITEM(*out, k, v);
    }
    return 1;
}

/* ---- path: best-first over (provocations, cost, square, parity, trail), as grid.Grid.path's heap ---- */
typedef struct {
    int prov, cost, sq, parity, len, parent; /* the trail: the squares of the ancestors below the start, then sq */
} Node;

typedef struct {
    Node *nodes;
    Py_ssize_t n, cap;
    int *heap;
    Py_ssize_t hn, hcap;
} Search;

/* whether node a's trail is lexicographically less than node b's: walked up from the depth both reach, the
 * shallowest square where they differ decides, else the shorter trail is less */
static int trail_less(const Search *S, int a, int b) {
    const Node *x = &S->nodes[a], *y = &S->nodes[b];
    int m = x->len < y->len ? x->len : y->len, res = -1, shorter = x->len < y->len;
    while (x->len > m)
        x = &S->nodes[x->parent];
    while (y->len > m)
        y = &S->nodes[y->parent];
    while (m > 0 && x != y) { /* (the same node: the same trail above) */
        if (x->sq != y->sq)
            res = x->sq < y->sq;
        x = &S->nodes[x->parent];
        y = &S->nodes[y->parent];
        m--;
    }
    return res >= 0 ? res : shorter;
}

static int node_less(const Search *S, int a, int b) {
    const Node *x = &S->nodes[a], *y = &S->nodes[b];
    if (x->prov != y->prov)
        return x->prov < y->prov;
    if (x->cost != y->cost)
        return x->cost < y->cost;
    if (x->sq != y->sq)
        return x->sq < y->sq;
    if (x->parity != y->parity)
        return x->parity < y->parity;
    return trail_less(S, a, b);
}

static int heap_push(Search *S, int node) {
    Py_ssize_t i;
    if (S->hn == S->hcap) {
        Py_ssize_t cap = S->hcap ? 2 * S->hcap : 64;
        int *h = PyMem_Realloc(S->heap, cap * sizeof(int));
        if (!h) {
            PyErr_NoMemory();
            return -1;
        }
        S->heap = h;
        S->hcap = cap;
    }
    i = S->hn++;
    while (i > 0) {
        Py_ssize_t up = (i - 1) / 2;
        if (!node_less(S, node, S->heap[up]))
            break;
        S->heap[i] = S->heap[up];
        i = up;
    }
    S->heap[i] = node;
    return 0;
}

static int heap_pop(Search *S) {
    int top = S->heap[0], last = S->heap[--S->hn];
    Py_ssize_t i = 0, n = S->hn;
    while (1) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && node_less(S, S->heap[c + 1], S->heap[c]))
            c++;
        if (!node_less(S, S->heap[c], last))
            break;
        S->heap[i] = S->heap[c];
        i = c;
    }
    if (n)
        S->heap[i] = last;
    return top;
}

static int new_node(Search *S, int prov, int cost, int sq, int parity, int parent) {
    Node *nd;
    int len = parent >= 0 ? S->nodes[parent].len + 1 : 0;
    if (S->n == S->cap) {
        Py_ssize_t cap = S->cap ? 2 * S->cap : 64;
        Node *v = PyMem_Realloc(S->nodes, cap * sizeof(Node));
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        S->nodes = v;
        S->cap = cap;
    }
    nd = &S->nodes[S->n];
    nd->prov = prov;
    nd->cost = cost;
    nd->sq = sq;
    nd->parity = parity;
    nd->len = len;
    nd->parent = parent;
    return (int)S->n++;
}

/* The (prov, cost) pairs taken off the heap per search state, as linked lists in one pool:
 * pool[k] = prov, pool[k + 1] = cost, pool[k + 2] = the next pair's offset (-1 ends a list). */
static int dominated(const IntVec *pool, int k, int prov, int cost) {
    for (; k >= 0; k = pool->v[k + 2])
        if (pool->v[k] <= prov && pool->v[k + 1] <= cost)
            return 1;
    return 0;
}

/* path(trans, start, goal, budget, blocked: bytes per square, danger: bytes per square, width,
 *      alternating, how=1) -> [squares after start] or None: grid.Grid.path. `how` (for the tests): 1 tries
 *      quick_path first, 0 runs the best-first search only, 2 quick_path only (False when it cannot decide). */
static PyObject *path(PyObject *self, PyObject *args) {
    PyObject *tobj, *out = NULL;
    Py_buffer view, blocked, danger;
    int s, g, budget, width, alternating, gx, gy, how = 1;
    Py_ssize_t n_states, n_squares;
    int *done = NULL;  /* per search state: offset of its first pair in `pairs`, -1 for none */
    IntVec pairs = {NULL, 0, 0};
    Search S;
    memset(&S, 0, sizeof(S));

    if (!PyArg_ParseTuple(args, "Oiiiy*y*ip|i", &tobj, &s, &g, &budget, &blocked, &danger, &width, &alternating,
                          &how))
        return NULL;
    if (get_trans(tobj, &view, &n_states) < 0) {
        PyBuffer_Release(&blocked);
        PyBuffer_Release(&danger);
        return NULL;
    }
    n_squares = n_states / 2;
    if (s < 0 || s >= n_squares || g < 0 || g >= n_squares || blocked.len < n_squares || danger.len < n_squares
        || width <= 0) {
        PyErr_SetString(PyExc_ValueError, "path: squares or tables do not fit the map");
        goto done;
    }
    if (how) {
        int r = quick_path((const int *)view.buf, n_states, s, g, budget, (const char *)blocked.buf,
                           (const char *)danger.buf, width, alternating, &out);
        if (r != 0)
            goto done;
        if (how == 2) {
            out = Py_NewRef(Py_False);
            goto done;
        }
    }
    done = PyMem_Malloc(n_states * sizeof(int));
    if (!done) {
        PyErr_NoMemory();
        goto done;
    }
    memset(done, 0xff, n_states * sizeof(int));
    gx = g % width;
    gy = g / width;
    {
        const int *T = (const int *)view.buf;
        const char *blk = (const char *)blocked.buf, *dng = (const char *)danger.buf;
        int first = new_node(&S, 0, 0, s, 0, -1);
        if (first < 0 || heap_push(&S, first) < 0)
            goto done;
        while (S.hn) {
            int at = heap_pop(&S), key, leave, k;
            Node nd = S.nodes[at];
            const int *row;
            if (nd.sq == g) {
                int up = at;
                out = PyList_New(nd.len);
                if (!out)
                    goto done;
                for (k = nd.len - 1; k >= 0; k--, up = S.nodes[up].parent) {
                    PyObject *v = PyLong_FromLong(S.nodes[up].sq);
                    if (!v) {
                        Py_CLEAR(out);
                        goto done;
                    }
                    PyList_SET_ITEM(out, k, v);
                }
                goto done;
            }
            key = 2 * nd.sq + nd.parity;
            if (dominated(&pairs, done[key], nd.prov, nd.cost))
                continue;
            if (vec_push(&pairs, nd.prov) < 0 || vec_push(&pairs, nd.cost) < 0 || vec_push(&pairs, done[key]) < 0)
                goto done;
            done[key] = (int)(pairs.n - 3);
            leave = dng[nd.sq] ? nd.prov + 1 : nd.prov;
            row = T + (Py_ssize_t)key * STRIDE;
            for (k = 0; k < row[0]; k++) {
                int nk = row[1 + 3 * k], c = nd.cost + row[2 + 3 * k], j = row[3 + 3 * k], child;
                if (c > budget || blk[j] || c + least_left(j, width, gx, gy, alternating) > budget)
                    continue;
                if (dominated(&pairs, done[nk], leave, c))
                    continue;
                child = new_node(&S, leave, c, j, nk & 1, at);
                if (child < 0 || heap_push(&S, child) < 0)
                    goto done;
            }
        }
        out = Py_NewRef(Py_None);
    }
done:
    PyMem_Free(done);
    PyMem_Free(pairs.v);
    PyMem_Free(S.nodes);
    PyMem_Free(S.heap);
    PyBuffer_Release(&view);
    PyBuffer_Release(&blocked);
    PyBuffer_Release(&danger);
    return out;
}

/* build_transitions(width, height, mult, walls, alternating) -> bytes: the flat transition table of
 * grid._Geometry.flat_transitions (int32s, STRIDE a state) from the squares' move cost multipliers (bytes: 0 =
 * cannot be entered) and walls (bytes: 1 = a wall, whose corner a diagonal step cannot cut). */
static PyObject *build_transitions(PyObject *self, PyObject *args) {
    static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1}, DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    int width, height, alternating, i, d;
    Py_buffer mult, walls;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "iiy*y*p", &width, &height, &mult, &walls, &alternating))
        return NULL;
    if (width <= 0 || height <= 0 || mult.len < (Py_ssize_t)width * height || walls.len < (Py_ssize_t)width * height) {
        PyErr_SetString(PyExc_ValueError, "build_transitions: tables smaller than the map");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)width * height * 2 * STRIDE * sizeof(int));
    if (!out)
        goto done;
    {
        int *T = (int *)PyBytes_AS_STRING(out);
        const unsigned char *m = mult.buf, *w = walls.buf;
        memset(T, 0, (size_t)width * height * 2 * STRIDE * sizeof(int));
        for (i = 0; i < width * height; i++) {
            int x = i % width, y = i / width, *even = T + (Py_ssize_t)(2 * i) * STRIDE, *odd = even + STRIDE;
            for (d = 0; d < 8; d++) {
                int nx = x + DX[d], ny = y + DY[d], j, diag, k;
                if (nx < 0 || nx >= width || ny < 0 || ny >= height)
                    continue;
                j = ny * width + nx;
                diag = DX[d] != 0 && DY[d] != 0;
                if (diag && (w[y * width + nx] || w[ny * width + x]))
                    continue;
                if (!m[j])
                    continue;
                k = even[0]++;
                even[1 + 3 * k] = diag && alternating ? 2 * j + 1 : 2 * j;
                even[2 + 3 * k] = m[j];
                even[3 + 3 * k] = j;
                k = odd[0]++;
                odd[1 + 3 * k] = diag && alternating ? 2 * j : 2 * j + 1;
                odd[2 + 3 * k] = diag && alternating ? 2 * m[j] : m[j];
                odd[3 + 3 * k] = j;
            }
        }
    }
done:
    PyBuffer_Release(&mult);
    PyBuffer_Release(&walls);
    return out;
}

/* line(width, dx, dy) -> (offsets): the squares strictly between two squares of a map `width` wide whose ends are
 * dx, dy apart (dy >= 0), as flat offsets from the lower end, in traced order: grid._Geometry._trace (_geometry.h's
 * trace_line). */
static PyObject *line(PyObject *self, PyObject *args) {
    long w, dx, dy;
    int local[256], *buf = local, cap = 256, n, k;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "lll", &w, &dx, &dy))
        return NULL;
    if (w <= 0 || dy < 0 || (dy == 0 && dx < 0) || labs(dx) >= w || labs(dx) > 1 << 20 || dy > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "line(width, dx, dy) needs width > 0, |dx| < width and dy >= 0 (dx >= 0 "
                                          "when dy is 0)");
        return NULL;
    }
    if (labs(dx) + dy + 2 > cap) { /* a line passes at most |dx| + |dy| + 1 squares */
        cap = (int)(labs(dx) + dy + 2);
        if (!(buf = PyMem_Malloc(sizeof(int) * (size_t)cap)))
            return PyErr_NoMemory();
    }
    n = trace_line(w, dx, dy, buf, cap);
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "a line passed more squares than it can");
        goto done;
    }
    if (!(out = PyTuple_New(n)))
        goto done;
    for (k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLong(buf[k]);
        if (!v) {
            Py_CLEAR(out);
            goto done;
        }
        PyTuple_SET_ITEM(out, k, v);
    }
done:
    if (buf != local)
        PyMem_Free(buf);
    return out;
}

/* sight(line_codes, width, a, b): Grid.sight's fold of the squares strictly between flat squares a and b (traced as
 * grid._Geometry.line traces them, from the lower index) into los | loe << 1 | cover << 2 (cover 0 none, 1 low,
 * 2 heavy), from the map's line codes (Grid.line_codes). */
static PyObject *sight(PyObject *self, PyObject *args) {
    Py_buffer codes;
    long w, a, b, lo, hi;
    int local[256], *buf = local, cap = 256, n, k, los = 1, loe = 1, cover = 0;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*lll", &codes, &w, &a, &b))
        return NULL;
    lo = a < b ? a : b;
    hi = a < b ? b : a;
    if (w <= 0 || lo < 0 || hi >= codes.len) {
        PyErr_SetString(PyExc_ValueError, "sight(line_codes, width, a, b) needs width > 0 and both squares on the map");
        goto done;
    }
    {
        long dx = hi % w - lo % w, dy = hi / w - lo / w;
        const unsigned char *c = codes.buf;
        if (labs(dx) + dy + 2 > cap) {
            cap = (int)(labs(dx) + dy + 2);
            if (!(buf = PyMem_Malloc(sizeof(int) * (size_t)cap))) {
                PyErr_NoMemory();
                goto done;
            }
        }
        n = trace_line(w, dx, dy, buf, cap);
        if (n < 0) {
            PyErr_SetString(PyExc_RuntimeError, "a line passed more squares than it can");
            goto done;
        }
        for (k = 0; k < n; k++)
            fold_code(c[lo + buf[k]], &los, &loe, &cover);
    }
    out = PyLong_FromLong(los | loe << 1 | cover << 2);
done:
    if (buf != local)
        PyMem_Free(buf);
    PyBuffer_Release(&codes);
    return out;
}

/* distance_field(width, walls, costs, starts): per square the least cost of walking to it from the nearest of the
 * flat squares `starts` (cost 0 there), by king steps that do not cut the corner of a wall (walls: a byte per
 * square, 1 for a wall), entering square j costing costs[j] (a byte; 0: it cannot be entered); 99 where nothing
 * reaches (Grid.distance_field). Dijkstra over a binary heap: the least costs are unique, whatever the order. */
static PyObject *distance_field(PyObject *self, PyObject *args) {
    Py_buffer walls, costs;
    long w;
    PyObject *starts, *seq = NULL, *out = NULL;
    int *dist = NULL, *heap = NULL, hn = 0, hcap, n, h;
    static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1}, DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    if (!PyArg_ParseTuple(args, "ly*y*O", &w, &walls, &costs, &starts))
        return NULL;
    n = (int)costs.len;
    if (w <= 0 || walls.len != costs.len || n % w) {
        PyErr_SetString(PyExc_ValueError, "distance_field needs width > 0 and a byte per square in walls and costs");
        goto done;
    }
    h = (int)(n / w);
    if (!(seq = PySequence_Fast(starts, "distance_field: starts must be a sequence of squares")))
        goto done;
    hcap = 8 * n + (int)PySequence_Fast_GET_SIZE(seq) + 1;
    dist = PyMem_Malloc(sizeof(int) * (size_t)(n ? n : 1));
    heap = PyMem_Malloc(sizeof(int) * 2 * (size_t)hcap); /* (distance, square) pairs */
    if (!dist || !heap) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < n; i++)
        dist[i] = BIG;
#define HLESS(p, q) (heap[2 * (p)] < heap[2 * (q)] || (heap[2 * (p)] == heap[2 * (q)] && heap[2 * (p) + 1] < heap[2 * (q) + 1]))
#define HSWAP(p, q) do { int t0 = heap[2 * (p)], t1 = heap[2 * (p) + 1]; heap[2 * (p)] = heap[2 * (q)]; \
        heap[2 * (p) + 1] = heap[2 * (q) + 1]; heap[2 * (q)] = t0; heap[2 * (q) + 1] = t1; } while (0)
#define HPUSH(d, sq) do { int c_ = hn++; heap[2 * c_] = (d); heap[2 * c_ + 1] = (sq); \
        while (c_ > 0 && HLESS(c_, (c_ - 1) / 2)) { HSWAP(c_, (c_ - 1) / 2); c_ = (c_ - 1) / 2; } } while (0)
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        long s = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (s == -1 && PyErr_Occurred())
            goto done;
        if (s < 0 || s >= n) {
            PyErr_SetString(PyExc_ValueError, "distance_field: a start square is off the map");
            goto done;
        }
        if (dist[s]) {
            dist[s] = 0;
            HPUSH(0, (int)s);
        }
    }
    {
        const unsigned char *wl = walls.buf, *cs = costs.buf;
        while (hn > 0) {
            int d = heap[0], i = heap[1], p = 0;
            hn--;
            heap[0] = heap[2 * hn];
            heap[1] = heap[2 * hn + 1];
            for (;;) { /* sift down */
                int l = 2 * p + 1, r = l + 1, m = p;
                if (l < hn && HLESS(l, m))
                    m = l;
                if (r < hn && HLESS(r, m))
                    m = r;
                if (m == p)
                    break;
                HSWAP(p, m);
                p = m;
            }
            if (d != dist[i])
                continue;
            int x = i % (int)w, y = i / (int)w;
            for (int k = 0; k < 8; k++) {
                int nx = x + DX[k], ny = y + DY[k], j, c;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                if (DX[k] && DY[k] && (wl[y * w + nx] || wl[ny * w + x]))
                    continue; /* no cutting a wall's corner */
                j = ny * (int)w + nx;
                c = cs[j];
                if (c && d + c < dist[j]) {
                    dist[j] = d + c;
                    if (hn == hcap) {
                        PyErr_SetString(PyExc_RuntimeError, "distance_field: heap overflow");
                        goto done;
                    }
                    HPUSH(d + c, j);
                }
            }
        }
    }
#undef HLESS
#undef HSWAP
#undef HPUSH
    if (!(out = PyList_New(n)))
        goto done;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(dist[i] == BIG ? 99 : dist[i]);
        if (!v) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, v);
    }
done:
    Py_XDECREF(seq);
    PyMem_Free(dist);
    PyMem_Free(heap);
    PyBuffer_Release(&walls);
    PyBuffer_Release(&costs);
    return out;
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS, "search(trans, start, budget, blocked) -> {square: cost} (grid.Grid._search)"},
    {"build_transitions", build_transitions, METH_VARARGS,
     "build_transitions(width, height, mult, walls, alternating) -> bytes (grid._Geometry.flat_transitions)"},
    {"path", path, METH_VARARGS,
     "path(trans, start, goal, budget, blocked, danger, width, alternating) -> [square] | None (grid.Grid.path)"},
    {"line", line, METH_VARARGS,
     "line(width, dx, dy) -> (offsets): the squares between a line's ends (grid._Geometry._trace)"},
    {"sight", sight, METH_VARARGS,
     "sight(line_codes, width, a, b) -> los | loe << 1 | cover << 2 (grid.Grid.sight)"},
    {"distance_field", distance_field, METH_VARARGS,
     "distance_field(width, walls, costs, starts) -> [cost] (grid.Grid.distance_field)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "Movement searches, lines and sight of grid.py in C.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "STRIDE", STRIDE) < 0)
        Py_CLEAR(m);
    return m;
}
