/* The layout and binding rules: one checker for execute, the EV74 decoder
 * and Python's admission and binding (simakernels.h "Layout and binding
 * rules"); the binding rules themselves are inline in rules.h. */
#include "kernel.h"
#include "rules.h"

_Static_assert(sizeof(((sk_walk *)0)->extent) == SK_MAX_RANK * sizeof(int64_t), "six axes");
_Static_assert(sizeof(((sk_layout *)0)->extent) == SK_MAX_RANK * sizeof(uint64_t), "six axes");

uint64_t sk_domain_end(int domain) { return sk_end_limit(domain); }

int sk_layout_check(const sk_layout *l, uint64_t *span, sk_fault *f) { return sk_layout_rules(l, span, f); }

int sk_binding_fault(const sk_binding *need, int domain, uint64_t src, uint64_t src_len, uint64_t dst, uint64_t dst_len,
                     sk_fault *f) {
    const int status = sk_binding_rules(need, domain, src, src_len, dst, dst_len, f);
    return status == SK_OK ? sk_fault_passed(f) : status;
}
