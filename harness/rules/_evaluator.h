/* The hand evaluator in C, shared by the census kernel (harness/gamemath/_kernel.c) and
 * the evaluator's compiled calls (harness/rules/_evaluator.c): the numba functions of
 * harness/rules/evaluator_jit.py, line for line, and proved equal to them on every
 * five-card hand and every seven-card count (tests/test_compiled.py).
 *
 * Cards are indices 0..51 (rank = c >> 2, suit = c & 3). A strength is category << 20,
 * then up to five 4-bit ranks in order of significance (harness/rules/evaluator.py).
 */
#ifndef CHCERT_EVALUATOR_H
#define CHCERT_EVALUATOR_H

#include <stdint.h>

static inline int popcount(int64_t mask) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll((unsigned long long)mask);
#else
    int bits = 0;
    while (mask) {
        mask &= mask - 1;
        bits++;
    }
    return bits;
#endif
}

static inline int straight_high(int64_t mask) {
    for (int hi = 12; hi > 3; hi--) {
        int64_t window = (int64_t)0x1F << (hi - 4);
        if ((mask & window) == window) return hi;
    }
    if ((mask & 0x100F) == 0x100F) return 3; /* the wheel: five high */
    return -1;
}

static inline int64_t top_ranks(int64_t mask, int count) {
    int64_t packed = 0;
    int taken = 0;
    for (int r = 12; r >= 0; r--) {
        if (taken == count) break;
        if (mask & ((int64_t)1 << r)) {
            packed = (packed << 4) | r;
            taken++;
        }
    }
    return packed << (4 * (5 - count));
}

static inline int64_t flush_strength(int64_t mask) {
    int hi = straight_high(mask);
    if (hi == 12) return (9LL << 20) | (12LL << 16);
    if (hi >= 0) return (8LL << 20) | ((int64_t)hi << 16);
    return (5LL << 20) | top_ranks(mask, 5);
}

static inline int64_t rank_strength(const int8_t counts[13]) {
    int64_t rank_mask = 0;
    int quad = -1, trip1 = -1, trip2 = -1, pair1 = -1, pair2 = -1;
    for (int r = 12; r >= 0; r--) {
        int c = counts[r];
        if (c == 0) continue;
        rank_mask |= (int64_t)1 << r;
        if (c == 4) {
            quad = r;
        } else if (c == 3) {
            if (trip1 < 0) trip1 = r;
            else if (trip2 < 0) trip2 = r;
        } else if (c == 2) {
            if (pair1 < 0) pair1 = r;
            else if (pair2 < 0) pair2 = r;
        }
    }
    if (quad >= 0)
        return (7LL << 20) | ((int64_t)quad << 16) |
               (top_ranks(rank_mask & ~((int64_t)1 << quad), 1) >> 4);
    if (trip1 >= 0 && (trip2 >= 0 || pair1 >= 0)) {
        int pair = trip2 > pair1 ? trip2 : pair1;
        return (6LL << 20) | ((int64_t)trip1 << 16) | ((int64_t)pair << 12);
    }
    int hi = straight_high(rank_mask);
    if (hi >= 0) return (4LL << 20) | ((int64_t)hi << 16);
    if (trip1 >= 0)
        return (3LL << 20) | ((int64_t)trip1 << 16) |
               (top_ranks(rank_mask & ~((int64_t)1 << trip1), 2) >> 4);
    if (pair2 >= 0) {
        int64_t rest = rank_mask & ~((int64_t)1 << pair1) & ~((int64_t)1 << pair2);
        return (2LL << 20) | ((int64_t)pair1 << 16) | ((int64_t)pair2 << 12) |
               (top_ranks(rest, 1) >> 8);
    }
    if (pair1 >= 0)
        return (1LL << 20) | ((int64_t)pair1 << 16) |
               (top_ranks(rank_mask & ~((int64_t)1 << pair1), 3) >> 4);
    return top_ranks(rank_mask, 5);
}

/* Strength of 5 to 7 cards given their rank counts and per-suit rank masks: a flush
 * first (with at most seven cards it excludes quads and a full house), else by ranks. */
static inline int64_t strength(const int8_t counts[13], const int64_t masks[4]) {
    for (int s = 0; s < 4; s++)
        if (popcount(masks[s]) >= 5) return flush_strength(masks[s]);
    return rank_strength(counts);
}

/* Strength of 5 to 7 cards. */
static inline int64_t strength_of(const int *cards, int n) {
    int8_t counts[13] = {0};
    int64_t masks[4] = {0};
    for (int i = 0; i < n; i++) {
        counts[cards[i] >> 2]++;
        masks[cards[i] & 3] |= (int64_t)1 << (cards[i] >> 2);
    }
    return strength(counts, masks);
}

#endif
