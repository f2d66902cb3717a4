/* pool.h — a worker pool that runs a world's parallel passes: the host side of sim_tasks (sim.h),
 * in the manner of the enkiTS scheduler behind Box2D v3's enqueueTask/finishTask.
 *
 * A pool of N workers is N - 1 threads plus the caller: the thread that steps a world publishes a
 * pass (enqueue), then runs items of it itself until none is left unclaimed, and waits for the
 * items the other workers are still running (finish). Idle workers spin for a short while after
 * their last item (the next pass of the same tick usually follows within microseconds), then
 * sleep on a condition variable until the next pass is published. The pool never allocates after
 * pool_create, and the result of a pass never depends on which worker ran which item.
 *
 * A graph (sim_graph: items ordered by what they share; for sand, the strips of a whole tick) runs
 * as one pass of one runner per worker: each runner has a home at its own end of the items and
 * takes the ready item nearest to it, so each worker's memory stays on its core (pool.c).
 *
 * One pass runs at a time. A second thread that enqueues while the pool is busy (two verifier
 * threads sharing a pool, say) runs its pass inline and gets NULL back, which sim_tasks allows.
 * On a machine too busy to run the workers when they are needed (the submitter waits for them
 * longer than it worked itself), the pool backs off and runs the next passes inline for a while
 * (pool_adaptive). None of this can change a result: only where the items run.
 *
 * Layering: pool/ sees sim/ alone (for sim_tasks); replay/, server/ and clients/ may link it. */
#ifndef VIVARIUM_POOL_H
#define VIVARIUM_POOL_H
#include <stddef.h>
#include "sim.h"

#define POOL_WORKERS_MAX SIM_WORKERS_MAX
#define POOL_DEFAULT_MAX 8         /* the default never exceeds this many workers (sand: ~7 strips
                                      a phase at 320 wide, so more would only wait) */

typedef struct pool pool;

/* The default worker count: the number of online CPUs, at most POOL_DEFAULT_MAX, at least 1. */
int pool_default_workers(void);

/* Parse a --threads value: an integer in 1..POOL_WORKERS_MAX. 0, or -1 with a sentence in err
 * naming the option (`what`, e.g. "--threads"). */
int pool_parse_workers(const char *what, const char *text, int *out, char *err, size_t errlen);

/* Start a pool of `workers` workers (1..POOL_WORKERS_MAX): workers - 1 threads. 1 starts no
 * thread (every pass then runs inline). 0, or -1 with a sentence in err; *out is NULL then. */
int pool_create(int workers, pool **out, char *err, size_t errlen);

/* Stop and join the threads and free the pool. No pass may be running. NULL is allowed. */
void pool_destroy(pool *p);

int pool_workers(const pool *p);    /* N as created (1 for NULL) */

/* The sim_tasks that run passes on this pool, for sim_config.tasks / sim_world_set_tasks; NULL
 * for a NULL pool or a pool of one worker (inline). Valid until pool_destroy. */
const sim_tasks *pool_tasks(const pool *p);

/* Backing off after passes that lost time (on by default); off, every pass of more than one item
 * is handed to the workers, for tests that count the ranges. pool_losses: passes that were losses
 * so far (a pass counts when the submitter waited for the others longer than it worked, and more
 * than 20 µs). */
void pool_adaptive(pool *p, int on);
long pool_losses(const pool *p);

#endif
