/* Binding checks shared by every execute entry (one C call per execute). */
#include "kernel.h"

static int view_ok(const void *ptr, uint64_t len, uint64_t need, uint64_t alignment) {
    const uintptr_t a = (uintptr_t)ptr;
    if (need == 0) return 1;                      /* nothing is accessed */
    if (a == 0 || len < need) return 0;           /* null, or too short */
    if ((uint64_t)a + len < (uint64_t)a) return 0; /* wraps the address space */
    return a % alignment == 0;
}

int sk_binding_check(const sk_binding *need, const void *src, uint64_t src_len, const void *dst,
                     uint64_t dst_len) {
    if (!view_ok(src, src_len, need->in_nbytes, need->in_alignment) ||
        !view_ok(dst, dst_len, need->out_nbytes, need->out_alignment))
        return SK_INVALID_BINDING;
    const uint64_t a = (uintptr_t)src, b = (uintptr_t)dst;
    if (need->in_nbytes && need->out_nbytes && a < b + need->out_nbytes && b < a + need->in_nbytes)
        return SK_INVALID_BINDING;                /* accessed ranges overlap */
    return SK_OK;
}
