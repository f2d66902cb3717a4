/* bench_sand.c — ticks per second of the sand world (issues 2 and 17).
 *
 *   bench_sand [--quick] [--reps N] [--only NAME] [--baseline PATH]
 *   bench_sand --case NAME [--quick]        one single-threaded case: prints "<seconds> <hash>"
 *
 * Each case runs the real world code (sim_world_step; with render, also render + both hashes, as
 * the server does every tick) and reports the best of its repetitions, which must all end in the
 * same state hash. Three tables:
 *   1. the step on one thread (inline passes). Goals: ≥ 1,500 ticks/s for the bench scene's
 *      first 2,000 ticks, ≥ 20,000 ticks/s once settled;
 *   2. parallel passes: the same cases with 2 workers (a pool of pool/pool.c) against 1, the two
 *      alternated repetition by repetition so that both see the same machine. Goal: the bench
 *      scene at ≥ 1.7× with 2 workers on a 2-core machine. Besides the best whole run, each
 *      10-tick block keeps its best time over the repetitions (the same blocks of the same
 *      deterministic run, for 1 and 2 workers alike): on a machine shared with other work, that
 *      is the step's speed in the moments nothing else ran, which whole runs rarely see;
 *   3. with --baseline PATH (bench_sand_base: this file built with -DBENCH_BASELINE against the
 *      sim/ of the commit before the strip passes, `make bench` builds it), the single-threaded
 *      step against that older one, alternated, each case run by `PATH --case NAME`. Goal: no
 *      slower (≥ 1.00×).
 * Worker counts are never part of a result: every case checks that 1 and 2 workers end in the
 * same state hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sand/sand.h"
#include "bench.h"
#ifndef BENCH_BASELINE
#include "pool.h"
#endif

typedef struct result {
    double secs;
    uint64_t ticks, active;
    uint64_t check;          /* final state hash (and frame hashes): the same every repetition */
} result;

#define BLOCK 10                  /* ticks per block of the per-block best times */
#define MAX_BLOCKS 2048

typedef struct bcase {
    const char *name, *label, *params;
    uint64_t seed;
    int warm, ticks, quick_ticks, render;
    double goal;
} bcase;

static const bcase cases[] = {
    { "bench-first", "bench scene 320x180, first 2,000 ticks", "scene=bench", 1, 0, 2000, 2000, 0, 1500 },
    { "bench-settled", "bench scene 320x180, settled (after warm-up)", "scene=bench", 1, 20000, 20000, 5000, 0, 20000 },
    { "demo", "demo scene 320x180 (after 600 ticks)", "", 1, 600, 6000, 2000, 0, 0 },
    { "demo-render", "demo scene + render + state/frame hash", "", 1, 600, 3000, 1000, 1, 0 },
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int quick;

/* Create, step `warm` ticks untimed, then time the case's ticks, on `tasks` (NULL: inline).
 * blocks (may be NULL): each BLOCK-tick block's time is kept there if it beats what is there. */
static result run_once(const bcase *c, const void *tasks, double *blocks)
{
    sim_world *w = bench_world("bench_sand", "sand", c->seed, c->params);
#ifndef BENCH_BASELINE
    sim_world_set_tasks(w, tasks);
#else
    (void)tasks;
#endif
    int warm = c->warm, ticks = quick ? c->quick_ticks : c->ticks;
    if (quick && warm > 6000) warm = 6000;
    sim_frame f;
    sim_world_frame_init(w, &f);
    for (int t = 0; t < warm; t++) sim_world_step(w);
    uint64_t active = 0, sink = 0;
    double t0 = bench_now(), tb = t0;
    for (int t = 0; t < ticks; t++) {
        sim_world_step(w);
        active += sand__active_cells(sim__world_impl(w));
        if (c->render) {
            sim_world_render(w, 0, &f);
            sink ^= sim_frame_hash(&f) ^ sim_world_hash(w);
        }
        if (blocks && (t + 1) % BLOCK == 0 && t / BLOCK < MAX_BLOCKS) {
            double now = bench_now();
            if (now - tb < blocks[t / BLOCK]) blocks[t / BLOCK] = now - tb;
            tb = now;
        }
    }
    result r = { bench_now() - t0, (uint64_t)ticks, active, sim_world_hash(w) ^ sink };
    sim_frame_free(&f);
    sim_world_destroy(w);
    return r;
}

static const bcase *find_case(const char *name)
{
    for (int i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    fprintf(stderr, "bench_sand: no case '%s' (cases:", name);
    for (int i = 0; i < NCASES; i++) fprintf(stderr, " %s", cases[i].name);
    fprintf(stderr, ")\n");
    exit(2);
}

#ifdef BENCH_BASELINE
int main(int argc, char **argv)
{
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) name = argv[++i];
        else {
            fprintf(stderr, "usage: bench_sand_base --case NAME [--quick]\n");
            return 2;
        }
    }
    if (!name) {
        fprintf(stderr, "usage: bench_sand_base --case NAME [--quick]\n");
        return 2;
    }
    result r = run_once(find_case(name), NULL, NULL);
    printf("%.9f %016llx\n", r.secs, (unsigned long long)r.check);
    return 0;
}
#else

static void keep_best(result *best, result r, const char *what)
{
    if (best->ticks && r.check != best->check) {
        fprintf(stderr, "bench_sand: %s: repetitions disagree: nondeterminism!\n", what);
        exit(1);
    }
    if (!best->ticks || r.secs < best->secs) *best = r;
}

static double tps(result r) { return (double)r.ticks / r.secs; }

/* --only: every case but that one is left out of every table. */
static int skip(const bcase *only, int i) { return only && only != &cases[i]; }

static void row(const char *name, result r, double goal)
{
    double ns_cell = r.active ? r.secs * 1e9 / (double)r.active : 0.0;
    char vs[64] = "-";
    if (goal > 0) snprintf(vs, sizeof vs, "%.2fx of %.0f (%s)", tps(r) / goal, goal, tps(r) >= goal ? "met" : "MISSED");
    printf("| %-44s | %6llu | %8.0f | %7.1f | %8.1f | %6.2f | %s |\n", name,
           (unsigned long long)r.ticks, tps(r), r.secs * 1e6 / (double)r.ticks,
           (double)r.active / (double)r.ticks, ns_cell, vs);
}

/* The case on the baseline binary: seconds and hash, from `PATH --case NAME`. */
static result run_baseline(const char *path, const bcase *c)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --case %s%s", path, c->name, quick ? " --quick" : "");
    FILE *p = popen(cmd, "r");
    double secs = 0;
    unsigned long long h = 0;
    int ok = p && fscanf(p, "%lf %llx", &secs, &h) == 2;
    int st = p ? pclose(p) : -1;
    if (!ok || st != 0) {
        fprintf(stderr, "bench_sand: the baseline failed: %s\n", cmd);
        exit(1);
    }
    result r = { secs, (uint64_t)(quick ? c->quick_ticks : c->ticks), 0, h };
    return r;
}

int main(int argc, char **argv)
{
    const char *baseline = NULL, *one = NULL;
    const bcase *only = NULL;                   /* --only: one case in every table */
    int reps = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = find_case(argv[++i]);
        else if (strcmp(argv[i], "--baseline") == 0 && i + 1 < argc) baseline = argv[++i];
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) one = argv[++i];
        else {
            fprintf(stderr, "usage: bench_sand [--quick] [--reps N] [--only NAME] [--baseline PATH] | --case NAME [--quick]\n");
            return 2;
        }
    }
    if (one) {
        result r = run_once(find_case(one), NULL, NULL);
        printf("%.9f %016llx\n", r.secs, (unsigned long long)r.check);
        return 0;
    }
    if (!reps) reps = quick ? 3 : 5;     /* the per-block bests take 4 × as many */
    char err[256];
    pool *two = NULL;
    if (pool_create(2, &two, err, sizeof err) != 0) {
        fprintf(stderr, "bench_sand: %s\n", err);
        return 1;
    }
    result one_w[NCASES], two_w[NCASES];
    memset(one_w, 0, sizeof one_w);
    memset(two_w, 0, sizeof two_w);
    double (*blocks)[NCASES][MAX_BLOCKS] = malloc(2 * sizeof *blocks);
    if (!blocks) {
        fprintf(stderr, "bench_sand: out of memory\n");
        return 1;
    }
    for (int m = 0; m < 2; m++)
        for (int i = 0; i < NCASES; i++)
            for (int b = 0; b < MAX_BLOCKS; b++) blocks[m][i][b] = 1e30;
    int block_reps = reps * 4;          /* extra runs for the per-block bests, alternated too */
    for (int i = 0; i < NCASES; i++) {
        if (skip(only, i)) continue;
        for (int rep = 0; rep < block_reps; rep++) {
            result a = run_once(&cases[i], NULL, blocks[0][i]);
            result b = run_once(&cases[i], pool_tasks(two), blocks[1][i]);
            if (rep < reps) {
                keep_best(&one_w[i], a, cases[i].name);
                keep_best(&two_w[i], b, cases[i].name);
            }
            if (a.check != b.check || one_w[i].check != two_w[i].check) {
                fprintf(stderr, "bench_sand: %s: 1 and 2 workers end in different states!\n",
                        cases[i].name);
                return 1;
            }
        }
    }
    long losses = pool_losses(two);
    pool_destroy(two);

    printf("Single-threaded step (passes inline), best of %d:\n\n", reps);
    printf("| case | ticks | ticks/s | us/tick | active cells/tick | ns/active cell | vs goal |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < NCASES; i++)
        if (!skip(only, i)) row(cases[i].label, one_w[i], cases[i].goal);

    printf("\nParallel passes, 2 workers against 1 (alternated; the same final state). Whole runs: best "
           "of %d each. Blocks: each %d-tick block's best of %d runs, summed:\n\n", reps, BLOCK,
           block_reps);
    printf("| case | 1 worker ticks/s | 2 workers ticks/s | speed-up | blocks: 1 worker | 2 workers | speed-up | vs goal |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < NCASES; i++) {
        if (skip(only, i)) continue;
        double s = tps(two_w[i]) / tps(one_w[i]);
        double b1 = 0, b2 = 0;
        int nb = (int)(one_w[i].ticks / BLOCK);
        for (int b = 0; b < nb && b < MAX_BLOCKS; b++) {
            b1 += blocks[0][i][b];
            b2 += blocks[1][i][b];
        }
        double bt = (double)(nb * BLOCK);
        char vs[96] = "-";
        if (i == 0)
            snprintf(vs, sizeof vs, "whole %.2fx, blocks %.2fx of 1.70x (%s)", s, b1 / b2,
                     s >= 1.7 ? "met" : b1 / b2 >= 1.7 ? "met in blocks" : "MISSED");
        printf("| %-44s | %8.0f | %8.0f | %5.2fx | %8.0f | %8.0f | %5.2fx | %s |\n", cases[i].label,
               tps(one_w[i]), tps(two_w[i]), s, bt / b1, bt / b2, b1 / b2, vs);
    }
    free(blocks);
    printf("\nPasses the pool counted as losses (it waited for a worker longer than it worked; each "
           "sends the next passes inline for a while): %ld. Many mean the machine was too busy "
           "to run the second worker when it was needed.\n", losses);

    if (baseline) {
        result now[NCASES], before[NCASES];
        memset(now, 0, sizeof now);
        memset(before, 0, sizeof before);
        for (int i = 0; i < NCASES; i++) {
            if (skip(only, i)) continue;
            for (int rep = 0; rep < reps; rep++) {
                keep_best(&before[i], run_baseline(baseline, &cases[i]), "baseline");
                keep_best(&now[i], run_once(&cases[i], NULL, NULL), cases[i].name);
            }
        }
        printf("\nSingle-threaded step against the baseline (%s; alternated, best of %d each):\n\n",
               baseline, reps);
        printf("| case | baseline ticks/s | now ticks/s | now / baseline | vs goal |\n");
        printf("|---|---|---|---|---|\n");
        for (int i = 0; i < NCASES; i++) {
        if (skip(only, i)) continue;
            double s = tps(now[i]) / tps(before[i]);
            printf("| %-44s | %8.0f | %8.0f | %5.2fx | %.2fx of 1.00x (%s) |\n", cases[i].label,
                   tps(before[i]), tps(now[i]), s, s, s >= 1.0 ? "met" : "MISSED");
        }
    }
    return 0;
}
#endif
