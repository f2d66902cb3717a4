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

/* One timed case of a world kind: the best of 3 repetitions of `ticks` ticks after `warm`
 * untimed ones, each running the real world code (sim_world_step; with render, also view 0 and
 * both hashes every tick, as the server does). count(w), if given, counts what the case is about
 * (fruit, creatures) at the start and the end of the timed run. The final state hash folded with
 * the frame hashes must be the same in every repetition, or the program exits: nondeterminism. */
typedef struct bench_result {
    double secs;
    int ticks, n0, n1;
    uint64_t check;
} bench_result;

static inline bench_result bench_best_of_3(const char *prog, const char *kind, uint64_t seed,
                                           const char *params, int warm, int ticks, int render,
                                           int (*count)(sim_world *w))
{
    bench_result best = { 1e30, 0, 0, 0, 0 };
    for (int rep = 0; rep < 3; rep++) {
        sim_world *w = bench_world(prog, kind, seed, params);
        sim_frame f;
        sim_world_frame_init(w, &f);
        for (int t = 0; t < warm; t++) sim_world_step(w);
        int n0 = count ? count(w) : 0;
        uint64_t sink = 0;
        double t0 = bench_now();
        for (int t = 0; t < ticks; t++) {
            sim_world_step(w);
            if (render) {
                sim_world_render(w, 0, &f);
                sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
            }
        }
        double dt = bench_now() - t0;
        bench_result r = { dt, ticks, n0, count ? count(w) : 0, sim_world_hash(w) ^ sink };
        if (rep > 0 && r.check != best.check) {
            fprintf(stderr, "%s: repetitions disagree: nondeterminism!\n", prog);
            exit(1);
        }
        if (dt < best.secs) best = r;
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    return best;
}

/* A Markdown row: | name | n0 → n1 | ticks | ticks/s | us/tick | vs goal | (goal 0: none). */
static inline void bench_row(const char *name, bench_result r, double goal)
{
    double tps = (double)r.ticks / r.secs;
    char vs[64] = "-";
    if (goal > 0)
        snprintf(vs, sizeof vs, "%.2fx of %.0f (%s)", tps / goal, goal, tps >= goal ? "met" : "MISSED");
    printf("| %-48s | %3d → %3d | %6d | %8.0f | %7.1f | %s |\n", name, r.n0, r.n1, r.ticks, tps,
           r.secs * 1e6 / (double)r.ticks, vs);
}
#endif
