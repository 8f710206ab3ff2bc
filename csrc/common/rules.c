/* The layout and binding rules: one checker for execute, the EV74 decoder
 * and Python's admission and binding (simakernels.h "Layout and binding
 * rules"); the binding rules themselves are inline in rules.h. */
#include "kernel.h"
#include "rules.h"

_Static_assert(sizeof(((sk_walk *)0)->extent) == SK_MAX_RANK * sizeof(int64_t), "six axes");
_Static_assert(sizeof(((sk_layout *)0)->extent) == SK_MAX_RANK * sizeof(uint64_t), "six axes");

/* The largest accessed span per domain (signed 64-bit on the host, 32-bit
 * on the EV74). */
static const uint64_t SPAN_LIMIT[2] = {(uint64_t)INT64_MAX, ((uint64_t)1 << 32) - 1};

uint64_t sk_domain_end(int domain) { return sk_end_limit(domain); }

static int passed(sk_fault *f) { return sk_fault_set(f, SK_OK, SK_RULE_NONE, -1, -1, 0, 0); }

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
    if (empty) return passed(f);
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
    return passed(f);
}

int sk_binding_fault(const sk_binding *need, int domain, uint64_t src, uint64_t src_len, uint64_t dst, uint64_t dst_len,
                     sk_fault *f) {
    const int status = sk_binding_rules(need, domain, src, src_len, dst, dst_len, f);
    return status == SK_OK ? passed(f) : status;
}
