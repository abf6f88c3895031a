/* cmpc._fastdraw: a bootstrap block's counts per request, drawn and counted in one pass in C;
 * and the replicates' frontier reads (frontier_reads), numpy's operations row by row.
 *
 * `numpy.random.Generator.integers(0, n, size=rows * n, dtype=np.intp)` then `np.bincount`
 * per row, without the index array between them: the same draws from the same bit generator
 * (numpy's bounded Lemire method on 32-bit words, rejection included, as numpy's
 * random_bounded_uint64_fill does for a range below 2**32), so the counts are identical and
 * the generator ends in the same state. cmpc/ingest/resample.py keeps the numpy code as the
 * reference and uses it when this module is not built.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
/* frontier_reads repeats numpy's float operations one by one: a fused multiply-add would round
   once where numpy rounds twice. setup.py compiles this file with -ffp-contract=off (GCC and
   clang; GCC contracts by default where the target has FMA); MSVC has its pragma */
#if defined(_MSC_VER)
#pragma fp_contract(off)
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* numpy's bitgen_t (numpy/random/bitgen.h), as its "BitGenerator" capsule holds it */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/* `rows` rows of `n` counts of draws in [0, n), each draw Lemire's bounded method on 32-bit
   words as numpy's buffered_bounded_lemire_uint32; numpy draws nothing for a range of one
   value (every draw is request 0) */
#define COUNT_DRAWS(counts, bytes, n, rows, next_word, state)                                 \
    do {                                                                                      \
        const uint32_t range = (uint32_t)(n);                                                 \
        memset((counts), 0, (size_t)(bytes));                                                 \
        if (range == 1) {                                                                     \
            for (Py_ssize_t r = 0; r < (rows); r++)                                           \
                (counts)[r] = 1;                                                              \
            break;                                                                            \
        }                                                                                     \
        const uint32_t threshold = (UINT32_MAX - (range - 1)) % range;                        \
        for (Py_ssize_t r = 0; r < (rows); r++) {                                             \
            int64_t *row = (counts) + r * (n);                                                \
            for (Py_ssize_t i = 0; i < (n); i++) {                                            \
                uint64_t m = (uint64_t)next_word(state) * range;                              \
                uint32_t leftover = (uint32_t)m;                                              \
                if (leftover < range) {                                                       \
                    while (leftover < threshold) {                                            \
                        m = (uint64_t)next_word(state) * range;                               \
                        leftover = (uint32_t)m;                                               \
                    }                                                                         \
                }                                                                             \
                row[m >> 32]++;                                                               \
            }                                                                                 \
        }                                                                                     \
    } while (0)

/* whether a x b items of 8 bytes fit in a Py_ssize_t: the size checks below multiply only then,
   so a huge `rows` cannot wrap round to a small buffer's length */
static int fits8(Py_ssize_t a, Py_ssize_t b)
{
    return a >= 0 && b >= 0 && (b == 0 || a <= PY_SSIZE_T_MAX / 8 / b);
}

/* a C-contiguous buffer of native float64 ('d') or int64 ('q', or 'l' where a long is 8
   bytes), as an O& converter with cleanup: a buffer of other items is a ValueError, where its
   item size alone let a float64 pass for an int64 or a byte-swapped array through */
static int typed_view(PyObject *o, Py_buffer *view, int flags, int integer)
{
    if (PyObject_GetBuffer(o, view, flags | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return 0;
    const char *f = view->format != NULL ? view->format : "B";
    if (*f == '@')
        f++;
    int typed = f[0] != '\0' && f[1] == '\0' &&
                (integer ? f[0] == 'q' || (f[0] == 'l' && sizeof(long) == 8) : f[0] == 'd');
    if (view->itemsize != 8 || !typed) {
        PyErr_Format(PyExc_ValueError, "_fastdraw: needs a C-contiguous %s buffer, not format '%s'",
                     integer ? "int64" : "float64", view->format != NULL ? view->format : "B");
        PyBuffer_Release(view);
        return 0;
    }
    return Py_CLEANUP_SUPPORTED;
}

#define CONVERTER(name, flags, integer)                                                       \
    static int name(PyObject *o, void *view)                                                  \
    {                                                                                         \
        if (o == NULL) { /* a later argument failed: release this one */                      \
            PyBuffer_Release((Py_buffer *)view);                                              \
            return 1;                                                                         \
        }                                                                                     \
        return typed_view(o, (Py_buffer *)view, (flags), (integer));                          \
    }
CONVERTER(float64_in, PyBUF_SIMPLE, 0)
CONVERTER(float64_out, PyBUF_WRITABLE, 0)
CONVERTER(int64_in, PyBUF_SIMPLE, 1)
CONVERTER(int64_out, PyBUF_WRITABLE, 1)
#undef CONVERTER

/* a 64-bit word of a PCG64 state, an int in [0, 2**64) (the "K" format masked any int) */
static int word64(PyObject *o, void *out)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return 0;
    *(unsigned long long *)out = v;
    return 1;
}

/* a PCG64 state's held 32-bit output: in [0, 2**32) */
static int word32(PyObject *o, void *out)
{
    if (!word64(o, out))
        return 0;
    if (*(unsigned long long *)out > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "_fastdraw: a state's uinteger is below 2**32");
        return 0;
    }
    return 1;
}

/* every quantile in [0, 1]: (total - 1) * q past it would be cast to int64 undefined (the
   checker's E110 keeps a spec's percentiles inside; this guards the module's own callers) */
static int quantiles_in_range(const Py_buffer *qs, const char *who)
{
    const double *q = qs->buf;
    for (Py_ssize_t k = 0; k < qs->len / 8; k++)
        if (!(q[k] >= 0.0 && q[k] <= 1.0)) {
            PyErr_Format(PyExc_ValueError, "%s: quantiles must be in [0, 1]", who);
            return -1;
        }
    return 0;
}

static int counts_buffer(Py_buffer *out, Py_ssize_t n, Py_ssize_t rows)
{
    if (n < 1 || n > (Py_ssize_t)UINT32_MAX || rows < 0 || out->itemsize != 8 ||
        !fits8(rows, n) || out->len != n * rows * 8 || !PyBuffer_IsContiguous(out, 'C')) {
        PyBuffer_Release(out);
        PyErr_SetString(PyExc_ValueError, "draw_counts: needs 1 <= n < 2**32 and rows * n int64");
        return -1;
    }
    return 0;
}

#ifdef __SIZEOF_INT128__
/* numpy's PCG64 (XSL-RR 128/64, pcg64.h), its state copied in and out through the bit
   generator's public `state`: next_uint32 hands out the low half of a 64-bit output, then
   keeps the high half for the next call */
typedef struct {
    unsigned __int128 state, inc;
    int has_word;
    uint32_t word;
} pcg64;

static inline uint32_t pcg64_next32(pcg64 *g)
{
    if (g->has_word) {
        g->has_word = 0;
        return g->word;
    }
    const unsigned __int128 multiplier =
        ((unsigned __int128)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL;
    g->state = g->state * multiplier + g->inc;
    uint64_t hi = (uint64_t)(g->state >> 64), lo = (uint64_t)g->state;
    uint64_t xored = hi ^ lo;
    unsigned rot = (unsigned)(hi >> 58);
    uint64_t out = (xored >> rot) | (xored << ((64 - rot) & 63));
    g->has_word = 1;
    g->word = (uint32_t)(out >> 32);
    return (uint32_t)out;
}

static PyObject *draw_counts_pcg64(PyObject *self, PyObject *args)
{
    unsigned long long state_hi, state_lo, inc_hi, inc_lo, word;
    int has_word;
    Py_ssize_t n, rows;
    Py_buffer out;
    (void)self;
    if (!PyArg_ParseTuple(args, "(O&O&O&O&pO&)nnO&", word64, &state_hi, word64, &state_lo,
                          word64, &inc_hi, word64, &inc_lo, &has_word, word32, &word, &n, &rows,
                          int64_out, &out))
        return NULL;
    if (counts_buffer(&out, n, rows))
        return NULL;
    pcg64 g = {((unsigned __int128)state_hi << 64) | state_lo,
               ((unsigned __int128)inc_hi << 64) | inc_lo, has_word, (uint32_t)word};
    int64_t *counts = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    COUNT_DRAWS(counts, out.len, n, rows, pcg64_next32, &g);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    return Py_BuildValue("(KKKKiK)", (unsigned long long)(g.state >> 64),
                         (unsigned long long)g.state, (unsigned long long)(g.inc >> 64),
                         (unsigned long long)g.inc, g.has_word, (unsigned long long)g.word);
}
#endif

static PyObject *draw_counts(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    Py_ssize_t n, rows;
    Py_buffer out;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnO&", &capsule, &n, &rows, int64_out, &out))
        return NULL;
    if (counts_buffer(&out, n, rows))
        return NULL;
    bitgen_t *bitgen = (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
    if (bitgen == NULL) {
        PyBuffer_Release(&out);
        return NULL;
    }
    int64_t *counts = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    COUNT_DRAWS(counts, out.len, n, rows, bitgen->next_uint32, bitgen->state);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* One target draw number (0-based) and where its rank goes. */
typedef struct {
    int64_t target;
    int64_t *slot;
} wanted;

/* One row's ranks (its m counts in rank order, `total` of them): for each quantile, as the
   numpy code finds them, virtual = (total - 1) * q, its floor and the next rank, written to
   lo[k * stride] and hi[k * stride]; `want` has room for 2 * nq targets. */
static void row_ranks(const int64_t *row, Py_ssize_t m, int64_t total, const double *q,
                      Py_ssize_t nq, wanted *want, int64_t *lo, int64_t *hi, Py_ssize_t stride)
{
    for (Py_ssize_t k = 0; k < nq; k++) {
        double below = floor((double)(total - 1) * q[k]);
        double above = below + 1 < (double)(total - 1) ? below + 1 : (double)(total - 1);
        want[2 * k] = (wanted){(int64_t)below, lo + k * stride};
        want[2 * k + 1] = (wanted){(int64_t)above, hi + k * stride};
    }
    /* a few targets, nearly in order already (ranks rise with q): insertion sort, a tenth
       of qsort's cost on a row of a small run */
    for (Py_ssize_t a = 1; a < 2 * nq; a++) {
        wanted held = want[a];
        Py_ssize_t b = a;
        for (; b > 0 && want[b - 1].target > held.target; b--)
            want[b] = want[b - 1];
        want[b] = held;
    }
    /* the rank whose counts hold each target: the first whose running sum passes it,
       found from the start for the lower half of the draws and from the end (total less
       the running sum from there) for the upper half, so p99 is not a pass over it all */
    Py_ssize_t t = 0, j = 0, split = 0;
    while (split < 2 * nq && (total <= 0 || want[split].target < total / 2))
        split++;
    int64_t running = row[0];
    for (; t < split; t++) {
        while (running <= want[t].target && j < m - 1)
            running += row[++j];
        *want[t].slot = j;
    }
    j = m - 1;
    int64_t after = row[j]; /* draws at ranks j.. : those before j are total - after */
    for (t = 2 * nq - 1; t >= split; t--) {
        while (total - after > want[t].target && j > 0)
            after += row[--j];
        *want[t].slot = j;
    }
}

static int int64_buffer(Py_buffer *b, Py_ssize_t items, const char *what)
{
    if (b->itemsize != 8 || b->len != items * 8 || !PyBuffer_IsContiguous(b, 'C')) {
        PyErr_Format(PyExc_ValueError, "percentile_ranks: %s needs %zd 8-byte items", what, items);
        return -1;
    }
    return 0;
}

static PyObject *percentile_ranks(PyObject *self, PyObject *args)
{
    Py_buffer counts, qs, low, high, sizes;
    Py_ssize_t rows, m, known = -1;
    PyObject *result = NULL;
    wanted *want = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&nnO&O&O&O&|n", int64_in, &counts, &rows, &m, float64_in, &qs,
                          int64_out, &low, int64_out, &high, int64_out, &sizes, &known))
        return NULL;
    Py_ssize_t nq = qs.len / 8, width = rows > 0 ? counts.len / 8 / rows : 0;
    if (rows < 0 || m < 1 || m > width || qs.itemsize != 8 || qs.len != nq * 8 ||
        !fits8(nq, rows) || int64_buffer(&counts, rows * width, "counts") || int64_buffer(&low, nq * rows, "low") ||
        int64_buffer(&high, nq * rows, "high") || int64_buffer(&sizes, rows, "sizes")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "percentile_ranks: needs 1 <= m <= width");
        goto done;
    }
    if (quantiles_in_range(&qs, "percentile_ranks"))
        goto done;
    want = PyMem_Malloc(sizeof(wanted) * (size_t)(2 * nq + 1));
    if (want == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *c = counts.buf;
    const double *q = qs.buf;
    int64_t *lo = low.buf, *hi = high.buf, *size = sizes.buf;
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *row = c + r * width;
        int64_t total = 0;
        if (known >= 0 && m == width)
            total = known; /* every row's counts sum to `known`: no pass to count them */
        else
            for (Py_ssize_t j = 0; j < m; j++)
                total += row[j];
        size[r] = total;
        row_ranks(row, m, total, q, nq, want, lo + r, hi + r, rows);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(want);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&qs);
    PyBuffer_Release(&low);
    PyBuffer_Release(&high);
    PyBuffer_Release(&sizes);
    return result;
}

/* one row of counts times one column of values: whole numbers, exact in any order while
   below 2**53, so four running sums (the one definition weighted_sums and bootstrap_jackknife_pcg64 share) */
static inline double counts_dot(const int64_t *row, const double *values, Py_ssize_t n)
{
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    Py_ssize_t j = 0;
    for (; j + 4 <= n; j += 4)
        for (int lane = 0; lane < 4; lane++)
            acc[lane] += (double)row[j + lane] * values[j + lane];
    for (; j < n; j++)
        acc[0] += (double)row[j] * values[j];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static PyObject *weighted_sums(PyObject *self, PyObject *args)
{
    Py_buffer counts, table, out;
    Py_ssize_t rows, n;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&nnO&O&", int64_in, &counts, &rows, &n, float64_in, &table,
                          float64_out, &out))
        return NULL;
    Py_ssize_t k = n > 0 ? table.len / 8 / n : 0;
    if (rows < 0 || n < 1 || !fits8(rows, n) || !fits8(rows, k) || counts.itemsize != 8 ||
        counts.len != rows * n * 8 || table.itemsize != 8 || table.len != k * n * 8 ||
        out.itemsize != 8 || out.len != rows * k * 8 || !PyBuffer_IsContiguous(&counts, 'C') ||
        !PyBuffer_IsContiguous(&table, 'C') || !PyBuffer_IsContiguous(&out, 'C')) {
        PyBuffer_Release(&counts);
        PyBuffer_Release(&table);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "weighted_sums: needs rows x n int64 counts, "
                                          "k x n float64 table, rows x k float64 out");
        return NULL;
    }
    const int64_t *c = counts.buf;
    const double *v = table.buf;
    double *sum = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *row = c + r * n;
        for (Py_ssize_t col = 0; col < k; col++)
            sum[r * k + col] = counts_dot(row, v + col * n, n);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&counts);
    PyBuffer_Release(&table);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

#ifdef __SIZEOF_INT128__
/* One metric `bootstrap_jackknife_pcg64` ranks: its requests in rank order (`order`, or all n in place),
   its quantiles and where each row's ranks and draw count go. */
typedef struct {
    int in_place;
    Py_buffer order, qs, values, out;
    Py_ssize_t stride; /* out's row length: rows and more (the jackknife's columns after) */
    int held;          /* how many of the buffers above are held (released in this order) */
} ranked_metric;

static void release_metric(ranked_metric *r)
{
    Py_buffer *views[] = {&r->order, &r->qs, &r->values, &r->out};
    for (int i = 0; i < r->held; i++)
        PyBuffer_Release(views[i]);
    r->held = 0;
}

static int take_metric(PyObject *item, ranked_metric *r, Py_ssize_t n, Py_ssize_t rows)
{
    PyObject *flag, *order, *qs, *values, *out;
    r->held = 0;
    if (!PyTuple_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "bootstrap_jackknife_pcg64: each metric is a tuple "
                                         "(in_place, order, qs, values, out)");
        return -1;
    }
    if (!PyArg_ParseTuple(item, "OOOOO", &flag, &order, &qs, &values, &out))
        return -1;
    PyObject *objects[] = {order, qs, values, out};
    Py_buffer *views[] = {&r->order, &r->qs, &r->values, &r->out};
    for (int i = 0; i < 4; i++) {
        if (!typed_view(objects[i], views[i], i < 3 ? PyBUF_SIMPLE : PyBUF_WRITABLE, i == 0))
            return -1;
        r->held++;
    }
    if (quantiles_in_range(&r->qs, "bootstrap_jackknife_pcg64"))
        return -1;
    /* its truth last, once the buffers are held: __bool__ runs Python code */
    if ((r->in_place = PyObject_IsTrue(flag)) < 0)
        return -1;
    Py_ssize_t m = r->order.len / 8, nq = r->qs.len / 8;
    r->stride = nq > 0 ? r->out.len / 8 / nq : 0;
    if ((r->in_place ? m != n : (m < 1 || m > n)) || r->values.len != m * 8 || nq < 1 ||
        r->stride < rows || r->out.len != nq * r->stride * 8) {
        PyErr_SetString(PyExc_ValueError,
                        "bootstrap_jackknife_pcg64: a metric needs 1 <= m <= n ranks, m values, "
                        "len(qs) >= 1 rows of at least rows + jackknife out");
        return -1;
    }
    const int64_t *at = r->order.buf;
    for (Py_ssize_t j = 0; j < m; j++)
        if (at[j] < 0 || at[j] >= n) {
            PyErr_SetString(PyExc_ValueError, "bootstrap_jackknife_pcg64: a rank's request is out of range");
            return -1;
        }
    return 0;
}

/* The bootstrap's rows one at a time, each drawn, counted, summed and ranked while its n
   counts are in the first-level cache: the same draws as draw_counts_pcg64 (row after row
   from the one stream), the same sums as weighted_sums, the same ranks as percentile_ranks
   and the same percentiles from them as resample.py `_from_ranks`, without the rows x n
   counts between them. Then, with `jackknife` J > 0, the grouped jackknife's J rows after
   them (request i left out of row g when i mod J is g; nothing drawn), summed and ranked
   alike, their draws counted from their counts as percentile_ranks counts them. */
static PyObject *bootstrap_jackknife_pcg64(PyObject *self, PyObject *args)
{
    unsigned long long state_hi, state_lo, inc_hi, inc_lo, word;
    int has_word;
    Py_ssize_t n, rows, jackknife = 0;
    Py_buffer table, sums;
    PyObject *metrics, *result = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "(O&O&O&O&pO&)nnO&O&O|n", word64, &state_hi, word64, &state_lo,
                          word64, &inc_hi, word64, &inc_lo, &has_word, word32, &word, &n, &rows,
                          float64_in, &table, float64_out, &sums, &metrics, &jackknife))
        return NULL;
    /* a tuple of its own: the caller's list could change (an item's __bool__) while it is read */
    PyObject *items = PySequence_Tuple(metrics);
    Py_ssize_t count = items ? PyTuple_GET_SIZE(items) : 0, taken = 0;
    ranked_metric *ranked = items ? PyMem_Calloc((size_t)count + 1, sizeof(ranked_metric)) : NULL;
    int64_t *counts = NULL, *ordered = NULL, *ranks = NULL;
    wanted *want = NULL;
    Py_ssize_t k = n > 0 ? table.len / 8 / n : 0, most_q = 0;
    if (items == NULL || ranked == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    /* every row: the bootstrap's, then the jackknife's (0 <= J <= 1000: a few groups) */
    Py_ssize_t all = rows >= 0 && jackknife >= 0 && jackknife <= 1000 &&
                             rows <= PY_SSIZE_T_MAX - jackknife
                         ? rows + jackknife
                         : -1;
    if (n < 1 || n > (Py_ssize_t)UINT32_MAX || rows < 0 || all < 0 || !fits8(all, n) ||
        !fits8(all, k) || table.itemsize != 8 || table.len != k * n * 8 || sums.itemsize != 8 ||
        sums.len != all * k * 8 || !PyBuffer_IsContiguous(&table, 'C') ||
        !PyBuffer_IsContiguous(&sums, 'C')) {
        PyErr_SetString(PyExc_ValueError, "bootstrap_jackknife_pcg64: needs 1 <= n < 2**32, k x n float64 "
                                          "table, k x (rows + jackknife) float64 sums, "
                                          "0 <= jackknife <= 1000");
        goto done;
    }
    if (k == 0 && count == 0) { /* nothing to sum or rank: no draws, the state as it came */
        result = Py_BuildValue("(KKKKiK)", state_hi, state_lo, inc_hi, inc_lo, has_word, word);
        goto done;
    }
    for (; taken < count; taken++) {
        if (take_metric(PyTuple_GET_ITEM(items, taken), &ranked[taken], n, all) < 0) {
            taken++; /* its buffers held so far are released below */
            goto done;
        }
        if (ranked[taken].qs.len / 8 > most_q)
            most_q = ranked[taken].qs.len / 8;
    }
    counts = PyMem_Malloc(sizeof(int64_t) * (size_t)n);
    ordered = PyMem_Malloc(sizeof(int64_t) * (size_t)n);
    want = PyMem_Malloc(sizeof(wanted) * (size_t)(2 * most_q + 1));
    ranks = PyMem_Malloc(sizeof(int64_t) * (size_t)(2 * most_q + 1));
    if (counts == NULL || ordered == NULL || want == NULL || ranks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    pcg64 g = {((unsigned __int128)state_hi << 64) | state_lo,
               ((unsigned __int128)inc_hi << 64) | inc_lo, has_word, (uint32_t)word};
    const double *v = table.buf;
    double *sum = sums.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < all; r++) {
        int64_t drawn = n; /* a bootstrap row draws n requests */
        if (r < rows) {
            COUNT_DRAWS(counts, n * 8, n, 1, pcg64_next32, &g);
        } else { /* jackknife group r - rows left out (resample.py `_count_blocks`) */
            Py_ssize_t group = r - rows;
            drawn = 0;
            for (Py_ssize_t j = 0; j < n; j++)
                drawn += counts[j] = j % jackknife != group;
        }
        for (Py_ssize_t col = 0; col < k; col++) /* as weighted_sums */
            sum[col * all + r] = counts_dot(counts, v + col * n, n); /* column by column */
        for (Py_ssize_t i = 0; i < count; i++) { /* as percentile_ranks */
            ranked_metric *metric = &ranked[i];
            Py_ssize_t m = metric->order.len / 8, nq = metric->qs.len / 8;
            const int64_t *row = counts;
            int64_t total = drawn;
            if (!metric->in_place) {
                const int64_t *at = metric->order.buf;
                total = 0;
                for (Py_ssize_t j = 0; j < m; j++)
                    total += ordered[j] = counts[at[j]];
                row = ordered;
            }
            const double *q = metric->qs.buf, *values = metric->values.buf;
            double *out = (double *)metric->out.buf + r;
            row_ranks(row, m, total, q, nq, want, ranks, ranks + nq, 1);
            /* resample.py `_from_ranks`: the lerp between the two ranks, as numpy computes it */
            for (Py_ssize_t at = 0; at < nq; at++) {
                double virtual = (double)(total - 1) * q[at], below = floor(virtual);
                double lo = values[ranks[at]], hi = values[ranks[nq + at]];
                out[at * metric->stride] = total > 0 ? lo + (hi - lo) * (virtual - below) : NAN;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(KKKKiK)", (unsigned long long)(g.state >> 64),
                           (unsigned long long)g.state, (unsigned long long)(g.inc >> 64),
                           (unsigned long long)g.inc, g.has_word, (unsigned long long)g.word);
done:
    for (Py_ssize_t i = 0; ranked != NULL && i < taken; i++)
        release_metric(&ranked[i]);
    PyMem_Free(ranked);
    PyMem_Free(counts);
    PyMem_Free(ordered);
    PyMem_Free(want);
    PyMem_Free(ranks);
    Py_XDECREF(items);
    PyBuffer_Release(&table);
    PyBuffer_Release(&sums);
    return result;
}
#endif

/* numpy's maximum and minimum on float64 arrays: NaN if either is, else the larger (smaller),
   the second on a tie (as its SIMD loops: max(-0.0, 0.0) is 0.0, max(0.0, -0.0) is -0.0) */
static inline double np_max(double a, double b)
{
    return a != a ? a : b != b ? b : a > b ? a : b;
}

static inline double np_min(double a, double b)
{
    return a != a ? a : b != b ? b : a < b ? a : b;
}

static inline double np_sign(double v)
{
    return v > 0 ? 1.0 : v < 0 ? -1.0 : v == 0 ? 0.0 : v;
}

/* whether point a sorts before point b in lexsort((-ys, xs)): xs holds no NaN (an unusable
   point is +inf) and ys none (-inf), so this is a strict weak order; -0.0 ties with 0.0, as
   numpy's comparisons have it */
static inline int point_before(const double *xs, const double *ys, Py_ssize_t a, Py_ssize_t b)
{
    return xs[a] < xs[b] || (xs[a] == xs[b] && -ys[a] < -ys[b]);
}

#define SORT_RUN 16 /* points per run sorted by insertion before the merges */

/* order = 0..cols-1 stably sorted as lexsort((-ys, xs)) sorts them, in O(cols log cols):
   insertion-sorted runs, then bottom-up merges that take the left run's point on a tie;
   `spare` has room for cols indices */
static void sort_points(const double *xs, const double *ys, Py_ssize_t cols, Py_ssize_t *order,
                        Py_ssize_t *spare)
{
    for (Py_ssize_t start = 0; start < cols; start += SORT_RUN) {
        Py_ssize_t end = start + SORT_RUN < cols ? start + SORT_RUN : cols;
        for (Py_ssize_t a = start; a < end; a++) {
            Py_ssize_t b = a;
            for (; b > start && point_before(xs, ys, a, order[b - 1]); b--)
                order[b] = order[b - 1];
            order[b] = a;
        }
    }
    Py_ssize_t *from = order, *to = spare;
    for (Py_ssize_t width = SORT_RUN; width < cols; width *= 2) {
        for (Py_ssize_t lo = 0; lo < cols; lo += 2 * width) {
            Py_ssize_t mid = lo + width < cols ? lo + width : cols;
            Py_ssize_t hi = mid + width < cols ? mid + width : cols;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = point_before(xs, ys, from[j], from[i]) ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        Py_ssize_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != order)
        memcpy(order, from, sizeof(Py_ssize_t) * (size_t)cols);
}

/* One row's frontier knots as compute/frontier_batch.py `frontiers` finds them: the usable
   points by interactivity, the highest throughput of each, kept while above every later one;
   fx and fy get the `count` knots then NaN to `cols`. */
static Py_ssize_t row_frontier(const double *x, const double *y, Py_ssize_t cols, double *xs,
                               double *ys, Py_ssize_t *order, double *fx, double *fy)
{
    for (Py_ssize_t j = 0; j < cols; j++) {
        int usable = isfinite(x[j]) && isfinite(y[j]);
        xs[j] = usable ? x[j] : INFINITY;
        ys[j] = usable ? y[j] : -INFINITY;
    }
    /* lexsort((-ys, xs)): by interactivity, then by throughput falling; stable */
    sort_points(xs, ys, cols, order, order + cols);
    /* later: the highest throughput after each sorted point (only the first at each
       interactivity counts); a point is kept above it */
    double later = -INFINITY;
    Py_ssize_t count = 0;
    for (Py_ssize_t j = cols - 1; j >= 0; j--) {
        double px = xs[order[j]];
        int first = j == 0 || px != xs[order[j - 1]];
        double py = first ? ys[order[j]] : -INFINITY;
        int keep = first && isfinite(px) && py > later;
        later = np_max(later, py);
        if (keep) { /* kept from the end: placed once counted, below */
            fx[cols - 1 - count] = px;
            fy[cols - 1 - count] = py;
            count++;
        }
    }
    /* the kept knots were written from the end backwards: move them to the front */
    for (Py_ssize_t j = 0; j < count; j++) {
        fx[j] = fx[cols - count + j];
        fy[j] = fy[cols - count + j];
    }
    for (Py_ssize_t j = count; j < cols; j++)
        fx[j] = fy[j] = NAN;
    return count;
}

#define KNOT(a, j) (a)[(j) < 0 ? 0 : (j) > cols - 1 ? cols - 1 : (j)]

/* `_read_knots` for one row (`n` knots in fx, fy, NaN to `cols`): the same operations in the
   same order as the numpy code on the same row, so the same bits */
static double row_read(const double *fx, const double *fy, Py_ssize_t n, Py_ssize_t cols,
                       double target, int method, double at_knot)
{
    Py_ssize_t knot = -1;
    for (Py_ssize_t j = 0; j < cols && knot < 0; j++)
        if (fabs(fx[j] - target) <= at_knot * np_max(fabs(fx[j]), fabs(target)))
            knot = j;
    double at = knot >= 0 ? fx[knot] : target;
    Py_ssize_t last = n - 1 > 0 ? n - 1 : 0;
    if (!(n > 0 && fx[0] <= at && at <= fx[last]))
        return NAN;
    if (knot >= 0)
        return fy[knot];
    if (n == 1)
        return fy[0];
    Py_ssize_t below = 0;
    for (Py_ssize_t j = 0; j < cols; j++)
        below += fx[j] <= at;
    Py_ssize_t top = n - 2 > 0 ? n - 2 : 0, k = below - 1;
    k = k < 0 ? 0 : k > top ? top : k;
    double x0 = KNOT(fx, k), x1 = KNOT(fx, k + 1), y0 = KNOT(fy, k), y1 = KNOT(fy, k + 1);
    if (method == 1) {
        double t = (at - x0) / (x1 - x0);
        return y0 + t * (y1 - y0);
    }
    if (method == 2)
        return at - x0 < x1 - at ? y0 : y1;
    /* steffen: H, S and the interior slopes as `_steffen` defines them */
#define H(j) (KNOT(fx, (j) + 1) - KNOT(fx, (j)))
#define S(j) ((KNOT(fy, (j) + 1) - KNOT(fy, (j))) / H(j))
    double slopes[2];
    for (int side = 0; side < 2; side++) {
        Py_ssize_t i = k + side, pick = n == 2 ? -1 : i == 0 ? 0 : i == n - 1 ? n - 2 : i;
        double found;
        if (pick < 0) {
            found = S(0);
        } else {
            Py_ssize_t c = i == 0 ? 1 : pick; /* the interior knot the slope is made from */
            double h0 = H(c - 1), h1 = H(c), s0 = S(c - 1), s1 = S(c);
            double p = (s0 * h1 + s1 * h0) / (h0 + h1);
            double limited = np_min(np_min(fabs(s0), fabs(s1)), 0.5 * fabs(p));
            double inner = (np_sign(s0) + np_sign(s1)) * limited;
            if (i == 0)
                found = (3 * S(0) - inner) / 2;
            else if (i == n - 1)
                found = (3 * S(n - 2) - inner) / 2;
            else
                found = inner;
        }
        slopes[side] = found;
    }
    double h = H(k);
    double t = (at - KNOT(fx, k)) / h;
    double t2 = t * t, t3 = t * t * t;
    double raw = (2 * t3 - 3 * t2 + 1) * KNOT(fy, k) + (t3 - 2 * t2 + t) * h * slopes[0] +
                 (-2 * t3 + 3 * t2) * KNOT(fy, k + 1) + (t3 - t2) * h * slopes[1];
#undef H
#undef S
    return np_min(np_max(raw, fy[last]), fy[0]);
}
#undef KNOT

static PyObject *frontier_reads(PyObject *self, PyObject *args)
{
    Py_buffer x, y, out;
    Py_ssize_t rows, cols;
    double target, at_knot, scale;
    int method, mirrored;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&O&nnddipO&", float64_in, &x, float64_in, &y, &rows, &cols,
                          &target, &at_knot, &method, &mirrored, float64_out, &out))
        return NULL;
    double *work = NULL;
    Py_ssize_t *order = NULL;
    /* cols <= PY_SSIZE_T_MAX / 32: the four rows of doubles below fit */
    if (rows < 0 || cols < 1 || !fits8(rows, cols) || !fits8(4, cols) || method < 0 || method > 2 ||
        x.itemsize != 8 || x.len != rows * cols * 8 || y.itemsize != 8 || y.len != x.len ||
        out.itemsize != 8 || out.len != rows * 8 || !PyBuffer_IsContiguous(&x, 'C') ||
        !PyBuffer_IsContiguous(&y, 'C') || !PyBuffer_IsContiguous(&out, 'C')) {
        PyErr_SetString(PyExc_ValueError, "frontier_reads: needs rows x cols float64 x and y "
                                          "(cols >= 1), rows float64 out, method 0-2");
        goto done;
    }
    if (rows == 0)
        goto done;
    work = PyMem_Malloc(sizeof(double) * 4 * (size_t)cols);
    order = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)cols); /* the sort's and its spare */
    if (work == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    scale = -1000.0; /* mirrored: -1000 / interactivity, the latency axis in ms, negated */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        double *xs = work, *ys = work + cols, *fx = work + 2 * cols, *fy = work + 3 * cols;
        const double *xr = (const double *)x.buf + r * cols, *yr = (const double *)y.buf + r * cols;
        Py_ssize_t n = row_frontier(xr, yr, cols, xs, ys, order, fx, fy);
        if (mirrored)
            for (Py_ssize_t j = 0; j < cols; j++)
                fx[j] = scale / fx[j];
        ((double *)out.buf)[r] = row_read(fx, fy, n, cols, target, method, at_knot);
    }
    Py_END_ALLOW_THREADS
done:
    PyMem_Free(work);
    PyMem_Free(order);
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    PyBuffer_Release(&out);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* base64 (RFC 4648, padded, no newline), two output characters per table lookup of 12 bits:
   binascii.b2a_base64's bytes, as an ASCII str (no bytes object decoded after) */
static uint16_t b64_pairs[4096];

static void b64_init(void)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 4096; i++) {
        unsigned char pair[2] = {(unsigned char)alphabet[i >> 6], (unsigned char)alphabet[i & 63]};
        memcpy(&b64_pairs[i], pair, 2);
    }
}

static PyObject *b64_ascii(PyObject *self, PyObject *arg)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Py_buffer data;
    (void)self;
    /* any C-contiguous buffer, read as bytes (a strided array's buffer is refused) */
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t len = data.len;
    if (len < 0 || len / 3 >= PY_SSIZE_T_MAX / 4 - 1) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_OverflowError, "b64_ascii: buffer too large");
        return NULL;
    }
    Py_ssize_t whole = len / 3, tail = len - whole * 3;
    PyObject *text = PyUnicode_New(4 * (whole + (tail > 0)), 127);
    if (text == NULL) {
        PyBuffer_Release(&data);
        return NULL;
    }
    const unsigned char *in = data.buf;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(text);
    for (Py_ssize_t g = 0; g < whole; g++, in += 3, out += 4) {
        uint32_t v = ((uint32_t)in[0] << 16) | ((uint32_t)in[1] << 8) | in[2];
        memcpy(out, &b64_pairs[v >> 12], 2);
        memcpy(out + 2, &b64_pairs[v & 0xFFF], 2);
    }
    if (tail) {
        uint32_t v = ((uint32_t)in[0] << 16) | (tail == 2 ? (uint32_t)in[1] << 8 : 0);
        out[0] = (Py_UCS1)alphabet[v >> 18];
        out[1] = (Py_UCS1)alphabet[(v >> 12) & 63];
        out[2] = tail == 2 ? (Py_UCS1)alphabet[(v >> 6) & 63] : '=';
        out[3] = '=';
    }
    PyBuffer_Release(&data);
    return text;
}

/* the ASCII bytes json writes between a string's quotes unchanged (printable ASCII but the
   quote and the backslash: ensure_ascii's plain characters), or None when it would escape
   any: cache.py `_verbatim_bytes`, one pass over the text */
static PyObject *verbatim_ascii(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "verbatim_ascii: needs a str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(arg) < 0) /* a legacy str's data made canonical (a no-op from 3.12) */
        return NULL;
#endif
    if (!PyUnicode_IS_ASCII(arg))
        Py_RETURN_NONE;
    const Py_UCS1 *text = PyUnicode_1BYTE_DATA(arg);
    Py_ssize_t len = PyUnicode_GET_LENGTH(arg);
    unsigned bad = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS1 c = text[i];
        bad |= (c < 0x20) | (c > 0x7E) | (c == '"') | (c == '\\');
    }
    if (bad)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)text, len);
}

/* numpy's SeedSequence (bit_generator.pyx) from 32-bit entropy words: the pool's hashmix and
   mix, then generate_state(4, uint64), all in uint32 arithmetic as numpy's own; resample.py
   `_pool` and `_generate_state` are the reference */
static PyObject *seed_state(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *items = PySequence_Tuple(arg);
    if (items == NULL)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(items);
    uint32_t *words = PyMem_Malloc(sizeof(uint32_t) * (size_t)(count > 4 ? count : 4));
    if (words == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < 4; i++)
        words[i] = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        unsigned long long v = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(items, i));
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyMem_Free(words);
            Py_DECREF(items);
            return NULL;
        }
        if (v > UINT32_MAX) {
            PyMem_Free(words);
            Py_DECREF(items);
            PyErr_SetString(PyExc_ValueError, "seed_state: each word is below 2**32");
            return NULL;
        }
        words[i] = (uint32_t)v;
    }
    Py_DECREF(items);
    uint32_t hash_const = 0x43B0D7E5u, mixer[4];
#define HASHMIX(value, out)                                                                   \
    do {                                                                                      \
        uint32_t h_ = (value) ^ hash_const;                                                   \
        hash_const *= 0x931E8875u;                                                            \
        h_ *= hash_const;                                                                     \
        (out) = h_ ^ (h_ >> 16);                                                              \
    } while (0)
#define MIX(x, y, out)                                                                        \
    do {                                                                                      \
        uint32_t m_ = 0xCA01F9DDu * (x) - 0x4973F715u * (y);                                  \
        (out) = m_ ^ (m_ >> 16);                                                              \
    } while (0)
    for (int i = 0; i < 4; i++)
        HASHMIX(words[i], mixer[i]);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            if (src != dst) {
                uint32_t x = mixer[dst], h;
                HASHMIX(mixer[src], h);
                MIX(x, h, mixer[dst]);
            }
    for (Py_ssize_t src = 4; src < count; src++)
        for (int dst = 0; dst < 4; dst++) {
            uint32_t x = mixer[dst], h;
            HASHMIX(words[src], h);
            MIX(x, h, mixer[dst]);
        }
#undef HASHMIX
#undef MIX
    PyMem_Free(words);
    uint32_t out32[8];
    hash_const = 0x8B51F9DDu;
    for (int i = 0; i < 8; i++) {
        uint32_t value = mixer[i % 4] ^ hash_const;
        hash_const *= 0x58F38DEDu;
        value *= hash_const;
        out32[i] = value ^ (value >> 16);
    }
    unsigned long long state[4];
    for (int i = 0; i < 4; i++)
        state[i] = (unsigned long long)out32[2 * i] | ((unsigned long long)out32[2 * i + 1] << 32);
    return Py_BuildValue("(KKKK)", state[0], state[1], state[2], state[3]);
}

static PyMethodDef methods[] = {
    {"b64_ascii", b64_ascii, METH_O,
     "b64_ascii(buffer) -> str: the buffer's bytes in base64 (padded, no newline), as "
     "base64.b64encode(data).decode('ascii') writes them."},
    {"draw_counts", draw_counts, METH_VARARGS,
     "draw_counts(capsule, n, rows, out) -> None: `rows` bootstrap resamples of n requests "
     "drawn from the bit generator's capsule, counted per request into `out` (rows * n "
     "int64, C order)."},
#ifdef __SIZEOF_INT128__
    {"draw_counts_pcg64", draw_counts_pcg64, METH_VARARGS,
     "draw_counts_pcg64(state, n, rows, out) -> state: `draw_counts` from a PCG64 state "
     "(state high and low 64 bits, inc high and low, has_uint32, uinteger), inlined; returns "
     "the state after."},
#endif
    {"percentile_ranks", percentile_ranks, METH_VARARGS,
     "percentile_ranks(counts, rows, m, qs, low, high, sizes) -> None: per row of `counts` "
     "(rows x width int64, its first m columns in rank order), the draws (`sizes`) and each "
     "quantile's two neighbouring ranks of numpy's `linear` method (`low`, `high`: len(qs) x "
     "rows int64); `known`, when given, is every row's sum of counts."},
#ifdef __SIZEOF_INT128__
    {"bootstrap_jackknife_pcg64", bootstrap_jackknife_pcg64, METH_VARARGS,
     "bootstrap_jackknife_pcg64(state, n, rows, table, sums, metrics[, jackknife]) -> state: "
     "`rows` bootstrap rows drawn from a PCG64 state as draw_counts_pcg64 draws them, each "
     "row's counts times each row of `table` into `sums` (k x rows: one row a column) as "
     "weighted_sums, and for each metric (in_place, order, qs, values, out) its `linear` "
     "percentiles into out's first rows (+ jackknife) columns "
     "(len(qs) x stride), one row at a time; with `jackknife` J, the grouped jackknife's J "
     "rows after them (sums and out have room for rows + J); returns the state after "
     "(unchanged, nothing drawn, when there is no column and no metric)."},
#endif
    {"frontier_reads", frontier_reads, METH_VARARGS,
     "frontier_reads(x, y, rows, cols, target, at_knot, method, mirrored, out) -> None: each "
     "row's Pareto frontier of (x, y) read at `target` (method 0 steffen, 1 linear, 2 "
     "nearest; `mirrored`: along -1000 / x), NaN where unreachable, as "
     "compute/frontier_batch.py reads it in numpy."},
    {"seed_state", seed_state, METH_O,
     "seed_state(words) -> (w0, w1, w2, w3): SeedSequence(entropy).generate_state(4, uint64) "
     "from the entropy's 32-bit words, least significant first."},
    {"verbatim_ascii", verbatim_ascii, METH_O,
     "verbatim_ascii(text) -> bytes | None: the text's ASCII bytes if json writes it "
     "unescaped between its quotes (printable ASCII but '\"' and '\\'), else None."},
    {"weighted_sums", weighted_sums, METH_VARARGS,
     "weighted_sums(counts, rows, n, table, out) -> None: out[r, k] = counts[r] . table[k] "
     "(rows x n int64, k x n float64 whole numbers, rows x k float64)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cmpc._fastdraw",
                                    "Bootstrap counts drawn and counted in C.", -1, methods};

PyMODINIT_FUNC PyInit__fastdraw(void)
{
    b64_init();
    return PyModule_Create(&module);
}
