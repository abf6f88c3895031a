/* cmpc._fastswap: two paths exchanged in one step (Linux renameat2 with RENAME_EXCHANGE).
 *
 * A build swaps its new outputs in for the old ones with it, so a build killed at any moment
 * leaves one or the other (cmpc/build/outputs.py). Reaching the call through ctypes cost every
 * rebuild 1.7 ms of imports; outputs.py keeps the ctypes way for a build without this module.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define RENAME_EXCHANGE_FLAG 2 /* RENAME_EXCHANGE in <linux/fs.h> */

static PyObject *exchange(PyObject *self, PyObject *args) {
    PyObject *a = NULL, *b = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&O&:exchange", PyUnicode_FSConverter, &a,
                          PyUnicode_FSConverter, &b)) {
        Py_XDECREF(a);
        return NULL;
    }
    long status = -1;
#if defined(__linux__) && defined(SYS_renameat2)
    Py_BEGIN_ALLOW_THREADS
    status = syscall(SYS_renameat2, AT_FDCWD, PyBytes_AS_STRING(a), AT_FDCWD,
                     PyBytes_AS_STRING(b), RENAME_EXCHANGE_FLAG);
    Py_END_ALLOW_THREADS
#endif
    Py_DECREF(a);
    Py_DECREF(b);
    return PyBool_FromLong(status == 0);
}

static PyMethodDef methods[] = {
    {"exchange", exchange, METH_VARARGS,
     "exchange(a, b, /) -> bool: swap two paths in one step; False where unsupported."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastswap", "Two paths exchanged in one step.", -1, methods,
};

PyMODINIT_FUNC PyInit__fastswap(void) { return PyModule_Create(&module); }
