/* Build identity and the route registry. */
#include <stdatomic.h>
#include "kernel.h"
#if SK_HAVE_NEON
#include <sys/auxv.h>
#include <asm/hwcap.h>
#endif

#if !defined(SK_VERSION) || !defined(SK_SOURCE_DIGEST) || !defined(SK_BUILD_FLAGS)
#error "the builder (csrc/ffi_build.py) defines SK_VERSION, SK_SOURCE_DIGEST and SK_BUILD_FLAGS"
#endif

const char *sk_version(void) { return SK_VERSION; }
const char *sk_source_digest(void) { return SK_SOURCE_DIGEST; }
const char *sk_build_flags(void) { return SK_BUILD_FLAGS; }
const char *sk_compiler(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown C compiler";
#endif
}

const char *sk_route_name(int route) {
    switch (route) {
    case SK_ROUTE_NEON:
        return "neon";
    case SK_ROUTE_AVX512:
        return "avx512";
    case SK_ROUTE_AVX2:
        return "avx2";
    case SK_ROUTE_SSE2:
        return "sse2";
    case SK_ROUTE_SCALAR:
        return "scalar";
    default:
        return NULL;
    }
}

int sk_route_compiled(int route) {
    if (route == SK_ROUTE_SCALAR) return 1;
    if (route == SK_ROUTE_NEON) return SK_HAVE_NEON;
    if (route == SK_ROUTE_SSE2) return SK_HAVE_SSE2;
    if (route == SK_ROUTE_AVX512) return SK_HAVE_AVX512;
    if (route == SK_ROUTE_AVX2) return SK_HAVE_AVX2;
    return 0;
}

int sk_route_available(int route) {
    if (!sk_route_compiled(route)) return 0;
#if SK_HAVE_NEON
    /* Advanced SIMD is part of the Linux AArch64 baseline, but ask anyway:
     * a route is only offered when the CPU says it has the unit. */
    if (route == SK_ROUTE_NEON) return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#endif
#if SK_HAVE_AVX2
    /* Quant's AVX2 leaves widen FP16 with F16C (every AVX2 CPU has it). */
    if (route == SK_ROUTE_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#endif
#if SK_HAVE_AVX512
    /* Every feature the avx512 leaves use, and the avx2 leaves it borrows.
     * GCC's and clang's runtimes report the AVX-512 features only when the
     * OS saves the 512-bit state (XCR0), so this also covers the OS. */
    if (route == SK_ROUTE_AVX512)
        return sk_route_available(SK_ROUTE_AVX2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi");
#endif
    return 1;
}

/* Availability asks the CPU (cpuid, auxv): once per route per process. */
_Atomic int sk_route_state[SK_ROUTE_COUNT];

int sk_route_ask(int route) {
    const int v = sk_route_available(route) ? 1 : 2;
    atomic_store_explicit(&sk_route_state[route], v, memory_order_relaxed);
    return v == 1;
}
