/* The storage types of affine quant and dequant: their ranges, the one
 * parameter checker of the two operations, and the packed sub-byte images
 * (sk_pack, sk_unpack and the plans' chunks). */
#include <stdlib.h>
#include "affine.h"
#include "affine_params.h"

int sk_storage_range(int storage, int64_t *least, int64_t *greatest) {
    const int bits = sk_storage_bits(storage);
    if (bits == 0) return SK_INVALID_OPERATION;
    sk_affine_range(storage, least, greatest);
    return SK_OK;
}

int sk_affine_params_check(int operation, int storage, const uint32_t *bits, uint64_t bits_count,
                           const int64_t *zero_points, uint64_t zero_points_count, uint64_t *at, sk_fault *f) {
    *at = 0;
    const int known = operation == SK_OP_AFFINE_QUANT     ? sk_affine_quant_storage(storage)
                      : operation == SK_OP_AFFINE_DEQUANT ? sk_storage_bits(storage) != 0
                                                          : 0;
    if (!known) return sk_fault_set(f, SK_INVALID_OPERATION, SK_RULE_NONE, -1, -1, (uint64_t)operation, 0);
    for (uint64_t i = 0; i < bits_count; ++i) {
        *at = i;
        if (sk_affine_value_rule(operation, bits[i], f) != SK_OK) return f->status;
    }
    for (uint64_t i = 0; i < zero_points_count; ++i) {
        *at = i;
        if (sk_affine_zero_point_rule(storage, zero_points[i], f) != SK_OK) return f->status;
    }
    *at = 0;
    return sk_fault_passed(f);
}

/* ---- Packed images ----------------------------------------------------------
 * Eight elements at a time in a 64-bit word (little-endian hosts: byte k
 * of the word is the byte at k): the fields slide together (pack) or apart
 * (unpack) in three shift-or-mask steps. */
static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint32_t pack8_4(uint64_t x) { /* 8 bytes -> 4 */
    x &= 0x0f0f0f0f0f0f0f0fu;
    x = (x | x >> 4) & 0x00ff00ff00ff00ffu;
    x = (x | x >> 8) & 0x0000ffff0000ffffu;
    return (uint32_t)(x | x >> 16);
}
static inline uint16_t pack8_2(uint64_t x) { /* 8 bytes -> 2 */
    x &= 0x0303030303030303u;
    x = (x | x >> 6) & 0x000f000f000f000fu;
    x = (x | x >> 12) & 0x000000ff000000ffu;
    return (uint16_t)(x | x >> 24);
}
static inline uint64_t unpack8_4(uint32_t v) { /* 4 bytes -> 8 */
    uint64_t x = v;
    x = (x | x << 16) & 0x0000ffff0000ffffu;
    x = (x | x << 8) & 0x00ff00ff00ff00ffu;
    return (x | x << 4) & 0x0f0f0f0f0f0f0f0fu;
}
static inline uint64_t unpack8_2(uint16_t v) { /* 2 bytes -> 8 */
    uint64_t x = v;
    x = (x | x << 24) & 0x000000ff000000ffu;
    x = (x | x << 12) & 0x000f000f000f000fu;
    return (x | x << 6) & 0x0303030303030303u;
}

#if SK_HAVE_NEON
#include <arm_neon.h>
/* 32 elements per step: the fields of two (four) bytes shifted and
 * inserted into one. */
static size_t pack_neon(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    size_t i = 0;
    if (bits == 4) {
        for (; i + 32 <= count; i += 32) {
            const uint8x16x2_t v = vld2q_u8(src + i); /* even, odd elements */
            vst1q_u8(dst + i / 2, vsliq_n_u8(vandq_u8(v.val[0], vdupq_n_u8(15)), v.val[1], 4));
        }
    } else {
        for (; i + 64 <= count; i += 64) {
            const uint8x16x4_t v = vld4q_u8(src + i);
            const uint8x16_t three = vdupq_n_u8(3);
            uint8x16_t r = vsliq_n_u8(vandq_u8(v.val[2], three), v.val[3], 2);
            r = vsliq_n_u8(vandq_u8(v.val[1], three), r, 2);
            r = vsliq_n_u8(vandq_u8(v.val[0], three), r, 2);
            vst1q_u8(dst + i / 4, r);
        }
    }
    return i;
}
static size_t unpack_neon(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    size_t i = 0;
    if (bits == 4) {
        for (; i + 32 <= count; i += 32) {
            const uint8x16_t v = vld1q_u8(src + i / 2);
            const uint8x16x2_t r = {{vandq_u8(v, vdupq_n_u8(15)), vshrq_n_u8(v, 4)}};
            vst2q_u8(dst + i, r);
        }
    } else {
        for (; i + 64 <= count; i += 64) {
            const uint8x16_t v = vld1q_u8(src + i / 4), three = vdupq_n_u8(3);
            const uint8x16x4_t r = {{vandq_u8(v, three), vandq_u8(vshrq_n_u8(v, 2), three),
                                     vandq_u8(vshrq_n_u8(v, 4), three), vshrq_n_u8(v, 6)}};
            vst4q_u8(dst + i, r);
        }
    }
    return i;
}
#endif

#if SK_HAVE_SSE2
#include <immintrin.h>
/* The fields of each 16-bit lane's two bytes (below 2^shift) joined in its
 * low byte, the high byte's above the low one's, the rest cleared. */
static inline __m128i join_sse2(__m128i v, int shift, __m128i low) {
    return _mm_and_si128(_mm_or_si128(v, _mm_srli_epi16(v, shift)), low);
}
/* 32 bytes of fields below 16 -> 16 bytes of nibble pairs. */
static inline __m128i pack4_sse2(__m128i a, __m128i b) {
    const __m128i low = _mm_set1_epi16(0xff);
    return _mm_packus_epi16(join_sse2(a, 4, low), join_sse2(b, 4, low));
}
/* 32 bytes of 2-bit fields -> 16 bytes of their pairs as nibbles. */
static inline __m128i pack2_sse2(const uint8_t *src) {
    const __m128i three = _mm_set1_epi8(3), low = _mm_set1_epi16(0x0f);
    const __m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)src), three);
    const __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + 16)), three);
    return _mm_packus_epi16(join_sse2(a, 6, low), join_sse2(b, 6, low));
}
static size_t pack_sse2(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    const __m128i fifteen = _mm_set1_epi8(15);
    size_t i = 0;
    if (bits == 4) {
        for (; i + 32 <= count; i += 32) {
            const __m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + i)), fifteen);
            const __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + i + 16)), fifteen);
            _mm_storeu_si128((__m128i *)(void *)(dst + i / 2), pack4_sse2(a, b));
        }
    } else {
        for (; i + 64 <= count; i += 64)
            _mm_storeu_si128((__m128i *)(void *)(dst + i / 4),
                             pack4_sse2(pack2_sse2(src + i), pack2_sse2(src + i + 32)));
    }
    return i;
}
/* The low and high `shift`-bit fields of each byte of v (below 2^(2 shift)),
 * interleaved: 32 bytes into lo and hi. */
static inline void split_sse2(__m128i v, int shift, __m128i mask, __m128i *lo, __m128i *hi) {
    const __m128i a = _mm_and_si128(v, mask), b = _mm_and_si128(_mm_srli_epi16(v, shift), mask);
    *lo = _mm_unpacklo_epi8(a, b);
    *hi = _mm_unpackhi_epi8(a, b);
}
static size_t unpack_sse2(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    const __m128i fifteen = _mm_set1_epi8(15), three = _mm_set1_epi8(3);
    size_t i = 0;
    if (bits == 4) {
        for (; i + 32 <= count; i += 32) {
            __m128i lo, hi;
            split_sse2(_mm_loadu_si128((const __m128i *)(const void *)(src + i / 2)), 4, fifteen, &lo, &hi);
            _mm_storeu_si128((__m128i *)(void *)(dst + i), lo);
            _mm_storeu_si128((__m128i *)(void *)(dst + i + 16), hi);
        }
    } else {
        for (; i + 64 <= count; i += 64) {
            __m128i n[2], e[4];
            split_sse2(_mm_loadu_si128((const __m128i *)(const void *)(src + i / 4)), 4, fifteen, &n[0], &n[1]);
            split_sse2(n[0], 2, three, &e[0], &e[1]);
            split_sse2(n[1], 2, three, &e[2], &e[3]);
            for (int k = 0; k < 4; ++k) _mm_storeu_si128((__m128i *)(void *)(dst + i + 16 * (size_t)k), e[k]);
        }
    }
    return i;
}
#endif

void sk_pack_bytes(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    size_t i = 0;
#if SK_HAVE_NEON
    i = pack_neon(bits, src, dst, count);
#elif SK_HAVE_SSE2
    i = pack_sse2(bits, src, dst, count);
#endif
    if (bits == 4) {
        for (; i + 8 <= count; i += 8) {
            const uint32_t w = pack8_4(load64(src + i));
            memcpy(dst + i / 2, &w, 4);
        }
    } else {
        for (; i + 8 <= count; i += 8) {
            const uint16_t w = pack8_2(load64(src + i));
            memcpy(dst + i / 4, &w, 2);
        }
    }
    if (i == count) return;
    /* The last elements: whole bytes, then the last byte's used bits
     * merged into its preserved ones. */
    const uint32_t m = (1u << bits) - 1;
    const size_t rest = count - i, used = rest * (size_t)bits; /* < 8 * bits <= 32 bits */
    uint32_t acc = 0;
    for (size_t j = 0; j < rest; ++j) acc |= (src[i + j] & m) << (j * (size_t)bits);
    uint8_t *out = dst + i * (size_t)bits / 8;
    size_t k = 0;
    for (; (k + 1) * 8 <= used; ++k) out[k] = (uint8_t)(acc >> (8 * k));
    if (k * 8 < used) {
        const uint32_t keep = 0xffu << (used - k * 8) & 0xffu;
        out[k] = (uint8_t)((out[k] & keep) | ((acc >> (8 * k)) & ~keep & 0xffu));
    }
}

void sk_unpack_bytes(int bits, const uint8_t *src, uint8_t *dst, size_t count) {
    size_t i = 0;
#if SK_HAVE_NEON
    i = unpack_neon(bits, src, dst, count);
#elif SK_HAVE_SSE2
    i = unpack_sse2(bits, src, dst, count);
#endif
    if (bits == 4) {
        for (; i + 8 <= count; i += 8) {
            uint32_t w;
            memcpy(&w, src + i / 2, 4);
            const uint64_t x = unpack8_4(w);
            memcpy(dst + i, &x, 8);
        }
    } else {
        for (; i + 8 <= count; i += 8) {
            uint16_t w;
            memcpy(&w, src + i / 4, 2);
            const uint64_t x = unpack8_2(w);
            memcpy(dst + i, &x, 8);
        }
    }
    const uint32_t m = (1u << bits) - 1;
    for (; i < count; ++i) {
        const size_t at = i * (size_t)bits;
        dst[i] = (uint8_t)((src[at / 8] >> (at % 8)) & m);
    }
}

/* The public entries: sub-byte storage, both views checked. */
static int pack_entry(int storage, const void *src, uint64_t src_len, void *dst, uint64_t dst_len, uint64_t count,
                      int pack) {
    if (!sk_storage_sub_byte(storage)) return SK_INVALID_OPERATION;
    if (count > ((uint64_t)1 << 60)) return SK_OVERFLOW; /* (no view holds it; the byte counts stay exact) */
    const int bits = sk_storage_bits(storage);
    const uint64_t packed = (count * (uint64_t)bits + 7) / 8;
    const sk_binding need = {pack ? count : packed, 1, pack ? packed : count, 1};
    const int bound = sk_binding_check(&need, src, src_len, dst, dst_len);
    if (bound != SK_OK || count == 0) return bound;
    if (pack)
        sk_pack_bytes(bits, src, dst, (size_t)count);
    else
        sk_unpack_bytes(bits, src, dst, (size_t)count);
    return SK_OK;
}

int sk_pack(int storage, const void *src, uint64_t src_len, void *dst, uint64_t dst_len, uint64_t count) {
    return pack_entry(storage, src, src_len, dst, dst_len, count, 1);
}

int sk_unpack(int storage, const void *src, uint64_t src_len, void *dst, uint64_t dst_len, uint64_t count) {
    return pack_entry(storage, src, src_len, dst, dst_len, count, 0);
}

void *sk_affine_scratch_new(uint64_t bytes, int *status) {
    void *scratch = bytes == 0 || bytes > SIZE_MAX ? NULL : malloc((size_t)bytes);
    *status = bytes != 0 && !scratch ? SK_OVERFLOW : SK_OK;
    return scratch;
}
