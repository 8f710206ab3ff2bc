/* The EV74 dispatcher control: what the native entry hands its workers
 * once it has validated a descriptor (the refusal record, or the selected
 * numerical entry, the prepared multiplier and the work geometry).  It is
 * private to the kernel, separate from the 224-byte wire descriptor;
 * the host C and the kernel's OpenCL C both include this header and both
 * assert every field's offset and the 192-byte size, so the two compilers
 * cannot disagree on it.  sk_ev74_prepare is the work geometry both the
 * entry and the worker count by (the host model follows the same rule). */
#ifndef SK_EV74_CONTROL_H
#define SK_EV74_CONTROL_H
#include "../include/simakernels.h"
#include "../quant/exact.h"

typedef struct sk_ev74_control {
    sk_ev74_why why;        /* status SK_OK: admitted; else the refusal */
    uint32_t entry;         /* numerical entry: conversion * 4 + rounding */
    uint32_t kind;          /* enum sk_ev74_unit */
    uint32_t units;         /* work units of the invocation */
    uint32_t workgroups;    /* workgroups that take units: 1 for a single unit, else the ring (at most 4) */
    uint32_t run;           /* elements per row: the common contiguous suffix, 1 for scatter */
    uint32_t block;         /* elements per unit: a DMA block, the row, or 1 */
    uint32_t units_per_run; /* units per row */
    uint32_t outer_rank;    /* axes walked between rows (extent > 1 only) */
    uint32_t input_address; /* device address of element 0 */
    uint32_t output_address;
    uint32_t extent[6];       /* the walked axes, outermost first */
    uint32_t input_stride[6]; /* their byte strides */
    uint32_t output_stride[6];
    uint32_t multiplier_bits; /* binary32 bits (the normal-product path multiplies by it) */
    uint32_t significand;     /* the multiplier = significand * 2^exponent, significand odd */
    int32_t exponent;
    int32_t zero_point;
    uint32_t exact_only; /* a subnormal multiplier: every block takes the exact path */
    uint32_t reserved;
} sk_ev74_control;

/* Every field's offset, asserted by both compilers. */
/* clang-format off */
#define SK_EV74_CONTROL_FIELDS(X) \
    X(why, 0) X(entry, 56) X(kind, 60) X(units, 64) X(workgroups, 68) X(run, 72) X(block, 76) \
    X(units_per_run, 80) X(outer_rank, 84) X(input_address, 88) X(output_address, 92) X(extent, 96) \
    X(input_stride, 120) X(output_stride, 144) X(multiplier_bits, 168) X(significand, 172) X(exponent, 176) \
    X(zero_point, 180) X(exact_only, 184) X(reserved, 188)
/* clang-format on */
#define SK_EV74_CONTROL_AT(field, offset) \
    _Static_assert(__builtin_offsetof(sk_ev74_control, field) == (offset), "sk_ev74_control." #field);
SK_EV74_CONTROL_FIELDS(SK_EV74_CONTROL_AT)
_Static_assert(sizeof(sk_ev74_control) == SK_EV74_CONTROL_SIZE, "sk_ev74_control is 192 bytes");
_Static_assert(_Alignof(sk_ev74_control) == 8, "sk_ev74_control is 8-byte aligned");
_Static_assert(sizeof(sk_ev74_why) == 56, "sk_ev74_why is 56 bytes");

/* DMA block of an input conversion, in elements. */
static inline uint32_t sk_ev74_dma_block(uint32_t conversion) {
    return conversion == SK_QUANT_F32 ? SK_EV74_DMA_BLOCK_F32 : SK_EV74_DMA_BLOCK_16BIT;
}

/* The control of a validated, bound descriptor on a ring of `ring`
 * workgroups.  The common contiguous suffix of both ports (singleton axes
 * are inert) decides the unit: 128 elements and more in DMA blocks,
 * 16..127 as one direct vector row, shorter (or none) element by element.
 * Units are numbered in logical order: row by row, blocks within a row. */
static inline void sk_ev74_prepare(const sk_ev74_descriptor *d, uint32_t ring, sk_ev74_control *c) {
    const uint64_t item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    int outer = (int)d->rank;
    uint64_t suffix = 1;
    while (outer > 0) {
        const int a = outer - 1;
        if (d->extent[a] != 1 && !(d->input_stride[a] == item * suffix && d->output_stride[a] == suffix)) break;
        suffix *= d->extent[a];
        --outer;
    }
    const int rows_rank = suffix >= SK_EV74_DIRECT_MIN ? outer : (int)d->rank; /* scatter walks every axis */
    const uint64_t run = suffix >= SK_EV74_DIRECT_MIN ? suffix : 1;
    const uint64_t block = run >= SK_EV74_DMA_MIN ? sk_ev74_dma_block(d->conversion) : run;
    c->entry = (uint32_t)d->entry;
    c->kind = run >= SK_EV74_DMA_MIN      ? SK_EV74_UNIT_DMA
              : run >= SK_EV74_DIRECT_MIN ? SK_EV74_UNIT_VECTOR
                                          : SK_EV74_UNIT_SCATTER;
    c->run = (uint32_t)run;
    c->block = (uint32_t)block;
    c->units_per_run = (uint32_t)((run + block - 1) / block);
    uint64_t rows = 1;
    c->outer_rank = 0;
    for (int a = 0; a < SK_MAX_RANK; ++a) c->extent[a] = c->input_stride[a] = c->output_stride[a] = 0;
    for (int a = 0; a < rows_rank; ++a) {
        rows *= d->extent[a];
        if (d->extent[a] == 1) continue;
        c->extent[c->outer_rank] = (uint32_t)d->extent[a];
        c->input_stride[c->outer_rank] = (uint32_t)d->input_stride[a];
        c->output_stride[c->outer_rank] = (uint32_t)d->output_stride[a];
        ++c->outer_rank;
    }
    c->units = d->count ? (uint32_t)(rows * c->units_per_run) : 0; /* at most the count: below 2^32 */
    const uint32_t cap = ring < SK_EV74_MAX_WORKGROUPS ? ring : SK_EV74_MAX_WORKGROUPS;
    c->workgroups = c->units <= 1 || cap < 1 ? 1 : cap;
    c->input_address = (uint32_t)d->input_address;
    c->output_address = (uint32_t)d->output_address;
    c->multiplier_bits = d->multiplier_bits;
    uint64_t significand;
    sk_q_multiplier(d->multiplier_bits, &significand, &c->exponent);
    c->significand = (uint32_t)significand;
    c->zero_point = d->zero_point;
    c->exact_only = ((d->multiplier_bits >> 23) & 0xffu) == 0;
    c->reserved = 0;
}

#endif
