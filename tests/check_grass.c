/* check_grass.c — grass in tufts (sim/anim/grass.c, seed 000 §5) as a viewer sees it: the lean
 * frames are row shears with the bottom row pinned; the wind leans the field its way, harder in a
 * gale; waves cross the field in the wind's direction at the speed the numbers give; leans change
 * on 3s only; a creature walking through parts the tufts and they stand again; save → load →
 * continue equals continue, and refused blobs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "anim/grass.h"

enum { KEY = 0, W = 7, H = 12 };
static uint8_t tuft_px[2][W * H];

static void mk(sim_grass *g, int cap)
{
    const uint8_t shades[3] = { 3, 4, 5 };
    ck_assert_int_eq(sim_grass_tuft_sprite(tuft_px[0], W, H, KEY, shades, 3, 1), 0);
    ck_assert_int_eq(sim_grass_tuft_sprite(tuft_px[1], W, H, KEY, shades, 3, 2), 0);
    sim_sprite sp[2] = { { W, H, tuft_px[0], KEY }, { W, H, tuft_px[1], KEY } };
    ck_assert_int_eq(sim_grass_init(g, cap, sp, 2), 0);
}

/* A field: a tuft every 2 px across 320 px. */
static void field(sim_grass *g, uint64_t seed)
{
    mk(g, 200);
    sim_rng r;
    sim_rng_stream(&r, seed, "grass");
    for (int x = 0; x < 320; x += 2) ck_assert_int_ge(sim_grass_add(g, x, 100, (x / 2) % 2, &r), 0);
}

/* The seed's frames: the bottom row never moves, the top row moves by the lean (0, 1, 2 px either
 * way), every row keeps its pixels in order, and no colour is added. */
START_TEST(lean_frames_are_row_shears)
{
    sim_grass g;
    mk(&g, 4);
    int fw = W + 2 * SIM_GRASS_LEAN;
    for (int lean = -2; lean <= 2; lean++) {
        const uint8_t *img = sim_grass_frame(&g, 0, lean);
        ck_assert_ptr_nonnull(img);
        for (int y = 0; y < H; y++) {
            const uint8_t *row = img + y * fw;
            /* the row is the sprite's row at some shift: find it */
            int shift = -99;
            for (int s = -2; s <= 2 && shift == -99; s++) {
                int ok = 1;
                for (int x = 0; x < fw && ok; x++) {
                    int sx = x - SIM_GRASS_LEAN - s;
                    uint8_t want = sx >= 0 && sx < W ? tuft_px[0][y * W + sx] : KEY;
                    ok = row[x] == want;
                }
                if (ok) shift = s;
            }
            ck_assert_msg(shift != -99, "lean %d row %d is not a shifted copy", lean, y);
            if (y == H - 1) ck_assert_int_eq(shift, 0);
            /* rows with pixels: the top row shifts by the lean, the others by no more */
            int any = 0;
            for (int x = 0; x < W; x++) any |= tuft_px[0][y * W + x] != KEY;
            if (any && y == 0) ck_assert_int_eq(shift, lean);
            if (any) ck_assert(abs(shift) <= abs(lean) && shift * lean >= 0);
        }
    }
    ck_assert_ptr_null(sim_grass_frame(&g, 0, 3));
    ck_assert_ptr_null(sim_grass_frame(&g, 2, 0));
    sim_grass_free(&g);
}
END_TEST

static double mean_lean(const sim_grass *g)
{
    long s = 0;
    for (int i = 0; i < g->ntuft; i++) s += sim_grass_lean(g, i);
    return (double)s / g->ntuft;
}

/* The wind leans the field its way, a gale more than a breeze, and a calm barely stirs it. */
START_TEST(wind_leans_the_field)
{
    const int winds[5] = { -100, -40, 0, 40, 100 };
    double m[5];
    for (int k = 0; k < 5; k++) {
        sim_grass g;
        field(&g, 1);
        double sum = 0;
        for (int t = 0; t < 600; t++) {
            sim_grass_step(&g, winds[k]);
            sum += mean_lean(&g);
        }
        m[k] = sum / 600;
        sim_grass_free(&g);
    }
    ck_assert_msg(m[4] > 1.0 && m[3] > 0.3 && m[3] < m[4], "right: %g %g", m[3], m[4]);
    ck_assert_msg(m[0] < -1.0 && m[1] < -0.3 && m[1] > m[0], "left: %g %g", m[1], m[0]);
    ck_assert_msg(m[2] > -0.2 && m[2] < 0.2, "calm: %g", m[2]);
}
END_TEST

/* The best match of the lean profile at t + dt against the profile at t, shifted by d px. */
static int best_shift(const int *a, const int *b, int n, int dmin, int dmax)
{
    int best = dmin;
    long bestv = -1;
    for (int d = dmin; d <= dmax; d++) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            int j = i - d / 2;                       /* tufts are 2 px apart */
            if (j >= 0 && j < n) v += a[j] == b[i];
        }
        if (v > bestv) {
            bestv = v;
            best = d;
        }
    }
    return best;
}

/* Waves cross the field: the pattern of leans 30 ticks on is the pattern now moved downwind. In a
 * wind of 60 the sway ripples run (96 px)/(120/1.6 ticks) = 1.28 px a tick and the gusts 0.9: the
 * pattern moves 27 to 38 px in 30 ticks; in the mirrored wind it moves as far the other way.
 * Measured over many starts so one lucky match cannot pass it. */
START_TEST(waves_cross_the_field)
{
    for (int side = -1; side <= 1; side += 2) {
        sim_grass g;
        field(&g, 2);
        int n = g.ntuft;
        int *now = malloc(sizeof(int) * n), *later = malloc(sizeof(int) * n);
        long total = 0;
        int samples = 0, downwind = 0;
        for (int t = 0; t < 600; t++) sim_grass_step(&g, 60 * side);
        for (int s = 0; s < 20; s++) {
            for (int i = 0; i < n; i++) now[i] = sim_grass_lean(&g, i);
            for (int t = 0; t < 30; t++) sim_grass_step(&g, 60 * side);
            for (int i = 0; i < n; i++) later[i] = sim_grass_lean(&g, i);
            int d = best_shift(now, later, n, -60, 60);
            total += d;
            samples++;
            downwind += d * side > 10;
            for (int t = 0; t < 7; t++) sim_grass_step(&g, 60 * side);
        }
        double mean = (double)total / samples;
        ck_assert_msg(mean * side >= 20 && mean * side <= 45, "wind %d: pattern moved %g px in "
                      "30 ticks", 60 * side, mean);
        ck_assert_msg(downwind >= 18, "only %d of 20 samples moved downwind", downwind);
        free(now);
        free(later);
        sim_grass_free(&g);
    }
}
END_TEST

/* The wind's lean is recomputed on 3s: between, it holds. */
START_TEST(leans_change_on_threes)
{
    sim_grass g;
    field(&g, 3);
    int8_t prev[200];
    int changes_on_hold = 0, changes = 0;
    for (int t = 0; t < 300; t++) {
        for (int i = 0; i < g.ntuft; i++) prev[i] = g.tuft[i].wind;
        int recompute = g.until == 0;
        sim_grass_step(&g, 80);
        for (int i = 0; i < g.ntuft; i++) {
            if (g.tuft[i].wind == prev[i]) continue;
            changes++;
            changes_on_hold += !recompute;
        }
        if (t > 0) ck_assert_int_eq(recompute, t % 3 == 0);
    }
    ck_assert_int_eq(changes_on_hold, 0);
    ck_assert(changes > 100);
    sim_grass_free(&g);
}
END_TEST

/* A creature walking through parts the tufts around it (left of it leaning left, right of it
 * right, by 2 px near and 1 px farther), tufts out of reach are untouched, and once it has gone
 * they stand again within 24 ticks plus a recompute. */
START_TEST(walker_parts_the_grass)
{
    sim_grass g;
    field(&g, 4);
    for (int t = 0; t < 5; t++) sim_grass_step(&g, 0);
    for (int x = 100; x <= 160; x += 1) {                   /* walk right, a pixel a tick */
        sim_grass_push(&g, x, 8, 1);
        sim_grass_step(&g, 0);
    }
    for (int i = 0; i < g.ntuft; i++) {
        int x = g.tuft[i].x;
        int bend = g.tuft[i].bend, lean = sim_grass_lean(&g, i);
        /* a calm sways at most 1 px, so a 2-px bend shows whatever the sway does */
        if (x >= 156 && x < 160) ck_assert_msg(bend == -2 && lean <= -1, "x %d: %d", x, lean);
        if (x > 160 && x <= 164) ck_assert_msg(bend == 2 && lean >= 1, "x %d: %d", x, lean);
        if (x >= 152 && x < 156) ck_assert_msg(bend < 0, "x %d: bend %d", x, bend);
        if (x > 164 && x <= 168) ck_assert_msg(bend == 1, "x %d: bend %d", x, bend);
        if (x < 90 || x > 168) ck_assert_int_eq(bend, 0);
    }
    for (int t = 0; t < 27; t++) sim_grass_step(&g, 0);
    for (int i = 0; i < g.ntuft; i++) ck_assert_int_eq(g.tuft[i].bend, 0);
    sim_grass_free(&g);
}
END_TEST

/* Drawn: each tuft is its baked frame for its lean, with the bottom centre at (x, y); only the
 * sprite's shades appear. */
START_TEST(draw_blits_the_frames)
{
    sim_grass g;
    mk(&g, 4);
    sim_rng r;
    sim_rng_stream(&r, 5, "grass");
    ck_assert_int_eq(sim_grass_add(&g, 20, 30, 0, &r), 0);
    g.tuft[0].wind = 2;
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 40, 40), 0);
    sim_raster_clear(&f, 9);
    sim_grass_draw(&g, &f);
    const uint8_t *img = sim_grass_frame(&g, 0, 2);
    int fw = W + 4, left = 20 - W / 2 - 2, top = 30 - H + 1;
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 40; x++) {
            int ix = x - left, iy = y - top;
            uint8_t want = 9;
            if (ix >= 0 && ix < fw && iy >= 0 && iy < H && img[iy * fw + ix] != KEY)
                want = img[iy * fw + ix];
            ck_assert_int_eq(f.px[y * 40 + x], want);
            ck_assert(want == 9 || (want >= 3 && want <= 5));
        }
    /* the bottom row is at y = 30 and holds a root */
    int roots = 0;
    for (int x = 0; x < 40; x++) roots += f.px[30 * 40 + x] != 9;
    ck_assert(roots >= 3);
    sim_frame_free(&f);
    sim_grass_free(&g);
}
END_TEST

static size_t save(const sim_grass *g, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_grass_save(g, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_le(wr.len, sim_grass_save_max(g));
    return wr.len;
}

START_TEST(save_load_continue)
{
    sim_grass a, b;
    field(&a, 6);
    mk(&b, 200);
    for (int t = 0; t < 100; t++) {
        if (t > 50) sim_grass_push(&a, 2 * t, 6, 1);
        sim_grass_step(&a, t - 50);
    }
    static uint8_t buf[4096], buf2[4096];
    size_t n = save(&a, buf, sizeof buf);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_grass_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, n);
    for (int t = 0; t < 400; t++) {
        if (t % 5 == 0) {
            sim_grass_push(&a, 300 - t / 2, 5, -1);
            sim_grass_push(&b, 300 - t / 2, 5, -1);
        }
        sim_grass_step(&a, 90 - t / 2);
        sim_grass_step(&b, 90 - t / 2);
    }
    n = save(&a, buf, sizeof buf);
    ck_assert_uint_eq(save(&b, buf2, sizeof buf2), n);
    ck_assert_mem_eq(buf, buf2, n);
    sim_grass_free(&a);
    sim_grass_free(&b);
}
END_TEST

/* Refused with the target untouched: tag, more tufts than room, a gust out of range, the hold
 * counter, an unknown sprite, leans and bends past ±2, a hold with no bend, every truncation. */
START_TEST(load_refuses_corrupt)
{
    sim_grass a, b;
    mk(&a, 8);
    mk(&b, 8);
    sim_rng r;
    sim_rng_stream(&r, 7, "grass");
    for (int i = 0; i < 3; i++) sim_grass_add(&a, 10 * i, 50, i % 2, &r);
    for (int t = 0; t < 4; t++) sim_grass_step(&a, 50);
    sim_grass_add(&b, 5, 5, 0, &r);
    sim_grass_step(&b, -20);
    static uint8_t buf[512], bad[512], before[512], after[512];
    size_t n = save(&a, buf, sizeof buf), nb = save(&b, before, sizeof before);
    ck_assert_uint_eq(n, 13 + 3 * 12);
    /* header: tag 0, n 2, sway 4, gust 8, until 12; tuft k at 13 + 12k: x 0, y 2, sprite 4,
     * wind 5, bend 6, bend_t 7, phase 8 */
    struct { size_t at; uint8_t v; } pokes[] = {
        { 0, 0 }, { 2, 9 }, { 11, 0x80 }, { 10, 0x7f }, { 12, 3 },
        { 13 + 4, 2 }, { 13 + 5, 3 }, { 13 + 5, 0xfd }, { 13 + 6, 3 }, { 13 + 7, 5 },
    };
    for (size_t k = 0; k < sizeof pokes / sizeof pokes[0]; k++) {
        memcpy(bad, buf, n);
        bad[pokes[k].at] = pokes[k].v;
        sim_reader rd;
        sim__r_init(&rd, bad, n);
        ck_assert_msg(sim_grass_load(&b, &rd) == SIM_ECORRUPT, "poke %zu", k);
        ck_assert_uint_eq(save(&b, after, sizeof after), nb);
        ck_assert_mem_eq(after, before, nb);
    }
    for (size_t len = 0; len < n; len++) {
        sim_reader rd;
        sim__r_init(&rd, buf, len);
        ck_assert_int_eq(sim_grass_load(&b, &rd), SIM_ETRUNC);
        save(&b, after, sizeof after);
        ck_assert_mem_eq(after, before, nb);
    }
    ck_assert_int_eq(sim_grass_add(&a, 1 << 20, 0, 0, &r), SIM_EINVAL);
    ck_assert_int_eq(sim_grass_add(&a, 0, 0, 2, &r), SIM_EINVAL);
    for (int i = 0; i < 5; i++) ck_assert_int_ge(sim_grass_add(&a, 0, 0, 0, &r), 0);
    ck_assert_int_eq(sim_grass_add(&a, 0, 0, 0, &r), SIM_EFULL);
    sim_grass_free(&a);
    sim_grass_free(&b);
    sim_sprite big = { 17, 4, tuft_px[0], KEY };
    ck_assert_int_eq(sim_grass_init(&b, 4, &big, 1), SIM_EINVAL);
}
END_TEST

Suite *suite_grass(void)
{
    Suite *s = suite_create("grass");
    TCase *t = tcase_create("tufts");
    tcase_add_test(t, lean_frames_are_row_shears);
    tcase_add_test(t, wind_leans_the_field);
    tcase_add_test(t, waves_cross_the_field);
    tcase_add_test(t, leans_change_on_threes);
    tcase_add_test(t, walker_parts_the_grass);
    tcase_add_test(t, draw_blits_the_frames);
    tcase_add_test(t, save_load_continue);
    tcase_add_test(t, load_refuses_corrupt);
    suite_add_tcase(s, t);
    return s;
}
