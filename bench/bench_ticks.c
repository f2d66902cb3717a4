/* bench_ticks.c — ticks per second of one world: the native half of bench/wasm.mjs, which runs
 * the same loop in bin/vivarium.wasm.
 *
 *   bench_ticks KIND SEED TICKS MODE [PARAMS]
 *
 * MODE `step`: sim_world_step alone; `full`: each tick also rendered (the normal view) and both
 * hashes taken, as the server and a replay verifier do. Best of 3 repetitions after 60 warm-up
 * ticks; prints `KIND TICKS SECONDS CPU_SECONDS CHECK` (wall clock and this process's CPU time,
 * which a loaded machine skews far less), where CHECK is the final state hash XOR every tick's
 * state and frame hash (full): the same in every repetition, and the same as the wasm run's,
 * which proves both did the same work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6 || (strcmp(argv[4], "step") != 0 && strcmp(argv[4], "full") != 0)) {
        fprintf(stderr, "usage: bench_ticks KIND SEED TICKS step|full [PARAMS]\n");
        return 2;
    }
    const char *kind = argv[1], *params = argc > 5 ? argv[5] : "";
    int full = strcmp(argv[4], "full") == 0;
    uint64_t seed = strtoull(argv[2], NULL, 10);
    long ticks = strtol(argv[3], NULL, 10);
    if (ticks <= 0) {
        fprintf(stderr, "bench_ticks: TICKS must be a positive integer, got '%s'\n", argv[3]);
        return 2;
    }
    double best = 1e30, best_cpu = 1e30;
    uint64_t check = 0;
    for (int rep = 0; rep < 3; rep++) {
        sim_world *w = bench_world("bench_ticks", kind, seed, params);
        sim_frame f;
        if (sim_world_frame_init(w, &f) != 0) {
            fprintf(stderr, "bench_ticks: out of memory\n");
            return 1;
        }
        for (int t = 0; t < 60; t++) sim_world_step(w);
        uint64_t sink = 0;
        double t0 = bench_now(), c0 = cpu_now();
        for (long t = 0; t < ticks; t++) {
            sim_world_step(w);
            if (full) {
                sim_world_render(w, 0, &f);
                sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
            }
        }
        double dt = bench_now() - t0, dc = cpu_now() - c0;
        sink ^= sim_world_hash(w);
        if (rep > 0 && sink != check) {
            fprintf(stderr, "bench_ticks: %s: repetitions disagree: nondeterminism!\n", kind);
            return 1;
        }
        check = sink;
        if (dt < best) best = dt;
        if (dc < best_cpu) best_cpu = dc;
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    printf("%s %ld %.6f %.6f %016llx\n", kind, ticks, best, best_cpu, (unsigned long long)check);
    return 0;
}
