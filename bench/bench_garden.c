/* bench_garden.c — ticks per second of the garden world on one core (issue 16).
 *
 *   bench_garden [--quick]
 *
 * Each case runs the real world code (sim_world_step; with rendering, also the normal view and
 * both hashes every tick, as the server does) and reports the best of 3 repetitions, with the
 * number of creatures at the start and the end of the timed run. Goal: at least 5,000 ticks/s
 * at 320×180 with rendering and both hashes. The demo scene is the one `make run` shows; crowd
 * has every creature at its cap (3 serpents, 4 vines, 4 villagers, 6 gnomes); inks=8 adds the
 * ink lock over every frame. */
#include <stdio.h>
#include <string.h>
#include "garden/garden.h"
#include "bench.h"

static int creatures(sim_world *w)
{
    const garden_world *g = sim__world_impl(w);
    return g->nserpent + g->nvine + g->nbiped + g->nwalker;
}

static bench_result run_case(const char *params, int ticks, int render)
{
    return bench_best_of_3("bench_garden", "garden", 1, params, 300, ticks, render, creatures);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int n = quick ? 3000 : 12000;
    printf("| case | creatures (start → end) | ticks | ticks/s | us/tick | vs goal |\n");
    printf("|---|---|---|---|---|---|\n");
    bench_row("demo, no rendering", run_case("scene=demo", n, 0), 0);
    bench_row("demo, render + state/frame hash every tick", run_case("scene=demo", n / 2, 1), 5000);
    bench_row("crowd, no rendering", run_case("scene=crowd", n, 0), 0);
    bench_row("crowd, render + state/frame hash every tick", run_case("scene=crowd", n / 2, 1), 5000);
    bench_row("crowd, inks=8, render + hashes", run_case("scene=crowd,inks=8", n / 2, 1), 5000);
    return 0;
}
