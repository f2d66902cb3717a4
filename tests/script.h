/* script.h — the world helpers the suites share: the world builder, an inputs file read into a
 * script (the format `viv sim --inputs` reads), fed to a world tick by tick, a run checked against
 * a committed chain of `tick state-hash frame-hash` lines (written by tests/golden.sh), every
 * kind's golden run from tests/golden/<kind>.{args,inputs,chain}, and GGPO's sync test. */
#ifndef VIV_TEST_SCRIPT_H
#define VIV_TEST_SCRIPT_H
#include <stddef.h>
#include "sim.h"

typedef struct script {
    sim_input *v;
    size_t n;
} script;

/* Read PATH (relative to tests/) as inputs for KIND; a line the parser refuses fails the test
 * with `path:line: reason`. Each input's seq is its line number. */
script script_load(const char *kind, const char *path);
void script_free(script *s);

/* Queue every input of s for w's next tick, from *next on; each must be accepted. */
void script_feed(sim_world *w, const script *s, size_t *next);

/* Step w for `ticks` ticks, fed by s, and every `every` ticks compare its state hash and view-0
 * frame hash with the next line of CHAIN. Fails the test on the first difference, on a short
 * chain, or if an input of s was never applied; returns the lines compared. */
int script_golden(sim_world *w, const script *s, const char *chain, int ticks, int every);

/* The world builder: a world of KIND from SEED and PARAMS (NULL or "" for the defaults). A create
 * failure fails the test with the world's sentence. */
sim_world *script_world(const char *kind, uint64_t seed, const char *params);

/* One input given as text ("paint 10 20 5 sand": an inputs-file line without its tick) for w's
 * next tick, with a seq of its own (one counter for every world of the process); a line the
 * kind refuses fails the test. script_input queues it (it must be accepted). */
sim_input script_input_of(const sim_world *w, const char *text);
void script_input(sim_world *w, const char *text);

/* A kind's golden run, read from tests/golden/<kind>.args: the viv sim options besides --world,
 * --inputs and --every (--seed, --ticks, --params; '#' lines are comments). Chains are written
 * every 100 ticks, and the run's working directory is tests/golden/ (a scene=file: path in the
 * params is relative to it). */
#define SCRIPT_GOLDEN_EVERY 100
typedef struct script_golden_args {
    uint64_t seed;
    int ticks;
    char params[SIM_PARAMS_MAX];
} script_golden_args;
script_golden_args script_golden_args_load(const char *kind);

/* The world of KIND's golden run, built as tests/golden.sh builds it (files read from tests/golden/). */
sim_world *script_golden_world(const char *kind, const script_golden_args *a);

/* The golden test of KIND: its world from golden/<kind>.args, fed golden/<kind>.inputs, checked
 * against golden/<kind>.chain every SCRIPT_GOLDEN_EVERY ticks; fails the test on any difference.
 * Returns the lines compared (ticks / 100). If out is not NULL it receives the world after the
 * run, for the caller's own checks (the caller destroys it); otherwise the world is destroyed.
 * KIND may also name another golden run of a kind, <kind>-<name> (tests/golden.sh). */
int script_golden_kind(const char *kind, sim_world **out);
/* The same with the world's parallel passes run by `tasks` (NULL: inline): the chain must be the
 * same whatever runs them. */
int script_golden_kind_on(const char *kind, const sim_tasks *tasks, sim_world **out);

/* A task system for tests (sim_tasks) that runs every pass on the calling thread, one item at a
 * time, in an order no pool would choose: backwards, or shuffled (a fixed sequence per runner).
 * It claims `workers` workers and hands each item one of their indices. before/after (may be
 * NULL) are called around every item, for checks of what an item touches. With `graphs` set
 * (script_runner_graphs), it runs graphs (sim_graph) too, in an order the graph allows and no
 * pool would choose: the highest ready item first (backwards), or a random ready one. */
enum { SCRIPT_RUN_BACKWARDS, SCRIPT_RUN_SHUFFLED };
#define SCRIPT_RUNNER_ITEMS 4096           /* the most items of one pass */
typedef struct script_runner {
    sim_tasks tasks;
    int order;
    uint64_t rng;
    long passes, items, graphs;       /* passes and graphs run, and their items */
    void (*before)(void *ud, void *task_ctx, int item);
    void (*after)(void *ud, void *task_ctx, int item);
    void *ud;
    int scratch[SCRIPT_RUNNER_ITEMS];
} script_runner;
void script_runner_init(script_runner *r, int order, int workers);
void script_runner_graphs(script_runner *r);

/* GGPO's sync test: for `ticks` ticks, save A, load the bytes into B (a world of the same kind
 * with another history), feed both the same inputs from s and step both; the state hashes, the
 * frame hashes of every view and the palette versions must agree at every tick. each (may be
 * NULL) is called with A after every tick. Returns the inputs of s applied inside the window. */
size_t script_sync(sim_world *a, sim_world *b, const script *s, int ticks,
                   void (*each)(sim_world *a, void *ud), void *ud);

/* Corrupt states: every `stride`-th byte of a saved state (buf, n bytes) flipped in turn and
 * loaded into w. A load either refuses, leaving w exactly as it was (its hash unchanged), or gives
 * a world that steps and renders every view; w is then loaded back from buf (which must load).
 * Returns how many flips were refused. */
int script_flip_bytes(sim_world *w, const uint8_t *buf, size_t n, size_t stride);

/* A load keeps drawing: a's state (saved into buf, n bytes) loaded into b twice over (a world
 * whose render-only caches a load adopts, adopted again) renders its normal view as a does. */
void script_load_draws_alike(sim_world *a, sim_world *b, const uint8_t *buf, size_t n);

#endif
