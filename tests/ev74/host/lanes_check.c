/* The EV74 kernel's vector expressions (csrc/ev74/lanes.h) compiled as host
 * C through clang's vector types, for tests/ev74/test_ev74_lanes.py.
 *
 * stdin: a header of six 32-bit little-endian words (input format, rounding
 * mode, multiplier bits, zero point, ftz, element count n, a multiple of
 * 16), then n source patterns as 32-bit words.  stdout: n result bytes,
 * then one byte per 16-element block (1: the block took the exact path).
 * With ftz = 1 on x86, MXCSR's flush-to-zero and denormals-are-zero bits
 * are set around each block's expression only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include "../../../csrc/quant/exact.h"
#include "../../../csrc/ev74/lanes.h"

/* The MXCSR writes must stay around the expression: the compiler may not
 * move FP operations across them. */
#pragma STDC FENV_ACCESS ON

int main(void) {
    uint32_t head[6];
    if (fread(head, sizeof head, 1, stdin) != 1) return 2;
    const int input = (int)head[0], mode = (int)head[1], ftz = (int)head[4];
    const uint32_t n = head[5];
    if (n % SK_EV74_LANES) return 2;
    uint32_t *src = malloc((size_t)n * 4 + 4);
    int8_t *out = malloc((size_t)n + 1);
    uint8_t *exact = malloc(n / SK_EV74_LANES + 1);
    if (!src || !out || !exact || fread(src, 4, n, stdin) != n) return 2;
    uint64_t significand;
    int32_t exponent;
    sk_q_multiplier(head[2], &significand, &exponent);
    const sk_ev74_params p = {sk_ev74_float_of(head[2]), (uint32_t)significand, exponent, (int32_t)head[3],
                              ((head[2] >> 23) & 0xffu) == 0};
    for (uint32_t b = 0; b < n / SK_EV74_LANES; ++b) {
        sk_u32x16 x;
        memcpy(&x, src + b * SK_EV74_LANES, sizeof x);
        int took;
#if defined(__x86_64__)
        const unsigned int saved = _mm_getcsr();
        if (ftz) _mm_setcsr(saved | 0x8040u); /* FTZ | DAZ */
#endif
        const sk_i32x16 r = sk_ev74_block(x, &p, input, mode, &took);
#if defined(__x86_64__)
        _mm_setcsr(saved);
#endif
        for (int i = 0; i < SK_EV74_LANES; ++i) out[b * SK_EV74_LANES + i] = (int8_t)r[i];
        exact[b] = (uint8_t)took;
    }
    fwrite(out, 1, n, stdout);
    fwrite(exact, 1, n / SK_EV74_LANES, stdout);
    return 0;
}
