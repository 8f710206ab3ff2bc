/* x86-64 Cast, AVX2: the same blocked portable leaves compiled for AVX2
 * (256-bit vectors); selected only where the CPU has AVX2. */
#include "cast.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2")
#define SK_ISA(name) name##__avx2
#include "cast_blocked.h"
#endif
