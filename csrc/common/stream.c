/* The streaming-store threshold (see stream.h). */
#define _GNU_SOURCE  /* sysconf's cache-size names */
#include <stdatomic.h>
#include <unistd.h>
#include "stream.h"

#define SK_STREAM_FLOOR ((size_t)16 << 20)

/* 0 until first computed; racing first calls compute the same value. */
static _Atomic size_t stream_min_bytes;

static size_t llc_bytes(void) {
    long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return llc > 0 ? (size_t)llc : 0;
}

size_t sk_stream_min_bytes(void) {
    size_t v = atomic_load_explicit(&stream_min_bytes, memory_order_relaxed);
    if (v == 0) {
        v = llc_bytes() * 2;
        if (v < SK_STREAM_FLOOR) v = SK_STREAM_FLOOR;
        atomic_store_explicit(&stream_min_bytes, v, memory_order_relaxed);
    }
    return v;
}
