/* Host device model support: the decoded entry's numerical core.  The EV74
 * arithmetic is the shared Quant contract, so the model runs the same leaves
 * as the A65 backend, on the route the model was given. */
#include "../quant/quant.h"
#include "../common/fenv.h"

int sk_ev74_run_span(const sk_ev74_descriptor *d, int route, uintptr_t src, uintptr_t dst, uint64_t n) {
    if (d->conversion > SK_QUANT_F16 || d->rounding > SK_QUANT_TOWARD_NEGATIVE) return SK_INVALID_DESCRIPTOR;
    if (!sk_route_usable(route)) return SK_INVALID_OPERATION;
    sk_quant_ctx c;
    sk_quant_ctx_init(&c, d->multiplier_bits, d->zero_point, (int)d->conversion,
                      sk_fenv_control_flushes(sk_fenv_control()));
    sk_quant_kernel(route, (int)(d->conversion * 4 + d->rounding))->span(&c, (const void *)src, (void *)dst,
                                                                       (size_t)n);
    return SK_OK;
}
