/* check_spine.c — sim/anim/spine.c (seed 000 §1, "Spine chain"): after many random target moves
 * every segment is at its rest length and every angle within ±maxBend; the head chases its target;
 * the body is drawn on the palette, solid and outlined; the bad shapes are refused; and the state
 * saves, loads and continues bit for bit, while a corrupt blob is refused. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "anim/spine.h"
#include "check_blob.h"

#define N 12
#define BEND 0.52                  /* 30°, give or take */

static void mk(sim_spine *s)
{
    double len[N - 1], rad[N];
    for (int i = 0; i < N - 1; i++) len[i] = 4.0 - 0.1 * i;
    for (int i = 0; i < N; i++) rad[i] = i < 3 ? 4.0 : 4.0 - (i - 2) * 0.35;
    ck_assert_int_eq(sim_spine_init(s, N, 100.0, 60.0, 0.3, len, rad, BEND, 1.5), 0);
}

static double seg_len(const sim_spine *s, int i)
{
    return hypot(s->x[i] - s->x[i - 1], s->y[i] - s->y[i - 1]);
}

/* The angle between segment i−1 and segment i (2 ≤ i < n), with libm. */
static double bend(const sim_spine *s, int i)
{
    double ax = s->x[i - 1] - s->x[i - 2], ay = s->y[i - 1] - s->y[i - 2];
    double bx = s->x[i] - s->x[i - 1], by = s->y[i] - s->y[i - 1];
    return fabs(atan2(ax * by - ay * bx, ax * bx + ay * by));
}

static void check_invariants(const sim_spine *s)
{
    for (int i = 1; i < s->n; i++) {
        ck_assert_double_eq_tol(seg_len(s, i), s->len[i], 1e-9);
        if (i >= 2) ck_assert_double_le(bend(s, i), s->max_bend + 1e-9);
    }
}

START_TEST(rest_lengths_and_bends_hold_after_random_moves)
{
    sim_spine s;
    mk(&s);
    check_invariants(&s);
    sim_rng rng;
    sim_rng_stream(&rng, 42, "spine-test");
    int clamped = 0;
    double tx = 100, ty = 60;
    for (int t = 0; t < 20000; t++) {
        if (t % 40 == 0) {          /* a new target now and then, anywhere, even behind it */
            tx = sim_rng_range(&rng, -50, 250);
            ty = sim_rng_range(&rng, -50, 200);
        }
        if (t % 997 == 0) {         /* and sometimes right onto its own body */
            tx = s.x[N / 2];
            ty = s.y[N / 2];
        }
        sim_spine_step(&s, tx, ty);
        check_invariants(&s);
        for (int i = 2; i < N; i++) clamped += bend(&s, i) > s.max_bend - 1e-6;
    }
    ck_assert_int_gt(clamped, 100);    /* the limit was reached, not just respected */
}
END_TEST

/* The head moves straight at its target at `speed` a step, and stops on it. */
START_TEST(head_chases_target)
{
    sim_spine s;
    mk(&s);
    double x0 = s.x[0], y0 = s.y[0];
    sim_spine_step(&s, x0 + 30.0, y0 + 40.0);
    ck_assert_double_eq_tol(s.x[0], x0 + 0.9, 1e-12);      /* 1.5 × (3/5, 4/5) */
    ck_assert_double_eq_tol(s.y[0], y0 + 1.2, 1e-12);
    for (int t = 0; t < 40; t++) sim_spine_step(&s, x0 + 30.0, y0 + 40.0);
    ck_assert(s.x[0] == x0 + 30.0 && s.y[0] == y0 + 40.0);
    double hx, hy;
    sim_spine_heading(&s, &hx, &hy);
    ck_assert_double_eq_tol(hx, 0.6, 0.05);                 /* facing the way it went */
    ck_assert_double_eq_tol(hy, 0.8, 0.05);
    /* a non-finite target is ignored */
    sim_spine before = s;
    sim_spine_step(&s, NAN, 0.0);
    ck_assert(memcmp(&before, &s, sizeof s) == 0);
}
END_TEST

START_TEST(bad_shapes_refused)
{
    sim_spine s;
    double len[3] = { 4, 4, 4 }, rad[4] = { 2, 2, 2, 2 };
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, len, rad, 0.5, 1.0), 0);
    ck_assert_int_eq(sim_spine_init(&s, 1, 0, 0, 0, len, rad, 0.5, 1.0), SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, SIM_SPINE_MAX + 1, 0, 0, 0, len, rad, 0.5, 1.0),
                     SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, len, rad, 0.0, 1.0), SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, len, rad, 3.0, 1.0), SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, len, rad, 0.5, 0.0), SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, 4, NAN, 0, 0, len, rad, 0.5, 1.0), SIM_EINVAL);
    /* too thick to bend: (2 + 2) × sin(1.5 / 2) = 2.7 ≥ len 2.5 */
    double shortl[3] = { 4, 2.5, 4 };
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, shortl, rad, 1.5, 1.0), SIM_EINVAL);
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, shortl, rad, 1.0, 1.0), 0);   /* 1.9 < 2.5 */
    double neg[4] = { 2, -1, 2, 2 };
    ck_assert_int_eq(sim_spine_init(&s, 4, 0, 0, 0, len, neg, 0.5, 1.0), SIM_EINVAL);
    ck_assert_int_eq(s.n, 0);
}
END_TEST

/* The body drawn: only its two inks appear, it is one solid piece with no hole under its
 * outline, every fill pixel is boxed in by fill or outline, and the outline is one pixel thick
 * (every outline pixel touches the fill by an edge). */
START_TEST(drawn_on_palette_solid_and_outlined)
{
    enum { W = 200, H = 120, BG = 9, FILL = 4, OUT = 1 };
    sim_spine s;
    mk(&s);
    for (int t = 0; t < 600; t++)
        sim_spine_step(&s, 100 + 30 * cos(t * 0.05), 60 + 25 * sin(t * 0.1));
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, W, H), 0);
    sim_raster_clear(&f, BG);
    sim_spine_draw(&s, &f, FILL, OUT);
    int nfill = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t v = f.px[y * W + x];
            ck_assert(v == BG || v == FILL || v == OUT);
            if (v == FILL) {
                nfill++;
                const int d[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
                for (int k = 0; k < 4; k++) {
                    uint8_t u = f.px[(y + d[k][1]) * W + x + d[k][0]];
                    ck_assert_msg(u != BG, "fill at (%d,%d) touches the background", x, y);
                }
            }
            if (v == OUT) {
                int touch = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        if ((dx == 0) != (dy == 0)) touch |= f.px[(y + dy) * W + x + dx] == FILL;
                ck_assert_msg(touch, "outline at (%d,%d) away from the fill", x, y);
            }
        }
    /* every joint's centre is inside the body, and the body's area is about its radii's worth */
    for (int i = 0; i < N - 4; i++)
        ck_assert_int_eq(f.px[sim_snap(s.y[i]) * W + sim_snap(s.x[i])], FILL);
    ck_assert_int_gt(nfill, 150);
    ck_assert_int_lt(nfill, 400);
    sim_frame_free(&f);
}
END_TEST

static void sp_save(const void *o, sim_writer *w) { sim_spine_save(o, w); }
static int sp_load(void *o, sim_reader *r) { return sim_spine_load(o, r); }
static void sp_step(void *o, uint64_t t)
{
    sim_spine_step(o, 100 + 60 * cos((double)t * 0.07), 60 + 40 * sin((double)t * 0.13));
}
static const blob_piece SPINE = { sizeof(sim_spine), sp_save, sp_load, sp_step };

/* GGPO's sync test for the piece: save at every step, load into another, step both: the same
 * bytes ever after. */
START_TEST(save_load_continue)
{
    sim_spine a, b;
    mk(&a);
    static uint8_t buf[BLOB_MAX];
    ck_assert_uint_le(blob_save(&SPINE, &a, buf, sizeof buf), sim_spine_save_max());
    blob_sync(&SPINE, &a, &b, 300, 5);
}
END_TEST

START_TEST(corrupt_refused_untouched)
{
    sim_spine a, b;
    mk(&a);
    mk(&b);
    sim_spine_step(&b, 0, 0);
    static uint8_t good[BLOB_MAX], bad[BLOB_MAX];
    size_t n = blob_save(&SPINE, &a, good, sizeof good);
    /* n out of range; a point off its rest length; len[0] ≠ 0; max_bend too large; a radius too
     * thick to bend */
    const size_t pt = 1 + 16;       /* point 0's record: x, y, len, radius */
    const blob_poke pokes[] = {
        { 0, 0, 1 }, { 0, SIM_SPINE_MAX + 1, 1 },
        { pt + 32 * 3 + 0, 0.0, 0 },
        { pt + 16, 1.0, 0 },
        { 1, 3.1, 0 },
        { pt + 32 * 5 + 24, 40.0, 0 },
    };
    blob_refusals(&SPINE, &b, good, n, pokes, sizeof pokes / sizeof pokes[0]);
    /* a bend past the limit: the tail from point 2 on turned rigidly about point 1 by 1.2 rad,
     * so every length still holds and only joint 1's bend is wrong; the same turn by 0.4 rad
     * (within the limit) loads */
    for (int k = 0; k < 2; k++) {
        sim_spine t = a;
        double ang = k ? 0.4 : 1.2, c = cos(ang), sn = sin(ang);
        for (int i = 2; i < t.n; i++) {
            double dx = t.x[i] - t.x[1], dy = t.y[i] - t.y[1];
            t.x[i] = t.x[1] + dx * c - dy * sn;
            t.y[i] = t.y[1] + dx * sn + dy * c;
        }
        size_t m = blob_save(&SPINE, &t, bad, sizeof bad);
        if (!k) {
            ck_assert_double_gt(bend(&t, 2), BEND);
            blob_refuse(&SPINE, &b, bad, m);
        } else {
            sim_reader r;
            sim__r_init(&r, bad, m);
            ck_assert_int_eq(sim_spine_load(&b, &r), 0);
        }
    }
}
END_TEST

Suite *suite_spine(void)
{
    Suite *s = suite_create("spine");
    TCase *tc = tcase_create("spine");
    tcase_add_test(tc, rest_lengths_and_bends_hold_after_random_moves);
    tcase_add_test(tc, head_chases_target);
    tcase_add_test(tc, bad_shapes_refused);
    tcase_add_test(tc, drawn_on_palette_solid_and_outlined);
    tcase_add_test(tc, save_load_continue);
    tcase_add_test(tc, corrupt_refused_untouched);
    suite_add_tcase(s, tc);
    return s;
}
