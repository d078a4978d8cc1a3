/* The hand evaluator's compiled calls (harness/rules/evaluator.py): strengths of one hand
 * and of many, and the exhaustive count of the seven-card hands, from the evaluator in
 * _evaluator.h. Built by setup.py as harness.rules._evaluator when a C compiler is there;
 * evaluator.py runs the numba twins (evaluator_jit.py) when it is not. The two agree to
 * the last bit: tests/test_compiled.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "_evaluator.h"

/* Strength of each of n hands of k cards (row after row), into out. */
static void evaluate(const uint8_t *hands, Py_ssize_t n, int k, int32_t *out) {
    for (Py_ssize_t i = 0; i < n; i++, hands += k) {
        int8_t counts[13] = {0};
        int64_t masks[4] = {0};
        for (int j = 0; j < k; j++) {
            counts[hands[j] >> 2]++;
            masks[hands[j] & 3] |= (int64_t)1 << (hands[j] >> 2);
        }
        out[i] = (int32_t)strength(counts, masks);
    }
}

/* Category counts of the seven-card hands whose lowest card is `a`: rank counts and suit
 * masks kept down the nested loops, so that each hand costs one `strength` call (the
 * numba count_all_seven_card_hands, loop for loop). */
static void count_seven(int a, int64_t tally[10]) {
    int8_t counts[13] = {0};
    int64_t masks[4] = {0};
#define ADD(c) (counts[(c) >> 2]++, masks[(c) & 3] |= (int64_t)1 << ((c) >> 2))
#define REMOVE(c) (counts[(c) >> 2]--, masks[(c) & 3] &= ~((int64_t)1 << ((c) >> 2)))
    ADD(a);
    for (int b = a + 1; b < 47; b++) {
        ADD(b);
        for (int c = b + 1; c < 48; c++) {
            ADD(c);
            for (int d = c + 1; d < 49; d++) {
                ADD(d);
                for (int e = d + 1; e < 50; e++) {
                    ADD(e);
                    for (int f = e + 1; f < 51; f++) {
                        ADD(f);
                        for (int g = f + 1; g < 52; g++) {
                            ADD(g);
                            tally[strength(counts, masks) >> 20]++;
                            REMOVE(g);
                        }
                        REMOVE(f);
                    }
                    REMOVE(e);
                }
                REMOVE(d);
            }
            REMOVE(c);
        }
        REMOVE(b);
    }
#undef ADD
#undef REMOVE
}

/* --------------------------------------------------------------- Python entry */

static int cards_ok(const uint8_t *cards, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (cards[i] >= 52) {
            PyErr_Format(PyExc_ValueError, "card index %d outside 0..51", (int)cards[i]);
            return 0;
        }
    return 1;
}

static PyObject *py_strength(PyObject *self, PyObject *args) {
    Py_buffer cards;
    if (!PyArg_ParseTuple(args, "y*", &cards)) return NULL;
    PyObject *result = NULL;
    if (cards.len < 5 || cards.len > 7)
        PyErr_Format(PyExc_ValueError, "a poker hand is evaluated from 5 to 7 cards, got %zd",
                     cards.len);
    else if (cards_ok(cards.buf, cards.len)) {
        int32_t out;
        evaluate(cards.buf, 1, (int)cards.len, &out);
        result = PyLong_FromLong(out);
    }
    PyBuffer_Release(&cards);
    return result;
}

/* Hands from which the interpreter is let go while they are evaluated (about half a
   millisecond of work): taking it back from a thread that holds it waits up to the switch
   interval, which a batch of a few hundred hands would spend waiting. */
#define RELEASE_AT 4096

static PyObject *py_evaluate(PyObject *self, PyObject *args) {
    Py_buffer hands, out;
    int k;
    if (!PyArg_ParseTuple(args, "y*iw*", &hands, &k, &out)) return NULL;
    Py_ssize_t n = k > 0 ? hands.len / k : 0;
    int ok = 1;
    if (k < 5 || k > 7 || hands.len != n * k || out.len != n * 4) {
        PyErr_SetString(PyExc_ValueError, "hands of 5 to 7 cards (n * k bytes), out n int32");
        ok = 0;
    }
    if (ok) ok = cards_ok(hands.buf, hands.len);
    if (ok && n < RELEASE_AT)
        evaluate(hands.buf, n, k, out.buf);
    else if (ok) {
        Py_BEGIN_ALLOW_THREADS evaluate(hands.buf, n, k, out.buf);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&hands);
    PyBuffer_Release(&out);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_count_seven_card_hands(PyObject *self, PyObject *args) {
    Py_buffer lowest, out;
    if (!PyArg_ParseTuple(args, "y*w*", &lowest, &out)) return NULL;
    int ok = 1;
    if (out.len != 10 * 8) {
        PyErr_SetString(PyExc_ValueError, "out: 10 int64");
        ok = 0;
    }
    for (Py_ssize_t i = 0; ok && i < lowest.len; i++)
        if (((uint8_t *)lowest.buf)[i] > 45) {
            PyErr_SetString(PyExc_ValueError, "a lowest card outside 0..45");
            ok = 0;
        }
    if (ok) {
        int64_t *tally = out.buf;
        const uint8_t *cards = lowest.buf;
        Py_BEGIN_ALLOW_THREADS for (int i = 0; i < 10; i++) tally[i] = 0;
        for (Py_ssize_t i = 0; i < lowest.len; i++) count_seven(cards[i], tally);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&lowest);
    PyBuffer_Release(&out);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"strength", py_strength, METH_VARARGS,
     "strength(cards): the strength of 5 to 7 card indices (bytes)."},
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(hands, k, out): the strength of each hand of k cards (hands: n x k uint8, "
     "row after row) into out (n int32), without the GIL."},
    {"count_seven_card_hands", py_count_seven_card_hands, METH_VARARGS,
     "count_seven_card_hands(lowest, out): categories 0-9 of the seven-card hands whose "
     "lowest card is one of `lowest` (bytes), into out (10 int64), without the GIL."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_evaluator",
                                    "The hand evaluator compiled ahead of time (evaluator.py).",
                                    -1, methods};

#ifndef SOURCE_SHA256
#define SOURCE_SHA256 "" /* built without setup.py: harness/compiled.py will not trust it */
#endif

PyMODINIT_FUNC PyInit__evaluator(void) {
    PyObject *m = PyModule_Create(&module);
    /* which sources this binary was built from (setup.py): harness/compiled.py compares it
     * with the sources beside it, so that an edited, unbuilt source is never trusted */
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_SHA256", SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
