/* check_suites.h — one Suite maker per module; tests/check_<module>.c defines suite_<module>. */
#ifndef VIVARIUM_CHECK_SUITES_H
#define VIVARIUM_CHECK_SUITES_H
#include <check.h>
Suite *suite_rng(void);
Suite *suite_dmath(void);
Suite *suite_raster(void);
Suite *suite_world(void);
Suite *suite_kinds(void);      /* every kind of sim/kinds.h: golden chain and sync test */
/* Every kind has a suite of its own, suite_<kind> in tests/check_<kind>.c (sim/kinds.h). */
#define SIM_KIND(name) Suite *suite_##name(void);
#include "kinds.h"
#undef SIM_KIND
Suite *suite_verlet(void);
Suite *suite_rotsprite(void);  /* sim/rotsprite.c: RotSprite pre-bake (seed 000 §2) */
Suite *suite_celset(void);     /* sim/celset.c: the cel-set sprite engine of seed 002 */
Suite *suite_merge_carrier(void); /* sim/merge/carrier.c: the carrier and the fruit's life, seed 003 */
Suite *suite_merge_art(void);  /* sim/merge/art.c: the fruit-merge world's art (seed 003) */
Suite *suite_scene(void);
Suite *suite_ilbm(void);
Suite *suite_ccjson(void);
Suite *suite_wire(void);
Suite *suite_framing(void);
Suite *suite_decoder(void);
Suite *suite_codec(void);
Suite *suite_server(void);
Suite *suite_replay(void);
Suite *suite_gif(void);        /* replay/gif.c: composited frames equal the world's */
Suite *suite_record(void);
Suite *suite_compat(void);     /* the house change (issue 12): recordings and wire bytes from before it */
Suite *suite_acks(void);
Suite *suite_handlers(void);
Suite *suite_fanout(void);
Suite *suite_robust(void);     /* slow: wall-clock fault and load tests (tag "slow") */
Suite *suite_ws(void);         /* server/ws.c: HTTP and WebSocket against a real vivd (issue 15) */
Suite *suite_pool(void);       /* pool/pool.c: the worker pool for parallel passes (issue 17) */
#endif
