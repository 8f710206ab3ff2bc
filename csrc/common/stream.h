/* When dense leaves bypass the cache: outputs far beyond the last-level
 * cache gain nothing from being cached (they are evicted before anyone reads
 * them) and cost a read-for-ownership per line; non-temporal stores skip
 * both.  Smaller outputs stay cached for whatever consumes them next. */
#ifndef SK_COMMON_STREAM_H
#define SK_COMMON_STREAM_H
#include <stddef.h>

/* Output bytes of one dense run from which leaves may stream their stores:
 * twice the last-level cache this CPU reports (at least 16 MiB).  Computed
 * once per process; safe to call from any thread. */
size_t sk_stream_min_bytes(void);

#endif
