/* FP-environment probe.  The kernels run with the calling thread's state, so
 * execution checks it (never changes it); tests use the setter to prove the
 * refusals.  x86-64 C code computes in SSE, so MXCSR is the state that
 * matters there; AArch64 keeps it in FPCR. */
#define _GNU_SOURCE
#include <fenv.h>
#include <string.h>
#include "kernel.h"
#include "fenv.h"

_Static_assert(sizeof(fenv_t) <= sizeof(((sk_fenv_saved *)0)->opaque), "fenv_t fits the opaque buffer");

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
/* A trap's bit in the control register: it enables the trap where
 * TRAP_ENABLES, masks it otherwise. */
typedef struct fenv_trap {
    uint64_t bit;
    uint32_t trap;
} fenv_trap;
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
/* MXCSR: exception masks at bits 7..12 (a clear mask bit enables the trap),
 * rounding at 13..14, FTZ at 15, DAZ at 6. */
enum { MX_DAZ = 1u << 6, MX_FTZ = 1u << 15, RM_SHIFT = 13, TRAP_ENABLES = 0, FLUSH_BITS = MX_DAZ | MX_FTZ };
static const fenv_trap traps[] = {
    {1u << 7, SK_TRAP_INVALID},   {1u << 8, SK_TRAP_INPUT_DENORMAL}, {1u << 9, SK_TRAP_DIVIDE_BY_ZERO},
    {1u << 10, SK_TRAP_OVERFLOW}, {1u << 11, SK_TRAP_UNDERFLOW},     {1u << 12, SK_TRAP_INEXACT},
};
/* RC field: 00 nearest, 01 down, 10 up, 11 toward zero. */
static const int32_t roundings[4] = {SK_ROUND_NEAREST, SK_ROUND_DOWNWARD, SK_ROUND_UPWARD, SK_ROUND_TOWARD_ZERO};

static uint64_t read_control(void) { return _mm_getcsr(); }
static void write_control(uint64_t csr) { _mm_setcsr((unsigned)csr); }

int sk_fenv_control_flushes(uint64_t csr) { return (csr & FLUSH_BITS) != 0; }

static void decode_flush(uint64_t csr, sk_fenv_state *st) {
    st->flush_to_zero = (csr & MX_FTZ) != 0;
    st->denormals_are_zero = (csr & MX_DAZ) != 0;
}
static int encode_flush(const sk_fenv_state *st, uint64_t *bits) {
    *bits = (st->flush_to_zero ? MX_FTZ : 0u) | (st->denormals_are_zero ? MX_DAZ : 0u);
    return 0;
}

#elif defined(__aarch64__)
/* FPCR: trap enables IOE 8, DZE 9, OFE 10, UFE 11, IXE 12, IDE 15; RMode at
 * 22..23 (00 nearest, 01 +inf, 10 -inf, 11 zero); FZ at 24 flushes both
 * inputs and results, so it reports as FTZ and DAZ together; FIZ at 0
 * (FEAT_AFP, ARMv8.7; RES0 before) flushes inputs only: DAZ. */
enum {
    FPCR_FIZ = 1u << 0,
    FPCR_AH = 1u << 1,
    FPCR_FZ16 = 1u << 19,
    FPCR_FZ = 1u << 24,
    RM_SHIFT = 22,
    TRAP_ENABLES = 1,
    FLUSH_BITS = FPCR_FZ | FPCR_FIZ /* FZ16 and AH matter only to Quant, which repairs what they flush */
};
static const fenv_trap traps[] = {
    {1u << 8, SK_TRAP_INVALID},    {1u << 9, SK_TRAP_DIVIDE_BY_ZERO}, {1u << 10, SK_TRAP_OVERFLOW},
    {1u << 11, SK_TRAP_UNDERFLOW}, {1u << 12, SK_TRAP_INEXACT},       {1u << 15, SK_TRAP_INPUT_DENORMAL},
};
static const int32_t roundings[4] = {SK_ROUND_NEAREST, SK_ROUND_UPWARD, SK_ROUND_DOWNWARD, SK_ROUND_TOWARD_ZERO};

static uint64_t read_control(void) {
    uint64_t v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v));
    return v;
}
static void write_control(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }

int sk_fenv_control_flushes(uint64_t fpcr) { return (fpcr & (FPCR_FZ | FPCR_FZ16 | FPCR_FIZ | FPCR_AH)) != 0; }

static void decode_flush(uint64_t fpcr, sk_fenv_state *st) {
    st->flush_to_zero = (fpcr & FPCR_FZ) != 0;
    st->denormals_are_zero = (fpcr & (FPCR_FZ | FPCR_FIZ)) != 0;
}
/* FZ flushes inputs too: flushing results alone has no encoding (-1). */
static int encode_flush(const sk_fenv_state *st, uint64_t *bits) {
    *bits = st->flush_to_zero ? FPCR_FZ : st->denormals_are_zero ? FPCR_FIZ : 0; /* FIZ reads back only with FEAT_AFP */
    return st->flush_to_zero && !st->denormals_are_zero ? -1 : 0;
}
#endif

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
uint64_t sk_fenv_control(void) { return read_control(); }

static uint64_t trap_bits(void) {
    uint64_t bits = 0;
    for (size_t i = 0; i < sizeof traps / sizeof traps[0]; ++i) bits |= traps[i].bit;
    return bits;
}

/* The state every thread starts in (nearest, gradual underflow, no trap
 * enabled) meets every need. */
static int default_state(uint64_t control) {
    const uint64_t watched = FLUSH_BITS | (3u << RM_SHIFT) | trap_bits();
    return (control & watched) == (TRAP_ENABLES ? 0 : trap_bits());
}

static void decode(uint64_t control, sk_fenv_state *st) {
    st->rounding = roundings[(control >> RM_SHIFT) & 3u];
    decode_flush(control, st);
    st->traps = 0;
    for (size_t i = 0; i < sizeof traps / sizeof traps[0]; ++i)
        if (((control & traps[i].bit) != 0) == TRAP_ENABLES) st->traps |= traps[i].trap;
}

static int set_state(const sk_fenv_state *st) {
    uint64_t flush;
    if (encode_flush(st, &flush) != 0) return -1;
    uint64_t control = (read_control() & ~(uint64_t)(FLUSH_BITS | (3u << RM_SHIFT))) | flush;
    for (unsigned r = 0; r < 4; ++r)
        if (roundings[r] == st->rounding) control |= (uint64_t)r << RM_SHIFT;
    for (size_t i = 0; i < sizeof traps / sizeof traps[0]; ++i) {
        if (((st->traps & traps[i].trap) != 0) == TRAP_ENABLES)
            control |= traps[i].bit;
        else
            control &= ~traps[i].bit;
    }
    write_control(control);
    return 0;
}

#else
/* Other targets: only what <fenv.h> can tell; no flush modes, no traps. */
uint64_t sk_fenv_control(void) { return (uint64_t)fegetround(); }
int sk_fenv_control_flushes(uint64_t control) { return 0; }
static int default_state(uint64_t control) { return control == FE_TONEAREST; }

static void decode(uint64_t control, sk_fenv_state *st) {
    int r = (int)control;
    st->rounding = r == FE_TONEAREST    ? SK_ROUND_NEAREST
                   : r == FE_TOWARDZERO ? SK_ROUND_TOWARD_ZERO
                   : r == FE_UPWARD     ? SK_ROUND_UPWARD
                                        : SK_ROUND_DOWNWARD;
    st->flush_to_zero = st->denormals_are_zero = 0;
    st->traps = 0;
}
static int set_state(const sk_fenv_state *st) {
    (void)st;
    return -1;
}
#endif

void sk_fenv_query(sk_fenv_state *st) { decode(sk_fenv_control(), st); }

int sk_fenv_control_unmet(uint64_t control, int needs) {
    if (default_state(control)) return 0;
    sk_fenv_state st;
    decode(control, &st);
    int unmet = 0;
    if ((needs & SK_NEED_NEAREST) && st.rounding != SK_ROUND_NEAREST) unmet |= SK_NEED_NEAREST;
    if ((needs & SK_NEED_GRADUAL_UNDERFLOW) && (st.flush_to_zero || st.denormals_are_zero))
        unmet |= SK_NEED_GRADUAL_UNDERFLOW;
    if ((needs & SK_NEED_NO_TRAPS) && st.traps) unmet |= SK_NEED_NO_TRAPS;
    return unmet;
}

int sk_operation_fenv_needs(int operation) { return sk_fenv_needs(operation); }

int sk_fenv_unmet(int needs) { return sk_fenv_control_unmet(sk_fenv_control(), needs); }

int sk_fenv_save(sk_fenv_saved *saved) {
    memset(saved, 0, sizeof *saved);
    return fegetenv((fenv_t *)(void *)saved->opaque);
}

int sk_fenv_restore(const sk_fenv_saved *saved) { return fesetenv((const fenv_t *)(const void *)saved->opaque); }

int sk_fenv_enter_default(sk_fenv_saved *saved) {
    if (sk_fenv_save(saved) != 0) return -1;
    const sk_fenv_state st = {.rounding = SK_ROUND_NEAREST, .flush_to_zero = 0, .denormals_are_zero = 0, .traps = 0};
    return set_state(&st);
}

/* Sets the state, then reads it back: a CPU that ignores part of the
 * request (many Arm cores hard-wire the trap enables to zero) reports -1
 * with the previous state restored, so tests never run in a state they
 * did not ask for. */
int sk_fenv_set(const sk_fenv_state *st) {
    sk_fenv_saved before;
    sk_fenv_save(&before);
    if (set_state(st) != 0) {
        sk_fenv_restore(&before);
        return -1;
    }
    sk_fenv_state now;
    sk_fenv_query(&now);
    if (now.rounding != st->rounding || now.flush_to_zero != st->flush_to_zero ||
        now.denormals_are_zero != st->denormals_are_zero || now.traps != st->traps) {
        sk_fenv_restore(&before);
        return -1;
    }
    return 0;
}
