/* When dense leaves bypass the cache: outputs far beyond the last-level
 * cache gain nothing from being cached (they are evicted before anyone reads
 * them) and cost a read-for-ownership per line; non-temporal stores skip
 * both.  Smaller outputs stay cached for whatever consumes them next.
 * sk_stream_min_bytes() (public header) gives the threshold: the size of
 * the last-level cache this CPU reports (at least 16 MiB), unless a test
 * overrode it. */
#ifndef SK_COMMON_STREAM_H
#define SK_COMMON_STREAM_H
#include "../include/simakernels.h"
#endif
