/* The route-specific moves of the parameter-vector leaves (dequant_axis_body.h,
 * quant_axis.c), which generic vectors would do lane by lane or through
 * memory.  A file includes this inside each route's target region, after
 * defining AXIS_ISA (sse2, avx2, avx512 or neon) and the matching
 * AXIS_ISA_<NAME>; it gets, suffixed __<isa>, the native-width generic
 * vectors f32, i32, u32 of AXIS_LANES__<isa> lanes (AXIS_K__<isa> of them
 * make a block of SK_AXIS_LANES elements) and
 *   widen_i8(const int8_t *, i32[K])  a block's INT8 values sign-extended
 *   widen_u16(const uint16_t *)   the lanes' 16-bit words zero-extended
 *   narrow_u16(u32, uint16_t *)   lanes below 2^16 stored as 16 bits
 *   narrow_i8(const i32[K], int8_t *)  a block's lanes saturated to
 *                                 [-128, 127] and stored
 *   any(i32)                      whether any lane of a mask is set
 *   load64(const void *, u32[K]), store64(const u32[K], void *)
 *                                 a block of 32-bit lanes from or to memory
 *   to_int(f32, mode)             lanes (|x| <= 512, or clamp512's NaN) rounded to
 *                                 integers by the Quant mode; nearest-even
 *                                 may use the control register's rounding,
 *                                 which Quant's executes require nearest
 *   clamp512(f32)                 lanes clamped to [-512, 512], NaN to a
 *                                 lane that to_int makes 0
 *   clamp(f32, lo, hi)            lanes clamped to [lo, hi] (lo <= 0 <= hi),
 *                                 NaN to a lane that to_int makes 0
 *   widen_f16(const uint16_t *)   the lanes' FP16 values as binary32, where
 *                                 the ISA converts (AXIS_F16_CONVERTS): a
 *                                 conversion that flushed subnormal halves
 *                                 would give 0, which Quant's repair test
 *                                 catches from the input's own bits */
#include <stdint.h>
#include <string.h>

#define AXIS_CAT_(a, b) a##__##b
#define AXIS_CAT(a, b) AXIS_CAT_(a, b)
#define AXIS_F32 AXIS_CAT(f32, AXIS_ISA)
#define AXIS_I32 AXIS_CAT(i32, AXIS_ISA)
#define AXIS_U32 AXIS_CAT(u32, AXIS_ISA)

#if defined(AXIS_ISA_SSE2) || defined(AXIS_ISA_NEON)
#define AXIS_BYTES 16
#elif defined(AXIS_ISA_AVX2)
#define AXIS_BYTES 32
#else
#define AXIS_BYTES 64
#endif
typedef float AXIS_F32 __attribute__((vector_size(AXIS_BYTES)));
typedef int32_t AXIS_I32 __attribute__((vector_size(AXIS_BYTES)));
typedef uint32_t AXIS_U32 __attribute__((vector_size(AXIS_BYTES)));
enum { AXIS_CAT(AXIS_LANES, AXIS_ISA) = AXIS_BYTES / 4, AXIS_CAT(AXIS_K, AXIS_ISA) = SK_AXIS_LANES * 4 / AXIS_BYTES };
#undef AXIS_BYTES

/* Clears the upper halves of the vector registers (VZEROUPPER) before a
 * leaf ends in a call out: GCC 12 emits none in the leaves whose last
 * statement calls the exact path (Quant's and affine quant's periodic
 * leaves), and the walk's SSE code after each such call then stalled
 * (docs/PERF.md, "Leaves that end with their upper halves dirty"). */
static inline void AXIS_CAT(upper_clean, AXIS_ISA)(void) {
#if defined(AXIS_ISA_AVX2) || defined(AXIS_ISA_AVX512)
    _mm256_zeroupper();
#endif
}

#if !defined(AXIS_ISA_NEON) /* x86: plain vector moves, unaligned (a memcpy of the whole block went through \
                               the stack in 16-byte pieces on the wider routes) */
typedef uint32_t AXIS_CAT(u32u, AXIS_ISA) __attribute__((vector_size(sizeof(AXIS_U32)), aligned(1), may_alias));
static inline void AXIS_CAT(load64, AXIS_ISA)(const void *src, AXIS_U32 v[SK_AXIS_LANES * 4 / sizeof(AXIS_U32)]) {
    for (size_t k = 0; k < SK_AXIS_LANES * 4 / sizeof(AXIS_U32); ++k)
        v[k] = (AXIS_U32)((const AXIS_CAT(u32u, AXIS_ISA) *)src)[k];
}
static inline void AXIS_CAT(store64, AXIS_ISA)(const AXIS_U32 v[SK_AXIS_LANES * 4 / sizeof(AXIS_U32)], void *dst) {
    for (size_t k = 0; k < SK_AXIS_LANES * 4 / sizeof(AXIS_U32); ++k) ((AXIS_CAT(u32u, AXIS_ISA) *)dst)[k] = v[k];
}
#endif

#if defined(AXIS_ISA_SSE2)
static inline void widen_i8__sse2(const int8_t *in, AXIS_I32 q[4]) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)in);
    const __m128i lo = _mm_unpacklo_epi8(v, v), hi = _mm_unpackhi_epi8(v, v); /* each byte twice, then 4 times */
    q[0] = (AXIS_I32)_mm_srai_epi32(_mm_unpacklo_epi16(lo, lo), 24);
    q[1] = (AXIS_I32)_mm_srai_epi32(_mm_unpackhi_epi16(lo, lo), 24);
    q[2] = (AXIS_I32)_mm_srai_epi32(_mm_unpacklo_epi16(hi, hi), 24);
    q[3] = (AXIS_I32)_mm_srai_epi32(_mm_unpackhi_epi16(hi, hi), 24);
}
static inline AXIS_U32 widen_u16__sse2(const uint16_t *in) {
    return (AXIS_U32)_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)in), _mm_setzero_si128());
}
static inline void narrow_u16__sse2(AXIS_U32 lanes, uint16_t *out) {
    const __m128i v = _mm_srai_epi32(_mm_slli_epi32((__m128i)lanes, 16), 16); /* int16 range: packs is exact */
    _mm_storel_epi64((__m128i *)(void *)out, _mm_packs_epi32(v, v));
}
static inline void narrow_i8__sse2(const AXIS_I32 r[4], int8_t *out) {
    const __m128i a = _mm_packs_epi32((__m128i)r[0], (__m128i)r[1]), b = _mm_packs_epi32((__m128i)r[2], (__m128i)r[3]);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_packs_epi16(a, b));
}
static inline int any__sse2(AXIS_I32 mask) { return _mm_movemask_epi8((__m128i)mask) != 0; }
static inline AXIS_F32 clamp512__sse2(AXIS_F32 x) {
    const __m128 number = _mm_and_ps((__m128)x, _mm_cmpord_ps((__m128)x, (__m128)x)); /* NaN -> +0 */
    return (AXIS_F32)_mm_max_ps(_mm_min_ps(number, _mm_set1_ps(512.0f)), _mm_set1_ps(-512.0f));
}
static inline AXIS_F32 clamp__sse2(AXIS_F32 x, AXIS_F32 lo, AXIS_F32 hi) {
    const __m128 number = _mm_and_ps((__m128)x, _mm_cmpord_ps((__m128)x, (__m128)x)); /* NaN -> +0 */
    return (AXIS_F32)_mm_max_ps(_mm_min_ps(number, (__m128)hi), (__m128)lo);
}
static inline AXIS_I32 to_int__sse2(AXIS_F32 x, int mode) {
    if (mode == SK_QUANT_NEAREST_EVEN) return (AXIS_I32)_mm_cvtps_epi32((__m128)x);
    const __m128i t = _mm_cvttps_epi32((__m128)x); /* toward zero; the directed modes step from it */
    const __m128 back = _mm_cvtepi32_ps(t);
    if (mode == SK_QUANT_TOWARD_POSITIVE)
        return (AXIS_I32)_mm_sub_epi32(t, _mm_castps_si128(_mm_cmpgt_ps((__m128)x, back)));
    if (mode == SK_QUANT_TOWARD_NEGATIVE)
        return (AXIS_I32)_mm_add_epi32(t, _mm_castps_si128(_mm_cmplt_ps((__m128)x, back)));
    return (AXIS_I32)t;
}

#elif defined(AXIS_ISA_AVX2)
static inline void widen_i8__avx2(const int8_t *in, AXIS_I32 q[2]) {
    q[0] = (AXIS_I32)_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)in));
    q[1] = (AXIS_I32)_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(in + 8)));
}
static inline AXIS_U32 widen_u16__avx2(const uint16_t *in) {
    return (AXIS_U32)_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)in));
}
static inline void narrow_u16__avx2(AXIS_U32 lanes, uint16_t *out) {
    const __m256i v = (__m256i)lanes;
    _mm_storeu_si128((__m128i *)(void *)out,
                     _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
}
static inline void narrow_i8__avx2(const AXIS_I32 r[2], int8_t *out) {
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32((__m256i)r[0], (__m256i)r[1]), 0xd8); /* in order */
    _mm_storeu_si128((__m128i *)(void *)out,
                     _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
static inline int any__avx2(AXIS_I32 mask) { return !_mm256_testz_si256((__m256i)mask, (__m256i)mask); }
static inline AXIS_F32 clamp512__avx2(AXIS_F32 x) {
    const __m256 number = _mm256_and_ps((__m256)x, _mm256_cmp_ps((__m256)x, (__m256)x, _CMP_ORD_Q)); /* NaN -> +0 */
    return (AXIS_F32)_mm256_max_ps(_mm256_min_ps(number, _mm256_set1_ps(512.0f)), _mm256_set1_ps(-512.0f));
}
static inline AXIS_F32 clamp__avx2(AXIS_F32 x, AXIS_F32 lo, AXIS_F32 hi) {
    const __m256 number = _mm256_and_ps((__m256)x, _mm256_cmp_ps((__m256)x, (__m256)x, _CMP_ORD_Q)); /* NaN -> +0 */
    return (AXIS_F32)_mm256_max_ps(_mm256_min_ps(number, (__m256)hi), (__m256)lo);
}
#define AXIS_F16_CONVERTS 1
static inline AXIS_F32 widen_f16__avx2(const uint16_t *in) {
    return (AXIS_F32)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)in));
}
#define AXIS_TO_NEAREST(x) _mm256_cvtps_epi32((__m256)(x))
#define AXIS_TO_ZERO(x) _mm256_cvttps_epi32((__m256)(x))
#define AXIS_TO_POSITIVE(x) _mm256_cvttps_epi32(_mm256_round_ps((__m256)(x), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC))
#define AXIS_TO_NEGATIVE(x) _mm256_cvttps_epi32(_mm256_round_ps((__m256)(x), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC))

#elif defined(AXIS_ISA_AVX512)
static inline void widen_i8__avx512(const int8_t *in, AXIS_I32 q[1]) {
    q[0] = (AXIS_I32)_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)in));
}
static inline AXIS_U32 widen_u16__avx512(const uint16_t *in) {
    return (AXIS_U32)_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)in));
}
static inline void narrow_u16__avx512(AXIS_U32 lanes, uint16_t *out) {
    _mm256_storeu_si256((__m256i *)(void *)out, _mm512_cvtepi32_epi16((__m512i)lanes));
}
static inline void narrow_i8__avx512(const AXIS_I32 r[1], int8_t *out) {
    _mm_storeu_si128((__m128i *)(void *)out, _mm512_cvtsepi32_epi8((__m512i)r[0]));
}
static inline int any__avx512(AXIS_I32 mask) { return _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask) != 0; }
static inline AXIS_F32 clamp512__avx512(AXIS_F32 x) {
    const __m512 number = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask((__m512)x, (__m512)x, _CMP_ORD_Q), (__m512)x);
    return (AXIS_F32)_mm512_max_ps(_mm512_min_ps(number, _mm512_set1_ps(512.0f)),
                                   _mm512_set1_ps(-512.0f)); /* NaN: +0 */
}
static inline AXIS_F32 clamp__avx512(AXIS_F32 x, AXIS_F32 lo, AXIS_F32 hi) {
    const __m512 number = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask((__m512)x, (__m512)x, _CMP_ORD_Q), (__m512)x);
    return (AXIS_F32)_mm512_max_ps(_mm512_min_ps(number, (__m512)hi), (__m512)lo); /* NaN: +0 */
}
#define AXIS_F16_CONVERTS 1
static inline AXIS_F32 widen_f16__avx512(const uint16_t *in) {
    return (AXIS_F32)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)in));
}
/* the mode embedded in the conversion */
#define AXIS_TO_NEAREST(x) _mm512_cvt_roundps_epi32((__m512)(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define AXIS_TO_ZERO(x) _mm512_cvttps_epi32((__m512)(x))
#define AXIS_TO_POSITIVE(x) _mm512_cvt_roundps_epi32((__m512)(x), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define AXIS_TO_NEGATIVE(x) _mm512_cvt_roundps_epi32((__m512)(x), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)

#elif defined(AXIS_ISA_NEON)
static inline void widen_i8__neon(const int8_t *in, AXIS_I32 q[4]) {
    const int8x16_t v = vld1q_s8(in);
    const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
    q[0] = (AXIS_I32)vmovl_s16(vget_low_s16(lo));
    q[1] = (AXIS_I32)vmovl_high_s16(lo);
    q[2] = (AXIS_I32)vmovl_s16(vget_low_s16(hi));
    q[3] = (AXIS_I32)vmovl_high_s16(hi);
}
static inline AXIS_U32 widen_u16__neon(const uint16_t *in) { return (AXIS_U32)vmovl_u16(vld1_u16(in)); }
static inline void narrow_u16__neon(AXIS_U32 lanes, uint16_t *out) { vst1_u16(out, vmovn_u32((uint32x4_t)lanes)); }
static inline void narrow_i8__neon(const AXIS_I32 r[4], int8_t *out) {
    const int16x8_t a = vqmovn_high_s32(vqmovn_s32((int32x4_t)r[0]), (int32x4_t)r[1]);
    const int16x8_t b = vqmovn_high_s32(vqmovn_s32((int32x4_t)r[2]), (int32x4_t)r[3]);
    vst1q_s8(out, vqmovn_high_s16(vqmovn_s16(a), b));
}
static inline void load64__neon(const void *src, AXIS_U32 v[4]) { /* one ld1 of four registers */
    const uint32x4x4_t w = vld1q_u32_x4((const uint32_t *)src);
    v[0] = (AXIS_U32)w.val[0], v[1] = (AXIS_U32)w.val[1], v[2] = (AXIS_U32)w.val[2], v[3] = (AXIS_U32)w.val[3];
}
static inline void store64__neon(const AXIS_U32 v[4], void *dst) {
    const uint32x4x4_t w = {{(uint32x4_t)v[0], (uint32x4_t)v[1], (uint32x4_t)v[2], (uint32x4_t)v[3]}};
    vst1q_u32_x4((uint32_t *)dst, w);
}
static inline int any__neon(AXIS_I32 mask) { return vmaxvq_u32((uint32x4_t)mask) != 0; }
static inline AXIS_F32 clamp512__neon(AXIS_F32 x) { /* NaN stays NaN, which every conversion makes 0 */
    return (AXIS_F32)vmaxq_f32(vminq_f32((float32x4_t)x, vdupq_n_f32(512.0f)), vdupq_n_f32(-512.0f));
}
static inline AXIS_F32 clamp__neon(AXIS_F32 x, AXIS_F32 lo, AXIS_F32 hi) { /* NaN stays NaN: converted to 0 */
    return (AXIS_F32)vmaxq_f32(vminq_f32((float32x4_t)x, (float32x4_t)hi), (float32x4_t)lo);
}
#define AXIS_F16_CONVERTS 1
static inline AXIS_F32 widen_f16__neon(const uint16_t *in) {
    return (AXIS_F32)vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(in)));
}
#define AXIS_TO_NEAREST(x) vcvtnq_s32_f32((float32x4_t)(x))
#define AXIS_TO_ZERO(x) vcvtq_s32_f32((float32x4_t)(x))
#define AXIS_TO_POSITIVE(x) vcvtpq_s32_f32((float32x4_t)(x))
#define AXIS_TO_NEGATIVE(x) vcvtmq_s32_f32((float32x4_t)(x))
#endif

#if defined(AXIS_TO_NEAREST) /* to_int: one conversion per mode */
static inline AXIS_I32 AXIS_CAT(to_int, AXIS_ISA)(AXIS_F32 x, int mode) {
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN:
        return (AXIS_I32)AXIS_TO_NEAREST(x);
    case SK_QUANT_TOWARD_ZERO:
        return (AXIS_I32)AXIS_TO_ZERO(x);
    case SK_QUANT_TOWARD_POSITIVE:
        return (AXIS_I32)AXIS_TO_POSITIVE(x);
    default:
        return (AXIS_I32)AXIS_TO_NEGATIVE(x);
    }
}
#undef AXIS_TO_NEAREST
#undef AXIS_TO_ZERO
#undef AXIS_TO_POSITIVE
#undef AXIS_TO_NEGATIVE
#endif

/* Lanes from element j of a Quant input as binary32 bits: FP32 lanes as
 * loaded (`f32`), BFLOAT16 and FLOAT16 words read at src + j (FP16 by the
 * ISA's conversion, or by integer moves, subnormals through an exact
 * integer conversion and a normal product); *nonzero gets the input's own
 * bits without the sign (the FTZ/DAZ repair test reads them). */
static inline __attribute__((always_inline)) AXIS_U32
AXIS_CAT(input_bits, AXIS_ISA)(const void *src, size_t j, AXIS_U32 f32, int input, AXIS_U32 *nonzero) {
    if (input == SK_QUANT_F32) {
        *nonzero = f32 & 0x7fffffffu;
        return f32;
    }
    const AXIS_U32 w = AXIS_CAT(widen_u16, AXIS_ISA)((const uint16_t *)src + j);
    *nonzero = w & 0x7fffu;
    if (input == SK_QUANT_BF16) return w << 16;
#ifdef AXIS_F16_CONVERTS
    return (AXIS_U32)AXIS_CAT(widen_f16, AXIS_ISA)((const uint16_t *)src + j);
#else
    const AXIS_U32 mag = *nonzero, e = mag >> 10;
    const AXIS_U32 normal = (mag << 13) + (112u << 23);
    const AXIS_U32 special = normal + (112u << 23); /* infinities and NaNs */
    /* mag * 2^-24: an exact integer conversion, then a normal product */
    const AXIS_U32 subnormal = (AXIS_U32)(__builtin_convertvector((AXIS_I32)mag, AXIS_F32) * 0x1p-24f);
    const AXIS_I32 zero_e = e == 0, max_e = e == 31;
    const AXIS_U32 bits = (AXIS_U32)(((AXIS_I32)subnormal & zero_e) | ((AXIS_I32)special & max_e) |
                                     ((AXIS_I32)normal & ~(zero_e | max_e)));
    return bits | (w & 0x8000u) << 16;
#endif
}
