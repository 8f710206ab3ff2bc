/* The body of the vector routes' affine dequant leaves
 * (affine_dequant_leaves.c), included once per route inside its target
 * region, after ../common/axis_lanes.h; AD_OWN names its helpers per route.
 * A native vector per block of SK_AXIS_LANES elements, in generic vectors:
 * the stored elements widened to 32 bits (1, 2 or 4 bytes: the variant),
 * their low bits sign-extended by the context's mask and sign (q = ((raw &
 * mask) ^ sign) - sign; 32-bit storage: the word itself), d = q - zp
 * wrapping modulo 2^32, converted to binary32 and multiplied by the scale
 * (nearest-even: the FP state execute admitted), FP32 stored or narrowed
 * to BF16 by Cast's rule; the rest of a run one element at a time. */
#define AD_OWN_(name, isa) name##_##isa
#define AD_OWN(name, isa) AD_OWN_(name, isa)

/* Blocks from 0 while a whole one remains; returns where they stopped.
 * `splat`: every element takes scale[0] and zero_point[0], else position i's. */
static inline __attribute__((always_inline)) size_t
AD_OWN(ad_blocks, AXIS_ISA)(const float *scale, const int32_t *zero_point, const void *src, void *dst, size_t n,
                            uint32_t mask, uint32_t sign, int width, int bf16, int splat) {
    enum { LANES = AXIS_CAT(AXIS_LANES, AXIS_ISA), K = AXIS_CAT(AXIS_K, AXIS_ISA) };
    uint32_t s_bits;
    memcpy(&s_bits, scale, sizeof s_bits);
    const AXIS_U32 s_splat = (AXIS_U32){0} + s_bits, z_splat = (AXIS_U32){0} + (uint32_t)*zero_point;
    const AXIS_U32 mask_v = (AXIS_U32){0} + mask, sign_v = (AXIS_U32){0} + sign;
    size_t i = 0;
    for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
        AXIS_U32 q[K], s[K], z[K], r[K];
        if (width == 1) {
            AXIS_I32 w[K];
            AXIS_CAT(widen_i8, AXIS_ISA)((const int8_t *)src + i, w);
            for (int k = 0; k < K; ++k) q[k] = (AXIS_U32)w[k];
        } else if (width == 2) {
            for (int k = 0; k < K; ++k)
                q[k] = AXIS_CAT(widen_u16, AXIS_ISA)((const uint16_t *)src + i + (size_t)k * LANES);
        } else {
            AXIS_CAT(load64, AXIS_ISA)((const uint32_t *)src + i, q);
        }
        if (splat) {
            for (int k = 0; k < K; ++k) s[k] = s_splat, z[k] = z_splat;
        } else {
            AXIS_CAT(load64, AXIS_ISA)(scale + i, s);
            AXIS_CAT(load64, AXIS_ISA)(zero_point + i, z);
        }
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            const AXIS_U32 v = width == 4 ? q[k] : ((q[k] & mask_v) ^ sign_v) - sign_v;
            r[k] = (AXIS_U32)(__builtin_convertvector((AXIS_I32)(v - z[k]), AXIS_F32) * (AXIS_F32)s[k]);
            if (bf16) AXIS_CAT(narrow_u16, AXIS_ISA)
            ((r[k] + 0x7fffu + ((r[k] >> 16) & 1u)) >> 16, (uint16_t *)dst + i + (size_t)k * LANES);
        }
        if (!bf16) AXIS_CAT(store64, AXIS_ISA)(r, (float *)dst + i);
    }
    return i;
}

/* One context's run (a span, or a runs leaf's entry): the blocks, then,
 * for a rest, the run's last whole block again (one context, lanes
 * independent, ports apart: the same bytes twice); runs shorter than a
 * block one element at a time. */
static inline __attribute__((always_inline)) void
AD_OWN(ad_one, AXIS_ISA)(const sk_affine_dequant_ctx *c, const char *in, char *out, size_t n, int width, int bf16) {
    if (n < SK_AXIS_LANES) {
        sk_ad_span(c, in, out, 0, n, width, bf16);
        return;
    }
    const size_t size = bf16 ? 2 : 4, last = n - SK_AXIS_LANES;
    if (AD_OWN(ad_blocks, AXIS_ISA)(&c->scale, &c->zero_point, in, out, n, c->mask, c->sign, width, bf16, 1) < n)
        AD_OWN(ad_blocks, AXIS_ISA)
    (&c->scale, &c->zero_point, in + last * (size_t)width, out + last * size, SK_AXIS_LANES, c->mask, c->sign, width,
     bf16, 1);
}

/* The span leaves' body (ctx: a sk_affine_dequant_ctx). */
static inline __attribute__((always_inline)) void AD_OWN(ad_span, AXIS_ISA)(const void *ctx, const void *src, void *dst,
                                                                            size_t n, int width, int bf16) {
    AD_OWN(ad_one, AXIS_ISA)(ctx, src, dst, n, width, bf16);
}

/* The periodic leaves' body: positions at + i of the table. */
static inline __attribute__((always_inline)) void
AD_OWN(ad_periodic, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n, int width, int bf16) {
    const sk_affine_dequant_table *t = table;
    const size_t i =
        AD_OWN(ad_blocks, AXIS_ISA)(t->scale + at, t->zero_point + at, src, dst, n, t->mask, t->sign, width, bf16, 0);
    sk_ad_axis_tail(t, at, src, dst, i, n, width, bf16);
}

/* The runs leaves' body: `count` packed runs of n elements, entries from
 * `entry` on, each with its entry's context. */
static inline __attribute__((always_inline)) void AD_OWN(ad_runs, AXIS_ISA)(const void *table, size_t entry,
                                                                            const void *src, void *dst, size_t n,
                                                                            size_t count, int width, int bf16) {
    const sk_affine_dequant_table *t = table;
    const char *in = src;
    char *out = dst;
    const size_t size = bf16 ? 2 : 4;
    for (size_t r = 0, c = entry; r < count; ++r, in += n * (size_t)width, out += n * size) {
        AD_OWN(ad_one, AXIS_ISA)(&t->ctx[c], in, out, n, width, bf16);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}

#undef AXIS_F16_CONVERTS
