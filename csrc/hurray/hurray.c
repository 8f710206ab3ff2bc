/* Hurray per-tensor affine dequantization: a thin entry over the affine
 * dequant engine (csrc/affine): one dense run of FP32 output, the storage
 * read packed (sub-byte) or as its 8-, 16- or 32-bit words, on the best
 * route this CPU runs.  The formula is affine dequant's: d = (int32)(q -
 * zero_point) with two's-complement wrap (reachable only from INT32/UINT32
 * storage), then (float)d rounded nearest-even, then d * scale rounded
 * nearest-even.  No parameter rules here (any scale bits and zero point
 * give the formula's bits); the binding and FP-environment checks as
 * before. */
#include <string.h>
#include "../affine/affine.h"
#include "../common/fenv.h"

static const int8_t BITS[SK_HURRAY_STORAGE_COUNT] = {
    [SK_HURRAY_INT8] = 8,   [SK_HURRAY_UINT8] = 8,   [SK_HURRAY_INT16] = 16, [SK_HURRAY_UINT16] = 16,
    [SK_HURRAY_INT32] = 32, [SK_HURRAY_UINT32] = 32, [SK_HURRAY_INT4] = 4,   [SK_HURRAY_UINT4] = 4,
    [SK_HURRAY_INT2] = 2,   [SK_HURRAY_UINT2] = 2,
};

int sk_hurray_storage_bits(int storage) {
    return storage < 0 || storage >= SK_HURRAY_STORAGE_COUNT ? 0 : BITS[storage];
}

/* The first route (best first) this CPU runs; scalar always. */
static int best_route(void) {
    for (int r = 0; r < SK_ROUTE_SCALAR; ++r)
        if (sk_route_usable(r)) return r;
    return SK_ROUTE_SCALAR;
}

int sk_hurray_dequantize(int storage, uint32_t scale_bits, int32_t zero_point, const void *src, uint64_t src_len,
                         void *dst, uint64_t dst_len, uint64_t count) {
    if (storage < 0 || storage >= SK_HURRAY_STORAGE_COUNT) return SK_INVALID_OPERATION;
    /* count < 2^61 keeps the byte counts below from wrapping; larger counts
     * cannot be bound (a view is at most 2^63-1 bytes). */
    if (count > ((uint64_t)1 << 61)) return SK_OVERFLOW;
    /* Storage is read bytewise (the leaves' loads take any alignment). */
    const sk_binding need = {(count * (uint64_t)BITS[storage] + 7) / 8, 1, count * sizeof(float), sizeof(float)};
    const int bound = sk_binding_check(&need, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    if (count == 0) return SK_OK;
    if (sk_fenv_unmet(sk_fenv_needs(SK_OP_HURRAY))) return SK_UNSUPPORTED_ENVIRONMENT;
    sk_affine_dequant_ctx c;
    sk_affine_dequant_ctx_init(&c, storage, scale_bits, zero_point);
    sk_affine_dequant_table_init(&c, storage, 0);
    sk_affine_dequant_dense(best_route(), sk_affine_dequant_variant(SK_DEQUANT_F32, storage),
                            sk_storage_sub_byte(storage), BITS[storage], &c, src, dst, (size_t)count);
    return SK_OK;
}
