/* The vector routes' range fold, one body for every instruction set.
 * Blocks of SK_RANGE_CHECK elements are folded raw (a signed and an
 * unsigned maximum per register, four registers per iteration); a block
 * whose maxima show a non-finite value (signed maximum above the greatest
 * finite bits, unsigned above the least finite value's) is folded again
 * with non-finite lanes kept as 0; either way its maxima join one signed
 * and one unsigned register.  The last block is the run's last whole
 * iterations (so short runs take the raw fold too); a tail of at least
 * SK_RANGE_PADDED elements is copied into one iteration padded with 0
 * (neutral to both maxima: the blocked pass folds blocks of 16 to 128)
 * and folded with non-finite lanes kept as 0; a shorter one takes the
 * rule one element at a time (range.h).  The registers' lanes hold kept bits of
 * elements, or 0: narrowed, they are folded once more at the end.
 *
 * The file that includes this, inside its target region, first defines
 * RANGE_VEC (its register type), RANGE_V(name) (the names of its static
 * functions, these and its own) and, so named, its moves on w-bit lanes:
 *   vdup(x, w)                    x in every lane
 *   vload4(p, b)                  four registers from p
 *   vload4n(p, b, bytes)          (optional, with RANGE_LOAD4N defined)
 *                                 the same with the lanes from `bytes`
 *                                 on 0, reading nothing there
 *   vmax_s(a, b, w), vmax_u       lane maxima, signed and unsigned
 *   vkeep(b, magnitude, inf, w)   b, with the lanes whose bits & magnitude
 *                                 reach inf as 0
 *   vabove(s, u, top, bottom, w)  whether a lane of s is above top
 *                                 (signed) or of u above bottom (unsigned)
 *   vnarrow(s, u, lanes, w)       s's lanes folded by signed maxima into
 *                                 16 bytes at `lanes`, u's by unsigned
 *                                 maxima into the next 16, of which the
 *                                 first RANGE_NARROWED(w) words of each
 *                                 half are then folded */

/* `iters` iterations from p into s[4], u[4]; masked: non-finite lanes as 0. */
static inline __attribute__((always_inline)) void RANGE_V(run)(const char *p, size_t iters, RANGE_VEC *s, RANGE_VEC *u,
                                                               int masked, RANGE_VEC magnitude, RANGE_VEC inf, int w) {
    for (size_t it = 0; it < iters; ++it, p += 4 * sizeof(RANGE_VEC)) {
        RANGE_VEC b[4];
        RANGE_V(vload4)(p, b);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            if (masked) b[k] = RANGE_V(vkeep)(b[k], magnitude, inf, w);
            s[k] = RANGE_V(vmax_s)(s[k], b[k], w);
            u[k] = RANGE_V(vmax_u)(u[k], b[k], w);
        }
    }
}

static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(max4_s)(const RANGE_VEC *v, int w) {
    return RANGE_V(vmax_s)(RANGE_V(vmax_s)(v[0], v[1], w), RANGE_V(vmax_s)(v[2], v[3], w), w);
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(max4_u)(const RANGE_VEC *v, int w) {
    return RANGE_V(vmax_u)(RANGE_V(vmax_u)(v[0], v[1], w), RANGE_V(vmax_u)(v[2], v[3], w), w);
}

/* n packed words of w bits into channel `at`'s accumulators. */
static inline __attribute__((always_inline)) void RANGE_V(fold)(const sk_range_acc *acc, size_t at, const void *src,
                                                                size_t n, int w) {
    const size_t size = (size_t)w / 8, iter = 4 * sizeof(RANGE_VEC) / size;
    const uint32_t sign = 1u << (w - 1), inf = sk_range_inf(acc, w);
    const RANGE_VEC zero = RANGE_V(vdup)(0, w), magnitude = RANGE_V(vdup)(sign - 1, w), vinf = RANGE_V(vdup)(inf, w);
    const RANGE_VEC top = RANGE_V(vdup)(inf - 1, w), bottom = RANGE_V(vdup)(sign | (inf - 1), w);
    const char *in = src;
    RANGE_VEC S = zero, U = zero;
    size_t i = 0, len;
    const size_t whole = n / iter * iter; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        RANGE_VEC s[4] = {zero, zero, zero, zero}, u[4] = {zero, zero, zero, zero};
        RANGE_V(run)(in + i * size, len / iter, s, u, 0, magnitude, vinf, w);
        RANGE_VEC sm = RANGE_V(max4_s)(s, w), um = RANGE_V(max4_u)(u, w);
        if (RANGE_V(vabove)(sm, um, top, bottom, w)) {
            for (int k = 0; k < 4; ++k) s[k] = u[k] = zero; /* the block again, without its non-finite values */
            RANGE_V(run)(in + i * size, len / iter, s, u, 1, magnitude, vinf, w);
            sm = RANGE_V(max4_s)(s, w), um = RANGE_V(max4_u)(u, w);
        }
        S = RANGE_V(vmax_s)(S, sm, w);
        U = RANGE_V(vmax_u)(U, um, w);
    }
    if (n - i >= SK_RANGE_PADDED) { /* the tail as one iteration padded with 0 (neutral), non-finite lanes as 0 */
        RANGE_VEC b[4];
#ifdef RANGE_LOAD4N /* masked loads: nothing read beyond the tail */
        RANGE_V(vload4n)(in + i * size, b, (n - i) * size);
#else
        _Alignas(64) char pad[4 * sizeof(RANGE_VEC)] = {0};
        memcpy(pad, in + i * size, (n - i) * size);
        RANGE_V(vload4)(pad, b);
#endif
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            b[k] = RANGE_V(vkeep)(b[k], magnitude, vinf, w);
            S = RANGE_V(vmax_s)(S, b[k], w);
            U = RANGE_V(vmax_u)(U, b[k], w);
        }
        i = n;
    }
    _Alignas(16) unsigned char lanes[32];
    RANGE_V(vnarrow)(S, U, lanes, w);
    sk_range_fold(acc, at, lanes, RANGE_NARROWED(w), w);
    sk_range_fold(acc, at, lanes + 16, RANGE_NARROWED(w), w);
    sk_range_fold(acc, at, in + i * size, n - i, w);
}
