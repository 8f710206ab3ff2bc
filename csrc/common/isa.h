/* The instruction sets of the routes, written once: which ones this target
 * compiles, and the features each x86 route's code is compiled for (its
 * target regions, SK_TARGET_BEGIN) and asks the CPU for (route.c).  The
 * fuzz build (tests/fuzz/build.sh) reads the lists from this file. */
#ifndef SK_COMMON_ISA_H
#define SK_COMMON_ISA_H

#if defined(__aarch64__)
#define SK_HAVE_NEON 1
#else
#define SK_HAVE_NEON 0
#endif
#if defined(__x86_64__) /* SSE2 is part of the x86-64 baseline */
#define SK_HAVE_SSE2 1
#else
#define SK_HAVE_SSE2 0
#endif
/* AVX2 and AVX-512 code is compiled per region (SK_TARGET_BEGIN) and only
 * run where the CPU reports every feature of the list, so the wheel keeps
 * the x86-64 baseline. */
#if SK_HAVE_SSE2 && defined(__GNUC__)
#define SK_HAVE_AVX2 1
#else
#define SK_HAVE_AVX2 0
#endif
#define SK_HAVE_AVX512 SK_HAVE_AVX2

/* X(feature) per feature: F16C with AVX2 (Quant widens FP16 with it; every
 * AVX2 CPU has it); AVX-512 runs the AVX2 leaves where it has none of its
 * own, so its list includes AVX2's. */
#define SK_ISA_AVX2(X) X(avx2) X(f16c)
#define SK_ISA_AVX512(X) SK_ISA_AVX2(X) X(avx512f) X(avx512bw) X(avx512vl) X(avx512dq) X(avx512vbmi)

/* Code between SK_TARGET_BEGIN(AVX2 or AVX512) and SK_TARGET_END is compiled
 * for that route's features. */
#define SK_PRAGMA_(text) _Pragma(#text)
#define SK_PRAGMA(text) SK_PRAGMA_(text)
#define SK_ISA_TEXT_(feature) #feature ","
#if defined(__clang__) /* (the fuzz build) */
#define SK_TARGET_BEGIN(isa) \
    SK_PRAGMA(clang attribute push(__attribute__((target(SK_ISA_##isa(SK_ISA_TEXT_) "sse2"))), apply_to = function))
#define SK_TARGET_END _Pragma("clang attribute pop")
#else
#define SK_TARGET_BEGIN(isa) _Pragma("GCC push_options") SK_PRAGMA(GCC target(SK_ISA_##isa(SK_ISA_TEXT_) "sse2"))
#define SK_TARGET_END _Pragma("GCC pop_options")
#endif

#endif
