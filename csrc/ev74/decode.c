/* EV74 native descriptor decoder: every field is validated, in wire order,
 * before a numerical entry is selected; the first violation is reported with
 * the field's name and offset.  Reads are byte-assembled, so the decoder is
 * independent of the host's endianness and alignment. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../common/kernel.h"

static uint64_t rd(const uint8_t *b, int offset, int width) {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | b[offset + i];
    return v;
}

static int reject(char *message, size_t capacity, const char *fmt, ...) {
    if (capacity) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, capacity, fmt, ap);
        va_end(ap);
    }
    return SK_INVALID_DESCRIPTOR;
}

#define REJECT(...) return reject(message, capacity, __VA_ARGS__)
static const uint64_t DOMAIN = (uint64_t)1 << 32;  /* EV74 device addresses are 32-bit */

/* Accessed span of one port (bytes) with overflow checks; the conservative
 * sorted-axis nonoverlap proof of the shared contract. */
static int port_span(const char *port, int off_strides, const sk_ev74_descriptor *d, const uint64_t *stride,
                     uint64_t item, uint64_t *span, char *message, size_t capacity) {
    if (d->count == 0) {
        for (uint32_t a = 0; a < d->rank; ++a)
            if (stride[a]) REJECT("field %s_strides[%u] (offset %d): %llu on an empty tensor, expected 0",
                                  port, a, off_strides + 8 * (int)a, (unsigned long long)stride[a]);
        *span = 0;
        return SK_OK;
    }
    uint64_t total = item;
    int order[6];
    int active = 0;
    for (uint32_t a = 0; a < d->rank; ++a) {
        const int off = off_strides + 8 * (int)a;
        if (stride[a] % item)
            REJECT("field %s_strides[%u] (offset %d): %llu is not a multiple of the %llu-byte element",
                   port, a, off, (unsigned long long)stride[a], (unsigned long long)item);
        if (d->extent[a] == 1 && stride[a])
            REJECT("field %s_strides[%u] (offset %d): singleton axis stride %llu is not normalised to 0",
                   port, a, off, (unsigned long long)stride[a]);
        if (d->extent[a] > 1 && stride[a] == 0)
            REJECT("field %s_strides[%u] (offset %d): zero stride on an axis of extent %llu", port, a, off,
                   (unsigned long long)d->extent[a]);
        if (d->extent[a] > 1) {
            if (stride[a] >= DOMAIN)
                REJECT("field %s_strides[%u] (offset %d): %llu is beyond the 32-bit device domain", port, a, off,
                       (unsigned long long)stride[a]);
            total += (d->extent[a] - 1) * stride[a];  /* < 2^32 * 2^32: no wrap */
            if (total >= DOMAIN)
                REJECT("field %s_strides (offset %d): accessed span %llu exceeds the 32-bit device domain", port,
                       off_strides, (unsigned long long)total);
            /* insertion by stride for the proof below */
            int j = active++;
            while (j > 0 && stride[order[j - 1]] > stride[a]) {
                order[j] = order[j - 1];
                --j;
            }
            order[j] = (int)a;
        }
    }
    uint64_t covered = item;
    for (int k = 0; k < active; ++k) {
        const int a = order[k];
        if (stride[a] < covered)
            REJECT("field %s_strides[%d] (offset %d): %llu overlaps the %llu bytes of faster axes", port, a,
                   off_strides + 8 * a, (unsigned long long)stride[a], (unsigned long long)covered);
        covered += (d->extent[a] - 1) * stride[a];
    }
    *span = total;
    return SK_OK;
}

int sk_ev74_decode(const uint8_t *b, size_t length, sk_ev74_descriptor *d, char *message, size_t capacity) {
    if (capacity) message[0] = '\0';
    memset(d, 0, sizeof *d);
    if (length != SK_EV74_DESCRIPTOR_SIZE) REJECT("descriptor length %zu, expected 224 bytes", length);
    if (rd(b, SK_EV74_OFF_MAGIC, 4) != SK_EV74_MAGIC)
        REJECT("field magic (offset 0): %#llx, expected %#x", (unsigned long long)rd(b, 0, 4), SK_EV74_MAGIC);
    if (rd(b, SK_EV74_OFF_VERSION, 2) != SK_EV74_VERSION)
        REJECT("field version (offset 4): %llu, expected 1", (unsigned long long)rd(b, 4, 2));
    if (rd(b, SK_EV74_OFF_LENGTH, 2) != SK_EV74_DESCRIPTOR_SIZE)
        REJECT("field byte_length (offset 6): %llu, expected 224", (unsigned long long)rd(b, 6, 2));
    d->conversion = (uint32_t)rd(b, SK_EV74_OFF_CONVERSION, 4);
    if (d->conversion > SK_QUANT_F16)
        REJECT("field conversion (offset 8): %u, expected 0 (FP32), 1 (BF16) or 2 (FP16)", d->conversion);
    d->rank = (uint32_t)rd(b, SK_EV74_OFF_RANK, 4);
    if (d->rank < 1 || d->rank > SK_EV74_MAX_RANK) REJECT("field rank (offset 12): %u, expected 1..6", d->rank);
    d->flags = (uint32_t)rd(b, SK_EV74_OFF_FLAGS, 4);
    if (d->flags & ~(uint32_t)SK_EV74_FLAG_SCALAR)
        REJECT("field flags (offset 16): %#x has reserved bits set", d->flags);
    for (int i = 0; i < 2; ++i) {
        const int off = i ? SK_EV74_OFF_RESERVED1 : SK_EV74_OFF_RESERVED0;
        if (rd(b, off, 4))
            REJECT("field reserved (offset %d): %#llx, expected 0", off, (unsigned long long)rd(b, off, 4));
    }
    d->input_address = rd(b, SK_EV74_OFF_INPUT_ADDRESS, 8);
    d->output_address = rd(b, SK_EV74_OFF_OUTPUT_ADDRESS, 8);
    d->count = rd(b, SK_EV74_OFF_COUNT, 8);
    d->input_span = rd(b, SK_EV74_OFF_INPUT_SPAN, 8);
    d->output_span = rd(b, SK_EV74_OFF_OUTPUT_SPAN, 8);
    for (int a = 0; a < SK_EV74_MAX_RANK; ++a) {
        d->extent[a] = rd(b, SK_EV74_OFF_EXTENTS + 8 * a, 8);
        d->input_stride[a] = rd(b, SK_EV74_OFF_INPUT_STRIDES + 8 * a, 8);
        d->output_stride[a] = rd(b, SK_EV74_OFF_OUTPUT_STRIDES + 8 * a, 8);
    }
    d->multiplier_bits = (uint32_t)rd(b, SK_EV74_OFF_MULTIPLIER, 4);
    d->zero_point = (int32_t)(uint32_t)rd(b, SK_EV74_OFF_ZERO_POINT, 4);
    d->rounding = (uint32_t)rd(b, SK_EV74_OFF_ROUNDING, 4);

    /* Parameters. */
    const uint32_t m = d->multiplier_bits;
    if ((m >> 31) || ((m >> 23) & 0xffu) == 0xffu || m == 0)
        REJECT("field multiplier (offset 208): bits %#010x are not a finite positive binary32", m);
    if (d->zero_point < -128 || d->zero_point > 127)
        REJECT("field zero_point (offset 212): %d is outside [-128, 127]", d->zero_point);
    if (d->rounding > SK_QUANT_TOWARD_NEGATIVE)
        REJECT("field rounding (offset 216): %u, expected 0..3", d->rounding);

    /* Geometry: unused axes zero, the count and spans consistent. */
    for (uint32_t a = d->rank; a < SK_EV74_MAX_RANK; ++a)
        if (d->extent[a] || d->input_stride[a] || d->output_stride[a])
            REJECT("unused axis %u (offsets %u/%u/%u): extent %llu, strides %llu/%llu, expected 0", a,
                   SK_EV74_OFF_EXTENTS + 8 * a, SK_EV74_OFF_INPUT_STRIDES + 8 * a,
                   SK_EV74_OFF_OUTPUT_STRIDES + 8 * a, (unsigned long long)d->extent[a],
                   (unsigned long long)d->input_stride[a], (unsigned long long)d->output_stride[a]);
    if ((d->flags & SK_EV74_FLAG_SCALAR) && (d->rank != 1 || d->extent[0] != 1))
        REJECT("field flags (offset 16): a lowered scalar must have rank 1 and extent 1, got rank %u, extent %llu",
               d->rank, (unsigned long long)d->extent[0]);
    int empty = 0;
    for (uint32_t a = 0; a < d->rank; ++a) {
        if (d->extent[a] >= DOMAIN)
            REJECT("field extents[%u] (offset %u): %llu is beyond the device domain", a, SK_EV74_OFF_EXTENTS + 8 * a,
                   (unsigned long long)d->extent[a]);
        empty |= d->extent[a] == 0;
    }
    /* The product, checked step by step (each factor < 2^32: no wrap); a
     * zero extent anywhere makes it 0 however large the others are. */
    uint64_t count = empty ? 0 : 1;
    for (uint32_t a = 0; a < d->rank && !empty; ++a) {
        count *= d->extent[a];
        if (count >= DOMAIN)
            REJECT("field extents (offset 64): element count %llu exceeds the device domain",
                   (unsigned long long)count);
    }
    if (count != d->count)
        REJECT("field count (offset 40): %llu, but the extents hold %llu elements", (unsigned long long)d->count,
               (unsigned long long)count);
    const uint64_t in_item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    uint64_t span;
    int status = port_span("input", SK_EV74_OFF_INPUT_STRIDES, d, d->input_stride, in_item, &span, message, capacity);
    if (status != SK_OK) return status;
    if (span != d->input_span)
        REJECT("field input_span (offset 48): %llu, but the extents and strides access %llu bytes",
               (unsigned long long)d->input_span, (unsigned long long)span);
    status = port_span("output", SK_EV74_OFF_OUTPUT_STRIDES, d, d->output_stride, 1, &span, message, capacity);
    if (status != SK_OK) return status;
    if (span != d->output_span)
        REJECT("field output_span (offset 56): %llu, but the extents and strides access %llu bytes",
               (unsigned long long)d->output_span, (unsigned long long)span);

    /* Addresses: both slots zero (relocatable) or both bound in the domain,
     * aligned and not overlapping. */
    const uint64_t ia = d->input_address, oa = d->output_address;
    if ((ia == 0) != (oa == 0))
        REJECT("field %s (offset %d): 0 while %s is %#llx: one relocation slot is bound and the other is not",
               ia ? "output_address" : "input_address", ia ? SK_EV74_OFF_OUTPUT_ADDRESS : SK_EV74_OFF_INPUT_ADDRESS,
               ia ? "input_address" : "output_address", (unsigned long long)(ia ? ia : oa));
    if (ia >= DOMAIN || ia + d->input_span > DOMAIN)
        REJECT("field input_address (offset 24): %#llx + %llu bytes leaves the 32-bit device domain",
               (unsigned long long)ia, (unsigned long long)d->input_span);
    if (oa >= DOMAIN || oa + d->output_span > DOMAIN)
        REJECT("field output_address (offset 32): %#llx + %llu bytes leaves the 32-bit device domain",
               (unsigned long long)oa, (unsigned long long)d->output_span);
    if (ia % in_item)
        REJECT("field input_address (offset 24): %#llx is not %llu-byte aligned", (unsigned long long)ia,
               (unsigned long long)in_item);
    d->bound = ia != 0 && oa != 0;
    if (d->bound && d->count && ia < oa + d->output_span && oa < ia + d->input_span)
        REJECT("fields input_address/output_address (offsets 24/32): accessed ranges [%#llx, +%llu) and "
               "[%#llx, +%llu) overlap", (unsigned long long)ia, (unsigned long long)d->input_span,
               (unsigned long long)oa, (unsigned long long)d->output_span);
    d->entry = (int32_t)(d->conversion * 4 + d->rounding);
    return SK_OK;
}
