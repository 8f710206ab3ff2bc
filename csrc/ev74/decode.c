/* EV74 native descriptor decoder: every field is validated before a
 * numerical entry is selected; the first violation is reported with the
 * field's name and offset.  The geometry and the bound addresses go through
 * the shared layout and binding rules (common/rules.c) in the 32-bit device
 * domain.  Reads are byte-assembled, so the decoder is independent of the
 * host's endianness and alignment. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../common/kernel.h"

/* The wire layout, in order (the offsets are the header's). */
static const sk_ev74_field FIELDS[SK_EV74_FIELD_COUNT] = {
    {"magic", SK_EV74_OFF_MAGIC, 4, 1, 0},
    {"version", SK_EV74_OFF_VERSION, 2, 1, 0},
    {"length", SK_EV74_OFF_LENGTH, 2, 1, 0},
    {"conversion", SK_EV74_OFF_CONVERSION, 4, 1, 0},
    {"rank", SK_EV74_OFF_RANK, 4, 1, 0},
    {"flags", SK_EV74_OFF_FLAGS, 4, 1, 0},
    {"reserved0", SK_EV74_OFF_RESERVED0, 4, 1, 0},
    {"input_address", SK_EV74_OFF_INPUT_ADDRESS, 8, 1, 0},
    {"output_address", SK_EV74_OFF_OUTPUT_ADDRESS, 8, 1, 0},
    {"count", SK_EV74_OFF_COUNT, 8, 1, 0},
    {"input_span", SK_EV74_OFF_INPUT_SPAN, 8, 1, 0},
    {"output_span", SK_EV74_OFF_OUTPUT_SPAN, 8, 1, 0},
    {"extents", SK_EV74_OFF_EXTENTS, 8, SK_EV74_MAX_RANK, 0},
    {"input_strides", SK_EV74_OFF_INPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0},
    {"output_strides", SK_EV74_OFF_OUTPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0},
    {"multiplier", SK_EV74_OFF_MULTIPLIER, 4, 1, 0},
    {"zero_point", SK_EV74_OFF_ZERO_POINT, 4, 1, 1},
    {"rounding", SK_EV74_OFF_ROUNDING, 4, 1, 0},
    {"reserved1", SK_EV74_OFF_RESERVED1, 4, 1, 0},
};

const sk_ev74_field *sk_ev74_field_at(int index) {
    return index >= 0 && index < SK_EV74_FIELD_COUNT ? &FIELDS[index] : NULL;
}

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
typedef unsigned long long ull;

/* A port's geometry through the shared layout rules; the fault becomes
 * the message, naming the descriptor field. */
static int port_span(int port, const sk_ev74_descriptor *d, int64_t item, uint64_t *span, char *message,
                     size_t capacity) {
    const uint64_t *stride = port ? d->output_stride : d->input_stride;
    sk_layout l = {(int32_t)d->rank, port, SK_DOMAIN_DEVICE, 1, item, {0}, {0}};
    for (uint32_t a = 0; a < d->rank; ++a) {
        l.extent[a] = d->extent[a];
        l.stride[a] = (int64_t)stride[a]; /* >= 2^63: negative, refused as beyond the domain */
    }
    sk_fault f;
    if (sk_layout_check(&l, span, &f) == SK_OK) return SK_OK;
    const char *name = port ? "output" : "input";
    const int a = f.axis, off = (port ? SK_EV74_OFF_OUTPUT_STRIDES : SK_EV74_OFF_INPUT_STRIDES) + 8 * a;
    switch (f.rule) {
    case SK_RULE_EXTENT_LIMIT:
        REJECT("field extents[%d] (offset %d): %llu is beyond the device domain", a, SK_EV74_OFF_EXTENTS + 8 * a,
               (ull)f.value);
    case SK_RULE_NOT_NORMALISED:
        if (d->count == 0)
            REJECT("field %s_strides[%d] (offset %d): %llu on an empty tensor, expected 0", name, a, off, (ull)f.value);
        REJECT("field %s_strides[%d] (offset %d): singleton axis stride %llu is not normalised to 0", name, a, off,
               (ull)f.value);
    case SK_RULE_STRIDE_MULTIPLE:
        REJECT("field %s_strides[%d] (offset %d): %llu is not a multiple of the %llu-byte element", name, a, off,
               (ull)f.value, (ull)f.limit);
    case SK_RULE_BROADCAST:
        REJECT("field %s_strides[%d] (offset %d): zero stride on an axis of extent %llu", name, a, off, (ull)f.value);
    case SK_RULE_SPAN_LIMIT:
        REJECT("field %s_strides[%d] (offset %d): accessed span %llu + %llu x %llu exceeds the 32-bit device domain",
               name, a, off, (ull)f.value, (ull)(d->extent[a] - 1), (ull)stride[a]);
    case SK_RULE_AXES_OVERLAP:
        REJECT("field %s_strides[%d] (offset %d): %llu overlaps the %llu bytes of faster axes", name, a, off,
               (ull)f.value, (ull)f.limit);
    default: /* a negative stride (>= 2^63 on the wire) or one beyond the domain */
        REJECT("field %s_strides[%d] (offset %d): %llu is beyond the 32-bit device domain", name, a, off,
               (ull)stride[a]);
    }
}

/* The bound addresses through the shared binding rules. */
static int addresses(const sk_ev74_descriptor *d, uint64_t in_item, char *message, size_t capacity) {
    const uint64_t ia = d->input_address, oa = d->output_address;
    const sk_binding need = {d->input_span, in_item, d->output_span, 1};
    sk_fault f;
    if (sk_binding_fault(&need, SK_DOMAIN_DEVICE, ia, d->input_span, oa, d->output_span, &f) == SK_OK) return SK_OK;
    const char *name = f.port ? "output_address" : "input_address";
    const int off = f.port ? SK_EV74_OFF_OUTPUT_ADDRESS : SK_EV74_OFF_INPUT_ADDRESS;
    const uint64_t span = f.port ? d->output_span : d->input_span;
    switch (f.rule) {
    case SK_RULE_MISALIGNED:
        REJECT("field %s (offset %d): %#llx is not %llu-byte aligned", name, off, (ull)f.value, (ull)f.limit);
    case SK_RULE_PORTS_OVERLAP:
        REJECT("fields input_address/output_address (offsets 24/32): accessed ranges [%#llx, +%llu) and "
               "[%#llx, +%llu) overlap",
               (ull)ia, (ull)d->input_span, (ull)oa, (ull)d->output_span);
    default: /* beyond the domain (a null or short view cannot occur: both slots are set, views are the spans) */
        REJECT("field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain", name, off,
               (ull)(f.port ? oa : ia), (ull)span);
    }
}

int sk_ev74_decode(const uint8_t *b, size_t length, sk_ev74_descriptor *d, char *message, size_t capacity) {
    if (capacity) message[0] = '\0';
    memset(d, 0, sizeof *d);
    if (length != SK_EV74_DESCRIPTOR_SIZE) REJECT("descriptor length %zu, expected 224 bytes", length);
    if (rd(b, SK_EV74_OFF_MAGIC, 4) != SK_EV74_MAGIC)
        REJECT("field magic (offset 0): %#llx, expected %#x", (ull)rd(b, 0, 4), SK_EV74_MAGIC);
    if (rd(b, SK_EV74_OFF_VERSION, 2) != SK_EV74_VERSION)
        REJECT("field version (offset 4): %llu, expected 1", (ull)rd(b, 4, 2));
    if (rd(b, SK_EV74_OFF_LENGTH, 2) != SK_EV74_DESCRIPTOR_SIZE)
        REJECT("field length (offset 6): %llu, expected 224", (ull)rd(b, 6, 2));
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
        if (rd(b, off, 4)) REJECT("field reserved (offset %d): %#llx, expected 0", off, (ull)rd(b, off, 4));
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
    if (d->rounding > SK_QUANT_TOWARD_NEGATIVE) REJECT("field rounding (offset 216): %u, expected 0..3", d->rounding);

    /* Geometry: unused axes zero, each port's layout by the shared rules,
     * the count and spans consistent. */
    for (uint32_t a = d->rank; a < SK_EV74_MAX_RANK; ++a)
        if (d->extent[a] || d->input_stride[a] || d->output_stride[a])
            REJECT("unused axis %u (offsets %u/%u/%u): extent %llu, strides %llu/%llu, expected 0", a,
                   SK_EV74_OFF_EXTENTS + 8 * a, SK_EV74_OFF_INPUT_STRIDES + 8 * a, SK_EV74_OFF_OUTPUT_STRIDES + 8 * a,
                   (ull)d->extent[a], (ull)d->input_stride[a], (ull)d->output_stride[a]);
    if ((d->flags & SK_EV74_FLAG_SCALAR) && (d->rank != 1 || d->extent[0] != 1))
        REJECT("field flags (offset 16): a lowered scalar must have rank 1 and extent 1, got rank %u, extent %llu",
               d->rank, (ull)d->extent[0]);
    /* The element count, checked step by step; a zero extent anywhere
     * makes it 0 however large the others are. */
    int empty = 0;
    for (uint32_t a = 0; a < d->rank; ++a) empty |= d->extent[a] == 0;
    uint64_t count = empty ? 0 : 1;
    for (uint32_t a = 0; a < d->rank && !empty; ++a)
        if (__builtin_mul_overflow(count, d->extent[a], &count) || count >> 32)
            REJECT("field extents[%u] (offset %u): %llu takes the element count beyond the device domain", a,
                   SK_EV74_OFF_EXTENTS + 8 * a, (ull)d->extent[a]);
    if (count != d->count)
        REJECT("field count (offset 40): %llu, but the extents hold %llu elements", (ull)d->count, (ull)count);
    const uint64_t in_item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    uint64_t in_span, out_span;
    int status = port_span(0, d, (int64_t)in_item, &in_span, message, capacity);
    if (status != SK_OK) return status;
    status = port_span(1, d, 1, &out_span, message, capacity);
    if (status != SK_OK) return status;
    if (in_span != d->input_span)
        REJECT("field input_span (offset 48): %llu, but the extents and strides access %llu bytes", (ull)d->input_span,
               (ull)in_span);
    if (out_span != d->output_span)
        REJECT("field output_span (offset 56): %llu, but the extents and strides access %llu bytes",
               (ull)d->output_span, (ull)out_span);

    /* Addresses: both slots zero (relocatable) or both bound: then, as
     * fields, 32-bit device addresses, and as views, the binding rules. */
    const uint64_t ia = d->input_address, oa = d->output_address;
    if ((ia == 0) != (oa == 0))
        REJECT("field %s (offset %d): 0 while %s is %#llx: one relocation slot is bound and the other is not",
               ia ? "output_address" : "input_address", ia ? SK_EV74_OFF_OUTPUT_ADDRESS : SK_EV74_OFF_INPUT_ADDRESS,
               ia ? "input_address" : "output_address", (ull)(ia ? ia : oa));
    for (int port = 0; port < 2; ++port) {
        const uint64_t address = port ? oa : ia;
        if (address >> 32)
            REJECT("field %s (offset %d): %#llx is beyond the 32-bit device domain",
                   port ? "output_address" : "input_address",
                   port ? SK_EV74_OFF_OUTPUT_ADDRESS : SK_EV74_OFF_INPUT_ADDRESS, (ull)address);
    }
    d->bound = ia != 0 && oa != 0;
    if (d->bound) {
        status = addresses(d, in_item, message, capacity);
        if (status != SK_OK) return status;
    }
    d->entry = (int32_t)(d->conversion * 4 + d->rounding);
    return SK_OK;
}
