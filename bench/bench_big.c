/* bench_big.c — big sand worlds (issue 30): ticks/s of the sand demo at 2048×1024 and 4096×2048
 * against 320×180 in the same run, and one tick's cost at 2048×1024 by part.
 *
 *   bench_big [--quick]
 *
 * Every tick is what vivd does with a world (and `viv sim --render-all --record`): step, render
 * view 0, the state hash and the frame hash. Three tables:
 *   1. ticks/s and cells/s (w·h·ticks/s) of each size, on 1 worker (the step inline) and on 2
 *      (a pool of pool/pool.c), best of 3 repetitions, the sizes and worker counts alternated
 *      repetition by repetition so that all see the same machine; each size's cells/s as a
 *      ratio of 320×180's on as many workers. Goal (issue 30): cells per second hold.
 *   2. 2048×1024 tick by tick: the time of each part and of the whole tick, mean, median and
 *      99th percentile, on 1 and 2 workers, against 16.7 ms (a tick at 60 Hz). The render is a
 *      host's: into the frame it rendered the tick before, so it draws what changed since
 *      (sim/sand/redraw.c); the share of the frame it drew is printed after the table.
 *   3. 2048×1024, the render alone, tick by tick on 1 worker: by change as in table 2, and whole
 *      (into a frame the world did not draw last, as after a load or for a new viewer).
 *   4. 2048×1024, the state hash tick by tick, three ways on the same states, in an order that
 *      turns tick by tick: as sim_world_hash takes it now (sand state version 3: the chunks'
 *      digests, taken again where cells changed), and the hash of version 2 (the saved bytes)
 *      streamed as it is saved (the way before this one) and saved into a buffer and hashed (the
 *      way before that); the two version 2 values must agree, and the version 3 one must be
 *      sim_state_hash of the saved bytes (every digest taken from scratch).
 * Every case starts 600 ticks in (10 s: the biomes' timers have all fired once). The state hash
 * after a case must be the same for every repetition and worker count, or the program exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "pool.h"
#include "sand/sand.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct bsize {
    const char *params;
    int w, h, ticks, quick_ticks;
} bsize;

static const bsize sizes[] = {
    { "w=320,h=180", 320, 180, 3000, 600 },
    { "w=2048,h=1024", 2048, 1024, 600, 120 },
    { "w=4096,h=2048", 4096, 2048, 240, 60 },
};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define WARM 600
#define SEED 1

static int quick;
static volatile uint64_t hashes;        /* the hashes go here, so that none is optimised away */

static int ticks_of(const bsize *z) { return quick ? z->quick_ticks : z->ticks; }

/* A world of size z, WARM ticks in, on `tasks` (NULL: inline). */
static sim_world *warm_world(const bsize *z, const sim_tasks *tasks)
{
    sim_world *w = bench_world("bench_big", "sand", SEED, z->params);
    sim_world_set_tasks(w, tasks);
    for (int t = 0; t < WARM; t++) sim_world_step(w);
    return w;
}

/* Time z's ticks, each a whole server tick; returns seconds, the final state hash in *check. */
static double run_ticks(const bsize *z, const sim_tasks *tasks, uint64_t *check)
{
    sim_world *w = warm_world(z, tasks);
    sim_frame f;
    sim_world_frame_init(w, &f);
    uint64_t sink = 0;
    double t0 = bench_now();
    for (int t = 0; t < ticks_of(z); t++) {
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
    }
    double secs = bench_now() - t0;
    *check = sim_world_hash(w);
    hashes ^= sink;
    sim_frame_free(&f);
    sim_world_destroy(w);
    return secs;
}

static void same_or_exit(uint64_t *have, uint64_t got, const char *what)
{
    if (*have && *have != got) {
        fprintf(stderr, "bench_big: %s: the state hash differs between runs (%016llx, %016llx)\n",
                what, (unsigned long long)*have, (unsigned long long)got);
        exit(1);
    }
    *have = got;
}

static void table_sizes(const sim_tasks *two)
{
    double best[NSIZES][2];
    uint64_t check[NSIZES] = { 0 };
    for (int i = 0; i < NSIZES; i++) best[i][0] = best[i][1] = 1e30;
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < NSIZES; i++)
            for (int k = 0; k < 2; k++) {
                uint64_t c;
                double s = run_ticks(&sizes[i], k ? two : NULL, &c);
                same_or_exit(&check[i], c, sizes[i].params);
                if (s < best[i][k]) best[i][k] = s;
            }
    printf("| size | ticks | 1 worker: ticks/s | cells/s | × 320×180's | 2 workers: ticks/s | cells/s | × 320×180's | 2 / 1 |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NSIZES; i++) {
        const bsize *z = &sizes[i];
        double cells = (double)z->w * z->h;
        printf("| %dx%d | %d", z->w, z->h, ticks_of(z));
        for (int k = 0; k < 2; k++) {
            double tps = ticks_of(z) / best[i][k];
            double base = ticks_of(&sizes[0]) / best[0][k] * 320.0 * 180.0;
            printf(" | %.1f | %.3g | %.2f", tps, tps * cells, tps * cells / base);
        }
        printf(" | %.2f |\n", best[i][0] / best[i][1]);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Mean, median and 99th percentile of v[0..n) in ms (sorts v). */
static void stats_ms(double *v, int n, double out[3])
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out[0] = sum / n * 1e3;
    out[1] = v[n / 2] * 1e3;
    out[2] = v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] * 1e3;
}

static void table_parts(const sim_tasks *two)
{
    const bsize *z = &sizes[1];
    int n = ticks_of(z);
    static const char *const parts[] = { "step", "render", "state hash", "frame hash", "the whole tick" };
    double *t[5];
    for (int p = 0; p < 5; p++) t[p] = malloc((size_t)n * sizeof *t[p]);
    printf("| %dx%d, %d ticks from tick %d | 1 worker: mean ms | median | p99 | 2 workers: mean ms | median | p99 |\n",
           z->w, z->h, n, WARM);
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    double res[2][5][3], drew[2] = { 0, 0 };
    uint64_t check = 0;
    for (int k = 0; k < 2; k++) {
        sim_world *w = warm_world(z, k ? two : NULL);
        sim_frame f;
        sim_world_frame_init(w, &f);
        sim_world_render(w, 0, &f);             /* the frame of tick 600: then by change */
        uint64_t sink = 0;
        for (int i = 0; i < n; i++) {
            double a = bench_now();
            sim_world_step(w);
            double b = bench_now();
            sim_world_render(w, 0, &f);
            double c = bench_now();
            drew[k] += (double)sand__painted(sim__world_impl(w)) / ((double)z->w * z->h) / n;
            sink ^= sim_world_hash(w);
            double d = bench_now();
            sink ^= sim_frame_hash(&f);
            double e = bench_now();
            t[0][i] = b - a; t[1][i] = c - b; t[2][i] = d - c; t[3][i] = e - d; t[4][i] = e - a;
        }
        same_or_exit(&check, sim_world_hash(w), "parts");
        hashes ^= sink;
        for (int p = 0; p < 5; p++) stats_ms(t[p], n, res[k][p]);
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    for (int p = 0; p < 5; p++)
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", parts[p], res[0][p][0], res[0][p][1],
               res[0][p][2], res[1][p][0], res[1][p][1], res[1][p][2]);
    printf("\nA tick at 60 Hz has 16.7 ms: the whole tick's mean is %.0f%% of it on 1 worker, %.0f%% on 2.\n",
           res[0][4][0] / 16.67 * 100, res[1][4][0] / 16.67 * 100);
    printf("The render drew %.2f%% of the frame's pixels a tick on average (1 worker; %.2f%% on 2).\n",
           drew[0] * 100, drew[1] * 100);
    for (int p = 0; p < 5; p++) free(t[p]);
}

/* Table 3: the render by change (into the frame drawn the tick before) and whole (into a frame
 * whose mark says nothing of who drew it: sim_frame.drawn), each tick, on 1 worker. */
static void table_render(void)
{
    const bsize *z = &sizes[1];
    int n = ticks_of(z);
    double *t[2] = { malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double)) };
    sim_world *w = warm_world(z, NULL);
    sim_frame f, g;
    sim_world_frame_init(w, &f);
    sim_world_frame_init(w, &g);
    sim_world_render(w, 0, &f);
    uint64_t sink = 0;
    for (int i = 0; i < n; i++) {
        sim_world_step(w);
        double a = bench_now();
        sim_world_render(w, 0, &f);
        double b = bench_now();
        g.drawn = 0;
        sim_world_render(w, 0, &g);
        double c = bench_now();
        sink ^= sim_frame_hash(&f) ^ sim_frame_hash(&g);
        if (memcmp(f.px, g.px, (size_t)z->w * z->h) != 0) {
            fprintf(stderr, "bench_big: the render by change differs from the whole one at tick %d\n", i);
            exit(1);
        }
        t[0][i] = b - a;
        t[1][i] = c - b;
        sim_world_render(w, 0, &f);             /* f the world's frame again (whole, untimed) */
    }
    hashes ^= sink;
    static const char *const how[] = { "render by change", "render whole" };
    printf("| %dx%d, %d ticks from tick %d, 1 worker | mean ms | median | p99 |\n|---|---:|---:|---:|\n",
           z->w, z->h, n, WARM);
    for (int k = 0; k < 2; k++) {
        double r[3];
        stats_ms(t[k], n, r);
        printf("| %s | %.2f | %.2f | %.2f |\n", how[k], r[0], r[1], r[2]);
    }
    sim_frame_free(&f);
    sim_frame_free(&g);
    sim_world_destroy(w);
    free(t[0]);
    free(t[1]);
}

static void table_create(void)
{
    printf("| size | create (the layout, the cells, the picture), s |\n|---|---:|\n");
    for (int i = 0; i < NSIZES; i++) {
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double a = bench_now();
            sim_world *w = bench_world("bench_big", "sand", SEED, sizes[i].params);
            double s = bench_now() - a;
            sim_world_destroy(w);
            if (s < best) best = s;
        }
        printf("| %dx%d | %.3f |\n", sizes[i].w, sizes[i].h, best);
    }
}

static void table_state_hash(void)
{
    const bsize *z = &sizes[1];
    int n = ticks_of(z);
    sim_world *w = warm_world(z, NULL);
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    double *t[3];
    for (int k = 0; k < 3; k++) t[k] = malloc((size_t)n * sizeof(double));
    if (!buf || !t[0] || !t[1] || !t[2]) {
        fprintf(stderr, "bench_big: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        sim_world_step(w);
        uint64_t h[3] = { 0, 0, 0 };
        for (int k = 0; k < 3; k++) {          /* the order turns tick by tick */
            int way = (i + k) % 3;
            double a = bench_now();
            if (way == 0) {                     /* version 3: the chunks' digests */
                h[0] = sim_world_hash(w);
            } else if (way == 1) {              /* version 2, streamed as it is saved */
                sim_world_set_state_version(w, 2);
                h[1] = sim_world_hash(w);
                sim_world_set_state_version(w, 3);
            } else {                            /* version 2, saved into a buffer and hashed */
                sim_world_set_state_version(w, 2);
                size_t len = sim_world_save(w, buf, cap);
                sim_world_set_state_version(w, 3);
                h[2] = XXH3_64bits(buf, len);
            }
            t[way][i] = bench_now() - a;
        }
        size_t len = sim_world_save(w, buf, cap);
        if (h[1] != h[2] || h[0] != sim_state_hash(buf, len)) {
            fprintf(stderr, "bench_big: the state hashes disagree at tick %d\n", i);
            exit(1);
        }
        hashes ^= h[0];
    }
    double r[3][3];
    for (int k = 0; k < 3; k++) stats_ms(t[k], n, r[k]);
    printf("| %dx%d, %d ticks from tick %d | mean ms | median | p99 |\n|---|---:|---:|---:|\n", z->w, z->h, n, WARM);
    printf("| version 2, saved into a buffer, then hashed | %.3f | %.3f | %.3f |\n", r[2][0], r[2][1], r[2][2]);
    printf("| version 2, hashed as it is saved | %.3f | %.3f | %.3f |\n", r[1][0], r[1][1], r[1][2]);
    printf("| version 3, the chunks' digests (sim_world_hash) | %.3f | %.3f | %.3f |\n", r[0][0], r[0][1], r[0][2]);
    printf("\nThe state hash as sim_world_hash takes it: %.1fx as fast as version 2 streamed, %.1fx as "
           "fast as saved and hashed (medians).\n", r[1][1] / r[0][1], r[2][1] / r[0][1]);
    for (int k = 0; k < 3; k++) free(t[k]);
    free(buf);
    sim_world_destroy(w);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: bench_big [--quick]\n");
            return 2;
        }
    }
    char err[256];
    pool *two = NULL;
    if (pool_create(2, &two, err, sizeof err) != 0) {
        fprintf(stderr, "bench_big: %s\n", err);
        return 1;
    }
    printf("Sand demo (seed %d), each tick step + render + state hash + frame hash, from tick %d; best of 3:\n\n",
           SEED, WARM);
    table_sizes(pool_tasks(two));
    printf("\nOne tick at 2048x1024, by part:\n\n");
    table_parts(pool_tasks(two));
    printf("\nThe render at 2048x1024, by change and whole:\n\n");
    table_render();
    printf("\nThe state hash at 2048x1024:\n\n");
    table_state_hash();
    printf("\nCreating a world:\n\n");
    table_create();
    pool_destroy(two);
    return 0;
}
