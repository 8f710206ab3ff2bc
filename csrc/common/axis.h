/* Per-axis parameters, what Dequant and Quant share: the period of the
 * repeating parameter tables, carving the caller's workspace, and the
 * 16-lane vectors of the parameter-vector leaves. */
#ifndef SK_COMMON_AXIS_H
#define SK_COMMON_AXIS_H
#include <stdint.h>
#include <string.h>
#include "../include/simakernels.h"

/* Channels a workspace is sized for at most (its sizes stay far from
 * uint64 overflow). */
#define SK_AXIS_MAX_COUNT ((int64_t)1 << 40)

/* Lanes per block of the parameter-vector leaves (a multiple of every
 * route's vector). */
#define SK_AXIS_LANES 16
/* Table positions at least: leaf calls long enough to amortise the call,
 * tables small enough for the L1 cache (8 KiB per 1024; docs/PERF.md). */
#define SK_AXIS_MIN_PERIOD 1024
/* Channel runs shorter than this, packed one after another, go to the
 * table entry's runs leaf where it has one: below it, entering a leaf per
 * run costs as much as the run (docs/PERF.md). */
#define SK_AXIS_SHORT_RUN 256

/* The table period for `count` channels: a multiple of the count, and of
 * the block when that stays within 64K positions (then a run's blocks never
 * straddle the repeat), and at least SK_AXIS_MIN_PERIOD positions. */
static inline int64_t sk_axis_period(int64_t count) {
    int64_t a = count, b = SK_AXIS_LANES;
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    const int64_t lcm = count / a * SK_AXIS_LANES;
    const int64_t base = lcm <= 65536 ? lcm : count;
    return base * ((SK_AXIS_MIN_PERIOD + base - 1) / base);
}

/* Pieces of a caller's workspace, each 16-byte aligned; `bytes` is what
 * they took (carving from a NULL base only counts). */
typedef struct sk_carve {
    char *base;
    uint64_t bytes;
} sk_carve;

static inline void *sk_carve_take(sk_carve *c, uint64_t bytes) {
    char *at = c->base ? c->base + c->bytes : NULL;
    c->bytes += (bytes + 15) & ~(uint64_t)15;
    return at;
}

/* A workspace the caller gave for `need` bytes: present, aligned, long enough. */
static inline int sk_axis_space_ok(const void *space, uint64_t have, uint64_t need) {
    return space && ((uintptr_t)space & 15u) == 0 && have >= need;
}

/* The workspace of a per-axis or blocked plan whose leaves read a table
 * (Quant and the affine operations), carved in this order: `sets` arrays
 * of `count` contexts of ctx_size bytes (a set per state of the control
 * register the plan tells apart), `sets` tables of table_size bytes (the
 * pieces up to here are all that execute reads), then the periodic
 * leaves' repeating values (multipliers or scales) and zero points,
 * `period` positions: sk_axis_period(count), or the entry count when
 * blocked (one position per entry in the walk's table order). */
typedef struct sk_axis_pieces {
    void *ctx[2];
    void *table;
    float *values;
    int32_t *zero_point;
    int64_t period;
} sk_axis_pieces;
typedef struct sk_axis_layout {
    int sets; /* 1 or 2 */
    size_t ctx_size, table_size;
} sk_axis_layout;

/* The pieces execute reads (contexts and tables) from `base`. */
static inline sk_carve sk_axis_carve_tables(const sk_axis_layout *l, int64_t count, void *base, sk_axis_pieces *a) {
    sk_carve c = {(char *)base, 0};
    a->ctx[1] = NULL;
    for (int s = 0; s < l->sets; ++s) a->ctx[s] = sk_carve_take(&c, l->ctx_size * (uint64_t)count);
    a->table = sk_carve_take(&c, l->table_size * (uint64_t)l->sets);
    return c;
}

/* Every piece from `base` (NULL: none, only counted); the bytes they take. */
static inline uint64_t sk_axis_carve(const sk_axis_layout *l, int64_t count, int64_t block, void *base,
                                     sk_axis_pieces *a) {
    sk_carve c = sk_axis_carve_tables(l, count, base, a);
    a->period = block ? count : sk_axis_period(count);
    a->values = (float *)sk_carve_take(&c, sizeof(float) * (uint64_t)a->period);
    a->zero_point = (int32_t *)sk_carve_take(&c, sizeof(int32_t) * (uint64_t)a->period);
    return c.bytes;
}

/* The workspace bytes of `count` channels or entries (block 0: per axis),
 * 0 for a count out of range. */
static inline uint64_t sk_axis_space(const sk_axis_layout *l, int64_t count, int64_t block) {
    sk_axis_pieces a;
    return count < 1 || count > SK_AXIS_MAX_COUNT || block < 0 ? 0 : sk_axis_carve(l, count, block, NULL, &a);
}

/* A per-axis or blocked plan's parameters as prepare takes them: a count
 * in range, both arrays, and the block its walk was prepared with (a
 * blocked walk's channels being the entries). */
static inline int sk_axis_fits_walk(const sk_axis *axis, const sk_walk *walk) {
    return axis->count <= SK_AXIS_MAX_COUNT && axis->bits && axis->zero_points && axis->block >= 0 &&
           axis->block == walk->block && (!axis->block || axis->count == walk->channels);
}

/* Generic vectors: one source, compiled for each route's instruction set. */
typedef float sk_f32x16 __attribute__((vector_size(64)));
typedef int32_t sk_i32x16 __attribute__((vector_size(64)));
typedef uint32_t sk_u32x16 __attribute__((vector_size(64)));
typedef uint16_t sk_u16x16 __attribute__((vector_size(32)));
typedef int8_t sk_i8x16 __attribute__((vector_size(16)));

/* Lanes of a where the mask is set, else of b (masks: all ones or zero). */
#define SK_SELECT_F32(mask, a, b) ((sk_f32x16)(((sk_i32x16)(a) & (mask)) | ((sk_i32x16)(b) & ~(mask))))
#define SK_SELECT_I32(mask, a, b) (((a) & (mask)) | ((b) & ~(mask)))

/* Whether any lane of a mask is set. */
#define SK_ANY_LANE(mask, result)                                                                              \
    do {                                                                                                       \
        uint64_t sk_words_[8];                                                                                 \
        memcpy(sk_words_, &(mask), sizeof sk_words_);                                                          \
        (result) = ((sk_words_[0] | sk_words_[1] | sk_words_[2] | sk_words_[3] | sk_words_[4] | sk_words_[5] | \
                     sk_words_[6] | sk_words_[7]) != 0);                                                       \
    } while (0)

#endif
