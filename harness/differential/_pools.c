/* The differential's biased decks compiled ahead of time: pools.py's `_draw`, draw for
 * draw (its docstring says what each deck is for). Built by setup.py as
 * harness.differential._pools when a C compiler is there; pools.py compiles `_draw` with
 * numba when it is not. The two deal the same cards from the same uniforms, bit for bit
 * (tests/test_compiled.py): the arithmetic is numba's, a float32 uniform times an integer
 * in double precision, truncated, and Python's modulo.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define PARAMS 6 /* mode, few, suit, window, rank, offset */

static int64_t floor_mod(int64_t a, int64_t b) {
    int64_t m = a % b;
    return m != 0 && (m < 0) != (b < 0) ? m + b : m;
}

static void draw(const int64_t *params, const float *weight, const float *uniforms,
                 Py_ssize_t size, Py_ssize_t width, const int64_t *windows, uint8_t *out) {
    int64_t allowed[52];
    for (Py_ssize_t i = 0; i < size; i++) {
        const int64_t *p = params + PARAMS * i;
        const float *u = uniforms + width * i;
        int64_t mode = p[0], few = p[1], suit = p[2], window = p[3], rank = p[4];
        int64_t second = floor_mod(rank + p[5], 13);
        int in_window[13] = {0}, is_allowed[52] = {0};
        for (int w = 0; w < 5; w++) {
            int64_t r = windows[window * 5 + w];
            if (r >= 0 && r < 13) in_window[r] = 1;
        }
        int64_t n = 0;
        for (int64_t card = 0; card < 52; card++) {
            int64_t r = card / 4, s = card % 4;
            int ok;
            if (mode == 0) ok = 1;
            else if (mode == 1) ok = floor_mod(r * 7 + rank, 13) < few;
            else if (mode == 2) ok = s == suit;
            else if (mode == 3) ok = in_window[r];
            else if (mode == 4) ok = in_window[r] && s == suit;
            else if (mode == 5) ok = r >= 8;
            else if (mode == 6) ok = r == rank || (in_window[r] && s == suit);
            else ok = r == rank || r == second || s == suit;
            if (ok) {
                allowed[n++] = card;
                is_allowed[card] = 1;
            }
        }
        uint8_t used[52] = {0};
        Py_ssize_t k = 0;
        int64_t left = n;
        uint8_t *row = out + 9 * i;
        for (int pos = 0; pos < 9; pos++) {
            int64_t card = -1;
            while (card < 0 && k + 1 < width) {
                int biased = left > 0 && u[k] < weight[i];
                double pick = (double)u[k + 1];
                k += 2;
                int64_t candidate = biased ? allowed[floor_mod((int64_t)(pick * (double)n), n)]
                                           : floor_mod((int64_t)(pick * 52.0), 52);
                if (!used[candidate]) card = candidate;
            }
            if (card < 0) { /* out of randomness: the lowest unused card, deterministically */
                card = 0;
                while (used[card]) card++;
            }
            used[card] = 1;
            left -= is_allowed[card]; /* allowed holds each card once */
            row[pos] = (uint8_t)card;
        }
        for (int pos = 8; pos > 0; pos--) { /* the nine shuffled over hole, dealer and board */
            double x = (double)u[floor_mod(k + pos, width)] * (double)(pos + 1);
            int64_t j = floor_mod((int64_t)x, pos + 1);
            uint8_t t = row[pos];
            row[pos] = row[j];
            row[j] = t;
        }
    }
}

/* --------------------------------------------------------------- Python entry */

static PyObject *py_draw(PyObject *self, PyObject *args) {
    Py_buffer params, weight, uniforms, windows, out;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*", &params, &weight, &uniforms, &windows, &out))
        return NULL;
    Py_buffer *views[] = {&params, &weight, &uniforms, &windows, &out};
    Py_ssize_t size = weight.len / 4;
    Py_ssize_t width = size > 0 ? uniforms.len / (4 * size) : 0;
    Py_ssize_t nwindows = windows.len / (5 * 8);
    const char *bad = NULL;
    if (params.len != size * PARAMS * 8 || uniforms.len != size * width * 4 ||
        windows.len != nwindows * 5 * 8 || out.len != size * 9 || (size > 0 && width < 1))
        bad = "params (n x 6 int64), weight (n float32), uniforms (n x m float32, m >= 1), "
              "windows (w x 5 int64), out (n x 9 uint8)";
    const int64_t *p = params.buf;
    const float *u = uniforms.buf;
    for (Py_ssize_t i = 0; !bad && i < size; i++) /* every index `draw` follows, in range */
        if (p[PARAMS * i + 3] < 0 || p[PARAMS * i + 3] >= nwindows)
            bad = "a window outside windows";
    for (Py_ssize_t i = 0; !bad && i < size * width; i++)
        if (!(u[i] >= 0.0f && u[i] < 1.0f)) bad = "a uniform outside [0, 1)";
    if (bad)
        PyErr_SetString(PyExc_ValueError, bad);
    else
        draw(p, weight.buf, u, size, width, windows.buf, out.buf);
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) PyBuffer_Release(views[i]);
    if (bad) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"draw", py_draw, METH_VARARGS,
     "draw(params, weight, uniforms, windows, out): pools._draw, into out (n x 9 uint8)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pools",
                                    "The biased decks compiled ahead of time (pools.py).", -1,
                                    methods};

#ifndef SOURCE_SHA256
#define SOURCE_SHA256 "" /* built without setup.py: harness/compiled.py will not trust it */
#endif

PyMODINIT_FUNC PyInit__pools(void) {
    PyObject *m = PyModule_Create(&module);
    /* which sources this binary was built from (setup.py): harness/compiled.py compares it
     * with the sources beside it, so that an edited, unbuilt source is never trusted */
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_SHA256", SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
