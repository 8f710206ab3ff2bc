/* The layout and binding rules, inline: every execute runs the binding
 * rules on its pointers (the fault record is written only when a rule is
 * broken, so the passing call costs a few compares); sk_binding_fault and
 * sk_layout_check (rules.c) export them.  Portable C that the EV74
 * kernel's OpenCL C program includes too (csrc/ev74/validate.h): the
 * device checks a descriptor by the same rules. */
#ifndef SK_COMMON_RULES_H
#define SK_COMMON_RULES_H
#include "../include/simakernels.h"

/* The largest view end (one past its last byte) of a domain: host addresses
 * are signed 64-bit values (an end beyond 2^63 - 1 is refused); the EV74 addresses 32 bits. */
static inline uint64_t sk_end_limit(int domain) {
    return domain == SK_DOMAIN_DEVICE ? (uint64_t)1 << 32 : (uint64_t)INT64_MAX;
}

static inline int sk_fault_set(sk_fault *f, int status, int rule, int port, int axis, uint64_t value, uint64_t limit) {
    f->status = status;
    f->rule = rule;
    f->port = port;
    f->axis = axis;
    f->value = value;
    f->limit = limit;
    return status;
}

static inline int sk_fault_passed(sk_fault *f) { return sk_fault_set(f, SK_OK, SK_RULE_NONE, -1, -1, 0, 0); }

/* A port's geometry (simakernels.h, sk_layout_check). */
static inline int sk_layout_rules(const sk_layout *l, uint64_t *span, sk_fault *f) {
    const int p = l->port;
    /* The largest accessed span: signed 64-bit on the host, 32-bit on the EV74. */
    const uint64_t limit = l->domain == SK_DOMAIN_DEVICE ? ((uint64_t)1 << 32) - 1 : (uint64_t)INT64_MAX;
    const uint64_t item = (uint64_t)l->item;
    const int over = l->domain == SK_DOMAIN_DEVICE ? SK_DEVICE_LIMIT : SK_OVERFLOW;
    int empty = 0;
    for (int a = 0; a < l->rank; ++a) empty |= l->extent[a] == 0;
    *span = 0;
    for (int a = 0; a < l->rank; ++a) {
        const int64_t s = l->stride[a];
        const uint64_t e = l->extent[a];
        if (e > limit) return sk_fault_set(f, over, SK_RULE_EXTENT_LIMIT, p, a, e, limit);
        if (s < 0) return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NEGATIVE_STRIDE, p, a, (uint64_t)s, 0);
        if (l->normalised && empty && s)
            return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NOT_NORMALISED, p, a, (uint64_t)s, 0);
        if ((uint64_t)s % item)
            return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_STRIDE_MULTIPLE, p, a, (uint64_t)s, item);
        if (l->normalised && e == 1 && s)
            return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_NOT_NORMALISED, p, a, (uint64_t)s, 0);
        /* An empty tensor accesses nothing, so any stride serves (NumPy
         * gives empty arrays zero strides). */
        if (e > 1 && s == 0 && !empty) return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_BROADCAST, p, a, e, 0);
        if (e > 1 && (uint64_t)s > limit) return sk_fault_set(f, over, SK_RULE_STRIDE_LIMIT, p, a, (uint64_t)s, limit);
    }
    if (empty) return sk_fault_passed(f);
    /* item + sum (extent - 1) * stride over the axes of extent > 1, each
     * step checked before it is added: it never wraps. */
    uint64_t total = item;
    int order[SK_MAX_RANK], active = 0;
    for (int a = 0; a < l->rank; ++a) {
        const uint64_t e = l->extent[a], s = (uint64_t)l->stride[a];
        if (e <= 1) continue;
        if (e - 1 > (limit - total) / s) return sk_fault_set(f, over, SK_RULE_SPAN_LIMIT, p, a, total, limit);
        total += (e - 1) * s;
        int j = active++; /* insertion by stride for the proof */
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
        if (s < covered) return sk_fault_set(f, SK_UNSUPPORTED_LAYOUT, SK_RULE_AXES_OVERLAP, p, a, s, covered);
        covered += (l->extent[a] - 1) * s;
    }
    *span = total;
    return sk_fault_passed(f);
}

static inline int sk_view_rules(int port, uint64_t address, uint64_t length, uint64_t need, uint64_t alignment,
                                uint64_t limit, int over, sk_fault *f) {
    if (length > (uint64_t)INT64_MAX)
        return sk_fault_set(f, SK_OVERFLOW, SK_RULE_VIEW_LIMIT, port, -1, length, INT64_MAX);
    if (need == 0) return SK_OK; /* nothing is accessed: any view will do */
    if (address == 0) return sk_fault_set(f, SK_INVALID_BINDING, SK_RULE_NULL, port, -1, 0, need);
    if (length < need) return sk_fault_set(f, SK_INVALID_BINDING, SK_RULE_SHORT, port, -1, length, need);
    if (address > limit || length > limit - address)
        return sk_fault_set(f, over, SK_RULE_ADDRESS_LIMIT, port, -1, address, limit);
    if (address % alignment)
        return sk_fault_set(f, SK_INVALID_BINDING, SK_RULE_MISALIGNED, port, -1, address, alignment);
    return SK_OK;
}

static inline int sk_binding_rules(const sk_binding *need, int domain, uint64_t src, uint64_t src_len, uint64_t dst,
                                   uint64_t dst_len, sk_fault *f) {
    const uint64_t limit = sk_end_limit(domain);
    const int over = domain == SK_DOMAIN_DEVICE ? SK_DEVICE_LIMIT : SK_OVERFLOW;
    if (sk_view_rules(0, src, src_len, need->in_nbytes, need->in_alignment, limit, over, f) ||
        sk_view_rules(1, dst, dst_len, need->out_nbytes, need->out_alignment, limit, over, f))
        return f->status;
    /* Both ranges end within the domain, so the sums below do not wrap. */
    if (need->in_nbytes && need->out_nbytes && src < dst + need->out_nbytes && dst < src + need->in_nbytes)
        return sk_fault_set(f, SK_INVALID_BINDING, SK_RULE_PORTS_OVERLAP, 1, -1, dst, src);
    return SK_OK;
}

#endif
