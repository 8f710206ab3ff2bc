/* The EV74 descriptor's validation, written once: the host decoder
 * (decode.c) and the kernel's entry (kernel.cl) run this code, so a packet
 * is refused for the same reason, with the same record, on both.  Every
 * field is checked, in wire order, before a numerical entry is selected;
 * the parameters go through Quant's rules (common/params.h), the geometry
 * and the bound addresses through the shared layout and binding rules
 * (common/rules.h) in the 32-bit device domain.  Reads are
 * byte-assembled, so it is independent of endianness and alignment.
 * Portable C: it compiles as C11 on the host and as OpenCL C. */
#ifndef SK_EV74_VALIDATE_H
#define SK_EV74_VALIDATE_H
#include "../common/params.h"
#include "../common/rules.h"
#include "fields.h"

static inline uint64_t sk_ev74_read(const uint8_t *b, int offset, int width) {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | b[offset + i];
    return v;
}
/* Element i of field NAME, at the offset and width the field table (fields.h) gives it. */
#define SK_EV74_GET(b, NAME, i) sk_ev74_read(b, SK_EV74_OFF_##NAME + SK_EV74_WIDTH_##NAME * (i), SK_EV74_WIDTH_##NAME)

static inline int sk_ev74_refuse(sk_ev74_why *why, int status, int check, int port, int axis, int rule, uint64_t v0,
                                 uint64_t v1, uint64_t v2, uint64_t v3) {
    why->status = status;
    why->check = check;
    why->port = port;
    why->axis = axis;
    why->rule = rule;
    why->reserved = 0;
    why->value[0] = v0;
    why->value[1] = v1;
    why->value[2] = v2;
    why->value[3] = v3;
    return status;
}
#define SK_EV74_REFUSE(check, port, axis, rule, v0, v1, v2, v3) \
    return sk_ev74_refuse(why, SK_INVALID_DESCRIPTOR, check, port, axis, rule, v0, v1, v2, v3)

/* A port's geometry through the shared layout rules. */
static inline int sk_ev74_port_span(int port, const sk_ev74_descriptor *d, int64_t item, uint64_t *span,
                                    sk_ev74_why *why) {
    sk_layout l;
    l.rank = (int32_t)d->rank;
    l.port = port;
    l.domain = SK_DOMAIN_DEVICE;
    l.normalised = 1;
    l.item = item;
    for (int a = 0; a < SK_MAX_RANK; ++a) {
        l.extent[a] = (uint32_t)a < d->rank ? d->extent[a] : 0;
        /* >= 2^63: negative, refused as beyond the domain */
        l.stride[a] = (uint32_t)a < d->rank ? (int64_t)(port ? d->output_stride[a] : d->input_stride[a]) : 0;
    }
    sk_fault f;
    if (sk_layout_rules(&l, span, &f) == SK_OK) return SK_OK;
    const int a = f.axis;
    const uint64_t stride = (uint64_t)l.stride[a];
    const uint64_t extra = f.rule == SK_RULE_SPAN_LIMIT ? d->extent[a] : d->count;
    SK_EV74_REFUSE(SK_EV74_CHECK_LAYOUT, port, a, f.rule, f.value, f.limit, stride, extra);
}

/* Fills *d and returns SK_OK, or returns SK_INVALID_DESCRIPTOR with *why
 * naming the first violation. */
static inline int sk_ev74_validate(const uint8_t *b, uint64_t length, sk_ev74_descriptor *d, sk_ev74_why *why) {
    sk_ev74_refuse(why, SK_OK, SK_EV74_CHECK_NONE, -1, -1, SK_RULE_NONE, 0, 0, 0, 0);
    d->conversion = d->rank = d->flags = d->rounding = 0;
    d->input_address = d->output_address = d->count = d->input_span = d->output_span = 0;
    d->multiplier_bits = 0;
    d->zero_point = d->entry = d->bound = 0;
    for (int a = 0; a < SK_MAX_RANK; ++a) d->extent[a] = d->input_stride[a] = d->output_stride[a] = 0;
    if (length != SK_EV74_DESCRIPTOR_SIZE) SK_EV74_REFUSE(SK_EV74_CHECK_LENGTH, -1, -1, 0, length, 0, 0, 0);
    const uint64_t magic = SK_EV74_GET(b, MAGIC, 0), version = SK_EV74_GET(b, VERSION, 0);
    const uint64_t size = SK_EV74_GET(b, LENGTH, 0);
    if (magic != SK_EV74_MAGIC) SK_EV74_REFUSE(SK_EV74_CHECK_MAGIC, -1, -1, 0, magic, 0, 0, 0);
    if (version != SK_EV74_VERSION) SK_EV74_REFUSE(SK_EV74_CHECK_VERSION, -1, -1, 0, version, 0, 0, 0);
    if (size != SK_EV74_DESCRIPTOR_SIZE) SK_EV74_REFUSE(SK_EV74_CHECK_BYTE_LENGTH, -1, -1, 0, size, 0, 0, 0);
    d->conversion = (uint32_t)SK_EV74_GET(b, CONVERSION, 0);
    if (d->conversion > SK_QUANT_F16) SK_EV74_REFUSE(SK_EV74_CHECK_CONVERSION, -1, -1, 0, d->conversion, 0, 0, 0);
    d->rank = (uint32_t)SK_EV74_GET(b, RANK, 0);
    if (d->rank < 1 || d->rank > SK_EV74_MAX_RANK) SK_EV74_REFUSE(SK_EV74_CHECK_RANK, -1, -1, 0, d->rank, 0, 0, 0);
    d->flags = (uint32_t)SK_EV74_GET(b, FLAGS, 0);
    if (d->flags & ~(uint32_t)SK_EV74_FLAG_SCALAR) SK_EV74_REFUSE(SK_EV74_CHECK_FLAGS, -1, -1, 0, d->flags, 0, 0, 0);
    for (int i = 0; i < 2; ++i) {
        const int off = i ? SK_EV74_OFF_RESERVED1 : SK_EV74_OFF_RESERVED0;
        const uint64_t word = i ? SK_EV74_GET(b, RESERVED1, 0) : SK_EV74_GET(b, RESERVED0, 0);
        if (word) SK_EV74_REFUSE(SK_EV74_CHECK_RESERVED, -1, -1, 0, word, (uint64_t)off, 0, 0);
    }
    d->input_address = SK_EV74_GET(b, INPUT_ADDRESS, 0);
    d->output_address = SK_EV74_GET(b, OUTPUT_ADDRESS, 0);
    d->count = SK_EV74_GET(b, COUNT, 0);
    d->input_span = SK_EV74_GET(b, INPUT_SPAN, 0);
    d->output_span = SK_EV74_GET(b, OUTPUT_SPAN, 0);
    for (int a = 0; a < SK_EV74_MAX_RANK; ++a) {
        d->extent[a] = SK_EV74_GET(b, EXTENTS, a);
        d->input_stride[a] = SK_EV74_GET(b, INPUT_STRIDES, a);
        d->output_stride[a] = SK_EV74_GET(b, OUTPUT_STRIDES, a);
    }
    d->multiplier_bits = (uint32_t)SK_EV74_GET(b, MULTIPLIER, 0);
    d->zero_point = (int32_t)(uint32_t)SK_EV74_GET(b, ZERO_POINT, 0);
    d->rounding = (uint32_t)SK_EV74_GET(b, ROUNDING, 0);

    /* Parameters: Quant's rules (common/params.h), then the rounding mode. */
    sk_fault param;
    if (sk_params_rules(SK_OP_QUANT, d->multiplier_bits, d->zero_point, &param) != SK_OK)
        SK_EV74_REFUSE(param.rule == SK_RULE_ZERO_POINT_RANGE ? SK_EV74_CHECK_ZERO_POINT : SK_EV74_CHECK_MULTIPLIER, -1,
                       -1, 0, param.value, 0, 0, 0);
    if (d->rounding > SK_QUANT_TOWARD_NEGATIVE) SK_EV74_REFUSE(SK_EV74_CHECK_ROUNDING, -1, -1, 0, d->rounding, 0, 0, 0);

    /* Geometry: unused axes zero, each port's layout by the shared rules,
     * the count and spans consistent. */
    for (uint32_t a = d->rank; a < SK_EV74_MAX_RANK; ++a)
        if (d->extent[a] || d->input_stride[a] || d->output_stride[a])
            SK_EV74_REFUSE(SK_EV74_CHECK_UNUSED_AXIS, -1, (int)a, 0, d->extent[a], d->input_stride[a],
                           d->output_stride[a], 0);
    if ((d->flags & SK_EV74_FLAG_SCALAR) && (d->rank != 1 || d->extent[0] != 1))
        SK_EV74_REFUSE(SK_EV74_CHECK_SCALAR, -1, -1, 0, d->rank, d->extent[0], 0, 0);
    /* The element count, checked step by step; a zero extent anywhere
     * makes it 0 however large the others are. */
    int empty = 0;
    for (uint32_t a = 0; a < d->rank; ++a) empty |= d->extent[a] == 0;
    uint64_t count = empty ? 0 : 1;
    for (uint32_t a = 0; a < d->rank && !empty; ++a) {
        /* count < 2^32 here, so the product is checked without overflow */
        if (d->extent[a] >> 32 || (count * d->extent[a]) >> 32)
            SK_EV74_REFUSE(SK_EV74_CHECK_COUNT_LIMIT, -1, (int)a, 0, d->extent[a], 0, 0, 0);
        count *= d->extent[a];
    }
    if (count != d->count) SK_EV74_REFUSE(SK_EV74_CHECK_COUNT, -1, -1, 0, d->count, count, 0, 0);
    const uint64_t in_item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    uint64_t in_span, out_span;
    int status = sk_ev74_port_span(0, d, (int64_t)in_item, &in_span, why);
    if (status != SK_OK) return status;
    status = sk_ev74_port_span(1, d, 1, &out_span, why);
    if (status != SK_OK) return status;
    if (in_span != d->input_span) SK_EV74_REFUSE(SK_EV74_CHECK_SPAN, 0, -1, 0, d->input_span, in_span, 0, 0);
    if (out_span != d->output_span) SK_EV74_REFUSE(SK_EV74_CHECK_SPAN, 1, -1, 0, d->output_span, out_span, 0, 0);

    /* Addresses: both slots zero (relocatable) or both bound: then, as
     * fields, 32-bit device addresses, and as views, the binding rules. */
    const uint64_t ia = d->input_address, oa = d->output_address;
    if ((ia == 0) != (oa == 0)) SK_EV74_REFUSE(SK_EV74_CHECK_HALF_BOUND, ia ? 1 : 0, -1, 0, ia ? ia : oa, 0, 0, 0);
    for (int port = 0; port < 2; ++port) {
        const uint64_t address = port ? oa : ia;
        if (address >> 32) SK_EV74_REFUSE(SK_EV74_CHECK_ADDRESS, port, -1, 0, address, 0, 0, 0);
    }
    d->bound = ia != 0 && oa != 0;
    if (d->bound) {
        const sk_binding need = {d->input_span, in_item, d->output_span, 1};
        sk_fault f;
        if (sk_binding_rules(&need, SK_DOMAIN_DEVICE, ia, d->input_span, oa, d->output_span, &f) != SK_OK)
            SK_EV74_REFUSE(SK_EV74_CHECK_BINDING, f.port, -1, f.rule, f.value, f.limit, d->input_span, d->output_span);
    }
    d->entry = sk_quant_variant((int32_t)d->conversion, (int32_t)d->rounding);
    return SK_OK;
}

/* What the device checks at submission besides the descriptor (d
 * validated): both slots bound and both accessed ranges inside its memory
 * [base, base + size). */
static inline int sk_ev74_validate_memory(const sk_ev74_descriptor *d, uint64_t base, uint64_t size, sk_ev74_why *why) {
    if (!d->bound)
        return sk_ev74_refuse(why, SK_INVALID_BINDING, SK_EV74_CHECK_UNBOUND, -1, -1, SK_RULE_NONE, 0, 0, 0, 0);
    for (int port = 0; port < 2; ++port) {
        const uint64_t address = port ? d->output_address : d->input_address;
        const uint64_t span = port ? d->output_span : d->input_span;
        /* address < 2^32 and span < 2^32 (validated): no sum wraps */
        if (address < base || address + span > base + size)
            return sk_ev74_refuse(why, SK_INVALID_BINDING, SK_EV74_CHECK_MEMORY, port, -1, SK_RULE_NONE, address, span,
                                  0, 0);
    }
    return SK_OK;
}

#endif
