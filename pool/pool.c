/* pool.c — the worker pool behind sim_tasks (pool.h).
 *
 * One pass is published at a time, as one 64-bit claim word: | generation 24 | count 20 | next 20 |.
 * A worker claims the range [next, next + range) with a compare-and-swap on the whole word, so a
 * worker that read the word of one pass and was delayed can never claim items of the next one:
 * the generation (or the count, or next) has changed and its swap fails. The pass's function,
 * context and range sit beside the word; they are rewritten only after every item of the previous
 * pass is done, which needs every item claimed, which changed the word: so a swap that succeeds
 * proves that what the worker read beside it belongs to the same pass.
 *
 * Waiting: a worker with nothing to claim spins for SPIN_NS (the next pass of a tick follows
 * within microseconds), then sleeps on `wake`; the submitter, once nothing is left to claim,
 * spins for the items still running elsewhere, then sleeps on `finished`. Both sleeps use the
 * same pattern against lost wake-ups: the sleeper announces itself (an atomic counter or flag),
 * then re-checks under the mutex; the waker changes the state, then looks for sleepers and
 * signals under the mutex — except that enqueue only tries the mutex (see there). All atomics are
 * sequentially consistent unless marked.
 *
 * Backing off: on a machine with more runnable threads than CPUs, a worker can be descheduled
 * holding an item, and the submitter then waits for it far longer than the item takes. When the
 * submitter waits for the others longer than it worked itself (and more than BACKOFF_MIN_NS),
 * the pass was a loss: the next passes run inline, 4 of them, then 8, 16, … up to BACKOFF_MAX
 * while losses repeat; a pass that is not a loss ends the backing off. Where a pass runs never
 * changes its result. */
#include "pool.h"
#include <stdio.h>
#include <stdlib.h>

/* WASI without threads (the wasm32 build of the determinism matrix, tests/cross.sh) has no
 * pthreads: there a pool is always one worker and every pass runs inline on the caller. */
#if defined(__wasi__) && !defined(_REENTRANT)
#define POOL_NO_THREADS 1
#endif

int pool_parse_workers(const char *what, const char *text, int *out, char *err, size_t errlen)
{
    char *end = NULL;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end || v < 1 || v > POOL_WORKERS_MAX) {
        snprintf(err, errlen, "%s must be a whole number of workers in 1..%d (1 runs every pass on "
                 "the stepping thread), got '%s'", what, POOL_WORKERS_MAX, text ? text : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

#ifdef POOL_NO_THREADS
struct pool {
    int workers;
};

void pool_adaptive(pool *p, int on) { (void)p; (void)on; }
long pool_losses(const pool *p) { (void)p; return 0; }
int pool_default_workers(void) { return 1; }
int pool_workers(const pool *p) { return p ? p->workers : 1; }
const sim_tasks *pool_tasks(const pool *p) { (void)p; return NULL; }
void pool_destroy(pool *p) { free(p); }

int pool_create(int workers, pool **out, char *err, size_t errlen)
{
    *out = NULL;
    if (workers != 1) {
        snprintf(err, errlen, "this build has no threads: a pool has 1 worker, not %d (use --threads 1)",
                 workers);
        return -1;
    }
    pool *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory for a pool");
        return -1;
    }
    p->workers = 1;
    *out = p;
    return 0;
}
#else
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS 100000L            /* 100 µs: longer than the gap between two passes of a tick,
                                      short against a tick at 60 Hz (0.6% of it) */
#define BACKOFF_MIN_NS 20000L     /* a wait shorter than this is never a loss */
#define WAIT_SPIN_NS 20000L       /* a graph's runner waiting this long for an item starts to yield */
#define BACKOFF_MAX 256             /* passes run inline at most, after repeated losses */
#define CW_BITS 20
#define CW_MASK ((UINT64_C(1) << CW_BITS) - 1)
#define GEN_MASK ((UINT64_C(1) << (64 - 2 * CW_BITS)) - 1)
#define ITEMS_MAX ((int)CW_MASK)   /* a pass of more items runs inline */
#define GRAPH_ITEMS_MAX 4096        /* a graph of more items is declined (sand: 40 at 640 wide) */

struct pool {
    int workers;                    /* as created: threads + the caller */
    int nthreads;
    int yield;                      /* more workers than CPUs: yield while spinning */
    pthread_t *th;
    sim_tasks tasks;
    pthread_mutex_t submit;         /* held from enqueue to finish: one pass at a time */
    pthread_mutex_t mu;             /* for the two condition variables */
    pthread_cond_t wake;            /* idle workers sleep here */
    pthread_cond_t finished;        /* the submitter sleeps here */
    atomic_int sleepers;            /* workers asleep (or about to be) on wake */
    atomic_int waiting;             /* the submitter is asleep (or about to be) on finished */
    atomic_int stop;
    /* the pass */
    _Atomic uint64_t claim;
    _Atomic(sim_task_fn *) fn;
    _Atomic(void *) ctx;
    atomic_int range;
    atomic_int done;                /* items finished */
    uint64_t gen;                   /* the submitter's: generation of the last pass */
    int count;                      /* the submitter's: items of the pass */
    int adaptive;                   /* back off after losses (pool_adaptive) */
    int backoff, skip;              /* the submitter's: passes to run inline, after losses */
    long losses;                    /* passes that were losses (pool_losses) */
    /* the graph being run (pool_run_graph; written under `submit` before its pass is published) */
    sim_task_fn *gfn;
    const sim_graph *g;
    void *gctx;
    int grunners;                   /* the pass's items: one runner each */
    atomic_int gunclaimed;          /* items of the graph no runner has taken yet */
    atomic_int *gpending;           /* per item: predecessors not done yet */
    atomic_uchar *gclaimed;         /* per item: taken by a runner */
    long gwaited;                   /* ns the caller's runner spent waiting for predecessors */
};

static inline uint64_t cw_count(uint64_t w) { return (w >> CW_BITS) & CW_MASK; }
static inline uint64_t cw_next(uint64_t w) { return w & CW_MASK; }

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)(t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

static int available(pool *p)
{
    uint64_t w = atomic_load(&p->claim);
    return cw_next(w) < cw_count(w);
}

/* Mark n items done; the one who finishes the pass wakes a sleeping submitter. The count comes
 * from the claim word, not the submitter's own field: once done reaches it, the submitter may
 * publish the next pass at any moment, and reading the new word then costs at most a spurious
 * broadcast (the submitter re-checks; and it publishes only after seeing the pass done, so it
 * is not waiting for a signal this could miss). */
static void items_done(pool *p, int n)
{
    int before = atomic_fetch_add(&p->done, n);
    uint64_t w = atomic_load_explicit(&p->claim, memory_order_relaxed);
    if ((uint64_t)(before + n) == cw_count(w) && atomic_load(&p->waiting)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->finished);
        pthread_mutex_unlock(&p->mu);
    }
}

/* Claim and run ranges of the current pass until none is left. Returns the ranges run. */
static int run_claims(pool *p, int worker)
{
    int ran = 0;
    uint64_t w = atomic_load_explicit(&p->claim, memory_order_acquire);
    for (;;) {
        uint64_t count = cw_count(w), next = cw_next(w);
        if (next >= count) return ran;
        sim_task_fn *fn = atomic_load_explicit(&p->fn, memory_order_relaxed);
        void *ctx = atomic_load_explicit(&p->ctx, memory_order_relaxed);
        uint64_t end = next + (uint64_t)atomic_load_explicit(&p->range, memory_order_relaxed);
        if (end > count) end = count;
        if (!atomic_compare_exchange_weak_explicit(&p->claim, &w, (w & ~CW_MASK) | end,
                                                   memory_order_acq_rel, memory_order_acquire))
            continue;                   /* w now holds the current word: try again */
        fn((int)next, (int)end, worker, ctx);
        items_done(p, (int)(end - next));
        ran++;
        w = atomic_load_explicit(&p->claim, memory_order_acquire);
    }
}

/* Spin until a pass has items to claim (1), or SPIN_NS has passed or the pool stops (0). */
static int spin_for_work(pool *p)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 1;; i++) {
        if (available(p)) return 1;
        if (atomic_load_explicit(&p->stop, memory_order_relaxed)) return 0;
        cpu_relax();
        if ((i & 63) == 0) {
            if (elapsed_ns(&t0) >= SPIN_NS) return 0;
            if (p->yield) sched_yield();
        }
    }
}

typedef struct worker_arg {
    pool *p;
    int index;
} worker_arg;

static void *worker_main(void *arg)
{
    pool *p = ((worker_arg *)arg)->p;
    int index = ((worker_arg *)arg)->index;
    free(arg);
    for (;;) {
        if (run_claims(p, index)) continue;
        if (spin_for_work(p)) continue;
        pthread_mutex_lock(&p->mu);
        atomic_fetch_add(&p->sleepers, 1);
        while (!atomic_load(&p->stop) && !available(p)) pthread_cond_wait(&p->wake, &p->mu);
        atomic_fetch_sub(&p->sleepers, 1);
        int stop = atomic_load(&p->stop);
        pthread_mutex_unlock(&p->mu);
        if (stop) return NULL;
    }
}

/* Publish a pass (the caller holds `submit`) and wake the sleepers. */
static void publish(pool *p, sim_task_fn *fn, int count, int min_range, void *task_ctx)
{
    p->count = count;
    atomic_store_explicit(&p->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&p->ctx, task_ctx, memory_order_relaxed);
    atomic_store_explicit(&p->range, min_range < 1 ? 1 : min_range, memory_order_relaxed);
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    p->gen = (p->gen + 1) & GEN_MASK;
    /* The release in this store publishes everything above to whoever reads the word. */
    atomic_store(&p->claim, (p->gen << (2 * CW_BITS)) | ((uint64_t)count << CW_BITS));
    /* Wake the sleepers, if the mutex is free. The stepping thread never blocks on it here: a
     * worker descheduled while it holds the mutex (going to sleep) would stall the tick for as
     * long as the machine keeps it waiting. A wake-up skipped is safe: a worker that sleeps
     * through this pass has claimed nothing of it, so nothing waits for it; the caller runs the
     * items itself, and the next pass wakes it. */
    if (atomic_load(&p->sleepers) > 0 && pthread_mutex_trylock(&p->mu) == 0) {
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }
}

/* sim_tasks.enqueue: publish the pass, or run it inline (NULL) if it is too small for the pool,
 * too large for the claim word, or another thread's pass is running. */
static void *pool_enqueue(sim_task_fn *fn, int count, int min_range, void *task_ctx, void *user)
{
    pool *p = user;
    if (count <= 0) return NULL;
    if (p->nthreads == 0 || count == 1 || count > ITEMS_MAX || pthread_mutex_trylock(&p->submit) != 0) {
        fn(0, count, 0, task_ctx);
        return NULL;
    }
    if (p->skip > 0) {                  /* backing off after a loss */
        p->skip--;
        pthread_mutex_unlock(&p->submit);
        fn(0, count, 0, task_ctx);
        return NULL;
    }
    publish(p, fn, count, min_range, task_ctx);
    return p;
}

/* sim_tasks.finish: run what is left of the pass on the caller (worker 0), then wait for the
 * items still running on other workers. */
static void pool_finish(void *task, void *user)
{
    pool *p = user;
    (void)task;
    struct timespec s0, t0;
    clock_gettime(CLOCK_MONOTONIC, &s0);
    run_claims(p, 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* A graph's runner on this thread may have waited for predecessors (gwaited; 0 for a
     * plain pass): that counts as waiting, not as work. */
    long own = (long)(t0.tv_sec - s0.tv_sec) * 1000000000L + (t0.tv_nsec - s0.tv_nsec) - p->gwaited;
    for (unsigned i = 1; atomic_load(&p->done) != p->count; i++) {
        cpu_relax();
        if ((i & 63) == 0 && elapsed_ns(&t0) >= SPIN_NS) {
            atomic_store(&p->waiting, 1);
            pthread_mutex_lock(&p->mu);
            while (atomic_load(&p->done) != p->count) pthread_cond_wait(&p->finished, &p->mu);
            pthread_mutex_unlock(&p->mu);
            atomic_store(&p->waiting, 0);
            break;
        }
    }
    long waited = elapsed_ns(&t0) + p->gwaited;
    p->gwaited = 0;
    if (p->adaptive && waited > own && waited > BACKOFF_MIN_NS) {
        p->losses++;
        p->backoff = p->backoff ? (p->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : p->backoff * 2) : 4;
        p->skip = p->backoff;
    } else {
        p->backoff = 0;
    }
    pthread_mutex_unlock(&p->submit);
}

/* ---- graphs (sim_tasks.run_graph) ---------------------------------------------------------------
 * A graph runs as one pass of `grunners` items, one per runner. A runner on worker w of W has a
 * home among the graph's items, w (count - 1) ÷ (W - 1) of the way along, and takes the ready item
 * nearest to it (all predecessors done, nobody else's yet): with 2 workers, one works up from the
 * first item and the other down from the last, each on its own side of the memory, and they meet
 * wherever the work balances. The home belongs to the thread, not to the pass item it claimed:
 * the spinning worker claims item 0 of the pass first in about nine ticks of ten and the caller
 * in the tenth, and a home that went with the item swapped the two sides on those ticks. A runner with no ready item spins; what it waits for is running on
 * another runner, never waiting itself, so the graph always finishes. A runner returns once
 * every item is taken; the pass (and so the graph) is done when every runner has returned. A
 * runner whose item of the pass no thread claimed in time is run by the caller, and finds
 * nothing left to take. */
static void graph_runner(pool *p, int worker)
{
    const sim_graph *g = p->g;
    int n = g->count;
    int home = p->workers > 1 ? (int)((long)worker * (n - 1) / (p->workers - 1)) : 0;
    unsigned spins = 0;
    struct timespec w0;
    while (atomic_load(&p->gunclaimed) > 0) {
        int got = -1;
        for (int d = 0; d < n && got < 0; d++)
            for (int side = d == 0; side < 2; side++) {
                int i = side ? home - d : home + d;
                if (i < 0 || i >= n || atomic_load_explicit(&p->gclaimed[i], memory_order_relaxed) ||
                    atomic_load_explicit(&p->gpending[i], memory_order_acquire) != 0)
                    continue;
                unsigned char free_ = 0;
                if (atomic_compare_exchange_strong(&p->gclaimed[i], &free_, 1)) {
                    got = i;
                    break;
                }
            }
        if (got < 0) {
            /* What this waits for runs on another thread. After WAIT_SPIN_NS, yield on every
             * turn: on a machine with fewer free CPUs than workers (or a pinned process), that
             * thread may be waiting for this one's CPU. */
            if (spins++ == 0) clock_gettime(CLOCK_MONOTONIC, &w0);
            cpu_relax();
            if ((spins & 63) == 0 && (p->yield || elapsed_ns(&w0) >= WAIT_SPIN_NS)) sched_yield();
            continue;
        }
        if (spins) {
            if (worker == 0) p->gwaited += elapsed_ns(&w0);
            spins = 0;
        }
        atomic_fetch_sub(&p->gunclaimed, 1);
        p->gfn(got, got + 1, worker, p->gctx);
        for (int e = g->succ_first[got]; e < g->succ_first[got + 1]; e++)
            atomic_fetch_sub_explicit(&p->gpending[g->succ[e]], 1, memory_order_release);
    }
}

/* A pass item is one runner; a thread that claims a range of them needs to run only one, since a
 * runner returns once every item of the graph is taken. */
static void graph_item(int start, int end, int worker, void *c)
{
    (void)start;
    (void)end;
    graph_runner(c, worker);
}

/* sim_tasks.run_graph: -1 (nothing run) when the pool has no threads, the graph is too large for
 * its scratch, or another thread's pass is running; the world then runs its own other way. */
static int pool_run_graph(sim_task_fn *fn, const sim_graph *g, void *task_ctx, void *user)
{
    pool *p = user;
    if (g->count <= 0) return 0;
    if (p->nthreads == 0 || g->count > GRAPH_ITEMS_MAX || pthread_mutex_trylock(&p->submit) != 0)
        return -1;
    p->gfn = fn;
    p->g = g;
    p->gctx = task_ctx;
    p->grunners = g->count < p->workers ? g->count : p->workers;
    for (int i = 0; i < g->count; i++) {
        atomic_store_explicit(&p->gpending[i], g->ndeps[i], memory_order_relaxed);
        atomic_store_explicit(&p->gclaimed[i], 0, memory_order_relaxed);
    }
    atomic_store_explicit(&p->gunclaimed, g->count, memory_order_relaxed);
    p->gwaited = 0;
    if (p->skip > 0 || p->grunners == 1) {          /* backing off after a loss, or one runner */
        if (p->skip > 0) p->skip--;
        graph_runner(p, 0);
        pthread_mutex_unlock(&p->submit);
        return 0;
    }
    publish(p, graph_item, p->grunners, 1, p);      /* its release publishes the graph too */
    pool_finish(p, p);                              /* unlocks `submit` */
    return 0;
}

void pool_adaptive(pool *p, int on)
{
    if (p) p->adaptive = on;
}

long pool_losses(const pool *p) { return p ? p->losses : 0; }

int pool_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > POOL_DEFAULT_MAX ? POOL_DEFAULT_MAX : (int)n;
}


int pool_workers(const pool *p) { return p ? p->workers : 1; }

const sim_tasks *pool_tasks(const pool *p)
{
    return p && p->nthreads > 0 ? &p->tasks : NULL;
}

static void pool_free(pool *p)
{
    pthread_mutex_destroy(&p->submit);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->finished);
    free(p->th);
    free(p->gpending);
    free(p->gclaimed);
    free(p);
}

void pool_destroy(pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->th[i], NULL);
    pool_free(p);
}

int pool_create(int workers, pool **out, char *err, size_t errlen)
{
    *out = NULL;
    if (workers < 1 || workers > POOL_WORKERS_MAX) {
        snprintf(err, errlen, "a pool has 1..%d workers, not %d", POOL_WORKERS_MAX, workers);
        return -1;
    }
    pool *p = calloc(1, sizeof *p);
    if (!p || !(p->th = calloc((size_t)workers, sizeof *p->th)) ||
        !(p->gpending = calloc(GRAPH_ITEMS_MAX, sizeof *p->gpending)) ||
        !(p->gclaimed = calloc(GRAPH_ITEMS_MAX, sizeof *p->gclaimed))) {
        if (p) {
            free(p->th);
            free(p->gpending);
        }
        free(p);
        snprintf(err, errlen, "out of memory for a pool of %d workers", workers);
        return -1;
    }
    p->workers = workers;
    p->adaptive = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    p->yield = ncpu > 0 && workers > ncpu;
    pthread_mutex_init(&p->submit, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->finished, NULL);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->waiting, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->claim, 0);
    atomic_init(&p->fn, NULL);
    atomic_init(&p->ctx, NULL);
    atomic_init(&p->range, 1);
    atomic_init(&p->done, 0);
    atomic_init(&p->gunclaimed, 0);
    for (int i = 0; i < GRAPH_ITEMS_MAX; i++) {
        atomic_init(&p->gpending[i], 0);
        atomic_init(&p->gclaimed[i], 0);
    }
    p->tasks.workers = workers;
    p->tasks.enqueue = pool_enqueue;
    p->tasks.finish = pool_finish;
    p->tasks.run_graph = pool_run_graph;
    p->tasks.user = p;
    /* The workers take no signals: the host's own threads handle them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = 0;
    for (int i = 1; i < workers; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a) {
            rc = -1;
            break;
        }
        a->p = p;
        a->index = i;
        if ((rc = pthread_create(&p->th[p->nthreads], NULL, worker_main, a)) != 0) {
            free(a);
            break;
        }
        p->nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start worker thread %d of %d: %s", p->nthreads + 1,
                 workers - 1, rc > 0 ? strerror(rc) : "out of memory");
        pool_destroy(p);
        return -1;
    }
    *out = p;
    return 0;
}
#endif /* POOL_NO_THREADS */
