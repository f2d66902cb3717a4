/* check_sand.c — the falling-sand world: the golden hash chain, the sync test, behaviours a
 * player would notice, sleeping chunks, the demo's picture and its long run, and the bench scene
 * kept as it was. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "sand/sand.h"

static sim_world *mk(uint64_t seed, const char *params) { return script_world("sand", seed, params); }

static int el_id(const char *name)
{
    const sim_enum_desc *e = sim_kind_enum_find(sim_kind_find("sand"), "element");
    for (int i = 0; i < e->count; i++)
        if (strcmp(e->values[i], name) == 0) return i;
    ck_abort_msg("no element %s", name);
    return -1;
}

/* Queue one input by its text, for the world's next tick. */
static void in(sim_world *w, const char *text) { script_input(w, text); }

static void run(sim_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++) sim_world_step(w);
}

static int at(sim_world *w, int x, int y) { return sand__element(sim__world_impl(w), x, y); }
static int count(sim_world *w, const char *el) { return sand__count(sim__world_impl(w), el_id(el)); }

/* ---- golden and sync --------------------------------------------------------------------------- */
/* The golden chain (tests/golden/sand.args and .inputs: seed 42, the default demo, 3,000 ticks)
 * against tests/golden/sand.chain, written by `make golden`, which is only ever run on purpose: a
 * changed chain means every recorded replay changed too. The suite "kinds" runs it as well. */
START_TEST(golden_chain)
{
    ck_assert_int_eq(script_golden_kind("sand", NULL), 30);
}
END_TEST

/* GGPO's sync test (script_sync) into a world of another size and scene, every tick for 500
 * ticks: loading replaces everything, the grid's size included. */
START_TEST(sync_test_every_tick)
{
    script s = script_load("sand", "golden/sand.inputs");
    sim_world *a = mk(42, "");
    sim_world *b = mk(7, "w=40,h=30,scene=bench");
    run(b, 5);
    ck_assert_uint_gt(script_sync(a, b, &s, 500, NULL, NULL), 0);   /* inputs inside the window */
    script_free(&s);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

START_TEST(same_inputs_same_hash_other_seed_differs)
{
    sim_world *a = mk(1, "scene=bench"), *b = mk(1, "scene=bench"), *c = mk(2, "scene=bench");
    run(a, 200); run(b, 200); run(c, 200);
    ck_assert_uint_eq(sim_world_hash(a), sim_world_hash(b));
    ck_assert_uint_ne(sim_world_hash(a), sim_world_hash(c));
    sim_world_destroy(a); sim_world_destroy(b); sim_world_destroy(c);
}
END_TEST

/* ---- behaviour ----------------------------------------------------------------------------------- */
#define TINY "w=32,h=32,scene=empty"

/* Lowest row (largest y) holding `el` in column x, and the highest. */
static void span(sim_world *w, int x, int el, int *top, int *bottom)
{
    *top = 99; *bottom = -1;
    for (int y = 0; y < 32; y++)
        if (at(w, x, y) == el) {
            if (y < *top) *top = y;
            if (y > *bottom) *bottom = y;
        }
}

START_TEST(sand_sinks_below_water)
{
    sim_world *w = mk(3, TINY);
    in(w, "paint 16 26 6 water");
    run(w, 60);
    in(w, "paint 16 6 4 sand");
    run(w, 600);
    int sand = count(w, "sand"), water = count(w, "water");
    ck_assert_int_gt(sand, 30);
    ck_assert_int_gt(water, 60);
    /* In every column, no water lies below sand. */
    for (int x = 0; x < 32; x++) {
        int st, sb, wt, wb;
        span(w, x, el_id("sand"), &st, &sb);
        span(w, x, el_id("water"), &wt, &wb);
        if (sb >= 0 && wb >= 0) ck_assert_msg(wb < st, "column %d: water at %d below sand at %d", x, wb, st);
    }
    sim_world_destroy(w);
}
END_TEST

START_TEST(oil_ends_above_water)
{
    sim_world *w = mk(4, TINY);
    in(w, "paint 16 26 6 oil");
    run(w, 60);
    in(w, "paint 16 8 6 water");
    run(w, 900);
    ck_assert_int_gt(count(w, "oil"), 40);
    for (int x = 0; x < 32; x++) {
        int ot, ob, wt, wb;
        span(w, x, el_id("oil"), &ot, &ob);
        span(w, x, el_id("water"), &wt, &wb);
        if (ob >= 0 && wb >= 0) ck_assert_msg(ob < wt, "column %d: oil at %d below water at %d", x, ob, wt);
    }
    sim_world_destroy(w);
}
END_TEST

START_TEST(burning_wood_burns_away_and_smokes)
{
    sim_world *w = mk(5, TINY);
    in(w, "paint 16 20 5 wood");
    run(w, 1);
    int wood0 = count(w, "wood");
    ck_assert_int_gt(wood0, 50);
    in(w, "paint 16 13 1 fire");
    int max_smoke = 0;
    for (int t = 0; t < 3000 && count(w, "wood") > 0; t++) {
        sim_world_step(w);
        int sm = count(w, "smoke");
        if (sm > max_smoke) max_smoke = sm;
    }
    ck_assert_int_eq(count(w, "wood"), 0);
    ck_assert_int_gt(max_smoke, 5);
    sim_world_destroy(w);
}
END_TEST

START_TEST(water_on_lava_makes_stone_and_steam)
{
    sim_world *w = mk(6, TINY);
    in(w, "paint 16 28 5 lava");
    run(w, 30);
    in(w, "paint 16 8 4 water");
    int max_steam = 0;
    for (int t = 0; t < 400; t++) {
        sim_world_step(w);
        int st = count(w, "steam");
        if (st > max_steam) max_steam = st;
    }
    ck_assert_int_gt(count(w, "stone"), 3);
    ck_assert_int_gt(max_steam, 3);
    sim_world_destroy(w);
}
END_TEST

START_TEST(acid_eats_stone_not_wall)
{
    sim_world *w = mk(7, TINY);
    /* A wall cup holding a stone block, acid poured on top. */
    in(w, "paint 16 28 12 wall");
    run(w, 1);
    in(w, "erase 16 22 8");
    run(w, 1);
    int walls = count(w, "wall");
    in(w, "paint 16 26 3 stone");
    run(w, 1);
    int stone0 = count(w, "stone");
    ck_assert_int_gt(stone0, 10);
    for (int k = 0; k < 8; k++) {
        in(w, "paint 16 10 3 acid");
        run(w, 150);
    }
    ck_assert_int_lt(count(w, "stone"), stone0 / 2);
    ck_assert_int_eq(count(w, "wall"), walls);
    sim_world_destroy(w);
}
END_TEST

START_TEST(ice_melts_near_fire)
{
    sim_world *w = mk(8, TINY);
    in(w, "paint 16 20 3 ice");
    run(w, 1);
    int ice0 = count(w, "ice");
    for (int k = 0; k < 10; k++) {
        in(w, "paint 21 20 1 fire");
        run(w, 30);
    }
    ck_assert_int_lt(count(w, "ice"), ice0);
    ck_assert_int_gt(count(w, "water") + count(w, "steam"), 0);
    sim_world_destroy(w);
}
END_TEST

START_TEST(gas_rises_and_fire_has_a_lifetime)
{
    sim_world *w = mk(9, TINY);
    in(w, "paint 16 28 2 smoke");
    run(w, 25);
    int top, bottom;
    int found = 0;
    for (int x = 0; x < 32; x++) {
        span(w, x, el_id("smoke"), &top, &bottom);
        if (bottom >= 0) { found = 1; ck_assert_int_lt(top, 20); }
    }
    ck_assert(found);
    run(w, 300);
    ck_assert_int_eq(count(w, "smoke"), 0);             /* thinned to nothing */
    in(w, "paint 16 16 2 fire");
    run(w, 200);
    ck_assert_int_eq(count(w, "fire"), 0);
    sim_world_destroy(w);
}
END_TEST

START_TEST(erase_and_explode)
{
    sim_world *w = mk(10, TINY);
    in(w, "paint 16 16 6 stone");
    run(w, 1);
    int stone0 = count(w, "stone");
    in(w, "erase 16 16 2");
    run(w, 1);
    ck_assert_int_eq(at(w, 16, 16), el_id("empty"));
    ck_assert_int_lt(count(w, "stone"), stone0);
    /* Static stone hangs in the air until a blast loosens it; then it falls to the floor. */
    ck_assert_int_eq(at(w, 16, 31), el_id("empty"));
    in(w, "explode 16 16 8");
    run(w, 200);
    int floor = 0;
    for (int x = 0; x < 32; x++) floor += at(w, x, 31) == el_id("stone");
    ck_assert_int_gt(floor, 4);
    sim_world_destroy(w);
}
END_TEST

START_TEST(paint_clips_out_of_frame_discs)
{
    sim_world *w = mk(11, TINY);
    in(w, "paint -5 -5 10 stone");
    in(w, "paint 100000 100000 64 stone");
    run(w, 1);
    ck_assert_int_eq(at(w, 0, 0), el_id("stone"));
    ck_assert_int_gt(count(w, "stone"), 5);
    sim_world_destroy(w);
}
END_TEST

/* A chunk that has settled sleeps; a change at its neighbour's edge wakes it. A sand grain at
 * (32,40) rests on stone; its one way down is diagonal, through a stone at (31,41) in the chunk to
 * its left. Acid in that chunk eats the stone; the grain's chunk is asleep and must wake to let it
 * fall. */
START_TEST(sleeping_chunk_wakes_for_its_neighbour)
{
    sim_world *w = mk(12, "w=64,h=64,scene=empty");
    void *s = sim__world_impl(w);
    in(w, "paint 31 41 0 stone");                        /* left chunk, at its right edge */
    in(w, "paint 32 41 0 stone");                        /* right chunk: the grain's floor */
    in(w, "paint 33 41 0 stone");
    in(w, "paint 29 41 0 wall");                         /* a wall cup to hold the acid */
    in(w, "paint 29 42 0 wall");
    in(w, "paint 30 42 0 wall");
    in(w, "paint 31 42 0 wall");
    run(w, 1);
    in(w, "paint 32 40 0 sand");
    run(w, 5);
    ck_assert_int_eq(at(w, 32, 40), el_id("sand"));
    int gx = 32 / SAND_CHUNK, gy = 40 / SAND_CHUNK;     /* the grain's chunk */
    ck_assert_int_eq(31 / SAND_CHUNK, gx - 1);          /* the stone is across a chunk edge */
    ck_assert(!sand__chunk_awake(s, gx, gy));           /* settled: the grain's chunk sleeps */
    in(w, "paint 30 41 0 acid");
    run(w, 1);
    ck_assert(!sand__chunk_awake(s, gx, gy));           /* the acid alone does not wake it */
    int fell = 0;
    for (int t = 0; t < 2000 && !fell; t++) {
        sim_world_step(w);
        fell = at(w, 32, 40) != el_id("sand");
    }
    ck_assert_msg(fell, "the grain never noticed its support was eaten");
    ck_assert_int_ne(at(w, 31, 41), el_id("stone"));
    sim_world_destroy(w);
}
END_TEST

START_TEST(settled_world_sleeps)
{
    sim_world *w = mk(13, "w=64,h=64,scene=empty");
    in(w, "paint 32 50 10 sand");
    run(w, 300);
    void *s = sim__world_impl(w);
    for (int cy = 0; cy < 64 / SAND_CHUNK; cy++)
        for (int cx = 0; cx < 64 / SAND_CHUNK; cx++) ck_assert(!sand__chunk_awake(s, cx, cy));
    uint64_t h = sim_world_hash(w);
    run(w, 10);
    /* Nothing moved; only the tick counter in the header changed. */
    ck_assert_uint_ne(h, sim_world_hash(w));
    for (int cy = 0; cy < 64 / SAND_CHUNK; cy++)
        for (int cx = 0; cx < 64 / SAND_CHUNK; cx++) ck_assert(!sand__chunk_awake(s, cx, cy));
    sim_world_destroy(w);
}
END_TEST

/* The demo runs for hours: after 100,000 ticks it still changes every second, and it has neither
 * filled up nor emptied (matter stays between 1% and 60% of the non-wall cells at every check). */
START_TEST(demo_long_run_stays_alive)
{
    sim_world *w = mk(1, "");
    void *s = sim__world_impl(w);
    int W, H;
    sand__size(s, &W, &H);
    uint32_t *prev = malloc((size_t)W * H * 4);
    for (int sec = 0; sec < 100000 / 60 + 1; sec++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) prev[y * W + x] = sand__cell(s, x, y);
        run(w, 60);
        int changed = 0, matter = 0, open = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint32_t c = sand__cell(s, x, y);
                changed += c != prev[y * W + x];
                int e = (int)(c & 0xFF);
                if (e != SAND_WALL) {
                    open++;
                    matter += e != SAND_EMPTY;
                }
            }
        ck_assert_msg(changed > 50, "second %d: only %d cells changed", sec, changed);
        if (sec % 50 == 0 || sec == 100000 / 60) {
            ck_assert_msg(matter * 100 > open, "second %d: emptied (%d of %d)", sec, matter, open);
            ck_assert_msg(matter * 100 < open * 60, "second %d: filled (%d of %d)", sec, matter, open);
        }
    }
    ck_assert_uint_ge(sim_world_tick(w), 100000);
    free(prev);
    sim_world_destroy(w);
}
END_TEST

/* ---- the demo's picture (issue 13) ----------------------------------------------------------------
 * The demo is a landscape at dusk (sim/sand/scenes.c): a waterfall into a lake, a tree with a
 * campfire, dunes over an oil cave, a lava vent under a glacier. At 320×180 by default. */

/* Cells of `el` in the plan rectangle [x0,x1]×[y0,y1]. */
static int count_in(sim_world *w, int el, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) n += at(w, x, y) == el;
    return n;
}

/* The picture uses the whole frame: at tick 0 fewer than half the cells are empty air, no one
 * colour covers more than 12% of the frame (the old demo was 70% one navy), at least 48 colours
 * are in use, and every pixel is on the palette. Checked again after 30 s of play. */
START_TEST(demo_picture_fills_the_frame)
{
    sim_world *w = mk(1, "");
    for (int pass = 0; pass < 2; pass++) {
        sim_frame f;
        ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
        sim_world_render(w, 0, &f);
        ck_assert_int_eq(f.w, 320);
        ck_assert_int_eq(f.h, 180);
        int hist[256] = { 0 }, used = 0, top = 0, empty = 0;
        for (int i = 0; i < f.w * f.h; i++) {
            ck_assert_msg(f.px[i] < f.pal.count, "pixel %d: colour %d off the palette of %d", i,
                          f.px[i], f.pal.count);
            hist[f.px[i]]++;
        }
        for (int k = 0; k < 256; k++) {
            used += hist[k] > 0;
            if (hist[k] > top) top = hist[k];
        }
        for (int y = 0; y < 180; y++)
            for (int x = 0; x < 320; x++) empty += at(w, x, y) == el_id("empty");
        ck_assert_msg(empty * 2 < 320 * 180, "pass %d: %d cells of %d are empty air", pass, empty, 320 * 180);
        ck_assert_msg(top * 100 < 12 * 320 * 180, "pass %d: one colour covers %d pixels", pass, top);
        ck_assert_msg(used >= 48, "pass %d: only %d colours in use", pass, used);
        sim_frame_free(&f);
        run(w, 1800);
    }
    sim_world_destroy(w);
}
END_TEST

/* Highest water cell in column x (below the sky), or -1. */
static int water_top(sim_world *w, int x)
{
    for (int y = 60; y < 180; y++)
        if (at(w, x, y) == el_id("water")) return y;
    return -1;
}

/* The lake is poured in lopsided (its surface falls 14 rows from the waterfall to the spillway);
 * within 15 s it lies flat, and the waterfall keeps it topped up without a mound. */
START_TEST(demo_lake_levels)
{
    sim_world *w = mk(1, "");
    int lo = 999, hi = -1;
    for (int x = 80; x <= 135; x++) {
        int t = water_top(w, x);
        ck_assert_int_ge(t, 0);
        if (t < lo) lo = t;
        if (t > hi) hi = t;
    }
    ck_assert_msg(hi - lo >= 10, "tick 0: the lake's surface spans only %d rows", hi - lo);
    for (int check = 0; check < 3; check++) {
        run(w, check == 0 ? 900 : 450);
        lo = 999; hi = -1;
        for (int x = 80; x <= 135; x++) {
            int t = water_top(w, x);
            ck_assert_int_ge(t, 0);
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        ck_assert_msg(hi - lo <= 1, "tick %llu: the lake's surface spans rows %d..%d",
                      (unsigned long long)sim_world_tick(w), lo, hi);
    }
    sim_world_destroy(w);
}
END_TEST

/* The lava vent erupts through the glacier at once: within 30 s (1,800 ticks) a fifth of the ice
 * has melted, steam has risen from it, and lava has reached into the ice. */
START_TEST(demo_glacier_melts_over_the_vent)
{
    sim_world *w = mk(1, "");
    int ice = el_id("ice"), ice0 = count_in(w, ice, 256, 50, 300, 80);
    ck_assert_int_gt(ice0, 400);
    int steam = 0;
    for (int t = 0; t < 1800; t++) {
        sim_world_step(w);
        if (t % 30 == 0) {
            int n = count(w, "steam");
            if (n > steam) steam = n;
        }
    }
    int ice1 = count_in(w, ice, 256, 50, 300, 80);
    ck_assert_msg(ice1 * 5 < ice0 * 4, "ice %d → %d in 30 s", ice0, ice1);
    ck_assert_int_gt(steam, 10);
    sim_world_destroy(w);
}
END_TEST

/* The campfire lights the tree within 30 s and it burns to nothing but smoke; then it grows back. */
START_TEST(demo_tree_burns_and_grows_back)
{
    sim_world *w = mk(1, "");
    void *s = sim__world_impl(w);
    int wood = el_id("wood"), wood0 = count_in(w, wood, 148, 50, 190, 109);
    ck_assert_int_gt(wood0, 500);
    int burning = 0, least = wood0;
    for (int t = 0; t < 1800; t++) {
        sim_world_step(w);
        if (t % 20) continue;
        int n = 0;
        for (int y = 50; y <= 109; y++)
            for (int x = 148; x <= 190; x++)
                n += sand__element(s, x, y) == wood && (sand__cell(s, x, y) >> 16 & SAND_F_BURNING);
        if (n > burning) burning = n;
        int left = count_in(w, wood, 148, 50, 190, 109);
        if (left < least) least = left;
    }
    ck_assert_msg(burning > 100, "at most %d cells of the tree burned at once", burning);
    ck_assert_msg(least * 10 < wood0, "the tree burned down only to %d of %d", least, wood0);
    run(w, 600);
    ck_assert_msg(count_in(w, wood, 148, 50, 190, 109) * 10 > wood0 * 8, "the tree did not grow back");
    sim_world_destroy(w);
}
END_TEST

/* The bench scene stays as it is, state and frame, so that benchmarks stay comparable
 * (`viv sim --world sand --seed 9 --ticks 2000 --params scene=bench`). Issue 13 left it as it
 * was (a68b8cd6955a597c 8461989bc55d8ca2); issue 17's strip passes changed the order in which
 * cells are updated, and so every state after tick 0, on purpose: these are the hashes since. */
/* A load keeps drawing: the picture built at create moves over from the world a load replaces
 * (adopt), again and again, and is built afresh when the loaded state has another size or
 * scene: each draws as a world created with the state's params and loaded the same. */
START_TEST(load_keeps_drawing)
{
    sim_world *a = mk(3, NULL), *b = mk(3, NULL);
    run(a, 120);
    size_t cap = sim_world_save_max(a);
    uint8_t *sa = malloc(cap);
    size_t na = sim_world_save(a, sa, cap);
    ck_assert_uint_gt(na, 0);
    script_load_draws_alike(a, b, sa, na);
    sim_world *c = mk(5, "w=64,h=48,scene=bench");
    run(c, 60);
    size_t capc = sim_world_save_max(c);
    uint8_t *sc = malloc(capc);
    size_t nc = sim_world_save(c, sc, capc);
    ck_assert_uint_gt(nc, 0);
    script_load_draws_alike(c, b, sc, nc);          /* b: a demo world, now a bench one */
    script_load_draws_alike(a, b, sa, na);          /* and back to the demo */
    free(sa);
    free(sc);
    sim_world_destroy(a);
    sim_world_destroy(b);
    sim_world_destroy(c);
}
END_TEST

START_TEST(bench_scene_unchanged)
{
    sim_world *w = mk(9, "scene=bench");
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    run(w, 2000);
    sim_world_render(w, 0, &f);
    /* State version 3 hashes by chunk digests (issue 30, on purpose); as version 2, the hash this
     * test held before it: the same cells. */
    ck_assert_uint_eq(sim_world_hash(w), 0xec7180ff3fa77b0cull);
    ck_assert_int_eq(sim_world_set_state_version(w, 2), 0);
    ck_assert_uint_eq(sim_world_hash(w), 0x0f764bc7392dbdddull);
    ck_assert_uint_eq(sim_frame_hash(&f), 0x1eda43a5e21f2b01ull);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

/* ---- the passes (issue 17) ------------------------------------------------------------------------
 * The step runs strip by strip in SAND_PHASES phases, and sand_int.h proves from the rules that one
 * cell's update reaches at most SAND_REACH cells, so that the strips of one phase never touch the
 * same memory. Here the proof meets the code: every pass goes through a runner that takes one item
 * (one strip) at a time, and after each item every cell it changed must lie within SAND_REACH
 * columns of its strip and every rectangle it marked in its own or a neighbouring chunk column;
 * the strips of one pass must be SAND_PHASES apart. */
typedef struct footprint {
    const void *impl;
    int w, h, ncx, ncy;
    uint32_t *cells;                   /* before the item, row by row */
    uint32_t *now;                     /* after it (scratch) */
    int (*rects)[4];                   /* before the item; [0] = -1: asleep */
    const script_runner *runner;
    long pass, first_strip, items, outside, reach;
} footprint;

static void fp_snapshot(footprint *fp)
{
    sand__cells_copy(fp->impl, fp->cells);
    for (int k = 0; k < fp->ncx * fp->ncy; k++)
        if (sand__next_rect(fp->impl, k % fp->ncx, k / fp->ncx, fp->rects[k]) != 0) fp->rects[k][0] = -1;
}

static void fp_before(void *ud, void *task_ctx, int item)
{
    (void)task_ctx; (void)item;
    fp_snapshot(ud);
}

static void fp_after(void *ud, void *task_ctx, int item)
{
    footprint *fp = ud;
    int k = sand__strip_of(task_ctx, item);
    ck_assert_int_ge(k, 0);
    ck_assert_int_lt(k, fp->ncx);
    if (fp->items == 0 || fp->runner->passes != fp->pass) {  /* the first item of a pass */
        fp->pass = fp->runner->passes;
        fp->first_strip = k;
    } else {
        ck_assert_msg(k % SAND_PHASES == fp->first_strip % SAND_PHASES, "strips %ld and %d in one "
                      "pass", fp->first_strip, k);
    }
    fp->items++;
    int lo = k * SAND_CHUNK - SAND_REACH, hi = k * SAND_CHUNK + SAND_CHUNK - 1 + SAND_REACH;
    const uint32_t *now = fp->now;
    sand__cells_copy(fp->impl, fp->now);
    for (int y = 0; y < fp->h; y++) {
        const uint32_t *a = &fp->cells[y * fp->w], *b = &now[y * fp->w];
        if (memcmp(a, b, (size_t)fp->w * 4) == 0) continue;
        for (int x = 0; x < fp->w; x++) {
            if (a[x] == b[x]) continue;
            ck_assert_msg(x >= lo && x <= hi, "strip %d (columns %d..%d) changed cell (%d,%d), more "
                          "than SAND_REACH = %d columns away", k, k * SAND_CHUNK,
                          k * SAND_CHUNK + SAND_CHUNK - 1, x, y, SAND_REACH);
            int d = x < k * SAND_CHUNK ? k * SAND_CHUNK - x : x - (k * SAND_CHUNK + SAND_CHUNK - 1);
            if (d > 0) fp->outside++;
            if (d > fp->reach) fp->reach = d;
        }
    }
    for (int c = 0; c < fp->ncx * fp->ncy; c++) {
        int r[4];
        if (sand__next_rect(fp->impl, c % fp->ncx, c / fp->ncx, r) != 0) r[0] = -1;
        if (memcmp(r, fp->rects[c], r[0] < 0 && fp->rects[c][0] < 0 ? sizeof r[0] : sizeof r) == 0)
            continue;
        int cx = c % fp->ncx;
        ck_assert_msg(cx >= k - 1 && cx <= k + 1, "strip %d marked the rectangle of chunk (%d,%d)",
                      k, cx, c / fp->ncx);
    }
}

/* Run `ticks` ticks of w through the footprint runner; the inputs of s (may be NULL) fed. */
static void footprint_run(sim_world *w, const script *s, int ticks, void *ud)
{
    footprint *fp = ud;
    fp->impl = sim__world_impl(w);
    sand__size(fp->impl, &fp->w, &fp->h);
    fp->ncx = (fp->w + SAND_CHUNK - 1) / SAND_CHUNK;
    fp->ncy = (fp->h + SAND_CHUNK - 1) / SAND_CHUNK;
    fp->cells = malloc((size_t)fp->w * fp->h * 4);
    fp->now = malloc((size_t)fp->w * fp->h * 4);
    fp->rects = malloc((size_t)fp->ncx * fp->ncy * sizeof *fp->rects);
    script_runner *r = malloc(sizeof *r);
    ck_assert(fp->cells && fp->now && fp->rects && r);
    script_runner_init(r, SCRIPT_RUN_SHUFFLED, 2);
    r->before = fp_before;
    r->after = fp_after;
    r->ud = fp;
    fp->runner = r;
    sim_world_set_tasks(w, &r->tasks);
    size_t next = 0;
    long strips_seen = 0;
    for (int t = 0; t < ticks; t++) {
        if (s) script_feed(w, s, &next);
        long p0 = r->passes, i0 = fp->items;
        sim_world_step(w);
        ck_assert_int_le(r->passes - p0, SAND_PHASES);
        strips_seen += fp->items - i0;
    }
    ck_assert_int_gt(strips_seen, 0);
    sim_world_set_tasks(w, NULL);
    free(r);
    free(fp->cells);
    free(fp->now);
    free(fp->rects);
}

/* The two workloads of the checks on what strips touch: the golden script's first 1,000 ticks
 * (explosions at 150, 500 and 800; fire, lava, acid) and the bench scene's first 300. */
static void both_workloads(void (*each)(sim_world *w, const script *s, int ticks, void *ud), void *ud)
{
    script s = script_load("sand", "golden/sand.inputs");
    sim_world *w = mk(42, "");
    each(w, &s, 1000, ud);
    sim_world_destroy(w);
    script_free(&s);
    w = mk(9, "scene=bench");
    each(w, NULL, 300, ud);
    sim_world_destroy(w);
}

START_TEST(strips_of_a_pass_touch_disjoint_cells)
{
    footprint fp;
    memset(&fp, 0, sizeof fp);
    both_workloads(footprint_run, &fp);
    /* Not vacuous: items wrote across their strip's edges, explosion debris several cells out. */
    ck_assert_int_gt(fp.items, 10000);
    ck_assert_int_gt(fp.outside, 1000);
    ck_assert_int_ge(fp.reach, 4);
    ck_assert_int_le(fp.reach, SAND_REACH);
}
END_TEST

/* The tick's graph (sim_graph, for hosts that run graphs): its items are the awake strips from
 * left to right, and every pair of them within two strips of each other (the pairs that share
 * cells or rectangles, sand_int.h) has an edge from the one whose phase comes first this tick to
 * the other; no other pair has one. Checked on every graph of the golden script's first 1,000
 * ticks and of the bench scene, each then run in a random order it allows. */
typedef struct graph_check {
    sim_tasks tasks;
    script_runner *runner;              /* runs each graph after the check (shuffled) */
    uint64_t tick;                      /* the tick being stepped */
    long graphs, items, edges;
} graph_check;

static int phase_pos_at(uint64_t tick, int k)
{
    return (tick & 1u) ? SAND_PHASES - 1 - k % SAND_PHASES : k % SAND_PHASES;
}

static int check_graph(sim_task_fn *fn, const sim_graph *g, void *task_ctx, void *user)
{
    graph_check *c = user;
    int n = g->count;
    ck_assert_int_gt(n, 0);
    static char edge[64][64];
    ck_assert_int_le(n, 64);
    memset(edge, 0, sizeof edge);
    int deps[64] = { 0 };
    for (int i = 0; i < n; i++)
        for (int e = g->succ_first[i]; e < g->succ_first[i + 1]; e++) {
            int j = g->succ[e];
            ck_assert(j >= 0 && j < n && !edge[i][j]);
            edge[i][j] = 1;
            deps[j]++;
            c->edges++;
        }
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(deps[i], g->ndeps[i]);
        int a = sand__strip_of(task_ctx, i);
        if (i > 0) ck_assert_int_lt(sand__strip_of(task_ctx, i - 1), a);   /* left to right */
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            int b = sand__strip_of(task_ctx, j);
            int share = abs(a - b) <= 2;
            int first = phase_pos_at(c->tick, a) < phase_pos_at(c->tick, b);
            ck_assert_msg(edge[i][j] == (share && first), "tick %llu: strips %d and %d: edge %d, "
                          "expected %d", (unsigned long long)c->tick, a, b, edge[i][j], share && first);
        }
    }
    c->graphs++;
    c->items += n;
    return c->runner->tasks.run_graph(fn, g, task_ctx, c->runner);
}

/* Passes (a tick too small for a graph hands none out; only a host declining graphs would). */
static void *check_enqueue(sim_task_fn *fn, int count, int min_range, void *task_ctx, void *user)
{
    graph_check *c = user;
    return c->runner->tasks.enqueue(fn, count, min_range, task_ctx, c->runner);
}

static void graph_check_run(sim_world *w, const script *s, int ticks, void *ud)
{
    graph_check *c = ud;
    sim_world_set_tasks(w, &c->tasks);
    size_t next = 0;
    for (int t = 0; t < ticks; t++) {
        if (s) script_feed(w, s, &next);
        c->tick = sim_world_tick(w);
        sim_world_step(w);
    }
    sim_world_set_tasks(w, NULL);
}

START_TEST(tick_graph_orders_every_pair_that_shares)
{
    script_runner *r = malloc(sizeof *r);
    ck_assert_ptr_nonnull(r);
    script_runner_init(r, SCRIPT_RUN_SHUFFLED, 2);
    script_runner_graphs(r);
    graph_check c;
    memset(&c, 0, sizeof c);
    c.tasks.workers = 2;
    c.tasks.enqueue = check_enqueue;
    c.tasks.user = &c;
    c.tasks.run_graph = check_graph;
    c.runner = r;
    both_workloads(graph_check_run, &c);
    ck_assert_int_gt(c.graphs, 500);
    ck_assert_int_gt(c.items, 5 * c.graphs);
    ck_assert_int_gt(c.edges, c.items);
    free(r);
}
END_TEST


/* ---- big worlds (issue 30) --------------------------------------------------------------------------
 * Sand worlds up to 4096×2048 (SAND_W_MAX × SAND_H_MAX); beyond 640×480 the demo is composed at
 * the world's own size (sim/sand/big.c), not the 320×180 plan scaled up. */

/* The big golden run (tests/golden/sand-big.args and .inputs: seed 42, a 2048×1024 demo, 300
 * ticks, inputs all over it and past its edges) against tests/golden/sand-big.chain. */
START_TEST(big_golden_chain)
{
    ck_assert_int_eq(script_golden_kind("sand-big", NULL), 3);
}
END_TEST

/* Frame hash of w's picture now. */
static uint64_t frame_hash_of(sim_world *w)
{
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    uint64_t h = sim_frame_hash(&f);
    sim_frame_free(&f);
    return h;
}

/* A big world created, stepped, rendered, saved, and loaded into a world of another size, scene
 * and seed, and into one of its own size and scene but another seed (the layout, and so the
 * picture, comes from the seed: adopt must not keep the old one): both hash and draw alike, and
 * go on alike, tick by tick. */
static void big_round_trip(const char *params, int ticks)
{
    sim_world *a = mk(5, params);
    int W, H;
    sand__size(sim__world_impl(a), &W, &H);
    ck_assert_int_gt(W * H, 640 * 480);
    in(a, "paint 1000 300 20 water");
    in(a, "explode 1500 700 30");
    run(a, ticks);
    size_t cap = sim_world_save_max(a);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(a, buf, cap);
    ck_assert_uint_gt(n, (size_t)W * H * 4);
    sim_world *others[2] = { mk(1, "w=64,h=48,scene=bench"), mk(6, params) };
    for (int k = 0; k < 2; k++) {
        sim_world *b = others[k];
        ck_assert_int_eq(sim_world_load(b, buf, n), 0);
        ck_assert_uint_eq(sim_world_hash(b), sim_world_hash(a));
        ck_assert_uint_eq(frame_hash_of(b), frame_hash_of(a));
    }
    for (int t = 0; t < 20; t++) {
        if (t == 3) {
            in(a, "paint 700 200 10 fire");
            in(others[0], "paint 700 200 10 fire");
            in(others[1], "paint 700 200 10 fire");
        }
        sim_world_step(a);
        for (int k = 0; k < 2; k++) {
            sim_world_step(others[k]);
            ck_assert_uint_eq(sim_world_hash(others[k]), sim_world_hash(a));
        }
        if (t % 10 == 9)
            for (int k = 0; k < 2; k++) ck_assert_uint_eq(frame_hash_of(others[k]), frame_hash_of(a));
    }
    free(buf);
    sim_world_destroy(a);
    sim_world_destroy(others[0]);
    sim_world_destroy(others[1]);
}

START_TEST(big_world_2048x1024_round_trips)
{
    big_round_trip("w=2048,h=1024", 120);
}
END_TEST

START_TEST(big_world_4096x2048_round_trips)
{
    big_round_trip("w=4096,h=2048", 30);
}
END_TEST

/* Cells of element `el` in the whole world, and the longest run of it along a row. */
static int count_all(sim_world *w, int el, int *run_max)
{
    void *s = sim__world_impl(w);
    int W, H, n = 0, best = 0;
    sand__size(s, &W, &H);
    for (int y = 0; y < H; y++)
        for (int x = 0, len = 0; x < W; x++) {
            int here = sand__element(s, x, y) == el;
            n += here;
            len = here ? len + 1 : 0;
            if (len > best) best = len;
        }
    if (run_max) *run_max = best;
    return n;
}

/* The demo at 2048×1024 is a landscape composed at that size: every element of the small demo's
 * features is there at tick 0 (water, sand, oil, lava, ice, wood) and acid besides; its trees
 * are the small demo's size (the plan scaled up would make one tree 218 wide), and there are
 * more than one of them; the frame has the big palette, many colours and none that covers a
 * fifth of it; the same seed gives the same world and another seed another layout. */
START_TEST(big_demo_is_composed_at_its_size)
{
    sim_world *w = mk(1, "w=2048,h=1024");
    static const char *const present[] = { "water", "sand", "oil", "lava", "ice", "wood", "acid" };
    for (int k = 0; k < 7; k++)
        ck_assert_msg(count_all(w, el_id(present[k]), NULL) > 500, "no %s at tick 0", present[k]);
    int wood_run;
    count_all(w, el_id("wood"), &wood_run);
    ck_assert_msg(wood_run >= 20 && wood_run <= 60, "the widest tree is %d cells across", wood_run);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    ck_assert_int_gt(f.pal.count, 90);
    static int hist[256];
    memset(hist, 0, sizeof hist);
    for (int i = 0; i < f.w * f.h; i++) hist[f.px[i]]++;
    int used = 0, top = 0;
    for (int k = 0; k < 256; k++) {
        used += hist[k] > 0;
        if (hist[k] > top) top = hist[k];
    }
    ck_assert_msg(used >= 60, "only %d colours in use", used);
    ck_assert_msg(top * 5 < f.w * f.h, "one colour covers %d pixels", top);
    sim_frame_free(&f);
    sim_world *same = mk(1, "w=2048,h=1024"), *other = mk(2, "w=2048,h=1024");
    ck_assert_uint_eq(sim_world_hash(same), sim_world_hash(w));
    ck_assert_uint_ne(sim_world_hash(other), sim_world_hash(w));
    sim_world_destroy(same);
    sim_world_destroy(other);
    sim_world_destroy(w);
}
END_TEST

/* A big demo comes alive at once: within 15 s a campfire has flared (fire), the geyser or the
 * glacier has steamed, and every second thousands of cells change; after a minute nothing has
 * run away: no element has grown beyond half again what there was (every source has a sink) and
 * none of the liquids has gone. */
START_TEST(big_demo_comes_alive_and_stays_bounded)
{
    sim_world *w = mk(1, "w=2048,h=1024");
    void *s = sim__world_impl(w);
    static const char *const kept[] = { "water", "sand", "oil", "lava", "acid" };
    int start[5];
    for (int k = 0; k < 5; k++) start[k] = count_all(w, el_id(kept[k]), NULL);
    int fire = 0, steam = 0;
    for (int t = 0; t < 900; t += 60) {
        run(w, 60);
        fire += count_all(w, el_id("fire"), NULL);
        steam += count_all(w, el_id("steam"), NULL);
    }
    ck_assert_msg(fire > 0 && steam > 0, "15 s in: fire %d, steam %d", fire, steam);
    int W, H;
    sand__size(s, &W, &H);
    uint32_t *prev = malloc((size_t)W * H * 4), *after = malloc((size_t)W * H * 4);
    sand__cells_copy(s, prev);
    run(w, 60);
    sand__cells_copy(s, after);
    int changed = 0;
    for (int i = 0; i < W * H; i++) changed += after[i] != prev[i];
    ck_assert_msg(changed > 2000, "only %d cells changed in the 16th second", changed);
    free(prev);
    free(after);
    run(w, 3600 - 960);
    for (int k = 0; k < 5; k++) {
        int now = count_all(w, el_id(kept[k]), NULL);
        ck_assert_msg(now * 2 < start[k] * 3 && now * 2 > start[k], "%s: %d at tick 0, %d at 60 s",
                      kept[k], start[k], now);
    }
    sim_world_destroy(w);
}
END_TEST

Suite *suite_sand(void)
{
    Suite *s = suite_create("sand");
    TCase *det = tcase_create("determinism");
    tcase_set_timeout(det, 600);
    tcase_add_test(det, golden_chain);
    tcase_add_test(det, sync_test_every_tick);
    tcase_add_test(det, same_inputs_same_hash_other_seed_differs);
    tcase_add_test(det, strips_of_a_pass_touch_disjoint_cells);
    tcase_add_test(det, tick_graph_orders_every_pair_that_shares);
    suite_add_tcase(s, det);
    TCase *beh = tcase_create("behaviour");
    tcase_set_timeout(beh, 600);
    tcase_add_test(beh, sand_sinks_below_water);
    tcase_add_test(beh, oil_ends_above_water);
    tcase_add_test(beh, burning_wood_burns_away_and_smokes);
    tcase_add_test(beh, water_on_lava_makes_stone_and_steam);
    tcase_add_test(beh, acid_eats_stone_not_wall);
    tcase_add_test(beh, ice_melts_near_fire);
    tcase_add_test(beh, gas_rises_and_fire_has_a_lifetime);
    tcase_add_test(beh, erase_and_explode);
    tcase_add_test(beh, paint_clips_out_of_frame_discs);
    tcase_add_test(beh, sleeping_chunk_wakes_for_its_neighbour);
    tcase_add_test(beh, settled_world_sleeps);
    suite_add_tcase(s, beh);
    TCase *pic = tcase_create("picture");
    tcase_set_timeout(pic, 600);
    tcase_add_test(pic, demo_picture_fills_the_frame);
    tcase_add_test(pic, demo_lake_levels);
    tcase_add_test(pic, demo_glacier_melts_over_the_vent);
    tcase_add_test(pic, demo_tree_burns_and_grows_back);
    tcase_add_test(pic, bench_scene_unchanged);
    tcase_add_test(pic, load_keeps_drawing);
    suite_add_tcase(s, pic);
    TCase *big = tcase_create("big");
    tcase_set_timeout(big, 900);
    tcase_add_test(big, big_golden_chain);
    tcase_add_test(big, big_world_2048x1024_round_trips);
    tcase_add_test(big, big_world_4096x2048_round_trips);
    tcase_add_test(big, big_demo_is_composed_at_its_size);
    tcase_add_test(big, big_demo_comes_alive_and_stays_bounded);
    suite_add_tcase(s, big);
    TCase *lr = tcase_create("long_run");
    tcase_set_timeout(lr, 900);
    tcase_add_test(lr, demo_long_run_stays_alive);
    suite_add_tcase(s, lr);
    return s;
}
