/* check_legs.c — sim/anim/legs.c, stepping legs on planted feet (seed 000 §1, "Legs"): a planted
 * foot never moves, bit for bit, whatever the body does; the diagonal pairs alternate and are
 * never both in the air; a step is eased and lifted lift·sin(πt) and lands where it aimed; the
 * feet keep up with a walking body; the two-bone knee keeps its bones' lengths on the side its
 * bend says; save, load and continue; corrupt blobs refused. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/legs.h"

static sim_legs_cfg cfg(void)
{
    return (sim_legs_cfg){ .thigh = 4.0, .shin = 4.0, .step_at = 5.0, .lead = 2.5,
                           .step_ticks = 8, .lift = 2.0 };
}

/* A four-legged body of hips at x ± 6, its ideal spots on the ground (y 100), legs 0 and 3 one
 * diagonal pair, 1 and 2 the other. */
static const uint8_t pairs[4] = { 0, 1, 1, 0 };
static const double reach[4] = { 7.0, 5.0, -5.0, -7.0 };
static void ideal(double x, double *ix, double *iy)
{
    for (int i = 0; i < 4; i++) {
        ix[i] = x + reach[i];
        iy[i] = 100.0;
    }
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* The body's speed: a walk that speeds up, stops, turns back, and once leaps (a teleport). */
static double speed_at(int t, uint32_t *r)
{
    if (t == 1500) return 30.0;
    int phase = (t / 200) % 5;
    double v = phase == 0 ? 0.3 : phase == 1 ? 0.8 : phase == 2 ? 0.0 : phase == 3 ? -0.5 : 1.4;
    return v + (double)(lcg(r) % 100) * 0.001;
}

START_TEST(planted_feet_never_move)
{
    sim_legs_cfg c = cfg();
    ck_assert_int_eq(sim_legs_cfg_check(&c), 0);
    double ix[4], iy[4], x = 50.0;
    ideal(x, ix, iy);
    sim_legs L;
    ck_assert_int_eq(sim_legs_init(&L, 4, pairs, ix, iy), 0);
    uint32_t r = 7;
    int steps = 0;
    for (int t = 0; t < 3000; t++) {
        sim_legs before = L;
        double v = speed_at(t, &r);
        x += v;
        ideal(x, ix, iy);
        int started = sim_legs_step(&L, &c, ix, iy, v);
        steps += started != 0;
        for (int i = 0; i < 4; i++) {
            int was = before.leg[i].t == 0, lifted = (started >> L.leg[i].pair) & 1;
            if (was && !lifted) {
                ck_assert(memcmp(&before.leg[i].x, &L.leg[i].x, sizeof L.leg[i].x) == 0);
                ck_assert(memcmp(&before.leg[i].y, &L.leg[i].y, sizeof L.leg[i].y) == 0);
                ck_assert(sim_legs_planted(&L, i));
            }
            if (sim_legs_planted(&L, i)) ck_assert(L.leg[i].y == 100.0);   /* on the ground */
        }
        ck_assert(!(sim_legs_pair_up(&L, 0) && sim_legs_pair_up(&L, 1)));
    }
    ck_assert_int_gt(steps, 100);
}
END_TEST

/* A steady walk: the pairs take turns, each step ends planted where it aimed (its ideal spot
 * plus the lead), and the feet stay near their spots. */
START_TEST(diagonal_pairs_alternate_and_keep_up)
{
    sim_legs_cfg c = cfg();
    double ix[4], iy[4], x = 0.0;
    ideal(x, ix, iy);
    sim_legs L;
    sim_legs_init(&L, 4, pairs, ix, iy);
    int last = -1, turns = 0;
    for (int t = 0; t < 2000; t++) {
        x += 0.5;
        ideal(x, ix, iy);
        int started = sim_legs_step(&L, &c, ix, iy, 0.5);
        if (started) {
            int p = started == 1 ? 0 : 1;
            ck_assert(started == 1 || started == 2);
            if (last >= 0) ck_assert_int_ne(p, last);            /* never the same pair twice */
            last = p;
            turns++;
            for (int i = 0; i < 4; i++)
                if (L.leg[i].pair == p) ck_assert(L.leg[i].tx == ix[i] + c.lead);
        }
        for (int i = 0; i < 4; i++) {
            double d = L.leg[i].x - ix[i];
            /* behind by the threshold, and by what the body walks while the other pair is up */
            ck_assert(d > -(c.step_at + 0.5 * c.step_ticks + 1.0) && d < c.step_at + c.lead + 1.0);
        }
    }
    ck_assert_int_gt(turns, 2000 * 0.5 / (c.step_at + c.lead) * 1.5);
}
END_TEST

/* One step, tick by tick: the foot rises lift·sin(πu) over the eased path and lands on its aim
 * after step_ticks ticks. */
START_TEST(step_is_eased_and_lifted)
{
    sim_legs_cfg c = cfg();
    double ix[4], iy[4];
    ideal(0.0, ix, iy);
    sim_legs L;
    sim_legs_init(&L, 4, pairs, ix, iy);
    ideal(6.0, ix, iy);                                     /* past step_at: pair 0 steps */
    ck_assert_int_eq(sim_legs_step(&L, &c, ix, iy, 1.0), 1);
    double top = 0.0;
    for (int k = 1; k < c.step_ticks; k++) {
        ck_assert_int_eq(L.leg[0].t, k);
        double u = (double)k / c.step_ticks, lift = 100.0 - L.leg[0].y;
        ck_assert(lift > c.lift * sim_sin(SIM_PI * u) - 1e-9 && lift < c.lift * sim_sin(SIM_PI * u) + 1e-9);
        if (lift > top) top = lift;
        ck_assert(L.leg[0].x > 7.0 && L.leg[0].x < 6.0 + 7.0 + c.lead);
        sim_legs_step(&L, &c, ix, iy, 0.0);
    }
    ck_assert(sim_legs_planted(&L, 0));
    ck_assert(L.leg[0].x == 6.0 + 7.0 + c.lead && L.leg[0].y == 100.0);
    ck_assert(top > 1.8);
}
END_TEST

START_TEST(two_bone_knee)
{
    for (int bend = -1; bend <= 1; bend += 2)
        for (int k = 0; k < 40; k++) {
            double fx = 3.0 * sim_cos(k * 0.3), fy = 5.0 + 2.0 * sim_sin(k * 0.7), kx, ky;
            sim_two_bone(0.0, 0.0, fx, fy, 4.0, 4.0, bend, &kx, &ky);
            double a = sim_sqrt(kx * kx + ky * ky), b = sim_sqrt((fx - kx) * (fx - kx) + (fy - ky) * (fy - ky));
            ck_assert(a > 4.0 - 1e-9 && a < 4.0 + 1e-9);
            ck_assert(b > 4.0 - 1e-6 && b < 4.0 + 1e-6);
            /* the side: the cross product of hip→foot and hip→knee has bend's sign, turned */
            double cr = fx * ky - fy * kx;
            ck_assert(bend > 0 ? cr < 0.0 : cr > 0.0);
        }
    double kx, ky;
    sim_two_bone(0.0, 0.0, 0.0, 6.0, 4.0, 4.0, 1, &kx, &ky);      /* hanging down: +x */
    ck_assert(kx > 0.0);
    sim_two_bone(0.0, 0.0, 0.0, 20.0, 4.0, 4.0, 1, &kx, &ky);     /* out of reach: straight */
    ck_assert(kx > -1e-6 && kx < 1e-6 && ky > 4.0 - 1e-9 && ky < 4.0 + 1e-9);
}
END_TEST

START_TEST(save_load_continue)
{
    sim_legs_cfg c = cfg();
    double ix[4], iy[4], x = 0.0;
    ideal(x, ix, iy);
    sim_legs a, b;
    sim_legs_init(&a, 4, pairs, ix, iy);
    uint8_t buf[512];
    for (int t = 0; t < 400; t++) {
        sim_writer wr;
        sim__w_init(&wr, buf, sizeof buf);
        sim_legs_save(&a, &wr);
        ck_assert_int_eq(wr.overflow, 0);
        ck_assert_uint_le(wr.len, sim_legs_save_max());
        memset(&b, 0x5a, sizeof b);
        sim_reader rd;
        sim__r_init(&rd, buf, wr.len);
        ck_assert_int_eq(sim_legs_load(&b, &c, &rd), 0);
        x += 0.7;
        ideal(x, ix, iy);
        sim_legs_step(&a, &c, ix, iy, 0.7);
        sim_legs_step(&b, &c, ix, iy, 0.7);
        ck_assert(memcmp(&a.leg, &b.leg, sizeof a.leg[0] * a.n) == 0);
    }
}
END_TEST

START_TEST(load_refuses_corrupt)
{
    sim_legs_cfg c = cfg();
    double ix[4], iy[4];
    ideal(0.0, ix, iy);
    sim_legs a, keep;
    sim_legs_init(&a, 4, pairs, ix, iy);
    uint8_t buf[512];
    sim_writer wr;
    sim__w_init(&wr, buf, sizeof buf);
    sim_legs_save(&a, &wr);
    memset(&keep, 0x33, sizeof keep);
    for (size_t n = 0; n < wr.len; n++) {                    /* every truncation */
        sim_legs t = keep;
        sim_reader rd;
        sim__r_init(&rd, buf, n);
        ck_assert_int_ne(sim_legs_load(&t, &c, &rd), 0);
        ck_assert(memcmp(&t, &keep, sizeof t) == 0);
    }
    uint8_t bad[512];
    memcpy(bad, buf, wr.len);
    bad[0] = 9;                                              /* too many legs */
    sim_reader rd;
        sim__r_init(&rd, bad, wr.len);
    sim_legs t = keep;
    ck_assert_int_eq(sim_legs_load(&t, &c, &rd), SIM_ECORRUPT);
    memcpy(bad, buf, wr.len);
    bad[1 + 48] = (uint8_t)c.step_ticks;                     /* a step tick past the step */
    sim__r_init(&rd, bad, wr.len);
    ck_assert_int_eq(sim_legs_load(&t, &c, &rd), SIM_ECORRUPT);
    memcpy(bad, buf, wr.len);
    bad[1 + 48] = 1;                                         /* both pairs in the air */
    bad[1 + 50 + 48] = 1;
    sim__r_init(&rd, bad, wr.len);
    ck_assert_int_eq(sim_legs_load(&t, &c, &rd), SIM_ECORRUPT);
    memcpy(bad, buf, wr.len);
    memset(bad + 1, 0xff, 8);                                /* a NaN */
    sim__r_init(&rd, bad, wr.len);
    ck_assert_int_eq(sim_legs_load(&t, &c, &rd), SIM_ECORRUPT);
    ck_assert(memcmp(&t, &keep, sizeof t) == 0);
}
END_TEST

Suite *suite_legs(void)
{
    Suite *s = suite_create("legs");
    TCase *tc = tcase_create("legs");
    tcase_add_test(tc, planted_feet_never_move);
    tcase_add_test(tc, diagonal_pairs_alternate_and_keep_up);
    tcase_add_test(tc, step_is_eased_and_lifted);
    tcase_add_test(tc, two_bone_knee);
    tcase_add_test(tc, save_load_continue);
    tcase_add_test(tc, load_refuses_corrupt);
    suite_add_tcase(s, tc);
    return s;
}
