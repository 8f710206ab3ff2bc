/* The streaming-store threshold (see stream.h). */
#define _GNU_SOURCE /* sysconf's cache-size names */
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "stream.h"

#define SK_STREAM_FLOOR ((size_t)16 << 20)

/* 0 until first computed; racing first calls compute the same value. */
static _Atomic size_t stream_min_bytes;
static _Atomic size_t stream_override_bytes; /* tests only; 0 = none */
__attribute__((visibility("hidden"))) _Atomic size_t sk_stream_bytes_in_effect;

/* The largest cache level of CPU 0 as sysfs reports it ("32768K"); glibc's
 * sysconf figure is derived from CPUID and can be wrong under hypervisors
 * (320 MiB for a 32 MiB L3 seen here), so it is only the fallback. */
static size_t llc_bytes(void) {
    size_t best = 0;
    for (int index = 0; index < 8; ++index) {
        char path[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        FILE *f = fopen(path, "r");
        if (!f) break;
        unsigned long value = 0;
        char unit = 0;
        const int got = fscanf(f, "%lu%c", &value, &unit);
        fclose(f);
        if (got < 1) continue;
        const size_t bytes = value << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0);
        if (bytes > best) best = bytes;
    }
    if (best) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc > 0) return (size_t)llc;
#endif
    return 0;
}

void sk_stream_override(size_t bytes) {
    atomic_store_explicit(&stream_override_bytes, bytes, memory_order_relaxed);
    /* 0: the next sk_stream_min_bytes() call computes it again */
    atomic_store_explicit(&sk_stream_bytes_in_effect, bytes, memory_order_relaxed);
}

size_t sk_stream_min_bytes(void) {
    size_t v = atomic_load_explicit(&stream_min_bytes, memory_order_relaxed);
    if (v == 0) {
        v = llc_bytes();
        if (v < SK_STREAM_FLOOR) v = SK_STREAM_FLOOR;
        atomic_store_explicit(&stream_min_bytes, v, memory_order_relaxed);
    }
    const size_t forced = atomic_load_explicit(&stream_override_bytes, memory_order_relaxed);
    if (forced) v = forced;
    atomic_store_explicit(&sk_stream_bytes_in_effect, v, memory_order_relaxed);
    return v;
}
