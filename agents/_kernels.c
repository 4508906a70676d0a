/* The policy's hot loops in C (agents/fast_ppo.py; each has a torch version there, used when this module is not
 * built, and the tests check the two agree to float rounding):
 *   act             the acting half of a plain MLP policy for the env workers' rollouts (WorkerActor): the same
 *                   layers, masked categorical and inverse-transform draw as `_run_layers` + `masked_sample`;
 *                   ~0.5 ms a step of 32 envs against ~3 ms in torch;
 *   csr, linear_forward, linear_backward
 *                   the updates' first layers over the observations' non-zeros (SparseFirstLayers);
 *   masked_stats, masked_stats_backward
 *                   the masked categorical's log-probabilities and entropy, and their gradient
 *                   (_MaskedCategoricalStats), in one pass over each row.
 * A layer's product over its inputs' non-zeros sums the weight rows of the non-zero inputs (an observation is ~90%
 * zeros, a ReLU's output about half); the action head's logits at acting are only the row's legal actions'.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

enum { ACT_NONE = 0, ACT_RELU = 1, ACT_TANH = 2 };
#define MAX_LAYERS 16

typedef struct {
    Py_buffer w, b;  /* w: (in, out) row-major float32; b: (out,) float32 */
    Py_ssize_t in, out;
    int act;
} Layer;

typedef struct {
    Layer layer[MAX_LAYERS];
    int n;
} Net;

static void net_release(Net *net) {
    for (int k = 0; k < net->n; k++) {
        PyBuffer_Release(&net->layer[k].w);
        PyBuffer_Release(&net->layer[k].b);
    }
    net->n = 0;
}

/* the buffers of the views taken (those with an object) released, then `result` returned */
static PyObject *release_all(Py_buffer *const *views, size_t n, PyObject *result) {
    for (size_t k = 0; k < n; k++)
        if (views[k]->obj)
            PyBuffer_Release(views[k]);
    return result;
}

#define RELEASE_AND_RETURN(result, ...)                                                    \
    do {                                                                                  \
        Py_buffer *views_[] = {__VA_ARGS__};                                              \
        return release_all(views_, sizeof(views_) / sizeof(*views_), (result));            \
    } while (0)

static int float_buffer_flags(PyObject *o, Py_buffer *view, const char *what, int flags) {
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | flags) < 0)
        return -1;
    if (view->itemsize != 4 || !view->format || strcmp(view->format, "f") != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous float32 array", what);
        return -1;
    }
    return 0;
}

/* a C-contiguous, aligned integer array of `itemsize` bytes (int32: 4, int64: 8) */
static int int_buffer(PyObject *o, Py_buffer *view, const char *what, Py_ssize_t itemsize, int flags) {
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | flags) < 0)
        return -1;
    const char *f = view->format ? view->format : "";
    if (view->itemsize != itemsize || (uintptr_t)view->buf % (uintptr_t)itemsize != 0
        || !(strcmp(f, "i") == 0 || strcmp(f, "l") == 0 || strcmp(f, "q") == 0)) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous, aligned int%d array", what, (int)(itemsize * 8));
        return -1;
    }
    return 0;
}

static int float_buffer(PyObject *o, Py_buffer *view, const char *what) {
    return float_buffer_flags(o, view, what, 0);
}

/* layers: a sequence of (w (in, out), b (out,), activation code); each layer's `in` the previous one's `out` */
static int net_read(PyObject *layers, Py_ssize_t n_in, int min_layers, Net *net) {
    PyObject *fast = PySequence_Fast(layers, "the layers must be a sequence of (w, b, activation)");
    net->n = 0;
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < min_layers || n > MAX_LAYERS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a net has %d to %d layers, not %zd", min_layers, MAX_LAYERS, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *w, *b;
        int act;
        Layer *L = &net->layer[k];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, k), "OOi", &w, &b, &act))
            goto fail;
        if (float_buffer(w, &L->w, "a layer's weights") < 0)
            goto fail;
        if (float_buffer(b, &L->b, "a layer's bias") < 0) {
            PyBuffer_Release(&L->w);
            goto fail;
        }
        net->n++;
        L->act = act;
        if (L->w.ndim != 2 || L->w.shape[0] != n_in || L->b.len / 4 != L->w.shape[1] || act < 0 || act > 2) {
            PyErr_SetString(PyExc_ValueError, "a layer's weights must be (inputs, outputs) with a bias of outputs "
                                              "and an activation code 0-2, each layer's inputs the last one's outputs");
            goto fail;
        }
        L->in = L->w.shape[0];
        L->out = L->w.shape[1];
        n_in = L->out;
    }
    Py_DECREF(fast);
    return 0;
fail:
    Py_DECREF(fast);
    net_release(net);
    return -1;
}

/* y[k] = b[k] + sum_i val[i] W[idx[i], k] for outputs k0 <= k < k1: the product of a row's non-zero inputs (idx[i],
 * val[i] for i < nz) with a matrix W of `out` columns (one row per input); b may be NULL for zeros. Outputs go in
 * blocks of 8 vectors held in registers over all the inputs, the rest one by one; vectors of LANES floats: 4 (SSE,
 * which every x86-64 has: blocks of 32) or 8 (AVX2 with FMA, where the CPU has it: blocks of 64). */
#define BLOCK(LANES) (8 * (LANES))  /* eight vectors of accumulators: enough in flight to hide the adds' latency */
#define PREFETCH 8  /* how many inputs ahead their weight rows are asked for */
#define SPARSE_KERNELS(SUFFIX, VT, LANES, ATTR)                                                       \
    ATTR static void sum_row##SUFFIX(const float *restrict W, Py_ssize_t out, const float *restrict b,  \
                                     Py_ssize_t k0, Py_ssize_t k1, const int *restrict idx,             \
                                     const float *restrict val, Py_ssize_t nz, float *restrict y) {     \
        Py_ssize_t k = k0;                                                                          \
        for (; k + BLOCK(LANES) <= k1; k += BLOCK(LANES)) {                                         \
            VT a[8];                                                                                \
            if (b)                                                                                  \
                memcpy(a, b + k, sizeof a);                                                         \
            else                                                                                    \
                memset(a, 0, sizeof a);                                                             \
            for (Py_ssize_t i = 0; i < nz; i++) {                                                   \
                const float *w = W + (size_t)idx[i] * out + k, v = val[i];                          \
                if (i + PREFETCH < nz) { /* the rows are at random places: ask for them ahead */      \
                    const char *next = (const char *)(W + (size_t)idx[i + PREFETCH] * out + k);     \
                    for (int c = 0; c < BLOCK(LANES) * 4; c += 64)                                   \
                        __builtin_prefetch(next + c);                                               \
                }                                                                                   \
                for (int q = 0; q < 8; q++) {                                                       \
                    VT wq;                                                                          \
                    memcpy(&wq, w + LANES * q, sizeof wq);                                          \
                    a[q] += v * wq;                                                                 \
                }                                                                                   \
            }                                                                                       \
            memcpy(y + k, a, sizeof a);                                                             \
        }                                                                                           \
        for (; k < k1; k++) {                                                                       \
            float a = b ? b[k] : 0.0f;                                                              \
            for (Py_ssize_t i = 0; i < nz; i++)                                                     \
                a += val[i] * W[(size_t)idx[i] * out + k];                                          \
            y[k] = a;                                                                               \
        }                                                                                           \
    }

typedef float v4 __attribute__((vector_size(16)));
SPARSE_KERNELS(4, v4, 4, )

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_KERNELS8 1
typedef float v8 __attribute__((vector_size(32)));
SPARSE_KERNELS(8, v8, 8, __attribute__((target("avx2,fma"))))
#endif

typedef void (*SumRow)(const float *, Py_ssize_t, const float *, Py_ssize_t, Py_ssize_t, const int *, const float *,
                       Py_ssize_t, float *);
static SumRow sum_row = sum_row4;

/* The non-zero entries of x[0..n): their places in idx, their values in val, each written at index cap at most (the
 * scratch entry past `cap` that idx and val have); returns how many there are. Eight at a time where all eight are
 * zeros (an observation is ~90% zeros, mostly in runs), without branches otherwise. */
static Py_ssize_t nonzeros_capped(const float *restrict x, Py_ssize_t n, int *restrict idx, float *restrict val,
                                  Py_ssize_t cap) {
    Py_ssize_t nz = 0, j = 0;
    for (; j + 8 <= n; j += 8) {
        uint32_t bits[8], any = 0;
        memcpy(bits, x + j, sizeof bits);
        for (int q = 0; q < 8; q++)
            any |= bits[q] << 1;  /* without the sign bit: -0.0 is a zero too */
        if (!any)
            continue;
        for (int q = 0; q < 8; q++) {
            const Py_ssize_t at = nz < cap ? nz : cap;
            idx[at] = (int)(j + q);
            val[at] = x[j + q];
            nz += (bits[q] << 1) != 0;
        }
    }
    for (; j < n; j++) {
        const Py_ssize_t at = nz < cap ? nz : cap;
        idx[at] = (int)j;
        val[at] = x[j];
        nz += x[j] != 0.0f;
    }
    return nz;
}

/* `nonzeros_capped` without a cap (it writes at index n - 1 at most: nz stays below j) */
static Py_ssize_t nonzeros(const float *restrict x, Py_ssize_t n, int *restrict idx, float *restrict val) {
    return nonzeros_capped(x, n, idx, val, n);
}

/* The places of the non-zero bytes of m[0..n) (a row of masks) in out, in order; returns how many. Eight masked
 * actions at once (most are), without branches otherwise. */
static Py_ssize_t legal_actions(const unsigned char *restrict m, Py_ssize_t n, int *restrict out) {
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if ((k & 7) == 0 && k + 8 <= n) {
            uint64_t eight;
            memcpy(&eight, m + k, sizeof eight);
            if (!eight) {
                k += 7;
                continue;
            }
        }
        out[count] = (int)k;
        count += m[k] != 0;
    }
    return count;
}

/* y = act(b + x W) from x's non-zero entries (`nonzeros`): the rows of W whose input is zero are skipped */
static void layer_row(const Layer *L, const int *restrict idx, const float *restrict val, Py_ssize_t nz,
                      float *restrict y) {
    const float *W = (const float *)L->w.buf, *b = (const float *)L->b.buf;
    const Py_ssize_t out = L->out;
    sum_row(W, out, b, 0, out, idx, val, nz, y);
    Py_ssize_t k;
    if (L->act == ACT_RELU) {
        for (k = 0; k < out; k++)
            y[k] = y[k] > 0.0f ? y[k] : 0.0f;
    } else if (L->act == ACT_TANH) {
        for (k = 0; k < out; k++)
            y[k] = tanhf(y[k]);
    }
}

/* The net's output for one input row x, whose non-zero entries (`nonzeros`) are x_idx, x_val, x_nz (found once for
 * the actor and the critic); through scratch a / b (each as wide as the widest layer), idx and val (as wide as the
 * widest layer's input). */
static const float *net_row(const Net *net, const float *x, const int *x_idx, const float *x_val, Py_ssize_t x_nz,
                            float *a, float *b, int *idx, float *val) {
    const float *in = x;
    for (int k = 0; k < net->n; k++) {
        float *out = (k % 2 == 0) ? a : b;
        if (k == 0) {
            layer_row(&net->layer[k], x_idx, x_val, x_nz, out);
        } else {
            Py_ssize_t nz = nonzeros(in, net->layer[k].in, idx, val);
            layer_row(&net->layer[k], idx, val, nz, out);
        }
        in = out;
    }
    return in;
}

static Py_ssize_t net_width(const Net *net) {
    Py_ssize_t w = 0;
    for (int k = 0; k < net->n; k++)
        w = net->layer[k].out > w ? net->layer[k].out : w;
    return w;
}

PyDoc_STRVAR(act_doc,
"act(obs, masks, u, actor, head_w, head_b, critic, actions, values, log_probs)\n\n"
"For each row of obs (float32, rows x inputs): the actor's hidden layers (a sequence, maybe empty, of\n"
"(w (in, out), b, activation: 0 none, 1 ReLU, 2 tanh)), then the logits of the row's legal actions (masks:\n"
"bool, rows x actions) from head_w (actions x last hidden width, one row per action) and head_b; an action drawn from their softmax by\n"
"inverse transform with u (float32, one a row): the first whose cumulative probability exceeds u times the\n"
"total. Writes actions (int64), log_probs (float32, each action's log-probability) and values (float32, the\n"
"critic's (w, b, activation) layers, the last with one output). A row with no legal action is an error.");

static PyObject *act(PyObject *self, PyObject *args) {
    PyObject *obs_o, *masks_o, *u_o, *actor_o, *hw_o, *hb_o, *critic_o, *act_o, *val_o, *lp_o;
    Py_buffer obs = {0}, masks = {0}, u = {0}, hw = {0}, hb = {0}, actions = {0}, values = {0}, logp = {0};
    Net actor = {.n = 0}, critic = {.n = 0};
    PyObject *result = NULL;
    float *scratch = NULL;
    Py_ssize_t bad_row = -1;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &obs_o, &masks_o, &u_o, &actor_o, &hw_o, &hb_o, &critic_o, &act_o,
                          &val_o, &lp_o))
        return NULL;
    if (float_buffer(obs_o, &obs, "obs") < 0 || float_buffer(u_o, &u, "u") < 0
        || float_buffer(hw_o, &hw, "head_w") < 0 || float_buffer(hb_o, &hb, "head_b") < 0
        || float_buffer_flags(val_o, &values, "values", PyBUF_WRITABLE) < 0
        || float_buffer_flags(lp_o, &logp, "log_probs", PyBUF_WRITABLE) < 0)
        goto done;
    if (PyObject_GetBuffer(masks_o, &masks, PyBUF_C_CONTIGUOUS) < 0
        || int_buffer(act_o, &actions, "actions", 8, PyBUF_WRITABLE) < 0)
        goto done;
    if (obs.ndim != 2 || hw.ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "obs must be (rows, inputs) and head_w (actions, width)");
        goto done;
    }
    const Py_ssize_t rows = obs.shape[0], n_in = obs.shape[1], n_act = hw.shape[0], width = hw.shape[1];
    if (net_read(actor_o, n_in, 0, &actor) < 0 || net_read(critic_o, n_in, 1, &critic) < 0)
        goto done;
    if ((actor.n ? actor.layer[actor.n - 1].out : n_in) != width || hb.len / 4 != n_act
        || critic.layer[critic.n - 1].out != 1
        || masks.len != rows * n_act || u.len / 4 != rows || actions.len != rows * 8 || values.len / 4 != rows
        || logp.len / 4 != rows) {
        PyErr_SetString(PyExc_ValueError, "act: the shapes of the arrays do not agree (see the docstring)");
        goto done;
    }
    Py_ssize_t w = net_width(&actor);
    w = net_width(&critic) > w ? net_width(&critic) : w;
    w = n_act > w ? n_act : w;
    w = n_in > w ? n_in : w;
    scratch = malloc(sizeof(float) * (size_t)w * 5 + sizeof(int) * (size_t)w * 3);
    if (!scratch) {
        PyErr_NoMemory();
        goto done;
    }
    float *sa = scratch, *sb = scratch + w, *logits = scratch + 2 * w;
    float *val = scratch + 3 * w, *x_val = scratch + 4 * w;
    int *legal = (int *)(scratch + 5 * w), *idx = legal + w, *x_idx = idx + w;
    const float *X = obs.buf, *HW = hw.buf, *HB = hb.buf, *U = u.buf;
    const unsigned char *M = masks.buf;
    long long *A = actions.buf;
    float *V = values.buf, *LP = logp.buf;

    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows && bad_row < 0; r++) {
        const float *x = X + (size_t)r * n_in;
        const Py_ssize_t x_nz = nonzeros(x, n_in, x_idx, x_val);
        V[r] = net_row(&critic, x, x_idx, x_val, x_nz, sa, sb, idx, val)[0];
        const float *h = net_row(&actor, x, x_idx, x_val, x_nz, sa, sb, idx, val);
        const Py_ssize_t n_legal = legal_actions(M + (size_t)r * n_act, n_act, legal);
        float top = -INFINITY;
        for (Py_ssize_t i = 0; i < n_legal; i++) {
            const float *wa = HW + (size_t)legal[i] * width;
            float part[8] = {0};
            Py_ssize_t k = 0;
            for (; k + 8 <= width; k += 8)
                for (int q = 0; q < 8; q++)
                    part[q] += h[k + q] * wa[k + q];
            float z = HB[legal[i]];
            for (; k < width; k++)
                z += h[k] * wa[k];
            for (int q = 0; q < 8; q++)
                z += part[q];
            logits[i] = z;
            top = z > top ? z : top;
        }
        if (n_legal == 0) {
            bad_row = r;
            break;
        }
        double total = 0.0;
        for (Py_ssize_t i = 0; i < n_legal; i++)
            total += expf(logits[i] - top);
        const double target = (double)U[r] * total;
        double cum = 0.0;
        Py_ssize_t pick = n_legal - 1;  /* u * total rounded up to the total: the last legal action */
        for (Py_ssize_t i = 0; i < n_legal; i++) {
            cum += expf(logits[i] - top);
            if (cum > target) {
                pick = i;
                break;
            }
        }
        A[r] = legal[pick];
        LP[r] = (float)((double)(logits[pick] - top) - log(total));
    }
    Py_END_ALLOW_THREADS

    if (bad_row >= 0) {
        PyErr_Format(PyExc_ValueError, "act: row %zd of the masks allows no action (the env must always "
                                       "allow one, e.g. end turn)", bad_row);
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    free(scratch);
    net_release(&actor);
    net_release(&critic);
    RELEASE_AND_RETURN(result, &obs, &masks, &u, &hw, &hb, &actions, &values, &logp);
}

/* ---- the first layer of the updates: a minibatch's observations as their non-zeros (CSR) ---- */

typedef struct {
    const int *indptr, *indices;
    const float *values, *W, *b;
    const long long *sel;  /* the rows of the CSR to take, in order (NULL: all of them) */
    float *y, *yt;         /* the output by rows, or (yt, when not NULL) by columns: yt[k * ld + r] */
    Py_ssize_t rows, out, k0, k1, ld;
} Job;

#define TILE 8  /* rows computed before an output by columns is written: TILE floats at a time in each column */

/* y = b + x W (x in compressed sparse rows) on outputs k0..k1, 64 at a time over all the rows: W's columns of a
 * block (~600 KB for the skirmish's first layers) stay in the core's caches while the rows go by. tmp: scratch of
 * TILE x `out` floats, for an output by columns. */
static void run_rows(const Job *j, float *tmp) {
    for (Py_ssize_t k = j->k0; k < j->k1; k += 64) {
        const Py_ssize_t end = k + 64 < j->k1 ? k + 64 : j->k1;
        for (Py_ssize_t i0 = 0; i0 < j->rows; i0 += TILE) {
            const Py_ssize_t n = i0 + TILE < j->rows ? TILE : j->rows - i0;
            for (Py_ssize_t t = 0; t < n; t++) {
                const Py_ssize_t i = i0 + t, r = j->sel ? (Py_ssize_t)j->sel[i] : i;
                const int start = j->indptr[r];
                float *y = j->yt ? tmp + (size_t)t * j->out : j->y + (size_t)i * j->out;
                sum_row(j->W, j->out, j->b, k, end, j->indices + start, j->values + start,
                        j->indptr[r + 1] - start, y);
            }
            if (j->yt)
                for (Py_ssize_t q = k; q < end; q++) {
                    float *col = j->yt + (size_t)q * j->ld + i0;
                    for (Py_ssize_t t = 0; t < n; t++)
                        col[t] = tmp[(size_t)t * j->out + q];
                }
        }
    }
}

static void *run_job(void *arg) {
    const Job *j = arg;
    float *tmp = j->yt ? malloc(sizeof(float) * TILE * (size_t)j->out) : NULL;
    if (!j->yt || tmp)
        run_rows(j, tmp);
    free(tmp);
    return tmp || !j->yt ? NULL : (void *)1;  /* (void *)1: out of memory */
}

#define MAX_THREADS 16

/* fn on each of the n items (of `size` bytes each): items 1.. on threads of their own, item 0 on the calling one
 * (and an item whose thread did not start after it); returns 0, or -1 when one returned non-NULL (out of memory) */
static int run_threads(void *(*fn)(void *), void *items, size_t size, int n) {
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0}, failed = 0;
    char *at = items;
    for (int t = 1; t < n; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, at + (size_t)t * size) == 0;
    for (int t = 1; t < n; t++)
        if (!started[t] && fn(at + (size_t)t * size))
            failed = 1;
    if (n > 0 && fn(at))
        failed = 1;
    for (int t = 1; t < n; t++) {
        void *ret = NULL;
        if (started[t] && (pthread_join(tid[t], &ret) != 0 || ret))
            failed = 1;
    }
    return failed ? -1 : 0;
}

/* the job over the columns of `out` split into `threads` ranges (multiples of 64 where they can be), each range on
 * a thread of its own (the first on the calling one); returns 0, or -1 when one ran out of memory */
static int run_split(Job job, int threads) {
    Job jobs[MAX_THREADS];
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    Py_ssize_t chunk = (job.out + threads - 1) / threads;
    chunk = (chunk + 63) / 64 * 64;
    int n = 0;
    for (Py_ssize_t k = 0; k < job.out && n < threads; k += chunk, n++) {
        jobs[n] = job;
        jobs[n].k0 = k;
        jobs[n].k1 = k + chunk < job.out ? k + chunk : job.out;
    }
    return run_threads(run_job, jobs, sizeof(Job), n);
}

/* how many of x[0..n) are not zero (as `nonzeros` counts them) */
static Py_ssize_t count_nonzeros(const float *restrict x, Py_ssize_t n) {
    int idx;
    float val;
    return nonzeros_capped(x, n, &idx, &val, 0);
}

/* a share of `csr`'s rows: counted (each row's count in P[r + 1]), or filled (P the prefix sums by then) */
typedef struct {
    const float *X;
    Py_ssize_t cols, r0, r1;
    int *P, *I;
    float *V;
    int fill, changed;
} CsrPart;

static void *run_csr_part(void *arg) {
    CsrPart *c = arg;
    if (!c->fill) {
        for (Py_ssize_t r = c->r0; r < c->r1; r++)
            c->P[r + 1] = (int)count_nonzeros(c->X + (size_t)r * c->cols, c->cols);
        return NULL;
    }
    /* capped at the counts: x may have changed meanwhile (another thread). A row writes one scratch entry past its
     * own, the next entry's place: the rows after which the part has no entry write through `tail` instead, that
     * place being another part's (another thread's) */
    int *tail_i = malloc(sizeof(int) * (size_t)(c->cols + 1));
    float *tail_v = malloc(sizeof(float) * (size_t)(c->cols + 1));
    if (!tail_i || !tail_v) {
        free(tail_i);
        free(tail_v);
        return (void *)1;
    }
    for (Py_ssize_t r = c->r0; r < c->r1; r++) {
        const float *x = c->X + (size_t)r * c->cols;
        const Py_ssize_t want = c->P[r + 1] - c->P[r];
        const int last = c->P[r + 1] == c->P[c->r1];
        int *I = last ? tail_i : c->I + c->P[r];
        float *V = last ? tail_v : c->V + c->P[r];
        c->changed |= nonzeros_capped(x, c->cols, I, V, want < c->cols ? want : c->cols) != want;
        if (last && !c->changed) {
            memcpy(c->I + c->P[r], tail_i, sizeof(int) * (size_t)want);
            memcpy(c->V + c->P[r], tail_v, sizeof(float) * (size_t)want);
        }
    }
    free(tail_i);
    free(tail_v);
    return NULL;
}

PyDoc_STRVAR(csr_doc,
"csr(x, threads=1) -> (indptr, indices, values)\n\n"
"The non-zero entries of x (float32, rows x columns) in compressed sparse rows, as bytes: indptr int32 (rows + 1),\n"
"indices int32 and values float32 (one each an entry; `numpy.frombuffer` reads them without a copy). The rows split\n"
"over `threads` threads.");

static PyObject *csr(PyObject *self, PyObject *args) {
    PyObject *x_o, *p_b = NULL, *i_b = NULL, *v_b = NULL;
    Py_buffer x = {0};
    PyObject *result = NULL;
    int threads = 1, failed = 0;
    if (!PyArg_ParseTuple(args, "O|i", &x_o, &threads))
        return NULL;
    if (float_buffer(x_o, &x, "x") < 0)
        goto done;
    if (x.ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "csr: x must be (rows, columns)");
        goto done;
    }
    const Py_ssize_t rows = x.shape[0], cols = x.shape[1];
    if (!(p_b = PyBytes_FromStringAndSize(NULL, (rows + 1) * (Py_ssize_t)sizeof(int))))
        goto done;
    int *P = (int *)PyBytes_AS_STRING(p_b);
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    CsrPart parts[MAX_THREADS];
    int n = 0;
    for (int t = 0; t < threads; t++) {
        const Py_ssize_t r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
        if (r1 > r0)
            parts[n++] = (CsrPart){x.buf, cols, r0, r1, P, NULL, NULL, 0, 0};
    }
    Py_ssize_t nnz = 0;
    Py_BEGIN_ALLOW_THREADS
    P[0] = 0;
    failed = run_threads(run_csr_part, parts, sizeof(CsrPart), n);
    for (Py_ssize_t r = 0; r < rows && nnz <= INT32_MAX; r++) {
        nnz += P[r + 1];
        P[r + 1] = (int)(nnz <= INT32_MAX ? nnz : 0);
    }
    Py_END_ALLOW_THREADS
    if (nnz > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "csr: more than 2**31 non-zero entries");
        goto done;
    }
    /* one scratch entry past the last (`run_csr_part` writes through it) */
    if (failed || !(i_b = PyBytes_FromStringAndSize(NULL, (nnz + 1) * (Py_ssize_t)sizeof(int)))
        || !(v_b = PyBytes_FromStringAndSize(NULL, (nnz + 1) * (Py_ssize_t)sizeof(float)))) {
        if (failed)
            PyErr_NoMemory();
        goto done;
    }
    int changed = 0;
    for (int t = 0; t < n; t++) {
        parts[t].I = (int *)PyBytes_AS_STRING(i_b);
        parts[t].V = (float *)PyBytes_AS_STRING(v_b);
        parts[t].fill = 1;
    }
    Py_BEGIN_ALLOW_THREADS
    failed = run_threads(run_csr_part, parts, sizeof(CsrPart), n);
    Py_END_ALLOW_THREADS
    for (int t = 0; t < n; t++)
        changed |= parts[t].changed;
    if (failed || changed) {
        if (failed)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_RuntimeError, "csr: x changed while it was read");
        goto done;
    }
    if (_PyBytes_Resize(&i_b, nnz * (Py_ssize_t)sizeof(int)) < 0
        || _PyBytes_Resize(&v_b, nnz * (Py_ssize_t)sizeof(float)) < 0)
        goto done;
    result = PyTuple_Pack(3, p_b, i_b, v_b);
done:
    Py_XDECREF(p_b);
    Py_XDECREF(i_b);
    Py_XDECREF(v_b);
    RELEASE_AND_RETURN(result, &x);
}

/* the (indptr, indices, values) of a `csr` call and its rows */
static int read_csr(PyObject *p_o, PyObject *i_o, PyObject *v_o, Py_buffer *p, Py_buffer *ix, Py_buffer *v,
                    Py_ssize_t *rows) {
    if (int_buffer(p_o, p, "indptr", 4, 0) < 0 || int_buffer(i_o, ix, "indices", 4, 0) < 0
        || float_buffer(v_o, v, "values") < 0)
        return -1;
    *rows = p->len / 4 - 1;
    const int *P = p->buf;
    int ok = *rows >= 0 && P[0] >= 0 && P[*rows] <= ix->len / 4 && P[*rows] <= v->len / 4;
    for (Py_ssize_t r = 0; ok && r < *rows; r++)
        ok = P[r] <= P[r + 1];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "indptr, indices and values must be a `csr` call's (int32, int32, float32)");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(forward_doc,
"linear_forward(indptr, indices, values, rows, w, b, y, threads)\n\n"
"y = x w + b for x the rows `rows` (int64, or None for all) of a matrix in compressed sparse rows (`csr`), w\n"
"(float32, columns x outputs), b (outputs, or None for zeros); y: float32, rows x outputs. The outputs split\n"
"over `threads` threads; each output summed in the same order whatever their number.");

PyDoc_STRVAR(backward_doc,
"linear_backward(indptr, indices, values, rows, g, dw, threads)\n\n"
"dw = (x^T g)^T = g^T x, the weight gradient of `linear_forward` for the output gradient g (float32, rows x\n"
"outputs), in the layout of a torch Linear's weight: dw (float32, outputs x columns) is overwritten.");

/* The weight gradient dw (outputs x columns) = g^T x of the selected rows of a CSR x, as the product of x's
 * transpose, by rows, with g: each thread takes a range of x's columns (about as many non-zeros each: `tptr`, the
 * column counts' prefix sums, tells), gathers those columns' entries (the transpose of its part of x: rows renumbered
 * 0.. in their order, each column's in increasing order) and computes its columns of dw for every output. */
typedef struct {
    const int *P, *I, *tptr;
    const float *V;
    const long long *sel;
    Py_ssize_t rows, c0, c1;
    int *trow, *fill;
    float *tval;
    Job job;  /* the product, but for its rows (this part's columns) */
} BackwardPart;

static void *run_backward_part(void *arg) {
    BackwardPart *b = arg;
    int *fill = b->fill;
    memcpy(fill, b->tptr + b->c0, sizeof(int) * (size_t)(b->c1 - b->c0));
    for (Py_ssize_t i = 0; i < b->rows; i++) {
        const Py_ssize_t r = b->sel ? (Py_ssize_t)b->sel[i] : i;
        for (int k = b->P[r]; k < b->P[r + 1]; k++) {
            const int c = b->I[k];
            if (c >= b->c0 && c < b->c1 && fill[c - b->c0] < b->tptr[c + 1]) {  /* (the second: as counted) */
                const int at = fill[c - b->c0]++;
                b->trow[at] = (int)i;
                b->tval[at] = b->V[k];
            }
        }
    }
    return run_job(&b->job);
}

/* returns 0, -1 when out of memory */
static int weight_gradient(const int *P, const int *I, const float *V, const long long *sel, Py_ssize_t rows,
                           Py_ssize_t cols, const float *g, Py_ssize_t out, float *dw, int threads) {
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    int *tptr = calloc((size_t)cols + 1, sizeof(int));
    if (!tptr)
        return -1;
    for (Py_ssize_t i = 0; i < rows; i++) {
        const Py_ssize_t r = sel ? (Py_ssize_t)sel[i] : i;
        for (int k = P[r]; k < P[r + 1]; k++)
            if (I[k] >= 0 && I[k] < cols)  /* checked by the caller; again, in case they changed meanwhile */
                tptr[I[k] + 1]++;
    }
    for (Py_ssize_t c = 0; c < cols; c++)
        tptr[c + 1] += tptr[c];
    const int nnz = tptr[cols];
    void *scratch = malloc(sizeof(int) * ((size_t)nnz + (size_t)cols) + sizeof(float) * (size_t)nnz + 1);
    if (!scratch) {
        free(tptr);
        return -1;
    }
    int *trow = scratch, *fill = trow + nnz;
    float *tval = (float *)(fill + cols);
    BackwardPart parts[MAX_THREADS];
    int n = 0;
    Py_ssize_t c0 = 0;
    for (int t = 0; t < threads && c0 < cols; t++) {  /* column ranges of about nnz / threads entries each */
        Py_ssize_t c1 = c0 + 1;
        const long goal = (long)nnz * (t + 1) / threads;
        while (c1 < cols && (t == threads - 1 || tptr[c1] < goal))
            c1++;
        BackwardPart *b = &parts[n++];
        *b = (BackwardPart){P, I, tptr, V, sel, rows, c0, c1, trow, fill + c0, tval,
                            (Job){tptr + c0, trow, tval, g, NULL, NULL, NULL, dw + c0, c1 - c0, out, 0, out, cols}};
        c0 = c1;
    }
    const int failed = run_threads(run_backward_part, parts, sizeof(BackwardPart), n);
    free(scratch);
    free(tptr);
    return failed ? -1 : 0;
}

static PyObject *linear(PyObject *args, int backward) {
    PyObject *p_o, *i_o, *v_o, *r_o, *w_o, *b_o = Py_None, *y_o;
    Py_buffer p = {0}, ix = {0}, v = {0}, sel = {0}, w = {0}, b = {0}, y = {0};
    PyObject *result = NULL;
    int threads, failed = 0;
    Py_ssize_t csr_rows;
    if (backward ? !PyArg_ParseTuple(args, "OOOOOOi", &p_o, &i_o, &v_o, &r_o, &y_o, &w_o, &threads)
                 : !PyArg_ParseTuple(args, "OOOOOOOi", &p_o, &i_o, &v_o, &r_o, &w_o, &b_o, &y_o, &threads))
        return NULL;
    if (read_csr(p_o, i_o, v_o, &p, &ix, &v, &csr_rows) < 0
        || (r_o != Py_None && int_buffer(r_o, &sel, "rows", 8, 0) < 0)
        || float_buffer_flags(w_o, &w, backward ? "dw" : "w", backward ? PyBUF_WRITABLE : 0) < 0
        || float_buffer_flags(y_o, &y, backward ? "g" : "y", backward ? 0 : PyBUF_WRITABLE) < 0
        || (b_o != Py_None && float_buffer(b_o, &b, "b") < 0))
        goto done;
    const long long *S = sel.obj ? sel.buf : NULL;
    const Py_ssize_t rows = S ? sel.len / 8 : csr_rows;
    if (sel.obj && sel.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "rows must be int64");
        goto done;
    }
    /* forward: w (columns, outputs), y (rows, outputs); backward: g (rows, outputs), dw (outputs, columns) */
    const int w2 = w.ndim == 2;  /* shape[] has ndim entries (none, maybe NULL, for a 0-d array) */
    const Py_ssize_t cols = !w2 ? 0 : backward ? w.shape[1] : w.shape[0];
    const Py_ssize_t out = !w2 ? 0 : backward ? w.shape[0] : w.shape[1];
    if (w.ndim != 2 || y.ndim != 2 || y.shape[0] != rows || y.shape[1] != out || (b.obj && b.len / 4 != out)) {
        PyErr_SetString(PyExc_ValueError, backward ? "g must be (rows, outputs) and dw (outputs, columns)"
                                                   : "w must be (columns, outputs), y (rows, outputs) and b (outputs,)");
        goto done;
    }
    const int *I = ix.buf, *P = p.buf;
    Py_ssize_t nnz = 0;
    for (Py_ssize_t i = 0; i < rows; i++) {
        const Py_ssize_t r = S ? (Py_ssize_t)S[i] : i;
        if (r < 0 || r >= csr_rows) {
            PyErr_Format(PyExc_IndexError, "row %zd of a csr of %zd rows", r, csr_rows);
            goto done;
        }
        for (int k = P[r]; k < P[r + 1]; k++)
            if (I[k] < 0 || I[k] >= cols) {
                PyErr_SetString(PyExc_ValueError, "indices beyond w's columns: the csr is not of this layer's input");
                goto done;
            }
        nnz += P[r + 1] - P[r];
    }
    Py_BEGIN_ALLOW_THREADS
    if (backward) {  /* dw^T = x^T g */
        failed = weight_gradient(P, I, v.buf, S, rows, cols, y.buf, out, w.buf, threads);
    } else {
        Job job = {P, I, v.buf, w.buf, b.obj ? b.buf : NULL, S, y.buf, NULL, rows, out, 0, out, 0};
        failed = run_split(job, threads);
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    RELEASE_AND_RETURN(result, &p, &ix, &v, &sel, &w, &b, &y);
}

static PyObject *linear_forward(PyObject *self, PyObject *args) { return linear(args, 0); }
static PyObject *linear_backward(PyObject *self, PyObject *args) { return linear(args, 1); }

/* ---- the masked categorical of the updates ---- */

#define MASKED_LOGIT (-1e8f)  /* what sb3-contrib puts in place of a masked logit (fast_ppo.MASKED_LOGIT) */

PyDoc_STRVAR(stats_doc,
"masked_stats(logits, masks, actions, log_prob, entropy, p, log_p)\n\n"
"For logits (float32, rows x n) with the actions where masks (bool, rows x n) is false masked out (their logits\n"
"taken as -1e8, as sb3-contrib does): log_prob (float32, rows) of actions (int64, rows), entropy (float32, rows),\n"
"and the probabilities p and log-probabilities log_p (float32, rows x n) that `masked_stats_backward` needs. A\n"
"row with no legal action is uniform over all of them, as in torch.");

static PyObject *masked_stats(PyObject *self, PyObject *args) {
    PyObject *z_o, *m_o, *a_o, *lp_o, *h_o, *p_o, *lg_o;
    Py_buffer z = {0}, m = {0}, a = {0}, lp = {0}, h = {0}, p = {0}, lg = {0};
    PyObject *result = NULL;
    Py_ssize_t bad = -1;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &z_o, &m_o, &a_o, &lp_o, &h_o, &p_o, &lg_o))
        return NULL;
    if (float_buffer(z_o, &z, "logits") < 0 || PyObject_GetBuffer(m_o, &m, PyBUF_C_CONTIGUOUS) < 0
        || int_buffer(a_o, &a, "actions", 8, 0) < 0
        || float_buffer_flags(lp_o, &lp, "log_prob", PyBUF_WRITABLE) < 0
        || float_buffer_flags(h_o, &h, "entropy", PyBUF_WRITABLE) < 0
        || float_buffer_flags(p_o, &p, "p", PyBUF_WRITABLE) < 0
        || float_buffer_flags(lg_o, &lg, "log_p", PyBUF_WRITABLE) < 0)
        goto done;
    if (z.ndim != 2 || m.len != z.len / 4 || a.itemsize != 8 || a.len / 8 != z.shape[0] || lp.len != a.len / 2
        || h.len != lp.len || p.len != z.len || lg.len != z.len) {
        PyErr_SetString(PyExc_ValueError, "masked_stats: the shapes of the arrays do not agree (see the docstring)");
        goto done;
    }
    const Py_ssize_t rows = z.shape[0], n = z.shape[1];
    const float *Z = z.buf;
    const unsigned char *M = m.buf;
    const long long *A = a.buf;
    float *LP = lp.buf, *H = h.buf, *P = p.buf, *LG = lg.buf;
    int *legal = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!legal) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *zr = Z + (size_t)r * n;
        const unsigned char *mr = M + (size_t)r * n;
        float *pr = P + (size_t)r * n, *lr = LG + (size_t)r * n;
        const Py_ssize_t count = legal_actions(mr, n, legal);
        const int uniform = count == 0;  /* no legal action: every logit masked, so all alike */
        float top = uniform ? MASKED_LOGIT : -INFINITY;
        for (Py_ssize_t i = 0; i < count; i++)
            top = zr[legal[i]] > top ? zr[legal[i]] : top;
        for (Py_ssize_t k = 0; k < n; k++)
            pr[k] = uniform ? 1.0f : 0.0f;  /* exp(z - top) until the total is known */
        double total = uniform ? (double)n : 0.0;
        for (Py_ssize_t i = 0; i < count; i++)
            total += pr[legal[i]] = expf(zr[legal[i]] - top);
        const double log_total = log(total);
        const float inv = (float)(1.0 / total), masked_log_p = (float)((double)(MASKED_LOGIT - top) - log_total);
        for (Py_ssize_t k = 0; k < n; k++) {
            lr[k] = masked_log_p;
            pr[k] *= inv;
        }
        double entropy = uniform ? log_total : 0.0;
        for (Py_ssize_t i = 0; i < count; i++) {
            const int k = legal[i];
            lr[k] = (float)((double)(zr[k] - top) - log_total);
            entropy -= (double)pr[k] * lr[k];
        }
        const long long act = A[r];
        if (act < 0 || act >= n) {
            bad = r;
            break;
        }
        LP[r] = lr[act];
        H[r] = (float)entropy;
    }
    Py_END_ALLOW_THREADS
    free(legal);
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "masked_stats: the action of row %zd is not one of the %zd", bad, z.shape[1]);
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    RELEASE_AND_RETURN(result, &z, &m, &a, &lp, &h, &p, &lg);
}

PyDoc_STRVAR(stats_backward_doc,
"masked_stats_backward(p, log_p, entropy, actions, g_log_prob, g_entropy, grad)\n\n"
"The gradient of `masked_stats`' outputs in the logits, into grad (float32, rows x n):\n"
"    grad_k = g_log_prob ([k = a] - p_k) - g_entropy p_k (log p_k + H).");

static PyObject *masked_stats_backward(PyObject *self, PyObject *args) {
    PyObject *p_o, *lg_o, *h_o, *a_o, *glp_o, *gh_o, *g_o;
    Py_buffer p = {0}, lg = {0}, h = {0}, a = {0}, glp = {0}, gh = {0}, g = {0};
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &p_o, &lg_o, &h_o, &a_o, &glp_o, &gh_o, &g_o))
        return NULL;
    if (float_buffer(p_o, &p, "p") < 0 || float_buffer(lg_o, &lg, "log_p") < 0 || float_buffer(h_o, &h, "entropy") < 0
        || int_buffer(a_o, &a, "actions", 8, 0) < 0 || float_buffer(glp_o, &glp, "g_log_prob") < 0
        || float_buffer(gh_o, &gh, "g_entropy") < 0 || float_buffer_flags(g_o, &g, "grad", PyBUF_WRITABLE) < 0)
        goto done;
    if (p.ndim != 2 || lg.len != p.len || g.len != p.len || a.itemsize != 8 || a.len / 8 != p.shape[0]
        || h.len != a.len / 2 || glp.len != h.len || gh.len != h.len) {
        PyErr_SetString(PyExc_ValueError, "masked_stats_backward: the shapes of the arrays do not agree");
        goto done;
    }
    const Py_ssize_t rows = p.shape[0], n = p.shape[1];
    const float *P = p.buf, *LG = lg.buf, *H = h.buf, *GLP = glp.buf, *GH = gh.buf;
    const long long *A = a.buf;
    float *G = g.buf;
    for (Py_ssize_t r = 0; r < rows; r++)
        if (A[r] < 0 || A[r] >= n) {
            PyErr_Format(PyExc_IndexError, "masked_stats_backward: the action of row %zd is not one of the %zd", r, n);
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *pr = P + (size_t)r * n, *lr = LG + (size_t)r * n;
        float *gr = G + (size_t)r * n;
        const float gl = GLP[r], ge = GH[r], hr = H[r];
        for (Py_ssize_t k = 0; k < n; k++)  /* a masked action's p is 0: so is its gradient */
            gr[k] = (-ge * (lr[k] + hr) - gl) * pr[k];
        gr[A[r]] += gl;
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    RELEASE_AND_RETURN(result, &p, &lg, &h, &a, &glp, &gh, &g);
}

static PyMethodDef methods[] = {
    {"act", act, METH_VARARGS, act_doc},
    {"csr", csr, METH_VARARGS, csr_doc},
    {"linear_forward", linear_forward, METH_VARARGS, forward_doc},
    {"linear_backward", linear_backward, METH_VARARGS, backward_doc},
    {"masked_stats", masked_stats, METH_VARARGS, stats_doc},
    {"masked_stats_backward", masked_stats_backward, METH_VARARGS, stats_backward_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", "The policy's hot loops in C (agents/fast_ppo.py).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) {
#ifdef HAVE_KERNELS8
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        sum_row = sum_row8;
#endif
    return PyModule_Create(&module);
}
