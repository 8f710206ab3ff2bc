/* The layout and binding rules: one checker for execute, the EV74 decoder
 * and Python's admission and binding (simakernels.h "Layout and binding
 * rules"). */
#include "kernel.h"

_Static_assert(sizeof(((sk_walk *)0)->extent) == SK_MAX_RANK * sizeof(int64_t), "six axes");
_Static_assert(sizeof(((sk_layout *)0)->extent) == SK_MAX_RANK * sizeof(uint64_t), "six axes");

/* Per domain, the largest accessed span and the largest view end (one past
 * its last byte): host addresses and spans are signed 64-bit values
 * (API.md); the EV74 addresses 32 bits. */
static const uint64_t SPAN_LIMIT[2] = {(uint64_t)INT64_MAX, ((uint64_t)1 << 32) - 1};
static const uint64_t END_LIMIT[2] = {(uint64_t)INT64_MAX, (uint64_t)1 << 32};

uint64_t sk_domain_end(int domain) { return END_LIMIT[domain == SK_DOMAIN_DEVICE]; }

static int fail(sk_fault *f, int status, int rule, int port, int axis, uint64_t value, uint64_t limit) {
    f->status = status;
    f->rule = rule;
    f->port = port;
    f->axis = axis;
    f->value = value;
    f->limit = limit;
    return status;
}

static int passed(sk_fault *f) { return fail(f, SK_OK, SK_RULE_NONE, -1, -1, 0, 0); }

int sk_layout_check(const sk_layout *l, uint64_t *span, sk_fault *f) {
    const int p = l->port;
    const uint64_t limit = SPAN_LIMIT[l->domain == SK_DOMAIN_DEVICE];
    const uint64_t item = (uint64_t)l->item;
    const int over = l->domain == SK_DOMAIN_DEVICE ? SK_DEVICE_LIMIT : SK_OVERFLOW;
    int empty = 0;
    for (int a = 0; a < l->rank; ++a) empty |= l->extent[a] == 0;
    *span = 0;
    for (int a = 0; a < l->rank; ++a) {
        const int64_t s = l->stride[a];
        const uint64_t e = l->extent[a];
        if (e > limit) return fail(f, over, SK_RULE_EXTENT_LIMIT, p, a, e, limit);
        if (s < 0) return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NEGATIVE_STRIDE, p, a, (uint64_t)s, 0);
        if (l->normalised && empty && s)
            return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NOT_NORMALISED, p, a, (uint64_t)s, 0);
        if ((uint64_t)s % item)
            return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_STRIDE_MULTIPLE, p, a, (uint64_t)s, item);
        if (l->normalised && e == 1 && s)
            return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NOT_NORMALISED, p, a, (uint64_t)s, 0);
        /* An empty tensor accesses nothing, so any stride serves (NumPy
         * gives empty arrays zero strides). */
        if (e > 1 && s == 0 && !empty) return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_BROADCAST, p, a, e, 0);
        if (e > 1 && (uint64_t)s > limit)
            return fail(f, over, SK_RULE_STRIDE_LIMIT, p, a, (uint64_t)s, limit);
    }
    if (empty) return passed(f);
    /* item + sum (extent - 1) * stride over the axes of extent > 1, each
     * step checked before it is added: it never wraps. */
    uint64_t total = item;
    int order[6], active = 0;
    for (int a = 0; a < l->rank; ++a) {
        const uint64_t e = l->extent[a], s = (uint64_t)l->stride[a];
        if (e <= 1) continue;
        if (e - 1 > (limit - total) / s) return fail(f, over, SK_RULE_SPAN_LIMIT, p, a, total, limit);
        total += (e - 1) * s;
        int j = active++;  /* insertion by stride for the proof */
        while (j > 0 && l->stride[order[j - 1]] > l->stride[a]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = a;
    }
    uint64_t covered = item;
    for (int k = 0; k < active; ++k) {
        const int a = order[k];
        const uint64_t s = (uint64_t)l->stride[a];
        if (s < covered) return fail(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_AXES_OVERLAP, p, a, s, covered);
        covered += (l->extent[a] - 1) * s;
    }
    *span = total;
    return passed(f);
}

static int view_fault(int port, uint64_t address, uint64_t length, uint64_t need, uint64_t alignment,
                      uint64_t limit, int over, sk_fault *f) {
    if (length > (uint64_t)INT64_MAX) return fail(f, SK_OVERFLOW, SK_RULE_VIEW_LIMIT, port, -1, length, INT64_MAX);
    if (need == 0) return SK_OK;                  /* nothing is accessed: any view will do */
    if (address == 0) return fail(f, SK_INVALID_BINDING, SK_RULE_NULL, port, -1, 0, need);
    if (length < need) return fail(f, SK_INVALID_BINDING, SK_RULE_SHORT, port, -1, length, need);
    if (address > limit || length > limit - address)
        return fail(f, over, SK_RULE_ADDRESS_LIMIT, port, -1, address, limit);
    if (address % alignment) return fail(f, SK_INVALID_BINDING, SK_RULE_MISALIGNED, port, -1, address, alignment);
    return SK_OK;
}

int sk_binding_fault(const sk_binding *need, int domain, uint64_t src, uint64_t src_len, uint64_t dst,
                     uint64_t dst_len, sk_fault *f) {
    const uint64_t limit = END_LIMIT[domain == SK_DOMAIN_DEVICE];
    const int over = domain == SK_DOMAIN_DEVICE ? SK_DEVICE_LIMIT : SK_OVERFLOW;
    if (view_fault(0, src, src_len, need->in_nbytes, need->in_alignment, limit, over, f) ||
        view_fault(1, dst, dst_len, need->out_nbytes, need->out_alignment, limit, over, f))
        return f->status;
    /* Both ranges end within the domain, so the sums below do not wrap. */
    if (need->in_nbytes && need->out_nbytes && src < dst + need->out_nbytes && dst < src + need->in_nbytes)
        return fail(f, SK_INVALID_BINDING, SK_RULE_PORTS_OVERLAP, 1, -1, dst, src);
    return passed(f);
}
