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
#define _GNU_SOURCE                  /* pthread_setaffinity_np, CPU_SET: table 4 pins threads */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sand/sand.h"
#include "bench.h"
#ifndef BENCH_BASELINE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "pool.h"
#endif

typedef struct result {
    double secs;
    uint64_t ticks, active;
    uint64_t check;          /* final state hash (and frame hashes): the same every repetition */
} result;

#define MAX_CPUS 8                /* per-CPU rows of table 4: at most this many */
#define CPU_SLOTS 64              /* item time by CPU number (the last slot: any beyond) */
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

/* ---- what bounds the speed-up on this machine (table 4) --------------------------------------- */

/* Item time: a sim_tasks that wraps another (or runs inline, inner NULL) and adds up, per worker,
 * the time spent inside the world's pass functions. The same strips timed the same way on 1 and
 * on 2 workers: the ratio of the totals is what splitting them over two cores costs the work
 * itself (caches moving between cores), apart from waiting and balance. */
typedef struct timed_tasks {
    sim_tasks outer;
    const sim_tasks *inner;
    sim_task_fn *fn;                   /* the pass being run (one at a time) */
    void *ctx;
    struct { _Atomic uint64_t ns; char pad[56]; } cpu[CPU_SLOTS];  /* item time by the CPU it ran
                                                                       on (atomic: a thread can be
                                                                       moved mid-add) */
    double last;                       /* the last range's time (read inline, one thread) */
    double bound;                      /* 1 worker: Σ over ticks (graphs) or passes of a greedy
                                          2-worker schedule */
} timed_tasks;

static void timed_fn(int start, int end, int worker, void *c)
{
    timed_tasks *t = c;
    double t0 = bench_now();
    t->fn(start, end, worker, t->ctx);
    double dt = bench_now() - t0;
    if (!t->inner) t->last = dt;       /* inline only: one thread writes it */
    int cpu = sched_getcpu();
    atomic_fetch_add_explicit(&t->cpu[cpu >= 0 && cpu < CPU_SLOTS ? cpu : CPU_SLOTS - 1].ns,
                              (uint64_t)(dt * 1e9), memory_order_relaxed);
}

/* The item time, summed over the CPUs. */
static double timed_busy(const timed_tasks *t)
{
    double b = 0;
    for (int i = 0; i < CPU_SLOTS; i++) b += (double)atomic_load(&t->cpu[i].ns) * 1e-9;
    return b;
}

static void *timed_enqueue(sim_task_fn *fn, int count, int min_range, void *task_ctx, void *user)
{
    timed_tasks *t = user;
    t->fn = fn;
    t->ctx = task_ctx;
    if (t->inner) return t->inner->enqueue(timed_fn, count, min_range, t, t->inner->user);
    /* Inline, item by item: each item's time, and the makespan of handing them out in the
     * world's order (heaviest first) to whichever of two workers is free first. */
    double load[2] = { 0, 0 };
    for (int i = 0; i < count; i++) {
        timed_fn(i, i + 1, 0, t);
        load[load[0] <= load[1] ? 0 : 1] += t->last;
    }
    t->bound += load[0] > load[1] ? load[0] : load[1];
    return NULL;
}

/* A tick's graph (sim.h). Through the pool: each item timed. Inline: the items one at a time in
 * an order the graph allows (the lowest ready first), each timed, and the makespan of the list
 * schedule of those times on two equal workers (each, when free, starts the item that can start
 * first) added to the bound. */
#define GRAPH_MAX 256
static int timed_run_graph(sim_task_fn *fn, const sim_graph *g, void *task_ctx, void *user)
{
    timed_tasks *t = user;
    int n = g->count;
    t->fn = fn;
    t->ctx = task_ctx;
    if (t->inner) return t->inner->run_graph ? t->inner->run_graph(timed_fn, g, t, t->inner->user) : -1;
    if (n > GRAPH_MAX) return -1;
    int pend[GRAPH_MAX];
    char done[GRAPH_MAX];
    double dur[GRAPH_MAX], ready[GRAPH_MAX];
    for (int i = 0; i < n; i++) {
        pend[i] = g->ndeps[i];
        done[i] = 0;
    }
    for (int k = 0; k < n; k++) {
        int i = 0;
        while (i < n && (done[i] || pend[i])) i++;
        if (i == n) {
            fprintf(stderr, "bench_sand: the tick's graph has a cycle\n");
            exit(1);
        }
        timed_fn(i, i + 1, 0, t);
        dur[i] = t->last;
        done[i] = 1;
        for (int e = g->succ_first[i]; e < g->succ_first[i + 1]; e++) pend[g->succ[e]]--;
    }
    double free_at[2] = { 0, 0 }, end = 0;
    for (int i = 0; i < n; i++) {
        pend[i] = g->ndeps[i];
        done[i] = 0;
        ready[i] = 0;
    }
    for (int k = 0; k < n; k++) {
        int w = free_at[0] <= free_at[1] ? 0 : 1, best = -1;
        double start = 0;
        for (int i = 0; i < n; i++) {
            if (done[i] || pend[i]) continue;
            double s0 = ready[i] > free_at[w] ? ready[i] : free_at[w];
            if (best < 0 || s0 < start) {
                best = i;
                start = s0;
            }
        }
        double fin = start + dur[best];
        free_at[w] = fin;
        done[best] = 1;
        if (fin > end) end = fin;
        for (int e = g->succ_first[best]; e < g->succ_first[best + 1]; e++) {
            int j = g->succ[e];
            pend[j]--;
            if (fin > ready[j]) ready[j] = fin;
        }
    }
    t->bound += end;
    return 0;
}

static void timed_finish(void *task, void *user)
{
    timed_tasks *t = user;
    if (t->inner && t->inner->finish) t->inner->finish(task, t->inner->user);
}

static void timed_init(timed_tasks *t, const sim_tasks *inner)
{
    memset(t, 0, sizeof *t);
    t->inner = inner;
    t->outer.workers = 2;              /* so that the world hands its passes to enqueue */
    t->outer.enqueue = timed_enqueue;
    t->outer.finish = timed_finish;
    t->outer.run_graph = timed_run_graph;
    t->outer.user = t;
}

/* The item time in the fastest CPU's seconds: each CPU's share scaled by its speed against the
 * fastest (speed[cpu]: its ticks/s alone; 0 where not measured, taken as the fastest). */
static double timed_busy_scaled(const timed_tasks *t, const double *speed, double fast)
{
    double b = 0;
    for (int i = 0; i < CPU_SLOTS; i++)
        b += (double)atomic_load(&t->cpu[i].ns) * 1e-9 * (speed[i] > 0 && fast > 0 ? speed[i] / fast : 1.0);
    return b;
}

/* Core-to-core round trip: two threads pass a counter back and forth through one cache line. */
static _Atomic long pingpong;
#define PINGPONG_ROUNDS 200000L

static void *pong(void *arg)
{
    (void)arg;
    for (long i = 1; i < 2 * PINGPONG_ROUNDS; i += 2) {
        while (atomic_load_explicit(&pingpong, memory_order_acquire) != i) { }
        atomic_store_explicit(&pingpong, i + 1, memory_order_release);
    }
    return NULL;
}

static double round_trip_ns(void)
{
    pthread_t th;
    atomic_store(&pingpong, 0);
    if (pthread_create(&th, NULL, pong, NULL) != 0) return 0;
    double t0 = bench_now();
    for (long i = 0; i < 2 * PINGPONG_ROUNDS; i += 2) {
        while (atomic_load_explicit(&pingpong, memory_order_acquire) != i) { }
        atomic_store_explicit(&pingpong, i + 1, memory_order_release);
    }
    double dt = bench_now() - t0;
    pthread_join(th, NULL);
    return dt * 1e9 / (double)PINGPONG_ROUNDS;
}

/* A case on a thread of its own, pinned to one CPU, with its own world and no pool. */
typedef struct copy_arg {
    const bcase *c;
    int cpu;
    result r;
} copy_arg;

static void *run_copy(void *arg)
{
    copy_arg *a = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(a->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) a->cpu = -1;   /* not pinned */
    a->r = run_once(a->c, NULL, NULL);
    return NULL;
}

/* Run copies[0..n) at once, each on its own pinned thread; keep each one's best in best[]. */
static void run_copies(copy_arg *copies, int n, result *best)
{
    pthread_t th[MAX_CPUS];
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, run_copy, &copies[i]) != 0) {
            fprintf(stderr, "bench_sand: cannot start a thread\n");
            exit(1);
        }
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        keep_best(&best[i], copies[i].r, copies[i].c->name);
    }
}

/* Table 4, for the bench scene: what bounds a speed-up on 2 workers here, each part measured.
 * The hardware: each CPU's speed at the single-threaded case, alone and with every CPU busy at
 * once (virtual CPUs are not always equal: a host can give one of them half a core). The
 * balance: the best a 2-worker schedule of the 1-worker item times could do. And the cost of
 * one hand-over between cores. */
static void limits(const bcase *c, int reps, pool *two)
{
    cpu_set_t allowed;
    int cpus[MAX_CPUS], n = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int i = 0; i < CPU_SETSIZE && n < MAX_CPUS; i++)
            if (CPU_ISSET(i, &allowed)) cpus[n++] = i;
    double rt = 1e30;
    for (int i = 0; i < 3 && n > 1; i++) {      /* on one CPU, each turn would wait for a slice */
        double v = round_trip_ns();
        if (v > 0 && v < rt) rt = v;
    }
    result alone[MAX_CPUS], busy[MAX_CPUS];
    memset(alone, 0, sizeof alone);
    memset(busy, 0, sizeof busy);
    double bound = 1e30, secs1 = 1e30, busy1 = 1e30, busy2 = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        copy_arg copies[MAX_CPUS];
        for (int i = 0; i < n; i++) {
            copy_arg one = { .c = c, .cpu = cpus[i] };
            run_copies(&one, 1, &alone[i]);
            if (one.cpu < 0) n = 0;            /* cannot pin: no per-CPU rows */
        }
        for (int i = 0; i < n; i++) copies[i] = (copy_arg){ .c = c, .cpu = cpus[i] };
        if (n > 1) run_copies(copies, n, busy);
    }
    double fast = 0, top[2] = { 0, 0 };
    for (int i = 0; i < n; i++) {
        if (tps(alone[i]) > fast) fast = tps(alone[i]);
        double v = n > 1 ? tps(busy[i]) : 0;
        if (v > top[0]) { top[1] = top[0]; top[0] = v; }
        else if (v > top[1]) top[1] = v;
    }
    double speed[CPU_SLOTS] = { 0 };
    for (int i = 0; i < n; i++)
        if (cpus[i] < CPU_SLOTS) speed[cpus[i]] = tps(alone[i]);
    for (int rep = 0; rep < reps; rep++) {
        /* Item times on 1 worker, inline and item by item, for the balance bound. */
        timed_tasks *t = malloc(sizeof *t);
        if (!t) exit(1);
        timed_init(t, NULL);
        result r1 = run_once(c, &t->outer, NULL);
        if (r1.secs < secs1) {
            secs1 = r1.secs;
            bound = t->bound + (r1.secs - timed_busy(t));   /* the rest runs on one thread */
        }
        if (timed_busy_scaled(t, speed, fast) < busy1) busy1 = timed_busy_scaled(t, speed, fast);
        /* The same items timed alike on the pool's 2 workers: their total against this. */
        timed_init(t, pool_tasks(two));
        result r2 = run_once(c, &t->outer, NULL);
        if (timed_busy_scaled(t, speed, fast) < busy2) busy2 = timed_busy_scaled(t, speed, fast);
        if (r1.check != r2.check) {
            fprintf(stderr, "bench_sand: %s: 1 and 2 timed workers end in different states!\n", c->name);
            exit(1);
        }
        free(t);
    }
    double hw = n > 1 && fast > 0 ? (top[0] + top[1]) / fast : 0;
    double balance = secs1 / bound;
    printf("\nWhat bounds the 2-worker speed-up of the %s on this machine (best of %d each):\n\n",
           c->label, reps);
    printf("| measure | value | bound on the speed-up |\n|---|---|---|\n");
    for (int i = 0; i < n; i++)
        printf("| CPU %d: the single-threaded case pinned there, alone / with every CPU running a copy "
               "| %.0f / %.0f ticks/s | - |\n", cpus[i], tps(alone[i]), n > 1 ? tps(busy[i]) : 0.0);
    if (n > 1)
        printf("| the two fastest CPUs running at once, against the fastest alone | %.0f + %.0f of "
               "%.0f ticks/s | %.2fx (the hardware) |\n", top[0], top[1], fast, hw);
    else
        printf("| per-CPU speeds | not measured (%s) | - |\n",
               n == 1 ? "one CPU" : "threads cannot be pinned here");
    printf("| each tick's 1-worker item times scheduled on 2 equal workers in the order its graph "
           "allows | "
           "%.1f ms of %.1f ms | %.2fx (the balance) |\n", bound * 1e3, secs1 * 1e3, balance);
    double inflation = busy2 / busy1;
    printf("| time inside the strips, 2 workers against 1 (the same strips, timed alike, each CPU's share "
           "scaled to the fastest CPU's speed): what moving their cells between the cores costs | "
           "%.1f ms against %.1f ms: %.2fx | - |\n",
           busy2 * 1e3, busy1 * 1e3, inflation);
    if (rt < 1e30)
        printf("| core-to-core round trip (two threads passing one cache line), the cost of a "
               "hand-over | %.0f ns | - |\n", rt);
    else
        printf("| core-to-core round trip | not measured (one CPU) | - |\n");
    /* Every item slower by the inflation: no more than the hardware's capacity (in fastest-CPU
     * units) over it, nor the balance over it. */
    double ceiling = (hw > 0 && hw < balance ? hw : balance) / inflation;
    printf("\nCeiling from these (the lower of the hardware and the balance, over the inflation), "
           "before any cost of handing out the work: %.2fx, against the goal of 1.70x.%s\n",
           ceiling, hw > 0 && hw < 1.8 ? " The CPUs here are not equal: two workers can at best add "
           "the slower one's speed to the faster one's." : "");
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
    /* The same pool with the tick's strips in three phase passes, as before graphs (sim.h): what
     * the graph gains, measured in the same run. */
    sim_tasks phased = *pool_tasks(two);
    phased.run_graph = NULL;
    result one_w[NCASES], two_w[NCASES], two_p[NCASES];
    memset(one_w, 0, sizeof one_w);
    memset(two_w, 0, sizeof two_w);
    memset(two_p, 0, sizeof two_p);
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
                keep_best(&two_p[i], run_once(&cases[i], &phased, NULL), cases[i].name);
            }
            if (a.check != b.check || one_w[i].check != two_w[i].check ||
                (rep < reps && two_p[i].check != one_w[i].check)) {
                fprintf(stderr, "bench_sand: %s: 1 and 2 workers end in different states!\n",
                        cases[i].name);
                return 1;
            }
        }
    }
    long losses = pool_losses(two);

    printf("Single-threaded step (passes inline), best of %d:\n\n", reps);
    printf("| case | ticks | ticks/s | us/tick | active cells/tick | ns/active cell | vs goal |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < NCASES; i++)
        if (!skip(only, i)) row(cases[i].label, one_w[i], cases[i].goal);

    printf("\nParallel passes, 2 workers against 1 (alternated; the same final state). Whole runs: best "
           "of %d each. Blocks: each %d-tick block's best of %d runs, summed:\n\n", reps, BLOCK,
           block_reps);
    printf("| case | 1 worker ticks/s | 2 workers ticks/s | speed-up | blocks: 1 worker | 2 workers | speed-up | vs goal | 2 workers, phase passes: ticks/s | speed-up |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
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
        /* Met only when both say so: a whole run's 1-worker best can come from a CPU that was
         * slower for the while (table 4 shows it), and then the whole runs alone read high. */
        if (i == 0)
            snprintf(vs, sizeof vs, "whole %.2fx, blocks %.2fx of 1.70x (%s)", s, b1 / b2,
                     s >= 1.7 && b1 / b2 >= 1.7 ? "met"
                     : s >= 1.7 || b1 / b2 >= 1.7 ? "the two disagree: not met" : "MISSED");
        printf("| %-44s | %8.0f | %8.0f | %5.2fx | %8.0f | %8.0f | %5.2fx | %s | %8.0f | %5.2fx |\n",
               cases[i].label, tps(one_w[i]), tps(two_w[i]), s, bt / b1, bt / b2, b1 / b2, vs,
               tps(two_p[i]), tps(two_p[i]) / tps(one_w[i]));
    }
    free(blocks);
    printf("\nPasses and tick graphs the pool counted as losses (it waited for a worker longer "
           "than it worked; each sends the next ones inline for a while): %ld. Many mean the "
           "machine was too busy "
           "to run the second worker when it was needed.\n", losses);
    if (!skip(only, 0)) limits(&cases[0], reps, two);
    pool_destroy(two);

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
