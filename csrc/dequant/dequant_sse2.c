/* x86-64 Dequant, SSE2 (the baseline): the blocked portable leaves. */
#include "dequant.h"
#if SK_HAVE_SSE2
#define SK_ISA(name) name##__sse2
#include "dequant_blocked.h"
#endif
