/* The NEON moves of the vector fold (range_fold.h) on RANGE_NEON_W-bit
 * lanes (32 or 16), and the fold: range_neon.c includes this once per
 * width, so that the accumulators live in registers of their lanes' own
 * type (reinterpreting them inside the loop costs a register move each).
 * The static functions end in _neon32 or _neon16. */
#define RN_PASTE_(a, b) a##b
#define RN_PASTE(a, b) RN_PASTE_(a, b)
#if RANGE_NEON_W == 32
#define RANGE_VEC uint32x4_t
#define RN_WORD uint32_t
#define RN_X4 uint32x4x4_t
#define RN_U u32
#define RN_S s32
#else
#define RANGE_VEC uint16x8_t
#define RN_WORD uint16_t
#define RN_X4 uint16x8x4_t
#define RN_U u16
#define RN_S s16
#endif
#define RANGE_V(name) RN_PASTE(name##_neon, RANGE_NEON_W)
/* The intrinsic op_<lanes> (RN), and the lanes seen as signed and back. */
#define RN(op, lanes) RN_PASTE(op##_, lanes)
#define RN_SIGNED(v) RN_PASTE(RN_PASTE(vreinterpretq_, RN_S), RN_PASTE(_, RN_U))(v)
#define RN_UNSIGNED(v) RN_PASTE(RN_PASTE(vreinterpretq_, RN_U), RN_PASTE(_, RN_S))(v)

static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vdup)(uint32_t x, int w) {
    return RN(vdupq_n, RN_U)((RN_WORD)x);
}
static inline __attribute__((always_inline)) void RANGE_V(vload4)(const char *p, RANGE_VEC b[4]) {
    const RN_X4 v = RN(vld1q, RN_PASTE(RN_U, _x4))((const RN_WORD *)(const void *)p); /* one LD1 of four */
    b[0] = v.val[0], b[1] = v.val[1], b[2] = v.val[2], b[3] = v.val[3];
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vmax_s)(RANGE_VEC a, RANGE_VEC b, int w) {
    return RN_UNSIGNED(RN(vmaxq, RN_S)(RN_SIGNED(a), RN_SIGNED(b)));
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vmax_u)(RANGE_VEC a, RANGE_VEC b, int w) {
    return RN(vmaxq, RN_U)(a, b);
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vkeep)(RANGE_VEC b, RANGE_VEC magnitude, RANGE_VEC inf,
                                                                      int w) {
    return RN(vandq, RN_U)(b, RN(vcltq, RN_U)(RN(vandq, RN_U)(b, magnitude), inf));
}
static inline __attribute__((always_inline)) int RANGE_V(vabove)(RANGE_VEC s, RANGE_VEC u, RANGE_VEC top,
                                                                 RANGE_VEC bottom, int w) {
    return RN(vmaxvq,
              RN_U)(RN(vorrq, RN_U)(RN(vcgtq, RN_S)(RN_SIGNED(s), RN_SIGNED(top)), RN(vcgtq, RN_U)(u, bottom))) != 0;
}
static inline __attribute__((always_inline)) void RANGE_V(vnarrow)(RANGE_VEC s, RANGE_VEC u, unsigned char *lanes,
                                                                   int w) {
    RN(vst1q, RN_U)((RN_WORD *)(void *)lanes, s);
    RN(vst1q, RN_U)((RN_WORD *)(void *)(lanes + 16), u);
}

/* Words of each half of `lanes` vnarrow leaves to fold: the whole registers. */
#define RANGE_NARROWED(w) (128 / (w))

#include "range_fold.h"

#undef RANGE_NARROWED
#undef RN_UNSIGNED
#undef RN_SIGNED
#undef RN
#undef RANGE_V
#undef RN_S
#undef RN_U
#undef RN_X4
#undef RN_WORD
#undef RANGE_VEC
#undef RN_PASTE
#undef RN_PASTE_
