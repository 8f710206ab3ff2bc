/* clang 15 rejects "f16c" as a __builtin_cpu_supports feature string (gcc
 * and later clangs accept it), so the fuzz build compiles csrc/common/route.c
 * with __builtin_cpu_supports(f) defined as sk_fuzz_cpu_supports(f): the
 * same answers, F16C read from CPUID leaf 1 directly. */
#include <cpuid.h>
#include <string.h>

int sk_fuzz_cpu_supports(const char *feature);

int sk_fuzz_cpu_supports(const char *feature) {
    __builtin_cpu_init();
    if (!strcmp(feature, "f16c")) {
        unsigned a, b, c, d;
        return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
    }
    if (!strcmp(feature, "avx2")) return __builtin_cpu_supports("avx2");
    if (!strcmp(feature, "avx512f")) return __builtin_cpu_supports("avx512f");
    if (!strcmp(feature, "avx512bw")) return __builtin_cpu_supports("avx512bw");
    if (!strcmp(feature, "avx512vl")) return __builtin_cpu_supports("avx512vl");
    if (!strcmp(feature, "avx512dq")) return __builtin_cpu_supports("avx512dq");
    if (!strcmp(feature, "avx512vbmi")) return __builtin_cpu_supports("avx512vbmi");
    return 0; /* a feature this shim does not know: the route is not offered */
}
