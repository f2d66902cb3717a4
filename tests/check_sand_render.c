/* check_sand_render.c — the sand world's render follows change (issue 30; sim/sand/redraw.c): a
 * frame drawn again only where it may have changed since the last render of that frame is, pixel
 * for pixel, the frame a whole redraw gives, whatever happened since: steps, painting of every
 * element at every size, explosions, renders skipped for a tick or for forty, a load of an earlier
 * state, another frame, another world drawing into the frame. And it draws less than the whole
 * frame when little changed.
 *
 * Two worlds run in lockstep, fed the same inputs: one renders into its own frame as a host does,
 * tick after tick (a big one on a pool's workers, strips side by side on different threads); the
 * other draws its frame whole every time (its mark reset: sim_frame.drawn) on one thread, as the
 * renderer did before issue 30. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "pool.h"
#include "script.h"
#include "sand/sand.h"

typedef struct pair {
    sim_world *inc, *ref;           /* rendered by change / whole */
    sim_frame fi, fr;
    int w, h;
    long renders, partial;          /* renders compared, and those that drew less than all */
    uint64_t painted;               /* pixels the partial ones drew */
    pool *pool;                     /* inc's workers, or NULL */
    int most_workers;               /* the most workers that drew at one render of inc */
} pair;

static uint64_t painted(sim_world *w) { return sand__painted(sim__world_impl(w)); }

static void pair_init(pair *p, uint64_t seed, const char *params)
{
    memset(p, 0, sizeof *p);
    p->inc = script_world("sand", seed, params);
    p->ref = script_world("sand", seed, params);
    ck_assert_int_eq(sim_world_frame_init(p->inc, &p->fi), 0);
    ck_assert_int_eq(sim_world_frame_init(p->ref, &p->fr), 0);
    p->w = p->fi.w;
    p->h = p->fi.h;
}

/* inc steps and renders on a pool of n workers, every pass handed to them (no backing off). */
static void pair_pool(pair *p, int n)
{
    char err[128];
    ck_assert_int_eq(pool_create(n, &p->pool, err, sizeof err), 0);
    pool_adaptive(p->pool, 0);
    sim_world_set_tasks(p->inc, pool_tasks(p->pool));
}

static void pair_free(pair *p)
{
    sim_frame_free(&p->fi);
    sim_frame_free(&p->fr);
    sim_world_destroy(p->inc);
    sim_world_destroy(p->ref);
    pool_destroy(p->pool);
}

static void pair_input(pair *p, const char *text)
{
    sim_input x = script_input_of(p->inc, text);
    ck_assert_int_eq(sim_world_input(p->inc, &x), 0);
    ck_assert_int_eq(sim_world_input(p->ref, &x), 0);
}

static void pair_step(pair *p)
{
    sim_world_step(p->inc);
    sim_world_step(p->ref);
}

/* f holds, pixel for pixel and colour for colour, what g does (g drawn whole at the same tick). */
static void same_frame(const sim_frame *f, const sim_frame *g, uint64_t tick, const char *what)
{
    ck_assert_int_eq(f->w, g->w);
    ck_assert_int_eq(f->h, g->h);
    ck_assert_int_eq(f->pal.count, g->pal.count);
    ck_assert_int_eq(memcmp(f->pal.rgb, g->pal.rgb, (size_t)f->pal.count * 3), 0);
    size_t n = (size_t)f->w * f->h;
    for (size_t i = 0; i < n; i++)
        if (f->px[i] != g->px[i])
            ck_abort_msg("%s, tick %llu: pixel (%d, %d) is %d, a whole redraw gives %d", what,
                         (unsigned long long)tick, (int)(i % f->w), (int)(i / f->w), f->px[i],
                         g->px[i]);
    ck_assert_uint_eq(sim_frame_hash(f), sim_frame_hash(g));
}

/* Render the pair now (inc into frame fi, which it may have drawn before) and compare. */
static void pair_check_in(pair *p, sim_frame *fi, const char *what)
{
    sim_world_render(p->inc, 0, fi);
    p->fr.drawn = 0;                                /* whole */
    sim_world_render(p->ref, 0, &p->fr);
    ck_assert_uint_eq(painted(p->ref), (uint64_t)p->w * p->h);
    same_frame(fi, &p->fr, sim_world_tick(p->inc), what);
    int nw = sand__render_workers(sim__world_impl(p->inc));
    if (nw > p->most_workers) p->most_workers = nw;
    p->renders++;
    if (painted(p->inc) < (uint64_t)p->w * p->h) {
        p->partial++;
        p->painted += painted(p->inc);
    }
}

static void pair_check(pair *p) { pair_check_in(p, &p->fi, "the frame rendered by change"); }

/* The pair's state now, saved (the caller frees it). */
static uint8_t *pair_save(pair *p, size_t *n)
{
    size_t cap = sim_world_save_max(p->inc);
    uint8_t *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    *n = sim_world_save(p->inc, buf, cap);
    ck_assert_uint_gt(*n, 0);
    return buf;
}

/* The inputs of a run: one every 7 ticks, in turn every element painted, an erase and an
 * explosion, at radii from 1 to 40, all over the world and past its edges. */
static void scripted_input(pair *p, int t)
{
    static const char *const what[] = { "paint %d %d %d water", "paint %d %d %d sand",
                                        "paint %d %d %d lava", "paint %d %d %d fire",
                                        "paint %d %d %d oil", "paint %d %d %d acid",
                                        "paint %d %d %d ice", "paint %d %d %d wood",
                                        "paint %d %d %d stone", "paint %d %d %d gas",
                                        "paint %d %d %d steam", "paint %d %d %d smoke",
                                        "paint %d %d %d wall", "paint %d %d %d empty",
                                        "erase %d %d %d", "explode %d %d %d" };
    if (t % 7 != 3) return;
    int k = t / 7, n = (int)(sizeof what / sizeof what[0]);
    int x = (int)((uint32_t)(k * 2654435761u) % (uint32_t)(p->w + 40)) - 20;
    int y = (int)((uint32_t)(k * 40503u + 977u) % (uint32_t)(p->h + 40)) - 20;
    int r = 1 + (k * 13) % 40;
    char text[64];
    snprintf(text, sizeof text, what[k % n], x, y, r);
    pair_input(p, text);
}

/* Renders skipped: ticks 20..26 of every 50 (a host rendering when it can), and 150..189 (one
 * that stopped for a while). */
static int skipped(int t) { return (t % 50 >= 20 && t % 50 < 27) || (t >= 150 && t < 190); }

/* A run of `ticks` ticks of sand world `params`, seed `seed`: scripted inputs, skipped renders,
 * and at tick `load_at` a load of the state saved at tick `save_at`, after which the next render
 * must draw the whole frame. Every render is compared; most must have drawn less than all. With
 * `workers` > 1, the world rendered by change runs on a pool of that many, and more than one of
 * them must have drawn at some render. */
static void follows_on(uint64_t seed, const char *params, int ticks, int save_at, int load_at,
                       int workers)
{
    pair p;
    pair_init(&p, seed, params);
    if (workers > 1) pair_pool(&p, workers);
    uint8_t *saved = NULL;
    size_t nsaved = 0;
    int loaded = 0;
    for (int t = 0; t < ticks; t++) {
        if (t == save_at) saved = pair_save(&p, &nsaved);
        if (t == load_at) {
            ck_assert_int_eq(sim_world_load(p.inc, saved, nsaved), 0);
            ck_assert_int_eq(sim_world_load(p.ref, saved, nsaved), 0);
            loaded = 1;
        }
        if (!skipped(t)) {
            pair_check(&p);
            if (loaded) {                           /* a new world: it drew its frame whole */
                ck_assert_uint_eq(painted(p.inc), (uint64_t)p.w * p.h);
                loaded = 0;
            }
        }
        scripted_input(&p, t);
        pair_step(&p);
    }
    ck_assert_int_gt(p.partial, p.renders * 3 / 4);
    if (workers > 1) ck_assert_int_ge(p.most_workers, 2);
    else ck_assert_int_eq(p.most_workers, 1);
    free(saved);
    pair_free(&p);
}

static void follows(uint64_t seed, const char *params, int ticks, int save_at, int load_at)
{
    follows_on(seed, params, ticks, save_at, load_at, 1);
}

START_TEST(small_demo_follows_change)
{
    follows(42, "", 400, 90, 260);
}
END_TEST

START_TEST(odd_sized_demo_follows_change)
{
    follows(7, "w=333,h=181", 300, 60, 200);        /* a last strip 13 columns wide */
}
END_TEST

START_TEST(bench_scene_follows_change)
{
    follows(9, "scene=bench", 400, 100, 240);
}
END_TEST

START_TEST(big_demo_1024x512_follows_change)
{
    follows(1, "w=1024,h=512", 300, 50, 220);
}
END_TEST

START_TEST(big_demo_2048x1024_follows_change)
{
    follows(1, "w=2048,h=1024", 300, 40, 230);
}
END_TEST

/* The strips drawn side by side on 2 and 3 threads: the same pixels as one thread's whole frame,
 * at every render, by change and whole (after the load). */
START_TEST(big_demo_on_2_workers_follows_change)
{
    follows_on(1, "w=2048,h=1024", 300, 40, 230, 2);
}
END_TEST

START_TEST(big_bench_scene_on_3_workers_follows_change)
{
    follows_on(5, "w=1024,h=512,scene=bench", 250, 60, 180, 3);
}
END_TEST

/* Whatever the renderer cannot vouch for it draws whole: another frame, its own frame after
 * another, its frame after another world drew into it, or after a host wrote into it (and reset
 * its mark, as sim_frame.drawn asks), the first frame after a load of a state later than its own
 * (another world's, with another past); and a render at the same tick draws nothing. */
START_TEST(what_it_cannot_vouch_for_is_drawn_whole)
{
    pair p;
    pair_init(&p, 3, "");
    uint64_t all = (uint64_t)p.w * p.h;
    sim_frame other;
    ck_assert_int_eq(sim_world_frame_init(p.inc, &other), 0);
    sim_world *stranger = script_world("sand", 3, "");     /* the same seed, another past */
    for (int t = 0; t < 30; t++) pair_step(&p);
    pair_check(&p);                                 /* the first render */
    ck_assert_uint_eq(painted(p.inc), all);
    pair_step(&p);
    pair_check(&p);
    ck_assert_uint_lt(painted(p.inc), all);
    pair_check(&p);                                 /* again at the same tick */
    ck_assert_uint_eq(painted(p.inc), 0);
    pair_step(&p);
    pair_check_in(&p, &other, "another frame");
    ck_assert_uint_eq(painted(p.inc), all);
    pair_step(&p);
    pair_check(&p);                                 /* its own frame, two ticks behind */
    ck_assert_uint_eq(painted(p.inc), all);
    sim_world_render(stranger, 0, &p.fi);
    pair_step(&p);
    pair_check(&p);                                 /* after another world drew into it */
    ck_assert_uint_eq(painted(p.inc), all);
    memset(p.fi.px, 0, all);
    p.fi.drawn = 0;
    pair_step(&p);
    pair_check(&p);                                 /* after a host wrote into it */
    ck_assert_uint_eq(painted(p.inc), all);
    pair_step(&p);
    pair_check(&p);
    ck_assert_uint_lt(painted(p.inc), all);
    script_input(stranger, "paint 160 60 30 sand");
    for (int t = 0; t < 60; t++) sim_world_step(stranger);
    size_t cap = sim_world_save_max(stranger);
    uint8_t *later = malloc(cap);
    size_t n = sim_world_save(stranger, later, cap);
    ck_assert_uint_gt(sim_world_tick(stranger), sim_world_tick(p.inc));
    ck_assert_int_eq(sim_world_load(p.inc, later, n), 0);
    ck_assert_int_eq(sim_world_load(p.ref, later, n), 0);
    pair_check(&p);                                 /* after a load */
    ck_assert_uint_eq(painted(p.inc), all);
    pair_step(&p);
    pair_check(&p);
    ck_assert_uint_lt(painted(p.inc), all);
    free(later);
    sim_world_destroy(stranger);
    sim_frame_free(&other);
    pair_free(&p);
}
END_TEST

/* Cost follows change: in a still world a grain of sand falling is all a render draws (the
 * cells it went through that tick: in the empty scene a pixel shows its own cell alone), and a
 * render where nothing changed draws nothing. */
START_TEST(a_falling_grain_is_all_it_draws)
{
    pair p;
    pair_init(&p, 5, "w=320,h=180,scene=empty");
    pair_input(&p, "paint 100 170 6 sand");
    for (int t = 0; t < 40; t++) pair_step(&p);     /* a settled heap */
    pair_check(&p);
    pair_step(&p);
    pair_check(&p);
    ck_assert_uint_eq(painted(p.inc), 0);
    pair_input(&p, "paint 200 10 0 sand");
    uint64_t most = 0;
    for (int t = 0; t < 60; t++) {
        pair_step(&p);
        pair_check(&p);
        if (painted(p.inc) > most) most = painted(p.inc);
    }
    /* A fall: the cell it left and at most 1 + 3 below (sand_int.h, FALL_VMAX); a slide: two. */
    ck_assert_uint_gt(most, 0);
    ck_assert_uint_le(most, 1 + 1 + 3);
    pair_free(&p);
}
END_TEST

/* A saved state's bytes, little-endian, at p. */
static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The picture's clock comes round (render.c, PICTURE_T: tick mod 1,000,000): a state loaded a
 * little before tick 1,000,000 renders by change across it as a whole redraw does (the glints,
 * caustics, sheen and lava flow all move on there, at no multiple of their periods). */
START_TEST(across_the_picture_clock_coming_round)
{
    pair p;
    pair_init(&p, 2, "");
    for (int t = 0; t < 60; t++) pair_step(&p);
    size_t n;
    uint8_t *buf = pair_save(&p, &n);
    put_le(buf + 24, 1000000 - 25, 8);             /* the tick, in the state's header */
    ck_assert_int_eq(sim_world_load(p.inc, buf, n), 0);
    ck_assert_int_eq(sim_world_load(p.ref, buf, n), 0);
    for (int t = 0; t < 50; t++) {
        pair_check(&p);
        pair_step(&p);
    }
    ck_assert_int_ge(p.partial, 49);
    free(buf);
    pair_free(&p);
}
END_TEST

/* A drop of water falling (vy > 0) blurs the empty cells above it even where nothing moves: one
 * that stays put (a state loaded so, its chunk asleep) under empty cells that are drawn again (an
 * erase over empty cells) still blurs them, though nothing about it changed. */
START_TEST(still_falling_water_blurs_what_is_drawn_above_it)
{
    pair p;
    pair_init(&p, 2, "");                           /* the demo's picture: the one with a blur */
    for (int t = 0; t < 60; t++) pair_step(&p);
    const void *impl = sim__world_impl(p.inc);
    int x = -1, y = 40;
    for (int c = 2; c < p.w - 2 && x < 0; c++) {
        int clear = !sand__chunk_awake(impl, c / 16, y / 16) && !sand__chunk_awake(impl, c / 16, (y - 5) / 16);
        for (int r = y - 5; r <= y && clear; r++) clear = sand__cell(impl, c, r) == 0;
        if (clear) x = c;
    }
    ck_assert_int_ge(x, 0);
    size_t n;
    uint8_t *buf = pair_save(&p, &n);
    int ncx = (p.w + 15) / 16, ncy = (p.h + 15) / 16;
    /* The cells come last but for the chunks' rectangles (sim/sand/state.c). */
    uint8_t *cells = buf + n - (size_t)ncx * ncy * 8 - (size_t)p.w * p.h * 4;
    put_le(cells + 4 * ((size_t)y * p.w + x), SAND_WATER | 3u << 28, 4);   /* vy 3 */
    ck_assert_int_eq(sim_world_load(p.inc, buf, n), 0);
    ck_assert_int_eq(sim_world_load(p.ref, buf, n), 0);
    pair_check(&p);
    char text[64];
    snprintf(text, sizeof text, "erase %d %d 0", x, y - 3);
    pair_input(&p, text);
    pair_step(&p);
    ck_assert_uint_eq(sand__cell(sim__world_impl(p.inc), x, y), SAND_WATER | 3u << 28);
    pair_check(&p);
    ck_assert_uint_lt(painted(p.inc), (uint64_t)p.w * p.h);
    free(buf);
    pair_free(&p);
}
END_TEST

Suite *suite_sand_render(void)
{
    Suite *s = suite_create("sand_render");
    TCase *small = tcase_create("small");
    tcase_add_test(small, small_demo_follows_change);
    tcase_add_test(small, odd_sized_demo_follows_change);
    tcase_add_test(small, bench_scene_follows_change);
    tcase_add_test(small, what_it_cannot_vouch_for_is_drawn_whole);
    tcase_add_test(small, a_falling_grain_is_all_it_draws);
    tcase_add_test(small, across_the_picture_clock_coming_round);
    tcase_add_test(small, still_falling_water_blurs_what_is_drawn_above_it);
    suite_add_tcase(s, small);
    TCase *big = tcase_create("big");
    tcase_add_test(big, big_demo_1024x512_follows_change);
    tcase_add_test(big, big_demo_2048x1024_follows_change);
    tcase_add_test(big, big_demo_on_2_workers_follows_change);
    tcase_add_test(big, big_bench_scene_on_3_workers_follows_change);
    suite_add_tcase(s, big);
    return s;
}
