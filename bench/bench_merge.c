/* bench_merge.c — ticks per second of the fruit-merge world on one core (issue 14 §4).
 *
 *   bench_merge [--quick]
 *
 * Each case runs the real world code (sim_world_step; with rendering, also the normal view and
 * both hashes every tick, as the server does) and reports the best of 3 repetitions, with the
 * number of fruit in the container at the start and the end of the timed run. Goals: at least
 * 20,000 ticks/s headless with 60 fruit (scene=pile), at least 5,000 with rendering and both
 * hashes. The demo scene with its autopilot playing is measured for the record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "merge/merge.h"
#include "bench.h"

static double now(void) { return bench_now(); }

static sim_world *mk(const char *params)
{
    return bench_world("bench_merge", "merge", 1, params);
}

typedef struct result {
    double secs;
    int ticks, fruit0, fruit1;
    uint64_t check;          /* final state hash: proves the work happened, same every rep */
} result;

static result run_case(const char *params, int warm, int ticks, int render)
{
    result best = { 1e30, 0, 0, 0, 0 };
    for (int rep = 0; rep < 3; rep++) {
        sim_world *w = mk(params);
        sim_frame f;
        sim_world_frame_init(w, &f);
        for (int t = 0; t < warm; t++) sim_world_step(w);
        merge_world *m = sim__world_impl(w);
        int f0 = m->nfruit;
        uint64_t sink = 0;
        double t0 = now();
        for (int t = 0; t < ticks; t++) {
            sim_world_step(w);
            if (render) {
                sim_world_render(w, 0, &f);
                sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
            }
        }
        double dt = now() - t0;
        result r = { dt, ticks, f0, m->nfruit, sim_world_hash(w) ^ sink };
        if (rep > 0 && r.check != best.check) {
            fprintf(stderr, "bench_merge: repetitions disagree: nondeterminism!\n");
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
    printf("| %-48s | %3d → %3d | %6d | %8.0f | %7.1f | %s |\n", name, r.fruit0, r.fruit1, r.ticks,
           tps, r.secs * 1e6 / (double)r.ticks, vs);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int n = quick ? 3000 : 12000, warm = 120;
    printf("| case | fruit (start → end) | ticks | ticks/s | us/tick | vs goal |\n");
    printf("|---|---|---|---|---|---|\n");
    row("pile of 60, no rendering", run_case("scene=pile,autopilot=0", warm, n, 0), 20000);
    row("pile of 60, render + state/frame hash every tick",
        run_case("scene=pile,autopilot=0", warm, n / 2, 1), 5000);
    row("demo, autopilot playing, no rendering", run_case("scene=demo", 400, n, 0), 0);
    row("demo, autopilot playing, render + hashes", run_case("scene=demo", 400, n / 2, 1), 0);
    return 0;
}
