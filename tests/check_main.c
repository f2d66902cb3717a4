/* check_main.c — the one test runner. Every suite is listed here; CK_RUN_SUITE=<name> (Check's
 * own filter) or a first argument runs just one: `build/default/check_all sand`. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"

int main(int argc, char **argv)
{
    Suite *(*const makers[])(void) = {
        suite_rng, suite_dmath, suite_raster, suite_world, suite_kinds, suite_verlet, suite_wire, suite_codec, suite_server, suite_record,
        suite_replay, suite_gif, suite_scene, suite_ilbm, suite_ccjson,
        /* Every kind's own suite, suite_<kind> from tests/check_<kind>.c, from the one list. */
#define SIM_KIND(name) suite_##name,
#include "kinds.h"
#undef SIM_KIND
        suite_framing, suite_decoder,
        suite_compat,
        suite_rotsprite,
        suite_celset,
        suite_spring, suite_timing, suite_outline, suite_spine, suite_fabrik, suite_biped,
        suite_walker, suite_juice,
        suite_inks,
        suite_water,
        suite_particles,
        suite_cloth,
        suite_grass,
        suite_merge_carrier,
        suite_merge_art,
        suite_acks, suite_handlers, suite_fanout,
        suite_robust,
        suite_ws,
        suite_websocket,
        suite_replay_stream,
        suite_io,
        suite_cluster,
        suite_pool,
    };
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
        Suite *s = makers[i]();
        srunner_add_suite(sr, s);
    }
    const char *only = argc > 1 ? argv[1] : NULL;
    srunner_run(sr, only, NULL, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
