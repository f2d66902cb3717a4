/* bench_sand.c — ticks per second of the sand world on one core (issue 2's benchmarks).
 *
 *   bench_sand [--quick]
 *
 * Each case runs the real world code (sim_world_step; with --render also render + both hashes, as
 * the server does every tick) and reports the best of 3 repetitions. Goals: ≥ 1,500 ticks/s for
 * the bench scene's first 2,000 ticks, ≥ 20,000 ticks/s once settled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sand/sand.h"
#include "bench.h"

static double now(void) { return bench_now(); }

static sim_world *mk(uint64_t seed, const char *params)
{
    return bench_world("bench_sand", "sand", seed, params);
}

typedef struct result {
    double secs;
    uint64_t ticks, active;
    uint64_t check;          /* final state hash: proves the work happened, same every rep */
} result;

/* Create, step `warm` ticks untimed, then time `ticks` ticks. */
static result run_case(const char *params, uint64_t seed, int warm, int ticks, int render)
{
    result best = { 1e30, 0, 0, 0 };
    for (int rep = 0; rep < 3; rep++) {
        sim_world *w = mk(seed, params);
        sim_frame f;
        sim_world_frame_init(w, &f);
        for (int t = 0; t < warm; t++) sim_world_step(w);
        uint64_t active = 0, sink = 0;
        double t0 = now();
        for (int t = 0; t < ticks; t++) {
            sim_world_step(w);
            active += sand__active_cells(sim__world_impl(w));
            if (render) {
                sim_world_render(w, 0, &f);
                sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
            }
        }
        double dt = now() - t0;
        result r = { dt, (uint64_t)ticks, active, sim_world_hash(w) ^ sink };
        if (rep > 0 && r.check != best.check) {
            fprintf(stderr, "bench_sand: repetitions disagree: nondeterminism!\n");
            exit(1);
        }
        if (dt < best.secs) best = r;
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    return best;
}

static void row(const char *name, result r, double goal)
{
    double tps = (double)r.ticks / r.secs;
    double ns_cell = r.active ? r.secs * 1e9 / (double)r.active : 0.0;
    char vs[64] = "-";
    if (goal > 0) snprintf(vs, sizeof vs, "%.2fx of %.0f (%s)", tps / goal, goal, tps >= goal ? "met" : "MISSED");
    printf("| %-44s | %6llu | %8.0f | %7.1f | %8.1f | %6.2f | %s |\n", name,
           (unsigned long long)r.ticks, tps, r.secs * 1e6 / (double)r.ticks,
           (double)r.active / (double)r.ticks, ns_cell, vs);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int settle = quick ? 6000 : 20000;
    printf("| case | ticks | ticks/s | us/tick | active cells/tick | ns/active cell | vs goal |\n");
    printf("|---|---|---|---|---|---|---|\n");
    row("bench scene 320x180, first 2,000 ticks", run_case("scene=bench", 1, 0, 2000, 0), 1500);
    row("bench scene 320x180, settled (after warm-up)",
        run_case("scene=bench", 1, settle, quick ? 5000 : 20000, 0), 20000);
    row("demo scene 320x180 (after 600 ticks)", run_case("", 1, 600, quick ? 2000 : 6000, 0), 0);
    row("demo scene + render + state/frame hash", run_case("", 1, 600, quick ? 1000 : 3000, 1), 0);
    return 0;
}
