/* check_suites.h — one Suite maker per module; tests/check_<module>.c defines suite_<module>. */
#ifndef VIVARIUM_CHECK_SUITES_H
#define VIVARIUM_CHECK_SUITES_H
#include <check.h>
Suite *suite_rng(void);
Suite *suite_dmath(void);
Suite *suite_raster(void);
Suite *suite_world(void);
Suite *suite_errors(void);     /* sim/errors.h: the one error space of every folder */
Suite *suite_kinds(void);      /* every kind of sim/kinds.h: golden chain and sync test */
/* Every kind has a suite of its own, suite_<kind> in tests/check_<kind>.c (sim/kinds.h). */
#define SIM_KIND(name) Suite *suite_##name(void);
#include "kinds.h"
#undef SIM_KIND
Suite *suite_sand_render(void); /* sim/sand/redraw.c: the render follows change (issue 30) */
Suite *suite_verlet(void);
Suite *suite_rotsprite(void);  /* sim/anim/rotsprite.c: RotSprite pre-bake (seed 000 §2) */
Suite *suite_celset(void);     /* sim/anim/celset.c: the cel-set sprite engine of seed 002 */
/* The creature pieces of seed 000 §1, §3, §4 (issue 16), one suite per module of sim/anim/ */
Suite *suite_spring(void);     /* sim/anim/spring.c: springs and phase accumulators */
Suite *suite_timing(void);     /* sim/anim/timing.c: {frame, ticks} holds, layers on 2s and 3s */
Suite *suite_outline(void);    /* sim/anim/outline.c: a shape with a 1-px outline */
Suite *suite_spine(void);      /* sim/anim/spine.c: the follow-the-leader spine */
Suite *suite_fabrik(void);     /* sim/anim/fabrik.c: the FABRIK reacher */
Suite *suite_biped(void);      /* sim/anim/biped.c: the parametric biped, hair, breathing */
Suite *suite_walker(void);     /* sim/anim/walker.c: the rule-built walk from one sprite */
Suite *suite_juice(void);      /* sim/anim/juice.c: flash, squash and stretch, smear, hop, pop */
/* The garden's environment pieces (seed 000 §5, issue 16) */
Suite *suite_inks(void);       /* sim/anim/inks.c: OKLab and the 8-ink lock */
Suite *suite_water(void);      /* sim/anim/water.c: the spring height field */
Suite *suite_particles(void);  /* sim/anim/particles.c: fire and smoke */
Suite *suite_cloth(void);      /* sim/anim/cloth.c: the flag's Verlet grid */
Suite *suite_grass(void);      /* sim/anim/grass.c: tufts, sway and gusts */
/* Seed 000's pieces the garden lacked (issue 27) */
Suite *suite_legs(void);       /* sim/anim/legs.c: stepping legs on planted feet, two-bone knees */
Suite *suite_shear(void);      /* sim/anim/shear.c: rotation by three shears (Paeth) */
Suite *suite_mmpx(void);       /* sim/anim/mmpx.c: the MMPX 2× magnifier */
Suite *suite_merge_carrier(void); /* sim/merge/carrier.c: the carrier and the fruit's life, seed 003 */
Suite *suite_merge_art(void);  /* sim/merge/art*.c: the fruit-merge world's art (seed 003) */
Suite *suite_merge_render(void); /* sim/merge/render.c: the carrier as drawn (issue 27) */
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
Suite *suite_webp(void);       /* replay/webp.c: decoded frames hash to the recorded ones */
Suite *suite_record(void);
Suite *suite_retain(void);     /* replay/compact.c, server/retain.c: drop, compact, --retain (issue 32) */
Suite *suite_timeline(void);    /* server/timeline.c: a viewer rewinds a live world (issue 29) */
Suite *suite_rect(void);        /* sub's rect: a part of a world, on the region grid (issue 30) */
Suite *suite_compat(void);     /* the house change (issue 12): recordings and wire bytes from before it */
Suite *suite_acks(void);
Suite *suite_handlers(void);
Suite *suite_guess(void);      /* server/guess.c: token guessing slowed down (issue 28) */
Suite *suite_fanout(void);
Suite *suite_tiles(void);      /* server/tiles.c: the tiles rect streams share (issue 30) */
Suite *suite_robust(void);     /* slow: wall-clock fault and load tests (tag "slow") */
Suite *suite_ws(void);         /* server/ws.c: HTTP and WebSocket against a real vivd (issue 15) */
Suite *suite_websocket(void);  /* clients/websocket.c: the client side of RFC 6455, no server */
Suite *suite_replay_stream(void); /* server/replay_stream.c: sessions and replay, /vivarium.wasm (issue 19) */
Suite *suite_io(void);         /* server/io.c: the I/O threads against a real vivd (issue 17) */
Suite *suite_events(void);     /* world events through a real vivd (issue 27) */
Suite *suite_cluster(void);    /* server/cluster.c, relay.c, redis.c: nodes and relays through Redis (issue 18) */
Suite *suite_pool(void);       /* pool/pool.c: the worker pool for parallel passes (issue 17) */
Suite *suite_opt(void);        /* opt/opt.c: the option tables of vivd and viv (issue 26) */
Suite *suite_metrics(void);    /* server/health.c, metrics.c: /metrics and /healthz (issue 31) */
#endif
