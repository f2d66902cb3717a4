/* check_water.c — the spring height field (sim/anim/water.c, seed 000 §5) as a viewer sees it: the
 * volume stays exactly the same whatever splashes, the surface calms down, a splash runs to the
 * far end at the wave speed and comes back, a splash in the middle stays mirror-symmetric; the
 * drawing and its palette cycle; save → load → continue equals continue, and refused blobs. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "anim/water.h"

static void mk(sim_water *w, int n)
{
    ck_assert_int_eq(sim_water_init(w, n), 0);
}

/* Energy of columns a..b (edges a..b−1), the same measure as sim_water_energy. */
static double window_energy(const sim_water *w, int a, int b)
{
    double e = 0;
    for (int i = a; i < b; i++) {
        double f = w->f[i] / (double)SIM_WATER_ONE;
        double d = ((double)w->h[i] - w->h[i + 1]) / SIM_WATER_ONE;
        e += f * f + (w->couple / (double)SIM_WATER_ONE) * d * d;
    }
    return e;
}

/* The defining property, part one: Σh never changes, not by one unit in 1/65536 px, through 3000
 * ticks of random splashes of every strength (clamped ones too) at every column, the ends
 * included; and a field that starts with a mound keeps the mound's volume while it spreads. */
START_TEST(volume_is_exact)
{
    sim_water w;
    mk(&w, 120);
    sim_rng r;
    sim_rng_stream(&r, 16, "water-test");
    for (int t = 0; t < 3000; t++) {
        if (sim_rng_below(&r, 4) == 0)
            sim_water_splash(&w, sim_rng_range(&r, -2, 121),
                             sim_rng_range(&r, -12 * SIM_WATER_ONE, 12 * SIM_WATER_ONE));
        sim_water_step(&w);
        ck_assert_msg(sim_water_volume(&w) == 0, "tick %d: volume %lld", t,
                      (long long)sim_water_volume(&w));
    }
    sim_water_free(&w);

    mk(&w, 64);
    for (int i = 20; i < 30; i++) w.h[i] = 3 * SIM_WATER_ONE + i * 977;
    int64_t v0 = sim_water_volume(&w);
    ck_assert(v0 > 0);
    for (int t = 0; t < 2000; t++) {
        sim_water_step(&w);
        ck_assert_int_eq(sim_water_volume(&w), v0);
    }
    /* it has spread out to the level that volume gives: v0 / 64 everywhere, within a pixel */
    for (int i = 0; i < 64; i++)
        ck_assert_msg(llabs((long long)w.h[i] - v0 / 64) < SIM_WATER_ONE, "column %d at %d", i,
                      w.h[i]);
    sim_water_free(&w);
}
END_TEST

/* The defining property, part two: it damps. After a stone, the energy of each 200-tick window
 * is below the window before it, by the end it is under 1% of the start, and the surface ends
 * flat to the eye: no column a whole pixel off from tick 600 on (549 measured for this stone). */
START_TEST(energy_falls)
{
    sim_water w;
    mk(&w, 160);
    sim_water_splash(&w, 8, 3 * SIM_WATER_ONE / 2);
    double prev = -1, first = -1;
    int last_visible = 0;
    for (int win = 0; win < 15; win++) {
        double peak = 0;
        for (int t = 0; t < 200; t++) {
            sim_water_step(&w);
            double e = sim_water_energy(&w);
            if (e > peak) peak = e;
            for (int i = 0; i < w.n; i++)
                if (sim_water_height(&w, i) != 0) last_visible = win * 200 + t + 1;
        }
        if (first < 0) first = peak;
        if (prev >= 0) ck_assert_msg(peak < prev, "window %d: peak %g after %g", win, peak, prev);
        prev = peak;
    }
    ck_assert_msg(prev < 0.01 * first, "energy %g of %g left after 3000 ticks", prev, first);
    ck_assert_msg(last_visible > 0 && last_visible < 600, "still visible at tick %d",
                  last_visible);
    sim_water_free(&w);
}
END_TEST

/* A splash near one end travels to the far end at the wave speed √couple = 0.71 columns a tick
 * (151 columns: 214 ticks), reflects, and comes back: the energy of a window in the middle has a
 * peak on the way out, falls while the wave is away, and peaks again on the way back, at the times
 * the wave speed gives (62 and 390 ticks; dispersion spreads a pulse, so within ±35%). */
START_TEST(splash_reaches_far_end_and_returns)
{
    sim_water w;
    mk(&w, 160);
    sim_water_splash(&w, 8, 3 * SIM_WATER_ONE / 2);
    int far = -1;
    double e[800];
    for (int t = 0; t < 800; t++) {
        sim_water_step(&w);
        if (far < 0 && fabs(w.h[159] / (double)SIM_WATER_ONE) > 0.05) far = t + 1;
        e[t] = window_energy(&w, 70, 90);
    }
    ck_assert_msg(far >= 180 && far <= 240, "reached the far end at tick %d (214 expected)", far);
    /* out: the first peak; away: the least after it, before the wave can be back; back: the peak
     * after that */
    int out = 0;
    for (int t = 0; t < far; t++) if (e[t] > e[out]) out = t;
    int away = out;
    for (int t = out; t < far + 60; t++) if (e[t] < e[away]) away = t;
    int back = away;
    for (int t = away; t < 800; t++) if (e[t] > e[back]) back = t;
    ck_assert_msg(out >= 40 && out <= 160, "outgoing peak at tick %d", out);
    ck_assert_msg(back >= 250 && back <= 530, "returning peak at tick %d", back);
    ck_assert_msg(e[away] < 0.25 * e[out], "the middle never calmed: %g vs %g", e[away], e[out]);
    ck_assert_msg(e[back] > 2 * e[away], "no wave came back: %g vs %g", e[back], e[away]);
    sim_water_free(&w);
}
END_TEST

/* Left and right round alike: a splash in the middle of an odd pond stays a mirror image. */
START_TEST(splash_in_the_middle_stays_symmetric)
{
    sim_water w;
    mk(&w, 101);
    sim_water_splash(&w, 50, 2 * SIM_WATER_ONE);
    for (int t = 0; t < 1500; t++) {
        sim_water_step(&w);
        if (t == 300) sim_water_splash(&w, 50, -SIM_WATER_ONE);
        for (int i = 0; i < 50; i++) ck_assert_int_eq(w.h[i], w.h[100 - i]);
    }
    sim_water_free(&w);
}
END_TEST

static const sim_water_look look = {
    .surface = 9, .body = 5, .deep = 4, .deep_below = 6,
    .band = { 7, 5, 5, 6 }, .nband = 4, .band_rows = 2, .cycle_ticks = 8,
};

/* Columns are drawn from their surface down, the surface pixel where the height says, only the
 * look's indexes; the bands cycle one entry every 8 ticks and are back after 4 steps. */
START_TEST(draw_columns_and_cycle)
{
    sim_water w;
    mk(&w, 40);
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 64, 48), 0);
    sim_water_splash(&w, 20, 2 * SIM_WATER_ONE);
    for (int t = 0; t < 6; t++) sim_water_step(&w);
    sim_raster_clear(&f, 0);
    sim_water_draw(&w, &f, &look, 10, 30, 44, 0);
    int moved = 0;
    for (int i = 0; i < 40; i++) {
        int x = 10 + i, top = 30 - sim_water_height(&w, i);
        moved |= top != 30;
        ck_assert_int_eq(f.px[(top - 1) * 64 + x], 0);
        ck_assert_int_eq(f.px[top * 64 + x], look.surface);
        for (int y = top + 1; y <= 44; y++) {
            uint8_t c = f.px[y * 64 + x];
            ck_assert(c == 7 || c == 5 || c == 6 || c == 4);
            if (y > top + 2) ck_assert_int_eq(c, y >= 36 ? 4 : 5);
        }
        ck_assert_int_eq(f.px[45 * 64 + x], 0);
    }
    ck_assert_msg(moved, "the splash moved no column by a pixel");
    for (int y = 0; y < 48; y++) ck_assert_int_eq(f.px[y * 64 + 5], 0);   /* left of x0 */

    uint8_t a[64 * 48], b[64 * 48];
    memcpy(a, f.px, sizeof a);
    sim_water_draw(&w, &f, &look, 10, 30, 44, 7);          /* same step of the cycle */
    ck_assert_mem_eq(f.px, a, sizeof a);
    sim_water_draw(&w, &f, &look, 10, 30, 44, 8);          /* the next: the bands moved */
    memcpy(b, f.px, sizeof b);
    ck_assert(memcmp(a, b, sizeof a) != 0);
    sim_water_draw(&w, &f, &look, 10, 30, 44, 32);         /* 4 steps: back where it began */
    ck_assert_mem_eq(f.px, a, sizeof a);
    sim_frame_free(&f);
    sim_water_free(&w);
}
END_TEST

static size_t save(const sim_water *w, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_water_save(w, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_eq(wr.len, sim_water_save_max(w));
    return wr.len;
}

/* save → load → continue equals continue, splashes and all. */
START_TEST(save_load_continue)
{
    sim_water a, b;
    mk(&a, 90);
    mk(&b, 90);
    for (int t = 0; t < 250; t++) {
        if (t % 37 == 0) sim_water_splash(&a, (t * 7) % 90, SIM_WATER_ONE + t * 100);
        sim_water_step(&a);
    }
    static uint8_t buf[4096], buf2[4096];
    size_t n = save(&a, buf, sizeof buf);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_water_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, n);
    for (int t = 0; t < 400; t++) {
        if (t % 51 == 0) {
            sim_water_splash(&a, t % 90, -SIM_WATER_ONE);
            sim_water_splash(&b, t % 90, -SIM_WATER_ONE);
        }
        sim_water_step(&a);
        sim_water_step(&b);
    }
    n = save(&a, buf, sizeof buf);
    ck_assert_uint_eq(save(&b, buf2, sizeof buf2), n);
    ck_assert_mem_eq(buf, buf2, n);
    sim_water_free(&a);
    sim_water_free(&b);
}
END_TEST

/* Refused: a wrong tag, another column count, a height or flow out of bounds, every truncation;
 * each leaves the target as it was. */
START_TEST(load_refuses_corrupt)
{
    sim_water a, b;
    mk(&a, 30);
    mk(&b, 30);
    sim_water_splash(&a, 10, SIM_WATER_ONE);
    for (int t = 0; t < 20; t++) sim_water_step(&a);
    sim_water_splash(&b, 3, 2 * SIM_WATER_ONE);
    sim_water_step(&b);
    static uint8_t buf[1024], before[1024], after[1024], bad[1024];
    size_t n = save(&a, buf, sizeof buf);
    size_t nb = save(&b, before, sizeof before);
    sim_reader rd;
    struct { size_t at; uint8_t v; } pokes[] = {
        { 0, 0x00 },                     /* tag */
        { 2, 29 },                       /* n */
        { 4 + 4 * 5 + 3, 0x7f },         /* h[5] huge */
        { 4 + 4 * 30 + 4 * 2 + 3, 0x40 } /* f[2] past FMAX */
    };
    for (size_t k = 0; k < sizeof pokes / sizeof pokes[0]; k++) {
        memcpy(bad, buf, n);
        bad[pokes[k].at] = pokes[k].v;
        sim__r_init(&rd, bad, n);
        ck_assert_int_eq(sim_water_load(&b, &rd), SIM_ECORRUPT);
        ck_assert_uint_eq(save(&b, after, sizeof after), nb);
        ck_assert_mem_eq(after, before, nb);
    }
    for (size_t len = 0; len < n; len++) {
        sim__r_init(&rd, buf, len);
        ck_assert_int_eq(sim_water_load(&b, &rd), SIM_ETRUNC);
        save(&b, after, sizeof after);
        ck_assert_mem_eq(after, before, nb);
    }
    sim_water_free(&a);
    sim_water_free(&b);
    ck_assert_int_eq(sim_water_init(&b, 1), SIM_EINVAL);
    ck_assert_int_eq(sim_water_init(&b, SIM_WATER_MAX_COLS + 1), SIM_EINVAL);
}
END_TEST

Suite *suite_water(void)
{
    Suite *s = suite_create("water");
    TCase *t = tcase_create("height field");
    tcase_add_test(t, volume_is_exact);
    tcase_add_test(t, energy_falls);
    tcase_add_test(t, splash_reaches_far_end_and_returns);
    tcase_add_test(t, splash_in_the_middle_stays_symmetric);
    tcase_add_test(t, draw_columns_and_cycle);
    tcase_add_test(t, save_load_continue);
    tcase_add_test(t, load_refuses_corrupt);
    suite_add_tcase(s, t);
    return s;
}
