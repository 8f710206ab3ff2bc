/* x86-64 Cast, SSE2 (the baseline): the blocked portable leaves. */
#include "cast.h"
#if SK_HAVE_SSE2
#define SK_ISA(name) name##__sse2
#include "cast_blocked.h"
#endif
