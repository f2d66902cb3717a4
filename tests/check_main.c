/* check_main.c — the one test runner. Every suite is listed here; CK_RUN_SUITE=<name> (Check's
 * own filter) or a first argument runs just one: `build/default/check_all sand`.
 *
 * VIV_SUITES=a,b,... runs only the suites named, VIV_SUITES_SKIP=a,b,... all but those: `make
 * test` runs the long ASan half of the suites as two such processes side by side. A name that
 * is no suite's is an error (exit 2), so that a renamed suite cannot silently drop out. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"

typedef struct named_suite {
    const char *name;                  /* as the suite's suite_create names it */
    Suite *(*make)(void);
} named_suite;

#define S(x) { #x, suite_##x }
static const named_suite suites[] = {
    S(rng), S(dmath), S(raster), S(world), S(errors), S(kinds), S(verlet), S(wire), S(codec),
    S(server), S(record), S(retain), S(timeline), S(rect),
    S(replay), S(gif), S(webp), S(scene), S(ilbm), S(ccjson),
    /* Every kind's own suite, suite_<kind> from tests/check_<kind>.c, from the one list. */
#define SIM_KIND(name) S(name),
#include "kinds.h"
#undef SIM_KIND
    S(sand_render),
    S(framing), S(decoder),
    S(compat),
    S(rotsprite),
    S(celset),
    S(spring), S(timing), S(outline), S(spine), S(fabrik), S(biped),
    S(walker), S(juice),
    S(inks),
    S(water),
    S(particles),
    S(cloth),
    S(grass),
    S(legs), S(shear), S(mmpx),
    S(merge_carrier),
    S(merge_art),
    S(merge_render),
    S(acks), S(handlers), S(guess), S(fanout), S(tiles),
    S(robust),
    S(ws),
    S(websocket),
    S(replay_stream),
    S(io),
    S(events),
    S(cluster),
    S(pool),
    S(opt),
    S(metrics),
};
#undef S
#define NSUITES (sizeof suites / sizeof suites[0])

/* The next name of a comma-separated list at *p: its start, its length in *len, and *p moved
 * past it; NULL at the end. */
static const char *next_name(const char **p, size_t *len)
{
    if (!**p) return NULL;
    const char *name = *p, *comma = strchr(name, ',');
    *len = comma ? (size_t)(comma - name) : strlen(name);
    *p = comma ? comma + 1 : name + *len;
    return name;
}

/* Is `name` one of the names of `list`? */
static int listed(const char *list, const char *name)
{
    size_t len;
    for (const char *n; (n = next_name(&list, &len));)
        if (len == strlen(name) && strncmp(n, name, len) == 0) return 1;
    return 0;
}

/* Every name of `list` (from variable `var`) must be a suite's: 0, or -1 after saying which. */
static int check_names(const char *var, const char *list)
{
    size_t len;
    for (const char *n; (n = next_name(&list, &len));) {
        int found = 0;
        for (size_t i = 0; i < NSUITES && !found; i++)
            found = strlen(suites[i].name) == len && strncmp(n, suites[i].name, len) == 0;
        if (!found) {
            fprintf(stderr, "check_all: %s names '%.*s', which is no suite's name\n", var, (int)len, n);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *only = getenv("VIV_SUITES"), *skip = getenv("VIV_SUITES_SKIP");
    if ((only && check_names("VIV_SUITES", only) != 0) || (skip && check_names("VIV_SUITES_SKIP", skip) != 0))
        return 2;
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < NSUITES; i++) {
        if (only && !listed(only, suites[i].name)) continue;
        if (skip && listed(skip, suites[i].name)) continue;
        srunner_add_suite(sr, suites[i].make());
    }
    srunner_run(sr, argc > 1 ? argv[1] : NULL, NULL, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
