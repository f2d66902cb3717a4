/* check_kinds.c — the determinism checks every world kind gets without writing a line of test
 * code: for each kind of the one list (sim/kinds.h, the registry), its golden run
 * (tests/golden/<kind>.args and .inputs) against tests/golden/<kind>.chain, and GGPO's sync test
 * (save → load → continue equals continue) over the same script, and the same golden chain with
 * the kind's parallel passes (sim_tasks) run on worker pools of every size and in hostile orders.
 * A new kind needs only its golden files here; its own behaviours go in tests/check_<kind>.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "pool.h"
#include "script.h"

/* The list as written in kinds.h, to hold the registry to it. */
static const char *const listed[] = {
#define SIM_KIND(name) #name,
#include "kinds.h"
#undef SIM_KIND
};
#define NLISTED ((int)(sizeof listed / sizeof listed[0]))

/* The registry is the list: same kinds, same order, and each kind's folder name is its name
 * (sim__kind_<name> is defined in sim/<name>/). Every kind has its three golden files. */
START_TEST(registry_is_the_list)
{
    ck_assert_int_eq(sim_kind_count(), NLISTED);
    for (int i = 0; i < NLISTED; i++) {
        const sim_kind *k = sim_kind_at(i);
        ck_assert_str_eq(k->name, listed[i]);
        ck_assert_ptr_eq(sim_kind_find(listed[i]), k);
        ck_assert_int_gt(k->hz, 0);
        ck_assert_int_ge(k->nviews, 1);
        static const char *const ext[] = { "args", "inputs", "chain" };
        for (int e = 0; e < 3; e++) {
            char path[128];
            snprintf(path, sizeof path, "golden/%s.%s", k->name, ext[e]);
            FILE *fp = fopen(path, "r");
            ck_assert_msg(fp != NULL, "kind %s has no tests/%s (docs/ADDING-A-WORLD.md; the chain "
                          "comes from `make golden`)", k->name, path);
            fclose(fp);
        }
    }
}
END_TEST

/* Loop test: _i is the kind's index in the registry. */
START_TEST(golden_chain)
{
    const sim_kind *k = sim_kind_at(_i);
    int lines = script_golden_kind(k->name, NULL);
    ck_assert_int_gt(lines, 0);
}
END_TEST

/* Box2D v3's determinism test, for threads: the golden chain is the same with the kind's passes
 * run on a real pool (pool/pool.c) of 2, 3, 4 and 8 workers (golden_chain runs them inline, as 1
 * worker does), and on a runner that takes the items of every pass backwards or shuffled, one at
 * a time, and then with graphs too (sim_graph), in every order they allow: the highest ready item
 * first, or a random one. A kind that cuts its step (sand) must have used the runner, as passes
 * without graphs and as graphs with them (no pass then: the whole tick is one graph). */
START_TEST(golden_chain_any_workers)
{
    const sim_kind *k = sim_kind_at(_i);
    static const int counts[] = { 2, 3, 4, 8 };
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++) {
        pool *p = NULL;
        char err[256];
        ck_assert_msg(pool_create(counts[n], &p, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(pool_workers(p), counts[n]);
        script_golden_kind_on(k->name, pool_tasks(p), NULL);
        pool_destroy(p);
    }
    script_runner *r = malloc(sizeof *r);   /* 16 KB of scratch: not on the test's stack */
    ck_assert_ptr_nonnull(r);
    for (int graphs = 0; graphs < 2; graphs++)
        for (int order = SCRIPT_RUN_BACKWARDS; order <= SCRIPT_RUN_SHUFFLED; order++) {
            script_runner_init(r, order, 4);
            if (graphs) script_runner_graphs(r);
            script_golden_kind_on(k->name, &r->tasks, NULL);
            if (strcmp(k->name, "sand") == 0 && !graphs)
                ck_assert_msg(r->passes > 0 && r->items > r->passes, "sand ran %ld passes of %ld "
                              "items through the runner", r->passes, r->items);
            if (strcmp(k->name, "sand") == 0 && graphs)
                ck_assert_msg(r->graphs > 0 && r->items > r->graphs && r->passes == 0, "sand ran "
                              "%ld graphs and %ld passes, %ld items, through the runner", r->graphs,
                              r->passes, r->items);
        }
    free(r);
}
END_TEST

/* The sync test over the golden script: A is the golden world, B a world of the same kind with
 * another seed and the default params that has already run a few ticks, so nothing of B's own
 * history may survive a load. At most 1,000 ticks (the golden scripts start their inputs early). */
START_TEST(sync_test_every_tick)
{
    const sim_kind *k = sim_kind_at(_i);
    char inputs[128];
    snprintf(inputs, sizeof inputs, "golden/%s.inputs", k->name);
    script_golden_args a = script_golden_args_load(k->name);
    script s = script_load(k->name, inputs);
    sim_world *wa = script_golden_world(k->name, &a);
    sim_world *wb = script_world(k->name, a.seed + 7, "");
    for (int t = 0; t < 5; t++) sim_world_step(wb);
    int ticks = a.ticks < 1000 ? a.ticks : 1000;
    size_t applied = script_sync(wa, wb, &s, ticks, NULL, NULL);
    ck_assert_msg(applied > 0, "%s: no input of %s falls in the first %d ticks", k->name, inputs, ticks);
    sim_world_destroy(wa);
    sim_world_destroy(wb);
    script_free(&s);
}
END_TEST

Suite *suite_kinds(void)
{
    Suite *s = suite_create("kinds");
    TCase *reg = tcase_create("registry");
    tcase_add_test(reg, registry_is_the_list);
    suite_add_tcase(s, reg);
    TCase *det = tcase_create("determinism");
    tcase_set_timeout(det, 600);
    tcase_add_loop_test(det, golden_chain, 0, sim_kind_count());
    tcase_add_loop_test(det, golden_chain_any_workers, 0, sim_kind_count());
    tcase_add_loop_test(det, sync_test_every_tick, 0, sim_kind_count());
    suite_add_tcase(s, det);
    return s;
}
