/* The parameter-vector leaves of one operation for every vector route: a
 * file defines AXIS_BODY (the header of its leaves' body) and includes
 * this, which includes axis_lanes.h and the body once per route's
 * instruction set, inside a region compiled for it (F16C with AVX2: the
 * AVX2 route requires it, build.c). */
#if SK_HAVE_SSE2
#include <immintrin.h>
#define AXIS_ISA sse2
#define AXIS_ISA_SSE2 1
#include "axis_lanes.h"
#include AXIS_BODY
#undef AXIS_ISA_SSE2
#undef AXIS_ISA

#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#define AXIS_ISA avx2
#define AXIS_ISA_AVX2 1
#include "axis_lanes.h"
#include AXIS_BODY
#undef AXIS_ISA_AVX2
#undef AXIS_ISA
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")
#define AXIS_ISA avx512
#define AXIS_ISA_AVX512 1
#include "axis_lanes.h"
#include AXIS_BODY
#undef AXIS_ISA_AVX512
#undef AXIS_ISA
#pragma GCC pop_options
#endif

#if SK_HAVE_NEON
#include <arm_neon.h>
#define AXIS_ISA neon
#define AXIS_ISA_NEON 1
#include "axis_lanes.h"
#include AXIS_BODY
#undef AXIS_ISA_NEON
#undef AXIS_ISA
#endif
