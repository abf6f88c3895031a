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

/* `number (, number)*` or nothing, up to `close` (a `]`, or the end when close is 0). */
static int numbers(scan *s, char close)
{
    skip_space(s);
    if (close ? at(s, close) : s->p == s->end)
        return 1;
    for (;;) {
        if (!number(s))
            return 0;
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

static PyMethodDef methods[] = {
    {"scan_rows", scan_rows, METH_VARARGS,
     "scan_rows(text, first=True) -> (values, counts) | None: rows `[n, ...], [...]` (after a "
     "`,` unless first) as float64 and int64 bytearrays."},
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
