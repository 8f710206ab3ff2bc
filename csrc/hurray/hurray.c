/* Hurray per-tensor affine dequantization, one kernel per storage type.
 * Every kernel is the format's formula: d = (int32)(q - zero_point) with
 * two's-complement wrap (reachable only from INT32/UINT32 storage), then
 * (float)d rounded nearest-even, then d * scale rounded nearest-even.  The
 * loops run fixed 16-element blocks so that the compiler vectorises them
 * (SSE2 on x86-64, Advanced SIMD on AArch64); the tails are the same code. */
#include <string.h>
#include "../common/kernel.h"
#include "../common/fenv.h"

/* Wrapping subtraction without signed overflow: modulo 2^32, then back to
 * the signed range (implementation-defined conversion; GCC and Clang wrap). */
static inline float affine(uint32_t q, uint32_t zp, float scale) { return (float)(int32_t)(q - zp) * scale; }

static inline uint32_t ld_i8(const uint8_t *s, size_t i) { return (uint32_t)(int32_t)(int8_t)s[i]; }
static inline uint32_t ld_u8(const uint8_t *s, size_t i) { return s[i]; }
static inline uint32_t ld_i16(const uint8_t *s, size_t i) {
    int16_t v;
    memcpy(&v, s + 2 * i, 2); /* little-endian storage on little-endian hosts */
    return (uint32_t)(int32_t)v;
}
static inline uint32_t ld_u16(const uint8_t *s, size_t i) {
    uint16_t v;
    memcpy(&v, s + 2 * i, 2);
    return v;
}
static inline uint32_t ld_32(const uint8_t *s, size_t i) {
    uint32_t v;
    memcpy(&v, s + 4 * i, 4);
    return v;
}
/* Sub-byte fields, element 0 in the least significant bits of byte 0. */
static inline uint32_t ld_i4(const uint8_t *s, size_t i) {
    return (uint32_t)((int32_t)(uint32_t)(s[i >> 1] >> (4 * (i & 1)) << 28) >> 28);
}
static inline uint32_t ld_u4(const uint8_t *s, size_t i) { return (s[i >> 1] >> (4 * (i & 1))) & 0xfu; }
static inline uint32_t ld_i2(const uint8_t *s, size_t i) {
    return (uint32_t)((int32_t)(uint32_t)(s[i >> 2] >> (2 * (i & 3)) << 30) >> 30);
}
static inline uint32_t ld_u2(const uint8_t *s, size_t i) { return (s[i >> 2] >> (2 * (i & 3))) & 3u; }

/* The loop is spelled out per kernel (a function-pointer template would
 * hide the element load from GCC's vectoriser). */
#define KERNEL(name, load)                                                                                   \
    static void name(const uint8_t *restrict src, float *restrict dst, size_t n, uint32_t zp, float scale) { \
        size_t i = 0;                                                                                        \
        for (; i + SK_BLOCK <= n; i += SK_BLOCK)                                                             \
            for (size_t j = 0; j < SK_BLOCK; ++j) dst[i + j] = affine(load(src, i + j), zp, scale);          \
        for (; i < n; ++i) dst[i] = affine(load(src, i), zp, scale);                                         \
    }
KERNEL(hurray_i8, ld_i8)
KERNEL(hurray_u8, ld_u8)
KERNEL(hurray_i16, ld_i16)
KERNEL(hurray_u16, ld_u16)
KERNEL(hurray_32, ld_32)
KERNEL(hurray_i4, ld_i4)
KERNEL(hurray_u4, ld_u4)
KERNEL(hurray_i2, ld_i2)
KERNEL(hurray_u2, ld_u2)
#undef KERNEL

typedef void (*hurray_fn)(const uint8_t *, float *, size_t, uint32_t, float);
static const hurray_fn kernels[SK_HURRAY_STORAGE_COUNT] = {
    [SK_HURRAY_INT8] = hurray_i8,   [SK_HURRAY_UINT8] = hurray_u8,
    [SK_HURRAY_INT16] = hurray_i16, [SK_HURRAY_UINT16] = hurray_u16,
    [SK_HURRAY_INT32] = hurray_32,  [SK_HURRAY_UINT32] = hurray_32, /* same bits, same wrap */
    [SK_HURRAY_INT4] = hurray_i4,   [SK_HURRAY_UINT4] = hurray_u4,
    [SK_HURRAY_INT2] = hurray_i2,   [SK_HURRAY_UINT2] = hurray_u2,
};

static const int8_t BITS[SK_HURRAY_STORAGE_COUNT] = {
    [SK_HURRAY_INT8] = 8,   [SK_HURRAY_UINT8] = 8,   [SK_HURRAY_INT16] = 16, [SK_HURRAY_UINT16] = 16,
    [SK_HURRAY_INT32] = 32, [SK_HURRAY_UINT32] = 32, [SK_HURRAY_INT4] = 4,   [SK_HURRAY_UINT4] = 4,
    [SK_HURRAY_INT2] = 2,   [SK_HURRAY_UINT2] = 2,
};

int sk_hurray_storage_bits(int storage) {
    return storage < 0 || storage >= SK_HURRAY_STORAGE_COUNT ? 0 : BITS[storage];
}

int sk_hurray_dequantize(int storage, uint32_t scale_bits, int32_t zero_point, const void *src, uint64_t src_len,
                         void *dst, uint64_t dst_len, uint64_t count) {
    if (storage < 0 || storage >= SK_HURRAY_STORAGE_COUNT) return SK_INVALID_OPERATION;
    /* count < 2^61 keeps the byte counts below from wrapping; larger counts
     * cannot be bound (a view is at most 2^63-1 bytes). */
    if (count > ((uint64_t)1 << 61)) return SK_OVERFLOW;
    /* Storage is read bytewise (memcpy, sub-byte fields): any alignment. */
    const sk_binding need = {(count * (uint64_t)BITS[storage] + 7) / 8, 1, count * sizeof(float), sizeof(float)};
    const int bound = sk_binding_check(&need, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    if (count == 0) return SK_OK;
    if (sk_fenv_unmet(sk_fenv_needs(SK_OP_HURRAY))) return SK_UNSUPPORTED_ENVIRONMENT;
    float scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    kernels[storage]((const uint8_t *)src, (float *)dst, (size_t)count, (uint32_t)zero_point, scale);
    return SK_OK;
}
