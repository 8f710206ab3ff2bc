/* Host device model support: the decoded entry's numerical core.  The EV74
 * arithmetic is the shared Quant contract, so the model runs the same leaves
 * as the A65 backend, on the route the model was given. */
#include "../quant/quant.h"
#include "../common/fenv.h"

int sk_ev74_run_span(const sk_ev74_descriptor *d, int route, const void *src, uint64_t src_len, void *dst,
                     uint64_t dst_len, uint64_t n) {
    if (d->conversion > SK_QUANT_F16 || d->rounding > SK_QUANT_TOWARD_NEGATIVE) return SK_INVALID_DESCRIPTOR;
    if (!sk_route_usable(route)) return SK_INVALID_OPERATION;
    const uint64_t item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    if (n > (uint64_t)INT64_MAX / item) return SK_OVERFLOW;
    const sk_binding need = {n * item, item, n, 1};
    const int bound = sk_binding_check(&need, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    sk_quant_ctx c;
    sk_quant_ctx_init(&c, d->multiplier_bits, d->zero_point, (int)d->conversion,
                      sk_fenv_control_flushes(sk_fenv_control()));
    sk_quant_kernels[route][sk_quant_variant((int32_t)d->conversion, (int32_t)d->rounding)].span(&c, src, dst,
                                                                                                 (size_t)n);
    return SK_OK;
}
