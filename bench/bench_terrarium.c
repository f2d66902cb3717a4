/* bench_terrarium.c — ticks per second of the terrarium on one core (issue 5's benchmarks).
 *
 *   bench_terrarium [--quick]
 *
 * Each case runs the real world code (sim_world_step; with rendering, also the normal view and
 * both hashes every tick, as the server does) and reports the best of 3 repetitions. Goals: at
 * least 20,000 ticks/s for the demo room without rendering, at least 8,000 with rendering and
 * hashing every tick. The same is measured with 10 extra creatures spawned (5 lizards, 5
 * scramblers), with issue 17's goal of 8,000 ticks/s rendered and hashed (the doll's capsules are
 * most of a rendered tick: sim_raster_capsule's rule and fill, issue 17), beside the same
 * creatures without rendering, the floor the render case stands on, measured in the same run;
 * and, for the record, the x-ray view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "terrarium/terrarium.h"
#include "bench.h"

static double now(void) { return bench_now(); }

static sim_world *mk(uint64_t seed)
{
    return bench_world("bench_terrarium", "terrarium", seed, "");
}

/* Ten more creatures, spread along the room, before the timed run. */
static void spawn_ten(sim_world *w)
{
    const sim_kind *k = sim_world_kind(w);
    for (int i = 0; i < 10; i++) {
        char line[64], err[256];
        sim_input in;
        snprintf(line, sizeof line, "%llu spawn %s %d 60", (unsigned long long)sim_world_tick(w),
                 i & 1 ? "scrambler" : "lizard", 24 + 28 * i);
        if (sim_input_parse_line(k, line, &in, err, sizeof err) != 0 || (in.seq = (uint32_t)i + 1, sim_world_input(w, &in)) != 0) {
            fprintf(stderr, "bench_terrarium: cannot spawn: %s %s\n", err, sim_world_error(w));
            exit(1);
        }
    }
    sim_world_step(w);
}

typedef struct result {
    double secs;
    int ticks, creatures;
    uint64_t check;          /* final state hash: proves the work happened, same every rep */
} result;

static result run_case(int extra, int warm, int ticks, int render, int view)
{
    result best = { 1e30, 0, 0, 0 };
    for (int rep = 0; rep < 3; rep++) {
        sim_world *w = mk(1);
        if (extra) spawn_ten(w);
        sim_frame f;
        sim_world_frame_init(w, &f);
        for (int t = 0; t < warm; t++) sim_world_step(w);
        uint64_t sink = 0;
        double t0 = now();
        for (int t = 0; t < ticks; t++) {
            sim_world_step(w);
            if (render) {
                sim_world_render(w, view, &f);
                sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
            }
        }
        double dt = now() - t0;
        terra_world *tw = sim__world_impl(w);
        result r = { dt, ticks, tw->ncr, sim_world_hash(w) ^ sink };
        if (rep > 0 && r.check != best.check) {
            fprintf(stderr, "bench_terrarium: repetitions disagree: nondeterminism!\n");
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
    char vs[64] = "-";
    if (goal > 0)
        snprintf(vs, sizeof vs, "%.2fx of %.0f (%s)", tps / goal, goal, tps >= goal ? "met" : "MISSED");
    printf("| %-52s | %2d | %6d | %8.0f | %7.1f | %s |\n", name, r.creatures, r.ticks, tps,
           r.secs * 1e6 / (double)r.ticks, vs);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int n = quick ? 4000 : 20000, warm = 400;
    printf("| case | creatures | ticks | ticks/s | us/tick | vs goal |\n");
    printf("|---|---|---|---|---|---|\n");
    row("demo room, no rendering", run_case(0, warm, n, 0, 0), 20000);
    row("demo room, render + state/frame hash every tick", run_case(0, warm, n / 2, 1, 0), 8000);
    row("demo + 10 creatures, no rendering", run_case(1, warm, n / 2, 0, 0), 0);
    row("demo + 10 creatures, render + hashes (issue 17)", run_case(1, warm, n / 4, 1, 0), 8000);
    row("demo room, x-ray view + hashes every tick", run_case(0, warm, n / 4, 1, 1), 0);
    return 0;
}
