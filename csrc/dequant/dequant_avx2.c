/* x86-64 Dequant, AVX2: the same blocked portable leaves compiled for AVX2
 * (no FMA: -ffp-contract=off holds, and the target adds only AVX2). */
#include "dequant.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2")
#define SK_ISA(name) name##__avx2
#include "dequant_blocked.h"
#endif
