/* The binding rules, inline: every execute runs them on its pointers (the
 * fault record is written only when a rule is broken, so the passing call
 * costs a few compares); sk_binding_fault (rules.c) is the same code for
 * callers that want the record.  The layout rules are in rules.c. */
#ifndef SK_COMMON_RULES_H
#define SK_COMMON_RULES_H
#include <stdint.h>
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
