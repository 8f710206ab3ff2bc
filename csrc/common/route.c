/* The route descriptors (route.h). */
#include "route.h"
#if SK_HAVE_NEON
#include <sys/auxv.h>
#include <asm/hwcap.h>
#endif

#define SK_ISA_NAME_(feature) " " #feature

static int always(void) { return 1; }

#if SK_HAVE_NEON
/* Advanced SIMD is part of the Linux AArch64 baseline, but ask anyway: a
 * route is only offered when the CPU says it has the unit. */
static int cpu_runs_neon(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0; }
#endif
#if SK_HAVE_AVX2
/* GCC's and clang's runtimes report the AVX-512 features only when the OS
 * saves the 512-bit state (XCR0), so this also covers the OS. */
#define SK_CPU_HAS_(feature) &&__builtin_cpu_supports(#feature)
static int cpu_runs_avx2(void) { return 1 SK_ISA_AVX2(SK_CPU_HAS_); }
static int cpu_runs_avx512(void) { return 1 SK_ISA_AVX512(SK_CPU_HAS_); }
#endif

const sk_route_info sk_routes[SK_ROUTE_COUNT] = {
#if SK_HAVE_NEON
    [SK_ROUTE_NEON] = {"neon", 1, cpu_runs_neon, " asimd", &sk_stage_neon, SK_ROUTE_NEON},
#else
    [SK_ROUTE_NEON] = {"neon", 0, NULL, " asimd", NULL, SK_ROUTE_NEON},
#endif
#if SK_HAVE_AVX512
    /* The AVX2 moves: 512-bit ones were no faster (docs/PERF.md). */
    [SK_ROUTE_AVX512] = {"avx512", 1, cpu_runs_avx512, SK_ISA_AVX512(SK_ISA_NAME_), &sk_stage_avx2, SK_ROUTE_AVX2},
#else
    [SK_ROUTE_AVX512] = {"avx512", 0, NULL, SK_ISA_AVX512(SK_ISA_NAME_), NULL, SK_ROUTE_AVX2},
#endif
#if SK_HAVE_AVX2
    [SK_ROUTE_AVX2] = {"avx2", 1, cpu_runs_avx2, SK_ISA_AVX2(SK_ISA_NAME_), &sk_stage_avx2, SK_ROUTE_AVX2},
#else
    [SK_ROUTE_AVX2] = {"avx2", 0, NULL, SK_ISA_AVX2(SK_ISA_NAME_), NULL, SK_ROUTE_AVX2},
#endif
#if SK_HAVE_SSE2
    [SK_ROUTE_SSE2] = {"sse2", 1, always, " sse2", &sk_stage_sse2, SK_ROUTE_SSE2},
#else
    [SK_ROUTE_SSE2] = {"sse2", 0, NULL, " sse2", NULL, SK_ROUTE_SSE2},
#endif
    [SK_ROUTE_SCALAR] = {"scalar", 1, always, "", &sk_stage_scalar, SK_ROUTE_SCALAR},
};

static const sk_route_info *route_info(int route) {
    return (unsigned)route < SK_ROUTE_COUNT ? &sk_routes[route] : NULL;
}

const char *sk_route_name(int route) {
    const sk_route_info *r = route_info(route);
    return r ? r->name : NULL;
}

const char *sk_route_features(int route) {
    const sk_route_info *r = route_info(route);
    return r ? r->features + (r->features[0] == ' ') : NULL;
}

int sk_route_compiled(int route) {
    const sk_route_info *r = route_info(route);
    return r && r->compiled;
}

int sk_route_available(int route) { return sk_route_compiled(route) && sk_routes[route].cpu_runs(); }

int sk_route_borrows(int route) {
    const sk_route_info *r = route_info(route);
    return r ? r->borrows : -1;
}

_Atomic int sk_route_state[SK_ROUTE_COUNT];

int sk_route_ask(int route) {
    const int v = sk_route_available(route) ? 1 : 2;
    atomic_store_explicit(&sk_route_state[route], v, memory_order_relaxed);
    return v == 1;
}
