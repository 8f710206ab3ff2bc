/* Routes as objects: one descriptor per route says what it is called,
 * whether this build compiled it, what the CPU must have to run it, the
 * staging moves its walks use, and whose code it runs where it has none of
 * its own.  The operations' kernel tables are indexed by route (each
 * operation's registry, <op>_kernels.inc); nothing here knows them. */
#ifndef SK_COMMON_ROUTE_H
#define SK_COMMON_ROUTE_H
#include <stdatomic.h>
#include "../include/simakernels.h"
#include "isa.h"
#include "stage.h"

typedef struct sk_route_info {
    const char *name;
    int compiled;
    int (*cpu_runs)(void);   /* asks the CPU (cpuid, auxv) for every feature of `features` */
    const char *features;    /* the instruction-set features its code is compiled for */
    const sk_stage *staging; /* the moves of its walks' non-packed runs */
    /* The route whose staging and, where the registry says so, leaves it
     * runs (its own where it borrows nothing). */
    int borrows;
} sk_route_info;

extern const sk_route_info sk_routes[SK_ROUTE_COUNT];

/* Whether a route is compiled and this CPU runs it: asked once per route
 * (sk_route_ask), then read from sk_route_state (1 yes, 2 no). */
extern _Atomic int sk_route_state[SK_ROUTE_COUNT];
int sk_route_ask(int route);
static inline int sk_route_usable(int route) {
    if ((unsigned)route >= SK_ROUTE_COUNT) return 0;
    const int v = atomic_load_explicit(&sk_route_state[route], memory_order_relaxed);
    return v ? v == 1 : sk_route_ask(route);
}

#endif
