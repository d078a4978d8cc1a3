/* The census kernel compiled ahead of time: the same computation as the numba kernel
 * in kernel.py (its docstring explains the method), so that a first run pays no JIT
 * compilation. Built by setup.py as harness.gamemath._kernel when a C compiler is there;
 * kernel.py falls back to the numba kernel when it is not. The two must agree to the
 * last count: tests/test_gamemath.py computes the census with both.
 *
 * Cards are indices 0..51 (rank = c >> 2, suit = c & 3); strengths are the evaluator's
 * (harness/rules/evaluator.py): category << 20, then up to five 4-bit ranks.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define HOLES 1081         /* C(47, 2) holes on a board */
#define DEALER_HANDS 990   /* C(45, 2) */
#define FLUSH_MARK (1LL << 30)
#define COLUMNS 16         /* of a census row, int32: kernel.py's layout */
#define NQ_NOT_BEATEN 10
#define WON 12
#define LOST 13
#define MAX_VALUES 1300

#include "../rules/_evaluator.h" /* the hand evaluator, shared with harness.rules._evaluator */

/* ------------------------------------------------------------------ one board */

/* The packed rows the kernel adds into: eight int64 slots of two 32-bit counts each, so
 * that a hole costs two additions instead of four. Slot 0 holds (ante, not beaten) of
 * high card, slot 1 those of a pair, slots 2 to 5 the ante counts of categories 2 and 3,
 * ..., 8 and 9, slot 6 (won, lost). No half ever carries into the other: every count
 * only grows and its total over all boards fits in 31 bits (at most 24 x 1,070,190).
 * unpack_rows turns them into the census's columns. */
#define PACKED 8
#define SLOT_WON_LOST 6

static int slot_of(int64_t category) { return category < 2 ? (int)category : 1 + (int)(category / 2); }

static uint64_t halves(int64_t low, int64_t high) { return (uint64_t)low | ((uint64_t)high << 32); }

/* A board's outcome, per hole by hole number: what the census adds to the hole's row
 * (weighted, packed: PACKED), and which hole it is. */
typedef struct {
    uint64_t ante[HOLES], won_lost[HOLES];
    uint8_t slot[HOLES];
    int16_t pair[HOLES]; /* colex index of the hole's two cards */
} Outcome;

/* A board's scratch, in types as small as their values, so that it stays in L1 */
typedef struct {
    int32_t strength[HOLES];
    uint8_t first[HOLES], second[HOLES]; /* the hole's cards, as places in avail */
    int16_t group[HOLES], order[HOLES];
    int32_t values[MAX_VALUES];
    int32_t by_ranks[2 * 169];
    int16_t start[MAX_VALUES + 1], fill[MAX_VALUES];
    int16_t nq_card[47], below_card[47], group_card[47];
    uint8_t avail[47];
    uint8_t flush_seen[1 << 13]; /* a flush's suit mask already among the values */
    int16_t flushes[HOLES];      /* the masks seen on this board */
} Work;

static void sort_values(int32_t *values, int n) { /* insertion sort: 91 and the flushes */
    for (int i = 1; i < n; i++) {
        int32_t v = values[i];
        int j = i - 1;
        while (j >= 0 && values[j] > v) {
            values[j + 1] = values[j];
            j--;
        }
        values[j + 1] = v;
    }
}

static int position(const int32_t *sorted, int n, int32_t value) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] < value) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Settle every player hole on one board against every disjoint dealer hole, and what each
 * adds to the census, weighted by the board's orbit: the numba kernel's _board_outcomes
 * and the first half of its census_chunk, step for step, but that a flush's strength
 * joins the values to sort once per suit mask, not once per hole (on a board of four
 * suited cards, some 45 values where there were 380). */
static void board_outcomes(const int64_t board[5], int64_t qualifying, int64_t weight, Work *w,
                           Outcome *o) {
    int8_t counts[13] = {0};
    int64_t masks[4] = {0};
    int used[52] = {0};
    for (int i = 0; i < 5; i++) {
        int64_t c = board[i];
        counts[c >> 2]++;
        masks[c & 3] |= (int64_t)1 << (c >> 2);
        used[c] = 1;
    }
    int flush_suit = -1;
    for (int s = 0; s < 4; s++)
        if (popcount(masks[s]) >= 3) flush_suit = s;
    int n = 0;
    for (int c = 0; c < 52; c++)
        if (!used[c]) w->avail[n++] = (uint8_t)c;

    int nvalues = 0;
    for (int r1 = 0; r1 < 13; r1++) {
        counts[r1]++;
        for (int r2 = r1; r2 < 13; r2++) {
            counts[r2]++;
            if (counts[r1] <= 4 && counts[r2] <= 4) {
                w->by_ranks[r1 * 13 + r2] = (int32_t)rank_strength(counts);
                w->values[nvalues++] = w->by_ranks[r1 * 13 + r2];
            }
            counts[r2]--;
        }
        counts[r1]--;
    }

    int holes = 0, nflushes = 0;
    for (int x = 0; x < n; x++) {
        int a = w->avail[x];
        for (int y = x + 1; y < n; y++) {
            int b = w->avail[y];
            int32_t s = w->by_ranks[(a >> 2) * 13 + (b >> 2)];
            if (flush_suit >= 0) { /* a flush needs the hole's cards of that suit, or none */
                int64_t m = masks[flush_suit];
                if ((a & 3) == flush_suit) m |= (int64_t)1 << (a >> 2);
                if ((b & 3) == flush_suit) m |= (int64_t)1 << (b >> 2);
                if (popcount(m) >= 5) {
                    s = (int32_t)flush_strength(m);
                    if (!w->flush_seen[m]) { /* each suit mask once among the values */
                        w->flush_seen[m] = 1;
                        w->flushes[nflushes++] = (int16_t)m;
                        w->values[nvalues++] = s;
                    }
                    s |= FLUSH_MARK;
                }
            }
            w->strength[holes] = s;
            w->first[holes] = (uint8_t)x;
            w->second[holes] = (uint8_t)y;
            o->pair[holes] = (int16_t)(a + b * (b - 1) / 2);
            holes++;
        }
    }

    /* counting sort of the holes into groups of equal strength */
    sort_values(w->values, nvalues);
    int groups = 0;
    for (int i = 0; i < nvalues; i++)
        if (i == 0 || w->values[i] != w->values[groups - 1]) w->values[groups++] = w->values[i];
    const int32_t *distinct = w->values;
    memset(w->start, 0, sizeof(int16_t) * (groups + 1));
    for (int v = 0; v < 169; v++)
        if (v % 13 >= v / 13) w->by_ranks[169 + v] = position(distinct, groups, w->by_ranks[v]);
    for (int h = 0; h < holes; h++) {
        int32_t s = w->strength[h];
        int g;
        if (s & FLUSH_MARK) {
            s &= ~FLUSH_MARK;
            w->strength[h] = s;
            g = position(distinct, groups, s);
        } else {
            g = w->by_ranks[169 + (w->avail[w->first[h]] >> 2) * 13 +
                            (w->avail[w->second[h]] >> 2)];
        }
        w->group[h] = (int16_t)g;
        w->start[g + 1]++;
    }
    for (int i = 0; i < nflushes; i++) w->flush_seen[w->flushes[i]] = 0; /* for the next board */
    for (int g = 0; g < groups; g++) w->start[g + 1] += w->start[g];
    memcpy(w->fill, w->start, sizeof(int16_t) * groups);
    for (int h = 0; h < holes; h++) w->order[w->fill[w->group[h]]++] = (int16_t)h;

    /* dealer hands that do not qualify, in all and per card */
    memset(w->nq_card, 0, sizeof w->nq_card);
    memset(w->below_card, 0, sizeof w->below_card);
    memset(w->group_card, 0, sizeof w->group_card);
    int nq_total = 0;
    for (int h = 0; h < holes; h++) {
        if (w->strength[h] < qualifying) {
            nq_total++;
            w->nq_card[w->first[h]]++;
            w->nq_card[w->second[h]]++;
        }
    }

    int below = 0;
    for (int g = 0; g < groups; g++) {
        int i = w->start[g], j = w->start[g + 1];
        int32_t s = distinct[g];
        int64_t cat = s >> 20;
        int slot = slot_of(cat);
        for (int q = i; q < j; q++) {
            int h = w->order[q];
            w->group_card[w->first[h]]++;
            w->group_card[w->second[h]]++;
        }
        int members = j - i;
        for (int q = i; q < j; q++) {
            int h = w->order[q], a = w->first[h], b = w->second[h];
            int64_t lower = below - w->below_card[a] - w->below_card[b];
            int64_t equal = members - w->group_card[a] - w->group_card[b] + 1;
            int64_t nq = nq_total - w->nq_card[a] - w->nq_card[b];
            int64_t ante, nqn, win, loss;
            if (s >= qualifying) { /* every non-qualifying dealer is beaten */
                ante = lower;
                nqn = 0;
                win = lower - nq;
                loss = DEALER_HANDS - lower - equal;
            } else { /* no win against a qualifying dealer, no tie with one either */
                nq++; /* the player's own hole is below the qualifier: subtracted twice */
                ante = nq;
                nqn = nq - lower;
                win = 0;
                loss = DEALER_HANDS - nq;
            }
            o->slot[h] = (uint8_t)slot;
            o->ante[h] = cat < 2 ? halves(ante * weight, nqn * weight)
                                 : (uint64_t)(ante * weight) << (32 * (cat & 1));
            o->won_lost[h] = halves(win * weight, loss * weight);
        }
        for (int q = i; q < j; q++) {
            int h = w->order[q];
            w->below_card[w->first[h]]++;
            w->below_card[w->second[h]]++;
            w->group_card[w->first[h]] = 0;
            w->group_card[w->second[h]] = 0;
        }
        below += members;
    }
}

/* ----------------------------------------------------------------- all boards */

static int64_t colex3(int64_t a, int64_t b, int64_t c, const int64_t *binom) {
    return binom[a * 6 + 1] + binom[b * 6 + 2] + binom[c * 6 + 3]; /* a < b < c */
}

/* A flop of a board in a batch: its canonical flop, the relabelling taking it there, the
 * board's place in the batch. */
typedef struct {
    int32_t canon;
    int16_t perm, board;
} Flop;

#ifndef BATCH
#define BATCH 256 /* boards settled before their rows are added to, flop by flop */
#endif

typedef struct {
    const int64_t *boards, *weight, *flop_canon, *flop_perm, *card_map, *binom;
    const int32_t *situation_of;
    Py_ssize_t nboards;
    int64_t qualifying;
    uint64_t *acc;
    int64_t *progress;
} Chunk;

/* The numba kernel's census_chunk: add each board's weighted results to the rows of
 * the ten situations whose flop is three of its cards. Boards are settled BATCH at a
 * time, then their flops taken canonical flop by canonical flop: a canonical flop's rows
 * (about 700 of 64 bytes) stay in cache while every board of the batch with that flop
 * adds to them, where board by board each addition missed the cache (the census's sums
 * are 82 MB). 0, -1 out of memory, or -2 when a table sends a hole nowhere (a damaged
 * symmetry table: the sums are then incomplete, and the caller raises). */
static int census_chunk(const Chunk *k) {
    Work *w = PyMem_RawCalloc(1, sizeof(Work));
    int32_t *image = PyMem_RawMalloc(sizeof(int32_t) * 24 * 1326);
    Outcome *outcomes = PyMem_RawMalloc(sizeof(Outcome) * BATCH);
    Flop *flops = PyMem_RawMalloc(sizeof(Flop) * 10 * BATCH * 2);
    int32_t *first = PyMem_RawMalloc(sizeof(int32_t) * (1755 + 1));
    int failed = w == NULL || image == NULL || outcomes == NULL || flops == NULL || first == NULL
                     ? -1
                     : 0;
    /* image[p][colex of a hole] = colex of the hole with its suits relabelled by p */
    for (int p = 0; !failed && p < 24; p++) {
        for (int b = 1; b < 52; b++) {
            for (int a = 0; a < b; a++) {
                int64_t x = k->card_map[p * 52 + a], y = k->card_map[p * 52 + b];
                int64_t lo = x < y ? x : y, hi = x < y ? y : x;
                image[p * 1326 + a + b * (b - 1) / 2] = (int32_t)(lo + hi * (hi - 1) / 2);
            }
        }
    }
    Flop *sorted = flops + 10 * BATCH;
    for (Py_ssize_t start = 0; !failed && start < k->nboards; start += BATCH) {
        int boards = k->nboards - start < BATCH ? (int)(k->nboards - start) : BATCH;
        /* the batch's boards settled, and their flops by canonical flop (a counting sort) */
        memset(first, 0, sizeof(int32_t) * (1755 + 1));
        int entries = 0;
        for (int bi = 0; bi < boards; bi++) {
            const int64_t *board = k->boards + 5 * (start + bi);
            board_outcomes(board, k->qualifying, k->weight[start + bi], w, outcomes + bi);
            for (int i = 0; i < 5; i++)
                for (int j = i + 1; j < 5; j++)
                    for (int l = j + 1; l < 5; l++) {
                        int64_t fi = colex3(board[i], board[j], board[l], k->binom);
                        Flop f = {(int32_t)k->flop_canon[fi], (int16_t)k->flop_perm[fi],
                                  (int16_t)bi};
                        flops[entries++] = f;
                        first[f.canon + 1]++;
                    }
        }
        for (int c = 0; c < 1755; c++) first[c + 1] += first[c];
        for (int e = 0; e < entries; e++) sorted[first[flops[e].canon]++] = flops[e];
        /* each canonical flop's rows added to by all of the batch's boards in turn, while
         * they are in cache */
        for (int e = 0; !failed && e < entries; e++) {
            const int32_t *where = k->situation_of + (int64_t)sorted[e].canon * 1326;
            const int32_t *relabelled = image + sorted[e].perm * 1326;
            const Outcome *o = outcomes + sorted[e].board;
            for (int h = 0; h < HOLES; h++) {
                int32_t s = where[relabelled[o->pair[h]]];
                if (s < 0) { /* a hole meeting the flop: never one of the board's */
                    failed = -2;
                    break;
                }
                uint64_t *row = k->acc + (int64_t)s * PACKED;
                row[o->slot[h]] += o->ante[h];
                row[SLOT_WON_LOST] += o->won_lost[h];
            }
        }
        k->progress[0] += boards;
    }
    PyMem_RawFree(w);
    PyMem_RawFree(image);
    PyMem_RawFree(outcomes);
    PyMem_RawFree(flops);
    PyMem_RawFree(first);
    return failed;
}

/* --------------------------------------------------------------- Python entry */

static int need(Py_buffer *view, Py_ssize_t bytes, const char *name) {
    if (view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, view->len, bytes);
        return 0;
    }
    return 1;
}

static PyObject *py_census_chunk(PyObject *self, PyObject *args) {
    Py_buffer boards, weight, flop_canon, flop_perm, situation_of, card_map, binom, acc,
        progress;
    long long qualifying;
    Py_ssize_t slot;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*Lw*w*n", &boards, &weight, &flop_canon,
                          &flop_perm, &situation_of, &card_map, &binom, &qualifying, &acc,
                          &progress, &slot))
        return NULL;
    Py_buffer *views[] = {&boards, &weight,  &flop_canon, &flop_perm, &situation_of,
                          &card_map, &binom, &acc,        &progress};
    Py_ssize_t nboards = weight.len / 8;
    int ok = need(&boards, nboards * 5 * 8, "boards") && need(&flop_canon, 22100 * 8, "flop_canon") &&
             need(&flop_perm, 22100 * 8, "flop_perm") &&
             need(&situation_of, 1755 * 1326 * 4, "situation_of") &&
             need(&card_map, 24 * 52 * 8, "card_map") && need(&binom, 53 * 6 * 8, "binom");
    if (ok && (acc.len % (PACKED * 8) != 0 || slot < 0 || (slot + 1) * 8 > progress.len)) {
        PyErr_SetString(PyExc_ValueError, "acc or progress of the wrong size");
        ok = 0;
    }
    if (ok) { /* every index the kernel follows must stay inside what it indexes */
        const int32_t *s = situation_of.buf;
        const int64_t *canon = flop_canon.buf, *perm = flop_perm.buf, *map = card_map.buf;
        const int64_t *board = boards.buf, *b = binom.buf;
        Py_ssize_t rows = acc.len / (PACKED * 8);
        const char *bad = NULL;
        for (Py_ssize_t i = 0; !bad && i < 1755 * 1326; i++)
            if (s[i] < -1 || s[i] >= rows) bad = "a situation number outside acc";
        for (Py_ssize_t i = 0; !bad && i < 22100; i++)
            if (canon[i] < 0 || canon[i] >= 1755 || perm[i] < 0 || perm[i] >= 24)
                bad = "a flop's canonical number or relabelling out of range";
        for (Py_ssize_t i = 0; !bad && i < 24 * 52; i++)
            if (map[i] < 0 || map[i] >= 52) bad = "a relabelled card out of range";
        for (Py_ssize_t n = 0; !bad && n < 53; n++) /* binom[n][k] = C(n, k), k < 4 */
            if (b[n * 6] != 1 || b[n * 6 + 1] != n || b[n * 6 + 2] != n * (n - 1) / 2 ||
                b[n * 6 + 3] != n * (n - 1) * (n - 2) / 6)
                bad = "binom is not the table of binomial coefficients";
        for (Py_ssize_t i = 0; !bad && i < nboards; i++)
            for (int j = 0; j < 5; j++) {
                int64_t c = board[5 * i + j];
                if (c < 0 || c >= 52 || (j > 0 && c <= board[5 * i + j - 1]))
                    bad = "a board that is not five distinct cards in ascending order";
            }
        if (bad) {
            PyErr_SetString(PyExc_ValueError, bad);
            ok = 0;
        }
    }
    int failed = 0;
    if (ok) {
        Chunk k = {boards.buf,   weight.buf, flop_canon.buf, flop_perm.buf,
                   card_map.buf, binom.buf,  situation_of.buf, nboards,
                   qualifying,   acc.buf,    (int64_t *)progress.buf + slot};
        Py_BEGIN_ALLOW_THREADS failed = census_chunk(&k);
        Py_END_ALLOW_THREADS
    }
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) PyBuffer_Release(views[i]);
    if (!ok) return NULL;
    if (failed == -1) return PyErr_NoMemory();
    if (failed == -2) {
        PyErr_SetString(PyExc_ValueError, "the symmetry tables send a hole to no situation");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_unpack_rows(PyObject *self, PyObject *args) {
    Py_buffer packed, weight, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &packed, &weight, &out)) return NULL;
    Py_ssize_t rows = packed.len / (PACKED * 8);
    Py_ssize_t uneven = -1;
    if (packed.len % (PACKED * 8) != 0 || !need(&weight, rows * 8, "weight") ||
        !need(&out, rows * COLUMNS * 4, "out")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "packed rows of the wrong size");
        PyBuffer_Release(&packed);
        PyBuffer_Release(&weight);
        PyBuffer_Release(&out);
        return NULL;
    }
    const uint64_t *in = packed.buf;
    const int64_t *w = weight.buf;
    int32_t *census = out.buf;
    for (Py_ssize_t r = 0; r < rows; r++, in += PACKED, census += COLUMNS) {
        uint64_t sums[COLUMNS] = {0};
        for (int cat = 0; cat < 10; cat++) {
            uint64_t slot = in[slot_of(cat)];
            sums[cat] = cat < 2 || !(cat & 1) ? slot & 0xFFFFFFFFu : slot >> 32;
        }
        sums[NQ_NOT_BEATEN] = in[0] >> 32;
        sums[NQ_NOT_BEATEN + 1] = in[1] >> 32;
        sums[WON] = in[SLOT_WON_LOST] & 0xFFFFFFFFu;
        sums[LOST] = in[SLOT_WON_LOST] >> 32;
        for (int c = 0; c < COLUMNS; c++) {
            if (w[r] <= 0 || sums[c] % (uint64_t)w[r]) uneven = r;
            census[c] = w[r] > 0 ? (int32_t)(sums[c] / (uint64_t)w[r]) : 0;
        }
    }
    PyBuffer_Release(&packed);
    PyBuffer_Release(&weight);
    PyBuffer_Release(&out);
    if (uneven >= 0) {
        PyErr_Format(PyExc_ArithmeticError,
                     "situation %zd: its orbit sums do not divide by its weight", uneven);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The next five-card set after `cards` in lexicographic order (the order of
 * itertools.combinations(range(52), 5)); 0 after the last. Start from {0, 1, 2, 3, 4}. */
static int next_five(int cards[5]) {
    int i = 4;
    while (i >= 0 && cards[i] == 47 + i) i--;
    if (i < 0) return 0;
    cards[i]++;
    for (int j = i + 1; j < 5; j++) cards[j] = cards[j - 1] + 1;
    return 1;
}

static PyObject *py_count_five_card_hands(PyObject *self, PyObject *args) {
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "w*", &out)) return NULL;
    if (!need(&out, 11 * 8, "out")) {
        PyBuffer_Release(&out);
        return NULL;
    }
    int64_t *tally = out.buf;
    Py_BEGIN_ALLOW_THREADS /* on its own buffer only: another thread may run meanwhile */
    memset(tally, 0, 11 * 8);
    int cards[5] = {0, 1, 2, 3, 4};
    do {
        int64_t strength = strength_of(cards, 5);
        tally[strength >> 20]++;
        if (strength >> 20 == 1 && ((strength >> 16) & 0xF) == 12) tally[10]++;
    } while (next_five(cards));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *py_five_card_sets(PyObject *self, PyObject *args) {
    Py_buffer out, keys;
    if (!PyArg_ParseTuple(args, "w*w*", &out, &keys)) return NULL;
    if (!need(&out, 2598960LL * 5 * 8, "out") || !need(&keys, 2598960LL * 8, "keys")) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&keys);
        return NULL;
    }
    int64_t *set = out.buf, *key = keys.buf;
    Py_BEGIN_ALLOW_THREADS /* on its own buffers only: the symmetry tables load meanwhile */
    int cards[5] = {0, 1, 2, 3, 4};
    do {
        int64_t masks[4] = {0};
        for (int i = 0; i < 5; i++) {
            set[i] = cards[i];
            masks[cards[i] & 3] |= (int64_t)1 << (cards[i] >> 2);
        }
        for (int i = 1; i < 4; i++) /* the four masks in ascending order */
            for (int j = i; j > 0 && masks[j - 1] > masks[j]; j--) {
                int64_t t = masks[j];
                masks[j] = masks[j - 1];
                masks[j - 1] = t;
            }
        *key++ = (masks[0] << 39) | (masks[1] << 26) | (masks[2] << 13) | masks[3];
        set += 5;
    } while (next_five(cards));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    PyBuffer_Release(&keys);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"census_chunk", py_census_chunk, METH_VARARGS,
     "census_chunk(boards, weight, flop_canon, flop_perm, situation_of, card_map, binom, "
     "qualifying, acc, progress, slot): kernel.census_chunk, compiled ahead of time."},
    {"unpack_rows", py_unpack_rows, METH_VARARGS,
     "unpack_rows(packed, weight, out): the packed rows census_chunk adds into (n x 8 "
     "uint64), each divided by its situation's weight (n int64), as census rows (n x 16 "
     "int32: kernel.py's columns, the last two zero); ArithmeticError when one does not "
     "divide exactly."},
    {"count_five_card_hands", py_count_five_card_hands, METH_VARARGS,
     "count_five_card_hands(out): categories 0-9 of all C(52,5) hands, then [10] pairs of "
     "aces, into out (11 int64)."},
    {"five_card_sets", py_five_card_sets, METH_VARARGS,
     "five_card_sets(out, keys): the C(52,5) card sets in lexicographic order into out "
     "(n x 5 int64), as itertools.combinations(range(52), 5) gives them, and each one's "
     "suit-symmetry key into keys (n int64): its four suits' rank masks, sorted, packed."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "The census kernel compiled ahead of time (kernel.py).",
                                    -1, methods};

#ifndef SOURCE_SHA256
#define SOURCE_SHA256 "" /* built without setup.py: harness/compiled.py will not trust it */
#endif

PyMODINIT_FUNC PyInit__kernel(void) {
    PyObject *m = PyModule_Create(&module);
    /* which sources this binary was built from (setup.py): harness/compiled.py compares it
     * with the sources beside it, so that an edited, unbuilt source is never trusted */
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_SHA256", SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
