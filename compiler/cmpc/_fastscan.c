/* cmpc._fastscan: the number arrays of a JSON result file to doubles, one pass in C.
 *
 * The pure-numpy reader in cmpc/traces/jsonscan.py stays the reference: these functions
 * accept a strict subset of what it accepts (JSON numbers only) and return None on anything
 * else, so the caller falls back to it for the diagnostics.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKEN 64

typedef struct {
    const char *p, *end;
    double *values;
    Py_ssize_t n;
    int64_t *counts;
    Py_ssize_t rows;
} scan;

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
#define X87 1
static const long double POW10L[] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
static int extended; /* set at import: the FPU really rounds to 64 bits (not so on every OS) */
#else
#define X87 0
#endif

static int is_digit(const scan *s) { return s->p < s->end && (unsigned)(*s->p - '0') < 10; }

static int at(const scan *s, char c) { return s->p < s->end && *s->p == c; }

static void skip_space(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

/* Digits into m while it stays exact; `sig` counts them from the first nonzero one. */
static int digits(scan *s, uint64_t *m, int *sig)
{
    const char *from = s->p;
    for (; is_digit(s); s->p++)
        if (*m || *s->p != '0') {
            if (*sig < 19)
                *m = *m * 10 + (uint64_t)(*s->p - '0');
            (*sig)++;
        }
    return (int)(s->p - from);
}

/* One JSON number (RFC 8259 grammar) appended to s->values; 0 if there is none or it is not
 * finite. The result is the correctly rounded double, as Python's float() gives. */
static int number(scan *s)
{
    const char *from = s->p;
    uint64_t m = 0;
    int sig = 0, frac = 0, exp = 0, neg = at(s, '-');
    s->p += neg;
    if (at(s, '0'))
        s->p++;
    else if (!digits(s, &m, &sig))
        return 0;
    if (at(s, '.')) {
        s->p++;
        if (!(frac = digits(s, &m, &sig)))
            return 0;
    }
    if (at(s, 'e') || at(s, 'E')) {
        s->p++;
        int eneg = at(s, '-');
        s->p += eneg || at(s, '+');
        if (!is_digit(s))
            return 0;
        for (; is_digit(s); s->p++)
            if (exp < 10000)
                exp = exp * 10 + (*s->p - '0');
        exp = eneg ? -exp : exp;
    }
    double v;
    int scale = exp - frac;
#if FLT_EVAL_METHOD == 0
    /* Clinger's fast path: both operands exact, so the one rounding is strtod's */
    if (sig <= 19 && m < ((uint64_t)1 << 53) && scale >= -22 && scale <= 22) {
        v = scale < 0 ? (double)m / POW10[-scale] : (double)m * POW10[scale];
        s->values[s->n++] = neg ? -v : v;
        return 1;
    }
#endif
#if X87
    /* 19 digits and 10**27 are exact in x87 extended precision, so its one rounding leaves
     * the rounding to double right unless the result sits exactly on a double's midpoint */
    if (extended && sig <= 19 && scale >= -27 && scale <= 27) {
        long double q = scale < 0 ? (long double)m / POW10L[-scale]
                                  : (long double)m * POW10L[scale];
        uint64_t bits; /* the 64-bit significand, 11 bits more than a double's */
        memcpy(&bits, &q, sizeof bits);
        if (m == 0 || (bits & 0x7FF) != 0x400) {
            v = (double)q;
            s->values[s->n++] = neg ? -v : v;
            return 1;
        }
    }
#endif
    char token[MAX_TOKEN], *stop;
    size_t len = (size_t)(s->p - from);
    if (len >= MAX_TOKEN)
        return 0;
    memcpy(token, from, len);
    token[len] = '\0';
    v = strtod(token, &stop);
    if (stop != token + len || !isfinite(v))
        return 0;
    s->values[s->n++] = v;
    return 1;
}

#define ROOM 48 /* bytes ahead that hold any number the fast path takes, and the byte after */

#if FLT_EVAL_METHOD == 0 && defined(__GNUC__) && defined(__BYTE_ORDER__) &&                     \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
static const uint64_t POW10_INT[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* How many of the 8 bytes at p are ASCII digits before the first that is not (8: all are). */
static inline int digit_run(const unsigned char *p, uint64_t *chunk)
{
    memcpy(chunk, p, 8);
    /* the top bit of each byte below '0' (after the subtraction) or above '9' (after the
     * addition); a carry or borrow only ever reaches the bytes after the first such byte */
    uint64_t flags = ((*chunk - 0x3030303030303030ULL) | (*chunk + 0x4646464646464646ULL)) &
                     0x8080808080808080ULL;
    return flags ? __builtin_ctzll(flags) >> 3 : 8;
}

/* The value of the first `run` (1 to 8) digits of `chunk`, eight at once (simdjson's method):
 * the digits are shifted to the top, so the bytes below read as leading zeros. */
static inline uint64_t digits_value(uint64_t chunk, int run)
{
    uint64_t v = (chunk - 0x3030303030303030ULL) << (8 * (8 - run));
    v = v * 10 + (v >> 8);
    v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
         (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
        32;
    return (uint32_t)v;
}
#else
#define SWAR 0
#endif

/* `number` for the common `-?digits(.digits)?` of at most 19 digits: the same m and scale as
 * `number`, so the same double, eight digits at a time and without a branch on how many there
 * are; anything else (and the last bytes of the text) goes to `number`. */
static int plain_number(scan *s)
{
#if SWAR
    if (s->end - s->p < ROOM)
        return number(s);
    const unsigned char *p = (const unsigned char *)s->p;
    int neg = *p == '-';
    p += neg;
    uint64_t chunk, m = 0;
    int run, nd = 1, frac = 0;
    if (p[0] == '0' && p[1] == '.') /* as most latencies in seconds start: a branch, not a */
        p++;                        /* data dependency from one number's start to the next */
    else {
        run = digit_run(p, &chunk);
        /* no digit, 8 or more (a long integer part), or a leading zero before a digit */
        if (run == 0 || run == 8 || (run > 1 && *p == '0'))
            return number(s);
        m = digits_value(chunk, run);
        nd = run;
        p += run;
    }
    if (*p == '.') {
        p++;
        do {
            run = digit_run(p, &chunk);
            if (run) /* wraps past 19 digits; then nd > 19 sends the number to `number` */
                m = m * POW10_INT[run] + digits_value(chunk, run);
            frac += run;
            p += run;
        } while (run == 8 && frac < 24);
        if (frac == 0 || run == 8)
            return number(s);
        nd += frac;
    }
    /* an exponent or too many digits: `number` decides */
    if ((*p | 0x20) == 'e' || nd > 19 || frac > 22 || m >= ((uint64_t)1 << 53))
        return number(s);
    double v = frac ? (double)m / POW10[frac] : (double)m * POW10[0];
    s->values[s->n++] = neg ? -v : v;
    s->p = (const char *)p;
    return 1;
#else
    return number(s);
#endif
}

/* `number (, number)*` or nothing, up to `close` (a `]`, or the end when close is 0). */
static int numbers(scan *s, char close)
{
    skip_space(s);
    if (close ? at(s, close) : s->p == s->end)
        return 1;
    for (;;) {
        if (!plain_number(s))
            return 0;
        if (s->end - s->p > 2 && s->p[0] == ',' && s->p[1] == ' ' && s->p[2] != ' ') {
            s->p += 2; /* the usual `n, n`: straight on */
            continue;
        }
        if (at(s, ',')) {
            s->p++;
            skip_space(s);
            continue;
        }
        skip_space(s);
        if (close ? at(s, close) : s->p == s->end)
            return 1;
        if (!at(s, ','))
            return 0;
        s->p++;
        skip_space(s);
    }
}

/* `[numbers] (, [numbers])*`, preceded by a `,` when this piece continues an array. */
static int rows(scan *s, int first)
{
    for (skip_space(s); s->p < s->end; skip_space(s)) {
        if (!first) {
            if (!at(s, ','))
                return 0;
            s->p++;
            skip_space(s);
        }
        first = 0;
        if (!at(s, '['))
            return 0;
        s->p++;
        Py_ssize_t before = s->n;
        if (!numbers(s, ']'))
            return 0;
        s->p++;
        s->counts[s->rows++] = s->n - before;
    }
    return 1;
}

/* A bytearray, not bytes, so that numpy.frombuffer gives a writable array without a copy. */
static PyObject *array(const void *data, size_t size)
{
    return PyByteArray_FromStringAndSize(data, (Py_ssize_t)size);
}

/* Run `rows` (ragged) or `numbers` over buf without the GIL; the result, or None. */
static PyObject *run(PyObject *buf, int ragged, int first)
{
    Py_buffer view;
    if (PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (strcmp(localeconv()->decimal_point, ".") != 0) { /* strtod reads the locale's point */
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    size_t most = (size_t)view.len / 2 + 1; /* each number or row takes 2 bytes at least */
    scan s = {view.buf, (const char *)view.buf + view.len, malloc(most * sizeof(double)), 0,
              ragged ? malloc(most * sizeof(int64_t)) : NULL, 0};
    PyObject *result = NULL;
    if (s.values == NULL || (ragged && s.counts == NULL)) {
        PyErr_NoMemory();
        goto done;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = ragged ? rows(&s, first) : numbers(&s, 0);
    Py_END_ALLOW_THREADS
    if (!ok)
        result = Py_NewRef(Py_None);
    else if (ragged)
        result = Py_BuildValue("(NN)", array(s.values, s.n * sizeof(double)),
                               array(s.counts, s.rows * sizeof(int64_t)));
    else
        result = array(s.values, s.n * sizeof(double));
done:
    free(s.values);
    free(s.counts);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *scan_rows(PyObject *self, PyObject *args)
{
    PyObject *buf;
    int first = 1;
    if (!PyArg_ParseTuple(args, "O|p:scan_rows", &buf, &first))
        return NULL;
    return run(buf, 1, first);
}

static PyObject *scan_numbers(PyObject *self, PyObject *buf) { return run(buf, 0, 1); }

/* `scan_rows`, the values and row lengths appended to two bytearrays (the output columns)
 * instead of copied out of a temporary: each piece's numbers are written once, in place. */
static PyObject *scan_rows_into(PyObject *self, PyObject *args)
{
    PyObject *buf, *values, *counts;
    int first = 1;
    if (!PyArg_ParseTuple(args, "OpO!O!:scan_rows_into", &buf, &first, &PyByteArray_Type, &values,
                          &PyByteArray_Type, &counts))
        return NULL;
    if (strcmp(localeconv()->decimal_point, ".") != 0) /* strtod reads the locale's point */
        Py_RETURN_NONE;
    Py_buffer view;
    if (PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t had_values = PyByteArray_GET_SIZE(values), had_counts = PyByteArray_GET_SIZE(counts);
    Py_ssize_t most = view.len / 2 + 1; /* each number or row takes 2 bytes at least */
    if (had_values % sizeof(double) || had_counts % sizeof(int64_t)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "columns hold whole float64 and int64 values");
        return NULL;
    }
    /* room for the most the piece can hold: pages never written cost no memory */
    if (PyByteArray_Resize(values, had_values + most * (Py_ssize_t)sizeof(double)) < 0 ||
        PyByteArray_Resize(counts, had_counts + most * (Py_ssize_t)sizeof(int64_t)) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    scan s = {view.buf, (const char *)view.buf + view.len,
              (double *)(PyByteArray_AS_STRING(values) + had_values), 0,
              (int64_t *)(PyByteArray_AS_STRING(counts) + had_counts), 0};
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = rows(&s, first);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (!ok)
        s.n = s.rows = 0; /* the columns as they were */
    if (PyByteArray_Resize(values, had_values + s.n * (Py_ssize_t)sizeof(double)) < 0 ||
        PyByteArray_Resize(counts, had_counts + s.rows * (Py_ssize_t)sizeof(int64_t)) < 0)
        return NULL;
    if (!ok)
        Py_RETURN_NONE;
    return PyLong_FromSsize_t(s.n);
}

#define MAX_BRACKETS 64
#define BRACKET_BLOCK 4096 /* values: 32 KiB, in L1 while each bracket passes over them */

/* brackets(x, bounds) -> (under, inside): for each bracket [lo, hi] of the flat sequence
 * `bounds` (lo0, hi0, lo1, hi1, ...), how many values of the float64 buffer x are below lo,
 * and the values within, in their order; what order_statistics' blocked numpy pass gives. */
static PyObject *brackets(PyObject *self, PyObject *args)
{
    PyObject *buf, *bounds;
    if (!PyArg_ParseTuple(args, "OO:brackets", &buf, &bounds))
        return NULL;
    PyObject *seq = PySequence_Fast(bounds, "bounds must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq) / 2;
    if (PySequence_Fast_GET_SIZE(seq) % 2 || k > MAX_BRACKETS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "bounds are pairs, at most 64 of them");
        return NULL;
    }
    double lo[MAX_BRACKETS], hi[MAX_BRACKETS];
    Py_ssize_t under[MAX_BRACKETS] = {0}, used[MAX_BRACKETS] = {0}, room[MAX_BRACKETS] = {0};
    double *inside[MAX_BRACKETS] = {NULL};
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < k; i++) {
        lo[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, 2 * i));
        hi[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, 2 * i + 1));
    }
    Py_DECREF(seq);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(buf, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const double *x = view.buf;
    Py_ssize_t n = view.len / (Py_ssize_t)sizeof(double);
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < k && !failed; i++) {
        room[i] = n / 16 + 64;
        failed = (inside[i] = malloc(room[i] * sizeof(double))) == NULL;
    }
    /* block by block (in L1), bracket by bracket, with every running figure in a register */
    for (Py_ssize_t from = 0; from < n && !failed; from += BRACKET_BLOCK) {
        Py_ssize_t to = from + BRACKET_BLOCK < n ? from + BRACKET_BLOCK : n;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (used[i] + (to - from) > room[i]) {
                Py_ssize_t want = 2 * room[i] + (to - from);
                double *more = realloc(inside[i], want * sizeof(double));
                if (more == NULL) {
                    failed = 1;
                    break;
                }
                inside[i] = more;
                room[i] = want;
            }
            const double l = lo[i], h = hi[i];
            double *out = inside[i];
            Py_ssize_t below = 0, w = used[i];
            for (Py_ssize_t j = from; j < to; j++) {
                /* no branch on the comparisons: around a median they go either way at random */
                double v = x[j];
                below += v < l;
                out[w] = v;
                w += (v >= l) & (v <= h);
            }
            under[i] += below;
            used[i] = w;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *counts = PyTuple_New(k), *kept = PyTuple_New(k);
    if (counts == NULL || kept == NULL) {
        Py_XDECREF(counts);
        Py_XDECREF(kept);
        goto done;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyTuple_SET_ITEM(counts, i, PyLong_FromSsize_t(under[i]));
        PyTuple_SET_ITEM(kept, i, array(inside[i], used[i] * sizeof(double)));
    }
    result = Py_BuildValue("(NN)", counts, kept);
done:
    for (Py_ssize_t i = 0; i < k; i++)
        free(inside[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_rows", scan_rows, METH_VARARGS,
     "scan_rows(text, first=True) -> (values, counts) | None: rows `[n, ...], [...]` (after a "
     "`,` unless first) as float64 and int64 bytearrays."},
    {"scan_rows_into", scan_rows_into, METH_VARARGS,
     "scan_rows_into(text, first, values, counts) -> int | None: `scan_rows`, appended to the "
     "float64 and int64 bytearrays `values` and `counts`; the numbers added, or None (columns "
     "unchanged)."},
    {"brackets", brackets, METH_VARARGS,
     "brackets(x, bounds) -> (under, inside): per bracket (lo, hi) of the flat `bounds`, the "
     "count of float64 values of x below lo and a bytearray of those within, in order."},
    {"scan_numbers", scan_numbers, METH_O,
     "scan_numbers(text) -> values | None: comma-separated JSON numbers as a float64 bytearray."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cmpc._fastscan",
                                    "JSON number arrays to doubles in C.", -1, methods};

PyMODINIT_FUNC PyInit__fastscan(void)
{
#if X87
    volatile long double one = 1.0L, tiny = 0x1p-63L;
    extended = one + tiny != one;
#endif
    return PyModule_Create(&module);
}
