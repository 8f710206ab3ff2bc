/* Affine quant and affine dequant internals (the integer formats beyond
 * INT8, simakernels.h): the storage types' ranges and masks, the packed
 * sub-byte images, the exact element paths that define every result (the
 * scalar route, the vector leaves' tails and repaired blocks), the
 * per-axis tables, and the prototype of every leaf of the two registries
 * (affine_quant_kernels.inc, affine_dequant_kernels.inc). */
#ifndef SK_AFFINE_H
#define SK_AFFINE_H
#include <string.h>
#include "../common/kernel.h"
#include "../common/axis.h"
#include "../common/bits.h"
#include "../quant/exact.h"

/* ---- Storage types -------------------------------------------------------- */
/* Bits per element: sk_hurray_storage_bits' table (hurray.c), 0 for an unknown code. */
static inline int sk_storage_bits(int storage) { return sk_hurray_storage_bits(storage); }
static inline int sk_storage_signed(int storage) {
    return storage == SK_HURRAY_INT8 || storage == SK_HURRAY_INT16 || storage == SK_HURRAY_INT32 ||
           storage == SK_HURRAY_INT4 || storage == SK_HURRAY_INT2;
}
static inline int sk_storage_sub_byte(int storage) { return storage >= SK_HURRAY_INT4 && storage <= SK_HURRAY_UINT2; }
/* Bytes per element of the unpacked image: 1, 2 or 4. */
static inline int sk_storage_width(int storage) {
    const int bits = sk_storage_bits(storage);
    return bits <= 8 ? 1 : bits / 8;
}
/* An affine quant output: every storage but the 32-bit ones. */
static inline int sk_affine_quant_storage(int storage) {
    return storage >= 0 && storage < SK_HURRAY_STORAGE_COUNT && storage != SK_HURRAY_INT32 &&
           storage != SK_HURRAY_UINT32;
}

/* ---- Packed sub-byte images ---------------------------------------------- */
/* `count` elements one per byte (low `bits` bits) packed into
 * ceil(count * bits / 8) bytes of dst, the unused high bits of the last
 * byte preserved; and back, high bits zero.  bits: 2 or 4. */
void sk_pack_bytes(int bits, const uint8_t *src, uint8_t *dst, size_t count);
void sk_unpack_bytes(int bits, const uint8_t *src, uint8_t *dst, size_t count);

/* ---- Affine quant ----------------------------------------------------------- */
/* Element i of a packed source of the given input dtype, decoded. */
static inline sk_q_decoded sk_aq_decode_at(int input, const void *src, size_t i) {
    return input == SK_QUANT_F32    ? sk_q_decode_f32(((const uint32_t *)src)[i])
           : input == SK_QUANT_BF16 ? sk_q_decode_bf16(((const uint16_t *)src)[i])
                                    : sk_q_decode_f16(((const uint16_t *)src)[i]);
}

/* The ordered contract with integers only, saturated to the storage range. */
static inline int32_t sk_aq_exact(const sk_affine_quant_ctx *c, sk_q_decoded d, int mode) {
    return sk_q_exact_range(c->msig, c->mexp, c->zero_point, d, mode, c->least, c->greatest);
}

/* Output element i: the storage's low bits, one or two bytes. */
static inline void sk_aq_store(void *out, size_t i, int32_t r, uint32_t mask, int width) {
    if (width == 2)
        ((uint16_t *)out)[i] = (uint16_t)((uint32_t)r & mask);
    else
        ((uint8_t *)out)[i] = (uint8_t)((uint32_t)r & mask);
}

/* The exact path over elements [i, n) of a packed source: tails, repaired
 * blocks and the whole scalar route. */
static inline void sk_aq_exact_span(const sk_affine_quant_ctx *c, const void *src, void *out, size_t i, size_t n,
                                    int input, int mode) {
    for (; i < n; ++i) sk_aq_store(out, i, sk_aq_exact(c, sk_aq_decode_at(input, src, i), mode), c->mask, c->width);
}

/* How a vector leaf narrows a context's int32 results: its storage's
 * kind (INT8, UINT8, the signed or unsigned sub-byte types one element per
 * byte, INT16, UINT16). */
enum sk_aq_kind { SK_AQ_I8, SK_AQ_U8, SK_AQ_ISUB, SK_AQ_USUB, SK_AQ_I16, SK_AQ_U16 };
static inline enum sk_aq_kind sk_aq_kind_of(const sk_affine_quant_ctx *c) {
    if (c->width == 2) return c->least < 0 ? SK_AQ_I16 : SK_AQ_U16;
    if (c->least == -128) return SK_AQ_I8;
    if (c->least == 0 && c->greatest == 255) return SK_AQ_U8;
    return c->least < 0 ? SK_AQ_ISUB : SK_AQ_USUB;
}
/* Calls f(..., kind) with the context's kind as a constant, so that each
 * kind compiles its own specialisation of an always-inline f. */
#define SK_AQ_BY_KIND(c, f, ...)        \
    do {                                \
        switch (sk_aq_kind_of(c)) {     \
        case SK_AQ_I8:                  \
            f(__VA_ARGS__, SK_AQ_I8);   \
            break;                      \
        case SK_AQ_U8:                  \
            f(__VA_ARGS__, SK_AQ_U8);   \
            break;                      \
        case SK_AQ_ISUB:                \
            f(__VA_ARGS__, SK_AQ_ISUB); \
            break;                      \
        case SK_AQ_USUB:                \
            f(__VA_ARGS__, SK_AQ_USUB); \
            break;                      \
        case SK_AQ_I16:                 \
            f(__VA_ARGS__, SK_AQ_I16);  \
            break;                      \
        default:                        \
            f(__VA_ARGS__, SK_AQ_U16);  \
        }                               \
    } while (0)
/* Bits per element of a sub-byte context (4 or 2), 0 for the others. */
static inline int sk_aq_sub_bits(const sk_affine_quant_ctx *c) {
    return c->width != 1 ? 0 : c->mask == 0xfu ? 4 : c->mask == 0x3u ? 2 : 0;
}

/* Per-axis plans, channel axis inner (the periodic leaves): the multiplier
 * and zero point of table positions [0, period), each channel's context
 * for the exact path (position i is channel i mod channels), and the
 * storage's range, mask and width.  Blocked plans: one position per entry
 * in the walk's table order (period = channels = the entry count). */
typedef struct sk_affine_quant_table {
    const float *multiplier;
    const int32_t *zero_point;
    const sk_affine_quant_ctx *ctx; /* each channel's, for this control register */
    int64_t channels;
    int64_t period;
    int32_t flushes; /* the control register flushes: blocks are tested for the exact path */
    int32_t least, greatest;
    uint32_t mask;
    int32_t width;
} sk_affine_quant_table;

/* The exact path for elements [i, end) of a periodic leaf's run, at table
 * positions from at + i. */
static inline void sk_aq_axis_exact(const sk_affine_quant_table *t, size_t at, const void *src, void *out, size_t i,
                                    size_t end, int input, int mode) {
    int64_t c = (int64_t)((at + i) % (size_t)t->channels);
    for (; i < end; ++i) {
        sk_aq_store(out, i, sk_aq_exact(&t->ctx[c], sk_aq_decode_at(input, src, i), mode), t->mask, t->width);
        if (++c == t->channels) c = 0;
    }
}

/* ---- Affine dequant --------------------------------------------------------- */
/* Raw element i of an unpacked source of `width` bytes per element (any
 * alignment: the Hurray entry binds byte buffers). */
static inline uint32_t sk_ad_raw(const void *src, size_t i, int width) {
    const uint8_t *s = src;
    if (width == 1) return s[i];
    if (width == 2) {
        uint16_t v;
        memcpy(&v, s + 2 * i, 2);
        return v;
    }
    uint32_t v;
    memcpy(&v, s + 4 * i, 4);
    return v;
}

/* The stored value: its low bits, sign-extended for a signed type. */
static inline uint32_t sk_ad_value(uint32_t raw, uint32_t mask, uint32_t sign) { return ((raw & mask) ^ sign) - sign; }

/* The formula: (int32)(q - zp) wrapping, binary32 nearest-even, times the
 * scale (the FP state execute admitted: nearest, gradual underflow). */
static inline float sk_ad_element(uint32_t q, int32_t zero_point, float scale) {
    return (float)(int32_t)(q - (uint32_t)zero_point) * scale;
}

static inline void sk_ad_store(void *out, size_t i, float r, int bf16) {
    if (bf16) {
        uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        ((uint16_t *)out)[i] = sk_bf16_from_f32_bits(bits);
    } else {
        ((float *)out)[i] = r;
    }
}

/* Elements [i, n) one at a time with one context: the scalar route and the
 * vector leaves' tails. */
static inline void sk_ad_span(const sk_affine_dequant_ctx *c, const void *src, void *out, size_t i, size_t n, int width,
                              int bf16) {
    for (; i < n; ++i)
        sk_ad_store(out, i,
                    sk_ad_element(sk_ad_value(sk_ad_raw(src, i, width), c->mask, c->sign), c->zero_point, c->scale),
                    bf16);
}

/* Element j of a packed sub-byte image (bits 2 or 4) through a context's
 * table of results (sk_affine_dequant_table_init: entry v is the result of
 * v & mask, so the low 4 bits of the shifted byte index it): its `size`
 * result bytes (4 FP32, 2 BF16) at dst.  The vector routes' packed leaves
 * run their heads with it. */
static inline void sk_ad_table_element(const sk_affine_dequant_ctx *c, const uint8_t *src, uint8_t *dst, size_t j,
                                       int bits, size_t size) {
    const unsigned v = (unsigned)(src[j * (size_t)bits / 8] >> (j * (size_t)bits % 8)) & 0xfu;
    for (size_t b = 0; b < size; ++b) dst[j * size + b] = c->table[16 * b + v];
}

/* Per-axis plans, channel axis inner: each table position's scale and
 * zero point, each channel's context (the runs leaves), the storage's mask
 * and sign.  Blocked plans: one position per entry in table order. */
typedef struct sk_affine_dequant_table {
    const float *scale;
    const int32_t *zero_point;
    const sk_affine_dequant_ctx *ctx;
    int64_t channels;
    int64_t period;
    uint32_t mask, sign;
} sk_affine_dequant_table;

/* Elements [i, n) of a periodic leaf one at a time, position at + i. */
static inline void sk_ad_axis_tail(const sk_affine_dequant_table *t, size_t at, const void *src, void *out, size_t i,
                                   size_t n, int width, int bf16) {
    for (; i < n; ++i)
        sk_ad_store(out, i,
                    sk_ad_element(sk_ad_value(sk_ad_raw(src, i, width), t->mask, t->sign), t->zero_point[at + i],
                                  t->scale[at + i]),
                    bf16);
}

/* The kernel table index of an output and an element width (the
 * registry's lines need it as a constant). */
#define SK_AFFINE_DEQUANT_VARIANT(output, width) ((output)*3 + ((width) == 1 ? 0 : (width) == 2 ? 1 : 2))

/* Runs a per-tensor dense span of n elements with a context, packed
 * sub-byte input unpacked in chunks (fused): the plans' fused path and the
 * Hurray entry (affine_dequant.c).  `src` holds the packed image when
 * `packed`. */
void sk_affine_dequant_dense(int route, int variant, int packed, int bits, const sk_affine_dequant_ctx *c,
                             const void *src, void *dst, size_t n);
/* A per-tensor sub-byte context's table of its 16 results (FP32 or BF16
 * bytes), when the FP state is execute's (affine_dequant.c). */
void sk_affine_dequant_table_init(sk_affine_dequant_ctx *c, int storage, int bf16);
/* A per-tensor context (mask and sign of the storage; any zero point). */
void sk_affine_dequant_ctx_init(sk_affine_dequant_ctx *c, int storage, uint32_t scale_bits, int32_t zero_point);

/* An execute's ports and scratch, checked before any byte is written: the
 * binding, then, for a walk with elements, the scratch (present, long
 * enough and apart from both ports, when the plan needs one).  SK_OK or
 * the status to return; *empty: the walk has nothing to compute. */
static inline int sk_affine_bind(const sk_binding *b, const sk_walk *w, const void *src, uint64_t src_len, void *dst,
                                 uint64_t dst_len, uint64_t need, const void *scratch, uint64_t have, int *empty) {
    const int status = sk_binding_check(b, src, src_len, dst, dst_len);
    *empty = w->runs == 0;
    if (status != SK_OK || *empty || need == 0) return status;
    const uintptr_t s = (uintptr_t)scratch, i = (uintptr_t)src, o = (uintptr_t)dst;
    return scratch && have >= need && have <= (uint64_t)INT64_MAX && s <= UINTPTR_MAX - need &&
                   (s + need <= i || i + b->in_nbytes <= s) && (s + need <= o || o + b->out_nbytes <= s)
               ? SK_OK
               : SK_INVALID_BINDING;
}

/* A scratch of `bytes` for the 5-argument entries (sk_affine_*_run): NULL
 * when none is needed; *status SK_OVERFLOW when it cannot be had. */
void *sk_affine_scratch_new(uint64_t bytes, int *status);

#define SK_LEAF SK_LEAF_DECLARE
#include "affine_quant_kernels.inc"
#include "affine_dequant_kernels.inc"
#undef SK_LEAF

/* The kernel tables, [route][variant] (affine_quant.c, affine_dequant.c). */
extern const sk_kernel sk_affine_quant_kernels[SK_ROUTE_COUNT][SK_AFFINE_QUANT_VARIANTS];
extern const sk_kernel sk_affine_dequant_kernels[SK_ROUTE_COUNT][SK_AFFINE_DEQUANT_VARIANTS];

#endif
