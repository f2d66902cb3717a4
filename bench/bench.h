/* bench.h — what every benchmark in bench/ shares: the clock and the world builder. */
#ifndef VIVARIUM_BENCH_H
#define VIVARIUM_BENCH_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sim.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A world of KIND from SEED and PARAMS; on failure prints "PROG: KIND: why" and exits 1. */
static inline sim_world *bench_world(const char *prog, const char *kind, uint64_t seed,
                                     const char *params)
{
    char err[256];
    sim_config c = sim_config_default();
    c.kind = kind;
    c.seed = seed;
    c.params = params;
    c.err = err;
    c.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&c, &rc);
    if (!w) {
        fprintf(stderr, "%s: %s: %s\n", prog, kind, err);
        exit(1);
    }
    return w;
}
#endif
