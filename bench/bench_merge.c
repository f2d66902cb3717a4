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
#include "merge/merge.h"
#include "bench.h"

static int fruit(sim_world *w) { return ((merge_world *)sim__world_impl(w))->nfruit; }

static bench_result run_case(const char *params, int warm, int ticks, int render)
{
    return bench_best_of_3("bench_merge", "merge", 1, params, warm, ticks, render, fruit);
}

static void row(const char *name, bench_result r, double goal) { bench_row(name, r, goal); }

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
