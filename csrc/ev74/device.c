/* Host device model support: the decoded entry's numerical core.  The EV74
 * arithmetic is the shared Quant contract, so the model runs the same leaves
 * as the A65 backend (best route of this build). */
#include "../quant/quant.h"

int sk_ev74_run_span(const sk_ev74_descriptor *d, uintptr_t src, uintptr_t dst, uint64_t n) {
    if (d->conversion > SK_QUANT_F16 || d->rounding > SK_QUANT_TOWARD_NEGATIVE) return SK_INVALID_DESCRIPTOR;
    int route = 0;
    while (!sk_route_available(route)) ++route;  /* the scalar route is always there */
    sk_quant_ctx c;
    sk_quant_ctx_init(&c, d->multiplier_bits, d->zero_point, (int)d->conversion);
    sk_quant_leaf(route, (int)d->conversion, (int)d->rounding)(&c, (const void *)src, (void *)dst, (size_t)n);
    return SK_OK;
}
