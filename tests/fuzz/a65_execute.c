/* libFuzzer target for the A65 execute entries (sk_cast_execute,
 * sk_dequant_execute, sk_quant_execute) below Python: the shared walk, the
 * staging and transposed tiles, streaming stores and every route's leaves,
 * built with AddressSanitizer and UBSan by `make fuzz`.
 *
 * The input chooses an operation and its parameters, a route, a small
 * admissible layout (rank 0..4, extents 1..9, each port's axes in its own
 * physical order with padding) and the input data.  Each port lives in a
 * heap block of exactly the bytes the plan requires, so any access outside
 * the tensor's span is an ASan report.  The chosen route's output must equal
 * the scalar reference route's bit for bit (the Python suite checks the
 * scalar route against the oracle), and every byte between the output's
 * elements must keep its sentinel.  Then the same call with a view one byte
 * short, misaligned, or overlapping the input must be refused with
 * SK_INVALID_BINDING before any byte is written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simakernels.h"

#define CHECK(cond, what)                                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "a65_execute fuzz: property violated: %s\n", what); \
            abort();                                                            \
        }                                                                       \
    } while (0)

enum { MAX_AXES = 4, SENTINEL = 0xA5 };

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned next(reader *r) {
    if (!r->n) return 0;
    --r->n;
    return *r->p++;
}

static uint32_t next32(reader *r) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= (uint32_t)next(r) << (8 * i);
    return v;
}

/* One port's strides: its axes in a physical order chosen by the input
 * (fastest first), each clearing the faster axes' span plus a pad of 0..2
 * elements: a layout the sorted-axis proof admits.  Returns the span. */
static int64_t layout(reader *r, int rank, const int64_t *extent, int64_t item, int64_t *stride) {
    int order[MAX_AXES];
    for (int i = 0; i < rank; ++i) order[i] = i;
    for (int i = rank - 1; i > 0; --i) { /* Fisher-Yates driven by the input */
        const int j = (int)(next(r) % (unsigned)(i + 1));
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int64_t covered = item;
    for (int k = 0; k < rank; ++k) {
        const int a = order[k];
        if (extent[a] == 1) {
            stride[a] = 0; /* normalised, as admission does */
            continue;
        }
        stride[a] = covered + item * (int64_t)(next(r) % 3);
        covered += (extent[a] - 1) * stride[a];
    }
    return covered;
}

typedef struct op {
    int kind; /* 0 cast, 1 dequant, 2 quant */
    sk_cast_plan cast;
    sk_dequant_plan dequant;
    sk_quant_plan quant;
} op;

static sk_binding *binding_of(op *o) {
    return o->kind == 0 ? &o->cast.binding : o->kind == 1 ? &o->dequant.binding : &o->quant.binding;
}

static int run(op *o, int route, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    switch (o->kind) {
    case 0:
        o->cast.route = route;
        return sk_cast_execute(&o->cast, src, src_len, dst, dst_len);
    case 1:
        o->dequant.route = route;
        CHECK(sk_dequant_prepare(&o->dequant) == SK_OK, "dequant prepare"); /* per-route table */
        return sk_dequant_execute(&o->dequant, src, src_len, dst, dst_len);
    default:
        o->quant.route = route;
        CHECK(sk_quant_prepare(&o->quant) == SK_OK, "quant prepare");
        return sk_quant_execute(&o->quant, src, src_len, dst, dst_len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size};
    op o;
    memset(&o, 0, sizeof o);
    o.kind = (int)(next(&r) % 3);
    const unsigned sub = next(&r);
    int64_t in_size, out_size;
    if (o.kind == 0) {
        o.cast.kind = (int32_t)(sub % 2);
        in_size = o.cast.kind == SK_CAST_F32_BF16 ? 4 : 2;
        out_size = 6 - in_size;
    } else if (o.kind == 1) {
        o.dequant.output = (int32_t)(sub % 2);
        o.dequant.zero_point = (int32_t)next32(&r) >> (next(&r) % 32); /* any int32, often small */
        o.dequant.scale_bits = next32(&r);
        if (o.dequant.scale_bits >> 31 || ((o.dequant.scale_bits >> 23) & 0xff) == 0xff || !o.dequant.scale_bits)
            o.dequant.scale_bits = 0x3E800000u; /* admission refuses those: not this harness's subject */
        in_size = 1;
        out_size = o.dequant.output == SK_DEQUANT_F32 ? 4 : 2;
    } else {
        o.quant.input = (int32_t)(sub % 3);
        o.quant.rounding = (int32_t)((sub / 3) % 4);
        o.quant.zero_point = (int32_t)(int8_t)next(&r);
        o.quant.multiplier_bits = next32(&r);
        if (o.quant.multiplier_bits >> 31 || ((o.quant.multiplier_bits >> 23) & 0xff) == 0xff ||
            !o.quant.multiplier_bits)
            o.quant.multiplier_bits = 0x3F800000u;
        in_size = o.quant.input == SK_QUANT_F32 ? 4 : 2;
        out_size = 1;
    }
    int routes[SK_ROUTE_COUNT], n_routes = 0;
    for (int route = 0; route < SK_ROUTE_COUNT; ++route)
        if (sk_route_compiled(route) && sk_route_available(route)) routes[n_routes++] = route;
    const int route = routes[next(&r) % (unsigned)n_routes];
    const unsigned stream = next(&r);
    sk_stream_override(stream % 4 == 0 ? 64 : 0); /* sometimes stream from 64 bytes on */

    const int rank = (int)(next(&r) % (MAX_AXES + 1));
    int64_t extent[MAX_AXES] = {0}, in_stride[MAX_AXES] = {0}, out_stride[MAX_AXES] = {0};
    int64_t count = 1;
    for (int a = 0; a < rank; ++a) {
        extent[a] = 1 + (int64_t)(next(&r) % 9);
        count *= extent[a];
    }
    const int64_t in_span = layout(&r, rank, extent, in_size, in_stride);
    const int64_t out_span = layout(&r, rank, extent, out_size, out_stride);
    sk_walk *walk = o.kind == 0 ? &o.cast.walk : o.kind == 1 ? &o.dequant.walk : &o.quant.walk;
    CHECK(sk_walk_prepare(rank, extent, in_stride, out_stride, in_size, out_size, walk) == SK_OK, "walk prepare");
    sk_binding *b = binding_of(&o);
    *b = (sk_binding){(uint64_t)in_span, (uint64_t)in_size, (uint64_t)out_span, (uint64_t)out_size};

    /* Exact-size blocks (malloc aligns them to 16 bytes). */
    uint8_t *src = malloc((size_t)in_span);
    uint8_t *dst = malloc((size_t)out_span);
    uint8_t *ref = malloc((size_t)out_span);
    uint8_t *is_element = calloc((size_t)out_span, 1);
    CHECK(src && dst && ref && is_element, "out of memory");
    for (int64_t i = 0; i < in_span; ++i) src[i] = (uint8_t)next(&r) ^ (uint8_t)(i * 151);
    memset(dst, SENTINEL, (size_t)out_span);
    memset(ref, SENTINEL, (size_t)out_span);
    for (int64_t i = 0; i < count; ++i) {
        int64_t rest = i, off = 0;
        for (int a = rank - 1; a >= 0; --a) {
            off += (rest % extent[a]) * out_stride[a];
            rest /= extent[a];
        }
        memset(is_element + off, 1, (size_t)out_size);
    }

    /* Refusals first: nothing may be written. */
    CHECK(run(&o, route, src, (uint64_t)in_span - 1, dst, (uint64_t)out_span) == SK_INVALID_BINDING, "short input");
    CHECK(run(&o, route, src, (uint64_t)in_span, dst, (uint64_t)out_span - 1) == SK_INVALID_BINDING, "short output");
    if (out_size > 1)
        CHECK(run(&o, route, src, (uint64_t)in_span, dst + 1, (uint64_t)out_span - 1) == SK_INVALID_BINDING,
              "misaligned output");
    CHECK(run(&o, route, src, (uint64_t)in_span, src, (uint64_t)in_span) == SK_INVALID_BINDING, "overlap");
    for (int64_t i = 0; i < out_span; ++i) CHECK(dst[i] == SENTINEL, "a refused call wrote its output");

    CHECK(run(&o, route, src, (uint64_t)in_span, dst, (uint64_t)out_span) == SK_OK, "route execute");
    CHECK(run(&o, SK_ROUTE_SCALAR, src, (uint64_t)in_span, ref, (uint64_t)out_span) == SK_OK, "scalar execute");
    for (int64_t i = 0; i < out_span; ++i) {
        if (!is_element[i]) CHECK(dst[i] == SENTINEL, "a gap byte between output elements changed");
        CHECK(dst[i] == ref[i], "the route differs from the scalar reference");
    }
    free(is_element);
    free(ref);
    free(dst);
    free(src);
    return 0;
}
