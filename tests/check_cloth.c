/* check_cloth.c — the flag (sim/anim/cloth.c, seed 000 §5) as a viewer sees it: the pinned nodes
 * are exactly still whatever the wind does, the free nodes move and flutter, the flag hangs in a
 * calm and streams out in a gale on the side the wind blows, the cloth keeps its size, a wind and
 * its mirror give mirrored flags bit for bit; drawn as flat quads with no cracks; save → load →
 * continue equals continue, and refused blobs. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "anim/cloth.h"

static void mk(sim_cloth *c, double x0, int dir)
{
    ck_assert_int_eq(sim_cloth_init(c, SIM_FLAG_W, SIM_FLAG_H), 0);
    sim_cloth_hang(c, x0, 50, 4, 4, dir);
}

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
}

/* The defining property: through 4000 ticks of a wind that changes every 50 ticks to anything
 * from a gale left to a gale right, the four pole nodes keep their position and previous position
 * bit for bit, while every free node moves (the far column by more than its own length). */
START_TEST(pinned_nodes_never_move)
{
    sim_cloth c;
    mk(&c, 100, 1);
    uint64_t pin0[SIM_FLAG_H][4];
    for (int j = 0; j < SIM_FLAG_H; j++) {
        int n = j * SIM_FLAG_W;
        ck_assert(c.pin[n]);
        pin0[j][0] = bits(c.x[n]); pin0[j][1] = bits(c.y[n]);
        pin0[j][2] = bits(c.px[n]); pin0[j][3] = bits(c.py[n]);
    }
    double x0[SIM_FLAG_W * SIM_FLAG_H], y0[SIM_FLAG_W * SIM_FLAG_H];
    double far[SIM_FLAG_W * SIM_FLAG_H] = {0};
    memcpy(x0, c.x, sizeof x0);
    memcpy(y0, c.y, sizeof y0);
    sim_rng r;
    sim_rng_stream(&r, 16, "flag-test");
    int wind = 0;
    for (int t = 0; t < 4000; t++) {
        if (t % 50 == 0) wind = sim_rng_range(&r, -120, 120);     /* past the range: clamped */
        sim_cloth_step(&c, wind);
        for (int j = 0; j < SIM_FLAG_H; j++) {
            int n = j * SIM_FLAG_W;
            ck_assert(bits(c.x[n]) == pin0[j][0] && bits(c.y[n]) == pin0[j][1]);
            ck_assert(bits(c.px[n]) == pin0[j][2] && bits(c.py[n]) == pin0[j][3]);
        }
        for (int n = 0; n < SIM_FLAG_W * SIM_FLAG_H; n++) {
            ck_assert(isfinite(c.x[n]) && isfinite(c.y[n]));
            double d = hypot(c.x[n] - x0[n], c.y[n] - y0[n]);
            if (d > far[n]) far[n] = d;
        }
    }
    for (int n = 0; n < SIM_FLAG_W * SIM_FLAG_H; n++) {
        if (n % SIM_FLAG_W == 0) ck_assert(far[n] == 0.0);
        else ck_assert_msg(far[n] > 2.0, "node %d moved at most %g px", n, far[n]);
        if (n % SIM_FLAG_W == SIM_FLAG_W - 1) ck_assert(far[n] > 20.0);
    }
    sim_cloth_free(&c);
}
END_TEST

/* Hanging in a calm (the free corner well below level), streaming out in a gale (the top row's
 * free corner within 25° of level, on the wind's side), and fluttering in the wind: the free
 * bottom corner keeps moving in a steady gale and is still in a calm. The rows and columns keep
 * their lengths within 25% throughout. */
START_TEST(hangs_in_calm_streams_in_gale)
{
    const int winds[3] = { 0, 100, 30 };
    for (int k = 0; k < 3; k++) {
        sim_cloth c;
        mk(&c, 100, 1);
        double lo = 1e9, hi = -1e9;
        for (int t = 0; t < 900; t++) {
            sim_cloth_step(&c, winds[k]);
            for (int j = 0; j < SIM_FLAG_H; j++)
                for (int i = 0; i + 1 < SIM_FLAG_W; i++) {
                    int a = j * SIM_FLAG_W + i;
                    double d = hypot(c.x[a + 1] - c.x[a], c.y[a + 1] - c.y[a]);
                    ck_assert_msg(fabs(d - 4) < 1.0, "row link %d at %g px", a, d);
                    if (j + 1 < SIM_FLAG_H) {
                        d = hypot(c.x[a + SIM_FLAG_W] - c.x[a], c.y[a + SIM_FLAG_W] - c.y[a]);
                        ck_assert_msg(fabs(d - 4) < 1.0, "column link %d at %g px", a, d);
                    }
                }
            if (t >= 600) {
                double y = c.y[(SIM_FLAG_H - 1) * SIM_FLAG_W + SIM_FLAG_W - 1];
                if (y < lo) lo = y;
                if (y > hi) hi = y;
            }
        }
        double deg = atan2(c.y[SIM_FLAG_W - 1] - 50, c.x[SIM_FLAG_W - 1] - 100) * 180 / M_PI;
        if (winds[k] == 0) {
            ck_assert_msg(deg > 45, "calm: the flag is %g° below level", deg);
            ck_assert_msg(hi - lo < 0.01, "calm: the corner swings %g px", hi - lo);
        } else {
            ck_assert_msg(c.x[SIM_FLAG_W - 1] > 100 + 12, "the flag is not out");
            ck_assert_msg(hi - lo > 2.0, "wind %d: the corner swings only %g px", winds[k],
                          hi - lo);
            if (winds[k] == 100) ck_assert_msg(fabs(deg) < 25, "gale: %g° below level", deg);
        }
        sim_cloth_free(&c);
    }
}
END_TEST

/* A flag on the left of its pole in a wind to the left is the mirror image, bit for bit, of one on
 * the right in a wind to the right: nothing in the solver favours a side. */
START_TEST(mirror_wind_mirror_flag)
{
    sim_cloth a, b;
    mk(&a, 0, 1);
    mk(&b, 0, -1);
    for (int t = 0; t < 1500; t++) {
        int w = (t / 100) % 2 ? 70 : 25;
        sim_cloth_step(&a, w);
        sim_cloth_step(&b, -w);
        for (int n = 0; n < SIM_FLAG_W * SIM_FLAG_H; n++) {
            ck_assert(bits(a.x[n]) == bits(-b.x[n]) || (a.x[n] == 0 && b.x[n] == 0));
            ck_assert(bits(a.y[n]) == bits(b.y[n]));
        }
    }
    sim_cloth_free(&a);
    sim_cloth_free(&b);
}
END_TEST

static const uint8_t bands[2][3] = { { 11, 12, 13 }, { 21, 22, 23 } };

/* Flat quads, no cracks: on a warped grid that does not fold, the cells cover exactly the pixels
 * of the flag's outline polygon (the half-open fill tiles shared edges); every pixel is one of the
 * bands' six indexes; row j uses band j mod 2; a wavy flag shows lit and shaded cells. */
START_TEST(draw_flat_quads_without_cracks)
{
    sim_cloth c;
    mk(&c, 100, 1);
    for (int j = 0; j < SIM_FLAG_H; j++)
        for (int i = 1; i < SIM_FLAG_W; i++) {
            int n = j * SIM_FLAG_W + i;
            c.x[n] = 100 + 6.3 * i + 0.4 * j;
            c.y[n] = 50 + 5.2 * j + 3.1 * sin(i * 1.3) + 0.2 * i;
        }
    sim_frame f, g;
    ck_assert_int_eq(sim_frame_init(&f, 160, 100), 0);
    ck_assert_int_eq(sim_frame_init(&g, 160, 100), 0);
    sim_raster_clear(&f, 0);
    sim_cloth_draw(&c, &f, bands, 2);
    int outline[2 * (2 * SIM_FLAG_W + 2 * SIM_FLAG_H - 4)], k = 0;
    for (int i = 0; i < SIM_FLAG_W; i++) {              /* top row, out */
        outline[k++] = sim_snap(c.x[i]);
        outline[k++] = sim_snap(c.y[i]);
    }
    for (int j = 1; j < SIM_FLAG_H; j++) {              /* free edge, down */
        outline[k++] = sim_snap(c.x[j * SIM_FLAG_W + SIM_FLAG_W - 1]);
        outline[k++] = sim_snap(c.y[j * SIM_FLAG_W + SIM_FLAG_W - 1]);
    }
    for (int i = SIM_FLAG_W - 2; i >= 0; i--) {         /* bottom row, back */
        outline[k++] = sim_snap(c.x[(SIM_FLAG_H - 1) * SIM_FLAG_W + i]);
        outline[k++] = sim_snap(c.y[(SIM_FLAG_H - 1) * SIM_FLAG_W + i]);
    }
    for (int j = SIM_FLAG_H - 2; j >= 1; j--) {         /* pole, up */
        outline[k++] = sim_snap(c.x[j * SIM_FLAG_W]);
        outline[k++] = sim_snap(c.y[j * SIM_FLAG_W]);
    }
    sim_raster_clear(&g, 0);
    sim_raster_polygon(&g, outline, k / 2, 1);
    int covered = 0, lit = 0, shaded = 0;
    for (int p = 0; p < 160 * 100; p++) {
        ck_assert_msg((f.px[p] != 0) == (g.px[p] != 0), "pixel (%d,%d): cell %d, outline %d",
                      p % 160, p / 160, f.px[p], g.px[p]);
        uint8_t v = f.px[p];
        ck_assert(v == 0 || (v >= 11 && v <= 13) || (v >= 21 && v <= 23));
        covered += v != 0;
        lit += v == 11 || v == 21;
        shaded += v == 13 || v == 23;
    }
    ck_assert(covered > 300 && lit > 0 && shaded > 0);
    /* row 1's cells are band 1 */
    int cx = sim_snap((c.x[SIM_FLAG_W + 2] + c.x[2 * SIM_FLAG_W + 3]) / 2);
    int cy = sim_snap((c.y[SIM_FLAG_W + 2] + c.y[2 * SIM_FLAG_W + 3]) / 2);
    ck_assert(f.px[cy * 160 + cx] >= 21 && f.px[cy * 160 + cx] <= 23);
    sim_frame_free(&f);
    sim_frame_free(&g);
    sim_cloth_free(&c);
}
END_TEST

static size_t save(const sim_cloth *c, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_cloth_save(c, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_eq(wr.len, sim_cloth_save_max(c));
    return wr.len;
}

START_TEST(save_load_continue)
{
    sim_cloth a, b;
    mk(&a, 100, 1);
    /* b is never hung: everything comes from the blob */
    ck_assert_int_eq(sim_cloth_init(&b, SIM_FLAG_W, SIM_FLAG_H), 0);
    for (int t = 0; t < 333; t++) sim_cloth_step(&a, 60);
    static uint8_t buf[2048], buf2[2048];
    size_t n = save(&a, buf, sizeof buf);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_cloth_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, n);
    for (int t = 0; t < 500; t++) {
        sim_cloth_step(&a, t < 250 ? 60 : -40);
        sim_cloth_step(&b, t < 250 ? 60 : -40);
    }
    n = save(&a, buf, sizeof buf);
    ck_assert_uint_eq(save(&b, buf2, sizeof buf2), n);
    ck_assert_mem_eq(buf, buf2, n);
    sim_cloth_free(&a);
    sim_cloth_free(&b);
}
END_TEST

/* Refused with the target untouched: tag, size, spacing, a NaN, a coordinate past the bound, a
 * pin byte of 2, a pinned node with a velocity, and every truncation. */
START_TEST(load_refuses_corrupt)
{
    sim_cloth a, b;
    mk(&a, 100, 1);
    mk(&b, 10, 1);
    for (int t = 0; t < 40; t++) sim_cloth_step(&a, 80);
    sim_cloth_step(&b, 10);
    static uint8_t buf[2048], bad[2048], before[2048], after[2048];
    size_t n = save(&a, buf, sizeof buf), nb = save(&b, before, sizeof before);
    /* header 24 bytes (tag 0, w 2, h 3, sx 4, sy 12, phase 20); node k at 24 + 33k: x, y, px, py,
     * pin at +32 */
    const double nan = NAN, huge = 2e6, neg = -1.0;
    struct { size_t at; const void *v; size_t len; } pokes[] = {
        { 0, "\x00", 1 }, { 2, "\x05", 1 }, { 3, "\x09", 1 },
        { 4, &neg, 8 }, { 12, &huge, 8 },
        { 24 + 33 * 7, &nan, 8 }, { 24 + 33 * 7 + 8, &huge, 8 },
        { 24 + 33 * 7 + 32, "\x02", 1 },
        { 24 + 33 * 6 + 16, &huge, 8 },            /* node 6 is on the pole: px ≠ x */
        { 24 + 33 * 6 + 32, "\x00", 1 },           /* …unpinning it is allowed: see below */
    };
    for (size_t k = 0; k < sizeof pokes / sizeof pokes[0]; k++) {
        memcpy(bad, buf, n);
        memcpy(bad + pokes[k].at, pokes[k].v, pokes[k].len);
        sim_reader rd;
        sim__r_init(&rd, bad, n);
        int rc = sim_cloth_load(&b, &rd);
        if (k + 1 == sizeof pokes / sizeof pokes[0]) {
            ck_assert_int_eq(rc, 0);             /* a free node on the pole is a state too */
            ck_assert_int_eq(b.pin[6], 0);
            continue;
        }
        ck_assert_msg(rc == SIM_ECORRUPT, "poke %zu: %d", k, rc);
        ck_assert_uint_eq(save(&b, after, sizeof after), nb);
        ck_assert_mem_eq(after, before, nb);
    }
    sim_reader rd;
    sim__r_init(&rd, before, nb);
    ck_assert_int_eq(sim_cloth_load(&b, &rd), 0);
    for (size_t len = 0; len < n; len++) {
        sim__r_init(&rd, buf, len);
        ck_assert_int_eq(sim_cloth_load(&b, &rd), SIM_ETRUNC);
        save(&b, after, sizeof after);
        ck_assert_mem_eq(after, before, nb);
    }
    sim_cloth_free(&a);
    sim_cloth_free(&b);
    ck_assert_int_eq(sim_cloth_init(&b, 1, 4), SIM_EINVAL);
    ck_assert_int_eq(sim_cloth_init(&b, 6, SIM_CLOTH_MAX + 1), SIM_EINVAL);
}
END_TEST

Suite *suite_cloth(void)
{
    Suite *s = suite_create("cloth");
    TCase *t = tcase_create("flag");
    tcase_add_test(t, pinned_nodes_never_move);
    tcase_add_test(t, hangs_in_calm_streams_in_gale);
    tcase_add_test(t, mirror_wind_mirror_flag);
    tcase_add_test(t, draw_flat_quads_without_cracks);
    tcase_add_test(t, save_load_continue);
    tcase_add_test(t, load_refuses_corrupt);
    suite_add_tcase(s, t);
    return s;
}
